/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;

/**
 * One row change, read in place from the batch buffer.
 *
 * <p>Values are decoded only when asked for: the first access to a value walks the record once
 * to find where each value starts, and each getter then reads just its own bytes. This keeps a
 * projection to a few columns cheap and lets a Flink converter read straight into its own types.
 *
 * <p>A view is valid until the buffer it was decoded from is polled into again (see {@link Batch}).
 *
 * <p>Getters take a column index (the table descriptor's column order) or a column name. They
 * throw {@link IllegalStateException} when the value is NULL or absent (check {@link #isNull}
 * first) and {@link ClassCastException} when the value has another {@link ValueType}.
 */
public final class VitessRecord implements BatchEntry {

    static final int FLAG_SNAPSHOT = 1;
    static final int FLAG_HAS_ABSENT = 2;
    static final int FLAG_FLINK_ROW = 4;
    static final int FLAG_JSON_ROW = 8;

    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private final ByteBuffer buf;
    private final TableDescriptor table;
    private final ChangeKind kind;
    private final int flags;
    private final long commitTimestampMillis;
    private final int arity;
    private final int bitmapPos;
    private final int valuesPos;
    private final int end;
    /** Start of each value (its tag byte); -1 for null/absent. Built on first access. */
    private int[] offsets;

    /**
     * A record whose row the core wrote ({@link #hasFlinkRow}, {@link #hasJsonRow}): a heap copy
     * of its batch, shared by the batch's records, and where the row's bytes are in it.
     */
    private final byte[] rowBatch;

    private final int rowOffset;
    private final int rowLength;

    VitessRecord(
            ByteBuffer littleEndianBuffer,
            TableDescriptor table,
            ChangeKind kind,
            int flags,
            long commitTimestampMillis,
            int arity,
            int bitmapPos,
            int valuesPos,
            int end) {
        this(
                littleEndianBuffer,
                table,
                kind,
                flags,
                commitTimestampMillis,
                arity,
                bitmapPos,
                valuesPos,
                end,
                null,
                0,
                0);
    }

    /** A record whose row the core wrote: {@code rowLength} bytes at {@code rowOffset} of {@code rowBatch}. */
    VitessRecord(
            ByteBuffer littleEndianBuffer,
            TableDescriptor table,
            ChangeKind kind,
            int flags,
            long commitTimestampMillis,
            int arity,
            int bitmapPos,
            int valuesPos,
            int end,
            byte[] rowBatch,
            int rowOffset,
            int rowLength) {
        this.rowBatch = rowBatch;
        this.rowOffset = rowOffset;
        this.rowLength = rowLength;
        this.buf = littleEndianBuffer;
        this.table = table;
        this.kind = kind;
        this.flags = flags;
        this.commitTimestampMillis = commitTimestampMillis;
        this.arity = arity;
        this.bitmapPos = bitmapPos;
        this.valuesPos = valuesPos;
        this.end = end;
    }

    public TableDescriptor table() {
        return table;
    }

    public ChangeKind kind() {
        return kind;
    }

    /** Binlog commit time in milliseconds since the epoch; 0 for rows read by the copy phase. */
    public long commitTimestampMillis() {
        return commitTimestampMillis;
    }

    /** True for rows read by the copy (snapshot) phase. */
    public boolean isSnapshot() {
        return (flags & FLAG_SNAPSHOT) != 0;
    }

    /**
     * The core wrote this record as a row in Flink's binary layout for the declared row the
     * stream was opened with (docs/batch-format.md, "Flink rows"): its bytes are {@link
     * #rowLength} bytes at {@link #rowOffset} of {@link #rowBatch}, and it has no values to read.
     */
    public boolean hasFlinkRow() {
        return (flags & FLAG_FLINK_ROW) != 0;
    }

    /**
     * The core wrote this record's row as a Debezium JSON object (UTF-8; docs/batch-format.md,
     * "JSON rows") at {@link #rowOffset} of {@link #rowBatch}, and it has no values to read.
     */
    public boolean hasJsonRow() {
        return (flags & FLAG_JSON_ROW) != 0;
    }

