/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/** One column of a {@link TableDescriptor}, as the table's FIELD event described it. */
public final class ColumnDescriptor {

    private final String name;
    private final ColumnType type;
    private final String mysqlType;
    private final int vitessType;
    private final int charset;
    private final long length;
    private final long decimals;
    private final boolean nullable;
    private final boolean primaryKey;

    public ColumnDescriptor(
            String name,
            ColumnType type,
            String mysqlType,
            int vitessType,
            int charset,
            long length,
            long decimals,
            boolean nullable,
            boolean primaryKey) {
        this.name = name;
        this.type = type;
        this.mysqlType = mysqlType;
        this.vitessType = vitessType;
        this.charset = charset;
        this.length = length;
        this.decimals = decimals;
        this.nullable = nullable;
        this.primaryKey = primaryKey;
    }

    public String name() {
        return name;
    }

    public ColumnType type() {
        return type;
    }

    /** MySQL's declared type, e.g. {@code decimal(10,2)} or {@code bigint unsigned}. */
    public String mysqlType() {
        return mysqlType;
    }

    /** Vitess {@code query.Type} number, for diagnostics. */
    public int vitessType() {
        return vitessType;
    }

    /** Collation id; 63 means binary. */
    public int charset() {
        return charset;
    }

    /** Declared length or precision (DECIMAL precision, CHAR length, BIT width). */
    public long length() {
        return length;
    }

    /** DECIMAL scale, or fractional-second digits of temporal types. */
    public long decimals() {
        return decimals;
    }

    public boolean nullable() {
        return nullable;
    }

    public boolean primaryKey() {
        return primaryKey;
    }

    @Override
    public String toString() {
        return name + " " + mysqlType + (primaryKey ? " PK" : "") + (nullable ? "" : " NOT NULL");
    }
}
