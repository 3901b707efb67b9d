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
 * A reshard journal some, not yet all, participants have reported: the journal and the
 * participant shards that ended at it so far.
 */
@Internal
public final class PendingJournal {

    private final ReshardJournal journal;
    private final Set<String> endedShards;

    public PendingJournal(ReshardJournal journal, Set<String> endedShards) {
        this.journal = Objects.requireNonNull(journal);
        this.endedShards = new TreeSet<>(endedShards);
    }

    public ReshardJournal journal() {
        return journal;
    }

    /** Participants that ended at the journal so far (sorted). */
    public Set<String> endedShards() {
        return endedShards;
    }

    /** Participants still to end. */
    public Set<String> waitingFor() {
        Set<String> waiting = new TreeSet<>(journal.participants());
        waiting.removeAll(endedShards);
        return waiting;
    }

    PendingJournal withEnded(String shard) {
        Set<String> ended = new TreeSet<>(endedShards);
        ended.add(shard);
        return new PendingJournal(journal, ended);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PendingJournal
                && ((PendingJournal) o).journal.equals(journal)
                && ((PendingJournal) o).endedShards.equals(endedShards);
    }

    @Override
    public int hashCode() {
        return Objects.hash(journal, endedShards);
    }

    @Override
    public String toString() {
        return "PendingJournal{" + journal + ", ended " + endedShards + ", waiting for " + waitingFor() + "}";
    }
}
