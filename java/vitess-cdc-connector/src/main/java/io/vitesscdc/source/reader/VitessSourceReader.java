/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.source.event.ShardEndedAck;
import io.vitesscdc.source.event.ShardEndedEvent;
import io.vitesscdc.source.event.SignalTablesElsewhere;
import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.split.VitessSplitState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.core.io.InputStatus;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The source reader: one fetcher thread running one {@link VitessSplitReader} (one native
 * stream) for all splits of this subtask; the task thread emits through
 * {@link VitessRecordEmitter}, which keeps the checkpointed {@link VitessSplitState}.
 *
 * <p>Resharding: a split whose shard reached a reshard journal finishes (SourceReaderBase's
 * finished-split path) and moves to {@link #endedSplits}: it is no longer read, but it stays in
 * this reader's checkpointed state, marked ended, until the enumerator acknowledges the report.
 * Reports go out at once (tentative) and again after every completed checkpoint that holds the
 * ended split (durable: no restore can read the shard again). The enumerator starts the new
 * shards only once every participant of the journal reported durably, so a key's changes on the
 * new shards never overtake its last changes on the old ones — not even across a failover.
 *
 * <p>A durable report is sent from the next {@link #pollNext}, not from
 * {@link #notifyCheckpointComplete} itself: when the completed checkpoint is the savepoint of a
 * stop-with-savepoint, Flink calls no {@code pollNext} before the task ends, so no report goes out
 * and the enumerator assigns no new shards to a task that is finishing (an assignment it could not
 * deliver would fail the stop, and Flink would restart the job instead of stopping it). The new
 * shards then start from the savepoint: its readers restore the ended splits and report them.
 * Everything here runs on the task thread.
 */
@Internal
public final class VitessSourceReader<T>
        extends SingleThreadMultiplexSourceReaderBase<SplitElement<T>, T, VitessSplit, VitessSplitState> {

    private static final Logger LOG = LoggerFactory.getLogger(VitessSourceReader.class);

    /** Splits ended at a reshard journal, not yet acknowledged by the enumerator, by split id. */
    private final Map<String, VitessSplit> endedSplits = new TreeMap<>();
    /** The first checkpoint whose state holds each ended split (absent: none yet). */
    private final Map<String, Long> endedSplitCheckpoint = new TreeMap<>();

    /**
     * Restored ended splits to report once this reader is registered with the enumerator: Flink
     * hands a reader its restored splits before it registers, and the enumerator spreads the new
     * shards over registered readers only.
     */
    private final List<VitessSplit> reportWhenStarted = new ArrayList<>();

    private boolean started;

    /** The last completed checkpoint that holds an ended split (its reports go out in pollNext). */
    private long reportsDueFor = Long.MIN_VALUE;

    /** Durable reports wait for the next pollNext. */
    private boolean reportsDue;

    /** The tables the job selects (by name, or those its patterns match): what its marks have seen. */
    private final List<String> jobTables;

    /** Signals naming tables this source does not read, for the enumerator (null: no signal table). */
    private final SignalsElsewhere signalsElsewhere;

    public VitessSourceReader(
            Supplier<SplitReader<SplitElement<T>, VitessSplit>> splitReaderSupplier,
            VitessRecordEmitter<T> emitter,
            Configuration config,
            SourceReaderContext context) {
        this(splitReaderSupplier, emitter, config, context, List.of());
    }

    public VitessSourceReader(
            Supplier<SplitReader<SplitElement<T>, VitessSplit>> splitReaderSupplier,
            VitessRecordEmitter<T> emitter,
            Configuration config,
            SourceReaderContext context,
            List<String> jobTables) {
        this(splitReaderSupplier, emitter, config, context, jobTables, null);
    }

    public VitessSourceReader(
            Supplier<SplitReader<SplitElement<T>, VitessSplit>> splitReaderSupplier,
            VitessRecordEmitter<T> emitter,
            Configuration config,
            SourceReaderContext context,
            List<String> jobTables,
            SignalsElsewhere signalsElsewhere) {
        super(splitReaderSupplier, emitter, config, context);
        this.jobTables = List.copyOf(jobTables);
        this.signalsElsewhere = signalsElsewhere;
    }

    @Override
    public void addSplits(List<VitessSplit> splits) {
        List<VitessSplit> toRead = new ArrayList<>(splits.size());
        for (VitessSplit split : splits) {
            if (split.isEnded()) {
                // Restored from a checkpoint: the end is durable already.
                LOG.info(
                        "Split {} was restored as ended at reshard journal {}; reporting it",
                        split.splitId(),
                        split.endedBy());
                endedSplits.put(split.splitId(), split);
                endedSplitCheckpoint.put(split.splitId(), Long.MIN_VALUE);
                if (started) {
                    context.sendSourceEventToCoordinator(ShardEndedEvent.of(split, true));
                } else {
                    reportWhenStarted.add(split);
                }
            } else {
                toRead.add(split);
            }
        }
        if (!toRead.isEmpty()) {
            super.addSplits(toRead);
        }
    }

    @Override
    public void start() {
        super.start();
        started = true;
        for (VitessSplit split : reportWhenStarted) {
            context.sendSourceEventToCoordinator(ShardEndedEvent.of(split, true));
        }
        reportWhenStarted.clear();
    }

    @Override
    protected void onSplitFinished(Map<String, VitessSplitState> finishedSplitIds) {
        for (VitessSplitState state : finishedSplitIds.values()) {
            if (state.endedBy() != null) {
                VitessSplit ended = state.toSplit();
                LOG.info("Split {} ended at reshard journal {}", ended.splitId(), ended.endedBy());
                endedSplits.put(ended.splitId(), ended);
                context.sendSourceEventToCoordinator(ShardEndedEvent.of(ended, false));
            } else {
                LOG.info("Vitess split {} finished (copy completed, bounded mode)", state.splitId());
            }
        }
    }

    @Override
    public List<VitessSplit> snapshotState(long checkpointId) {
        List<VitessSplit> splits = super.snapshotState(checkpointId);
        if (endedSplits.isEmpty()) {
            return splits;
        }
        List<VitessSplit> all = new ArrayList<>(splits);
        all.addAll(endedSplits.values());
        for (String id : endedSplits.keySet()) {
            endedSplitCheckpoint.putIfAbsent(id, checkpointId);
        }
        return all;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (endedSplitCheckpoint.values().stream().anyMatch(first -> first <= checkpointId)) {
            reportsDueFor = Math.max(reportsDueFor, checkpointId);
            reportsDue = true;
            // An idle reader's task thread waits for the queue: wake it so pollNext comes.
            splitFetcherManager.getQueue().notifyAvailable();
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        if (reportsDue) {
            reportsDue = false;
            sendDurableReports();
        }
        if (signalsElsewhere != null) {
            for (SignalTablesElsewhere s = signalsElsewhere.next(); s != null; s = signalsElsewhere.next()) {
                context.sendSourceEventToCoordinator(s);
            }
        }
        return super.pollNext(output);
    }

    /** Reports every ended split that a completed checkpoint holds (again until acknowledged). */
    private void sendDurableReports() {
        for (Map.Entry<String, Long> e : endedSplitCheckpoint.entrySet()) {
            VitessSplit split = endedSplits.get(e.getKey());
            if (split != null && e.getValue() <= reportsDueFor) {
                context.sendSourceEventToCoordinator(ShardEndedEvent.of(split, true));
            }
        }
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof ShardEndedAck) {
            ShardEndedAck ack = (ShardEndedAck) event;
            VitessSplit split = endedSplits.get(ack.splitId());
            if (split != null && split.endedBy().id() == ack.journalId()) {
                LOG.info("The enumerator took note that split {} ended; dropping it", ack.splitId());
                endedSplits.remove(ack.splitId());
                endedSplitCheckpoint.remove(ack.splitId());
            }
            return;
        }
        super.handleSourceEvents(event);
    }

    /** Ended splits not yet acknowledged by the enumerator. */
    @VisibleForTesting
    Map<String, VitessSplit> endedSplits() {
        return Collections.unmodifiableMap(endedSplits);
    }

    @Override
    protected VitessSplitState initializedState(VitessSplit split) {
        return new VitessSplitState(split, jobTables);
    }

    @Override
    protected VitessSplit toSplitType(String splitId, VitessSplitState state) {
        return state.toSplit();
    }
}
