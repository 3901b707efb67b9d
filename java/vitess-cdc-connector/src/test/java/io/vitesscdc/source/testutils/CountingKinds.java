/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import io.vitesscdc.nativeio.ChangeKind;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Debezium JSON, counting per run the records that were chunked snapshot reads and those that
 * were in-stream copy rows: Debezium's {@code "r"} is both, so this proves which one ran.
 */
public final class CountingKinds implements VitessDeserializationSchema<String> {
    private static final Map<String, AtomicLong> READS = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> COPIED = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> RECORDS = new ConcurrentHashMap<>();
    private final JsonDebeziumDeserializationSchema json = new JsonDebeziumDeserializationSchema();
    private final String runId;

    public CountingKinds(String runId) {
        this.runId = runId;
    }

    public static long reads(String runId) {
        return READS.computeIfAbsent(runId, k -> new AtomicLong()).get();
    }

    public static long copied(String runId) {
        return COPIED.computeIfAbsent(runId, k -> new AtomicLong()).get();
    }

    /** Chunked snapshot reads of one table. */
    public static long reads(String runId, String table) {
        return READS.computeIfAbsent(runId + "/" + table, k -> new AtomicLong()).get();
    }

    /** Records of one table (any kind). */
    public static long records(String runId, String table) {
        return RECORDS.computeIfAbsent(runId + "/" + table, k -> new AtomicLong())
                .get();
    }

    @Override
    public void deserialize(VitessRecord record, RecordContext context, Collector<String> out) throws Exception {
        String table = runId + "/" + record.table().table();
        RECORDS.computeIfAbsent(table, k -> new AtomicLong()).incrementAndGet();
        if (record.kind() == ChangeKind.SNAPSHOT_READ) {
            READS.computeIfAbsent(runId, k -> new AtomicLong()).incrementAndGet();
            READS.computeIfAbsent(table, k -> new AtomicLong()).incrementAndGet();
        } else if (record.isSnapshot()) {
            COPIED.computeIfAbsent(runId, k -> new AtomicLong()).incrementAndGet();
        }
        json.deserialize(record, context, out);
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return json.getProducedType();
    }
}
