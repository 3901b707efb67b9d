/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.deserializer;

import io.vitesscdc.nativeio.ChangeKind;
import io.vitesscdc.nativeio.ColumnDescriptor;
import io.vitesscdc.nativeio.TableDescriptor;
import io.vitesscdc.nativeio.VitessRecord;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.util.Collector;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Base64;

/**
 * Change records as Debezium-style JSON strings:
 * {@code {"before":{..}|null,"after":{..}|null,"op":"r|c|u|d","ts_ms":..,"source":{"connector":
 * "vitess","keyspace":..,"shard":..,"table":..,"ts_ms":<commit>,"snapshot":..,"position":..,"epoch":..,"rank":..}}} ({@code epoch} and
 * {@code rank} order one key's changes across reshards: {@link io.vitesscdc.source.ChangeOrder}).
 *
 * <p>An update arrives from the core as an update-before record directly followed by its
 * update-after record; they are merged into one {@code "u"} event (the before image is held
 * until the after image comes). Value mapping: integers as numbers (UNSIGNED BIGINT exact),
 * DECIMAL as an exact number, FLOAT/DOUBLE as numbers (NaN/Infinity as strings), text/ENUM/SET/
 * JSON as strings, binary as base64, DATE/DATETIME/TIMESTAMP as ISO-8601 strings (TIMESTAMP in
 * UTC), TIME as {@code [-]HH:MM:SS.ffffff}, zero dates as null.
 */
@PublicEvolving
public final class JsonDebeziumDeserializationSchema implements VitessDeserializationSchema<String> {

    private static final long serialVersionUID = 1L;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private transient ObjectMapper mapper;
    private transient ObjectNode pendingBefore;

    @Override
    public void deserialize(VitessRecord record, RecordContext context, Collector<String> out) throws Exception {
        if (mapper == null) {
            mapper = new ObjectMapper();
        }
        ChangeKind kind = record.kind();
        if (kind == ChangeKind.UPDATE_BEFORE) {
            pendingBefore = row(record);
            return;
        }
        ObjectNode event = NODES.objectNode();
        JsonNode before = NODES.nullNode();
        JsonNode after = NODES.nullNode();
        String op;
        switch (kind) {
            case INSERT:
                after = row(record);
                op = record.isSnapshot() ? "r" : "c";
                break;
            case UPDATE_AFTER:
                before = pendingBefore == null ? NODES.nullNode() : pendingBefore;
                after = row(record);
                op = "u";
                break;
            case DELETE:
                before = row(record);
                op = "d";
                break;
            case SNAPSHOT_READ:
                // A chunked snapshot's row: Debezium's read, applied as an upsert.
                after = row(record);
                op = "r";
                break;
            default:
                throw new IllegalStateException("unexpected change kind " + kind);
        }
        pendingBefore = null;
        event.set("before", before);
        event.set("after", after);
        event.put("op", op);
        event.put("ts_ms", System.currentTimeMillis());
        TableDescriptor table = record.table();
        ObjectNode source = event.putObject("source");
        source.put("connector", "vitess");
        source.put("keyspace", table.keyspace());
        source.put("shard", table.shard());
        source.put("table", table.table());
        source.put("ts_ms", record.commitTimestampMillis());
        source.put("snapshot", record.isSnapshot());
        source.put("position", context.position());
        source.put("epoch", context.epoch());
        source.put("rank", context.rank());
        out.collect(mapper.writeValueAsString(event));
    }

    private static ObjectNode row(VitessRecord record) {
        ObjectNode row = NODES.objectNode();
        TableDescriptor table = record.table();
        for (int i = 0; i < record.arity(); i++) {
            ColumnDescriptor column = table.columns().get(i);
            if (record.isAbsent(i)) {
                continue;
            }
            row.set(column.name(), value(record.getObject(i)));
        }
        return row;
    }

    private static JsonNode value(Object v) {
        if (v == null) {
            return NODES.nullNode();
        } else if (v instanceof Long) {
            return NODES.numberNode((Long) v);
        } else if (v instanceof BigInteger) {
            return NODES.numberNode((BigInteger) v);
        } else if (v instanceof BigDecimal) {
            return NODES.numberNode((BigDecimal) v);
        } else if (v instanceof Double) {
            double d = (Double) v;
            return Double.isFinite(d) ? NODES.numberNode(d) : NODES.textNode(Double.toString(d));
        } else if (v instanceof byte[]) {
            return NODES.textNode(Base64.getEncoder().encodeToString((byte[]) v));
        } else if (v instanceof Duration) {
            return NODES.textNode(formatTime((Duration) v));
        }
        return NODES.textNode(v.toString());
    }

    /** MySQL TIME form with microseconds; may exceed 24 hours and be negative. */
    static String formatTime(Duration d) {
        long micros = d.toNanos() / 1000;
        String sign = micros < 0 ? "-" : "";
        micros = Math.abs(micros);
        long seconds = micros / 1_000_000;
        return String.format(
                "%s%02d:%02d:%02d.%06d", sign, seconds / 3600, (seconds / 60) % 60, seconds % 60, micros % 1_000_000);
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }
}
