package io.vitesscdc.source.enumerator;

import io.vitesscdc.nativeio.ConfigurationException;
import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.util.FlinkRuntimeException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns the keyspace's shards into splits (one per shard) and pushes them to readers.
 *
 * <p>Ownership is deterministic and balanced: split {@code i} of the sorted split ids goes to
 * reader {@code i mod parallelism}, so every reader gets at most one more shard than any other,
 * and a reader that fails and comes back gets the same shards again. Splits wait in
 * {@code unassigned} until their owner registers; a failed reader's splits come back through
 * {@link #addSplitsBack} with the positions of the last checkpoint and go to the same owner.
 *
 * <p>Discovery runs once, asynchronously on the coordinator's worker thread (it opens a native
 * stream); its failure fails the job with the core's message. After a restore, discovery is not
 * repeated: the splits live in reader state and here.
 */
@Internal
public final class VitessSourceEnumerator implements SplitEnumerator<VitessSplit, VitessEnumeratorState> {

    private static final Logger LOG = LoggerFactory.getLogger(VitessSourceEnumerator.class);

    private final SplitEnumeratorContext<VitessSplit> context;
    private final ShardDiscovery discovery;
    private final String keyspace;
    private final Boundedness boundedness;

    /** Splits waiting for their owner, by split id (sorted, for stable assignment order). */
    private final Map<String, VitessSplit> unassigned = new TreeMap<>();
    /** Splits owned by a reader right now. */
    private final Set<String> assigned = new HashSet<>();
    /** Readers already told that no more splits will come (bounded mode). */
    private final Set<Integer> signalledNoMoreSplits = new HashSet<>();
    private boolean discovered;

    public VitessSourceEnumerator(
            SplitEnumeratorContext<VitessSplit> context,
            ShardDiscovery discovery,
            String keyspace,
            Boundedness boundedness,
            VitessEnumeratorState restored) {
        this.context = context;
        this.discovery = discovery;
        this.keyspace = keyspace;
        this.boundedness = boundedness;
        if (restored != null) {
            this.discovered = restored.discovered();
            this.assigned.addAll(restored.assignedSplitIds());
            for (VitessSplit split : restored.unassignedSplits()) {
                unassigned.put(split.splitId(), split);
            }
        }
    }

    @Override
    public void start() {
        if (discovered) {
            LOG.info("Restored Vitess enumerator for keyspace {}: {} splits in readers, {} waiting", keyspace,
                    assigned.size(), unassigned.size());
            return;
        }
        context.callAsync(discovery::discover, this::onDiscovered);
    }

    private void onDiscovered(Map<String, String> startPositions, Throwable error) {
        if (error != null) {
            String message = "Discovering the shards of Vitess keyspace '" + keyspace + "' failed: " + error.getMessage();
            if (isConfigurationMistake(error)) {
                throw new SourceConfigurationError(message, error);
            }
            throw new FlinkRuntimeException(message, error);
        }
        for (Map.Entry<String, String> e : startPositions.entrySet()) {
            VitessSplit split = new VitessSplit(keyspace, e.getKey(), e.getValue(), 0);
            if (!assigned.contains(split.splitId())) {
                unassigned.putIfAbsent(split.splitId(), split);
            }
        }
        discovered = true;
        LOG.info("Vitess keyspace {} has shards {}; assigning one split per shard", keyspace, startPositions.keySet());
        assignPending();
    }

    /** Configuration errors of the core and our own argument checks cannot be fixed by a restart. */
    private static boolean isConfigurationMistake(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof ConfigurationException || t instanceof IllegalArgumentException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        // Push-based: splits are assigned when their owner registers.
    }

    @Override
    public void addSplitsBack(List<VitessSplit> splits, int subtaskId) {
        LOG.info("Reader {} failed; taking back splits {}", subtaskId, splits);
        for (VitessSplit split : splits) {
            assigned.remove(split.splitId());
            unassigned.put(split.splitId(), split);
        }
        signalledNoMoreSplits.remove(subtaskId);
        assignPending();
    }

    @Override
    public void addReader(int subtaskId) {
        signalledNoMoreSplits.remove(subtaskId);
        assignPending();
    }

    /** The reader that owns {@code splitId} among all known splits. */
    int ownerOf(String splitId) {
        List<String> all = new ArrayList<>(new TreeSet<>(allSplitIds()));
        return Math.floorMod(all.indexOf(splitId), context.currentParallelism());
    }

    private Set<String> allSplitIds() {
        Set<String> all = new HashSet<>(assigned);
        all.addAll(unassigned.keySet());
        return all;
    }

    private void assignPending() {
        if (!discovered) {
            return;
        }
        Set<Integer> readers = context.registeredReaders().keySet();
        Map<Integer, List<VitessSplit>> batch = new HashMap<>();
        for (VitessSplit split : new ArrayList<>(unassigned.values())) {
            int owner = ownerOf(split.splitId());
            if (readers.contains(owner)) {
                batch.computeIfAbsent(owner, k -> new ArrayList<>()).add(split);
            }
        }
        if (!batch.isEmpty()) {
            for (List<VitessSplit> splits : batch.values()) {
                for (VitessSplit split : splits) {
                    unassigned.remove(split.splitId());
                    assigned.add(split.splitId());
                }
            }
            LOG.info("Assigning Vitess splits {}", batch);
            context.assignSplits(new SplitsAssignment<>(batch));
        }
        if (boundedness == Boundedness.BOUNDED) {
            for (int reader : readers) {
                if (!signalledNoMoreSplits.contains(reader) && !hasUnassignedFor(reader)) {
                    context.signalNoMoreSplits(reader);
                    signalledNoMoreSplits.add(reader);
                }
            }
        }
    }

    private boolean hasUnassignedFor(int reader) {
        for (String id : unassigned.keySet()) {
            if (ownerOf(id) == reader) {
                return true;
            }
        }
        return false;
    }

    @Override
    public VitessEnumeratorState snapshotState(long checkpointId) {
        return new VitessEnumeratorState(discovered, assigned, new ArrayList<>(unassigned.values()));
    }

    @Override
    public void close() {}
}
