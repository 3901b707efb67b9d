/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import io.vitesscdc.source.testutils.ChangelogRecorder.Change;

import org.apache.flink.types.RowKind;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.DeserializationFeature;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the Debezium-style JSON change events of {@code JsonDebeziumDeserializationSchema}. */
public final class DebeziumJson {

    private static final ObjectMapper MAPPER =
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private DebeziumJson() {}

    public static JsonNode parse(String event) throws IOException {
        return MAPPER.readTree(event);
    }

    /** A row image (before or after) as column name -> value in {@link Values#normalize} form. */
    public static Map<String, String> image(JsonNode image) {
        Map<String, String> row = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = image.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            row.put(f.getKey(), normalize(f.getValue()));
        }
        return row;
    }

    /**
     * The changelog records of each event, for a {@link ChangelogRecorder}: {@code c}/{@code r} is
     * a +I of the after image (an {@code r} with {@code source.incremental}, a chunked snapshot's
     * row, an upsert of it), {@code d} a -D of the before image, {@code u} a -U of the before
     * image and a +U of the after image (only a +U when the event has no before image: the
     * deserializer lost the -U, which the strict changelog reports). Keys are the key columns'
     * values, rows every {@code column=value}, the shard is {@code source.shard}.
     */
    public static ChangelogRecorder.Extractor<String> changes(String... keyColumns) {
        return event -> {
            JsonNode e = parse(event);
            String op = e.get("op").asText();
            String shard = e.path("source").path("shard").asText(null);
            List<Change> out = new ArrayList<>(2);
            JsonNode before = e.get("before");
            if ((op.equals("u") || op.equals("d")) && before != null && !before.isNull()) {
                out.add(change(
                        op.equals("u") ? RowKind.UPDATE_BEFORE : RowKind.DELETE, image(before), keyColumns, shard));
            }
            if (op.equals("r") && e.path("source").path("incremental").asBoolean()) {
                // A chunked snapshot's row: an upsert of the key's state.
                Change c = change(RowKind.UPDATE_AFTER, image(e.get("after")), keyColumns, shard);
                out.add(new Change(c.kind(), c.key(), c.row(), c.shard(), true));
            } else if (!op.equals("d")) {
                out.add(change(
                        op.equals("u") ? RowKind.UPDATE_AFTER : RowKind.INSERT,
                        image(e.get("after")),
                        keyColumns,
                        shard));
            }
            return out;
        };
    }

    private static Change change(RowKind kind, Map<String, String> row, String[] keyColumns, String shard) {
        List<Object> key = new ArrayList<>(keyColumns.length);
        for (String k : keyColumns) {
            key.add(row.get(k));
        }
        List<Object> values = new ArrayList<>(row.size());
        row.forEach((column, value) -> values.add(column + "=" + value));
        return new Change(kind, key, values, shard);
    }

    private static String normalize(JsonNode v) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isNumber()) {
            return Values.normalize(v.decimalValue());
        }
        String text = v.asText();
        if (text.length() >= 16 && text.charAt(10) == 'T') {
            try {
                return Values.normalize(LocalDateTime.parse(text));
            } catch (RuntimeException notADateTime) {
                return text;
            }
        }
        return text;
    }
}
