/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.metrics;

import io.vitesscdc.nativeio.CopyTables;
import io.vitesscdc.nativeio.NativeStreamReader;
import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.reader.SignalsElsewhere;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * The reader's metrics, in one place. Flink itself provides {@code numRecordsIn} (source reader
 * base; it counts elements, which {@code VitessRecordEmitter} corrects to change records), {@code
 * currentEmitEventTimeLag}, {@code sourceIdleTime} and {@code watermarkLag} (source operator, from
 * the record timestamps and watermarks we emit); this class adds:
 *
 * <ul>
 *   <li>{@code numBytesIn}: batch bytes received from the native core;
 *   <li>{@code numRecordsInErrors} (Flink's standard counter): records the deserializer failed on;
 *   <li>{@code currentFetchEventTimeLag}: fetch time minus commit time of the last streamed
 *       record (FLIP-33);
 *   <li>group {@code VitessSourceReader}: {@code reconnects}, {@code streamsOpened}, and the
 *       snapshot progress of the reader's splits: {@code snapshotShardsCopying}, {@code
 *       snapshotShardsDone} and the sums of the per-split progress gauges below;
 *   <li>per split, group {@code VitessSourceReader.shard.<keyspace/shard>}: {@code
 *       snapshotRecords} (copy-phase records fetched), {@code copyCompleted} (0 or 1), {@code
 *       recordsFetched}, and the copy progress {@code snapshotTablesTotal}, {@code
 *       snapshotTablesRemaining}, {@code snapshotRowsEstimated}, {@code
 *       snapshotRowsEstimatedRemaining} (rows from MySQL's table statistics: estimates), and
 *       a chunked snapshot's progress as the core reports it (docs/snapshots.md): {@code
 *       captureChunksStarted} (side streams opened by the split's current stream; never goes
 *       down), {@code captureChunksDone}, {@code captureChunksPlanned} (an estimate), {@code
 *       captureRows}
 *       (snapshot reads emitted), {@code captureTablesRemaining} (-1 while the split's stream
 *       captures nothing); the reader group sums them too.
 * </ul>
 *
 * Gauges are read by the metric reporter thread; the fields they read are volatile or atomic. A
 * gauge whose input is not known yet (no estimates read) answers -1.
 */
@Internal
public final class VitessSourceReaderMetrics {

    public static final String GROUP = "VitessSourceReader";
    public static final String SHARD_GROUP = "shard";
    public static final String CURRENT_FETCH_EVENT_TIME_LAG = "currentFetchEventTimeLag";
    public static final String RECONNECTS = "reconnects";
    /** Copies cut (the server's copy-phase limit, a query killer, the network) and resumed from their last key. */
    public static final String COPY_RESUMES = "copyResumes";

    public static final String STREAMS_OPENED = "streamsOpened";
    public static final String SNAPSHOT_RECORDS = "snapshotRecords";
    public static final String RECORDS_FETCHED = "recordsFetched";
    public static final String COPY_COMPLETED = "copyCompleted";
    public static final String SHARDS_COPYING = "snapshotShardsCopying";
    public static final String SHARDS_DONE = "snapshotShardsDone";
    public static final String TABLES_TOTAL = "snapshotTablesTotal";
    public static final String TABLES_REMAINING = "snapshotTablesRemaining";
    public static final String ROWS_ESTIMATED = "snapshotRowsEstimated";
    public static final String ROWS_ESTIMATED_REMAINING = "snapshotRowsEstimatedRemaining";
    public static final String CAPTURE_CHUNKS_STARTED = "captureChunksStarted";
    public static final String CAPTURE_CHUNKS_DONE = "captureChunksDone";
    public static final String CAPTURE_CHUNKS_PLANNED = "captureChunksPlanned";
    public static final String CAPTURE_ROWS = "captureRows";
    public static final String CAPTURE_TABLES_REMAINING = "captureTablesRemaining";
    /** Milliseconds the tablet throttler held the next chunks back (per shard; summed over shards). */
    public static final String CAPTURE_THROTTLED_MILLIS = "captureThrottledMillis";
    /** 1 while the tablet throttler holds the next chunks back (per shard; shards held, summed). */
    public static final String CAPTURE_THROTTLED = "captureThrottled";
    /**
     * Chunks read from a tablet directly, not through VTGate (with chunks from the tablets; a shard
     * whose tablets cannot be reached stops adding to it).
     */
    public static final String CAPTURE_CHUNKS_FROM_TABLETS = "captureChunksFromTablets";

