package io.vitesscdc.source;

import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
 * new shards start only after the old one ended, across the two readers.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class VitessSourceReshardITCase {

    private static final int KEYS = 40;
    private static final int BEFORE = 10;
    private static final int AFTER = 10;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder()
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
        vtgate = new ProcessBuilder(bin, "--keys", String.valueOf(KEYS), "--before", String.valueOf(BEFORE),
                "--after", String.valueOf(AFTER), "--batch", "4", "--pace-ms", "40")
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
        if (vtgate != null) {
            vtgate.getOutputStream().close(); // it exits when stdin closes
            if (!vtgate.waitFor(10, TimeUnit.SECONDS)) {
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
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source")
                .sinkTo(new CollectingSink(runId))
                .uid("sink")
                .setParallelism(1);
        int expected = KEYS * (BEFORE + AFTER);
        JobClient job = env.executeAsync("vitess-reshard");
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (received().size() < expected && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            Thread.sleep(1500); // anything beyond the expected (a repeat) would arrive now
        } finally {
            job.cancel().get();
        }

        List<String> events = received();
        Map<Long, List<Integer>> versionsByKey = new TreeMap<>();
        ObjectMapper json = new ObjectMapper();
        for (String e : events) {
            JsonNode after = json.readTree(e).path("after");
            long id = after.path("id").asLong();
            int version = Integer.parseInt(after.path("v").asText().substring(1));
            versionsByKey.computeIfAbsent(id, k -> new ArrayList<>()).add(version);
        }
        List<Integer> all = new ArrayList<>();
        for (int v = 1; v <= BEFORE + AFTER; v++) {
            all.add(v);
        }
        assertThat(versionsByKey).as("keys").hasSize(KEYS);
        for (Map.Entry<Long, List<Integer>> e : versionsByKey.entrySet()) {
            assertThat(e.getValue())
                    .as("versions of key %s in arrival order (lost, repeated or reordered across the reshard?)",
                            e.getKey())
                    .isEqualTo(all);
        }
        assertThat(events).hasSize(expected);
    }

    private List<String> received() {
        List<String> list = CollectingSink.RECEIVED.getOrDefault(runId, Collections.emptyList());
        synchronized (list) {
            return new ArrayList<>(list);
        }
    }

    /** Appends every element, in arrival order, to a list per run (parallelism 1). */
    private static final class CollectingSink implements Sink<String> {
        static final Map<String, List<String>> RECEIVED = new ConcurrentHashMap<>();
        private final String runId;

        CollectingSink(String runId) {
            this.runId = runId;
        }

        @Override
        public SinkWriter<String> createWriter(WriterInitContext context) {
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
