/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.soak;

/**
 * The kinds of fault the soak draws, each with how often it is drawn ({@code weight}) and the
 * group it belongs to: faults of one group never run at the same time (two reshards, or a reparent
 * during a reshard, test the cluster's scripts rather than the connector), faults of different
 * groups overlap freely (a VTGate killed during a reshard, a TaskManager lost during a capture).
 */
enum Fault {
    /** {@code kill -9} of the VTGate the job reads from, restarted after 1–4 s. */
    VTGATE_KILL(Group.FREE, 12),
    /** PlannedReparentShard of a shard of the current layout. */
    PLANNED_REPARENT(Group.TOPOLOGY, 8),
    /** {@code kill -9} of a primary's mysqld, EmergencyReparentShard, a fresh replica. */
    EMERGENCY_REPARENT(Group.TOPOLOGY, 4),
    /** {@code kill -9} of a REPLICA vttablet and its restart. */
    REPLICA_RESTART(Group.TOPOLOGY, 5),
    /** A primary vttablet frozen ({@code SIGSTOP}) for 2–8 s. */
    TABLET_FREEZE(Group.TOPOLOGY, 6),
    /** A TaskManager of the MiniCluster terminated (its tasks fail), a new one started after 1–4 s. */
    TASKMANAGER_LOSS(Group.JOB, 8),
    /**
     * The job dies without a savepoint (cancelled, as a killed JVM leaves it) and is restored from
     * its latest retained checkpoint.
     */
    JOB_CRASH(Group.JOB, 6),
    /** Stop with a savepoint, restore at the other parallelism (2 ↔ 3). */
    SAVEPOINT_RESCALE(Group.JOB, 5),
    /** A reshard 2 → 4 or a merge 4 → 2 of keyspace customer (prepare, create, switch, complete). */
    RESHARD(Group.TOPOLOGY, 2),
    /** A signal re-snapshot ({@code execute-snapshot}) of the rows table: written once and relayed, or to every shard. */
    SIGNAL_RESNAPSHOT(Group.FREE, 5),
    /** {@code ALTER TABLE soak_rows ADD COLUMN} while the job runs (the job does not declare it). */
    ADD_COLUMN(Group.TOPOLOGY, 3),
    /** One transaction of {@code bigTransactionRows} inserts across the shards. */
    BIG_TRANSACTION(Group.FREE, 2);

    enum Group {
        FREE,
        TOPOLOGY,
        JOB
    }

    final Group group;
    final int weight;

    Fault(Group group, int weight) {
        this.group = group;
        this.weight = weight;
    }
}