    /** What a gauge answers while its input is not known. */
    public static final long UNKNOWN = -1;

    /** Re-read the native counters at most this often. */
    private static final long NATIVE_METRICS_INTERVAL_MILLIS = 5_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MetricGroup vitessGroup;
    private final LongSupplier clock;
    private final Counter numBytesIn;
    private final Counter numRecordsInErrors;
    private final Map<String, ShardMetrics> shards = new ConcurrentHashMap<>();
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong streamsOpened = new AtomicLong();
    private volatile long fetchEventTimeLag = -1;
    private long reconnectsOfClosedStreams;
    private final AtomicLong copyResumes = new AtomicLong();
    private long copyResumesOfCurrentStream;
    private long copyResumesOfClosedStreams;
    private long reconnectsOfCurrentStream;
    private long lastNativeRead;
    /** Where the signals naming tables the streams do not read go (null: not wanted). */
    private volatile SignalsElsewhere signalsElsewhere;

    public VitessSourceReaderMetrics(SourceReaderMetricGroup group) {
        this(group, System::currentTimeMillis);
    }

    /** With the clock that stamps fetches (wall-clock milliseconds; a test's own clock). */
    public VitessSourceReaderMetrics(SourceReaderMetricGroup group, LongSupplier clock) {
        this.clock = clock;
        this.numBytesIn = group.getIOMetricGroup().getNumBytesInCounter();
        // Flink's standard counter; the metric group creates it once, so this is the one reported.
        this.numRecordsInErrors = group.getNumRecordsInErrorsCounter();
        group.gauge(CURRENT_FETCH_EVENT_TIME_LAG, () -> fetchEventTimeLag);
        this.vitessGroup = group.addGroup(GROUP);
        vitessGroup.gauge(RECONNECTS, reconnects::get);
        vitessGroup.gauge(COPY_RESUMES, copyResumes::get);
        vitessGroup.gauge(STREAMS_OPENED, streamsOpened::get);
        vitessGroup.gauge(SHARDS_COPYING, () -> countShards(false));
        vitessGroup.gauge(SHARDS_DONE, () -> countShards(true));
        vitessGroup.gauge(SNAPSHOT_RECORDS, () -> sum(m -> m.snapshotRecords.get()));
        vitessGroup.gauge(TABLES_REMAINING, () -> sum(ShardMetrics::tablesRemaining));
        vitessGroup.gauge(ROWS_ESTIMATED, () -> sum(ShardMetrics::rowsEstimated));
        vitessGroup.gauge(ROWS_ESTIMATED_REMAINING, () -> sum(ShardMetrics::rowsEstimatedRemaining));
        vitessGroup.gauge(CAPTURE_CHUNKS_STARTED, () -> sum(m -> m.capture(CaptureProgress::chunksStarted)));
        vitessGroup.gauge(CAPTURE_CHUNKS_DONE, () -> sum(m -> m.capture(CaptureProgress::chunksDone)));
        vitessGroup.gauge(CAPTURE_CHUNKS_PLANNED, () -> sum(m -> m.capture(CaptureProgress::chunksPlanned)));
        vitessGroup.gauge(CAPTURE_ROWS, () -> sum(m -> m.capture(CaptureProgress::rows)));
        vitessGroup.gauge(CAPTURE_TABLES_REMAINING, () -> sum(m -> m.capture(CaptureProgress::tablesRemaining)));
        vitessGroup.gauge(CAPTURE_THROTTLED_MILLIS, () -> sum(m -> m.capture(CaptureProgress::throttledMillis)));
        vitessGroup.gauge(CAPTURE_THROTTLED, () -> sum(m -> m.capture(CaptureProgress::throttled)));
        vitessGroup.gauge(CAPTURE_CHUNKS_FROM_TABLETS, () -> sum(m -> m.capture(CaptureProgress::chunksFromTablets)));
    }