    /**
     * The heap copy of the part of the batch that holds this record's core-written row (one per
     * run of rows, shared by their records): rows may point into it for as long as they live,
     * after the native buffer is polled into again; {@code null} for a record with values.
     */
    public byte[] rowBatch() {
        return rowBatch;
    }

    public int rowOffset() {
        return rowOffset;
    }

    public int rowLength() {
        return rowLength;
    }

    /** Number of values (equals the table's column count). */
    public int arity() {
        return arity;
    }

    /** Index of the named column, or -1 (see {@link TableDescriptor#indexOf}). */
    public int indexOf(String column) {
        return table.indexOf(column);
    }

    /** SQL NULL. */
    public boolean isNull(int i) {
        checkIndex(i);
        return bit(bitmapPos, i);
    }

    /**
     * Not sent at all: a partial row image ({@code binlog_row_image=NOBLOB/MINIMAL}) left this
     * column out. Different from NULL; {@link #getObject} returns null for both.
     */
    public boolean isAbsent(int i) {
        checkIndex(i);
        return (flags & FLAG_HAS_ABSENT) != 0 && bit(bitmapPos + ((arity + 7) >>> 3), i);
    }

    /** The encoding of value {@code i}, or {@code null} when it is NULL or absent. */
    public ValueType valueType(int i) {
        int at = offset(i);
        return at < 0 ? null : ValueType.fromCode(buf.get(at) & 0xff);
    }

    /**
     * A signed or unsigned integer. An UNSIGNED BIGINT above {@link Long#MAX_VALUE} comes back as
     * its two's-complement bits (use {@link #getUnsigned} for the exact value).
     */
    public long getLong(int i) {
        int at = value(i, ValueType.INT, ValueType.UINT);
        return buf.getLong(at + 1);
    }

    /** An integer as an exact {@link BigInteger} (UNSIGNED BIGINT's full range). */
    public BigInteger getUnsigned(int i) {
        int at = value(i, ValueType.INT, ValueType.UINT);
        long v = buf.getLong(at + 1);
        BigInteger big = BigInteger.valueOf(v);
        return typeAt(at) == ValueType.UINT && v < 0 ? big.add(TWO_64) : big;
    }

    public double getDouble(int i) {
        return buf.getDouble(value(i, ValueType.FLOAT) + 1);
    }

    /** An exact decimal (scale kept); integers are accepted too. */
    public BigDecimal getDecimal(int i) {
        int at = value(i, ValueType.DECIMAL, ValueType.INT, ValueType.UINT);
        ValueType t = typeAt(at);
        if (t == ValueType.DECIMAL) {
            String text = utf8(at + 1);
            try {
                return new BigDecimal(text);
            } catch (NumberFormatException e) {
                throw BatchCursor.corrupt("column " + describe(i) + " holds the non-decimal '" + text + "'");
            }
        }
        return new BigDecimal(getUnsigned(i));
    }

    /** Text, or a decimal's text. */
    public String getString(int i) {
        return utf8(value(i, ValueType.STRING, ValueType.DECIMAL) + 1);
    }

    /** Raw bytes of a binary value, or the UTF-8 bytes of a text value (a copy). */
    public byte[] getBytes(int i) {
        int at = value(i, ValueType.BYTES, ValueType.STRING, ValueType.DECIMAL) + 1;
        int n = buf.getInt(at);
        byte[] out = new byte[n];
        buf.get(at + 4, out);
        return out;
    }

    /**
     * The buffer this view reads (little-endian; direct when it came from a native poll), for
     * readers that copy a value's bytes straight into their own layout ({@link #bytesOffset}).
     * Valid, like the view, until the buffer is polled into again; never to be written.
     */
    public ByteBuffer buffer() {
        return buf;
    }

