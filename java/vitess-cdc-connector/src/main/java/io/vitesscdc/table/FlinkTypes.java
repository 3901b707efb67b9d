/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.ColumnDescriptor;

import org.apache.flink.annotation.Internal;

import java.util.Locale;

/**
 * The Flink SQL type that holds every value of a Vitess column exactly — the mapping documented
 * in docs/sql-connector.md, used in error messages so they name the declaration that works.
 */
@Internal
public final class FlinkTypes {

    private FlinkTypes() {}

    public static String suggest(ColumnDescriptor column) {
        String mysql = column.mysqlType().toLowerCase(Locale.ROOT);
        int precision = (int) Math.min(column.decimals(), 6);
        switch (column.type()) {
            case INT:
                if (mysql.startsWith("tinyint")) {
                    return "TINYINT";
                }
                if (mysql.startsWith("smallint")) {
                    return "SMALLINT";
                }
                if (mysql.startsWith("mediumint") || mysql.startsWith("int")) {
                    return "INT";
                }
                return "BIGINT";
            case UINT:
                if (mysql.startsWith("tinyint")) {
                    return "SMALLINT";
                }
                if (mysql.startsWith("smallint") || mysql.startsWith("mediumint")) {
                    return "INT";
                }
                if (mysql.startsWith("int")) {
                    return "BIGINT";
                }
                return "DECIMAL(20, 0)";
            case FLOAT:
                return "FLOAT";
            case DOUBLE:
                return "DOUBLE";
            case DECIMAL:
                return "DECIMAL(" + column.length() + ", " + column.decimals() + ")";
            case DATE:
                return "DATE";
            case DATETIME:
                return "TIMESTAMP(" + precision + ")";
            case TIMESTAMP:
                return "TIMESTAMP(" + precision + ") or TIMESTAMP_LTZ(" + precision + ")";
            case TIME:
                return "TIME(" + precision + ") (or STRING for values beyond 00:00..24:00)";
            case YEAR:
                return "INT";
            case BIT:
                return column.length() == 1 ? "BOOLEAN" : "BYTES (or BIGINT)";
            case BYTES:
            case GEOMETRY:
                return "BYTES";
            case STRING:
            case ENUM:
            case SET:
            case JSON:
            default:
                return "STRING";
        }
    }
}
