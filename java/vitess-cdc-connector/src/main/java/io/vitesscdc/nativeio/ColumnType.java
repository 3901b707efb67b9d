/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * The logical family of a column, as the native core derives it from the table's FIELD event.
 * Codes match {@code vitess_cdc_core::event::ColumnType}; see docs/batch-format.md.
 */
public enum ColumnType {
    INT(1),
    UINT(2),
    FLOAT(3),
    DOUBLE(4),
    DECIMAL(5),
    STRING(6),
    BYTES(7),
    DATE(8),
    DATETIME(9),
    TIMESTAMP(10),
    TIME(11),
    YEAR(12),
    ENUM(13),
    SET(14),
    JSON(15),
    BIT(16),
    GEOMETRY(17),
    /** A code this version of the connector does not know (a newer native library). */
    UNKNOWN(0);

    private static final ColumnType[] BY_CODE = new ColumnType[18];

    static {
        for (ColumnType t : values()) {
            if (t != UNKNOWN) {
                BY_CODE[t.code] = t;
            }
        }
    }

    private final int code;

    ColumnType(int code) {
        this.code = code;
    }

    /** The wire code. */
    public int code() {
        return code;
    }

    /** The type for a wire code; {@link #UNKNOWN} for codes this version does not know. */
    public static ColumnType fromCode(int code) {
        ColumnType t = code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        return t == null ? UNKNOWN : t;
    }
}
