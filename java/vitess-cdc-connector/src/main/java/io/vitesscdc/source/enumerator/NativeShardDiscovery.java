/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import io.vitesscdc.nativeio.NativeStream;
import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.StartupMode;
import io.vitesscdc.source.config.VitessSourceConfig;
import io.vitesscdc.source.split.VitessSplit;

import org.apache.flink.annotation.Internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Discovers shards through the native core: one native call ({@link NativeStream#planStart})
 * connects with the source's own options (so every configuration mistake — unknown keyspace or
 * table, bad credentials, unreachable VTGate, bad specific offsets — fails here, on the
 * JobManager, with the core's message and code) and answers the start position of every shard,
 * without streaming.
 *
 * <p>The core plans the start positions, rather than Java, because positions are the core's:
 * a fresh copy position lists the tables still to copy, which is what keeps a resume from
 * degrading to stream-only (docs/architecture.md, protocol P3), and the user's VGTID offsets are read
 * and checked by the same code that reads every other position.
 *
 * <p>Starting "now" ({@code LATEST_OFFSET}, or gtid {@code current} in specific offsets) is resolved
 * by the core to each shard's real GTID set before the call returns. A split therefore never
 * carries {@code current}, which a checkpoint taken before the split's first mark would otherwise
 * store — and a restore would start at a later "now", losing every change in between.
 */
@Internal
public final class NativeShardDiscovery implements ShardDiscovery {

    private final VitessSourceConfig config;

    public NativeShardDiscovery(VitessSourceConfig config) {
        this.config = config;
    }

    @Override
    public Map<String, Position> discover() {
        String offsets = config.startupMode() == StartupMode.SPECIFIC_OFFSETS ? config.specificOffsets() : null;
        if (!config.severalKeyspaces()) {
            return NativeStream.planStart(config.planningOptionsJson(), offsets);
        }
        // Each keyspace is planned on its own (its shards, its tables); keyed keyspace/shard.
        Map<String, Position> all = new LinkedHashMap<>();
        for (String keyspace : config.keyspaces()) {
            NativeStream.planStart(config.forKeyspace(keyspace).planningOptionsJson(), offsets)
                    .forEach((shard, position) -> all.put(VitessSplit.splitId(keyspace, shard), position));
        }
        return all;
    }
}
