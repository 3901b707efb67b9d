/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.metrics;

import io.vitesscdc.nativeio.NativeStreamReader;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reader's metrics, in one place. Flink itself provides {@code numRecordsIn} (source reader
 * base; it counts elements, which {@code VitessRecordEmitter} corrects to change records), {@code
 * currentEmitEventTimeLag} and {@code sourceIdleTime} (source operator, from the record
 * timestamps we emit); this class adds:
 *
 * <ul>
 *   <li>{@code numBytesIn}: batch bytes received from the native core;
 *   <li>{@code currentFetchEventTimeLag}: fetch time minus commit time of the last streamed
 *       record (FLIP-33);
 *   <li>group {@code VitessSourceReader}: {@code reconnects} and {@code streamsOpened};
 *   <li>per split, group {@code VitessSourceReader.shard.<keyspace/shard>}: {@code
 *       snapshotRecords} (copy-phase records fetched), {@code copyCompleted} (0 or 1) and
 *       {@code recordsFetched}.
 * </ul>
 *
 * Gauges are read by the metric reporter thread; the fields they read are volatile or atomic.
 */
@Internal
public final class VitessSourceReaderMetrics {

    public static final String GROUP = "VitessSourceReader";
    public static final String SHARD_GROUP = "shard";
    public static final String CURRENT_FETCH_EVENT_TIME_LAG = "currentFetchEventTimeLag";
    public static final String RECONNECTS = "reconnects";
    public static final String STREAMS_OPENED = "streamsOpened";
    public static final String SNAPSHOT_RECORDS = "snapshotRecords";
    public static final String RECORDS_FETCHED = "recordsFetched";
    public static final String COPY_COMPLETED = "copyCompleted";

    /** Re-read the native counters at most this often. */
    private static final long NATIVE_METRICS_INTERVAL_MILLIS = 5_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MetricGroup vitessGroup;
    private final Counter numBytesIn;
    private final Map<String, ShardMetrics> shards = new ConcurrentHashMap<>();
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong streamsOpened = new AtomicLong();
    private volatile long fetchEventTimeLag = -1;
    private long reconnectsOfClosedStreams;
    private long reconnectsOfCurrentStream;
    private long lastNativeRead;

    public VitessSourceReaderMetrics(SourceReaderMetricGroup group) {
        this.numBytesIn = group.getIOMetricGroup().getNumBytesInCounter();
        group.gauge(CURRENT_FETCH_EVENT_TIME_LAG, () -> fetchEventTimeLag);
        this.vitessGroup = group.addGroup(GROUP);
        vitessGroup.gauge(RECONNECTS, reconnects::get);
        vitessGroup.gauge(STREAMS_OPENED, streamsOpened::get);
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

    /** Called on the fetcher thread for every record fetched. */
    public void recordFetched(String splitId, long commitTimestampMillis, boolean snapshot) {
        ShardMetrics m = shards.get(splitId);
        if (m != null) {
            m.recordsFetched.incrementAndGet();
            if (snapshot) {
                m.snapshotRecords.incrementAndGet();
            }
        }
        if (!snapshot && commitTimestampMillis > 0) {
            fetchEventTimeLag = Math.max(0, System.currentTimeMillis() - commitTimestampMillis);
        }
    }

    public void streamOpened() {
        streamsOpened.incrementAndGet();
        reconnectsOfClosedStreams += reconnectsOfCurrentStream;
        reconnectsOfCurrentStream = 0;
    }

    /** Refreshes native counters now and then (one JNI call returning JSON). */
    public void polled(NativeStreamReader stream) {
        long now = System.currentTimeMillis();
        if (now - lastNativeRead < NATIVE_METRICS_INTERVAL_MILLIS) {
            return;
        }
        lastNativeRead = now;
        try {
            JsonNode m = JSON.readTree(stream.stream().metricsJson());
            reconnectsOfCurrentStream = m.path("reconnects").asLong(0);
            reconnects.set(reconnectsOfClosedStreams + reconnectsOfCurrentStream);
        } catch (Exception | LinkageError e) {
            // Metrics must never fail the job.
        }
    }

    /** Test hook: the split's metric counters. */
    public long snapshotRecords(String splitId) {
        ShardMetrics m = shards.get(splitId);
        return m == null ? 0 : m.snapshotRecords.get();
    }

    private static final class ShardMetrics {
        final AtomicLong snapshotRecords = new AtomicLong();
        final AtomicLong recordsFetched = new AtomicLong();
        volatile boolean copyCompleted;

        ShardMetrics(MetricGroup group) {
            group.gauge(SNAPSHOT_RECORDS, snapshotRecords::get);
            group.gauge(COPY_COMPLETED, () -> copyCompleted ? 1 : 0);
            group.gauge(RECORDS_FETCHED, recordsFetched::get);
        }
    }
}
