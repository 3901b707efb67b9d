/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.util.List;

/**
 * One entry of a batch, in stream order. Records ({@link VitessRecord}) and table descriptors
 * ({@link TableDescriptor}) are classes of their own; the markers are the small records nested
 * here.
 */
public sealed interface BatchEntry
        permits TableDescriptor,
                VitessRecord,
                BatchEntry.PositionMark,
                BatchEntry.Heartbeat,
                BatchEntry.ShardCopyCompleted,
                BatchEntry.CopyCompleted,
                BatchEntry.Ddl,
                BatchEntry.Journal,
                BatchEntry.EndOfStream,
                BatchEntry.Unknown {

    /**
     * A committed position of one shard: resuming from {@link #position()} yields exactly the
     * entries after this mark. The position is opaque (store it as it is; {@link Position#toJson()}
     * renders it for people); {@code copyCompleted} is the fact the mark carries beside it: the
     * shard's copy phase finished (or it never needed one).
     */
    record PositionMark(String keyspace, String shard, boolean copyCompleted, Position position)
            implements BatchEntry {}

    /** No data, but time moved on (drives watermarks of idle shards). */
    record Heartbeat(long timestampMillis) implements BatchEntry {}

    /** The copy (snapshot) phase of one shard finished. */
    record ShardCopyCompleted(String keyspace, String shard) implements BatchEntry {}

    /** The copy phase of the whole stream finished. */
    record CopyCompleted() implements BatchEntry {}

    /** A DDL statement applied on a shard. */
    record Ddl(String keyspace, String shard, long commitTimestampMillis, String statement) implements BatchEntry {}

    /** A shard named by keyspace and shard range. */
    record ShardRef(String keyspace, String shard) {}

    /**
     * Resharding: {@code shard}'s stream reached the reshard journal {@code id} and ends here.
     * {@code ended} lists every participant of the journal (each reports its own), {@code started}
     * the new shards with their start positions. {@code shard} is {@code null} and {@code id} 0 for
     * an entry written by a library older than these fields.
     */
    record Journal(List<ShardRef> ended, List<PositionMark> started, ShardRef shard, long id) implements BatchEntry {}

    /** Snapshot-only mode: the stream ended; nothing follows. */
    record EndOfStream() implements BatchEntry {}

    /** An entry kind newer than this decoder; skipped safely thanks to the entry framing. */
    record Unknown(int tag, int length) implements BatchEntry {}
}
