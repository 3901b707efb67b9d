/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.event;

import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.split.ReshardJournal;
import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

import java.util.Objects;

/**
 * Reader to enumerator: the split's shard ended at a reshard journal.
 *
 * <p>{@code durable} says that a completed checkpoint of the reader already holds the split as
 * ended, so no restore can read the shard again; the enumerator starts the new shards only on
 * durable reports of every participant (a tentative report, sent at once, is acted on only by
 * an enumerator that has never seen a checkpoint — checkpointing off). Reports are repeated
 * until a {@link ShardEndedAck} comes back; the enumerator treats repeats as no-ops.
 */
@Internal
public final class ShardEndedEvent implements SourceEvent {

    private static final long serialVersionUID = 1L;

    private final String keyspace;
    private final String shard;
    private final ReshardJournal journal;
    private final boolean durable;
    private final long epoch;
    /** The split's final position: its last mark, with the cursors of its chunked snapshots. */
    private final Position finalPosition;

    public ShardEndedEvent(String keyspace, String shard, ReshardJournal journal, boolean durable, long epoch) {
        this(keyspace, shard, journal, durable, epoch, null);
    }

    public ShardEndedEvent(
            String keyspace,
            String shard,
            ReshardJournal journal,
            boolean durable,
            long epoch,
            Position finalPosition) {
        this.keyspace = Objects.requireNonNull(keyspace);
        this.shard = Objects.requireNonNull(shard);
        this.journal = Objects.requireNonNull(journal);
        this.durable = durable;
        this.epoch = epoch;
        this.finalPosition = finalPosition;
    }

    public static ShardEndedEvent of(VitessSplit split, boolean durable) {
        return new ShardEndedEvent(
                split.keyspace(), split.shard(), split.endedBy(), durable, split.epoch(), split.position());
    }

    public String keyspace() {
        return keyspace;
    }

    public String shard() {
        return shard;
    }

    public String splitId() {
        return VitessSplit.splitId(keyspace, shard);
    }

    public ReshardJournal journal() {
        return journal;
    }

    public boolean durable() {
        return durable;
    }

    /**
     * The split's final position (its last mark): the chunked snapshots it was taking go on from
     * its cursors on the journal's new shards. Null from a sender that did not say.
     */
    public Position finalPosition() {
        return finalPosition;
    }

    /** The order epoch of the split that ended: the journal's new shards get a higher one. */
    public long epoch() {
        return epoch;
    }

    @Override
    public String toString() {
        return "ShardEndedEvent{" + splitId() + ", " + journal + ", epoch " + epoch
                + (durable ? ", durable" : ", tentative") + "}";
    }
}
