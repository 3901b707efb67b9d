/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.event;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

import java.util.Objects;

/**
 * Enumerator to reader: the report that the split ended at a reshard journal is in the
 * enumerator's hands (and, being sent before the enumerator's next checkpoint, in that
 * checkpoint too), so the reader can drop the ended split from its state.
 */
@Internal
public final class ShardEndedAck implements SourceEvent {

    private static final long serialVersionUID = 1L;

    private final String splitId;
    private final long journalId;

    public ShardEndedAck(String splitId, long journalId) {
        this.splitId = Objects.requireNonNull(splitId);
        this.journalId = journalId;
    }

    public String splitId() {
        return splitId;
    }

    public long journalId() {
        return journalId;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShardEndedAck
                && ((ShardEndedAck) o).splitId.equals(splitId)
                && ((ShardEndedAck) o).journalId == journalId;
    }

    @Override
    public int hashCode() {
        return Objects.hash(splitId, journalId);
    }

    @Override
    public String toString() {
        return "ShardEndedAck{" + splitId + ", journal " + journalId + "}";
    }
}
