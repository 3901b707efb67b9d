/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes batches of the native batch format (docs/batch-format.md) without parsing any text.
 *
 * <p>Stateful, one per stream: table descriptors arrive once (and again when a table changes) and
 * later batches refer to them by id, so the decoder must see every batch of its stream, in order.
 *
 * <p>Decoding walks the entry framing once, registers table descriptors, and turns markers into
 * small objects; record values are not decoded here but on access through {@link VitessRecord}.
 */
public final class BatchDecoder {

    /** {@code "VCDB"} read as a little-endian int. */
    public static final int MAGIC = 0x42444356;

    /** The only format version this decoder reads. */
    public static final int VERSION = 2;

    public static final int HEADER_LENGTH = 16;

    static final int TAG_TABLE = 1;
    static final int TAG_RECORD = 2;
    static final int TAG_POSITION = 3;
    static final int TAG_HEARTBEAT = 4;
    static final int TAG_SHARD_COPY_COMPLETED = 5;
    static final int TAG_COPY_COMPLETED = 6;
    static final int TAG_DDL = 7;
    static final int TAG_JOURNAL = 8;
    static final int TAG_END = 9;

    /** Fact bit of a {@code POSITION} payload: the shard's copy phase finished. */
    static final int POSITION_FACT_COPY_COMPLETED = 1;

    private static final int COLUMN_FLAG_PRIMARY_KEY = 1;
    private static final int COLUMN_FLAG_NULLABLE = 2;

    /** Dense ids (the encoder counts up from 1) index an array; anything beyond goes to a map. */
    private static final int MAX_DENSE_TABLE_ID = 1 << 16;

    private TableDescriptor[] tables = new TableDescriptor[16];

    /**
     * A piece of the batch being decoded, copied to the heap: core-written rows are read after
     * the native buffer is polled into again, so they point into such a copy, one per run of
     * rows ({@link #HEAP_PIECE_BYTES}), not one per row. {@code heapStart} is where the piece
     * starts in the batch.
     */
    private byte[] heapPiece;

    private int heapStart;
    private int batchLength;

    /**
     * Bytes of the batch one heap piece copies (a row longer than this gets a piece of its own):
     * well below G1's humongous threshold (half a region, 512 KiB with a 1 GiB heap), so a piece
     * is an ordinary young object, where a copy of a whole 1 MiB batch was allocated in the old
     * generation every poll.
     */
    static final int HEAP_PIECE_BYTES = 128 << 10;

    private final Map<Integer, TableDescriptor> sparseTables = new HashMap<>();

    /**
     * Decodes the {@code length} bytes at the start of {@code buffer} (its position and limit are
     * ignored and left unchanged).
     *
     * @throws FatalException if the bytes are not a well-formed batch of a supported version
     */
    public Batch decode(ByteBuffer buffer, int length) {
        if (length < HEADER_LENGTH || length > buffer.capacity()) {
            throw BatchCursor.corrupt("length " + length + " (buffer capacity " + buffer.capacity() + ")");
        }
        // Absolute reads are checked against the limit: read the full capacity, whatever the caller set.
        ByteBuffer buf = buffer.duplicate().clear().order(ByteOrder.LITTLE_ENDIAN);
        int magic = buf.getInt(0);
        if (magic != MAGIC) {
            throw BatchCursor.corrupt(String.format("bad magic 0x%08x", magic));
        }
        int version = buf.getShort(4) & 0xffff;
        if (version != VERSION) {
            throw new FatalException("The native library writes batch format version " + version
                    + " but this connector reads version " + VERSION
                    + ": the jar's classes and its native library come from different builds");
        }
        int flags = buf.getShort(6) & 0xffff;
        long entryCount = buf.getInt(8) & 0xffffffffL;
        long bodyLength = buf.getInt(12) & 0xffffffffL;
        if (bodyLength != length - HEADER_LENGTH) {
            throw BatchCursor.corrupt("header says " + bodyLength + " body bytes, got " + (length - HEADER_LENGTH));
        }

        List<BatchEntry> entries = new ArrayList<>((int) Math.min(entryCount, 1 << 16));
        heapPiece = null;
        batchLength = length;
        int pos = HEADER_LENGTH;
        BatchCursor frame = new BatchCursor(buf, pos, length);
        BatchCursor entry = new BatchCursor(buf, pos, length);
        while (pos < length) {
            frame.at(pos, length);
            int tag = frame.u8();
            int entryLength = frame.length();
            int start = frame.position();
            int end = start + entryLength;
            entries.add(decodeEntry(buf, entry.at(start, end), tag, start, end));
            pos = end;
        }
        if (entries.size() != entryCount) {
            throw BatchCursor.corrupt("header says " + entryCount + " entries, found " + entries.size());
        }
        return new Batch(version, flags, entries, length);
    }

    /** The descriptor registered under {@code id}, or {@code null}. */
    public TableDescriptor table(int id) {
        if (id >= 0 && id < tables.length) {
            return tables[id];
        }
        return id >= MAX_DENSE_TABLE_ID ? sparseTables.get(id) : null;
    }

    /** The entry {@code tag} at {@code [start, end)}, read with {@code c} (which is at its start). */
    private BatchEntry decodeEntry(ByteBuffer buf, BatchCursor c, int tag, int start, int end) {
        switch (tag) {
            case TAG_TABLE:
                return register(decodeTable(c));
            case TAG_RECORD:
                return decodeRecord(buf, c, end);
            case TAG_POSITION:
                return decodeMark(c);
            case TAG_HEARTBEAT:
                return new BatchEntry.Heartbeat(c.i64());
            case TAG_SHARD_COPY_COMPLETED:
                return new BatchEntry.ShardCopyCompleted(c.str(), c.str());
            case TAG_COPY_COMPLETED:
                return new BatchEntry.CopyCompleted();
            case TAG_DDL:
                return new BatchEntry.Ddl(c.str(), c.str(), c.i64(), c.str());
            case TAG_JOURNAL:
                return decodeJournal(c);
            case TAG_END:
                return new BatchEntry.EndOfStream();
            default:
                return new BatchEntry.Unknown(tag, end - start);
        }
    }

