package io.vitesscdc.source.enumerator;

import io.vitesscdc.nativeio.NativeStream;
import io.vitesscdc.source.StartupMode;
import io.vitesscdc.source.config.VitessSourceConfig;
import io.vitesscdc.source.split.ShardPositions;

import org.apache.flink.annotation.Internal;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Discovers shards through the native core: it opens a stream with the source's own options (so
 * every configuration mistake — unknown keyspace or table, bad credentials, unreachable VTGate —
 * fails here, on the JobManager, with the core's message) and reads back the start positions the
 * core planned for every shard, then closes it before any data is read.
 *
 * <p>Using the core's planned start positions, rather than building them in Java, matters for the
 * copy phase: a fresh copy position lists the tables still to copy, which is what keeps a resume
 * from degrading to stream-only (vstream-protocol.md §4.3.4).
 *
 * <p>Starting "now" ({@code LATEST_OFFSET}, or gtid {@code current} in specific offsets) is resolved
 * here to each shard's real GTID set: the core's open returns only once VTGate has reported them.
 * A split therefore never carries {@code current}, which a checkpoint taken before the split's
 * first mark would otherwise store — and a restore would start at a later "now", losing every
 * change in between.
 */
@Internal
public final class NativeShardDiscovery implements ShardDiscovery {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CURRENT = "current";

    private final VitessSourceConfig config;

    public NativeShardDiscovery(VitessSourceConfig config) {
        this.config = config;
    }

    @Override
    public Map<String, String> discover() throws Exception {
        StartupMode mode = config.startupMode();
        String optionsJson = config.planningOptionsJson();
        Map<String, String> planned = new TreeMap<>();
        try (NativeStream stream = NativeStream.open(optionsJson)) {
            JsonNode shards = JSON.readTree(stream.positionsJson()).path("shards");
            for (JsonNode shard : shards) {
                planned.put(shard.path("shard").asText(), JSON.writeValueAsString(shard));
            }
        }
        if (planned.isEmpty()) {
            throw new IllegalStateException("VTGate at " + config.address() + " reports no shard for keyspace '"
                    + config.keyspace() + "'");
        }
        if (mode == StartupMode.LATEST_OFFSET || mode == StartupMode.SPECIFIC_OFFSETS) {
            for (Map.Entry<String, String> shard : planned.entrySet()) {
                if (CURRENT.equals(ShardPositions.gtid(shard.getValue()))) {
                    throw new IllegalStateException("the native core returned shard " + shard.getKey()
                            + " still at gtid 'current' after open; it must resolve 'current' to a GTID set");
                }
            }
        }
        if (mode != StartupMode.SPECIFIC_OFFSETS) {
            return planned;
        }
        Map<String, String> given = ShardPositions.parseSpecificOffsets(config.keyspace(), config.specificOffsets());
        List<String> missing = new ArrayList<>();
        Map<String, String> result = new LinkedHashMap<>();
        for (String shard : planned.keySet()) {
            String position = given.get(shard);
            if (position == null) {
                missing.add(shard);
            } else if (CURRENT.equals(ShardPositions.gtid(position))) {
                result.put(shard, planned.get(shard)); // "now", resolved by the latest-mode stream above
            } else {
                result.put(shard, position);
            }
        }
        List<String> unknown = new ArrayList<>(given.keySet());
        unknown.removeAll(planned.keySet());
        if (!missing.isEmpty() || !unknown.isEmpty()) {
            throw new IllegalArgumentException("the specific offsets must give exactly one position per shard of keyspace '"
                    + config.keyspace() + "' " + planned.keySet()
                    + (missing.isEmpty() ? "" : "; missing: " + missing)
                    + (unknown.isEmpty() ? "" : "; unknown shards: " + unknown)
                    + " — use gtid \"current\" for a shard to start it now, or \"\" to copy it first");
        }
        return result;
    }
}
