/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;
import io.vitesscdc.source.testutils.ChangelogRecorder;
import io.vitesscdc.source.testutils.DebeziumJson;
import io.vitesscdc.source.testutils.TestSink;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.connector.sink2.InitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Resharding end to end: a real MiniCluster (parallelism 2) reads a keyspace from the scripted
 * VTGate of {@code rust/testkit} ({@code reshard-vtgate}, a child process), whose shard -80 is
 * split into -40 and 40-80 while both shards stream changes. A real local Vitess cannot reshard
 * (vttestserver's topology is fixed), so the scenario is scripted; the connector, the native
 * library and Flink are the real ones.
 *
 * <p>Every key goes through versions 1..20 (10 on its first shard, 10 after the split); the sink
 * (parallelism 1) must receive every version of every key exactly once and, per key, in order —
 * new shards start only after the old one ended, across the two readers. A task failure in the
 * middle of the reshard restores consistently. The whole changelog must be a strict changelog
 * ({@link ChangelogRecorder}): rows the old shard emitted are retracted by the new shards.
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessSourceReshardITCase {

    private static final int KEYS = 40;
    private static final int BEFORE = 10;
    private static final int AFTER = 10;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private final String runId = "reshard-" + UUID.randomUUID();
    private Process vtgate;
    private String address;

    @BeforeEach
    void startScriptedVtgate() throws IOException {
        String bin = System.getProperty("vitesscdc.reshard.vtgate", "");
        assertThat(bin)
                .as("system property vitesscdc.reshard.vtgate: the reshard-vtgate binary (the Maven build makes it: "
                        + "cargo build -p vitess-cdc-testkit --bin reshard-vtgate)")
                .isNotEmpty();
        assertThat(new File(bin)).as("the reshard-vtgate binary").exists();
        vtgate = new ProcessBuilder(
                        bin,
                        "--keys",
                        String.valueOf(KEYS),
                        "--before",
                        String.valueOf(BEFORE),
                        "--after",
                        String.valueOf(AFTER),
                        "--batch",
                        "4",
                        "--pace-ms",
                        "40")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(vtgate.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("reshard-vtgate's first line").startsWith("listening on ");
        address = line.substring("listening on ".length()).trim();
    }

    @AfterEach
    void stopScriptedVtgate() throws Exception {
        CollectingSink.RECEIVED.remove(runId);
        ChangelogRecorder.drop(runId);
        if (vtgate != null) {
            vtgate.getOutputStream().close(); // it exits when stdin closes
            if (!vtgate.waitFor(TestTimeouts.PROCESS_EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                vtgate.destroyForcibly();
            }
        }
    }

    @Test
    void aSplitKeepsEveryKeyInOrderWithNothingLostOrRepeated() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        VitessSource<String> source = VitessSource.<String>builder()
                .address(address)
                .keyspace("ks")
                .tables("t")
                .startupMode(StartupMode.LATEST_OFFSET)
                .heartbeatInterval(Duration.ofSeconds(1))
                .deserializer(new JsonDebeziumDeserializationSchema())
                .build();
        DataStream<String> changes = env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source");
        ChangelogRecorder.record(changes, runId, "strict-changelog", DebeziumJson.changes("id"))
                .sinkTo(new CollectingSink(runId))
                .uid("sink")
                .setParallelism(1);
        int expected = KEYS * (BEFORE + AFTER);
        JobClient job = env.executeAsync("vitess-reshard");
        try {
            long deadline = System.nanoTime() + TestTimeouts.CONVERGE_AFTER_RESTORE.toNanos();
            while (received().size() < expected && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            // A repeat would leave its split before that split's last records, which arrived: the
            // checkpoint awaited here starts after them, so its barrier follows any repeat to the
            // sink and its completion proves none is still on the way.
            ChangelogRecorder.awaitCheckpointed(runId, TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(job);
        }

        List<String> events = received();
        Map<Long, List<Integer>> versionsByKey = new TreeMap<>();
        Map<Long, List<long[]>> orderByKey = new TreeMap<>();
        for (String e : events) {
            JsonNode event = parse(e);
            JsonNode after = event.path("after");
            long id = after.path("id").asLong();
            int version = Integer.parseInt(after.path("v").asText().substring(1));
            versionsByKey.computeIfAbsent(id, k -> new ArrayList<>()).add(version);
            JsonNode origin = event.path("source");
            orderByKey.computeIfAbsent(id, k -> new ArrayList<>()).add(new long[] {
                origin.path("epoch").asLong(), origin.path("rank").asLong(), version
            });
        }
        // Order metadata: each key's changes, shuffled and sorted by (epoch, rank), are in their
        // true order; the changes an odd key makes on 80- and an even key's on -80 are epoch 0, an
        // even key's on the new shards -40 and 40-80 epoch 1 (see the scripted reshard).
        java.util.Random shuffle = new java.util.Random(7);
        for (Map.Entry<Long, List<long[]>> e : orderByKey.entrySet()) {
            List<long[]> shuffled = new ArrayList<>(e.getValue());
            java.util.Collections.shuffle(shuffled, shuffle);
            shuffled.sort((a, b) -> ChangeOrder.compare(a[0], a[1], b[0], b[1]));
            List<Long> versions = new ArrayList<>();
            for (long[] c : shuffled) {
                versions.add(c[2]);
                assertThat(c[0])
                        .as("epoch of key %s version %s", e.getKey(), c[2])
                        .isEqualTo(e.getKey() % 2 == 0 && c[2] > BEFORE ? 1 : 0);
                assertThat(c[1])
                        .as("rank of key %s version %s", e.getKey(), c[2])
                        .isPositive();
            }
            assertThat(versions)
                    .as("key %s's changes shuffled, then sorted by (epoch, rank)", e.getKey())
                    .isSortedAccordingTo(Long::compare)
                    .hasSize(BEFORE + AFTER);
        }
        List<Integer> all = new ArrayList<>();
        for (int v = 1; v <= BEFORE + AFTER; v++) {
            all.add(v);
        }
        assertThat(versionsByKey).as("keys").hasSize(KEYS);
        for (Map.Entry<Long, List<Integer>> e : versionsByKey.entrySet()) {
            assertThat(e.getValue())
                    .as(
                            "versions of key %s in arrival order (lost, repeated or reordered across the reshard?)",
                            e.getKey())
                    .isEqualTo(all);
        }
        assertThat(events).hasSize(expected);
        ChangelogRecorder.assertStrict(runId);
    }

    /**
     * A task failure in the middle of the reshard — right after the old shard's last change (its
     * journal is being reported), or at the first change of a new shard (the new splits were just
     * assigned) — restores from the last checkpoint; a keyed check whose state restores with the
     * source sees every key's versions consecutive (nothing lost, repeated or reordered), and
     * every key reaches its last version.
     */
    @ParameterizedTest
    @ValueSource(strings = {"last-old-change", "first-new-change"})
    void aFailoverInTheMiddleOfTheReshardRestoresConsistently(String failAt) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        Configuration restart = new Configuration();
        restart.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        env.configure(restart);
        VitessSource<String> source = VitessSource.<String>builder()
                .address(address)
                .keyspace("ks")
                .tables("t")
                .startupMode(StartupMode.LATEST_OFFSET)
                .heartbeatInterval(Duration.ofSeconds(1))
                .deserializer(new JsonDebeziumDeserializationSchema())
                .build();
        FailOnce.FAILED.remove(runId);
        DataStream<String> changes = env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source")
                .map(new FailOnce(runId, failAt))
                .uid("fail-once");
        ChangelogRecorder.record(changes, runId, "strict-changelog", DebeziumJson.changes("id"))
                .keyBy(new KeyOf())
                .process(new ConsecutiveVersions(runId, BEFORE + AFTER))
                .uid("check")
                .sinkTo(new CollectingSink(runId))
                .uid("sink")
                .setParallelism(1);
        JobClient job = env.executeAsync("vitess-reshard-failover-" + failAt);
        try {
            long deadline = System.nanoTime() + TestTimeouts.RESHARD.toNanos();
            while (new HashSet<>(received()).size() < KEYS && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            // As above: the checkpoint's barrier follows any repeat to the sink.
            ChangelogRecorder.awaitCheckpointed(runId, TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(job);
        }
        assertThat(FailOnce.FAILED).as("the injected failure happened").contains(runId);
        assertThat(ConsecutiveVersions.VIOLATIONS.getOrDefault(runId, List.of()))
                .as("keys whose versions were not consecutive")
                .isEmpty();
        assertThat(new TreeSet<>(received()))
                .as("keys that reached their last version")
                .hasSize(KEYS);
        ChangelogRecorder.assertStrict(runId);
        ConsecutiveVersions.VIOLATIONS.remove(runId);
        FailOnce.FAILED.remove(runId);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode parse(String event) {
        try {
            return JSON.readTree(event);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class KeyOf implements KeySelector<String, Long> {
        @Override
        public Long getKey(String event) {
            return parse(event).path("after").path("id").asLong();
        }
    }

    /** Throws once per run, at the chosen point of the reshard. */
    private static final class FailOnce implements MapFunction<String, String> {
        static final Set<String> FAILED = ConcurrentHashMap.newKeySet();
        private final String runId;
        private final String failAt;

        FailOnce(String runId, String failAt) {
            this.runId = runId;
            this.failAt = failAt;
        }

        @Override
        public String map(String event) {
            JsonNode e = parse(event);
            String shard = e.path("source").path("shard").asText();
            long id = e.path("after").path("id").asLong();
            int version = Integer.parseInt(e.path("after").path("v").asText().substring(1));
            boolean here = "last-old-change".equals(failAt)
                    ? shard.equals("-80") && version == BEFORE && id == KEYS - 2
                    : shard.equals("-40") || shard.equals("40-80");
            if (here && FAILED.add(runId)) {
                throw new IllegalStateException(
                        "injected failure at " + failAt + " (" + shard + ", key " + id + ", v" + version + ")");
            }
            return event;
        }
    }

    /**
     * Keyed, checkpointed: the last version of each key; records a violation when a version is not
     * the next one, emits the key when it reaches its last version.
     */
    private static final class ConsecutiveVersions extends KeyedProcessFunction<Long, String, String> {
        static final Map<String, List<String>> VIOLATIONS = new ConcurrentHashMap<>();
        private final String runId;
        private final int last;
        private transient ValueState<Integer> seen;

        ConsecutiveVersions(String runId, int last) {
            this.runId = runId;
            this.last = last;
        }

        @Override
        public void open(OpenContext context) {
            seen = getRuntimeContext().getState(new ValueStateDescriptor<>("version", Integer.class));
        }

        @Override
        public void processElement(String event, Context ctx, Collector<String> out) throws Exception {
            int version = Integer.parseInt(
                    parse(event).path("after").path("v").asText().substring(1));
            int previous = seen.value() == null ? 0 : seen.value();
            if (version != previous + 1) {
                VIOLATIONS
                        .computeIfAbsent(runId, k -> Collections.synchronizedList(new ArrayList<>()))
                        .add("key " + ctx.getCurrentKey() + ": v" + version + " after v" + previous);
            }
            seen.update(Math.max(previous, version));
            if (version == last) {
                out.collect(String.valueOf(ctx.getCurrentKey()));
            }
        }
    }

    private List<String> received() {
        List<String> list = CollectingSink.RECEIVED.getOrDefault(runId, Collections.emptyList());
        synchronized (list) {
            return new ArrayList<>(list);
        }
    }

    /** Appends every element, in arrival order, to a list per run (parallelism 1). */
    private static final class CollectingSink extends TestSink<String> {
        static final Map<String, List<String>> RECEIVED = new ConcurrentHashMap<>();
        private final String runId;

        CollectingSink(String runId) {
            this.runId = runId;
        }

        @Override
        protected SinkWriter<String> newWriter(InitContext context) {
            List<String> list = RECEIVED.computeIfAbsent(runId, k -> Collections.synchronizedList(new ArrayList<>()));
            return new SinkWriter<>() {
                @Override
                public void write(String element, Context context) {
                    list.add(element);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
