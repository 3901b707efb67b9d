/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.BatchWriter;
import io.vitesscdc.nativeio.BatchWriter.Payload;
import io.vitesscdc.nativeio.ChangeKind;
import io.vitesscdc.nativeio.ColumnType;
import io.vitesscdc.nativeio.Position;

import java.util.List;

/**
 * Writes batches in the native batch format (docs/batch-format.md, through {@link BatchWriter}) and decodes them with the real
 * {@link io.vitesscdc.nativeio.BatchDecoder}, for tests that need records without a server: a table
 * {@code ks.t (id BIGINT PK)} per shard or any table shape, records, marks, heartbeats.
 */
public final class NativeBatches {

    private final BatchWriter writer = new BatchWriter();

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
        BatchWriter.Column[] described = new BatchWriter.Column[columns.length];
        for (int i = 0; i < columns.length; i++) {
            Col c = columns[i];
            described[i] = new BatchWriter.Column(
                    c.name(), ColumnType.fromCode(c.typeCode()), c.mysqlType(), c.length(), c.decimals());
        }
        writer.table(tableId, "ks", shard, table, described);
        return this;
    }

    /**
     * A record with values encoded by their Java type: Long = INT, BigInteger = UINT, Double =
     * FLOAT, BigDecimal = DECIMAL, String = STRING, byte[] = BYTES, LocalDate = DATE,
     * LocalDateTime = DATETIME, Duration = TIME, null = NULL.
     */
    public NativeBatches row(int tableId, int kind, boolean snapshot, long commitTs, Object... values) {
        writer.record(tableId, ChangeKind.values()[kind], snapshot, commitTs, values);
        return this;
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
        writer.entry(tag, p);
        return this;
    }

    /** The batch so far, decoded (the decoder keeps table ids across batches); starts a new one. */
    public Batch build() {
        return writer.build(0);
    }
}
