/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.CustomerRangeITBase;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.Values;
import io.vitesscdc.source.testutils.VitessCluster;

import org.apache.flink.client.program.ClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.gateway.api.SqlGatewayService;
import org.apache.flink.table.gateway.api.operation.OperationHandle;
import org.apache.flink.table.gateway.api.operation.OperationStatus;
import org.apache.flink.table.gateway.api.results.OperationInfo;
import org.apache.flink.table.gateway.api.session.SessionEnvironment;
import org.apache.flink.table.gateway.api.session.SessionHandle;
import org.apache.flink.table.gateway.rest.util.SqlGatewayRestAPIVersion;
import org.apache.flink.table.gateway.service.SqlGatewayServiceImpl;
import org.apache.flink.table.gateway.service.context.DefaultContext;
import org.apache.flink.table.gateway.service.session.SessionManager;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static io.vitesscdc.source.testutils.SqlJobs.with;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink's own materialized tables over a {@code vitess-cdc} table, on every Flink line
 * (docs/sql-connector.md, "Materialized tables"): {@code CREATE MATERIALIZED TABLE … FRESHNESS =
 * INTERVAL '1' SECOND REFRESH_MODE = CONTINUOUS AS SELECT … FROM customers}, run by the SQL
 * gateway's service (embedded here, as Flink's own tests do: on Flink 1.20 to 2.3 a plain {@code
 * TableEnvironment} only writes the table into the catalog and starts no refresh job) against this
 * MiniCluster, in Flink's test catalog {@code test-filesystem}. The continuous refresh job must
 * follow inserts, updates and deletes until the table equals {@code SELECT *} through VTGate; {@code
 * DROP MATERIALIZED TABLE} stops it.
 *
 * <p>The test catalog stores a materialized table as files of a filesystem table in {@code
 * debezium-json}: its content is the changelog, in files whose read order is not the write order.
 * The test therefore reads it independently of order, through the writer's versions: every update
 * of {@link io.vitesscdc.source.testutils.CustomerWriter} sets a new, higher {@code visits}, and ids
 * are never reused, so per key the row with the highest {@code visits} is the current one unless a
 * removal of that very version was written ({@code debezium-json} writes {@code -U} and {@code -D}
 * alike, as removals).
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessMaterializedTableITCase extends CustomerRangeITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4);

    private static final String COLUMNS =
            "customer_id BIGINT, email STRING, name STRING, balance DECIMAL(12, 2), visits INT, updated_at TIMESTAMP(6)";

    VitessMaterializedTableITCase() {
        super("mt");
    }

    @Test
    void continuousMaterializedTableFollowsVitess(
            @TempDir Path catalogDir, @InjectClusterClient ClusterClient<?> cluster) throws Exception {
        writer.insertRows(100);
        long base = writer.base();
        Files.createDirectories(catalogDir.resolve("db"));
        String catalog = "CREATE CATALOG mt_catalog WITH ('type' = 'test-filesystem', 'path' = '" + catalogDir
                + "', 'default-database' = 'db')";

        SessionManager sessions =
                SessionManager.create(new DefaultContext(new Configuration(), Collections.emptyList()));
        sessions.start();
        try {
            SqlGatewayService gateway = new SqlGatewayServiceImpl(sessions);
            Map<String, String> sessionConfig =
                    new HashMap<>(MINI_CLUSTER.getClientConfiguration().toMap());
            sessionConfig.put("execution.target", "remote");
            // Two of the four slots for the refresh job: the reads of the table below need one.
            sessionConfig.put("parallelism.default", "2");
            SessionHandle session = gateway.openSession(SessionEnvironment.newBuilder()
                    .setSessionEndpointVersion(SqlGatewayRestAPIVersion.getDefaultVersion())
                    .addSessionConfig(sessionConfig)
                    .build());
            gateway.configureSession(session, catalog, -1);
            gateway.configureSession(session, "USE CATALOG mt_catalog", -1);
            execute(
                    gateway,
                    session,
                    "CREATE TABLE customers (" + COLUMNS + ", PRIMARY KEY (customer_id) NOT ENFORCED)"
                            + with("customer", ""));
            // The recipe of docs/sql-connector.md, "Materialized tables" (this run's id range only:
            // the table is shared).
            execute(
                    gateway,
                    session,
                    "CREATE MATERIALIZED TABLE customers_mt WITH ('format' = 'debezium-json', "
                            // Row-format files are visible once rolled (by default after 30 min).
                            + "'sink.rolling-policy.rollover-interval' = '1 s', "
                            + "'sink.rolling-policy.check-interval' = '1 s') "
                            + "FRESHNESS = INTERVAL '1' SECOND REFRESH_MODE = CONTINUOUS "
                            + "AS SELECT * FROM customers WHERE " + writer.rangePredicate());
            waitUntil(
                    TestTimeouts.PROGRESS,
                    () -> runningJobs(cluster).size() == 1,
                    () -> "the continuous refresh job running, jobs: " + jobs(cluster));

            TableEnvironment reader = TableEnvironment.create(new Configuration());
            reader.getConfig().set("parallelism.default", "1");
            reader.executeSql(catalog);
            waitUntil(
                    TestTimeouts.PROGRESS,
                    () -> current(reader).size() == 100,
                    () -> "the 100 rows of the snapshot in the materialized table ("
                            + current(reader).size() + " rows; files: " + files(catalogDir) + ")");

            writer.start(80);
            waitUntil(TestTimeouts.PROGRESS, () -> writer.ops() >= 150, "writer progress");
            writer.stop();
            // Whatever the random mix did: rows that exist now, two deleted and one renamed for sure.
            List<String> alive = new ArrayList<>(VitessCluster.query(
                            "customer",
                            "SELECT customer_id FROM customer WHERE " + writer.rangePredicate(),
                            "customer_id")
                    .keySet());
            assertThat(alive).hasSizeGreaterThan(3);
            VitessCluster.execute(
                    "customer",
                    "DELETE FROM customer WHERE customer_id IN (" + alive.get(0) + ", " + alive.get(1) + ")",
                    "UPDATE customer SET name = 'renamed', visits = 900000 WHERE customer_id = " + alive.get(2));

            awaitEqual(
                    VitessCluster.query(
                            "customer", "SELECT * FROM customer WHERE " + writer.rangePredicate(), "customer_id"),
                    () -> current(reader),
                    TestTimeouts.CONVERGE,
                    "materialized table vs SELECT * through VTGate");
            Map<String, Map<String, String>> rows = current(reader);
            assertThat(rows).doesNotContainKeys(alive.get(0), alive.get(1));
            assertThat(rows.get(alive.get(2))).containsEntry("name", "renamed");
            assertThat(rows.size()).as("rows deleted by the writer too").isLessThan((int) (writer.nextId() - base) - 2);

            execute(gateway, session, "DROP MATERIALIZED TABLE customers_mt");
            waitUntil(
                    TestTimeouts.PROGRESS,
                    () -> runningJobs(cluster).isEmpty(),
                    () -> "the refresh job stopped by DROP MATERIALIZED TABLE, jobs: " + jobs(cluster));
        } finally {
            sessions.stop();
            for (JobStatusMessage job : runningJobs(cluster)) {
                cluster.cancel(job.getJobId()).get();
            }
        }
    }

    /** Runs one statement in the gateway session and waits until it ends; fails with its error. */
    private static void execute(SqlGatewayService gateway, SessionHandle session, String sql) throws Exception {
        OperationHandle operation = gateway.executeStatement(session, sql, -1, new Configuration());
        long deadline = System.nanoTime() + TestTimeouts.PROGRESS.toNanos();
        while (true) {
            OperationInfo info = gateway.getOperationInfo(session, operation);
            if (info.getStatus() == OperationStatus.FINISHED) {
                return;
            }
            if (info.getStatus().isTerminalStatus()) {
                throw new AssertionError(
                        sql + ": " + info.getStatus(), info.getException().orElse(null));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(sql + ": still " + info.getStatus() + " after " + TestTimeouts.PROGRESS);
            }
            Thread.sleep(100);
        }
    }

    private static Collection<JobStatusMessage> jobs(ClusterClient<?> cluster) {
        try {
            return cluster.listJobs().get();
        } catch (Exception e) {
            throw new IllegalStateException("listing the MiniCluster's jobs", e);
        }
    }

    private static List<JobStatusMessage> runningJobs(ClusterClient<?> cluster) {
        return jobs(cluster).stream()
                .filter(j -> !j.getJobState().isGloballyTerminalState())
                .toList();
    }

    /**
     * The materialized table's current rows by key, read from its committed files independently of
     * their order (see the class comment).
     */
    private Map<String, Map<String, String>> current(TableEnvironment reader) {
        Map<String, Map<String, String>> newest = new TreeMap<>();
        Set<String> removed = new HashSet<>();
        TableResult result = reader.executeSql("SELECT * FROM mt_catalog.db.customers_mt");
        List<String> columns = result.getResolvedSchema().getColumnNames();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                Row row = it.next();
                Map<String, String> values = new LinkedHashMap<>();
                for (int i = 0; i < columns.size(); i++) {
                    values.put(columns.get(i), Values.normalize(row.getField(i)));
                }
                String key = values.get("customer_id");
                if (row.getKind() == RowKind.INSERT || row.getKind() == RowKind.UPDATE_AFTER) {
                    Map<String, String> known = newest.get(key);
                    if (known == null || visits(values) > visits(known)) {
                        newest.put(key, values);
                    }
                } else {
                    removed.add(key + "@" + visits(values));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("reading the materialized table", e);
        }
        newest.entrySet().removeIf(e -> removed.contains(e.getKey() + "@" + visits(e.getValue())));
        return newest;
    }

    private static List<String> files(Path dir) {
        try (var paths = Files.walk(dir)) {
            return paths.filter(Files::isRegularFile)
                    .map(p -> dir.relativize(p) + " (" + p.toFile().length() + " bytes)")
                    .toList();
        } catch (Exception e) {
            return List.of(e.toString());
        }
    }

    private static long visits(Map<String, String> row) {
        return Long.parseLong(row.get("visits"));
    }
}
