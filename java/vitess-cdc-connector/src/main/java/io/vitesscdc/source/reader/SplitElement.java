/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.split.ReshardJournal;

import org.apache.flink.annotation.Internal;

import java.util.List;

/**
 * What the fetcher thread hands to the record emitter for one split, in shard order. Records are
 * already converted to the output type (the native batch they came from is reused by the next
 * poll), so these objects own their data.
 *
 * @param <T> the source's output type
 */
@Internal
public interface SplitElement<T> {

    /**
     * One change record, an update's before and after records together (so a checkpoint never
     * falls between them), or a run of plain records (inserts, deletes, copied rows) of one
     * commit joined as they were converted: the values they converted to (any number, in order),
     * how many native records they are, their commit time and phase.
     */
    final class Change<T> implements SplitElement<T> {
        final List<T> values;
        /** Grows only on the fetcher thread, while the change is joined, before it is handed out. */
        int records;

        final long commitTimestampMillis;
        final boolean snapshot;
        /** A plain record's change, which the next plain record of the same commit may join. */
        final boolean joinable;

        Change(List<T> values, long commitTimestampMillis, boolean snapshot) {
            this(values, 1, commitTimestampMillis, snapshot, false);
        }

        Change(List<T> values, int records, long commitTimestampMillis, boolean snapshot, boolean joinable) {
            this.values = values;
            this.records = records;
            this.commitTimestampMillis = commitTimestampMillis;
            this.snapshot = snapshot;
            this.joinable = joinable;
        }

        /**
         * Whether a plain record of this phase and commit time can be joined to this change: at
         * most an element's records ({@link VitessRecords#MAX_RECORDS_PER_ELEMENT}), as a
         * checkpoint falls between elements, not inside one.
         */
        boolean joins(boolean snapshot, long commitTimestampMillis) {
            return joinable
                    && records < VitessRecords.MAX_RECORDS_PER_ELEMENT
                    && this.snapshot == snapshot
                    && this.commitTimestampMillis == commitTimestampMillis;
        }

        /**
         * This update-before change completed by its update-after record, whose values were
         * collected into {@link #values} after the before image's: one element of both records.
         */
        Change<T> completedAt(long afterCommitTimestampMillis) {
            return new Change<>(values, records + 1, afterCommitTimestampMillis, snapshot, false);
        }

        @Override
        public String toString() {
            return "Change" + values;
        }
    }

    /**
     * The records of one copy batch together with the mark that ends it, emitted as one unit so a
     * checkpoint never falls inside a copy batch. A copy batch cannot be replayed record for
     * record (a resumed copy reads a fresh snapshot), so counting records inside it would not be
     * exact; a binlog transaction can, so it is not grouped.
     */
    final class CopyBatch<T> implements SplitElement<T> {
        final List<Change<T>> changes;
        final Position position;
        final boolean copyCompleted;

        CopyBatch(List<Change<T>> changes, Position position, boolean copyCompleted) {
            this.changes = changes;
            this.position = position;
            this.copyCompleted = copyCompleted;
        }

        @Override
        public String toString() {
            return "CopyBatch{" + changes.size() + " records, " + position + "}";
        }
    }

    /**
     * Consecutive changes of one split from one fetch, emitted in one go: one element through
     * Flink's reader loop instead of one per record. The split state still counts every record
     * as it is emitted, so a checkpoint after the element is exact, as after each change.
     */
    final class Changes<T> implements SplitElement<T> {
        final List<Change<T>> changes = new java.util.ArrayList<>();
        /** The records of {@link #changes}. */
        int records;

        Changes(Change<T> first, Change<T> second) {
            changes.add(first);
            changes.add(second);
            records = first.records + second.records;
        }

        void add(Change<T> change) {
            changes.add(change);
            records += change.records;
        }

        @Override
        public String toString() {
            return "Changes" + changes;
        }
    }

    /** The shard reached a committed position. */
    final class Mark<T> implements SplitElement<T> {
        final Position position;
        /** The fact the mark carried: the shard's copy phase finished. */
        final boolean copyCompleted;

        Mark(Position position, boolean copyCompleted) {
            this.position = position;
            this.copyCompleted = copyCompleted;
        }

        @Override
        public String toString() {
            return "Mark{" + position + "}";
        }
    }

    /** VTGate had nothing to send for a while: event time moved on to this instant. */
    final class Heartbeat<T> implements SplitElement<T> {
        final long timestampMillis;

        Heartbeat(long timestampMillis) {
            this.timestampMillis = timestampMillis;
        }
    }

    /** The shard's copy phase finished. */
    final class CopyCompleted<T> implements SplitElement<T> {}

    /** The shard reached a reshard journal and ends: the last element of its split. */
    final class JournalReached<T> implements SplitElement<T> {
        final ReshardJournal journal;

        JournalReached(ReshardJournal journal) {
            this.journal = journal;
        }

        @Override
        public String toString() {
            return "JournalReached{" + journal + "}";
        }
    }
}
