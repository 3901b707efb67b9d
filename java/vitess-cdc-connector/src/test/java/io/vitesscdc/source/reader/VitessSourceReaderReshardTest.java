/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.source.event.ShardEndedAck;
import io.vitesscdc.source.event.ShardEndedEvent;
import io.vitesscdc.source.split.ReshardJournal;
import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.split.VitessSplitState;
import io.vitesscdc.source.testutils.RenderedPositions;

import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reader side of a reshard: an ended split stays in the reader's checkpointed state until the
 * enumerator acknowledges it; it is reported at once (tentative), after each completed checkpoint
 * holding it (durable), and at once (durable) when restored.
 */
class VitessSourceReaderReshardTest {

    private static final ReshardJournal JOURNAL = new ReshardJournal(
            7,
            "ks",
            List.of("-80"),
            Map.of(
                    "-40",
                    RenderedPositions.of("ks", "-40", "{\"gtid\":\"a\"}"),
                    "40-80",
                    RenderedPositions.of("ks", "40-80", "{\"gtid\":\"b\"}")));

    /** Records the events the reader sends to the enumerator. */
    private static final class Context implements SourceReaderContext {
        final List<SourceEvent> sent = new ArrayList<>();

        @Override
        public SourceReaderMetricGroup metricGroup() {
            return UnregisteredMetricsGroup.createSourceReaderMetricGroup();
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return 0;
        }

        @Override
        public void sendSplitRequest() {}

        @Override
        public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {
            sent.add(sourceEvent);
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
        }
    }

    /** A split reader that never reads anything (these tests drive the reader's bookkeeping). */
    private static final class Idle implements SplitReader<SplitElement<String>, VitessSplit> {
        @Override
        public RecordsWithSplitIds<SplitElement<String>> fetch() throws java.io.IOException {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new VitessRecords<>();
        }

        @Override
        public void handleSplitsChanges(SplitsChange<VitessSplit> splitsChanges) {}

        @Override
        public void wakeUp() {}

        @Override
        public void close() {}
    }

    private static VitessSourceReader<String> reader(Context context) {
        return new VitessSourceReader<>(
                Idle::new, new VitessRecordEmitter<>(false, new SimpleCounter()), new Configuration(), context);
    }

    private static VitessSplitState endedState() {
        VitessSplitState state = new VitessSplitState(
                new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g9\"}"), 0));
        state.journalReached(JOURNAL);
        return state;
    }

    @Test
    void anEndedSplitIsReportedKeptInStateUntilAcknowledgedAndReportedDurablyAfterACheckpoint() throws Exception {
        Context context = new Context();
        try (VitessSourceReader<String> reader = reader(context)) {
            reader.start();
            reader.onSplitFinished(Map.of("ks/-80", endedState()));
            VitessSplit ended =
                    new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g9\"}"), 0, JOURNAL);
            // the report carries the split's last position: the cursors of a capture it was taking
            assertThat(context.sent)
                    .singleElement()
                    .usingRecursiveComparison()
                    .withEqualsForType(Object::equals, io.vitesscdc.nativeio.Position.class)
                    .isEqualTo(new ShardEndedEvent("ks", "-80", JOURNAL, false, 0, ended.position()));
            assertThat(reader.snapshotState(1)).containsExactly(ended);
            // a checkpoint that completes before the one holding the split proves nothing
            TestingReaderOutput<String> output = new TestingReaderOutput<>();
            reader.notifyCheckpointComplete(0);
            reader.pollNext(output);
            assertThat(context.sent).hasSize(1);
            // the durable report waits for the next pollNext, and the idle task thread is woken for it
            CompletableFuture<Void> idle = reader.isAvailable();
            assertThat(idle).isNotDone();
            reader.notifyCheckpointComplete(1);
            assertThat(context.sent).hasSize(1);
            assertThat(idle).isDone();
            reader.pollNext(output);
            assertThat(context.sent).hasSize(2);
            reader.pollNext(output);
            assertThat(context.sent).as("one report per completed checkpoint").hasSize(2);
            ShardEndedEvent durable = (ShardEndedEvent) context.sent.get(1);
            assertThat(durable.durable()).isTrue();
            assertThat(durable.splitId()).isEqualTo("ks/-80");
            assertThat(durable.journal()).isEqualTo(JOURNAL);
            // an ack of another journal does not drop it
            reader.handleSourceEvents(new ShardEndedAck("ks/-80", 8));
            assertThat(reader.snapshotState(2)).containsExactly(ended);
            reader.handleSourceEvents(new ShardEndedAck("ks/-80", 7));
            assertThat(reader.snapshotState(3)).isEmpty();
            reader.notifyCheckpointComplete(3);
            reader.pollNext(output);
            assertThat(context.sent).hasSize(2);
        }
    }

    @Test
    void theSavepointOfAStopReportsNothingSoNoNewShardIsAssignedToAFinishingTask() throws Exception {
        // Stop-with-savepoint: Flink stops the source (no pollNext after it), takes the savepoint
        // holding the ended split, notifies its completion and ends the task. A durable report
        // sent then would make the enumerator assign the new shards to a task that is finishing.
        Context context = new Context();
        try (VitessSourceReader<String> reader = reader(context)) {
            reader.start();
            reader.onSplitFinished(Map.of("ks/-80", endedState()));
            assertThat(reader.snapshotState(4)).hasSize(1);
            reader.notifyCheckpointComplete(4);
            assertThat(context.sent)
                    .as("only the tentative report: the durable one waits for a pollNext that never comes")
                    .singleElement()
                    .satisfies(e -> assertThat(((ShardEndedEvent) e).durable()).isFalse());
            assertThat(reader.endedSplits()).containsOnlyKeys("ks/-80");
        }
    }

    @Test
    void aRestoredEndedSplitIsNotReadAndIsReportedDurablyAtOnce() throws Exception {
        Context context = new Context();
        try (VitessSourceReader<String> reader = reader(context)) {
            reader.start();
            VitessSplit ended =
                    new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g9\"}"), 0, JOURNAL);
            reader.addSplits(List.of(ended));
            assertThat(reader.getNumberOfCurrentlyAssignedSplits()).isZero();
            assertThat(context.sent).hasSize(1);
            assertThat(((ShardEndedEvent) context.sent.get(0)).durable()).isTrue();
            assertThat(reader.endedSplits()).containsOnlyKeys("ks/-80");
            assertThat(reader.snapshotState(5)).containsExactly(ended);
            reader.handleSourceEvents(new ShardEndedAck("ks/-80", 7));
            assertThat(reader.endedSplits()).isEmpty();
        }
    }

    @Test
    void aRestoredEndedSplitIsReportedOnlyOnceTheReaderStarted() throws Exception {
        // Flink adds a reader's restored splits before the reader registers (start() follows).
        Context context = new Context();
        try (VitessSourceReader<String> reader = reader(context)) {
            VitessSplit ended =
                    new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g9\"}"), 0, JOURNAL);
            reader.addSplits(List.of(ended));
            assertThat(context.sent).isEmpty();
            reader.start();
            assertThat(context.sent)
                    .singleElement()
                    .satisfies(e -> assertThat(((ShardEndedEvent) e).durable()).isTrue());
        }
    }
}
