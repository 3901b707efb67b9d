/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;
import io.vitesscdc.source.testutils.DebeziumJson;
import io.vitesscdc.source.testutils.MultiProcessCluster;
import io.vitesscdc.source.testutils.TestTimeouts;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Flink job (parallelism 2, both shards of {@code customer}) reading through the multi-process
 * local Vitess's mutual-TLS VTGate with static authentication (tests/vitess/cluster/up.sh, then
 * {@code source tests/vitess/cluster/env.sh}): the snapshot and the changes after it arrive; a wrong
 * password fails the job with the message naming the credentials. The core's TLS cases one by
 * one are in rust/core/tests/cluster_tls.rs.
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessSourceTlsITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private static String env(String name) {
        return MultiProcessCluster.env(name);
    }

    private static VitessSourceBuilder<String> mtlsSource(String password) {
        return VitessSource.<String>builder()
                .address(env("VT_CLUSTER_MTLS_GRPC_ADDR"))
                .keyspace("customer")
                .tables("customer")
                .credentials(env("VT_CLUSTER_TLS_USER"), password)
                .tls(
                        env("VT_CLUSTER_TLS_CA"),
                        env("VT_CLUSTER_TLS_CLIENT_CERT"),
                        env("VT_CLUSTER_TLS_CLIENT_KEY"),
                        null)
                .retryMaxAttempts(2)
                .deserializer(new JsonDebeziumDeserializationSchema());
    }

    /** Runs statements through the cluster's plaintext VTGate (MySQL port, no password). */
    private static void execute(String... sql) throws SQLException {
        String url = "jdbc:mysql://127.0.0.1:" + env("VT_CLUSTER_MYSQL_PORT")
                + "/customer?user=vitess_cdc_it&useSSL=false&allowPublicKeyRetrieval=true&connectTimeout=5000";
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    private static void insertCustomers(long from, int count) throws SQLException {
        StringBuilder sql = new StringBuilder("INSERT INTO customer (customer_id, email) VALUES ");
        for (int i = 0; i < count; i++) {
            sql.append(i == 0 ? "" : ", ")
                    .append("(")
                    .append(from + i)
                    .append(", 'tls-")
                    .append(i)
                    .append("')");
        }
        execute(sql.toString());
    }

    @Test
    void jobReadsSnapshotAndChangesOverMutualTlsWithStaticAuth() throws Exception {
        // An id range of this run: the cluster may hold rows of earlier runs.
        long base = (System.currentTimeMillis() % 1_000_000_000L) * 1_000L;
        insertCustomers(base, 20);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        Set<Long> seen = new TreeSet<>();
        Set<Long> expected = new TreeSet<>();
        for (long id = base; id < base + 40; id++) {
            expected.add(id);
        }
        try (CloseableIterator<String> events = env.fromSource(
                        mtlsSource(env("VT_CLUSTER_TLS_PASSWORD")).build(),
                        WatermarkStrategy.noWatermarks(),
                        "vitess-tls")
                .executeAndCollect("vitess-over-mtls")) {
            long deadline = System.nanoTime() + TestTimeouts.CONVERGE.toNanos();
            boolean streamedInserted = false;
            while (!seen.containsAll(expected)) {
                assertThat(System.nanoTime())
                        .as("rows %s over mTLS; seen %s", expected, seen)
                        .isLessThan(deadline);
                if (!streamedInserted && seen.size() >= 20) {
                    // the snapshot is in: these arrive as changes
                    insertCustomers(base + 20, 20);
                    streamedInserted = true;
                }
                if (!events.hasNext()) {
                    break;
                }
                JsonNode event = DebeziumJson.parse(events.next());
                JsonNode after = event.path("after");
                if (after.has("customer_id")) {
                    long id = after.path("customer_id").asLong();
                    if (id >= base && id < base + 40) {
                        seen.add(id);
                    }
                }
            }
        } finally {
            execute("DELETE FROM customer WHERE customer_id >= " + base + " AND customer_id < " + (base + 40));
        }
        assertThat(seen).as("snapshot and streamed rows over mTLS").isEqualTo(expected);
    }

    @Test
    void aWrongPasswordFailsTheJobNamingTheCredentials() {
        Configuration noRestarts = new Configuration();
        noRestarts.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(noRestarts);
        env.setParallelism(2);
        Duration started = Duration.ofNanos(System.nanoTime());
        assertThatThrownBy(() -> {
                    try (CloseableIterator<String> events = env.fromSource(
                                    mtlsSource("not-the-password").build(),
                                    WatermarkStrategy.noWatermarks(),
                                    "vitess-tls")
                            .executeAndCollect("vitess-wrong-password")) {
                        while (events.hasNext()) {
                            events.next();
                        }
                    }
                })
                .hasStackTraceContaining("rejected the credentials")
                .hasStackTraceContaining("check username and password");
        assertThat(Duration.ofNanos(System.nanoTime()).minus(started))
                .isLessThan(TestTimeouts.REJECTED_CREDENTIALS_FAIL_WITHIN);
    }
}
