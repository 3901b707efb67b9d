/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.split;

import io.vitesscdc.nativeio.Position;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceSplit;

import java.util.List;
import java.util.Objects;

/**
 * One shard of a keyspace, with where to resume it.
 *
 * <p>{@link #position()} is the shard's position as the native core wrote it in its last mark
 * (GTID set plus copy progress: tables in progress with their last primary key, tables still to
 * copy, copy completed), in the core's binary form, stored unread (docs/architecture.md, invariant 6).
 * {@link #recordsSinceMark()} counts the change records already emitted after that mark; on restore exactly that many are skipped, so a
 * checkpoint taken inside a transaction neither loses nor repeats a record (docs/architecture.md, invariant 1).
 *
 * <p>{@link #epoch()} is the split's order epoch: 0 for the shards a job starts with, and for the
 * new shards of a reshard one more than the highest epoch of the shards that ended at its journal
 * (the enumerator assigns it once every participant ended, so every reader sees the same value).
 * Records carry it with their rank, so a downstream can restore one key's order across reshards
 * by comparing {@code (epoch, rank)} (docs/positions.md, "Order across reshards").
 *
 * <p>A split whose shard reached a reshard journal is <em>ended</em> ({@link #endedBy()} is set):
 * it is no longer read; the reader keeps it in its state until the enumerator has taken note of
 * the journal (see {@code VitessSourceReader}).
 */
@Internal
public final class VitessSplit implements SourceSplit {

    private final String keyspace;
    private final String shard;
    private final Position position;
    private final long recordsSinceMark;
    private final ReshardJournal endedBy;
    private final long epoch;
    private final List<String> tables;

    public VitessSplit(String keyspace, String shard, Position position, long recordsSinceMark) {
        this(keyspace, shard, position, recordsSinceMark, null, 0);
    }

    public VitessSplit(
            String keyspace, String shard, Position position, long recordsSinceMark, ReshardJournal endedBy) {
        this(keyspace, shard, position, recordsSinceMark, endedBy, 0);
    }

    public VitessSplit(
            String keyspace,
            String shard,
            Position position,
            long recordsSinceMark,
            ReshardJournal endedBy,
            long epoch) {
        this(keyspace, shard, position, recordsSinceMark, endedBy, epoch, List.of());
    }

    public VitessSplit(
            String keyspace,
            String shard,
            Position position,
            long recordsSinceMark,
            ReshardJournal endedBy,
            long epoch,
            List<String> tables) {
        this.tables = List.copyOf(Objects.requireNonNull(tables, "tables"));
        this.keyspace = Objects.requireNonNull(keyspace, "keyspace");
        this.shard = Objects.requireNonNull(shard, "shard");
        this.position = Objects.requireNonNull(position, "position");
        if (recordsSinceMark < 0) {
            throw new IllegalArgumentException("recordsSinceMark must be >= 0, was " + recordsSinceMark);
        }
        this.recordsSinceMark = recordsSinceMark;
        this.endedBy = endedBy;
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
        }
        this.epoch = epoch;
    }

    /** A split of a new shard of a reshard, starting at {@code position} in {@code epoch}. */
    public static VitessSplit startedByReshard(String keyspace, String shard, Position position, long epoch) {
        return new VitessSplit(keyspace, shard, position, 0, null, epoch);
    }

    /** The split id of a shard: {@code keyspace/shard}, e.g. {@code customer/-80}. */
    public static String splitId(String keyspace, String shard) {
        return keyspace + "/" + shard;
    }

    @Override
    public String splitId() {
        return splitId(keyspace, shard);
    }

    public String keyspace() {
        return keyspace;
    }

    public String shard() {
        return shard;
    }

    /** The shard position to resume from (opaque; {@link Position#toJson()} renders it). */
    public Position position() {
        return position;
    }

    /** Change records emitted after {@link #position()}; skipped on restore. */
    public long recordsSinceMark() {
        return recordsSinceMark;
    }

    /** The reshard journal this shard ended at, or {@code null} while the shard is read. */
    public ReshardJournal endedBy() {
        return endedBy;
    }

    /** The order epoch of the shard's records (see the class comment). */
    public long epoch() {
        return epoch;
    }

    /**
     * The tables (by name) the split's position has seen: those its job selected when it wrote the
     * position. A restored job that selects more tables captures the others in chunks on this
     * shard (docs/snapshots.md, "Tables added on restore"). Empty when unknown (a split of an
     * older connector, or a job that selects tables by pattern).
     */
    public List<String> tables() {
        return tables;
    }

    /** This split with the tables its position has seen. */
    public VitessSplit withTables(List<String> seen) {
        return new VitessSplit(keyspace, shard, position, recordsSinceMark, endedBy, epoch, seen);
    }

    public boolean isEnded() {
        return endedBy != null;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof VitessSplit)) {
            return false;
        }
        VitessSplit that = (VitessSplit) o;
        return recordsSinceMark == that.recordsSinceMark
                && epoch == that.epoch
                && keyspace.equals(that.keyspace)
                && shard.equals(that.shard)
                && position.equals(that.position)
                && Objects.equals(endedBy, that.endedBy)
                && tables.equals(that.tables);
    }

    @Override
    public int hashCode() {
        return Objects.hash(keyspace, shard, position, recordsSinceMark, endedBy, epoch, tables);
    }

    @Override
    public String toString() {
        return "VitessSplit{" + splitId() + ", position=" + position + ", recordsSinceMark=" + recordsSinceMark
                + (epoch == 0 ? "" : ", epoch=" + epoch)
                + (tables.isEmpty() ? "" : ", tables=" + tables)
                + (endedBy == null ? "" : ", endedBy=" + endedBy) + "}";
    }
}
