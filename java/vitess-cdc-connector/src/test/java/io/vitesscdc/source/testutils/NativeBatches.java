/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.BatchDecoder;
import io.vitesscdc.nativeio.Position;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes batches in the native batch format (docs/batch-format.md) and decodes them with the real
 * {@link BatchDecoder}, for tests that need records without a server: a table
 * {@code ks.t (id BIGINT PK)} per shard or any table shape, records, marks, heartbeats.
 */
public final class NativeBatches {

    private final BatchDecoder decoder = new BatchDecoder();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int entries;
    private int flags;

    /** Declares table {@code ks.t} of {@code shard} under {@code tableId}. */
    public NativeBatches table(int tableId, String shard) {
        Payload p = new Payload();
        p.u32(tableId).u32(1).str("ks").str(shard).str("t").u16(1);
        p.str("id").u8(1).u8(1).i32(265).u32(63).u32(20).u32(0).str("bigint");
        return entry(1, p);
    }

    /** A column: name, {@code ColumnType} code, MySQL type, length/precision, decimals. */
    public record Col(String name, int typeCode, String mysqlType, long length, long decimals) {}

    /** Declares {@code ks.<table>} of {@code shard} with these columns (the first is the PK). */
    public NativeBatches table(int tableId, String shard, String table, Col... columns) {
        Payload p = new Payload();
        p.u32(tableId).u32(1).str("ks").str(shard).str(table).u16(columns.length);
        for (int i = 0; i < columns.length; i++) {
            Col c = columns[i];
            p.str(c.name())
                    .u8(c.typeCode())
                    .u8(i == 0 ? 1 : 2)
                    .i32(0)
                    .u32(63)
                    .u32(c.length())
                    .u32(c.decimals())
                    .str(c.mysqlType());
        }
        return entry(1, p);
    }

    /**
     * A record with values encoded by their Java type: Long = INT, BigInteger = UINT, Double =
     * FLOAT, BigDecimal = DECIMAL, String = STRING, byte[] = BYTES, LocalDate = DATE,
     * LocalDateTime = DATETIME, Duration = TIME, null = NULL.
     */
    public NativeBatches row(int tableId, int kind, boolean snapshot, long commitTs, Object... values) {
        Payload p = new Payload();
        p.u32(tableId).u8(kind).u8(snapshot ? 1 : 0).i64(commitTs).u16(values.length);
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
            if (v == null) {
                continue;
            } else if (v instanceof Long) {
                p.u8(1).i64((Long) v);
            } else if (v instanceof java.math.BigInteger) {
                p.u8(2).i64(((java.math.BigInteger) v).longValue());
            } else if (v instanceof Double) {
                p.u8(3).i64(Double.doubleToLongBits((Double) v));
            } else if (v instanceof java.math.BigDecimal) {
                p.u8(4).str(((java.math.BigDecimal) v).toPlainString());
            } else if (v instanceof String) {
                p.u8(5).str((String) v);
            } else if (v instanceof byte[]) {
                byte[] b = (byte[]) v;
                p.u8(6).u32(b.length);
                p.out.writeBytes(b);
            } else if (v instanceof java.time.LocalDate) {
                java.time.LocalDate d = (java.time.LocalDate) v;
                p.u8(7).u16(d.getYear()).u8(d.getMonthValue()).u8(d.getDayOfMonth());
            } else if (v instanceof java.time.LocalDateTime) {
                java.time.LocalDateTime t = (java.time.LocalDateTime) v;
                p.u8(8)
                        .u16(t.getYear())
                        .u8(t.getMonthValue())
                        .u8(t.getDayOfMonth())
                        .u8(t.getHour())
                        .u8(t.getMinute())
                        .u8(t.getSecond())
                        .u32(t.getNano() / 1000);
            } else if (v instanceof java.time.Duration) {
                p.u8(9).i64(((java.time.Duration) v).toNanos() / 1000);
            } else {
                throw new IllegalArgumentException("no encoding for " + v.getClass());
            }
        }
        return entry(2, p);
    }

    public NativeBatches record(int tableId, int kind, boolean snapshot, long commitTs, long id) {
        Payload p = new Payload();
        p.u32(tableId).u8(kind).u8(snapshot ? 1 : 0).i64(commitTs).u16(1).u8(0);
        p.u8(1).i64(id);
        return entry(2, p);
    }

    public NativeBatches mark(String shard, String gtid) {
        Payload p = new Payload();
        Position position = position(shard, gtid);
        p.str("ks").str(shard).u8(position.copyCompleted() ? 1 : 0).bytes(position.toBytes());
        return entry(3, p);
    }

    /** A mark that carries the transaction count of its GTID set, as the core writes marks. */
    public NativeBatches mark(String shard, String gtid, long transactionCount) {
        Payload p = new Payload();
        Position position = position(shard, gtid);
        p.str("ks").str(shard).u8(position.copyCompleted() ? 1 : 0).bytes(position.toBytes());
        p.i64(transactionCount);
        return entry(3, p);
    }

    public NativeBatches heartbeat(long ts) {
        return entry(4, new Payload().i64(ts));
    }

    public NativeBatches shardCopyCompleted(String shard) {
        return entry(5, new Payload().str("ks").str(shard));
    }

    /**
     * A reshard journal reached by {@code shard}'s stream: {@code participants} end, {@code started}
     * shards begin at gtid {@code <shard>@0}.
     */
    public NativeBatches journal(String shard, long id, List<String> participants, List<String> started) {
        Payload p = new Payload();
        p.u16(participants.size());
        for (String s : participants) {
            p.str("ks").str(s);
        }
        p.u16(started.size());
        for (String s : started) {
            Position position = position(s, s + "@0");
            p.str("ks").str(s).u8(position.copyCompleted() ? 1 : 0).bytes(position.toBytes());
        }
        p.str("ks").str(shard).i64(id);
        return entry(8, p);
    }

    /** A position of keyspace {@code ks}, in the core's bytes. */
    public static Position position(String shard, String gtid) {
        return RenderedPositions.start("ks", shard, gtid);
    }

    private NativeBatches entry(int tag, Payload p) {
        byte[] bytes = p.out.toByteArray();
        body.write(tag);
        body.writeBytes(le(4).putInt(bytes.length).array());
        body.writeBytes(bytes);
        entries++;
        return this;
    }

    /** The batch so far, decoded (the decoder keeps table ids across batches); starts a new one. */
    public Batch build() {
        byte[] b = body.toByteArray();
        ByteBuffer buf = ByteBuffer.allocateDirect(16 + b.length).order(ByteOrder.LITTLE_ENDIAN);
        buf.put("VCDB".getBytes(StandardCharsets.US_ASCII))
                .putShort((short) 2)
                .putShort((short) flags)
                .putInt(entries)
                .putInt(b.length)
                .put(b);
        body.reset();
        entries = 0;
        flags = 0;
        return decoder.decode(buf, 16 + b.length);
    }

    private static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static final class Payload {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Payload u8(int v) {
            out.write(v);
            return this;
        }

        Payload u16(int v) {
            out.writeBytes(le(2).putShort((short) v).array());
            return this;
        }

        Payload u32(long v) {
            out.writeBytes(le(4).putInt((int) v).array());
            return this;
        }

        Payload i32(int v) {
            return u32(v);
        }

        Payload i64(long v) {
            out.writeBytes(le(8).putLong(v).array());
            return this;
        }

        Payload str(String s) {
            return bytes(s.getBytes(StandardCharsets.UTF_8));
        }

        Payload bytes(byte[] b) {
            u32(b.length);
            out.writeBytes(b);
            return this;
        }
    }
}
