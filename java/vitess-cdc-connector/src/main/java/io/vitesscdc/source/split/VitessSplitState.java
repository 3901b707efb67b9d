/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.split;

import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.config.VitessSourceConfig;

import org.apache.flink.annotation.Internal;

import java.util.List;

/**
 * The mutable, emit-side state of a split, advanced by the record emitter on the task thread
 * with every element: a record bumps the count, a position mark replaces the position and resets
 * the count. {@link #toSplit()} is what a checkpoint stores.
 */
@Internal
public final class VitessSplitState {

    private final String keyspace;
    private final String shard;
    private Position position;
    private long recordsSinceMark;
    private boolean copyCompleted;
    private long snapshotRecords;
    private long lastHeartbeatRecords = -1;
    private long totalRecords;
    private ReshardJournal endedBy;
    private final long epoch;
    private List<String> tables;
    /** The tables the job selects: what every mark of its streams has seen. */
    private final List<String> jobTables;

    public VitessSplitState(VitessSplit split) {
        this(split, split.tables());
    }

    /**
     * @param jobTables the tables the job selects (by name, or those its patterns match); every mark
     *     of this job's streams has seen them (a stream opens with captures of the ones the split
     *     had not seen), so the first mark makes them the split's
     */
    public VitessSplitState(VitessSplit split, List<String> jobTables) {
        this.tables = split.tables();
        // A source of several keyspaces names tables keyspace.table: the split's are its keyspace's.
        this.jobTables = VitessSourceConfig.tablesOf(split.keyspace(), jobTables);
        this.keyspace = split.keyspace();
        this.shard = split.shard();
        this.position = split.position();
        this.recordsSinceMark = split.recordsSinceMark();
        this.copyCompleted = split.position().copyCompleted();
        this.endedBy = split.endedBy();
        this.epoch = split.epoch();
    }

    public String splitId() {
        return VitessSplit.splitId(keyspace, shard);
    }

    public String keyspace() {
        return keyspace;
    }

    public String shard() {
        return shard;
    }

    public Position position() {
        return position;
    }

    public long recordsSinceMark() {
        return recordsSinceMark;
    }

    /** A change record of this shard was emitted. */
    public void recordEmitted(boolean snapshot) {
        recordsEmitted(1, snapshot);
    }

    /** {@code count} change records of this shard were emitted as one element. */
    public void recordsEmitted(int count, boolean snapshot) {
        recordsSinceMark += count;
        totalRecords += count;
        if (snapshot) {
            snapshotRecords += count;
        }
    }

    /**
     * The shard reached a committed position: everything before it is emitted. {@code
     * copyCompleted} is the fact its mark carried.
     */
    public void markReached(Position position, boolean copyCompleted) {
        this.position = position;
        this.recordsSinceMark = 0;
        this.tables = jobTables;
        if (copyCompleted) {
            this.copyCompleted = true;
        }
    }

    /**
     * The shard reached a reshard journal: nothing more of it comes. The position stays the last
     * mark before the journal (a resume from it would meet the journal again).
     */
    public void journalReached(ReshardJournal journal) {
        this.endedBy = journal;
        this.recordsSinceMark = 0;
    }

    /** The journal the shard ended at, or {@code null}. */
    public ReshardJournal endedBy() {
        return endedBy;
    }

    public void copyCompleted() {
        this.copyCompleted = true;
    }

    public boolean isCopyCompleted() {
        return copyCompleted;
    }

    /** Snapshot (copy-phase) records emitted by this reader since the split was assigned. */
    public long snapshotRecords() {
        return snapshotRecords;
    }

    /**
     * True when no record was emitted since the previous call (the previous heartbeat): the shard
     * is idle.
     */
    public boolean idleSinceLastHeartbeat() {
        boolean idle = lastHeartbeatRecords == totalRecords;
        lastHeartbeatRecords = totalRecords;
        return idle;
    }

    public VitessSplit toSplit() {
        return new VitessSplit(keyspace, shard, position, recordsSinceMark, endedBy, epoch, tables);
    }

    @Override
    public String toString() {
        return "VitessSplitState{" + splitId() + ", position=" + position + ", recordsSinceMark=" + recordsSinceMark
                + "}";
    }
}
