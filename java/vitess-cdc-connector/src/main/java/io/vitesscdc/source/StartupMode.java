/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import org.apache.flink.annotation.PublicEvolving;

/** Where a {@link VitessSource} starts reading when it does not restore from a checkpoint. */
@PublicEvolving
public enum StartupMode {
    /** Copy the selected tables (consistent snapshot per shard), then stream every later change. */
    INITIAL,
    /** Stream changes from the current position of every shard; no snapshot. */
    LATEST_OFFSET,
    /** Resume from user-given positions (VGTID JSON, one entry per shard). */
    SPECIFIC_OFFSETS,
    /** Copy the selected tables, then finish: the source is bounded. */
    SNAPSHOT;

    /** True when the source ends by itself. */
    public boolean isBounded() {
        return this == SNAPSHOT;
    }
}