    /**
     * Where the bytes of a binary, text or decimal value start in {@link #buffer()}: the same
     * bytes {@link #getBytes} copies, without the copy.
     */
    public int bytesOffset(int i) {
        return value(i, ValueType.BYTES, ValueType.STRING, ValueType.DECIMAL) + 5;
    }

    /** How many bytes the value at {@link #bytesOffset} has. */
    public int bytesLength(int i) {
        return buf.getInt(value(i, ValueType.BYTES, ValueType.STRING, ValueType.DECIMAL) + 1);
    }

    /** Bytes of the record's values in the batch: an upper bound of the text and binary they hold. */
    public int valuesSize() {
        return end - valuesPos;
    }

    /** A DATE, or {@code null} for a MySQL zero date or one with zero parts ({@code 2020-00-00}). */
    public LocalDate getDate(int i) {
        int at = value(i, ValueType.DATE, ValueType.DATETIME) + 1;
        try {
            return LocalDate.of(buf.getShort(at) & 0xffff, buf.get(at + 2), buf.get(at + 3));
        } catch (DateTimeException zeroOrInvalid) {
            return null;
        }
    }

    /**
     * A DATETIME or TIMESTAMP (TIMESTAMP in UTC), or {@code null} for a zero date; a DATE gives
     * its midnight.
     */
    public LocalDateTime getDateTime(int i) {
        int at = value(i, ValueType.DATETIME, ValueType.DATE);
        int p = at + 1;
        int year = buf.getShort(p) & 0xffff;
        int month = buf.get(p + 2);
        int day = buf.get(p + 3);
        try {
            if (typeAt(at) == ValueType.DATE) {
                return LocalDateTime.of(year, month, day, 0, 0);
            }
            return LocalDateTime.of(
                    year, month, day, buf.get(p + 4), buf.get(p + 5), buf.get(p + 6), buf.getInt(p + 7) * 1000);
        } catch (DateTimeException zeroOrInvalid) {
            return null;
        }
    }

    /** A TIME as signed microseconds (MySQL's range is ±838:59:59, beyond a day). */
    public long getTimeMicros(int i) {
        return buf.getLong(value(i, ValueType.TIME) + 1);
    }

    /**
     * The value as a Java object: Long (INT), BigInteger (UINT), Double, BigDecimal, String,
     * byte[], LocalDate, LocalDateTime, Duration (TIME); {@code null} for NULL, absent, and zero
     * dates.
     */
    public Object getObject(int i) {
        int at = offset(i);
        if (at < 0) {
            return null;
        }
        ValueType t = typeAt(at);
        if (t == null) {
            throw BatchCursor.corrupt("unknown value tag " + (buf.get(at) & 0xff) + " in column " + i);
        }
        switch (t) {
            case INT:
                return getLong(i);
            case UINT:
                return getUnsigned(i);
            case FLOAT:
                return getDouble(i);
            case DECIMAL:
                return getDecimal(i);
            case STRING:
                return getString(i);
            case BYTES:
                return getBytes(i);
            case DATE:
                return getDate(i);
            case DATETIME:
                return getDateTime(i);
            case TIME:
                return Duration.ofNanos(getTimeMicros(i) * 1000);
            default:
                throw new AssertionError(t);
        }
    }

    public boolean isNull(String column) {
        return isNull(index(column));
    }

    public Object getObject(String column) {
        return getObject(index(column));
    }

    public long getLong(String column) {
        return getLong(index(column));
    }

    public String getString(String column) {
        return getString(index(column));
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append(kind.shortString())
                .append(' ')
                .append(table.keyspace())
                .append('/')
                .append(table.shard())
                .append('/')
                .append(table.table())
                .append('{');
        if (rowBatch != null) {
            return sb.append(hasFlinkRow() ? "Flink row of " : "JSON row of ")
                    .append(rowLength)
                    .append(" bytes}")
                    .toString();
        }
        for (int i = 0; i < arity; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(i < table.columnCount() ? table.columns().get(i).name() : "#" + i)
                    .append('=');
            if (isAbsent(i)) {
                sb.append("<absent>");
            } else {
                Object v = getObject(i);
                sb.append(v instanceof byte[] ? "0x" + hex((byte[]) v) : String.valueOf(v));
            }
        }
        return sb.append('}').toString();
    }

