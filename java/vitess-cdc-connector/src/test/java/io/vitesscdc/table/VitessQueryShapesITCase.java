/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.ChangelogMultiset;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.SqlJobs;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The queries a Flink SQL user writes first over a {@code vitess-cdc} table, each run alone (no
 * scan shared with another query that reads every column, which once hid that a projection
 * without the key failed) at parallelism 2 while {@link QueryShapesWriter} inserts, updates,
 * deletes and moves keys across shards; when the writes stop, each answer must equal the same
 * query through VTGate (or, where VTGate cannot run it, the answer computed from the table's
 * rows read through VTGate), and the query's own changelog must be strict.
 *
 * <p>Two more are about time: a window over {@code op_ts} must close after the writes stop
 * (heartbeats advance the watermark of a quiet table), and an event-time temporal join must take
 * each visit's customer as it was when the visit was written.
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessQueryShapesITCase extends VitessITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4);

    private static final int PARALLELISM = 2;
    private static final int INITIAL_ORDERS = 60;
    private static final int WRITES_PER_SECOND = 40;
    /** Writes while the query runs, before the writer stops. */
    private static final int WRITES = 120;

    private static final String ORDER_COLUMNS =
            "id BIGINT, customer_id BIGINT, status STRING, amount BIGINT, ver BIGINT";

    private final QueryShapesWriter writer = new QueryShapesWriter(0x5A4E_2026L);

    VitessQueryShapesITCase() {
        super("shapes");
    }

    @AfterEach
    void stopWriting() throws Exception {
        writer.close();
    }

    // ---------------------------------------------------------------------------------------------
    // Projections, filters, aggregates

    @Test
    void projectionWithoutTheKey() throws Exception {
        assertSameAsVtgate("SELECT status, amount FROM orders", "SELECT status, amount FROM shape_orders");
    }

    @Test
    void groupByANonKeyColumnWithEveryAggregate() throws Exception {
        String query = "SELECT status, COUNT(*), SUM(amount), MIN(amount), MAX(amount), COUNT(DISTINCT customer_id) "
                + "FROM %s GROUP BY status";
        assertSameAsVtgate(String.format(query, "orders"), String.format(query, "shape_orders"));
    }

    @Test
    void selectDistinctOfANonKeyColumn() throws Exception {
        assertSameAsVtgate("SELECT DISTINCT status FROM orders", "SELECT DISTINCT status FROM shape_orders");
    }

    @Test
    void filterOnANonKeyColumnWithAProjection() throws Exception {
        String query = "SELECT customer_id, amount FROM %s WHERE status = 'paid' AND amount > 100";
        assertSameAsVtgate(String.format(query, "orders"), String.format(query, "shape_orders"));
    }

    @Test
    void aTableDeclaredWithoutItsKey() throws Exception {
        assertSameAsVtgate(
                "SELECT status, COUNT(*), SUM(amount) FROM orders_undeclared_key GROUP BY status",
                "SELECT status, COUNT(*), SUM(amount) FROM shape_orders GROUP BY status");
    }

    @Test
    void selectStarThroughTheCollectSink() throws Exception {
        assertSameAsVtgate("SELECT * FROM orders", "SELECT id, customer_id, status, amount, ver FROM shape_orders");
    }

    @Test
    void metadataWithANonKeyColumn() throws Exception {
        assertSameAs("SELECT shard, COUNT(*), SUM(amount) FROM orders_with_shard GROUP BY shard", () -> {
            Map<String, Integer> expected = new TreeMap<>();
            for (String shard : new String[] {"-80", "80-"}) {
                try (Connection c = VitessCluster.connect("customer:" + shard);
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(amount) FROM shape_orders")) {
                    rs.next();
                    expected.put(ChangelogMultiset.text(shard, rs.getLong(1), rs.getLong(2)), 1);
                }
            }
            return expected;
        });
    }

    // ---------------------------------------------------------------------------------------------
    // Joins, ranks

    @Test
    void aJoinOfTwoVitessTables() throws Exception {
        String query = "SELECT o.id, o.amount, c.name FROM %s o JOIN %s c ON o.customer_id = c.id";
        assertSameAsVtgate(
                String.format(query, "orders", "customers"), String.format(query, "shape_orders", "shape_customers"));
    }

    @Test
    void topNPerGroup() throws Exception {
        assertSameAs(
                "SELECT status, id, amount FROM (SELECT status, id, amount, ROW_NUMBER() OVER (PARTITION BY status "
                        + "ORDER BY amount DESC, id) AS rn FROM orders) WHERE rn <= 3",
                () -> {
                    // VTGate plans no window function across shards: the top 3 from the rows.
                    Map<String, List<long[]>> byStatus = new TreeMap<>();
                    try (Connection c = VitessCluster.connect("customer");
                            Statement s = c.createStatement();
                            ResultSet rs = s.executeQuery("SELECT status, id, amount FROM shape_orders")) {
                        while (rs.next()) {
                            byStatus.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                                    .add(new long[] {rs.getLong(2), rs.getLong(3)});
                        }
                    }
                    Map<String, Integer> expected = new TreeMap<>();
                    byStatus.forEach((status, rows) -> {
                        rows.sort(Comparator.<long[]>comparingLong(r -> -r[1]).thenComparingLong(r -> r[0]));
                        rows.stream()
                                .limit(3)
                                .forEach(r -> expected.put(ChangelogMultiset.text(status, r[0], r[1]), 1));
                    });
                    return expected;
                });
    }

    @Test
    void firstRowPerKeyDeduplication() throws Exception {
        assertSameAsVtgate(
                "SELECT customer_id, id FROM (SELECT customer_id, id, ROW_NUMBER() OVER (PARTITION BY customer_id "
                        + "ORDER BY id) AS rn FROM orders) WHERE rn = 1",
                "SELECT customer_id, MIN(id) FROM shape_orders GROUP BY customer_id");
    }

    // ---------------------------------------------------------------------------------------------
    // Sinks and statement sets

    @Test
    void insertIntoAnUpsertSinkKeyedDifferently() throws Exception {
        writer.reset(INITIAL_ORDERS);
        TableEnvironment tEnv = tableEnv();
        tEnv.executeSql("CREATE TABLE by_customer (customer_id BIGINT, orders BIGINT, total BIGINT, "
                + "PRIMARY KEY (customer_id) NOT ENFORCED)" + SqlJobs.upsertSink(runId));
        JobClient job = SqlJobs.executeAll(
                tEnv,
                "INSERT INTO by_customer SELECT customer_id, COUNT(*), SUM(amount) FROM orders GROUP BY customer_id");
        try {
            write();
            awaitSame(
                    () -> upserted(runId),
                    vtgate("SELECT customer_id, COUNT(*), SUM(amount) FROM shape_orders GROUP BY customer_id"),
                    "the upsert sink keyed by customer_id");
        } finally {
            job.cancel().get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void aStatementSetWhoseQueriesProjectDifferently() throws Exception {
        for (boolean reuse : new boolean[] {true, false}) {
            String byStatus = runId + "-status-" + reuse;
            String amounts = runId + "-amounts-" + reuse;
            writer.reset(INITIAL_ORDERS);
            TableEnvironment tEnv = tableEnv();
            tEnv.getConfig().set("table.optimizer.reuse-source-enabled", String.valueOf(reuse));
            tEnv.executeSql("CREATE TABLE by_status (status STRING, orders BIGINT, PRIMARY KEY (status) NOT ENFORCED)"
                    + SqlJobs.upsertSink(byStatus));
            tEnv.executeSql("CREATE TABLE amounts (id BIGINT, amount BIGINT, PRIMARY KEY (id) NOT ENFORCED)"
                    + SqlJobs.upsertSink(amounts));
            JobClient job = SqlJobs.executeAll(
                    tEnv,
                    "INSERT INTO by_status SELECT status, COUNT(*) FROM orders GROUP BY status",
                    "INSERT INTO amounts SELECT id, amount FROM orders");
            try {
                write();
                awaitSame(
                        () -> upserted(byStatus),
                        vtgate("SELECT status, COUNT(*) FROM shape_orders GROUP BY status"),
                        "orders by status, reuse-source " + reuse);
                awaitSame(
                        () -> upserted(amounts),
                        vtgate("SELECT id, amount FROM shape_orders"),
                        "amounts by id, reuse-source " + reuse);
            } finally {
                job.cancel().get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
                MaterializedTables.drop(byStatus);
                MaterializedTables.drop(amounts);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------
    // Event time

    /**
     * Visits are written for a few seconds, then nothing: the last windows can only close because
     * the shards' heartbeats move the watermark. Each window's count must add up to every visit.
     */
    @Test
    void aWindowClosesAfterTheWritesStop() throws Exception {
        writer.reset(0);
        TableEnvironment tEnv = tableEnv();
        Collected windows = collect(
                tEnv,
                "SELECT TUMBLE_START(op_ts, INTERVAL '2' SECOND), COUNT(*) FROM visits_upsert "
                        + "GROUP BY TUMBLE(op_ts, INTERVAL '2' SECOND)");
        int visits = 0;
        try {
            for (int batch = 0; batch < 8; batch++) {
                writer.insertVisits(10);
                visits += 10;
                Thread.sleep(500);
            }
            int written = visits;
            waitUntil(
                    TestTimeouts.CONVERGE,
                    () -> windowTotal(windows.rows.rows()) == written,
                    () -> "windows counting all " + written + " visits; fired so far: " + windows.rows.rows());
        } finally {
            windows.cancel();
        }
        assertThat(windows.rows.violations())
                .as("retractions of rows never emitted")
                .isEmpty();
    }

    /**
     * The customers are renamed in rounds, with visits written after each round: each visit must
     * join the name its customer had when the visit was written, although later names exist by the
     * time the join emits (it waits for both sides' watermarks, which heartbeats move at the end).
     */
    @Test
    void anEventTimeTemporalJoinWithTheVitessTableAsTheVersionedSide() throws Exception {
        writer.reset(0);
        TableEnvironment tEnv = tableEnv();
        Collected joined = collect(
                tEnv,
                "SELECT v.id, c.name FROM visits v JOIN customers_versioned FOR SYSTEM_TIME AS OF v.op_ts AS c "
                        + "ON v.customer_id = c.id");
        Map<String, Integer> expected = new TreeMap<>();
        try {
            long visitId = 1;
            for (int round = 1; round <= 3; round++) {
                VitessCluster.execute(
                        "customer", "UPDATE shape_customers SET name = CONCAT('round-" + round + "-', id)");
                long second = System.currentTimeMillis() / 1000;
                writer.insertVisits(6);
                try (Connection c = VitessCluster.connect("customer");
                        Statement s = c.createStatement();
                        ResultSet rs =
                                s.executeQuery("SELECT id, customer_id FROM shape_visits WHERE id >= " + visitId)) {
                    while (rs.next()) {
                        expected.put(ChangelogMultiset.text(rs.getLong(1), "round-" + round + "-" + rs.getLong(2)), 1);
                        visitId = Math.max(visitId, rs.getLong(1) + 1);
                    }
                }
                // The binlog keeps whole seconds: the next round's names must come a second later
                // than these visits, or they would be the visits' version too.
                waitUntil(
                        TestTimeouts.NEXT_CLOCK_SECOND,
                        () -> System.currentTimeMillis() / 1000 > second + 1,
                        "the next second of the clock");
            }
            awaitSame(() -> joined.rows.rows(), expected, "each visit joined with its customer's name at that time");
        } finally {
            joined.cancel();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The harness

    private TableEnvironment tableEnv() {
        TableEnvironment tEnv = SqlJobs.tableEnv(PARALLELISM);
        String heartbeats = ", 'heartbeat.interval' = '1 s'";
        tEnv.executeSql("CREATE TABLE orders (" + ORDER_COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with("shape_orders", ""));
        tEnv.executeSql("CREATE TABLE orders_with_shard (" + ORDER_COLUMNS + ", shard STRING METADATA VIRTUAL, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + SqlJobs.with("shape_orders", ""));
        tEnv.executeSql(
                "CREATE TABLE orders_undeclared_key (" + ORDER_COLUMNS + ")" + SqlJobs.with("shape_orders", ""));
        tEnv.executeSql("CREATE TABLE customers (id BIGINT, name STRING, tier STRING, PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with("shape_customers", ""));
        tEnv.executeSql("CREATE TABLE customers_versioned (id BIGINT, name STRING, tier STRING, "
                + "op_ts TIMESTAMP_LTZ(3) METADATA VIRTUAL, WATERMARK FOR op_ts AS op_ts - INTERVAL '1' SECOND, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + SqlJobs.with("shape_customers", heartbeats));
        tEnv.executeSql("CREATE TABLE visits (id BIGINT, customer_id BIGINT, op_ts TIMESTAMP_LTZ(3) METADATA VIRTUAL, "
                + "WATERMARK FOR op_ts AS op_ts - INTERVAL '1' SECOND, PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with("shape_visits", heartbeats));
        tEnv.executeSql("CREATE TABLE visits_upsert (id BIGINT, customer_id BIGINT, "
                + "op_ts TIMESTAMP_LTZ(3) METADATA VIRTUAL, WATERMARK FOR op_ts AS op_ts - INTERVAL '1' SECOND, "
                + "PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with("shape_visits", heartbeats + ", 'changelog-mode' = 'upsert'"));
        return tEnv;
    }

    /** A running query and the multiset its changelog materializes to. */
    private static final class Collected {
        final ChangelogMultiset rows = new ChangelogMultiset();
        final TableResult result;
        final Thread reader;
        volatile Throwable failure;

        Collected(TableResult result) {
            this.result = result;
            this.reader = new Thread(
                    () -> {
                        try (CloseableIterator<Row> it = result.collect()) {
                            while (it.hasNext()) {
                                rows.apply(it.next());
                            }
                        } catch (Throwable t) {
                            failure = t;
                        }
                    },
                    "collect");
            reader.setDaemon(true);
            reader.start();
        }

        void cancel() throws Exception {
            JobClient job = result.getJobClient().orElseThrow();
            if (!job.getJobStatus().get().isGloballyTerminalState()) {
                job.cancel().get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
            }
            reader.join(TestTimeouts.CLUSTER_CALL.toMillis());
        }
    }

    private Collected collect(TableEnvironment tEnv, String query) {
        return new Collected(tEnv.executeSql(query));
    }

    private void assertSameAsVtgate(String flinkQuery, String vtgateQuery) throws Exception {
        assertSameAs(flinkQuery, vtgate(vtgateQuery));
    }

    /** Runs the query alone while the writer writes, then compares its answer once the writes stopped. */
    private void assertSameAs(String flinkQuery, Callable<Map<String, Integer>> expected) throws Exception {
        writer.reset(INITIAL_ORDERS);
        Collected query = collect(tableEnv(), flinkQuery);
        try {
            write();
            awaitSame(
                    () -> {
                        if (query.failure != null) {
                            throw new AssertionError(flinkQuery + " failed", query.failure);
                        }
                        return query.rows.rows();
                    },
                    expected.call(),
                    flinkQuery);
        } finally {
            query.cancel();
        }
        assertThat(query.rows.violations())
                .as("retractions of rows %s never emitted", flinkQuery)
                .isEmpty();
    }

    /** The writer's writes, {@link #WRITES} of them, then it stops. */
    private void write() throws Exception {
        long before = writer.ops();
        writer.start(WRITES_PER_SECOND);
        waitUntil(TestTimeouts.PROGRESS, () -> writer.ops() - before >= WRITES, "the writer's writes");
        writer.stop();
    }

    private static void awaitSame(
            java.util.function.Supplier<Map<String, Integer>> actual, Map<String, Integer> expected, String what)
            throws Exception {
        assertThat(expected).as("VTGate's answer to %s", what).isNotEmpty();
        long deadline = System.nanoTime() + TestTimeouts.CONVERGE.toNanos();
        while (System.nanoTime() < deadline && !actual.get().equals(expected)) {
            Thread.sleep(200);
        }
        assertThat(actual.get()).as(what).isEqualTo(expected);
    }

    private static Callable<Map<String, Integer>> vtgate(String sql) {
        return () -> {
            try (Connection c = VitessCluster.connect("customer");
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(sql)) {
                return ChangelogMultiset.of(rs);
            }
        };
    }

    /** An upsert sink's rows in the multiset form, columns in their declared order. */
    private static Map<String, Integer> upserted(String tablesId) {
        Map<String, Integer> out = new TreeMap<>();
        for (Map<String, String> row : MaterializedTables.get(tablesId).rows().values()) {
            out.merge(String.join("|", row.values()), 1, Integer::sum);
        }
        return out;
    }

    private static long windowTotal(Map<String, Integer> windows) {
        long total = 0;
        for (Map.Entry<String, Integer> w : windows.entrySet()) {
            total += Long.parseLong(w.getKey().substring(w.getKey().lastIndexOf('|') + 1)) * w.getValue();
        }
        return total;
    }

    private static void awaitSame(
            java.util.function.Supplier<Map<String, Integer>> actual,
            Callable<Map<String, Integer>> expected,
            String what)
            throws Exception {
        awaitSame(actual, expected.call(), what);
    }
}
