/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.api.connector.sink2.InitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.Map;

/**
 * Applies Debezium-style JSON change events (from {@code JsonDebeziumDeserializationSchema}) to a
 * {@link MaterializedTables} keyed by the given key columns; records the identity of every
 * streamed event so a test can prove none was delivered twice.
 */
public final class DebeziumJsonMaterializingSink extends TestSink<String> {

    private static final long serialVersionUID = 1L;

    private final String tablesId;
    private final String[] keyColumns;

    public DebeziumJsonMaterializingSink(String tablesId, String... keyColumns) {
        this.tablesId = tablesId;
        this.keyColumns = keyColumns;
    }

    @Override
    protected SinkWriter<String> newWriter(InitContext context) {
        return new Writer(MaterializedTables.get(tablesId), keyColumns);
    }

    private static final class Writer implements SinkWriter<String> {
        private final MaterializedTables tables;
        private final String[] keyColumns;

        Writer(MaterializedTables tables, String[] keyColumns) {
            this.tables = tables;
            this.keyColumns = keyColumns;
        }

        @Override
        public void write(String element, Context context) throws IOException {
            JsonNode event = DebeziumJson.parse(element);
            String op = event.get("op").asText();
            JsonNode image = op.equals("d") ? event.get("before") : event.get("after");
            Map<String, String> row = DebeziumJson.image(image);
            StringBuilder key = new StringBuilder();
            for (String k : keyColumns) {
                key.append(key.length() == 0 ? "" : "|").append(row.get(k));
            }
            boolean snapshot = event.get("source").get("snapshot").asBoolean();
            String flinkOp = op.equals("d") ? "-D" : op.equals("u") ? "+U" : "+I";
            String eventId =
                    snapshot ? null : event.get("source").get("position").asText() + "|" + op + "|" + row;
            tables.apply(flinkOp, key.toString(), row, eventId);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
    }
}
