/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.demo;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/** One text form per value, so rows from Flink and rows read through JDBC compare equal. */
final class Values {

    private static final DateTimeFormatter MICROS = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");

    private Values() {}

    static String text(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).toPlainString();
        }
        if (v instanceof LocalDateTime) {
            return MICROS.format((LocalDateTime) v);
        }
        if (v instanceof java.sql.Timestamp) {
            return MICROS.format(((java.sql.Timestamp) v).toLocalDateTime());
        }
        return v.toString();
    }
}
