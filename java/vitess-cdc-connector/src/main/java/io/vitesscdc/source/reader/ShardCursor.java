/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.split.ReshardJournal;
import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.annotation.Internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Fetch-side bookkeeping of one shard: how far the fetcher has handed elements to the emitter.
 * It mirrors {@link io.vitesscdc.source.split.VitessSplitState} one step ahead (fetched rather
 * than emitted), which is what a stream re-opened on the fetcher thread must resume from: every
 * fetched element will still be emitted.
 */
@Internal
final class ShardCursor<T> {

    final String splitId;
    final String keyspace;
    final String shard;
    /** The split's order epoch (see {@link io.vitesscdc.source.ChangeOrder}). */
    final long epoch;
    /** Position of the last mark handed out (or the split's start position). */
    Position position;
    /** Records handed out after {@link #position}. */
    long recordsSinceMark;
    /** Records still to drop after a (re)open: they were handed out before. */
    long skip;
    /** Copy-phase records waiting for the mark that closes their copy batch. */
    final List<SplitElement.Change<T>> pendingCopyBatch = new ArrayList<>();
    /** The records of {@link #pendingCopyBatch} (a change there may hold a run of them). */
    int pendingCopyRecords;
    /**
     * A streamed update-before change waiting for its update-after record: the two are handed out
     * as one element, so no checkpoint stores a position between them (a deserializer may hold
     * the before image until the after image comes, and a resume between them would lose it).
     */
    SplitElement.Change<T> pendingUpdateBefore;
    /** The pending update's before image was a bad record left out: its after image is left out too. */
    boolean updateSkipped;
    /** No more elements: bounded mode reached the shard's copy completion, or the stream ended. */
    boolean finished;
    /** Flink was told that the split finished. */
    boolean reported;
    /** The reshard journal the shard ended at, if any. */
    ReshardJournal endedBy;
    /** The tables {@link #position} has seen (empty: unknown); see {@link VitessSplit#tables()}. */
    List<String> tables;

    ShardCursor(VitessSplit split) {
        this.splitId = split.splitId();
        this.keyspace = split.keyspace();
        this.shard = split.shard();
        this.epoch = split.epoch();
        this.position = split.position();
        this.recordsSinceMark = split.recordsSinceMark();
        this.skip = split.recordsSinceMark();
        this.tables = split.tables();
    }

    /** Prepares a re-open from {@link #position}: records handed out since are skipped again. */
    void rewindToMark() {
        skip = recordsSinceMark;
        pendingCopyBatch.clear();
        pendingCopyRecords = 0;
        pendingUpdateBefore = null;
        updateSkipped = false;
    }
}
