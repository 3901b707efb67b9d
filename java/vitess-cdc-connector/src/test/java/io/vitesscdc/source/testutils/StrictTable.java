/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.util.ArrayList;
import java.util.List;

/**
 * The tables of the {@code strict} keyspace (tests/vitess/schema/strict): one per primary-key shape
 * whose order the copy phase pages by, each with the same value columns ({@code run}, {@code grp},
 * {@code amount}, {@code pad}). What the writer and the Flink tests need to know about them.
 */
public enum StrictTable {
    COMPOSITE("s_composite", List.of("tenant", "id"), "tenant BIGINT, id BIGINT", "hash", "tenant"),
    VARBINARY("s_varbinary", List.of("k"), "k BYTES", "xxhash", "k"),
    VARCHAR("s_varchar", List.of("k"), "k STRING", "unicode_loose_xxhash", "k"),
    VARCHAR_BIN("s_varchar_bin", List.of("k"), "k STRING", "xxhash", "k"),
    UNSIGNED("s_unsigned", List.of("k"), "k DECIMAL(20, 0)", "hash", "k");

    public static final String KEYSPACE = "strict";
    public static final List<String> SHARDS = List.of("-55", "55-aa", "aa-");
    public static final List<String> VALUE_COLUMNS = List.of("run", "grp", "amount", "pad");
    /** Flink SQL declarations of {@link #VALUE_COLUMNS}. */
    public static final String VALUE_COLUMNS_DDL = "run BIGINT, grp STRING, amount BIGINT, pad STRING";

    public final String table;
    public final List<String> keyColumns;
    /** Flink SQL declarations of the key columns. */
    public final String keyColumnsDdl;
    /** The table's primary vindex (a Vitess vindex function of that name answers key -> shard). */
    public final String vindex;
    /** The key column the vindex maps (the shard of a row is a function of it alone). */
    public final String vindexColumn;

    StrictTable(String table, List<String> keyColumns, String keyColumnsDdl, String vindex, String vindexColumn) {
        this.table = table;
        this.keyColumns = keyColumns;
        this.keyColumnsDdl = keyColumnsDdl;
        this.vindex = vindex;
        this.vindexColumn = vindexColumn;
    }

    /** Key columns, then value columns: the physical columns, in table order. */
    public List<String> columns() {
        List<String> all = new ArrayList<>(keyColumns);
        all.addAll(VALUE_COLUMNS);
        return all;
    }

    /**
     * One comparable text per value, the same for a value read through JDBC and through Flink
     * ({@link Values#normalize}); {@code pad} (1 KB, never updated) is shortened to its length and
     * hash, so recorded changelogs stay small.
     */
    public static String normalize(String column, Object value) {
        String v = Values.normalize(value);
        return "pad".equals(column) && v != null ? "pad(" + v.length() + "," + v.hashCode() + ")" : v;
    }
}
