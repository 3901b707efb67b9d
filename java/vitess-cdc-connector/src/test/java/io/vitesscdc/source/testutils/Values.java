/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/** One text form per value, so rows read through JDBC and through Flink compare equal. */
public final class Values {

    private static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

    private Values() {}

    public static String normalize(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).stripTrailingZeros().toPlainString();
        }
        if (v instanceof Double || v instanceof Float) {
            return normalize(BigDecimal.valueOf(((Number) v).doubleValue()));
        }
        if (v instanceof Number && !(v instanceof BigInteger)) {
            return normalize(new BigDecimal(v.toString()));
        }
        if (v instanceof LocalDateTime) {
            return DATETIME.format((LocalDateTime) v);
        }
        if (v instanceof java.sql.Timestamp) {
            return DATETIME.format(((java.sql.Timestamp) v).toLocalDateTime());
        }
        if (v instanceof byte[]) {
            return java.util.HexFormat.of().formatHex((byte[]) v);
        }
        return v.toString();
    }
}