    private long countShards(boolean copyCompleted) {
        long n = 0;
        for (ShardMetrics m : shards.values()) {
            if (m.copyCompleted == copyCompleted) {
                n++;
            }
        }
        return n;
    }

    /** The sum over the splits; {@link #UNKNOWN} when no split knows its value yet. */
    private long sum(ToLongFunction<ShardMetrics> value) {
        long total = 0;
        boolean known = false;
        for (ShardMetrics m : shards.values()) {
            long v = value.applyAsLong(m);
            if (v >= 0) {
                total += v;
                known = true;
            }
        }
        return known ? total : UNKNOWN;
    }

    /** A record the deserializer could not convert (counted before the failure propagates). */
    public void recordInError() {
        numRecordsInErrors.inc();
    }

    /**
     * The copy estimates of a split's shard, read once when the split is assigned: the tables the
     * source selects and each one's estimated rows on this shard ({@code null}: no statistics).
     */
    public void copyEstimates(String splitId, List<String> tables, Map<String, Long> rowsByTable) {
        ShardMetrics m = shards.get(splitId);
        if (m != null) {
            m.estimates = new Estimates(tables, rowsByTable);
        }
    }

    /** The split's latest position on the fetch side (its copy progress). */
    public void positionReached(String splitId, Position position) {
        ShardMetrics m = shards.get(splitId);
        if (m != null) {
            m.position = position;
        }
    }

    public void registerSplit(String splitId) {
        shards.computeIfAbsent(splitId, id -> new ShardMetrics(vitessGroup.addGroup(SHARD_GROUP, id)));
    }

    /** The shard's copy phase is done (or was never needed). */
    public void copyCompleted(String splitId) {
        ShardMetrics m = shards.get(splitId);
        if (m != null) {
            m.copyCompleted = true;
        }
    }

    /** Test hook: whether the split's copy is reported as completed. */
    public boolean isCopyCompleted(String splitId) {
        ShardMetrics m = shards.get(splitId);
        return m != null && m.copyCompleted;
    }

    public void batchFetched(int bytes) {
        numBytesIn.inc(bytes);
    }

    /**
     * Called on the fetcher thread for a run of {@code records} records of one split, table and
     * phase; {@code lastCommitTimestampMillis} is the commit time of the run's last record.
     */
    public void recordsFetched(
            String splitId, String table, long lastCommitTimestampMillis, boolean snapshot, long records) {
        ShardMetrics m = shards.get(splitId);
        if (m != null) {
            m.recordsFetched.addAndGet(records);
            if (snapshot) {
                m.snapshotRecords.addAndGet(records);
                m.copiedRows.computeIfAbsent(table, t -> new AtomicLong()).addAndGet(records);
                m.copyingTable = table;
            }
        }
        if (!snapshot && lastCommitTimestampMillis > 0) {
            fetchEventTimeLag = Math.max(0, clock.getAsLong() - lastCommitTimestampMillis);
        }
    }

    public void streamOpened() {
        streamsOpened.incrementAndGet();
        reconnectsOfClosedStreams += reconnectsOfCurrentStream;
        copyResumesOfClosedStreams += copyResumesOfCurrentStream;
        copyResumesOfCurrentStream = 0;
        reconnectsOfCurrentStream = 0;
    }

    /** Refreshes native counters now and then (one JNI call returning JSON). */
    public void polled(NativeStreamReader stream) {
        long now = System.currentTimeMillis();
        if (now - lastNativeRead < NATIVE_METRICS_INTERVAL_MILLIS) {
            return;
        }
        refresh(stream, now);
    }

    /**
     * Refreshes native counters at once: before a stream closes, so that its last figures (the
     * chunks a capture started, its reconnects) are the ones the gauges keep.
     */
    public void closing(NativeStreamReader stream) {
        refresh(stream, System.currentTimeMillis());
    }

