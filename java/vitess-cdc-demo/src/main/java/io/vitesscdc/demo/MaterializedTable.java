/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory table kept by primary key: what a CDC pipeline keeps in sync in an external
 * database. The demo's sink writes here; the demo's driver reads it in the same JVM.
 */
final class MaterializedTable {

    private static final Map<String, MaterializedTable> BY_NAME = new ConcurrentHashMap<>();

    private final Map<String, List<String>> rows = new TreeMap<>();
    private final AtomicLong upserts = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();

    static MaterializedTable named(String name) {
        return BY_NAME.computeIfAbsent(name, n -> new MaterializedTable());
    }

    synchronized void upsert(String key, List<String> row) {
        rows.put(key, row);
        upserts.incrementAndGet();
    }

    synchronized void delete(String key) {
        rows.remove(key);
        deletes.incrementAndGet();
    }

    /** A copy of the rows, by key. */
    synchronized Map<String, List<String>> snapshot() {
        return new TreeMap<>(rows);
    }

    long upserts() {
        return upserts.get();
    }

    long deletes() {
        return deletes.get();
    }

    static List<String> row(Object... values) {
        List<String> out = new ArrayList<>(values.length);
        for (Object v : values) {
            out.add(Values.text(v));
        }
        return out;
    }
}