    /**
     * Where {@link #getEpochMillis} finds no date-time: a zero or invalid date, exactly where
     * {@link #getDateTime} returns {@code null}.
     */
    public static final long NO_DATE_TIME = Long.MIN_VALUE;

    private static final long DAYS_0000_TO_1970 = 719_528L;

    /**
     * A DATETIME or TIMESTAMP (or a DATE's midnight) as milliseconds since 1970-01-01T00:00 of
     * its own fields, zone-less (TIMESTAMP values are UTC), without building a {@link
     * LocalDateTime}: the same instant {@link #getDateTime} describes, or {@link #NO_DATE_TIME}
     * where that returns {@code null}. The sub-millisecond rest is {@link #getNanoOfMillisecond}.
     */
    public long getEpochMillis(int i) {
        int at = value(i, ValueType.DATETIME, ValueType.DATE);
        int p = at + 1;
        int year = buf.getShort(p) & 0xffff;
        int month = buf.get(p + 2);
        int day = buf.get(p + 3);
        int hour = 0;
        int minute = 0;
        int second = 0;
        int nanos = 0;
        if (typeAt(at) == ValueType.DATETIME) {
            hour = buf.get(p + 4);
            minute = buf.get(p + 5);
            second = buf.get(p + 6);
            nanos = buf.getInt(p + 7) * 1000; // as getDateTime computes it
        }
        if (month < 1
                || month > 12
                || day < 1
                || day > lengthOfMonth(year, month)
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 59
                || nanos < 0
                || nanos > 999_999_999) {
            return NO_DATE_TIME;
        }
        long seconds = epochDay(year, month, day) * 86_400L + hour * 3_600L + minute * 60L + second;
        return seconds * 1_000L + nanos / 1_000_000;
    }

    /** The nanoseconds within the millisecond of {@link #getEpochMillis} (0 for a DATE). */
    public int getNanoOfMillisecond(int i) {
        int at = value(i, ValueType.DATETIME, ValueType.DATE);
        return typeAt(at) == ValueType.DATE ? 0 : (buf.getInt(at + 8) * 1000) % 1_000_000;
    }

    /** Days from 1970-01-01 to a valid proleptic-Gregorian date of a year 0 … 65535. */
    static long epochDay(int year, int month, int day) {
        long y = year;
        long total = 365 * y + (y + 3) / 4 - (y + 99) / 100 + (y + 399) / 400;
        total += (367L * month - 362) / 12 + day - 1;
        if (month > 2) {
            total -= isLeapYear(year) ? 1 : 2;
        }
        return total - DAYS_0000_TO_1970;
    }

