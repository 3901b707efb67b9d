/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.testutils.ChangelogRecorder;
import io.vitesscdc.source.testutils.CustomerRangeITBase;
import io.vitesscdc.source.testutils.CustomerWriter;
import io.vitesscdc.source.testutils.DebeziumJson;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The DataStream source end to end: real MiniCluster, real local Vitess (tests/vitess/up.sh),
 * concurrent writes into customer.customer. Each test writes only its own id range, so the tests
 * can run again without cleanup; the materialized upsert state must equal {@code SELECT *} of that
 * range at quiescence, and no streamed event may arrive twice, also across stop-with-savepoint,
 * restore and a parallelism change. The whole changelog of each job (and its restores) must be a
 * strict changelog ({@link ChangelogRecorder}).
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessSourceITCase extends CustomerRangeITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4, smallNetworkBuffers());

    /** Small network buffers keep little data in flight, so a savepoint lands mid-copy. */
    private static Configuration smallNetworkBuffers() {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.MEMORY_SEGMENT_SIZE, MemorySize.parse("4kb"));
        return conf;
    }

    VitessSourceITCase() {
        super("ds");
    }

    @Test
    void initialSnapshotThenStreamingEqualsVitess() throws Exception {
        writer.insertRows(300);
        writer.start(100);
        JobClient job = buildJob(2, 0).executeAsync("vitess-snapshot-stream");
        try {
            waitUntil(TestTimeouts.PROGRESS, () -> writer.ops() >= 200, "writer progress");
            writer.stop();
            awaitEqualToVitess(TestTimeouts.CONVERGE);
            ChangelogRecorder.awaitCheckpointed(runId, TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(job);
        }
        assertNoDuplicateStreamedEvents();
        ChangelogRecorder.assertStrict(runId);
    }

    @Test
    void stopWithSavepointDuringCopyAndStreamingRestoreAndRescale(@TempDir Path savepoints) throws Exception {
        writer.insertRows(6000);

        // 1. Stop while the copy is still being emitted (a slow map keeps the emit side behind).
        JobClient copying = buildJob(2, 2).executeAsync("vitess-copy");
        waitUntil(TestTimeouts.CONVERGE, () -> materializedInRange().size() >= 200, "first copied rows");
        String duringCopy = stopWithSavepoint(copying, savepoints);
        assertThat(materializedInRange().size())
                .as("the savepoint must be taken while the copy is in progress")
                .isLessThan(6000);

        // 2. Restore, stream concurrent writes, stop again while streaming.
        writer.start(100);
        JobClient streaming = executeRestored(buildJob(2, 0), duringCopy, "vitess-restored");
        long opsAtRestore = writer.ops();
        waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= opsAtRestore + 150, "writes while streaming");
        String duringStreaming = stopWithSavepoint(streaming, savepoints);

        // 3. Restore with another parallelism; the writer keeps going, then everything settles.
        JobClient rescaled = executeRestored(buildJob(4, 0), duringStreaming, "vitess-restored");
        try {
            long opsAtRescale = writer.ops();
            waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= opsAtRescale + 100, "writes after rescale");
            writer.stop();
            awaitEqualToVitess(TestTimeouts.CONVERGE_AFTER_RESTORE);
            ChangelogRecorder.awaitCheckpointed(runId, TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(rescaled);
        }
        assertNoDuplicateStreamedEvents();
        ChangelogRecorder.assertStrict(runId);
    }

    @Test
    void savepointInsideALargeTransactionResumesExactly(@TempDir Path savepoints) throws Exception {
        writer.insertRows(3000);
        JobClient first = buildJob(2, 1).executeAsync("vitess-large-txn");
        waitUntil(TestTimeouts.CONVERGE, () -> materializedInRange().size() >= 3000, "the snapshot of the range");
        // One statement: one transaction per shard, ~1500 rows (3000 records: -U and +U) each.
        VitessCluster.execute("customer", "UPDATE customer SET visits = 424242 WHERE " + writer.rangePredicate());
        waitUntil(TestTimeouts.CONVERGE, () -> updatedRows() >= 200, "the start of the large transactions");
        String inside = stopWithSavepoint(first, savepoints);
        long applied = updatedRows();
        assertThat(applied)
                .as("the savepoint must fall inside the transactions")
                .isBetween(1L, 2999L);

        JobClient resumed = executeRestored(buildJob(2, 0), inside, "vitess-restored");
        try {
            awaitEqualToVitess(TestTimeouts.CONVERGE_AFTER_RESTORE);
            ChangelogRecorder.awaitCheckpointed(runId, TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(resumed);
        }
        assertThat(updatedRows()).isEqualTo(3000);
        assertNoDuplicateStreamedEvents();
        ChangelogRecorder.assertStrict(runId);
    }

    private long updatedRows() {
        return materializedInRange().values().stream()
                .filter(r -> "424242".equals(r.get("visits")))
                .count();
    }

    @Test
    void failoverRestoresFromTheLastCheckpointAndConverges() throws Exception {
        writer.insertRows(500);
        writer.start(100);
        StreamExecutionEnvironment env = buildJob(2, 0);
        fixedDelayRestarts(env, 3);
        // Fail once, after a checkpoint has completed, while the writer is streaming changes.
        FailOnce.arm(runId);
        JobClient job = env.executeAsync("vitess-failover");
        try {
            waitUntil(TestTimeouts.CONVERGE, () -> FailOnce.failed(runId), "the injected failure");
            long opsAtFailure = writer.ops();
            waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= opsAtFailure + 100, "writes after the failover");
            writer.stop();
            awaitEqualToVitess(TestTimeouts.CONVERGE_AFTER_RESTORE);
            ChangelogRecorder.awaitCheckpointed(runId, TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(job);
            FailOnce.disarm(runId);
        }
        ChangelogRecorder.assertStrict(runId);
    }

    @Test
    void specificOffsetsAtCurrentPositionsReadOnlyLaterChanges() throws Exception {
        writer.insertRows(20);
        String offsets = "{\"shard_gtids\":[{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":\"current\"},"
                + "{\"shard\":\"80-\",\"gtid\":\"current\"}]}";
        StreamExecutionEnvironment env = buildJob(2, 0, b -> b.specificOffsets(offsets));
        JobClient job = env.executeAsync("vitess-specific-offsets");
        try {
            // The job is running once the source reports the first streamed event of our range.
            long deadline = System.nanoTime() + TestTimeouts.PROGRESS.toNanos();
            while (materializedInRange().isEmpty() && System.nanoTime() < deadline) {
                writer.run(5);
                Thread.sleep(500);
            }
            Map<String, Map<String, String>> seen = materializedInRange();
            assertThat(seen).as("streamed rows").isNotEmpty();
            for (long id = writer.base(); id < writer.base() + 20; id++) {
                assertThat(seen.get(String.valueOf(id)))
                        .as("row %s was inserted before the start position and never updated", id)
                        .satisfiesAnyOf(
                                row -> assertThat(row).isNull(),
                                row -> assertThat(row.get("visits")).isNotEqualTo("0"));
            }
        } finally {
            VitessITBase.cancel(job);
        }
    }

    @Test
    void specificOffsetsMissingAShardFailTheJobWithTheShardNamed() throws Exception {
        String offsets = "[{\"shard\":\"-80\",\"gtid\":\"current\"}]";
        StreamExecutionEnvironment env = buildJob(1, 0, b -> b.specificOffsets(offsets));
        Configuration noRestart = new Configuration();
        noRestart.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        env.configure(noRestart);
        JobClient job = env.executeAsync("vitess-bad-offsets");
        assertThatThrownBy(
                        () -> job.getJobExecutionResult().get(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS))
                .satisfies(e -> assertThat(rootMessages(e)).contains("missing: [80-]"));
    }

    /**
     * Source → optional slow map → changelog recorder → materializing sink (parallelism 1 from the
     * slow map on, keeps per-key order).
     */
    private StreamExecutionEnvironment buildJob(int parallelism, long sleepMillisPerRecord) {
        return buildJob(parallelism, sleepMillisPerRecord, b -> b);
    }

    private StreamExecutionEnvironment buildJob(
            int parallelism,
            long sleepMillisPerRecord,
            java.util.function.UnaryOperator<VitessSourceBuilder<String>> customize) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(1000);
        VitessSource<String> source = customize.apply(customerSource()).build();
        DataStream<String> events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source")
                .map(new FailOnce(runId))
                .uid("fail-once")
                .map(new Throttle(sleepMillisPerRecord, writer.base(), CustomerWriter.RANGE))
                .uid("throttle")
                .setParallelism(1);
        recordAndMaterialize(events, DebeziumJson.changes("customer_id"));
        return env;
    }

    private void assertNoDuplicateStreamedEvents() {
        List<String> events = MaterializedTables.get(runId).events();
        Set<String> seen = new HashSet<>();
        List<String> duplicates = new java.util.ArrayList<>();
        for (String e : events) {
            if (!seen.add(e)) {
                duplicates.add(e);
            }
        }
        assertThat(events).as("streamed events").isNotEmpty();
        assertThat(duplicates).as("streamed events delivered twice").isEmpty();
    }

    /**
     * Throws once, when armed for the run, on a streamed record seen at least 3 s after the job
     * started (so a checkpoint has completed): a task failure mid-stream, restored from the last
     * checkpoint.
     */
    private static final class FailOnce implements MapFunction<String, String> {
        private static final Map<String, Long> ARMED = new java.util.concurrent.ConcurrentHashMap<>();
        private static final Set<String> FAILED = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private final String runId;

        FailOnce(String runId) {
            this.runId = runId;
        }

        static void arm(String runId) {
            ARMED.put(runId, System.currentTimeMillis());
        }

        static void disarm(String runId) {
            ARMED.remove(runId);
            FAILED.remove(runId);
        }

        static boolean failed(String runId) {
            return FAILED.contains(runId);
        }

        @Override
        public String map(String value) {
            Long armedAt = ARMED.get(runId);
            if (armedAt != null
                    && !FAILED.contains(runId)
                    && System.currentTimeMillis() - armedAt > 3000
                    && value.contains("\"snapshot\":false")) {
                FAILED.add(runId);
                throw new IllegalStateException("injected failure (test)");
            }
            return value;
        }
    }

    /**
     * Slows down the records of this test's id range, so a savepoint can land while their copy is
     * still being emitted (rows of other ranges pass at full speed).
     */
    private static final class Throttle implements MapFunction<String, String> {
        private static final java.util.regex.Pattern ID = java.util.regex.Pattern.compile("\"customer_id\":(\\d+)");
        private final long sleepMillis;
        private final long base;
        private final long range;

        Throttle(long sleepMillis, long base, long range) {
            this.sleepMillis = sleepMillis;
            this.base = base;
            this.range = range;
        }

        @Override
        public String map(String value) throws Exception {
            if (sleepMillis > 0) {
                java.util.regex.Matcher m = ID.matcher(value);
                if (m.find()) {
                    long id = Long.parseLong(m.group(1));
                    if (id >= base && id < base + range) {
                        Thread.sleep(sleepMillis);
                    }
                }
            }
            return value;
        }
    }
}
