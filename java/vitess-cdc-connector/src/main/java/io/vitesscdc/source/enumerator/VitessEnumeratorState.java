package io.vitesscdc.source.enumerator;

import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.annotation.Internal;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the enumerator checkpoints: whether shard discovery already ran, the ids of the splits
 * that live in readers (their positions are in the readers' state), and the splits waiting for a
 * reader, with their positions (a failed reader's splits come back here through
 * {@code addSplitsBack}).
 */
@Internal
public final class VitessEnumeratorState {

    private final boolean discovered;
    private final Set<String> assignedSplitIds;
    private final List<VitessSplit> unassignedSplits;

    public VitessEnumeratorState(boolean discovered, Set<String> assignedSplitIds, List<VitessSplit> unassignedSplits) {
        this.discovered = discovered;
        this.assignedSplitIds = Set.copyOf(assignedSplitIds);
        this.unassignedSplits = List.copyOf(unassignedSplits);
    }

    public boolean discovered() {
        return discovered;
    }

    public Set<String> assignedSplitIds() {
        return assignedSplitIds;
    }

    public List<VitessSplit> unassignedSplits() {
        return unassignedSplits;
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
                && assignedSplitIds.equals(that.assignedSplitIds)
                && unassignedSplits.equals(that.unassignedSplits);
    }

    @Override
    public int hashCode() {
        return Objects.hash(discovered, assignedSplitIds, unassignedSplits);
    }

    @Override
    public String toString() {
        return "VitessEnumeratorState{discovered=" + discovered + ", assigned=" + assignedSplitIds + ", unassigned="
                + unassignedSplits + "}";
    }
}
