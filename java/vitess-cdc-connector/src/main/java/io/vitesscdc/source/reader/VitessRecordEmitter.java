/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.source.split.VitessSplitState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.metrics.Counter;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Emits converted values and advances the split state with every element, on the task thread —
 * so a checkpoint between any two elements stores exactly where the split is: the last mark
 * plus the number of records emitted after it.
 *
 * <p>Event time: a streamed record carries its binlog commit time as timestamp; copy-phase
 * records carry none. A VTGate heartbeat means every shard of the stream had nothing to send, so
 * (when enabled) it emits, for each split that is not inside a transaction, the watermark the
 * heartbeat proves ({@link HeartbeatWatermarks}: its time, or the SQL table's WATERMARK expression
 * applied to it), and marks a split idle when no record came since the previous heartbeat.
 *
 * <p>{@code numRecordsIn}: {@code SourceReaderBase} adds one for every element it hands to this
 * emitter, but an element is not one record: a copy batch holds many, an update's before and
 * after images are two, and a mark, a heartbeat or a copy-completed fact is none. The emitter
 * corrects the counter by the difference, on the task thread right after that increment, so it
 * counts the change records read (what the split state counts), whatever the deserializer
 * makes of them.
 */
@Internal
public final class VitessRecordEmitter<T> implements RecordEmitter<SplitElement<T>, T, VitessSplitState> {

    private final boolean heartbeatWatermarks;
    private final HeartbeatWatermarks heartbeats;
    /** Per split id, made at its first heartbeat (splits come and go with reshards). */
    private final Map<String, HeartbeatWatermarks.PerSplit> splitHeartbeats = new HashMap<>();
    /** The reader's {@code numRecordsIn}, the counter {@code SourceReaderBase} increments per element. */
    private final Counter numRecordsIn;

    public VitessRecordEmitter(boolean heartbeatWatermarks, Counter numRecordsIn) {
        this(heartbeatWatermarks, HeartbeatWatermarks.AT_HEARTBEAT, numRecordsIn);
    }

    public VitessRecordEmitter(boolean heartbeatWatermarks, HeartbeatWatermarks heartbeats, Counter numRecordsIn) {
        this.heartbeatWatermarks = heartbeatWatermarks;
        this.heartbeats = heartbeats;
        this.numRecordsIn = numRecordsIn;
    }

    @Override
    public void emitRecord(SplitElement<T> element, SourceOutput<T> output, VitessSplitState state) {
        // The elements records come in first, each in a method of its own: the JIT compiles what
        // every record runs small, and the rest apart.
        if (element instanceof SplitElement.Changes) {
            countRecords(emitChanges(((SplitElement.Changes<T>) element).changes, output, state));
        } else if (element instanceof SplitElement.Change) {
            SplitElement.Change<T> change = (SplitElement.Change<T>) element;
            countRecords(change.records);
            emitChange(change, output, state);
        } else if (element instanceof SplitElement.CopyBatch) {
            SplitElement.CopyBatch<T> batch = (SplitElement.CopyBatch<T>) element;
            countRecords(emitChanges(batch.changes, output, state));
            state.markReached(batch.position, batch.copyCompleted);
        } else {
            countRecords(0);
            emitOther(element, output, state);
        }
    }

    /** Corrects {@code numRecordsIn}, which counted the element as one record, to its {@code records}. */
    private void countRecords(long records) {
        if (records != 1) {
            numRecordsIn.inc(records - 1);
        }
    }

    /** Emits the changes in order; returns how many change records they are. */
    private static <T> long emitChanges(
            List<SplitElement.Change<T>> changes, SourceOutput<T> output, VitessSplitState state) {
        long records = 0;
        for (SplitElement.Change<T> change : changes) {
            records += change.records;
            emitChange(change, output, state);
        }
        return records;
    }

    /** An element that is no change record: a mark, a heartbeat, a copy completion, a journal. */
    private void emitOther(SplitElement<T> element, SourceOutput<T> output, VitessSplitState state) {
        if (element instanceof SplitElement.Mark) {
            SplitElement.Mark<T> mark = (SplitElement.Mark<T>) element;
            state.markReached(mark.position, mark.copyCompleted);
        } else if (element instanceof SplitElement.Heartbeat) {
            onHeartbeat(((SplitElement.Heartbeat<T>) element).timestampMillis, output, state);
        } else if (element instanceof SplitElement.CopyCompleted) {
            state.copyCompleted();
        } else if (element instanceof SplitElement.JournalReached) {
            state.journalReached(((SplitElement.JournalReached<T>) element).journal);
        }
    }

    private static <T> void emitChange(SplitElement.Change<T> change, SourceOutput<T> output, VitessSplitState state) {
        if (change.snapshot || change.commitTimestampMillis <= 0) {
            for (T value : change.values) {
                output.collect(value);
            }
        } else {
            for (T value : change.values) {
                output.collect(value, change.commitTimestampMillis);
            }
        }
        state.recordsEmitted(change.records, change.snapshot);
    }

    private void onHeartbeat(long timestampMillis, SourceOutput<T> output, VitessSplitState state) {
        if (!heartbeatWatermarks || state.recordsSinceMark() > 0) {
            return;
        }
        long watermark = splitHeartbeats
                .computeIfAbsent(state.splitId(), heartbeats::forSplit)
                .at(timestampMillis);
        if (watermark != HeartbeatWatermarks.NONE) {
            output.emitWatermark(new Watermark(watermark));
        }
        if (state.idleSinceLastHeartbeat()) {
            output.markIdle();
        }
    }
}