    private static TableDescriptor decodeTable(BatchCursor c) {
        long id = c.u32();
        long version = c.u32();
        String keyspace = c.str();
        String shard = c.str();
        String table = c.str();
        int n = c.u16();
        List<ColumnDescriptor> columns = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String name = c.str();
            ColumnType type = ColumnType.fromCode(c.u8());
            int flags = c.u8();
            int vitessType = c.i32();
            int charset = c.i32();
            long length = c.u32();
            long decimals = c.u32();
            String mysqlType = c.str();
            columns.add(new ColumnDescriptor(
                    name,
                    type,
                    mysqlType,
                    vitessType,
                    charset,
                    length,
                    decimals,
                    (flags & COLUMN_FLAG_NULLABLE) != 0,
                    (flags & COLUMN_FLAG_PRIMARY_KEY) != 0));
        }
        if (id > Integer.MAX_VALUE - 1) {
            throw BatchCursor.corrupt("table id " + id);
        }
        return new TableDescriptor((int) id, version, keyspace, shard, table, columns);
    }

    private TableDescriptor register(TableDescriptor t) {
        if (t.id() >= MAX_DENSE_TABLE_ID) {
            sparseTables.put(t.id(), t);
            return t;
        }
        if (t.id() >= tables.length) {
            tables = Arrays.copyOf(tables, Math.min(MAX_DENSE_TABLE_ID, Math.max(tables.length * 2, t.id() + 1)));
        }
        tables[t.id()] = t;
        return t;
    }

    private VitessRecord decodeRecord(ByteBuffer buf, BatchCursor c, int end) {
        int tableId = c.i32();
        TableDescriptor table = table(tableId);
        if (table == null) {
            throw BatchCursor.corrupt(
                    "record of unknown table id " + (tableId & 0xffffffffL) + " (was a batch of this stream skipped?)");
        }
        ChangeKind kind = ChangeKind.fromCode(c.u8());
        int flags = c.u8();
        long commitTs = c.i64();
        int arity = c.u16();
        if ((flags & (VitessRecord.FLAG_FLINK_ROW | VitessRecord.FLAG_JSON_ROW)) != 0) {
            int rowLength = c.length();
            int rowOffset = c.position();
            c.skip(rowLength);
            if (heapPiece == null || rowOffset + rowLength > heapStart + heapPiece.length) {
                heapStart = rowOffset;
                heapPiece = new byte[Math.max(rowLength, Math.min(HEAP_PIECE_BYTES, batchLength - rowOffset))];
                buf.get(heapStart, heapPiece);
            }
            return new VitessRecord(
                    buf,
                    table,
                    kind,
                    flags,
                    commitTs,
                    arity,
                    -1,
                    rowOffset,
                    end,
                    heapPiece,
                    rowOffset - heapStart,
                    rowLength);
        }
        int bitmapPos = c.position();
        int bitmapLength = (arity + 7) >>> 3;
        boolean hasAbsent = (flags & VitessRecord.FLAG_HAS_ABSENT) != 0;
        c.skip(hasAbsent ? 2 * bitmapLength : bitmapLength);
        return new VitessRecord(buf, table, kind, flags, commitTs, arity, bitmapPos, c.position(), end);
    }

    /** A {@code POSITION} entry: a position, then (when the core could count it) its transactions. */
    private static BatchEntry.PositionMark decodeMark(BatchCursor c) {
        String keyspace = c.str();
        String shard = c.str();
        int facts = c.u8();
        // The bytes stay unread: the core owns their meaning, the facts say what Java needs.
        byte[] bytes = c.bytes();
        // Appended within version 2: the transactions in the position's GTID set (the base of
        // the records' order rank). A mark without it leaves the count to a native call.
        Position position = c.remaining() >= 8 ? Position.ofMark(bytes, facts, c.i64()) : Position.ofMark(bytes, facts);
        return new BatchEntry.PositionMark(keyspace, shard, (facts & POSITION_FACT_COPY_COMPLETED) != 0, position);
    }

    /** A position inside another entry (a journal's new shards). */
    private static BatchEntry.PositionMark decodePosition(BatchCursor c) {
        String keyspace = c.str();
        String shard = c.str();
        int facts = c.u8();
        return new BatchEntry.PositionMark(
                keyspace, shard, (facts & POSITION_FACT_COPY_COMPLETED) != 0, Position.ofMark(c.bytes(), facts));
    }

    private static BatchEntry.Journal decodeJournal(BatchCursor c) {
        int ended = c.u16();
        List<BatchEntry.ShardRef> endedShards = new ArrayList<>(ended);
        for (int i = 0; i < ended; i++) {
            endedShards.add(new BatchEntry.ShardRef(c.str(), c.str()));
        }
        int started = c.u16();
        List<BatchEntry.PositionMark> startedShards = new ArrayList<>(started);
        for (int i = 0; i < started; i++) {
            startedShards.add(decodePosition(c));
        }
        BatchEntry.ShardRef shard = null;
        long id = 0;
        if (c.remaining() > 0) {
            // Appended within format version 1 (kept in 2): the reporting shard and the journal id.
            shard = new BatchEntry.ShardRef(c.str(), c.str());
            id = c.i64();
        }
        return new BatchEntry.Journal(List.copyOf(endedShards), List.copyOf(startedShards), shard, id);
    }
}
