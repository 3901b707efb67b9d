/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.split.ReshardJournal;

import org.apache.flink.annotation.Internal;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A reshard journal some, not yet all, participants have reported: the journal, the participant
 * shards that ended at it so far, the highest order epoch among them (the new shards start one
 * above the highest epoch of all participants), and the final positions they reported (the
 * cursors of the chunked snapshots they were taking, which the new shards go on with).
 */
@Internal
public final class PendingJournal {

    private final ReshardJournal journal;
    private final Set<String> endedShards;
    private final long maxEndedEpoch;
    private final Map<String, Position> endedPositions;

    public PendingJournal(ReshardJournal journal, Set<String> endedShards) {
        this(journal, endedShards, 0);
    }

    public PendingJournal(ReshardJournal journal, Set<String> endedShards, long maxEndedEpoch) {
        this(journal, endedShards, maxEndedEpoch, Map.of());
    }

    public PendingJournal(
            ReshardJournal journal, Set<String> endedShards, long maxEndedEpoch, Map<String, Position> endedPositions) {
        this.journal = Objects.requireNonNull(journal);
        this.endedShards = new TreeSet<>(endedShards);
        this.maxEndedEpoch = maxEndedEpoch;
        this.endedPositions = new TreeMap<>(endedPositions);
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

    /**
     * The final positions the ended participants reported, by shard (sorted); a participant
     * restored from an older state may be missing.
     */
    public Map<String, Position> endedPositions() {
        return endedPositions;
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

    PendingJournal withEnded(String shard, long epoch, Position finalPosition) {
        Set<String> ended = new TreeSet<>(endedShards);
        ended.add(shard);
        Map<String, Position> positions = new TreeMap<>(endedPositions);
        if (finalPosition != null) {
            positions.put(shard, finalPosition);
        }
        return new PendingJournal(journal, ended, Math.max(maxEndedEpoch, epoch), positions);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PendingJournal
                && ((PendingJournal) o).journal.equals(journal)
                && ((PendingJournal) o).endedShards.equals(endedShards)
                && ((PendingJournal) o).maxEndedEpoch == maxEndedEpoch
                && ((PendingJournal) o).endedPositions.equals(endedPositions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(journal, endedShards, maxEndedEpoch, endedPositions);
    }

    @Override
    public String toString() {
        return "PendingJournal{" + journal + ", ended " + endedShards + " (epoch <= " + maxEndedEpoch
                + "), waiting for " + waitingFor() + "}";
    }
}
