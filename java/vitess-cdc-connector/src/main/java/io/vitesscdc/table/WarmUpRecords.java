/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.BatchEntry;
import io.vitesscdc.nativeio.BatchWriter;
import io.vitesscdc.nativeio.ChangeKind;
import io.vitesscdc.nativeio.ColumnType;
import io.vitesscdc.nativeio.VitessRecord;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Synthetic records of a declared row type, in the native batch format, for the reader's warm-up
 * ({@link io.vitesscdc.source.reader.ReaderWarmUp}): a table whose columns carry the declared
 * names, each of the Vitess type a declared type reads most often, and values that vary in
 * length and sign, with some NULLs, the way a copy's rows do. Every value is one its declared
 * type accepts (a TIMESTAMP's fraction has no more digits than its precision).
 */
@Internal
final class WarmUpRecords {

    private WarmUpRecords() {}

    /** {@code count} records of {@code type}, the kinds and phases mixed. */
    static List<VitessRecord> of(RowType type, int count) {
        List<LogicalType> fields = type.getChildren();
        SyntheticColumn[] synthetic = new SyntheticColumn[fields.size()];
        BatchWriter.Column[] columns = new BatchWriter.Column[fields.size()];
        for (int f = 0; f < columns.length; f++) {
            synthetic[f] = synthetic(type.getFieldNames().get(f), fields.get(f));
            columns[f] = synthetic[f].column();
        }
        BatchWriter writer = new BatchWriter().table(1, "warm_up", "-", "warm_up", columns);
        for (int i = 0; i < count; i++) {
            Object[] values = new Object[columns.length];
            for (int f = 0; f < values.length; f++) {
                // Every fifth row has NULLs (the first column, a key, never).
                values[f] = f > 0 && i % 5 == 4 ? null : synthetic[f].value().apply(i);
            }
            writer.record(1, i % 3 == 2 ? ChangeKind.UPDATE_AFTER : ChangeKind.INSERT, i % 2 == 0, i, values);
        }
        Batch batch = writer.build(0);
        List<VitessRecord> records = new ArrayList<>(count);
        for (BatchEntry entry : batch.entries()) {
            if (entry instanceof VitessRecord record) {
                records.add(record);
            }
        }
        return records;
    }

    /** A column for a declared type, and its value in row {@code i}. */
    private record SyntheticColumn(BatchWriter.Column column, IntFunction<Object> value) {}

    private static SyntheticColumn synthetic(String name, LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.INT, "tinyint(1)", 1, 0), i -> (long) (i & 1));
            case TINYINT:
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.INT, "tinyint", 4, 0), i -> (long) (i % 100 - 50));
            case SMALLINT:
                return new SyntheticColumn(new BatchWriter.Column(name, ColumnType.INT, "smallint", 6, 0), i ->
                        (long) (i * 31 % 60_000 - 30_000));
            case INTEGER:
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.INT, "int", 11, 0), i -> (long) i * 7919 - 1_000_000);
            case BIGINT:
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.INT, "bigint", 20, 0),
                        i -> (long) i * 7_919_000_003L - 1_000_000_000_000L);
            case FLOAT:
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.FLOAT, "float", 12, 31), i -> i * 0.25 - 100);
            case DOUBLE:
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.DOUBLE, "double", 22, 31), i -> i * 0.25 - 100);
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                long bound = (long) Math.pow(10, Math.min(d.getPrecision(), 9));
                return new SyntheticColumn(
                        new BatchWriter.Column(
                                name,
                                ColumnType.DECIMAL,
                                "decimal(" + d.getPrecision() + "," + d.getScale() + ")",
                                d.getPrecision(),
                                d.getScale()),
                        i -> BigDecimal.valueOf((i * 7919L) % bound - bound / 2, d.getScale()));
            }
            case BINARY:
            case VARBINARY:
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.BYTES, "varbinary(255)", 255, 0),
                        i -> new byte[i % 17 + 1]);
            case DATE:
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.DATE, "date", 10, 0),
                        i -> LocalDate.of(1990 + i % 40, 1 + i % 12, 1 + i % 28));
            case TIME_WITHOUT_TIME_ZONE:
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.TIME, "time", 10, 0),
                        i -> Duration.ofSeconds(i % 86_400));
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                // A fraction the declared precision can hold (more digits fail the row).
                int unit = (int) Math.pow(10, 6 - Math.min(LogicalTypeChecks.getPrecision(type), 6));
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.DATETIME, "datetime(6)", 26, 6),
                        i -> LocalDateTime.of(2020, 1 + i % 12, 1 + i % 28, i % 24, i % 60, i % 60)
                                .plusNanos((i * 7919L % 1_000_000) / unit * unit * 1000));
            }
            default: {
                int length = type instanceof VarCharType v
                        ? v.getLength()
                        : type instanceof CharType c ? c.getLength() : Integer.MAX_VALUE;
                return new SyntheticColumn(
                        new BatchWriter.Column(name, ColumnType.STRING, "varchar(255)", 255, 0), i -> {
                            String text = "warm-up row " + i + " of the record conversion";
                            return text.substring(0, Math.max(1, Math.min(text.length(), length) - i % 7));
                        });
            }
        }
    }
}
