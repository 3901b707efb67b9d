/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * How one value of a record is encoded. Every present, non-null value carries its own tag, so a
 * reader never infers the encoding from the column declaration. Codes match
 * {@code vitess_cdc_core::batch::value_tag}.
 */
public enum ValueType {
    /** Signed 64-bit integer (TINYINT..BIGINT, YEAR). */
    INT(1),
    /** Unsigned 64-bit integer (… UNSIGNED), full range. */
    UINT(2),
    /** IEEE double (FLOAT widened exactly, DOUBLE). */
    FLOAT(3),
    /** Exact decimal as text, scale kept ({@code -12.340}). */
    DECIMAL(4),
    /** UTF-8 text (CHAR, VARCHAR, TEXT, ENUM, SET, JSON). */
    STRING(5),
    /** Raw bytes (BINARY, VARBINARY, BLOB, BIT, GEOMETRY as WKB). */
    BYTES(6),
    /** Year, month, day; zero parts allowed (MySQL zero dates). */
    DATE(7),
    /** Year .. second plus microseconds; TIMESTAMP columns are in UTC. */
    DATETIME(8),
    /** Signed duration in microseconds (MySQL TIME, may exceed 24 h). */
    TIME(9);

    private static final ValueType[] BY_CODE = new ValueType[10];

    static {
        for (ValueType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    ValueType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The type for a wire code, or {@code null} if the code is unknown. */
    static ValueType fromCode(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
