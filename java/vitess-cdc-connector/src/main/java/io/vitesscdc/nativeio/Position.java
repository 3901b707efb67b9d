/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.io.Serializable;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One shard's resumable position, as the native core's versioned binary form (docs/positions.md,
 * "Binary form"). Java never reads these bytes: it stores them (splits, checkpoints) and hands
 * them back to {@link NativeStream#open(String, java.util.List)}. Rust is the one owner of what a
 * position means (docs/architecture.md, invariant 6).
 *
 * <p>What Java acts on comes as typed facts: a batch mark carries them beside the bytes
 * ({@link BatchEntry.PositionMark#copyCompleted()}); for a position from elsewhere (a plan, a
 * restored split) {@link #copyCompleted()} asks the core once. {@link #toJson()} renders the
 * position for people and logs; nothing in the connector decides on that text.
 */
public final class Position implements Serializable {

    private static final long serialVersionUID = 1L;

    private final byte[] bytes;
    /** Rendering and facts, asked of the core at most once per instance. */
    private transient volatile String json;

    private transient volatile int facts = -1;

    private transient volatile CopyTables copyTables;

    /** Transactions in the position's GTID set (-1: not countable); {@link #UNKNOWN} until asked. */
    private transient volatile long transactionCount = UNKNOWN;

    private static final long UNKNOWN = Long.MIN_VALUE;

    private Position(byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * A deserialized position (in a source event between reader and enumerator) starts with its
     * caches unknown: Java serialization leaves transient fields at 0, which {@link #copyCompleted}
     * and {@link #transactionCount} would take for answers.
     */
    private Object readResolve() {
        return new Position(bytes);
    }

    /** A position from its bytes (copied), as a mark, a plan or a checkpoint holds them. */
    public static Position of(byte[] bytes) {
        if (bytes == null) {
            throw new NullPointerException("position bytes");
        }
        return new Position(bytes.clone());
    }

    /** A position with the facts its mark carried (no native call needed for them later). */
    static Position ofMark(byte[] bytes, int facts) {
        Position p = new Position(bytes);
        p.facts = facts;
        return p;
    }

    /** A position with the facts and the transaction count its mark carried. */
    static Position ofMark(byte[] bytes, int facts, long transactionCount) {
        Position p = ofMark(bytes, facts);
        p.transactionCount = transactionCount;
        return p;
    }

    /**
     * The position that a checkpoint of an older connector stored as the core's JSON text, as
     * bytes; {@code keyspace} and {@code shard} are where it was stored (they fill in fields an
     * old entry lacks).
     *
     * @throws ConfigurationException (code {@code INVALID_POSITION}) if it is not a position
     */
    public static Position fromSavedJson(String keyspace, String shard, String json) {
        NativeLibrary.load();
        return new Position(NativeStream.nativePositionFromJson(keyspace, shard, json));
    }

    /** The bytes (a copy). */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** The number of bytes, without copying them. */
    public int length() {
        return bytes.length;
    }

    byte[] bytesNoCopy() {
        return bytes;
    }

    /** True once the shard's copy phase finished (or it never needed one). */
    public boolean copyCompleted() {
        int f = facts;
        if (f < 0) {
            NativeLibrary.load();
            f = NativeStream.nativePositionFacts(bytes);
            facts = f;
        }
        return (f & BatchDecoder.POSITION_FACT_COPY_COMPLETED) != 0;
    }

    /**
     * The number of transactions in the position's GTID set (all server UUIDs together): it grows
     * by one with every transaction the shard commits, in binlog order, and is the same for every
     * reader of the shard, which is what makes it the base of a record's order rank. 0 for an
     * empty GTID set (a copy that has not started); -1 when the position is not a MySQL GTID set
     * (MariaDB or file positions), which have no count. Asked of the core at most once per
     * instance, and never for a mark of a MySQL shard (the mark carries it).
     *
     * @throws ConfigurationException (code {@code INVALID_POSITION}) if the bytes are corrupt
     */
    public long transactionCount() {
        long n = transactionCount;
        if (n == UNKNOWN) {
            NativeLibrary.load();
            n = NativeStream.nativePositionTransactionCount(bytes);
            transactionCount = n;
        }
        return n;
    }

    /**
     * The copy progress this position records, for metrics: the tables the shard's copy has
     * started (in progress, or already copied while the copy is unfinished) and those it has not.
     * Both are empty once the copy is done. Asked of the core at most once per instance.
     *
     * @throws ConfigurationException (code {@code INVALID_POSITION}) if the bytes are corrupt
     */
    public CopyTables copyTables() {
        CopyTables t = copyTables;
        if (t == null) {
            NativeLibrary.load();
            t = CopyTables.parse(NativeStream.nativePositionCopyTables(bytes));
            copyTables = t;
        }
        return t;
    }

    /**
     * The position as JSON ({@code {"keyspace","shard","gtid","table_p_ks","tables_to_copy",
     * "copy_completed"}}, what {@code vstream positions} prints): for people and logs only.
     *
     * @throws ConfigurationException (code {@code INVALID_POSITION}) if the bytes are corrupt
     */
    public String toJson() {
        String j = json;
        if (j == null) {
            NativeLibrary.load();
            j = NativeStream.nativePositionJson(bytes);
            json = j;
        }
        return j;
    }

    /**
     * This position, a new shard's start from a reshard journal, with the chunked snapshots it goes
     * on with: those the shards that ended at the journal were capturing, from the cursors their
     * final positions carry (each table from the lowest cursor of the ended shards whose key range
     * overlaps this one; docs/snapshots.md, "Reshards"). Ended shards of other key ranges add
     * nothing; without captures this position comes back unchanged.
     *
     * @throws ConfigurationException (code {@code INVALID_POSITION}) if a position is corrupt
     */
    public Position withCapturesCarriedFrom(java.util.Collection<Position> ended) {
        byte[][] endedBytes = ended.stream().map(p -> p.bytes).toArray(byte[][]::new);
        NativeLibrary.load();
        return Position.of(NativeStream.nativeCarryCaptures(bytes, endedBytes));
    }

    @Override
    public boolean equals(Object o) {
        return this == o || (o instanceof Position && Arrays.equals(bytes, ((Position) o).bytes));
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** The JSON rendering; the bytes in hex when the native library cannot render them. */
    @Override
    public String toString() {
        try {
            return toJson();
        } catch (RuntimeException | LinkageError e) {
            return "Position{" + HexFormat.of().formatHex(bytes) + "}";
        }
    }
}
