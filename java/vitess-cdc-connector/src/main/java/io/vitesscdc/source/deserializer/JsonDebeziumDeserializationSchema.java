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

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonGenerator;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.io.JsonStringEncoder;

import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Base64;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Change records as Debezium-style JSON strings:
 * {@code {"before":{..}|null,"after":{..}|null,"op":"r|c|u|d","ts_ms":..,"source":{"connector":
 * "vitess","keyspace":..,"shard":..,"table":..,"ts_ms":<commit>,"snapshot":..,"position":..,"epoch":..,"rank":..}}} ({@code epoch} and
 * {@code rank} order one key's changes across reshards: {@link io.vitesscdc.source.ChangeOrder}).
 * A chunked snapshot's row ({@code SNAPSHOT_READ}) is an {@code "r"} with {@code
 * "incremental":true} after {@code "snapshot"} (Debezium's incremental snapshot): the key's state,
 * to apply as an upsert; an {@code "r"} without it is the copy's, the key's first record.
 *
 * <p>An update arrives from the core as an update-before record directly followed by its
 * update-after record; they are merged into one {@code "u"} event (the before image is held
 * until the after image comes). Value mapping: integers as numbers (UNSIGNED BIGINT exact),
 * DECIMAL as an exact number, FLOAT/DOUBLE as numbers (NaN/Infinity as strings), text/ENUM/SET/
 * JSON as strings, binary as base64, DATE/DATETIME/TIMESTAMP as ISO-8601 strings (TIMESTAMP in
 * UTC), TIME as {@code [-]HH:MM:SS.ffffff}, zero dates as null.
 *
 * <p>The text is written straight from the record by one streaming generator per reader (no
 * tree of JSON nodes per record): this is the fetcher's per-record work on the DataStream path.
 */
@PublicEvolving
public final class JsonDebeziumDeserializationSchema implements VitessDeserializationSchema<String> {

    private static final long serialVersionUID = 1L;

    private static final JsonFactory FACTORY = new JsonFactory();

    /** The reader's generator and the text it writes, reused for every record. */
    private transient TextBuffer text;

    private transient JsonGenerator json;
    /** An update's before image, as JSON text, until its after image arrives. */
    private transient String pendingBefore;

    /** The table of the last core-written row and its event's {@code source} up to its times. */
    private transient TableDescriptor sourceTable;

    private transient byte[] sourcePrefix;
    /** The last position's JSON text and its quoted form. */
    private transient String lastPosition;

    private transient byte[] lastQuotedPosition;
    /** The event of a core-written row, put together as bytes (reused for every record). */
    private transient Utf8TextBuilder eventBytes;

    @Override
    public void deserialize(VitessRecord record, RecordContext context, Collector<String> out) throws Exception {
        if (json == null) {
            text = new TextBuffer();
            json = FACTORY.createGenerator(text);
            // Each record is a document of its own: no separator between them.
            json.setRootValueSeparator(null);
            eventBytes = new Utf8TextBuilder();
        }
        try {
            if (record.hasJsonRow()) {
                convertCoreRow(record, context, out);
            } else {
                convert(record, context, out);
            }
        } catch (Exception e) {
            // A record that fails half-written leaves no state behind for the next one.
            json = null;
            pendingBefore = null;
            throw e;
        }
    }

    private void convert(VitessRecord record, RecordContext context, Collector<String> out) throws IOException {
        ChangeKind kind = record.kind();
        if (kind == ChangeKind.UPDATE_BEFORE) {
            writeRow(record);
            pendingBefore = take();
            return;
        }
        String before = null;
        boolean hasAfter;
        String op;
        switch (kind) {
            case INSERT:
                hasAfter = true;
                op = record.isSnapshot() ? "r" : "c";
                break;
            case UPDATE_AFTER:
                before = pendingBefore;
                hasAfter = true;
                op = "u";
                break;
            case DELETE:
                hasAfter = false;
                op = "d";
                break;
            case SNAPSHOT_READ:
                // A chunked snapshot's row: Debezium's read, applied as an upsert.
                hasAfter = true;
                op = "r";
                break;
            default:
                throw new IllegalStateException("unexpected change kind " + kind);
        }
        pendingBefore = null;
        json.writeStartObject();
        json.writeFieldName("before");
        if (kind == ChangeKind.DELETE) {
            writeRow(record);
        } else if (before != null) {
            json.writeRawValue(before);
        } else {
            json.writeNull();
        }
        json.writeFieldName("after");
        if (hasAfter) {
            writeRow(record);
        } else {
            json.writeNull();
        }
        json.writeStringField("op", op);
        json.writeNumberField("ts_ms", System.currentTimeMillis());
        TableDescriptor table = record.table();
        json.writeObjectFieldStart("source");
        json.writeStringField("connector", "vitess");
        json.writeStringField("keyspace", table.keyspace());
        json.writeStringField("shard", table.shard());
        json.writeStringField("table", table.table());
        json.writeNumberField("ts_ms", record.commitTimestampMillis());
        json.writeBooleanField("snapshot", record.isSnapshot());
        if (kind == ChangeKind.SNAPSHOT_READ) {
            // A chunked snapshot's row (Debezium's incremental snapshot): an upsert of a key that
            // may be present already, unlike the copy's reads, which are each key's first record.
            json.writeBooleanField("incremental", true);
        }
        json.writeStringField("position", context.position());
        json.writeNumberField("epoch", context.epoch());
        json.writeNumberField("rank", context.rank());
        json.writeEndObject();
        json.writeEndObject();
        out.collect(take());
    }

    /**
     * A record whose row object the core wrote: the same event text as {@link #convert} writes,
     * put together as UTF-8 bytes from the core's object and pieces kept per table and per
     * position (their escaping done once), without a generator, and decoded once into the event's
     * {@code String}.
     */
    private void convertCoreRow(VitessRecord record, RecordContext context, Collector<String> out) {
        ChangeKind kind = record.kind();
        if (kind == ChangeKind.UPDATE_BEFORE) {
            pendingBefore = new String(record.rowBatch(), record.rowOffset(), record.rowLength(), UTF_8);
            return;
        }
        String before = kind == ChangeKind.UPDATE_AFTER ? pendingBefore : null;
        String op;
        switch (kind) {
            case INSERT:
                op = record.isSnapshot() ? "r" : "c";
                break;
            case UPDATE_AFTER:
                op = "u";
                break;
            case DELETE:
                op = "d";
                break;
            case SNAPSHOT_READ:
                op = "r";
                break;
            default:
                throw new IllegalStateException("unexpected change kind " + kind);
        }
        pendingBefore = null;
        Utf8TextBuilder event = eventBytes;
        event.ascii("{\"before\":");
        if (kind == ChangeKind.DELETE) {
            event.bytes(record.rowBatch(), record.rowOffset(), record.rowLength());
        } else {
            event.text(before);
        }
        event.ascii(",\"after\":");
        if (kind == ChangeKind.DELETE) {
            event.text(null);
        } else {
            event.bytes(record.rowBatch(), record.rowOffset(), record.rowLength());
        }
        event.ascii(",\"op\":\"")
                .ascii(op)
                .ascii("\",\"ts_ms\":")
                .number(System.currentTimeMillis())
                .ascii(",\"source\":")
                .bytes(sourceOf(record.table()))
                .ascii("\"ts_ms\":")
                .number(record.commitTimestampMillis())
                .ascii(",\"snapshot\":")
                .bool(record.isSnapshot());
        if (kind == ChangeKind.SNAPSHOT_READ) {
            event.ascii(",\"incremental\":true");
        }
        event.ascii(",\"position\":")
                .bytes(quotedPosition(context.position()))
                .ascii(",\"epoch\":")
                .number(context.epoch())
                .ascii(",\"rank\":")
                .number(context.rank())
                .ascii("}}");
        out.collect(event.take());
    }

    /** {@code {"connector":"vitess","keyspace":…,"shard":…,"table":…,} of the last table, in UTF-8. */
    private byte[] sourceOf(TableDescriptor table) {
        if (table != sourceTable) {
            sourceTable = table;
            sourcePrefix = ("{\"connector\":\"vitess\",\"keyspace\":" + quoted(table.keyspace()) + ",\"shard\":"
                            + quoted(table.shard()) + ",\"table\":" + quoted(table.table()) + ",")
                    .getBytes(UTF_8);
        }
        return sourcePrefix;
    }

    /**
     * The position's JSON as a JSON string (or null) in UTF-8, kept for as long as the mark's text
     * is the same.
     */
    private byte[] quotedPosition(String position) {
        if (position != lastPosition || lastQuotedPosition == null) {
            lastPosition = position;
            lastQuotedPosition = (position == null ? "null" : quoted(position)).getBytes(UTF_8);
        }
        return lastQuotedPosition;
    }

    /** A JSON string escaped as the generator escapes it. */
    private static String quoted(String s) {
        return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + "\"";
    }

    /** The core writes each record's row object itself (docs/batch-format.md, "JSON rows"). */
    @Override
    public String nativeOptionsJson() {
        return "{\"json_rows\":true}";
    }

    /** The record's columns as one JSON object (absent columns left out). */
    private void writeRow(VitessRecord record) throws IOException {
        json.writeStartObject();
        TableDescriptor table = record.table();
        for (int i = 0; i < record.arity(); i++) {
            if (record.isAbsent(i)) {
                continue;
            }
            ColumnDescriptor column = table.columns().get(i);
            json.writeFieldName(column.name());
            writeValue(record.getObject(i));
        }
        json.writeEndObject();
    }

    private void writeValue(Object v) throws IOException {
        if (v == null) {
            json.writeNull();
        } else if (v instanceof Long) {
            json.writeNumber((Long) v);
        } else if (v instanceof BigInteger) {
            json.writeNumber((BigInteger) v);
        } else if (v instanceof BigDecimal) {
            json.writeNumber((BigDecimal) v);
        } else if (v instanceof Double) {
            double d = (Double) v;
            if (Double.isFinite(d)) {
                json.writeNumber(d);
            } else {
                json.writeString(Double.toString(d));
            }
        } else if (v instanceof byte[]) {
            json.writeString(Base64.getEncoder().encodeToString((byte[]) v));
        } else if (v instanceof Duration) {
            json.writeString(formatTime((Duration) v));
        } else {
            json.writeString(v.toString());
        }
    }

    /** The text written since the last call. */
    private String take() throws IOException {
        json.flush();
        return text.take();
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

    /** A writer into one reused, unsynchronized buffer (StringWriter's is synchronized). */
    private static final class TextBuffer extends Writer {
        private final StringBuilder chars = new StringBuilder(512);

        @Override
        public void write(char[] buf, int off, int len) {
            chars.append(buf, off, len);
        }

        @Override
        public void write(String str, int off, int len) {
            chars.append(str, off, off + len);
        }

        @Override
        public void write(int c) {
            chars.append((char) c);
        }

        String take() {
            String taken = chars.toString();
            chars.setLength(0);
            return taken;
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }
}
