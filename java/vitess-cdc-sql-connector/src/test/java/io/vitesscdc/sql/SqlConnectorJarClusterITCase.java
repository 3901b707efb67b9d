/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.sql;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The shaded SQL jar on a real multi-process Flink cluster: a JobManager and a TaskManager run as
 * separate JVMs with Flink's jars only (no connector, no flink-connector-base), this JVM is the
 * SQL client (no connector on its classpath either), and the connector arrives through
 * {@code ADD JAR '<vitess-cdc-sql-connector.jar>'} alone — the way {@code sql-client.sh -j} ships
 * it. The jobs read customer.customer from the local Vitess (tests/vitess/up.sh); results come back
 * through the collect sink over the cluster's REST API and must equal {@code SELECT *} through
 * VTGate for this run's own id range.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SqlConnectorJarClusterITCase {

    private static final long RANGE = 1_000_000L;
    private static final String COLUMNS = "customer_id, email, name, balance, visits, updated_at";
    private static final String SCHEMA = "customer_id BIGINT, email STRING, name STRING, balance DECIMAL(12, 2), "
            + "visits INT, updated_at TIMESTAMP(6)";

    private static FlinkSessionCluster cluster;
    private static long base;
    private static Instant started;

    @BeforeAll
    static void startCluster() throws Exception {
        started = Instant.now();
        requireVitess();
        base = 6_000_000_000_000_000L + (System.currentTimeMillis() % 900_000_000L) * RANGE;
        String classpath = Files.readString(Path.of(property("vitesscdc.flink.cluster.classpath")))
                .strip();
        assertThat(classpath)
                .as("the cluster classpath holds Flink's jars")
                .contains("flink-runtime-", "flink-table-runtime-")
                .doesNotContain("vitess-cdc", "flink-connector-base");
        cluster = FlinkSessionCluster.start(
                Path.of(property("vitesscdc.flink.cluster.dir")), classpath, 2, SqlJarTestTimeouts.CLUSTER_START);
        System.out.printf(
                "Flink session cluster (2 processes) up in %d ms, REST port %d%n",
                Duration.between(started, Instant.now()).toMillis(), cluster.restPort());
    }

    @AfterAll
    static void stopCluster() throws Exception {
        try {
            if (cluster != null) {
                cluster.close();
                for (Process p : cluster.processes()) {
                    assertThat(p.isAlive())
                            .as("cluster process %d still alive", p.pid())
                            .isFalse();
                }
            }
        } finally {
            if (base != 0) {
                execute("DELETE FROM customer WHERE " + range());
            }
            System.out.printf(
                    "SqlConnectorJarClusterITCase took %d ms%n",
                    Duration.between(started, Instant.now()).toMillis());
        }
    }

    @Test
    void snapshotThroughTheShadedJarEqualsVitess() throws Exception {
        assertThatThrownBy(() -> Class.forName("io.vitesscdc.table.VitessDynamicTableFactory"))
                .as("the client JVM must not have the connector on its classpath")
                .isInstanceOf(ClassNotFoundException.class);
        insertRows(base, 60);

        TableEnvironment tEnv = remoteTableEnv();
        tEnv.executeSql("CREATE TABLE src (" + SCHEMA + ", shard STRING METADATA VIRTUAL, "
                + "PRIMARY KEY (customer_id) NOT ENFORCED)" + with("'scan.startup.mode' = 'snapshot'"));
        TableResult result = tEnv.executeSql("SELECT " + COLUMNS + ", shard FROM src WHERE " + range());
        String jobId = result.getJobClient().orElseThrow().getJobID().toString();
        Map<Long, String> rows = new TreeMap<>();
        Set<String> shards = new HashSet<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                assertThat(row.getKind()).isEqualTo(RowKind.INSERT);
                rows.put((Long) row.getField(0), text(row));
                shards.add((String) row.getField(6));
            }
        }
        assertThat(rows).isEqualTo(vitessRows());
        assertThat(rows).hasSize(60);
        assertThat(shards).as("both shards' splits read (parallelism 2)").containsExactlyInAnyOrder("-80", "80-");
        // It ran on the session cluster (and finished: snapshot mode is bounded).
        awaitJobStatus(jobId, "FINISHED", SqlJarTestTimeouts.JOB_STATUS);
    }

    @Test
    void changelogThroughTheShadedJarConvergesToVitess() throws Exception {
        long first = base + 100_000;
        insertRows(first, 30);
        TableEnvironment tEnv = remoteTableEnv();
        tEnv.executeSql("CREATE TABLE src (" + SCHEMA + ", PRIMARY KEY (customer_id) NOT ENFORCED)"
                + with("'scan.startup.mode' = 'initial'"));
        String predicate = "customer_id >= " + first + " AND customer_id < " + (first + 100_000);
        TableResult result = tEnv.executeSql("SELECT " + COLUMNS + " FROM src WHERE " + predicate);
        String jobId = result.getJobClient().orElseThrow().getJobID().toString();
        Map<Long, String> materialized = new ConcurrentHashMap<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CloseableIterator<Row> it = result.collect();
        Thread reader = new Thread(
                () -> {
                    try {
                        while (it.hasNext()) {
                            Row row = it.next();
                            long id = (Long) row.getField(0);
                            switch (row.getKind()) {
                                case INSERT, UPDATE_AFTER -> materialized.put(id, text(row));
                                case DELETE -> materialized.remove(id);
                                default -> {} // UPDATE_BEFORE: the UPDATE_AFTER follows
                            }
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                },
                "collect-reader");
        reader.setDaemon(true);
        reader.start();
        try {
            awaitCondition(() -> materialized.size() >= 30, SqlJarTestTimeouts.RESULTS, "the snapshot", failure);
            // Changes after the snapshot: updates, deletes, inserts, in one transaction and alone.
            execute("UPDATE customer SET visits = visits + 5, balance = balance + 1.25 WHERE customer_id >= " + first
                    + " AND customer_id < " + (first + 10));
            execute("DELETE FROM customer WHERE customer_id >= " + (first + 10) + " AND customer_id < " + (first + 15));
            insertRows(first + 30, 20);
            execute("UPDATE customer SET name = 'renamed' WHERE customer_id = " + (first + 40));
            Map<Long, String> expected = vitessRows(predicate);
            assertThat(expected).hasSize(45);
            awaitCondition(
                    () -> materialized.equals(expected),
                    SqlJarTestTimeouts.RESULTS,
                    "the changelog to converge to SELECT * (" + expected.size() + " rows)",
                    failure);
            assertThat(cluster.rest("/jobs/" + jobId)).contains("\"state\":\"RUNNING\"");
        } finally {
            it.close(); // cancels the job
        }
        awaitJobStatus(jobId, "CANCELED", SqlJarTestTimeouts.JOB_STATUS);
    }

    // ---- Flink client ----

    private static TableEnvironment remoteTableEnv() {
        Configuration conf = new Configuration();
        conf.setString("execution.target", "remote");
        conf.setString("rest.address", "127.0.0.1");
        conf.setString("rest.port", String.valueOf(cluster.restPort()));
        conf.setString("parallelism.default", "2");
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.newInstance()
                .inStreamingMode()
                .withConfiguration(conf)
                .build());
        // The only way the connector reaches the client's planner and the cluster's job class loader.
        tEnv.executeSql("ADD JAR '" + Path.of(property("vitesscdc.sql.jar")).toAbsolutePath() + "'");
        return tEnv;
    }

    private static String with(String extra) {
        return " WITH ('connector' = 'vitess-cdc', 'vtgate.address' = '" + grpcAddress()
                + "', 'keyspace' = 'customer', 'table-name' = 'customer', " + extra + ")";
    }

    private static void awaitJobStatus(String jobId, String state, Duration timeout) throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        String last = "";
        while (Instant.now().isBefore(deadline)) {
            last = cluster.rest("/jobs/" + jobId);
            if (last.contains("\"state\":\"" + state + "\"")) {
                return;
            }
            Thread.sleep(200);
        }
        fail("job " + jobId + " did not reach " + state + " within " + timeout + ": " + last + "\n"
                + cluster.diagnostics());
    }

    private static void awaitCondition(
            BooleanSupplier condition, Duration timeout, String what, AtomicReference<Throwable> failure)
            throws Exception {
        Instant deadline = Instant.now().plus(timeout);
        while (!condition.getAsBoolean()) {
            if (failure.get() != null) {
                throw new AssertionError(
                        "reading the job's results failed while waiting for " + what + "\n" + cluster.diagnostics(),
                        failure.get());
            }
            if (Instant.now().isAfter(deadline)) {
                fail("timed out waiting for " + what + "\n" + cluster.diagnostics());
            }
            Thread.sleep(200);
        }
    }

    // ---- Vitess ----

    private static String range() {
        return "customer_id >= " + base + " AND customer_id < " + (base + RANGE);
    }

    private static String text(Row row) {
        List<String> values = new ArrayList<>();
        for (int i = 1; i < 6; i++) {
            values.add(normalize(row.getField(i)));
        }
        return String.join("|", values);
    }

    private static String normalize(Object v) {
        if (v instanceof BigDecimal) {
            return ((BigDecimal) v).stripTrailingZeros().toPlainString();
        }
        return String.valueOf(v);
    }

    private static Map<Long, String> vitessRows() throws SQLException {
        return vitessRows(range());
    }

    private static Map<Long, String> vitessRows(String predicate) throws SQLException {
        Map<Long, String> rows = new TreeMap<>();
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + COLUMNS + " FROM customer WHERE " + predicate)) {
            while (rs.next()) {
                rows.put(
                        rs.getLong(1),
                        String.join(
                                "|",
                                normalize(rs.getString(2)),
                                normalize(rs.getString(3)),
                                normalize(rs.getBigDecimal(4)),
                                normalize(rs.getInt(5)),
                                normalize(rs.getObject(6, LocalDateTime.class))));
            }
        }
        return rows;
    }

    private static void insertRows(long from, int n) throws SQLException {
        StringBuilder sql = new StringBuilder(
                "INSERT INTO customer (customer_id, email, name, balance, visits, " + "updated_at) VALUES ");
        for (int i = 0; i < n; i++) {
            long id = from + i;
            sql.append(i == 0 ? "" : ", ")
                    .append('(')
                    .append(id)
                    .append(", 'u")
                    .append(id)
                    .append("@example.com', ")
                    .append(i % 7 == 0 ? "NULL" : "'name" + i + "'")
                    .append(", ")
                    .append(i * 10)
                    .append(".5, ")
                    .append(i)
                    .append(", '2026-01-0")
                    .append(1 + i % 9)
                    .append(" 12:34:56.")
                    .append(100000 + i)
                    .append("')");
        }
        execute(sql.toString());
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:mysql://" + mysqlHost() + ":" + mysqlPort()
                + "/customer?user=vitess_cdc_it&useSSL=false&allowPublicKeyRetrieval=true&connectTimeout=5000");
    }

    /** Fails (never skips) with instructions when VTGate does not answer. */
    private static void requireVitess() {
        String grpc = grpcAddress();
        int colon = grpc.lastIndexOf(':');
        String[][] targets = {
            {grpc.substring(0, colon), grpc.substring(colon + 1), "VTGate gRPC"},
            {mysqlHost(), String.valueOf(mysqlPort()), "VTGate MySQL"}
        };
        for (String[] target : targets) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(target[0], Integer.parseInt(target[1])), 2000);
            } catch (IOException e) {
                fail("The local Vitess is not running: " + target[2] + " at " + target[0] + ":" + target[1]
                        + " refused the connection (" + e.getMessage() + "). Start it with "
                        + "bash tests/vitess/up.sh (once: tests/vitess/install.sh).");
            }
        }
    }

    private static String grpcAddress() {
        return setting("vitess.grpc.addr", "VTGATE_GRPC_ADDR", "127.0.0.1:15991");
    }

    private static String mysqlHost() {
        return setting("vitess.mysql.host", "VTGATE_MYSQL_HOST", "127.0.0.1");
    }

    private static int mysqlPort() {
        return Integer.parseInt(setting("vitess.mysql.port", "VTGATE_MYSQL_PORT", "15993"));
    }

    private static String setting(String property, String env, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isEmpty()) {
            v = System.getenv(env);
        }
        return v == null || v.isEmpty() ? fallback : v;
    }

    private static String property(String name) {
        String v = System.getProperty(name);
        assertThat(v)
                .as("system property " + name + " (set by the pom's failsafe configuration)")
                .isNotBlank();
        return v;
    }
}
