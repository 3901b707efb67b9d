/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.ColumnDescriptor;
import io.vitesscdc.nativeio.ValueType;
import io.vitesscdc.nativeio.VitessRecord;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.LocalDate;

/**
 * Converts one value of a {@link VitessRecord} into Flink's internal representation for a
 * declared SQL type. The value's own encoding ({@link ValueType}) decides how it is read, so a
 * declared type works for every MySQL type that can represent it exactly; anything else fails
 * with a message naming the column, both types, and the declaration to use instead.
 */
@Internal
final class FieldConverters {

    private FieldConverters() {}

    /** Reads value {@code i} (known to be present and not NULL). */
    @FunctionalInterface
    interface FieldConverter extends Serializable {
        Object convert(VitessRecord record, int i);
    }

    static FieldConverter create(LogicalType type) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return (r, i) -> r.valueType(i) == ValueType.BYTES ? anyBitSet(r.getBytes(i)) : r.getLong(i) != 0;
            case TINYINT:
                return (r, i) -> (byte) integer(r, i, Byte.MIN_VALUE, Byte.MAX_VALUE, type);
            case SMALLINT:
                return (r, i) -> (short) integer(r, i, Short.MIN_VALUE, Short.MAX_VALUE, type);
            case INTEGER:
                return (r, i) -> (int) integer(r, i, Integer.MIN_VALUE, Integer.MAX_VALUE, type);
            case BIGINT:
                return FieldConverters::bigint;
            case FLOAT:
                return (r, i) -> (float) number(r, i);
            case DOUBLE:
                return FieldConverters::number;
            case DECIMAL: {
                DecimalType d = (DecimalType) type;
                return (r, i) -> decimal(r, i, d);
            }
            case CHAR:
            case VARCHAR:
                return FieldConverters::string;
            case BINARY:
            case VARBINARY:
                return (r, i) -> r.getBytes(i);
            case DATE:
                return (r, i) -> {
                    LocalDate date = r.getDate(i);
                    return date == null ? null : (int) date.toEpochDay();
                };
            case TIME_WITHOUT_TIME_ZONE:
                return FieldConverters::timeOfDay;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
            // The value's own fields as epoch milliseconds: what fromLocalDateTime gives for a
            // DATETIME, and fromInstant of its UTC instant for a TIMESTAMP (MySQL TIMESTAMP
            // values arrive in UTC), without a LocalDateTime per value.
            {
                long step = NANOS_PER_UNIT[LogicalTypeChecks.getPrecision(type)];
                return (r, i) -> timestamp(r, i, type, step);
            }
            default:
                return null;
        }
    }

    private static boolean anyBitSet(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return true;
            }
        }
        return false;
    }

    static long bigint(VitessRecord r, int i) {
        ValueType t = r.valueType(i);
        if (t == ValueType.BYTES) {
            // BIT(n): big-endian bits.
            byte[] bytes = r.getBytes(i);
            if (bytes.length > 8) {
                throw mismatch(r, i, "BIGINT", "BYTES");
            }
            long v = 0;
            for (byte b : bytes) {
                v = (v << 8) | (b & 0xff);
            }
            return v;
        }
        if (t == ValueType.UINT && r.getLong(i) < 0) {
            throw new ValueMismatchException("value " + r.getUnsigned(i) + " of column " + describe(r, i)
                    + " does not fit BIGINT: declare the column as DECIMAL(20, 0)");
        }
        return r.getLong(i);
    }

    private static long integer(VitessRecord r, int i, long min, long max, LogicalType type) {
        long v = bigint(r, i);
        if (v < min || v > max) {
            throw new ValueMismatchException("value " + v + " of column " + describe(r, i) + " does not fit "
                    + type.asSummaryString() + ": declare it as "
                    + FlinkTypes.suggest(r.table().columns().get(i)));
        }
        return v;
    }

    private static double number(VitessRecord r, int i) {
        ValueType t = r.valueType(i);
        if (t == ValueType.FLOAT) {
            return r.getDouble(i);
        }
        if (t == ValueType.INT || t == ValueType.UINT || t == ValueType.DECIMAL) {
            return r.getDecimal(i).doubleValue();
        }
        throw mismatch(r, i, "DOUBLE", t.name());
    }

    /**
     * A value with more fractional digits than the declared precision fails rather than being
     * cut: Flink stores a TIMESTAMP(0..3) as milliseconds, and a row is stored so between
     * operators, so the digits beyond would be lost without a word.
     */
    private static TimestampData timestamp(VitessRecord r, int i, LogicalType type, long step) {
        long millis = r.getEpochMillis(i);
        if (millis == VitessRecord.NO_DATE_TIME) {
            return null;
        }
        int nanoOfMilli = r.getNanoOfMillisecond(i);
        long nanoOfSecond = Math.floorMod(millis, 1000L) * 1_000_000L + nanoOfMilli;
        if (nanoOfSecond % step != 0) {
            TimestampData value = TimestampData.fromEpochMillis(millis, nanoOfMilli);
            throw new ValueMismatchException("value " + value + " of column " + describe(r, i)
                    + " has more fractional digits than " + type.asSummaryString()
                    + " keeps (Flink would cut them): declare it as "
                    + FlinkTypes.suggest(r.table().columns().get(i)));
        }
        return TimestampData.fromEpochMillis(millis, nanoOfMilli);
    }

    /** Nanoseconds of one step of TIMESTAMP(p), p = 0..9: {@code step} above. */
    private static final long[] NANOS_PER_UNIT = {
        1_000_000_000L, 100_000_000L, 10_000_000L, 1_000_000L, 100_000L, 10_000L, 1_000L, 100L, 10L, 1L
    };

    /** 10^0 … 10^18: the bound of an unscaled long of each compact precision. */
    private static final long[] POWERS_OF_TEN = new long[19];

    static {
        POWERS_OF_TEN[0] = 1;
        for (int k = 1; k < POWERS_OF_TEN.length; k++) {
            POWERS_OF_TEN[k] = POWERS_OF_TEN[k - 1] * 10;
        }
    }

    private static DecimalData decimal(VitessRecord r, int i, DecimalType d) {
        // Fast path, no BigDecimal: a DECIMAL's text that fits a compact DecimalData exactly (the
        // same DecimalData fromBigDecimal builds); anything else takes the exact path below.
        if (d.getPrecision() < POWERS_OF_TEN.length) {
            long unscaled = r.getDecimalUnscaled(i, d.getScale());
            if (unscaled != Long.MIN_VALUE && Math.abs(unscaled) < POWERS_OF_TEN[d.getPrecision()]) {
                return DecimalData.fromUnscaledLong(unscaled, d.getPrecision(), d.getScale());
            }
        }
        ValueType t = r.valueType(i);
        BigDecimal v;
        if (t == ValueType.DECIMAL || t == ValueType.INT || t == ValueType.UINT) {
            v = r.getDecimal(i);
        } else if (t == ValueType.FLOAT) {
            v = BigDecimal.valueOf(r.getDouble(i));
        } else if (t == ValueType.STRING) {
            v = new BigDecimal(r.getString(i));
        } else {
            throw mismatch(r, i, d.asSummaryString(), t.name());
        }
        // fromBigDecimal rounds extra fractional digits away; an exact source value must not lose any.
        boolean exact = t != ValueType.FLOAT;
        DecimalData data = exact && v.stripTrailingZeros().scale() > d.getScale()
                ? null
                : DecimalData.fromBigDecimal(v, d.getPrecision(), d.getScale());
        if (data == null) {
            throw new ValueMismatchException("value " + v + " of column " + describe(r, i) + " does not fit "
                    + d.asSummaryString() + ": declare it as "
                    + FlinkTypes.suggest(r.table().columns().get(i)));
        }
        return data;
    }

    private static StringData string(VitessRecord r, int i) {
        ValueType t = r.valueType(i);
        switch (t) {
            case STRING:
            case BYTES:
                return StringData.fromBytes(r.getBytes(i));
            case DECIMAL:
                return StringData.fromString(r.getString(i));
            case INT:
            case UINT:
                return StringData.fromString(r.getUnsigned(i).toString());
            case FLOAT:
                return StringData.fromString(Double.toString(r.getDouble(i)));
            case DATE:
                return StringData.fromString(String.valueOf(r.getDate(i)));
            case DATETIME:
                return StringData.fromString(String.valueOf(r.getDateTime(i)));
            case TIME:
                return StringData.fromString(formatTime(r.getTimeMicros(i)));
            default:
                throw new AssertionError(t);
        }
    }

    /**
     * Flink's TIME is milliseconds of a day whatever precision the DDL declares (the planner turns
     * {@code TIME(6)} into {@code TIME(0)}), so a MySQL TIME beyond a day or with sub-millisecond
     * digits has no exact Flink TIME: it fails rather than being cut.
     */
    private static Object timeOfDay(VitessRecord r, int i) {
        long micros = r.getTimeMicros(i);
        if (micros < 0 || micros >= 86_400_000_000L) {
            throw new ValueMismatchException("value " + formatTime(micros) + " of column " + describe(r, i)
                    + " is outside Flink's TIME range " + FlinkTypes.TIME_RANGE + ": " + KEEP_TIME_AS_STRING);
        }
        if (micros % 1000 != 0) {
            throw new ValueMismatchException("value " + formatTime(micros) + " of column " + describe(r, i)
                    + " has sub-millisecond digits, which Flink's TIME cannot hold (it keeps milliseconds, "
                    + "whatever precision is declared): " + KEEP_TIME_AS_STRING);
        }
        return (int) (micros / 1000);
    }

    private static final String KEEP_TIME_AS_STRING = "declare the column as STRING, which keeps MySQL's whole "
            + "TIME range " + FlinkTypes.MYSQL_TIME_RANGE + " and its microseconds exactly";

    /**
     * {@code [-]HH:MM:SS.ffffff} (hours at least two digits, up to MySQL's 838), built by hand:
     * {@code String.format} was most of a TIME-as-STRING column's cost.
     */
    static String formatTime(long micros) {
        long abs = Math.abs(micros);
        long seconds = abs / 1_000_000;
        StringBuilder sb = new StringBuilder(16);
        if (micros < 0) {
            sb.append('-');
        }
        long hours = seconds / 3600;
        if (hours < 10) {
            sb.append('0');
        }
        sb.append(hours).append(':');
        appendPadded(sb, (seconds / 60) % 60, 2).append(':');
        appendPadded(sb, seconds % 60, 2).append('.');
        return appendPadded(sb, abs % 1_000_000, 6).toString();
    }

    private static StringBuilder appendPadded(StringBuilder sb, long value, int width) {
        for (long bound = 10, k = 1; k < width; k++, bound *= 10) {
            if (value < bound) {
                sb.append('0');
            }
        }
        return sb.append(value);
    }

    static String describe(VitessRecord r, int i) {
        ColumnDescriptor c = r.table().columns().get(i);
        return "'" + c.name() + "' (" + c.mysqlType() + ") of table "
                + r.table().keyspace() + "." + r.table().table();
    }

    private static ValueMismatchException mismatch(VitessRecord r, int i, String declared, String actual) {
        ColumnDescriptor c = r.table().columns().get(i);
        return new ValueMismatchException("column " + describe(r, i) + " holds " + actual
                + " values that cannot be read as " + declared + ": declare it as " + FlinkTypes.suggest(c));
    }

    /**
     * A value that does not fit the column's declared Flink type; the message already names the
     * type to declare instead.
     */
    static final class ValueMismatchException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        ValueMismatchException(String message) {
            super(message);
        }
    }
}
