/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.ColumnDescriptor;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import java.util.Locale;

/**
 * The Flink SQL type that holds every value of a Vitess column exactly — the mapping documented
 * in docs/sql-connector.md, used in error messages so they name the declaration that works.
 */
@Internal
public final class FlinkTypes {

    private FlinkTypes() {}

    /** Flink's DECIMAL cannot declare more digits (MySQL's go up to 65). */
    public static final int MAX_FLINK_DECIMAL_PRECISION = 38;

    /** What Flink's TIME holds: milliseconds of one day. */
    public static final String TIME_RANGE = "00:00:00 to 23:59:59.999";

    /** What MySQL's TIME holds. */
    public static final String MYSQL_TIME_RANGE = "-838:59:59.000000 to 838:59:59.000000";

    /**
     * A declared type as the user wrote it, as far as Flink keeps it: the planner stores every
     * {@code TIME(p)} as {@code TIME(0)}, so naming that precision would contradict the DDL.
     */
    public static String declared(LogicalType type) {
        if (type.getTypeRoot() == LogicalTypeRoot.TIME_WITHOUT_TIME_ZONE) {
            return type.isNullable() ? "TIME" : "TIME NOT NULL";
        }
        return type.asSummaryString();
    }

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
                if (column.length() > MAX_FLINK_DECIMAL_PRECISION) {
                    return "STRING (exact: Flink's DECIMAL stops at precision " + MAX_FLINK_DECIMAL_PRECISION
                            + ", this column is " + column.mysqlType() + ")";
                }
                return "DECIMAL(" + column.length() + ", " + column.decimals() + ")";
            case DATE:
                return "DATE";
            case DATETIME:
                return "TIMESTAMP(" + precision + ")";
            case TIMESTAMP:
                return "TIMESTAMP(" + precision + ") or TIMESTAMP_LTZ(" + precision + ")";
            case TIME:
                return "STRING (exact for MySQL's whole range " + MYSQL_TIME_RANGE + "), or TIME if every value "
                        + "lies within " + TIME_RANGE + " in whole milliseconds";
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
