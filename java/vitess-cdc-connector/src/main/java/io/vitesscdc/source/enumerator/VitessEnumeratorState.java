/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.annotation.Internal;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the enumerator checkpoints: whether shard discovery already ran, the splits that live in
 * readers (their positions are in the readers' state) with the reader each was assigned to
 * ({@link #UNKNOWN_OWNER} when not known), the splits waiting for a reader, with their positions
 * (a failed reader's splits come back here through {@code addSplitsBack}), the reshard journals
 * some but not all participants ended at, and the ids of the journals whose new shards were
 * started already.
 */
@Internal
public final class VitessEnumeratorState {

    /** The owner of an assigned split restored from a version-1 state. */
    public static final int UNKNOWN_OWNER = -1;

    private final boolean discovered;
    private final Map<String, Integer> assignedOwners;
    private final List<VitessSplit> unassignedSplits;
    private final List<PendingJournal> pendingJournals;
    private final Set<Long> completedJournals;

    /** A version-1 state: no owners, no journals. */
    public VitessEnumeratorState(boolean discovered, Set<String> assignedSplitIds, List<VitessSplit> unassignedSplits) {
        this(discovered, unknownOwners(assignedSplitIds), unassignedSplits, List.of(), Set.of());
    }

    public VitessEnumeratorState(
            boolean discovered,
            Map<String, Integer> assignedOwners,
            List<VitessSplit> unassignedSplits,
            Collection<PendingJournal> pendingJournals,
            Set<Long> completedJournals) {
        this.discovered = discovered;
        this.assignedOwners = Map.copyOf(assignedOwners);
        this.unassignedSplits = List.copyOf(unassignedSplits);
        this.pendingJournals = List.copyOf(pendingJournals);
        this.completedJournals = Set.copyOf(completedJournals);
    }

    private static Map<String, Integer> unknownOwners(Set<String> ids) {
        Map<String, Integer> owners = new HashMap<>();
        for (String id : ids) {
            owners.put(id, UNKNOWN_OWNER);
        }
        return owners;
    }

    public boolean discovered() {
        return discovered;
    }

    public Set<String> assignedSplitIds() {
        return new TreeSet<>(assignedOwners.keySet());
    }

    /** Assigned split id to the reader it was assigned to, or {@link #UNKNOWN_OWNER}. */
    public Map<String, Integer> assignedOwners() {
        return assignedOwners;
    }

    public List<VitessSplit> unassignedSplits() {
        return unassignedSplits;
    }

    public List<PendingJournal> pendingJournals() {
        return pendingJournals;
    }

    public Set<Long> completedJournals() {
        return completedJournals;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof VitessEnumeratorState)) {
            return false;
        }
        VitessEnumeratorState that = (VitessEnumeratorState) o;
        return discovered == that.discovered
                && assignedOwners.equals(that.assignedOwners)
                && unassignedSplits.equals(that.unassignedSplits)
                && pendingJournals.equals(that.pendingJournals)
                && completedJournals.equals(that.completedJournals);
    }

    @Override
    public int hashCode() {
        return Objects.hash(discovered, assignedOwners, unassignedSplits, pendingJournals, completedJournals);
    }

    @Override
    public String toString() {
        return "VitessEnumeratorState{discovered=" + discovered + ", assigned=" + assignedOwners + ", unassigned="
                + unassignedSplits + ", pendingJournals=" + pendingJournals + ", completedJournals="
                + completedJournals + "}";
    }
}
