/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.BatchEntry;
import io.vitesscdc.nativeio.ChangeKind;
import io.vitesscdc.nativeio.ColumnDescriptor;
import io.vitesscdc.nativeio.FatalException;
import io.vitesscdc.nativeio.Position;
import io.vitesscdc.nativeio.TableDescriptor;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.BadRecordHandling;
import io.vitesscdc.source.ChangeOrder;
import io.vitesscdc.source.config.VitessDefaults;
import io.vitesscdc.source.config.VitessSourceConfig;
import io.vitesscdc.source.deserializer.ShapeFailure;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;
import io.vitesscdc.source.metrics.VitessSourceReaderMetrics;
import io.vitesscdc.source.reader.SplitElement.Change;
import io.vitesscdc.source.split.ReshardJournal;
import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.Collector;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns decoded native batches into per-split {@link SplitElement}s on the fetcher thread:
 * converts records with the user's deserializer, skips records already emitted before a
 * (re)open, groups copy-phase records with the mark that closes their copy batch, fans
 * heartbeats out to every split, and finishes splits (bounded mode: at their copy completion).
 *
 * <p>No I/O and no Flink runtime here, so the bookkeeping is unit-testable with crafted batches.
 */
@Internal
final class BatchConverter<T> {

    private static final Logger LOG = LoggerFactory.getLogger(BatchConverter.class);

    /** Copy batches larger than this are handed out before their mark (bounded memory). */
    static final int DEFAULT_MAX_GROUPED_RECORDS = 100_000;

    private final VitessDeserializationSchema<T> deserializer;
    private final boolean bounded;
    private final int maxGroupedRecords;
    private final Map<String, ShardCursor<T>> cursors = new LinkedHashMap<>();
    private final ValuesCollector<T> collector = new ValuesCollector<>();
    private final VitessSourceReaderMetrics metrics;
    /** The tables the job selects by name: what every mark of its streams has seen. */
    private List<String> jobTables = List.of();
    /** {@link #jobTables} of each keyspace (unqualified), made once: every mark takes its list. */
    private final Map<String, List<String>> jobTablesByKeyspace = new HashMap<>();

    private BadRecordHandling badRecords = VitessDefaults.BAD_RECORD_HANDLING;
    /**
     * The cursor of the last record's table descriptor (one per keyspace, shard and table shape;
     * records come in runs of one table): looking it up by split id builds a string per record.
     */
    private TableDescriptor lastTable;

    private ShardCursor<T> lastTableCursor;

    /**
     * The fetch metrics of the current run of records (same split, table and phase), added at the
     * end of the run: one metrics update per run instead of a few atomic updates per record.
     */
    private ShardCursor<T> runCursor;

    private TableDescriptor runTable;
    private boolean runSnapshot;
    private long runRecords;
    private long runLastCommitMillis;

    BatchConverter(
            VitessDeserializationSchema<T> deserializer,
            boolean bounded,
            int maxGroupedRecords,
            VitessSourceReaderMetrics metrics) {
        this.deserializer = deserializer;
        this.bounded = bounded;
        this.maxGroupedRecords = maxGroupedRecords;
        this.metrics = metrics;
    }

    /** The tables the job selects by name (the streams capture those a split has not seen). */
    void jobTables(List<String> tables) {
        this.jobTables = List.copyOf(tables);
        jobTablesByKeyspace.clear();
    }

    /** What to do with a record the deserializer fails on (default: fail). */
    void badRecords(BadRecordHandling handling) {
        this.badRecords = handling;
    }

    void addSplit(VitessSplit split) {
        ShardCursor<T> cursor = new ShardCursor<>(split);
        metrics.registerSplit(cursor.splitId);
        metrics.positionReached(cursor.splitId, split.position());
        if (split.position().copyCompleted()) {
            metrics.copyCompleted(cursor.splitId);
            if (bounded) {
                cursor.finished = true;
            }
        }
        cursors.put(cursor.splitId, cursor);
        lastTable = null; // the split may replace a cursor of the same id
    }

    /** Shards a stream must read: every split not finished. */
    List<ShardCursor<T>> openCursors() {
        List<ShardCursor<T>> open = new ArrayList<>();
        for (ShardCursor<T> c : cursors.values()) {
            if (!c.finished) {
                open.add(c);
            }
        }
        return open;
    }

    Collection<ShardCursor<T>> cursors() {
        return cursors.values();
    }

