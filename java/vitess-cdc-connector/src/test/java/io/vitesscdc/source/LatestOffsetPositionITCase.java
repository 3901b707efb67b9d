/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.nativeio.NativeStream;
import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.enumerator.NativeShardDiscovery;
import io.vitesscdc.source.testutils.ChangelogRecorder;
import io.vitesscdc.source.testutils.CustomerRangeITBase;
import io.vitesscdc.source.testutils.CustomerWriter;
import io.vitesscdc.source.testutils.DebeziumJson;
import io.vitesscdc.source.testutils.RenderedPositions;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Starting "now" never leaves a split at gtid {@code current}: shard discovery resolves it to
 * each shard's real GTID set (the core's open waits for VTGate's {@code VGTID, OTHER}), so a
 * checkpoint or savepoint taken right after the job starts — before any change arrived — restores
 * exactly there and not at a later "now" that would skip what happened in between.
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class LatestOffsetPositionITCase extends CustomerRangeITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(2);

    private static final ObjectMapper JSON = new ObjectMapper();

    LatestOffsetPositionITCase() {
        super("latest");
    }

    private static VitessSourceBuilder<String> builder() {
        return customerSource();
    }

    @Test
    void nativeStreamPositionsRightAfterOpenAreGtidSets() throws Exception {
        String options = builder()
                .startupMode(StartupMode.LATEST_OFFSET)
                .build()
                .config()
                .toNativeOptionsJson(List.of(), "latest");
        try (NativeStream stream = NativeStream.open(options)) {
            JsonNode shards = JSON.readTree(stream.positionsJson()).path("shards");
            assertThat(shards.size()).isEqualTo(2);
            for (JsonNode shard : shards) {
                assertThat(shard.path("gtid").asText())
                        .as("shard %s", shard.path("shard").asText())
                        .startsWith("MySQL56/");
            }
        }
    }

    @Test
    void discoveryResolvesLatestAndCurrentOffsetsToGtidSets() throws Exception {
        Map<String, Position> latest = new NativeShardDiscovery(
                        builder().startupMode(StartupMode.LATEST_OFFSET).build().config())
                .discover();
        assertThat(latest).containsOnlyKeys("-80", "80-");
        latest.forEach((shard, position) -> assertThat(RenderedPositions.gtid(position))
                .as("split position of %s", shard)
                .startsWith("MySQL56/"));

        // Specific offsets: "current" entries are resolved, a given GTID set is kept as given.
        Position given80 = latest.get("80-");
        String offsets = "{\"shard_gtids\":[{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":\"current\"},"
                + "{\"shard\":\"80-\",\"gtid\":" + JSON.writeValueAsString(RenderedPositions.gtid(given80)) + "}]}";
        Map<String, Position> specific = new NativeShardDiscovery(
                        builder().specificOffsets(offsets).build().config())
                .discover();
        assertThat(RenderedPositions.gtid(specific.get("-80"))).startsWith("MySQL56/");
        assertThat(RenderedPositions.gtid(specific.get("80-"))).isEqualTo(RenderedPositions.gtid(given80));
    }

    @Test
    void savepointRightAfterStartRestoresWithoutGap(@TempDir Path savepoints) throws Exception {
        // 1. Start from latest and take a savepoint at once: no change of ours has happened yet.
        JobClient first = buildJob().executeAsync("vitess-latest");
        String savepoint = stopWithSavepoint(first, savepoints);
        assertThat(materializedInRange()).isEmpty();

        // 2. While no job runs, rows change: a restore at "now" would never see them.
        writer.insertRows(40);
        writer.run(40);

        // 3. Restore: every change after the savepoint arrives.
        JobClient restored = executeRestored(buildJob(), savepoint, "vitess-latest-restored");
        try {
            range.awaitEqualToVitess(TestTimeouts.PROGRESS, "restored from a savepoint taken right after start");
            ChangelogRecorder.awaitCheckpointed(runId, TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(restored);
        }
        ChangelogRecorder.assertStrict(runId);
    }

    /**
     * Source → changelog recorder → materializing sink. The recorder keeps only this test's range:
     * the job starts from "now", so rows that existed before (other tests' ranges) are retracted
     * without having been emitted; every row of the range is inserted after the start. It needs
     * checkpoints to publish the log.
     */
    private StreamExecutionEnvironment buildJob() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(500);
        VitessSource<String> source =
                builder().startupMode(StartupMode.LATEST_OFFSET).build();
        DataStream<String> events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source");
        long base = writer.base();
        recordAndMaterialize(
                events,
                DebeziumJson.changes("customer_id")
                        .where(c -> CustomerWriter.inRange(
                                base, Long.parseLong((String) c.key().get(0)))));
        return env;
    }
}
