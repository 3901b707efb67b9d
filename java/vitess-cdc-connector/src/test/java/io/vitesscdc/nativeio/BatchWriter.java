/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;

/**
 * Writes batches in the native batch format (docs/batch-format.md) on the Java side, decoded by
 * the real {@link BatchDecoder}: for tests of records that do not come from a server. The core's
 * encoder ({@code rust/core/src/handoff/batch.rs}) is the one that matters; this one writes the
 * same layout for the entries it knows.
 */
public final class BatchWriter {

    private final BatchDecoder decoder = new BatchDecoder();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int entries;

    /** A column of a table entry: name, {@link ColumnType}, MySQL type, length or precision, decimals. */
    public record Column(String name, ColumnType type, String mysqlType, long length, long decimals) {}

    /**
     * Declares {@code keyspace.table} of {@code shard} under {@code tableId}; the first column is
     * its primary key, the others are nullable.
     */
    public BatchWriter table(int tableId, String keyspace, String shard, String table, Column... columns) {
        Payload p = new Payload();
        p.u32(tableId).u32(1).str(keyspace).str(shard).str(table).u16(columns.length);
        for (int i = 0; i < columns.length; i++) {
            Column c = columns[i];
            p.str(c.name())
                    .u8(c.type().code())
                    .u8(i == 0 ? 1 : 2)
                    .i32(0)
                    .u32(63)
                    .u32(c.length())
                    .u32(c.decimals())
                    .str(c.mysqlType());
        }
        return entry(BatchDecoder.TAG_TABLE, p);
    }

    /**
     * A record with values encoded by their Java type: Long = INT, BigInteger = UINT, Double =
     * FLOAT, BigDecimal = DECIMAL, String = STRING, byte[] = BYTES, LocalDate = DATE,
     * LocalDateTime = DATETIME, Duration = TIME, null = NULL.
     */
    public BatchWriter record(int tableId, ChangeKind kind, boolean snapshot, long commitTs, Object... values) {
        Payload p = new Payload();
        p.u32(tableId).u8(kind.toByteValue()).u8(snapshot ? 1 : 0).i64(commitTs).u16(values.length);
        byte[] nulls = new byte[(values.length + 7) / 8];
        for (int i = 0; i < values.length; i++) {
            if (values[i] == null) {
                nulls[i / 8] |= (byte) (1 << (i % 8));
            }
        }
        for (byte b : nulls) {
            p.u8(b & 0xff);
        }
        for (Object v : values) {
            writeValue(p, v);
        }
        return entry(BatchDecoder.TAG_RECORD, p);
    }

    private static void writeValue(Payload p, Object v) {
        if (v == null) {
            return;
        }
        if (v instanceof Long l) {
            p.u8(1).i64(l);
        } else if (v instanceof BigInteger u) {
            p.u8(2).i64(u.longValue());
        } else if (v instanceof Double d) {
            p.u8(3).i64(Double.doubleToLongBits(d));
        } else if (v instanceof BigDecimal d) {
            p.u8(4).str(d.toPlainString());
        } else if (v instanceof String s) {
            p.u8(5).str(s);
        } else if (v instanceof byte[] b) {
            p.u8(6).bytes(b);
        } else if (v instanceof LocalDate d) {
            p.u8(7).u16(d.getYear()).u8(d.getMonthValue()).u8(d.getDayOfMonth());
        } else if (v instanceof LocalDateTime t) {
            p.u8(8)
                    .u16(t.getYear())
                    .u8(t.getMonthValue())
                    .u8(t.getDayOfMonth())
                    .u8(t.getHour())
                    .u8(t.getMinute())
                    .u8(t.getSecond())
                    .u32(t.getNano() / 1000);
        } else if (v instanceof Duration t) {
            p.u8(9).i64(t.toNanos() / 1000);
        } else {
            throw new IllegalArgumentException(
                    "no batch encoding for a " + v.getClass().getName());
        }
    }

    /** An entry of any kind: {@code tag} and its payload. */
    public BatchWriter entry(int tag, Payload payload) {
        byte[] bytes = payload.out.toByteArray();
        body.write(tag);
        body.writeBytes(le(4).putInt(bytes.length).array());
        body.writeBytes(bytes);
        entries++;
        return this;
    }

    /**
     * The batch so far with header {@code flags}, decoded (the decoder keeps table ids across
     * batches); the next entries start a new batch.
     */
    public Batch build(int flags) {
        byte[] b = body.toByteArray();
        ByteBuffer buf =
                ByteBuffer.allocateDirect(BatchDecoder.HEADER_LENGTH + b.length).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(BatchDecoder.MAGIC)
                .putShort((short) BatchDecoder.VERSION)
                .putShort((short) flags)
                .putInt(entries)
                .putInt(b.length)
                .put(b);
        body.reset();
        entries = 0;
        return decoder.decode(buf, BatchDecoder.HEADER_LENGTH + b.length);
    }

    private static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** An entry's payload, written field by field in the format's little-endian types. */
    public static final class Payload {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        public Payload u8(int v) {
            out.write(v);
            return this;
        }

        public Payload u16(int v) {
            out.writeBytes(le(2).putShort((short) v).array());
            return this;
        }

        public Payload u32(long v) {
            out.writeBytes(le(4).putInt((int) v).array());
            return this;
        }

        public Payload i32(int v) {
            return u32(v);
        }

        public Payload i64(long v) {
            out.writeBytes(le(8).putLong(v).array());
            return this;
        }

        public Payload str(String s) {
            return bytes(s.getBytes(StandardCharsets.UTF_8));
        }

        public Payload bytes(byte[] b) {
            u32(b.length);
            out.writeBytes(b);
            return this;
        }
    }
}
