/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.api.connector.sink2.InitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The whole upsert changelog of one test run's {@link VersionedRowsWriter} rows (Debezium JSON
 * from the source, over every job of the run and its restores), with what it must satisfy: per
 * key, versions never decrease, and a deleted key never comes back (the writer never reuses a
 * key); applied as upserts and deletes, it materializes the run's rows.
 */
public final class VersionedChangelog {

    private static final Map<String, VersionedChangelog> REGISTRY = new ConcurrentHashMap<>();

    /** One record: Debezium's op, the key, the row's version, whether a snapshot read it. */
    public record Entry(String op, String id, long ver, boolean snapshot) {}

    private final List<Entry> entries = new ArrayList<>();

    public static VersionedChangelog get(String runId) {
        return REGISTRY.computeIfAbsent(runId, k -> new VersionedChangelog());
    }

    public static void drop(String runId) {
        REGISTRY.remove(runId);
    }

    synchronized void add(Entry e) {
        entries.add(e);
    }

    public synchronized List<Entry> entries() {
        return new ArrayList<>(entries);
    }

    /** Snapshot reads ({@code r}) so far. */
    public synchronized long snapshotReads() {
        return entries.stream().filter(e -> e.op.equals("r")).count();
    }

    /** The rows the changelog materializes, {@code id -> ver}. */
    public synchronized Map<String, String> materialized() {
        Map<String, String> rows = new TreeMap<>();
        for (Entry e : entries) {
            if (e.op.equals("d")) {
                rows.remove(e.id);
            } else {
                rows.put(e.id, String.valueOf(e.ver));
            }
        }
        return rows;
    }

    /** Every record that brought a key back in time, or back from its delete (empty = none). */
    public synchronized List<String> violations() {
        Map<String, Entry> last = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (Entry e : entries) {
            Entry before = last.get(e.id);
            if (before != null) {
                boolean older = e.ver < before.ver;
                boolean resurrected = before.op.equals("d") && !e.op.equals("d") && e.ver <= before.ver;
                if (older || resurrected) {
                    out.add(before + " then " + e);
                }
            }
            last.put(e.id, e);
        }
        return out;
    }

    /** A sink (parallelism 1) appending the run's rows of the writer's table to the changelog. */
    public static final class Sink extends TestSink<String> {
        private static final long serialVersionUID = 1L;
        private final String runId;
        private final long run;

        public Sink(String runId, long run) {
            this.runId = runId;
            this.run = run;
        }

        @Override
        protected SinkWriter<String> newWriter(InitContext context) {
            VersionedChangelog log = get(runId);
            return new SinkWriter<>() {
                @Override
                public void write(String element, Context context) throws IOException {
                    JsonNode event = DebeziumJson.parse(element);
                    String op = event.get("op").asText();
                    JsonNode image = op.equals("d") ? event.get("before") : event.get("after");
                    if (!VersionedRowsWriter.TABLE.equals(
                                    event.get("source").get("table").asText())
                            || image.get("run").asLong() != run) {
                        return;
                    }
                    log.add(new Entry(
                            op,
                            image.get("id").asText(),
                            image.get("ver").asLong(),
                            event.get("source").get("snapshot").asBoolean()));
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
