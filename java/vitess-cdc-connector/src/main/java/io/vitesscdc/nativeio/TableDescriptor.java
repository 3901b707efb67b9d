/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shape of one table in one shard. Sent in a batch before the first record that uses it and
 * again whenever the shape changes (same id, higher version); records carry only the id.
 */
public final class TableDescriptor implements BatchEntry {

    private final int id;
    private final long version;
    private final String keyspace;
    private final String shard;
    private final String table;
    private final List<ColumnDescriptor> columns;
    private final Map<String, Integer> indexByName;

    public TableDescriptor(
            int id, long version, String keyspace, String shard, String table, List<ColumnDescriptor> columns) {
        this.id = id;
        this.version = version;
        this.keyspace = keyspace;
        this.shard = shard;
        this.table = table;
        this.columns = Collections.unmodifiableList(columns);
        Map<String, Integer> byName = new HashMap<>(columns.size() * 2);
        for (int i = 0; i < columns.size(); i++) {
            byName.putIfAbsent(columns.get(i).name(), i);
        }
        this.indexByName = byName;
    }

    /** Per-stream id of (keyspace, shard, table); stable across schema versions. */
    public int id() {
        return id;
    }

    /** Increases each time the table's shape changes in this shard. */
    public long version() {
        return version;
    }

    public String keyspace() {
        return keyspace;
    }

    public String shard() {
        return shard;
    }

    /** Table name without the keyspace. */
    public String table() {
        return table;
    }

    public List<ColumnDescriptor> columns() {
        return columns;
    }

    public int columnCount() {
        return columns.size();
    }

    /** Index of the named column, or -1. */
    public int indexOf(String column) {
        Integer i = indexByName.get(column);
        return i == null ? -1 : i;
    }

    @Override
    public String toString() {
        return keyspace + "/" + shard + "/" + table + " v" + version + " " + columns;
    }
}
