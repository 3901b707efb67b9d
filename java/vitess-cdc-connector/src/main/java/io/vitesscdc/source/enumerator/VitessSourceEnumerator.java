/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import io.vitesscdc.nativeio.ConfigurationException;
import io.vitesscdc.nativeio.ErrorCode;
import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.event.ShardEndedAck;
import io.vitesscdc.source.event.ShardEndedEvent;
import io.vitesscdc.source.event.SignalTablesElsewhere;
import io.vitesscdc.source.split.ReshardJournal;
import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.SourceEvent;
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
 *
 * <p>Resharding: a reader reports each split whose shard ended at a reshard journal
 * ({@link ShardEndedEvent}); the journal waits in {@code pendingJournals} (checkpointed) until
 * every participant ended at it, then its new shards become splits starting at the journal's
 * positions, each assigned to the reader with the fewest splits once every reader registered. Only durable reports count (a
 * completed checkpoint of the reader holds the split as ended), so the old shards can never be
 * read again once a new shard started — per-key order holds across the reshard, failovers
 * included (docs/architecture.md, invariant 2). Without checkpoints (no checkpoint ever seen) a report counts at
 * once. Every accepted report is acknowledged ({@link ShardEndedAck}) so the reader can forget
 * the ended split; repeated reports are acknowledged and otherwise ignored.
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
    /** Splits owned by a reader right now, with that reader ({@code UNKNOWN_OWNER} if unknown). */
    private final Map<String, Integer> assigned = new HashMap<>();
    /** Unassigned splits that go back to a given reader (a failed reader's). */
    private final Map<String, Integer> returnTo = new HashMap<>();
    /** Unassigned splits of new shards: they go to the reader with the fewest splits. */
    private final Set<String> balanced = new HashSet<>();
    /** Reshard journals not every participant ended at yet, by journal id. */
    private final Map<Long, PendingJournal> pendingJournals = new TreeMap<>();
    /** Journals whose new shards were started. */
    private final Set<Long> completedJournals = new HashSet<>();
    /** Readers already told that no more splits will come (bounded mode). */
    private final Set<Integer> signalledNoMoreSplits = new HashSet<>();

    private boolean discovered;
    /** A checkpoint was taken (or restored): only durable reports of ended shards count. */
    private boolean checkpointsSeen;
    /** Among the job's sources that share this source's signal table; null without one. */
    private final JobSignalTables.Member signalTables;

    public VitessSourceEnumerator(
            SplitEnumeratorContext<VitessSplit> context,
            ShardDiscovery discovery,
            String keyspace,
            Boundedness boundedness,
            VitessEnumeratorState restored) {
        this(context, discovery, keyspace, boundedness, restored, null);
    }

    /**
     * With {@code signalTables}, this source's place among the job's sources that share its
     * signal table (null: it reads no signals).
     */
    public VitessSourceEnumerator(
            SplitEnumeratorContext<VitessSplit> context,
            ShardDiscovery discovery,
            String keyspace,
            Boundedness boundedness,
            VitessEnumeratorState restored,
            JobSignalTables.Member signalTables) {
        this.signalTables = signalTables;
        this.context = context;
        this.discovery = discovery;
        this.keyspace = keyspace;
        this.boundedness = boundedness;
        if (restored != null) {
            this.discovered = restored.discovered();
            this.assigned.putAll(restored.assignedOwners());
            for (VitessSplit split : restored.unassignedSplits()) {
                unassigned.put(split.splitId(), split);
            }
            for (PendingJournal pending : restored.pendingJournals()) {
                pendingJournals.put(pending.journal().id(), pending);
            }
            completedJournals.addAll(restored.completedJournals());
            checkpointsSeen = true;
        }
    }

    @Override
    public void start() {
        if (signalTables != null) {
            signalTables.join();
        }
        if (discovered) {
            LOG.info(
                    "Restored Vitess enumerator for keyspace {}: {} splits in readers, {} waiting, reshard journals "
                            + "in progress: {}",
                    keyspace,
                    assigned.size(),
                    unassigned.size(),
                    pendingJournals.values());
            return;
        }
        context.callAsync(discovery::discover, this::onDiscovered);
    }

    private void onDiscovered(Map<String, Position> startPositions, Throwable error) {
        if (error != null) {
            String message =
                    "Discovering the shards of Vitess keyspace '" + keyspace + "' failed: " + error.getMessage();
            if (ErrorCode.of(error) == ErrorCode.UNKNOWN_COLUMN) {
                // The stream's column list (SQL projection pushdown) names a column the table lacks.
                throw new SourceConfigurationError(
                        "a column declared in the Flink table is not in the Vitess table "
                                + "(the cause below names it). Remove the column from the DDL or fix its name. ("
                                + message + ")",
                        error);
            }
            if (isConfigurationMistake(error)) {
                throw new SourceConfigurationError(message, error);
            }
            throw new FlinkRuntimeException(message, error);
        }
        for (Map.Entry<String, Position> e : startPositions.entrySet()) {
            // keyed by shard, or by keyspace/shard for a source of several keyspaces
            int slash = e.getKey().indexOf('/');
            String ks = slash < 0 ? keyspace : e.getKey().substring(0, slash);
            String shard = e.getKey().substring(slash + 1);
            VitessSplit split = new VitessSplit(ks, shard, e.getValue(), 0);
            if (!assigned.containsKey(split.splitId())) {
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
            returnTo.put(split.splitId(), subtaskId);
            balanced.remove(split.splitId());
        }
        signalledNoMoreSplits.remove(subtaskId);
        assignPending();
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent sourceEvent) {
        if (sourceEvent instanceof ShardEndedEvent) {
            onShardEnded(subtaskId, (ShardEndedEvent) sourceEvent);
        } else if (sourceEvent instanceof SignalTablesElsewhere) {
            onSignalTablesElsewhere(subtaskId, (SignalTablesElsewhere) sourceEvent);
        } else {
            LOG.warn("Ignoring unknown source event {} from reader {}", sourceEvent, subtaskId);
        }
    }

    /**
     * A reader read a signal naming tables its source does not read: those no source of the job
     * reads are reported, once per signal for the whole job (JobSignalTables).
     */
    private void onSignalTablesElsewhere(int subtaskId, SignalTablesElsewhere event) {
        if (signalTables != null) {
            List<String> none = signalTables.readByNone(event.tables());
            if (!none.isEmpty() && signalTables.firstReport(event.signalId())) {
                LOG.warn(
                        "Signal '{}' names {}, which no source of this job reads (its sources on keyspace {} read: {}):"
                                + " nothing captures {} — name tables the job's sources read; a table of another"
                                + " keyspace needs a source of its own (docs/snapshots.md, \"Signals\")",
                        event.signalId(),
                        none,
                        keyspace,
                        signalTables.jobSelection(),
                        none.size() == 1 ? "it" : "them");
            }
        }
        // Last, so that this line says the report is fully handled (a test waits for it).
        LOG.info(
                "Reader {} read signal '{}', which also names {}: tables of the job's other sources, or none's",
                subtaskId,
                event.signalId(),
                event.tables());
    }

    private void onShardEnded(int subtaskId, ShardEndedEvent event) {
        ReshardJournal journal = event.journal();
        ShardEndedAck ack = new ShardEndedAck(event.splitId(), journal.id());
        if (completedJournals.contains(journal.completionKey()) || completedJournals.contains(journal.id())) {
            // A repeat (the ack was lost, or the reader restored an ended split): already done.
            // Matched by the whole journal, not its id alone: a reshard repeated into the same
            // shards has the first one's id, and taking it for a repeat would drop its shards'
            // splits and start no new ones (the job would read nothing; found by the chaos soak).
            // Ids alone come from the state of releases that stored only ids.
            context.sendEventToSourceReader(subtaskId, ack);
            return;
        }
        if (!event.durable() && checkpointsSeen) {
            // Counts once a completed checkpoint of the reader holds the split as ended.
            return;
        }
        if (!journal.participants().contains(event.shard())
                || !journal.keyspace().equals(event.keyspace())) {
            LOG.warn(
                    "Reader {} reported that shard {} ended at {}, which it does not take part in: ignored",
                    subtaskId,
                    event.splitId(),
                    journal);
            return;
        }
        PendingJournal pending = pendingJournals.get(journal.id());
        if (pending == null) {
            pending = new PendingJournal(journal, Set.of());
        } else if (!pending.journal().sameReshard(journal)) {
            LOG.warn(
                    "Shard {} reports reshard journal {} differently than earlier participants ({}): the first "
                            + "report wins",
                    event.splitId(),
                    journal,
                    pending.journal());
        }
        pending = pending.withEnded(event.shard(), event.epoch(), event.finalPosition());
        assigned.remove(event.splitId());
        context.sendEventToSourceReader(subtaskId, ack);
        if (!pending.waitingFor().isEmpty()) {
            pendingJournals.put(journal.id(), pending);
            LOG.info(
                    "Shard {} ended at reshard journal {}; waiting for {} before starting {}",
                    event.splitId(),
                    journal.id(),
                    pending.waitingFor(),
                    journal.started().keySet());
            return;
        }
        pendingJournals.remove(journal.id());
        ReshardJournal complete = pending.journal();
        completedJournals.add(complete.completionKey());
        long epoch = pending.newShardsEpoch();
        LOG.info(
                "Every participant {} of reshard journal {} ended; starting shards {} in order epoch {}",
                complete.participants(),
                complete.id(),
                complete.started().keySet(),
                epoch);
        for (Map.Entry<String, Position> e : complete.started().entrySet()) {
            Position start = withCarriedCaptures(pending, e.getKey(), e.getValue());
            VitessSplit split = VitessSplit.startedByReshard(complete.keyspace(), e.getKey(), start, epoch);
            if (assigned.containsKey(split.splitId()) || unassigned.containsKey(split.splitId())) {
                LOG.warn(
                        "Shard {} of reshard journal {} is a split already; not starting it again",
                        split.splitId(),
                        complete.id());
                continue;
            }
            unassigned.put(split.splitId(), split);
            balanced.add(split.splitId());
        }
        assignPending();
    }

    /**
     * A new shard's start position with the chunked snapshots its predecessors were taking, from
     * the cursors of their final positions (docs/snapshots.md, "Reshards"). A participant restored
     * from an older state has no final position here: what it was capturing is not carried, and
     * the log says which shard to capture again.
     */
    private static Position withCarriedCaptures(PendingJournal pending, String newShard, Position start) {
        Set<String> unknown = new TreeSet<>(pending.journal().participants());
        unknown.removeAll(pending.endedPositions().keySet());
        if (!unknown.isEmpty()) {
            LOG.warn(
                    "Shards {} of reshard journal {} ended without reporting their final positions (a state from an "
                            + "older release): a chunked snapshot they were taking does not go on on shard {}; "
                            + "capture its tables again with a signal (docs/snapshots.md, \"Signals\") if one was running",
                    unknown,
                    pending.journal().id(),
                    newShard);
        }
        if (pending.endedPositions().isEmpty()) {
            return start;
        }
        Position carried =
                start.withCapturesCarriedFrom(pending.endedPositions().values());
        if (!carried.equals(start)) {
            LOG.info(
                    "Shard {} of reshard journal {} goes on with the chunked snapshots of {}: {}",
                    newShard,
                    pending.journal().id(),
                    pending.endedPositions().keySet(),
                    carried.toJson());
        }
        return carried;
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
        Set<String> all = new HashSet<>(assigned.keySet());
        all.addAll(unassigned.keySet());
        return all;
    }

    /** The registered reader owning the fewest splits (the lowest id among equals), or -1. */
    private int leastLoaded(Set<Integer> readers) {
        Map<Integer, Integer> load = new TreeMap<>();
        for (int r : readers) {
            load.put(r, 0);
        }
        for (int owner : assigned.values()) {
            load.computeIfPresent(owner, (k, v) -> v + 1);
        }
        int best = -1;
        int bestLoad = Integer.MAX_VALUE;
        for (Map.Entry<Integer, Integer> e : load.entrySet()) {
            if (e.getValue() < bestLoad) {
                best = e.getKey();
                bestLoad = e.getValue();
            }
        }
        return best;
    }

    private int intendedOwner(String splitId, Set<Integer> readers) {
        Integer back = returnTo.get(splitId);
        if (back != null) {
            return back;
        }
        if (balanced.contains(splitId)) {
            // Spread over all readers: while one is not registered (a restore registers them one
            // by one, a failed one comes back), the new shards wait for it.
            return readers.size() < context.currentParallelism() ? -1 : leastLoaded(readers);
        }
        return ownerOf(splitId);
    }

    private void assignPending() {
        if (!discovered) {
            return;
        }
        Set<Integer> readers = context.registeredReaders().keySet();
        Map<Integer, List<VitessSplit>> batch = new TreeMap<>();
        for (VitessSplit split : new ArrayList<>(unassigned.values())) {
            int owner = intendedOwner(split.splitId(), readers);
            if (readers.contains(owner)) {
                batch.computeIfAbsent(owner, k -> new ArrayList<>()).add(split);
                unassigned.remove(split.splitId());
                returnTo.remove(split.splitId());
                balanced.remove(split.splitId());
                assigned.put(split.splitId(), owner);
            }
        }
        if (!batch.isEmpty()) {
            LOG.info("Assigning Vitess splits {}", batch);
            context.assignSplits(new SplitsAssignment<>(batch));
        }
        if (boundedness == Boundedness.BOUNDED && pendingJournals.isEmpty()) {
            for (int reader : readers) {
                if (!signalledNoMoreSplits.contains(reader) && !hasUnassignedFor(reader)) {
                    context.signalNoMoreSplits(reader);
                    signalledNoMoreSplits.add(reader);
                }
            }
        }
    }

    private boolean hasUnassignedFor(int reader) {
        Set<Integer> readers = context.registeredReaders().keySet();
        for (String id : unassigned.keySet()) {
            int owner = intendedOwner(id, readers);
            if (owner == reader || owner < 0) {
                return true;
            }
        }
        return false;
    }

    @Override
    public VitessEnumeratorState snapshotState(long checkpointId) {
        checkpointsSeen = true;
        return new VitessEnumeratorState(
                discovered,
                assigned,
                new ArrayList<>(unassigned.values()),
                pendingJournals.values(),
                completedJournals);
    }

    @Override
    public void close() {
        if (signalTables != null) {
            signalTables.leave();
        }
    }
}