    private static boolean isLeapYear(int year) {
        return (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
    }

    private static int lengthOfMonth(int year, int month) {
        switch (month) {
            case 2:
                return isLeapYear(year) ? 29 : 28;
            case 4:
            case 6:
            case 9:
            case 11:
                return 30;
            default:
                return 31;
        }
    }

    /**
     * A DECIMAL's value as an unscaled long at {@code scale} fractional digits, read from its text
     * without a {@link BigDecimal}; {@link Long#MIN_VALUE} when that is not exact this way (more
     * fractional digits than {@code scale}, more than 18 digits, not a plain decimal, or not a
     * DECIMAL value): then {@link #getDecimal} gives the value.
     */
    public long getDecimalUnscaled(int i, int scale) {
        int at = offset(i);
        if (at < 0 || typeAt(at) != ValueType.DECIMAL || scale < 0 || scale > 18) {
            return Long.MIN_VALUE;
        }
        int n = buf.getInt(at + 1);
        int p = at + 5;
        int end = p + n;
        boolean negative = p < end && buf.get(p) == '-';
        if (negative) {
            p++;
        }
        long unscaled = 0;
        int digits = 0;
        int fraction = -1; // digits after the point, -1 before it
        for (; p < end; p++) {
            int c = buf.get(p);
            if (c == '.' && fraction < 0) {
                fraction = 0;
                continue;
            }
            if (c < '0' || c > '9') {
                return Long.MIN_VALUE;
            }
            if (++digits > 18 || (fraction >= 0 && ++fraction > scale)) {
                return Long.MIN_VALUE;
            }
            unscaled = unscaled * 10 + (c - '0');
        }
        if (digits == 0 || fraction == 0) {
            return Long.MIN_VALUE; // "", "-", "1." are not what MySQL sends: the exact path decides
        }
        for (int k = Math.max(fraction, 0); k < scale; k++) {
            if (unscaled > Long.MAX_VALUE / 10) {
                return Long.MIN_VALUE;
            }
            unscaled *= 10;
        }
        return negative ? -unscaled : unscaled;
    }

    // ---- internals ----

    private int index(String column) {
        int i = table.indexOf(column);
        if (i < 0) {
            throw new IllegalArgumentException("table " + table.keyspace() + "." + table.table() + " has no column '"
                    + column + "'; columns: " + table.columns());
        }
        return i;
    }

    private void checkIndex(int i) {
        if (rowBatch != null) {
            throw new IllegalStateException("the core wrote this record of " + table.keyspace() + "." + table.table()
                    + " as a row for the reader: its values are in the row, not in the record");
        }
        if (i < 0 || i >= arity) {
            throw new IndexOutOfBoundsException("column " + i + " of a record with " + arity + " values");
        }
    }

    private boolean bit(int bitmapStart, int i) {
        return (buf.get(bitmapStart + (i >>> 3)) & (1 << (i & 7))) != 0;
    }

    private ValueType typeAt(int at) {
        return ValueType.fromCode(buf.get(at) & 0xff);
    }

    /** Position of value i's tag, or -1 for NULL/absent. */
    private int offset(int i) {
        checkIndex(i);
        if (offsets == null) {
            offsets = computeOffsets();
        }
        return offsets[i];
    }

    private int value(int i, ValueType... accepted) {
        int at = offset(i);
        if (at < 0) {
            throw new IllegalStateException("column " + describe(i) + " is " + (isNull(i) ? "NULL" : "absent"));
        }
        ValueType t = typeAt(at);
        for (ValueType a : accepted) {
            if (a == t) {
                return at;
            }
        }
        throw new ClassCastException("column " + describe(i) + " holds a " + t + " value, not "
                + (accepted.length == 1 ? accepted[0] : Arrays.toString(accepted)));
    }

    private String describe(int i) {
        return i < table.columnCount() ? "'" + table.columns().get(i).name() + "' (" + i + ")" : "#" + i;
    }

    private int[] computeOffsets() {
        int[] out = new int[arity];
        BatchCursor c = new BatchCursor(buf, valuesPos, end);
        for (int i = 0; i < arity; i++) {
            if (isNull(i) || isAbsent(i)) {
                out[i] = -1;
                continue;
            }
            out[i] = c.position();
            int tag = c.u8();
            ValueType t = ValueType.fromCode(tag);
            if (t == null) {
                throw BatchCursor.corrupt("unknown value tag " + tag + " in column " + i);
            }
            switch (t) {
                case INT:
                case UINT:
                case FLOAT:
                case TIME:
                    c.skip(8);
                    break;
                case DATE:
                    c.skip(4);
                    break;
                case DATETIME:
                    c.skip(11);
                    break;
                case DECIMAL:
                case STRING:
                case BYTES:
                    c.skip(c.length());
                    break;
                default:
                    throw new AssertionError(t);
            }
        }
        return out;
    }

    private String utf8(int lengthPos) {
        int n = buf.getInt(lengthPos);
        byte[] tmp = new byte[n];
        buf.get(lengthPos + 4, tmp);
        return new String(tmp, StandardCharsets.UTF_8);
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        }
        return sb.toString();
    }
}
