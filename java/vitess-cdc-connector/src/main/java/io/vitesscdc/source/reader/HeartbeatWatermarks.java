/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;

/**
 * What a VTGate heartbeat proves to a split's watermark. A heartbeat at time {@code T} means the
 * shard's log had nothing to send: no change committed before {@code T} can still arrive on it, so
 * event time may pass {@code T} although no record says so (a window closes on a quiet table).
 *
 * <p>The DataStream source, whose watermark strategy the connector never sees, takes {@code T}
 * itself ({@link #AT_HEARTBEAT}). The SQL connector applies the table's own {@code WATERMARK}
 * expression to a heartbeat row whose {@code op_ts} is {@code T}, so the heartbeat's watermark
 * keeps the declared delay (e.g. {@code op_ts - INTERVAL '1' SECOND} gives {@code T - 1 s}).
 */
@Internal
public interface HeartbeatWatermarks extends Serializable {

    /** No watermark: the heartbeat proves nothing for this split. */
    long NONE = Long.MIN_VALUE;

    /** Heartbeats advance the watermark to their own time. */
    HeartbeatWatermarks AT_HEARTBEAT = splitId -> heartbeatMillis -> heartbeatMillis;

    /** The watermarks of one split, made on the task thread when its first heartbeat comes. */
    PerSplit forSplit(String splitId);

    /** One split's reading of its heartbeats. */
    interface PerSplit {
        /** The watermark a heartbeat at {@code heartbeatMillis} allows, or {@link #NONE}. */
        long at(long heartbeatMillis);
    }
}