    private void refresh(NativeStreamReader stream, long now) {
        lastNativeRead = now;
        try {
            nativeMetrics(stream.stream().metricsJson());
        } catch (Exception | LinkageError e) {
            // Metrics must never fail the job.
        }
    }

    /**
     * Hands the signals that the streams' progress lists as naming tables they do not read to
     * {@code signals}, each refresh (the reader sends them on to the enumerator).
     */
    public void reportSignalsElsewhereTo(SignalsElsewhere signals) {
        this.signalsElsewhere = signals;
    }

    /**
     * Applies the native stream's metrics JSON ({@code NativeStream.metricsJson()}): reconnects,
     * and the chunked snapshot's progress per shard ({@code capture}, when the stream captures).
     */
    public void nativeMetrics(String json) throws java.io.IOException {
        JsonNode m = JSON.readTree(json);
        reconnectsOfCurrentStream = m.path("reconnects").asLong(0);
        reconnects.set(reconnectsOfClosedStreams + reconnectsOfCurrentStream);
        copyResumesOfCurrentStream = m.path("copy_resumes").asLong(0);
        copyResumes.set(copyResumesOfClosedStreams + copyResumesOfCurrentStream);
        m.path("capture").fields().forEachRemaining(e -> {
            for (Map.Entry<String, ShardMetrics> split : shards.entrySet()) {
                // keyed by shard, or by keyspace/shard when the stream reads several keyspaces
                if (split.getKey().equals(e.getKey()) || split.getKey().endsWith("/" + e.getKey())) {
                    split.getValue().capture = new CaptureProgress(
                            e.getValue().path("chunks_started").asLong(UNKNOWN),
                            e.getValue().path("chunks_done").asLong(UNKNOWN),
                            e.getValue().path("chunks_planned").asLong(UNKNOWN),
                            e.getValue().path("rows").asLong(UNKNOWN),
                            e.getValue().path("tables_remaining").asLong(UNKNOWN),
                            e.getValue().path("throttled_ms").asLong(0),
                            e.getValue().path("throttled").asBoolean(false) ? 1 : 0,
                            e.getValue().path("chunks_from_tablets").asLong(0));
                }
            }
        });
        SignalsElsewhere signals = signalsElsewhere;
        if (signals != null) {
            for (JsonNode signal : m.path("signals_elsewhere")) {
                List<String> tables = new ArrayList<>();
                signal.path("tables").forEach(t -> tables.add(t.asText()));
                signals.found(signal.path("id").asText(), tables);
            }
        }
    }

    /** A chunked snapshot's progress on one shard, as the core last reported it. */
    private record CaptureProgress(
            long chunksStarted,
            long chunksDone,
            long chunksPlanned,
            long rows,
            long tablesRemaining,
            long throttledMillis,
            long throttled,
            long chunksFromTablets) {}

    /** Test hook: the split's metric counters. */
    public long snapshotRecords(String splitId) {
        ShardMetrics m = shards.get(splitId);
        return m == null ? 0 : m.snapshotRecords.get();
    }

    /** The tables a source selects and their estimated rows on one shard. */
    private static final class Estimates {
        final List<String> tables;
        final Map<String, Long> rows;

        Estimates(List<String> tables, Map<String, Long> rows) {
            this.tables = Collections.unmodifiableList(new ArrayList<>(tables));
            this.rows = Collections.unmodifiableMap(new java.util.HashMap<>(rows));
        }

        long rows(String table) {
            Long n = rows.get(table);
            return n == null ? 0 : Math.max(0, n);
        }
    }

    private static final class ShardMetrics {
        final AtomicLong snapshotRecords = new AtomicLong();
        final AtomicLong recordsFetched = new AtomicLong();
        /** Copy records fetched per table, since the split was added to this reader. */
        final Map<String, AtomicLong> copiedRows = new ConcurrentHashMap<>();

        volatile boolean copyCompleted;
        volatile Estimates estimates;
        volatile Position position;
        /** The table of the last copy record fetched. */
        volatile String copyingTable;
        /** The chunked snapshot's progress (null: the split's stream captures nothing). */
        volatile CaptureProgress capture;