    /** Before opening a new stream: every open shard resumes from its last handed-out mark. */
    void rewind() {
        for (ShardCursor<T> c : cursors.values()) {
            c.rewindToMark();
        }
    }

    /** Reports splits that finished without a batch (e.g. restored with the copy already done). */
    VitessRecords<T> finishedOnly() {
        VitessRecords<T> out = new VitessRecords<>();
        reportFinished(out);
        return out;
    }

    VitessRecords<T> convert(Batch batch) throws Exception {
        try {
            return convertEntries(batch);
        } finally {
            // Also when a record fails: what was fetched before it is counted.
            flushFetchedRun();
        }
    }

    private VitessRecords<T> convertEntries(Batch batch) throws Exception {
        VitessRecords<T> out = new VitessRecords<>();
        for (BatchEntry entry : batch) {
            if (entry instanceof VitessRecord) {
                onRecord((VitessRecord) entry, out);
            } else {
                onOtherEntry(entry, out);
            }
        }
        reportFinished(out);
        return out;
    }

    /**
     * Every entry but a record. Out of the loop over a batch's entries, which every record runs:
     * the JIT compiles that loop small.
     */
    private void onOtherEntry(BatchEntry entry, VitessRecords<T> out) {
        if (entry instanceof BatchEntry.PositionMark) {
            onMark((BatchEntry.PositionMark) entry, out);
        } else if (entry instanceof BatchEntry.Heartbeat) {
            long ts = ((BatchEntry.Heartbeat) entry).timestampMillis();
            for (ShardCursor<T> c : cursors.values()) {
                if (!c.finished) {
                    out.add(c.splitId, new SplitElement.Heartbeat<>(ts));
                }
            }
        } else if (entry instanceof BatchEntry.ShardCopyCompleted) {
            onShardCopyCompleted((BatchEntry.ShardCopyCompleted) entry, out);
        } else if (entry instanceof BatchEntry.Journal) {
            onJournal((BatchEntry.Journal) entry, out);
        } else if (entry instanceof BatchEntry.EndOfStream) {
            for (ShardCursor<T> c : cursors.values()) {
                finishCursor(c);
            }
        } else if (entry instanceof BatchEntry.Ddl) {
            BatchEntry.Ddl ddl = (BatchEntry.Ddl) entry;
            LOG.info("DDL on {}/{}: {}", ddl.keyspace(), ddl.shard(), ddl.statement());
        }
        // Table descriptors are registered by the decoder; copy-completed of the whole stream
        // and entry kinds newer than this connector carry nothing a split needs.
    }

    private void countFetched(ShardCursor<T> c, VitessRecord record) {
        if (c != runCursor || record.table() != runTable || record.isSnapshot() != runSnapshot) {
            flushFetchedRun();
            runCursor = c;
            runTable = record.table();
            runSnapshot = record.isSnapshot();
        }
        runRecords++;
        runLastCommitMillis = record.commitTimestampMillis();
    }

    private void flushFetchedRun() {
        if (runRecords > 0) {
            metrics.recordsFetched(runCursor.splitId, runTable.table(), runLastCommitMillis, runSnapshot, runRecords);
        }
        runRecords = 0;
        runCursor = null;
        runTable = null;
    }

