/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * How a {@link VitessSource} started with {@link StartupMode#INITIAL} takes its first snapshot
 * (docs/snapshots.md).
 */
@PublicEvolving
public enum InitialSnapshot {
    /**
     * VStream's in-stream copy (the default): per shard, tables one after another, the change log
     * held back while a table is copied; a retract changelog.
     */
    COPY,
    /**
     * A chunked snapshot of every selected table beside a change log that starts at once: chunks in
     * parallel, the log never waits. Its rows are snapshot reads ({@code ChangeKind.SNAPSHOT_READ})
     * applied as upserts, so the changelog is an upsert one.
     */
    CHUNKED;

    /** The value of the SQL option {@code scan.initial-snapshot} and the native option {@code initial_snapshot}. */
    public String optionValue() {
        return OptionValues.of(this);
    }

    /** The mode of an option value, case-insensitively. */
    public static InitialSnapshot fromOptionValue(String value) {
        InitialSnapshot found = OptionValues.find(InitialSnapshot.class, value);
        if (found != null) {
            return found;
        }
        throw new IllegalArgumentException(
                "unknown initial snapshot '" + value + "': use 'copy' (the in-stream VStream copy) or 'chunked'");
    }
}