        ShardMetrics(MetricGroup group) {
            group.gauge(SNAPSHOT_RECORDS, snapshotRecords::get);
            group.gauge(COPY_COMPLETED, () -> copyCompleted ? 1 : 0);
            group.gauge(RECORDS_FETCHED, recordsFetched::get);
            group.gauge(TABLES_TOTAL, this::tablesTotal);
            group.gauge(TABLES_REMAINING, this::tablesRemaining);
            group.gauge(ROWS_ESTIMATED, this::rowsEstimated);
            group.gauge(ROWS_ESTIMATED_REMAINING, this::rowsEstimatedRemaining);
            group.gauge(CAPTURE_CHUNKS_STARTED, () -> capture(CaptureProgress::chunksStarted));
            group.gauge(CAPTURE_CHUNKS_DONE, () -> capture(CaptureProgress::chunksDone));
            group.gauge(CAPTURE_CHUNKS_PLANNED, () -> capture(CaptureProgress::chunksPlanned));
            group.gauge(CAPTURE_ROWS, () -> capture(CaptureProgress::rows));
            group.gauge(CAPTURE_TABLES_REMAINING, () -> capture(CaptureProgress::tablesRemaining));
            group.gauge(CAPTURE_THROTTLED_MILLIS, () -> capture(CaptureProgress::throttledMillis));
            group.gauge(CAPTURE_THROTTLED, () -> capture(CaptureProgress::throttled));
            group.gauge(CAPTURE_CHUNKS_FROM_TABLETS, () -> capture(CaptureProgress::chunksFromTablets));
        }

        long capture(ToLongFunction<CaptureProgress> value) {
            CaptureProgress c = capture;
            return c == null ? UNKNOWN : value.applyAsLong(c);
        }

        long tablesTotal() {
            Estimates e = estimates;
            return e == null ? UNKNOWN : e.tables.size();
        }

        long rowsEstimated() {
            Estimates e = estimates;
            if (e == null) {
                return UNKNOWN;
            }
            long total = 0;
            for (String t : e.tables) {
                total += e.rows(t);
            }
            return total;
        }

        /**
         * Tables not yet started, plus the one being copied (the last table started counts as
         * remaining until the copy moves on or completes).
         */
        long tablesRemaining() {
            if (copyCompleted) {
                return 0;
            }
            Estimates e = estimates;
            CopyTables progress = progress();
            if (e == null || progress == null) {
                return UNKNOWN;
            }
            if (progress.started().isEmpty() && progress.notStarted().isEmpty()) {
                return e.tables.size(); // a copy from scratch: every table
            }
            long remaining = progress.notStarted().size() + (progress.started().isEmpty() ? 0 : 1);
            return Math.min(remaining, e.tables.size());
        }

        /**
         * Estimated rows of the tables not yet started, plus the estimate of the table being
         * copied minus the rows of it this reader fetched (at least 0).
         */
        long rowsEstimatedRemaining() {
            if (copyCompleted) {
                return 0;
            }
            Estimates e = estimates;
            CopyTables progress = progress();
            if (e == null || progress == null) {
                return UNKNOWN;
            }
            List<String> notStarted = progress.notStarted();
            if (progress.started().isEmpty() && notStarted.isEmpty()) {
                notStarted = e.tables;
            }
            long remaining = 0;
            for (String t : notStarted) {
                remaining += e.rows(t);
            }
            String copying = copyingTable;
            if (copying == null && !progress.started().isEmpty()) {
                copying = progress.started().get(progress.started().size() - 1);
            }
            if (copying != null && !notStarted.contains(copying)) {
                AtomicLong copied = copiedRows.get(copying);
                remaining += Math.max(0, e.rows(copying) - (copied == null ? 0 : copied.get()));
            }
            return remaining;
        }

        /** The position's copy progress (asked of the core once per position), null if unknown. */
        private CopyTables progress() {
            Position p = position;
            if (p == null) {
                return null;
            }
            try {
                return p.copyTables();
            } catch (RuntimeException | LinkageError e) {
                return null; // metrics must never fail the job
            }
        }
    }
}