    private void onRecord(VitessRecord record, VitessRecords<T> out) throws Exception {
        if (record.table() != lastTable) {
            lastTableCursor = cursor(record.table().keyspace(), record.table().shard());
            lastTable = record.table();
        }
        ShardCursor<T> c = lastTableCursor;
        if (c.finished) {
            return;
        }
        if (c.skip > 0) {
            c.skip--;
            return;
        }
        boolean snapshot = record.isSnapshot();
        ChangeKind kind = record.kind();
        long commitMillis = record.commitTimestampMillis();
        // An update's after image converts straight into its waiting before image's list: the
        // pair becomes one element without copying either.
        boolean completesUpdate = !snapshot && kind == ChangeKind.UPDATE_AFTER && c.pendingUpdateBefore != null;
        // A plain record converts straight into the change before it, when that change is one of
        // the same commit and nothing waits between them: a run of one transaction's inserts (or
        // of a copy batch's rows) is one change, not a change, a list and an array per record.
        boolean plain = snapshot || kind == ChangeKind.INSERT || kind == ChangeKind.DELETE;
        Change<T> joined = null;
        if (plain && c.pendingUpdateBefore == null) {
            joined = snapshot
                    ? joinPendingCopy(c, commitMillis)
                    // Copy rows still waiting for their mark go out before a streamed record.
                    : c.pendingCopyBatch.isEmpty() ? out.joinRecord(c.splitId, false, commitMillis) : null;
        }
        collector.values =
                completesUpdate ? c.pendingUpdateBefore.values : joined != null ? joined.values : new ArrayList<>(1);
        collector.cursor = c;
        collector.snapshot = snapshot;
        // The record's index since the cursor's mark: those handed out, and those still waiting.
        collector.ordinal = c.recordsSinceMark
                + c.pendingCopyRecords
                + (c.pendingUpdateBefore == null ? 0 : c.pendingUpdateBefore.records);
        int collectedBefore = collector.values.size();
        try {
            if (completesUpdate && c.updateSkipped) {
                // The before image was a bad record: the update is left out whole.
                c.updateSkipped = false;
            } else {
                deserializer.deserialize(record, collector, collector);
            }
        } catch (Exception e) {
            unreadable(record, c, e, completesUpdate ? 0 : collectedBefore);
        }
        countFetched(c, record);
        if (completesUpdate) {
            Change<T> update = c.pendingUpdateBefore.completedAt(commitMillis);
            c.pendingUpdateBefore = null;
            c.recordsSinceMark += update.records;
            out.add(c.splitId, update);
            return;
        }
        if (snapshot) {
            if (joined == null) {
                flushUpdateBefore(c, out);
                c.pendingCopyBatch.add(new Change<>(collector.values, 1, commitMillis, true, true));
            }
            if (++c.pendingCopyRecords >= maxGroupedRecords) {
                copyBatchTooLarge(c, out);
            }
        } else if (joined != null) {
            c.recordsSinceMark++;
        } else if (kind == ChangeKind.UPDATE_BEFORE) {
            flushPending(c, out);
            c.pendingUpdateBefore = new Change<>(collector.values, commitMillis, false);
        } else {
            flushPending(c, out);
            c.recordsSinceMark++;
            out.add(c.splitId, new Change<>(collector.values, 1, commitMillis, false, plain));
        }
    }

    /** The last waiting copy change, grown by one record, if the copied row joins it; else null. */
    private static <T> Change<T> joinPendingCopy(ShardCursor<T> c, long commitMillis) {
        List<Change<T>> pending = c.pendingCopyBatch;
        if (pending.isEmpty()) {
            return null;
        }
        Change<T> last = pending.get(pending.size() - 1);
        if (!last.joins(true, commitMillis)) {
            return null;
        }
        last.records++;
        return last;
    }

    private void copyBatchTooLarge(ShardCursor<T> c, VitessRecords<T> out) {
        LOG.warn(
                "Copy batch of {} has more than {} records: handing them out before its mark; a checkpoint "
                        + "inside this batch resumes at-least-once",
                c.splitId,
                maxGroupedRecords);
        flushPending(c, out);
    }

    /**
     * A record the deserializer threw on: the job stops on it, or ('skip') it goes on as one that
     * converted to nothing, so the split's position moves past it. Out of {@link #onRecord}, which
     * every record runs: the JIT compiles the path records take, not this one.
     *
     * @param keptValues how many of the collector's values to keep: an update is left out whole,
     *     both images (half of one would break the changelog: a -U alone deletes the row
     *     downstream, a +U alone doubles it)
     */
    private void unreadable(VitessRecord record, ShardCursor<T> c, Exception e, int keptValues) {
        metrics.recordInError();
        if (!skips(e)) {
            throw failure(record, c, e);
        }
        collector.values.subList(keptValues, collector.values.size()).clear();
        c.updateSkipped = !record.isSnapshot() && record.kind() == ChangeKind.UPDATE_BEFORE;
        LOG.warn(
                "Skipped a record that cannot be read ('scan.bad-record.handling' = 'skip'): {} {}/{} table {}, "
                        + "key {}, position {}: {}",
                record.kind().shortString(),
                record.table().keyspace(),
                record.table().shard(),
                record.table().table(),
                key(record),
                positionOf(c),
                e.toString());
    }

