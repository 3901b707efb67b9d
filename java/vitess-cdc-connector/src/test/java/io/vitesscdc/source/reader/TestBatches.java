package io.vitesscdc.source.reader;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.BatchDecoder;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes batches in the native batch format (docs/batch-format.md) for tests of the fetch-side
 * bookkeeping: a table {@code ks.t (id BIGINT PK)} per shard, records, marks, heartbeats.
 */
final class TestBatches {

    private final BatchDecoder decoder = new BatchDecoder();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private int entries;
    private int flags;

    /** Declares table {@code ks.t} of {@code shard} under {@code tableId}. */
    TestBatches table(int tableId, String shard) {
        Payload p = new Payload();
        p.u32(tableId).u32(1).str("ks").str(shard).str("t").u16(1);
        p.str("id").u8(1).u8(1).i32(265).u32(63).u32(20).u32(0).str("bigint");
        return entry(1, p);
    }

    TestBatches record(int tableId, int kind, boolean snapshot, long commitTs, long id) {
        Payload p = new Payload();
        p.u32(tableId).u8(kind).u8(snapshot ? 1 : 0).i64(commitTs).u16(1).u8(0);
        p.u8(1).i64(id);
        return entry(2, p);
    }

    TestBatches mark(String shard, String gtid) {
        Payload p = new Payload();
        p.str("ks").str(shard).u8(1).str(position(shard, gtid));
        return entry(3, p);
    }

    TestBatches heartbeat(long ts) {
        return entry(4, new Payload().i64(ts));
    }

    TestBatches shardCopyCompleted(String shard) {
        return entry(5, new Payload().str("ks").str(shard));
    }

    static String position(String shard, String gtid) {
        return "{\"keyspace\":\"ks\",\"shard\":\"" + shard + "\",\"gtid\":\"" + gtid + "\"}";
    }

    private TestBatches entry(int tag, Payload p) {
        byte[] bytes = p.out.toByteArray();
        body.write(tag);
        body.writeBytes(le(4).putInt(bytes.length).array());
        body.writeBytes(bytes);
        entries++;
        return this;
    }

    /** The batch so far, decoded (the decoder keeps table ids across batches); starts a new one. */
    Batch build() {
        byte[] b = body.toByteArray();
        ByteBuffer buf = ByteBuffer.allocateDirect(16 + b.length).order(ByteOrder.LITTLE_ENDIAN);
        buf.put("VCDB".getBytes(StandardCharsets.US_ASCII)).putShort((short) 1).putShort((short) flags)
                .putInt(entries).putInt(b.length).put(b);
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
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            u32(b.length);
            out.writeBytes(b);
            return this;
        }
    }
}
