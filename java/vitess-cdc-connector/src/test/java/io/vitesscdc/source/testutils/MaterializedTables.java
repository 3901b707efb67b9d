/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Static, JVM-wide upsert "databases" the test sinks write into, one per test run id. It plays
 * the external system a CDC job keeps in sync: it survives job restarts, so a test can stop a
 * job with a savepoint, restore it, and compare the final state with Vitess.
 */
public final class MaterializedTables {

    private static final Map<String, MaterializedTables> REGISTRY = new ConcurrentHashMap<>();

    private final Map<String, Map<String, String>> rows = new TreeMap<>();
    private final List<String> events = new ArrayList<>();
    private final Map<String, Long> highestVersions = new HashMap<>();
    private final List<String> versionRegressions = new ArrayList<>();

    public static MaterializedTables get(String id) {
        return REGISTRY.computeIfAbsent(id, k -> new MaterializedTables());
    }

    public static void drop(String id) {
        REGISTRY.remove(id);
    }

    /** Applies one change: +I/+U upsert, -D delete, -U ignored (the +U that follows upserts). */
    public synchronized void apply(String op, String key, Map<String, String> row, String eventId) {
        switch (op) {
            case "+I":
            case "+U":
                rows.put(key, row);
                checkVersion(key, row);
                break;
            case "-D":
                rows.remove(key);
                break;
            default:
                break;
        }
        if (eventId != null) {
            events.add(eventId);
        }
    }

    /**
     * Rows with a {@code ver} column (a writer's per-write counter, e.g. {@link VersionedRowsWriter}):
     * per key the versions must never go down, or an older row version arrived after a newer one.
     */
    private void checkVersion(String key, Map<String, String> row) {
        String ver = row.get("ver");
        if (ver == null) {
            return;
        }
        long v = Long.parseLong(ver);
        Long highest = highestVersions.get(key);
        if (highest != null && v < highest) {
            versionRegressions.add("key " + key + ": version " + v + " after " + highest);
        }
        highestVersions.merge(key, v, Math::max);
    }

    /** Every time a key's {@code ver} went down, in arrival order (empty when order held). */
    public synchronized List<String> versionRegressions() {
        return new ArrayList<>(versionRegressions);
    }

    public synchronized Map<String, Map<String, String>> rowsWithKeyPrefix(String prefix) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        rows.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k, v);
            }
        });
        return out;
    }

    public synchronized Map<String, Map<String, String>> rows() {
        return new TreeMap<>(rows);
    }

    /** Identities of the streamed (non-snapshot) events seen, in arrival order. */
    public synchronized List<String> events() {
        return Collections.unmodifiableList(new ArrayList<>(events));
    }

    public synchronized int eventCount() {
        return events.size();
    }
}