    /**
     * Whether a record whose conversion threw is left out: only with 'skip', and never for a
     * declared column that the table's shape cannot give (every row would be left out, and a job
     * that reads nothing would look healthy).
     */
    private boolean skips(Exception e) {
        if (badRecords != BadRecordHandling.SKIP) {
            return false;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ShapeFailure && ((ShapeFailure) t).failsEveryRecord()) {
                return false;
            }
        }
        return true;
    }

    /**
     * The job stops on the record, once: a declared column the table cannot give stops it as it is
     * (its message names the column and the fix); anything else names the record.
     */
    private RuntimeException failure(VitessRecord record, ShardCursor<T> c, Exception e) {
        if (e instanceof ShapeFailure && ((ShapeFailure) e).failsEveryRecord() && e instanceof RuntimeException) {
            return (RuntimeException) e;
        }
        return new BadRecordException(
                "cannot read the " + record.kind().shortString() + " record of "
                        + record.table().keyspace() + "/"
                        + record.table().shard()
                        + " table " + record.table().table() + ", key " + key(record) + ", position "
                        + positionOf(c) + ": " + e.getMessage() + ". Fix the declaration or the deserializer, or "
                        + "set 'scan.bad-record.handling' = 'skip' (builder: badRecordHandling(SKIP)) to leave such "
                        + "records out, each logged and counted in numRecordsInErrors",
                e);
    }

    /** The record's primary key as {@code column=value, …}, for people. */
    private static String key(VitessRecord record) {
        StringBuilder out = new StringBuilder("(");
        List<ColumnDescriptor> columns = record.table().columns();
        for (int i = 0; i < columns.size(); i++) {
            if (!columns.get(i).primaryKey()) {
                continue;
            }
            String value;
            try {
                value = String.valueOf(record.getObject(i));
            } catch (RuntimeException unreadable) {
                value = "?";
            }
            out.append(out.length() == 1 ? "" : ", ")
                    .append(columns.get(i).name())
                    .append('=')
                    .append(value);
        }
        return out.append(')').toString();
    }

    private static String positionOf(ShardCursor<?> c) {
        try {
            return c.position == null ? "(start)" : c.position.toJson();
        } catch (RuntimeException unreadable) {
            return "(unknown)";
        }
    }

    /** Hands out what waits for a later record: an update-before without its after, copy records. */
    private void flushPending(ShardCursor<T> c, VitessRecords<T> out) {
        flushUpdateBefore(c, out);
        for (SplitElement.Change<T> pending : c.pendingCopyBatch) {
            c.recordsSinceMark += pending.records;
            out.add(c.splitId, pending);
        }
        c.pendingCopyBatch.clear();
        c.pendingCopyRecords = 0;
    }

    /**
     * The core always sends an update's two records together, so this only runs when something
     * else came between them; the lone before image is still a record of the stream, and dropping
     * it would lose data.
     */
    private static <T> void flushUpdateBefore(ShardCursor<T> c, VitessRecords<T> out) {
        if (c.pendingUpdateBefore != null) {
            c.recordsSinceMark += c.pendingUpdateBefore.records;
            out.add(c.splitId, c.pendingUpdateBefore);
            c.pendingUpdateBefore = null;
        }
    }

    private void onMark(BatchEntry.PositionMark mark, VitessRecords<T> out) {
        ShardCursor<T> c = cursor(mark.keyspace(), mark.shard());
        if (c.finished) {
            return;
        }
        if (c.skip > 0) {
            throw new FatalException("Resuming shard " + c.splitId + " from " + c.position + " should replay "
                    + c.skip + " more already-emitted records before the next position mark, but the mark "
                    + mark.position() + " came first: the replay differs from the original stream, so exactly-once "
                    + "cannot be guaranteed. Restart the job from an earlier checkpoint or re-snapshot.");
        }
        flushUpdateBefore(c, out);
        if (c.pendingCopyBatch.isEmpty()) {
            out.add(c.splitId, new SplitElement.Mark<>(mark.position(), mark.copyCompleted()));
        } else {
            out.add(
                    c.splitId,
                    new SplitElement.CopyBatch<>(
                            new ArrayList<>(c.pendingCopyBatch), mark.position(), mark.copyCompleted()));
            c.pendingCopyBatch.clear();
            c.pendingCopyRecords = 0;
        }
        c.position = mark.position();
        c.recordsSinceMark = 0;
        c.tables = jobTablesByKeyspace.computeIfAbsent(
                c.keyspace, keyspace -> List.copyOf(VitessSourceConfig.tablesOf(keyspace, jobTables)));
        metrics.positionReached(c.splitId, mark.position());
    }

    private void onShardCopyCompleted(BatchEntry.ShardCopyCompleted done, VitessRecords<T> out) {
        ShardCursor<T> c = cursor(done.keyspace(), done.shard());
        if (c.finished) {
            return;
        }
        flushPending(c, out);
        out.add(c.splitId, new SplitElement.CopyCompleted<>());
        metrics.copyCompleted(c.splitId);
        if (bounded) {
            finishCursor(c);
        }
    }

    /**
     * The shard's stream reached a reshard journal: its split ends here. Copy records still
     * waiting for their mark go out first (a journal only comes between transactions, so there
     * are none in practice), then the journal, then the split is reported finished; the final
     * mark the core sends after the journal is ignored, like everything else of the shard.
     */
    private void onJournal(BatchEntry.Journal j, VitessRecords<T> out) {
        if (j.shard() == null) {
            throw new FatalException("The native library sent a reshard journal without its shard (an older library "
                    + "than this connector?): reinstall the connector jar, which bundles its own library");
        }
        ShardCursor<T> c = cursor(j.shard().keyspace(), j.shard().shard());
        if (c.finished) {
            return;
        }
        if (c.skip > 0) {
            throw new FatalException("Resuming shard " + c.splitId + " from " + c.position + " should replay "
                    + c.skip + " more already-emitted records, but its reshard journal came first: the replay "
                    + "differs from the original stream. Restart the job from an earlier checkpoint.");
        }
        List<String> participants = new ArrayList<>();
        for (BatchEntry.ShardRef p : j.ended()) {
            if (!p.keyspace().equals(c.keyspace)) {
                throw new FatalException("Reshard journal " + j.id() + " of " + c.splitId + " names shard "
                        + p.keyspace() + "/" + p.shard() + " of another keyspace; a reshard stays within a keyspace");
            }
            participants.add(p.shard());
        }
        Map<String, Position> started = new LinkedHashMap<>();
        for (BatchEntry.PositionMark m : j.started()) {
            started.put(m.shard(), m.position());
        }
        ReshardJournal journal = new ReshardJournal(j.id(), c.keyspace, participants, started);
        LOG.info("Shard {} reached reshard journal {}: its split ends here", c.splitId, journal);
        flushPending(c, out);
        out.add(c.splitId, new SplitElement.JournalReached<>(journal));
        c.endedBy = journal;
        finishCursor(c);
    }

    private static void finishCursor(ShardCursor<?> c) {
        c.finished = true;
    }

    /** Tells Flink, once, about every split that finished. */
    private void reportFinished(VitessRecords<T> out) {
        for (ShardCursor<T> c : cursors.values()) {
            if (c.finished && !c.reported) {
                out.finish(c.splitId);
                c.reported = true;
            }
        }
    }

    /** True when every split of this reader finished (nothing left to read). */
    boolean allFinished() {
        for (ShardCursor<T> c : cursors.values()) {
            if (!c.finished) {
                return false;
            }
        }
        return true;
    }

    private ShardCursor<T> cursor(String keyspace, String shard) {
        ShardCursor<T> c = cursors.get(VitessSplit.splitId(keyspace, shard));
        if (c == null) {
            throw new FatalException("The native stream delivered data of shard " + keyspace + "/" + shard
                    + ", which this reader does not own (its splits: " + cursors.keySet() + "). The native "
                    + "stream must keep each shard to its own split (new shards of a reshard included): this is a "
                    + "bug, please report it with the task manager log.");
        }
        return c;
    }

    /** Collects a record's converted values and answers the deserializer's context questions. */
    private static final class ValuesCollector<T> implements Collector<T>, VitessDeserializationSchema.RecordContext {
        List<T> values;
        ShardCursor<T> cursor;
        boolean snapshot;
        long ordinal;

        @Override
        public void collect(T value) {
            values.add(value);
        }

        @Override
        public void close() {}

        /** The JSON rendering, asked of the core once per mark (cached) and only when asked. */
        @Override
        public String position() {
            return cursor.position.toJson();
        }

        @Override
        public long epoch() {
            return cursor.epoch;
        }

        /** From the mark's transaction count (carried by the mark, so no native call per record). */
        @Override
        public long rank() {
            long transactions = cursor.position.transactionCount();
            if (transactions < 0) {
                return ChangeOrder.UNAVAILABLE;
            }
            return snapshot ? ChangeOrder.snapshotRank(transactions) : ChangeOrder.streamedRank(transactions, ordinal);
        }
    }
}
