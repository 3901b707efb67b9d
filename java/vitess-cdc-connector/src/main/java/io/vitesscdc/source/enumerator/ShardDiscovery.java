/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import io.vitesscdc.nativeio.Position;

import org.apache.flink.annotation.Internal;

import java.util.Map;

/**
 * Finds the shards a source reads and the position each starts from when nothing was restored.
 * A seam so the enumerator can be tested without a server.
 */
@Internal
@FunctionalInterface
public interface ShardDiscovery {

    /**
     * The shards to read, each with its start position (the core's, opaque), in a stable order:
     * keyed by shard, or by split id ({@code keyspace/shard}) when the source reads several
     * keyspaces.
     *
     * @throws Exception with a message naming the cause (unknown keyspace, unreachable VTGate...)
     */
    Map<String, Position> discover() throws Exception;
}
