/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.nativeio.FatalException;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.BadRecordHandling;
import io.vitesscdc.source.ChangeOrder;
import io.vitesscdc.source.deserializer.ShapeFailure;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;
import io.vitesscdc.source.metrics.VitessSourceReaderMetrics;
import io.vitesscdc.source.split.ReshardJournal;
import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.testutils.NativeBatches;
import io.vitesscdc.source.testutils.RenderedPositions;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.metrics.testutils.MetricListener;
import org.apache.flink.runtime.metrics.MetricNames;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;
import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BatchConverterTest {

    private static final int INSERT = 0;
    private static final int UPDATE_BEFORE = 1;
    private static final int UPDATE_AFTER = 2;
    private static final int SNAPSHOT_READ = 4;

    /** "kind:id" per record. */
    static final class Ids implements VitessDeserializationSchema<String> {
        @Override
        public void deserialize(VitessRecord record, RecordContext context, Collector<String> out) {
            out.collect(record.kind().shortString() + ":" + record.getLong(0));
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    private VitessSourceReaderMetrics metrics =
            new VitessSourceReaderMetrics(UnregisteredMetricsGroup.createSourceReaderMetricGroup());

    private BatchConverter<String> converter(boolean bounded, int maxGrouped) {
        return new BatchConverter<>(new Ids(), bounded, maxGrouped, metrics);
    }

    private static VitessSplit split(String shard, String gtid, long recordsSinceMark) {
        return new VitessSplit("ks", shard, NativeBatches.position(shard, gtid), recordsSinceMark);
    }

    /** Every element of every split, rendered, in emit order. */
    private static List<String> drain(VitessRecords<String> records) {
        List<String> out = new ArrayList<>();
        String split;
        while ((split = records.nextSplit()) != null) {
            SplitElement<String> e;
            while ((e = records.nextRecordFromSplit()) != null) {
                if (e instanceof SplitElement.Changes) {
                    // A run of changes is one element; each is rendered as when it was its own.
                    for (SplitElement.Change<String> change : ((SplitElement.Changes<String>) e).changes) {
                        out.add(split + " " + render(change));
                    }
                } else {
                    out.add(split + " " + render(e));
                }
            }
        }
        for (String f : records.finishedSplits()) {
            out.add(f + " FINISHED");
        }
        return out;
    }

    /** The elements of the first split, as they are (runs of changes not taken apart). */
    private static List<SplitElement<String>> firstSplitElements(VitessRecords<String> records) {
        records.nextSplit();
        List<SplitElement<String>> elements = new ArrayList<>();
        for (SplitElement<String> e; (e = records.nextRecordFromSplit()) != null; ) {
            elements.add(e);
        }
        return elements;
    }

    private static String render(SplitElement<String> e) {
        if (e instanceof SplitElement.Change) {
            return "change" + ((SplitElement.Change<String>) e).values;
        } else if (e instanceof SplitElement.Mark) {
            return "mark "
                    + ((SplitElement.Mark<String>) e).position.toJson().replaceAll(".*\"gtid\":\"([^\"]*)\".*", "$1");
        } else if (e instanceof SplitElement.CopyBatch) {
            SplitElement.CopyBatch<String> b = (SplitElement.CopyBatch<String>) e;
            List<Object> values = new ArrayList<>();
            b.changes.forEach(c -> values.addAll(c.values));
            return "copy" + values + " mark " + b.position.toJson().replaceAll(".*\"gtid\":\"([^\"]*)\".*", "$1");
        } else if (e instanceof SplitElement.JournalReached) {
            ReshardJournal j = ((SplitElement.JournalReached<String>) e).journal;
            return "journal " + j.id() + " " + j.participants() + " -> " + j.started();
        } else if (e instanceof SplitElement.Heartbeat) {
            return "heartbeat " + ((SplitElement.Heartbeat<String>) e).timestampMillis;
        }
        return e.getClass().getSimpleName();
    }

    /** "kind:id@epoch/transaction.ordinal" per record: the order metadata the context reports. */
    static final class Ranks implements VitessDeserializationSchema<String> {
        @Override
        public void deserialize(VitessRecord record, RecordContext context, Collector<String> out) {
            long rank = context.rank();
            out.collect(record.kind().shortString() + ":" + record.getLong(0) + "@" + context.epoch() + "/"
                    + (rank >>> ChangeOrder.ORDINAL_BITS) + "." + (rank & ChangeOrder.MAX_ORDINAL));
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    private static final String UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

    @Test
    void aCommitsInsertsAreOneChangeAndAMarkOrAnotherCommitEndsIt() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1000, 1)
                .record(1, INSERT, false, 1000, 2)
                .record(1, INSERT, false, 1000, 3)
                .record(1, INSERT, false, 1001, 4)
                .mark("-80", "g1")
                .record(1, INSERT, false, 1001, 5);
        List<SplitElement<String>> elements = firstSplitElements(c.convert(b.build()));
        assertThat(elements).hasSize(3);
        List<SplitElement.Change<String>> run = ((SplitElement.Changes<String>) elements.get(0)).changes;
        assertThat(run)
                .extracting(change -> change.values)
                .containsExactly(List.of("+I:1", "+I:2", "+I:3"), List.of("+I:4"));
        assertThat(run).extracting(change -> change.records).containsExactly(3, 1);
        assertThat(run).extracting(change -> change.commitTimestampMillis).containsExactly(1000L, 1001L);
        assertThat(elements.get(1)).isInstanceOf(SplitElement.Mark.class);
        assertThat(((SplitElement.Change<String>) elements.get(2)).values).containsExactly("+I:5");
    }

    @Test
    void anUpdateOrACopyRowWaitingForItsMarkIsNeverJoinedPast() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1000, 1)
                .record(1, UPDATE_BEFORE, false, 1000, 1)
                .record(1, UPDATE_AFTER, false, 1000, 1)
                .record(1, INSERT, false, 1000, 2)
                .record(1, INSERT, true, 0, 7)
                .record(1, INSERT, true, 0, 8)
                .record(1, INSERT, false, 1000, 3)
                .record(1, INSERT, false, 1000, 4);
        List<String> changes = new ArrayList<>();
        for (SplitElement<String> e : firstSplitElements(c.convert(b.build()))) {
            for (SplitElement.Change<String> change : e instanceof SplitElement.Changes
                    ? ((SplitElement.Changes<String>) e).changes
                    : List.of((SplitElement.Change<String>) e)) {
                changes.add(change.records + " " + change.values);
            }
        }
        assertThat(changes)
                .containsExactly("1 [+I:1]", "2 [-U:1, +U:1]", "1 [+I:2]", "2 [+I:7, +I:8]", "2 [+I:3, +I:4]");
    }

    @Test
    void aRunOfChangesIsCutSoACheckpointCanFallInsideALargeTransaction() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        int n = 2 * VitessRecords.MAX_RECORDS_PER_ELEMENT + 2;
        NativeBatches b = new NativeBatches().table(1, "-80");
        for (int id = 1; id <= n; id++) {
            b.record(1, INSERT, false, 1000, id);
        }
        List<Integer> records = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (SplitElement<String> e : firstSplitElements(c.convert(b.build()))) {
            SplitElement.Change<String> change = (SplitElement.Change<String>) e;
            records.add(change.records);
            values.addAll(change.values);
        }
        assertThat(records)
                .containsExactly(VitessRecords.MAX_RECORDS_PER_ELEMENT, VitessRecords.MAX_RECORDS_PER_ELEMENT, 2);
        assertThat(values).hasSize(n).startsWith("+I:1", "+I:2").endsWith("+I:" + n);
    }

    @Test
    void recordsCarryTheirSplitsEpochAndARankFromTheMarksTransactionCount() throws Exception {
        BatchConverter<String> c = new BatchConverter<>(new Ranks(), false, 100, metrics);
        // a split of a reshard's new shard, in epoch 2, starting at a set of 10 transactions
        c.addSplit(
                new VitessSplit("ks", "-80", NativeBatches.position("-80", "MySQL56/" + UUID + ":1-10"), 0, null, 2));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1000, 1)
                .record(1, UPDATE_BEFORE, false, 1000, 1)
                .record(1, UPDATE_AFTER, false, 1000, 1)
                .mark("-80", "MySQL56/" + UUID + ":1-11", 11)
                .record(1, INSERT, false, 1001, 2)
                .mark("-80", "MySQL56/" + UUID + ":1-12", 12);
        assertThat(drain(c.convert(b.build())))
                .containsExactly(
                        "ks/-80 change[+I:1@2/11.0]",
                        "ks/-80 change[-U:1@2/11.1, +U:1@2/11.2]",
                        "ks/-80 mark MySQL56/" + UUID + ":1-11",
                        "ks/-80 change[+I:2@2/12.0]",
                        "ks/-80 mark MySQL56/" + UUID + ":1-12");
    }

    @Test
    void snapshotRowsRankAfterEveryChangeInTheirSnapshotAndBeforeTheNext() throws Exception {
        BatchConverter<String> c = new BatchConverter<>(new Ranks(), false, 100, metrics);
        c.addSplit(split("-80", "", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .mark("-80", "MySQL56/" + UUID + ":1-7", 7)
                .record(1, INSERT, true, 0, 1)
                .record(1, INSERT, true, 0, 2)
                .mark("-80", "MySQL56/" + UUID + ":1-7", 7)
                .record(1, INSERT, false, 1000, 1);
        List<String> out = drain(c.convert(b.build()));
        assertThat(out)
                .contains(
                        "ks/-80 copy[+I:1@0/7." + ChangeOrder.MAX_ORDINAL + ", +I:2@0/7." + ChangeOrder.MAX_ORDINAL
                                + "] mark MySQL56/" + UUID + ":1-7",
                        "ks/-80 change[+I:1@0/8.0]");
        assertThat(ChangeOrder.compare(0, ChangeOrder.snapshotRank(7), 0, ChangeOrder.streamedRank(7, 0)))
                .isNegative();
        assertThat(ChangeOrder.compare(0, ChangeOrder.streamedRank(6, 5), 0, ChangeOrder.snapshotRank(7)))
                .isNegative();
    }

    @Test
    void aRestoredSplitRanksTheRecordsAfterTheSkippedOnesAsTheOriginalRunDid() throws Exception {
        BatchConverter<String> c = new BatchConverter<>(new Ranks(), false, 100, metrics);
        c.addSplit(new VitessSplit("ks", "-80", NativeBatches.position("-80", "MySQL56/" + UUID + ":1-5"), 2, null, 1));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1, 10)
                .record(1, INSERT, false, 1, 11)
                .record(1, INSERT, false, 1, 12);
        assertThat(drain(c.convert(b.build()))).containsExactly("ks/-80 change[+I:12@1/6.2]");
    }

    @Test
    void aTransactionBeyondTheOrdinalRangeSharesItsLastRankButNeverReachesTheNextTransactions() {
        long last = ChangeOrder.streamedRank(41, ChangeOrder.MAX_ORDINAL + 5);
        assertThat(last).isEqualTo(ChangeOrder.streamedRank(41, ChangeOrder.MAX_ORDINAL - 1));
        assertThat(last).isLessThan(ChangeOrder.snapshotRank(42)).isLessThan(ChangeOrder.streamedRank(42, 0));
        assertThat(ChangeOrder.streamedRank(Long.MAX_VALUE, 0)).isPositive();
    }

    /** Fails on the record with id 2. */
    static final class FailsOnTwo implements VitessDeserializationSchema<String> {
        @Override
        public void deserialize(VitessRecord record, RecordContext context, Collector<String> out) {
            if (record.getLong(0) == 2) {
                throw new IllegalArgumentException("cannot convert id 2");
            }
            out.collect("ok:" + record.getLong(0));
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    @Test
    void aRecordTheDeserializerFailsOnIsCountedInNumRecordsInErrorsAndFailsTheFetch() throws Exception {
        MetricListener listener = new MetricListener();
        VitessSourceReaderMetrics counted =
                new VitessSourceReaderMetrics(InternalSourceReaderMetricGroup.mock(listener.getMetricGroup()));
        BatchConverter<String> c = new BatchConverter<>(new FailsOnTwo(), false, 100, counted);
        c.addSplit(split("-80", "g0", 0));
        NativeBatches b = new NativeBatches().table(1, "-80").record(1, INSERT, false, 1000, 1);
        assertThat(drain(c.convert(b.build()))).containsExactly("ks/-80 change[ok:1]");
        org.apache.flink.metrics.Counter errors =
                listener.getCounter(MetricNames.NUM_RECORDS_IN_ERRORS).orElseThrow();
        assertThat(errors.getCount()).isEqualTo(0);

        b.record(1, INSERT, false, 1001, 2);
        assertThatThrownBy(() -> c.convert(b.build()))
                .isInstanceOf(BadRecordException.class)
                .hasMessageContaining("cannot read the +I record of ks/-80 table t, key (id=2), position {")
                .hasMessageContaining("cannot convert id 2")
                .hasMessageContaining("'scan.bad-record.handling' = 'skip'")
                .hasCauseInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(ThrowableClassifier.getThrowableType(e))
                        .as("Flink stops the job instead of restarting it onto the same record")
                        .isEqualTo(ThrowableType.NonRecoverableError));
        assertThat(errors.getCount()).as("the failed record").isEqualTo(1);
    }

    @Test
    void withSkipABadRecordIsLeftOutCountedOnceAndStillMovesThePosition() throws Exception {
        MetricListener listener = new MetricListener();
        VitessSourceReaderMetrics counted =
                new VitessSourceReaderMetrics(InternalSourceReaderMetricGroup.mock(listener.getMetricGroup()));
        BatchConverter<String> c = new BatchConverter<>(new FailsOnTwo(), false, 100, counted);
        c.badRecords(BadRecordHandling.SKIP);
        c.addSplit(split("-80", "g0", 0));
        VitessRecords<String> out = c.convert(new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1000, 1)
                .record(1, INSERT, false, 1000, 2)
                .record(1, INSERT, false, 1000, 3)
                .build());
        // The bad record is one that converted to nothing: its commit's change still counts it,
        // so the emitter counts it in the split state and a checkpoint after it resumes past it.
        List<SplitElement<String>> elements = firstSplitElements(out);
        assertThat(elements).hasSize(1);
        SplitElement.Change<String> change = (SplitElement.Change<String>) elements.get(0);
        assertThat(change.values).containsExactly("ok:1", "ok:3");
        assertThat(change.records).isEqualTo(3);
        assertThat(listener.getCounter(MetricNames.NUM_RECORDS_IN_ERRORS)
                        .orElseThrow()
                        .getCount())
                .isEqualTo(1);
    }

    @Test
    void withSkipAnUpdateWithABadImageIsLeftOutWhole() throws Exception {
        // Half an update would break the changelog: a -U alone deletes the row downstream, a +U
        // alone doubles it. Either image failing leaves out both; the next update is whole.
        BatchConverter<String> c = new BatchConverter<>(new FailsOnTwo(), false, 100, metrics);
        c.badRecords(BadRecordHandling.SKIP);
        c.addSplit(split("-80", "g0", 0));
        VitessRecords<String> out = c.convert(new NativeBatches()
                .table(1, "-80")
                .record(1, UPDATE_BEFORE, false, 1000, 5)
                .record(1, UPDATE_AFTER, false, 1000, 2)
                .record(1, UPDATE_BEFORE, false, 1000, 2)
                .record(1, UPDATE_AFTER, false, 1000, 6)
                .record(1, UPDATE_BEFORE, false, 1000, 7)
                .record(1, UPDATE_AFTER, false, 1000, 8)
                .build());
        assertThat(drain(out)).containsExactly("ks/-80 change[]", "ks/-80 change[]", "ks/-80 change[ok:7, ok:8]");
    }

    @Test
    void aShapeFailureStopsTheJobEvenWithSkip() throws Exception {
        BatchConverter<String> c = new BatchConverter<>(new ShapeMismatch(), false, 100, metrics);
        c.badRecords(BadRecordHandling.SKIP);
        c.addSplit(split("-80", "g0", 0));
        NativeBatches b = new NativeBatches().table(1, "-80").record(1, INSERT, false, 1000, 1);
        assertThatThrownBy(() -> c.convert(b.build()))
                .isInstanceOf(ShapeMismatchException.class)
                .hasMessage("column 'gone' is declared but the table has no such column");
    }

    /** Fails every record the way a declared column missing from the table does. */
    static final class ShapeMismatch implements VitessDeserializationSchema<String> {
        @Override
        public void deserialize(VitessRecord record, RecordContext context, Collector<String> out) {
            throw new ShapeMismatchException();
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    static final class ShapeMismatchException extends IllegalStateException implements ShapeFailure {
        ShapeMismatchException() {
            super("column 'gone' is declared but the table has no such column");
        }

        @Override
        public boolean failsEveryRecord() {
            return true;
        }
    }

    @Test
    void fetchedRecordsAreCountedPerSplitAndPhaseAlsoBeforeARecordThatFails() throws Exception {
        MetricListener listener = new MetricListener();
        VitessSourceReaderMetrics counted =
                new VitessSourceReaderMetrics(InternalSourceReaderMetricGroup.mock(listener.getMetricGroup()));
        BatchConverter<String> c = new BatchConverter<>(new FailsOnTwo(), false, 100, counted);
        c.addSplit(split("-80", "g0", 0));
        c.addSplit(split("80-", "g0", 0));
        // Runs of one split and phase, cut by the other split and by the copy's end.
        c.convert(new NativeBatches()
                .table(1, "-80")
                .table(2, "80-")
                .record(1, INSERT, true, 0, 10)
                .record(1, INSERT, true, 0, 11)
                .record(2, INSERT, false, 1000, 12)
                .record(1, INSERT, false, 1000, 13)
                .record(2, INSERT, false, 1000, 14)
                .record(2, INSERT, false, 1000, 15)
                .build());
        assertThat(shardGauge(listener, "ks/-80", VitessSourceReaderMetrics.RECORDS_FETCHED))
                .isEqualTo(3);
        assertThat(shardGauge(listener, "ks/-80", VitessSourceReaderMetrics.SNAPSHOT_RECORDS))
                .isEqualTo(2);
        assertThat(shardGauge(listener, "ks/80-", VitessSourceReaderMetrics.RECORDS_FETCHED))
                .isEqualTo(3);
        assertThat(shardGauge(listener, "ks/80-", VitessSourceReaderMetrics.SNAPSHOT_RECORDS))
                .isEqualTo(0);

        NativeBatches failing = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1001, 16)
                .record(1, INSERT, false, 1001, 17)
                .record(1, INSERT, false, 1001, 2);
        assertThatThrownBy(() -> c.convert(failing.build())).hasRootCauseMessage("cannot convert id 2");
        assertThat(shardGauge(listener, "ks/-80", VitessSourceReaderMetrics.RECORDS_FETCHED))
                .as("the two records before the failed one")
                .isEqualTo(5);
    }

    private static long shardGauge(MetricListener listener, String splitId, String name) {
        return listener.<Long>getGauge(
                        VitessSourceReaderMetrics.GROUP, VitessSourceReaderMetrics.SHARD_GROUP, splitId, name)
                .orElseThrow(() -> new AssertionError("no gauge " + name + " of " + splitId))
                .getValue();
    }

    @Test
    void transactionsKeepOrderAndMarksResetTheCount() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        c.addSplit(split("80-", "h0", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .table(2, "80-")
                .record(1, INSERT, false, 1000, 1)
                .record(1, UPDATE_BEFORE, false, 1000, 1)
                .record(1, UPDATE_AFTER, false, 1000, 1)
                .mark("-80", "g1")
                .record(2, INSERT, false, 1001, 7);
        assertThat(drain(c.convert(b.build())))
                .containsExactly(
                        "ks/-80 change[+I:1]", "ks/-80 change[-U:1, +U:1]", "ks/-80 mark g1", "ks/80- change[+I:7]");
        ShardCursor<String> east = c.cursors().stream()
                .filter(x -> x.shard.equals("80-"))
                .findFirst()
                .get();
        assertThat(east.recordsSinceMark).isEqualTo(1);
        assertThat(east.position.toJson()).contains("h0");
    }

    @Test
    void anUpdateIsOneElementEvenAcrossNativeBatches() throws Exception {
        // A checkpoint between an update's two records would store a position after the before
        // image while a deserializer (the Debezium JSON one) still holds it: the resume would
        // then emit the after image alone. So the pair is one element, counted as two records.
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1000, 1)
                .record(1, UPDATE_BEFORE, false, 1000, 1);
        assertThat(drain(c.convert(b.build()))).containsExactly("ks/-80 change[+I:1]");
        ShardCursor<String> cursor = c.cursors().iterator().next();
        assertThat(cursor.recordsSinceMark)
                .as("the waiting before image is not handed out")
                .isEqualTo(1);

        b.record(1, UPDATE_AFTER, false, 1000, 1).mark("-80", "g1");
        List<SplitElement<String>> elements = firstSplitElements(c.convert(b.build()));
        assertThat(elements).hasSize(2);
        SplitElement.Change<String> update = (SplitElement.Change<String>) elements.get(0);
        assertThat(update.values).containsExactly("-U:1", "+U:1");
        assertThat(update.records).isEqualTo(2);
    }

    @Test
    void aReopenBetweenAnUpdatesRecordsReplaysItsBeforeImage() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1000, 1)
                .record(1, UPDATE_BEFORE, false, 1000, 1);
        assertThat(drain(c.convert(b.build()))).containsExactly("ks/-80 change[+I:1]");
        c.rewind();
        b.record(1, INSERT, false, 1000, 1)
                .record(1, UPDATE_BEFORE, false, 1000, 1)
                .record(1, UPDATE_AFTER, false, 1000, 1);
        assertThat(drain(c.convert(b.build()))).containsExactly("ks/-80 change[-U:1, +U:1]");
    }

    @Test
    void aBeforeImageWithoutItsAfterImageIsStillHandedOut() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, UPDATE_BEFORE, false, 1000, 1)
                .mark("-80", "g1");
        assertThat(drain(c.convert(b.build()))).containsExactly("ks/-80 change[-U:1]", "ks/-80 mark g1");
    }

    @Test
    void restoreSkipsExactlyTheRecordsEmittedAfterTheMark() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g1", 2));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1, 10)
                .record(1, INSERT, false, 1, 11)
                .record(1, INSERT, false, 1, 12)
                .mark("-80", "g2")
                .record(1, INSERT, false, 2, 13);
        assertThat(drain(c.convert(b.build())))
                .containsExactly("ks/-80 change[+I:12]", "ks/-80 mark g2", "ks/-80 change[+I:13]");
    }

    @Test
    void aReplayThatDiffersFromTheOriginalFailsLoudly() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g1", 3));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1, 10)
                .mark("-80", "g2");
        assertThatThrownBy(() -> c.convert(b.build()))
                .isInstanceOf(FatalException.class)
                .hasMessageContaining("should replay 2 more already-emitted records");
    }

    @Test
    void copyBatchesTravelWithTheirMarkAcrossPolls() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, true, 0, 1)
                .record(1, INSERT, true, 0, 2);
        assertThat(drain(c.convert(b.build()))).isEmpty();
        b.record(1, INSERT, true, 0, 3).mark("-80", "g1");
        assertThat(drain(c.convert(b.build()))).containsExactly("ks/-80 copy[+I:1, +I:2, +I:3] mark g1");
        ShardCursor<String> cursor = c.cursors().iterator().next();
        assertThat(cursor.recordsSinceMark).isZero();
    }

    @Test
    void aChunkedSnapshotsSliceWaitsForItsMarkAndLogChangesBetweenSlicesPassAtOnce() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, SNAPSHOT_READ, true, 0, 1)
                .record(1, SNAPSHOT_READ, true, 0, 2);
        assertThat(drain(c.convert(b.build())))
                .as("no checkpoint position between a slice and its mark")
                .isEmpty();
        b.mark("-80", "g1")
                .record(1, INSERT, false, 5, 9)
                .record(1, SNAPSHOT_READ, true, 0, 3)
                .mark("-80", "g2");
        assertThat(drain(c.convert(b.build())))
                .containsExactly("ks/-80 copy[=R:1, =R:2] mark g1", "ks/-80 change[+I:9]", "ks/-80 copy[=R:3] mark g2");
    }

    @Test
    void oversizedCopyBatchesAreHandedOutBeforeTheirMark() throws Exception {
        BatchConverter<String> c = converter(false, 2);
        c.addSplit(split("-80", "", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, true, 0, 1)
                .record(1, INSERT, true, 0, 2)
                .record(1, INSERT, true, 0, 3)
                .mark("-80", "g1");
        assertThat(drain(c.convert(b.build())))
                .containsExactly("ks/-80 change[+I:1, +I:2]", "ks/-80 copy[+I:3] mark g1");
    }

    @Test
    void rewindDropsUnmarkedCopyRowsAndSkipsWhatWasHandedOut() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1, 1)
                .record(1, INSERT, true, 0, 2);
        assertThat(drain(c.convert(b.build()))).containsExactly("ks/-80 change[+I:1]");
        c.rewind();
        ShardCursor<String> cursor = c.cursors().iterator().next();
        assertThat(cursor.skip).isEqualTo(1);
        assertThat(cursor.pendingCopyBatch).isEmpty();
        assertThat(cursor.position.toJson()).contains("g0");
    }

    @Test
    void boundedSplitsFinishAtTheirCopyCompletion() throws Exception {
        BatchConverter<String> c = converter(true, 100);
        c.addSplit(split("-80", "", 0));
        c.addSplit(split("80-", "", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .table(2, "80-")
                .record(1, INSERT, true, 0, 1)
                .mark("-80", "g1")
                .shardCopyCompleted("-80")
                .record(1, INSERT, false, 5, 2)
                .record(2, INSERT, true, 0, 9);
        assertThat(metrics.isCopyCompleted("ks/-80")).isFalse();
        assertThat(drain(c.convert(b.build())))
                .containsExactly("ks/-80 copy[+I:1] mark g1", "ks/-80 CopyCompleted", "ks/-80 FINISHED");
        assertThat(c.allFinished()).isFalse();
        assertThat(metrics.isCopyCompleted("ks/-80")).isTrue();
        assertThat(metrics.snapshotRecords("ks/-80")).isEqualTo(1);
        assertThat(metrics.isCopyCompleted("ks/80-")).isFalse();
        assertThat(drain(c.convert(b.mark("80-", "h1").shardCopyCompleted("80-").build())))
                .containsExactly("ks/80- copy[+I:9] mark h1", "ks/80- CopyCompleted", "ks/80- FINISHED");
        assertThat(c.allFinished()).isTrue();
    }

    @Test
    void restoredBoundedSplitWithCompletedCopyFinishesAtOnce() {
        BatchConverter<String> c = converter(true, 100);
        c.addSplit(new VitessSplit(
                "ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g\",\"copy_completed\":true}"), 0));
        assertThat(c.openCursors()).isEmpty();
        assertThat(drain(c.finishedOnly())).containsExactly("ks/-80 FINISHED");
        assertThat(drain(c.finishedOnly())).isEmpty();
    }

    @Test
    void heartbeatsReachEverySplit() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g", 0));
        c.addSplit(split("80-", "h", 0));
        assertThat(drain(c.convert(new NativeBatches().heartbeat(42).build())))
                .containsExactlyInAnyOrder("ks/-80 heartbeat 42", "ks/80- heartbeat 42");
    }

    @Test
    void aReshardJournalEndsItsSplitAndNothingOfTheShardFollows() throws Exception {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 0));
        c.addSplit(split("80-", "h0", 0));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .table(2, "80-")
                .record(1, INSERT, false, 1000, 1)
                .mark("-80", "g1")
                .journal("-80", 77, List.of("-80"), List.of("-40", "40-80"))
                .mark("-80", "g1")
                .record(2, INSERT, false, 1001, 7)
                .mark("80-", "h1")
                .record(1, INSERT, false, 1002, 2);
        assertThat(drain(c.convert(b.build())))
                .containsExactly(
                        "ks/-80 change[+I:1]",
                        "ks/-80 mark g1",
                        "ks/-80 journal 77 [-80] -> {-40=" + NativeBatches.position("-40", "-40@0") + ", 40-80="
                                + NativeBatches.position("40-80", "40-80@0") + "}",
                        "ks/80- change[+I:7]",
                        "ks/80- mark h1",
                        "ks/-80 FINISHED");
        assertThat(c.openCursors()).extracting(x -> x.shard).containsExactly("80-");
        assertThat(c.allFinished()).isFalse();
    }

    @Test
    void aJournalBeforeTheRecordsToSkipFailsLoudly() {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g0", 2));
        NativeBatches b = new NativeBatches()
                .table(1, "-80")
                .record(1, INSERT, false, 1, 1)
                .journal("-80", 1, List.of("-80"), List.of("-40"));
        assertThatThrownBy(() -> c.convert(b.build()))
                .isInstanceOf(FatalException.class)
                .hasMessageContaining("reshard journal came first");
    }

    @Test
    void dataOfAShardThisReaderDoesNotOwnFails() {
        BatchConverter<String> c = converter(false, 100);
        c.addSplit(split("-80", "g", 0));
        NativeBatches b = new NativeBatches().table(1, "80-").record(1, INSERT, false, 1, 1);
        assertThatThrownBy(() -> c.convert(b.build()))
                .isInstanceOf(FatalException.class)
                .hasMessageContaining("ks/80-")
                .hasMessageContaining("does not own");
    }
}
