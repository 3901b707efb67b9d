/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

/**
 * The Flink SQL columns of the two bench tables, as {@code vitess-cdc-bench --e2e load} creates
 * them in MySQL ({@code rust/cli/src/bench/e2e.rs}; types as docs/sql-connector.md maps them).
 */
final class BenchTables {

    private BenchTables() {}

    static final String NARROW = "id BIGINT, email STRING, name STRING, balance DECIMAL(12, 2), visits INT, "
            + "updated_at TIMESTAMP(6), note STRING, stamp_us BIGINT";

    static final String WIDE = "id BIGINT, c_tinyint TINYINT, c_smallint_u INT, c_mediumint INT, c_int INT, "
            + "c_bigint_u DECIMAL(20, 0), c_bool BOOLEAN, c_decimal DECIMAL(30, 10), c_float FLOAT, "
            + "c_double DOUBLE, c_bit64 BYTES, c_date DATE, c_datetime6 TIMESTAMP(6), "
            + "c_timestamp TIMESTAMP_LTZ(3), c_time STRING, c_year INT, c_char STRING, c_varchar STRING, "
            + "c_text STRING, c_latin1 STRING, c_binary BYTES, c_varbinary BYTES, c_blob BYTES, "
            + "c_enum STRING, c_set STRING, c_json STRING, stamp_us BIGINT";

    /** The columns of {@code shape} ({@code narrow} or {@code wide}). */
    static String columns(String shape) {
        switch (shape) {
            case "narrow":
                return NARROW;
            case "wide":
                return WIDE;
            default:
                throw new IllegalArgumentException("unknown table shape '" + shape + "' (narrow or wide)");
        }
    }
}
