/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import io.vitesscdc.source.split.ReshardJournal;

import org.apache.flink.annotation.Internal;

import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A reshard journal some, not yet all, participants have reported: the journal, the participant
 * shards that ended at it so far, and the highest order epoch among them (the new shards start
 * one above the highest epoch of all participants).
 */
@Internal
public final class PendingJournal {

    private final ReshardJournal journal;
    private final Set<String> endedShards;
    private final long maxEndedEpoch;

    public PendingJournal(ReshardJournal journal, Set<String> endedShards) {
        this(journal, endedShards, 0);
    }

    public PendingJournal(ReshardJournal journal, Set<String> endedShards, long maxEndedEpoch) {
        this.journal = Objects.requireNonNull(journal);
        this.endedShards = new TreeSet<>(endedShards);
        this.maxEndedEpoch = maxEndedEpoch;
    }

    public ReshardJournal journal() {
        return journal;
    }

    /** Participants that ended at the journal so far (sorted). */
    public Set<String> endedShards() {
        return endedShards;
    }

    /** The highest order epoch of the participants that ended so far (0 if none). */
    public long maxEndedEpoch() {
        return maxEndedEpoch;
    }

    /** The order epoch of the journal's new shards, once every participant ended. */
    public long newShardsEpoch() {
        return maxEndedEpoch + 1;
    }

    /** Participants still to end. */
    public Set<String> waitingFor() {
        Set<String> waiting = new TreeSet<>(journal.participants());
        waiting.removeAll(endedShards);
        return waiting;
    }

    PendingJournal withEnded(String shard, long epoch) {
        Set<String> ended = new TreeSet<>(endedShards);
        ended.add(shard);
        return new PendingJournal(journal, ended, Math.max(maxEndedEpoch, epoch));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PendingJournal
                && ((PendingJournal) o).journal.equals(journal)
                && ((PendingJournal) o).endedShards.equals(endedShards)
                && ((PendingJournal) o).maxEndedEpoch == maxEndedEpoch;
    }

    @Override
    public int hashCode() {
        return Objects.hash(journal, endedShards, maxEndedEpoch);
    }

    @Override
    public String toString() {
        return "PendingJournal{" + journal + ", ended " + endedShards + " (epoch <= " + maxEndedEpoch
                + "), waiting for " + waitingFor() + "}";
    }
}
