/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.CustomerRangeITBase;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.StandaloneMySql;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static io.vitesscdc.source.testutils.SqlJobs.tableEnv;
import static io.vitesscdc.source.testutils.SqlJobs.upsertSink;
import static io.vitesscdc.source.testutils.SqlJobs.with;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The recipes of docs/sql-connector.md that use Flink's JDBC connector ({@code 'connector' =
 * 'jdbc'}, flink-connector-jdbc-core of the Flink line plus flink-connector-jdbc-mysql 3.3.0-1.20
 * and mysql-connector-j: the root pom's versions per line), run as written on every Flink line
 * (scripts/flink-lines.sh):
 *
 * <ul>
 *   <li>"Sinks": {@code INSERT INTO mysql_sink SELECT * FROM customers} keeps a table of a real,
 *       standalone MySQL (tests/mysql/up.sh) equal to {@code customer.customer} while rows are
 *       inserted, updated and deleted;
 *   <li>"Lookups": a processing-time lookup join enriches a {@code vitess-cdc} stream with rows
 *       looked up through VTGate's MySQL port, equal to the same join through VTGate.
 * </ul>
 *
 * Both work in this test's id range of the shared tables ({@link
 * io.vitesscdc.source.testutils.CustomerWriter}), so they run beside other tests and the load
 * generator.
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessJdbcSinkITCase extends CustomerRangeITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(2);

    private static final String COLUMNS =
            "customer_id BIGINT, email STRING, name STRING, balance DECIMAL(12, 2), visits INT, updated_at TIMESTAMP(6)";

    /** The MySQL table of this run (dropped after it). */
    private final String mysqlTable = "customer_copy_" + Long.toHexString(System.nanoTime());

    VitessJdbcSinkITCase() {
        super("jdbc");
    }

    @BeforeAll
    static void mysqlIsUp() {
        StandaloneMySql.requireRunning();
    }

    @AfterEach
    void dropMySqlTable() throws Exception {
        StandaloneMySql.execute("DROP TABLE IF EXISTS " + mysqlTable);
    }

    @Test
    void mysqlTableFollowsVitessThroughTheJdbcSink() throws Exception {
        writer.insertRows(200);
        long base = writer.base();
        StandaloneMySql.execute("CREATE TABLE " + mysqlTable + " (customer_id BIGINT NOT NULL PRIMARY KEY, "
                + "email VARCHAR(128) NOT NULL, name VARCHAR(64), balance DECIMAL(12, 2) NOT NULL, "
                + "visits INT NOT NULL, updated_at DATETIME(6) NOT NULL)");

        TableEnvironment tEnv = tableEnv(2);
        // The recipe of docs/sql-connector.md, "Sinks", with this run's addresses and table.
        tEnv.executeSql("CREATE TABLE customers (" + COLUMNS + ", PRIMARY KEY (customer_id) NOT ENFORCED)"
                + with("customer", ""));
        tEnv.executeSql("CREATE TABLE mysql_sink (" + COLUMNS + ", PRIMARY KEY (customer_id) NOT ENFORCED) WITH ("
                + "'connector' = 'jdbc', 'url' = '" + StandaloneMySql.jdbcUrl() + "', 'table-name' = '" + mysqlTable
                + "', 'username' = '" + StandaloneMySql.user() + "', 'password' = '" + StandaloneMySql.password()
                + "')");
        // The shared table holds other tests' rows too: this run copies its own range only.
        List<String> alive = new ArrayList<>();
        JobClient job = tEnv.executeSql(
                        "INSERT INTO mysql_sink SELECT * FROM customers WHERE " + writer.rangePredicate())
                .getJobClient()
                .orElseThrow();
        try {
            waitUntil(
                    TestTimeouts.PROGRESS,
                    () -> mysqlRows().size() == 200,
                    () -> "the 200 rows of the snapshot in MySQL (" + mysqlRowsOrError() + ")");
            assertThat(mysqlRows()).containsKeys(key(base), key(base + 1), key(base + 2), key(base + 3));

            writer.start(80);
            waitUntil(TestTimeouts.PROGRESS, () -> writer.ops() >= 150, "writer progress");
            writer.stop();
            // Whatever the random mix did: rows that exist now, two deleted and two updated for sure.
            alive.addAll(VitessCluster.query(
                            "customer",
                            "SELECT customer_id FROM customer WHERE " + writer.rangePredicate(),
                            "customer_id")
                    .keySet());
            assertThat(alive).hasSizeGreaterThan(4);
            VitessCluster.execute(
                    "customer",
                    "DELETE FROM customer WHERE customer_id IN (" + alive.get(0) + ", " + alive.get(1) + ")",
                    "UPDATE customer SET name = 'renamed', balance = 4321.5, visits = 424242, "
                            + "updated_at = '2031-02-03 04:05:06.789012' WHERE customer_id IN (" + alive.get(2) + ", "
                            + alive.get(3) + ")");

            awaitEqual(
                    VitessCluster.query(
                            "customer", "SELECT * FROM customer WHERE " + writer.rangePredicate(), "customer_id"),
                    this::mysqlRows,
                    TestTimeouts.CONVERGE,
                    "MySQL table " + mysqlTable + " vs SELECT * through VTGate");
        } finally {
            VitessITBase.cancel(job);
        }
        Map<String, Map<String, String>> copy = mysqlRows();
        assertThat(copy).doesNotContainKeys(alive.get(0), alive.get(1));
        assertThat(copy.get(alive.get(3)))
                .containsEntry("name", "renamed")
                .containsEntry("visits", "424242")
                .containsEntry("updated_at", "2031-02-03 04:05:06.789012");
        assertThat(copy.size()).as("rows deleted by the writer too").isLessThan((int) (writer.nextId() - base) - 2);
        assertThat(copy).hasSizeGreaterThan(200);
    }

    @Test
    void lookupJoinThroughVtgateMysqlPortEqualsTheJoinInVitess() throws Exception {
        writer.insertRows(20);
        long base = writer.base();
        // Orders of customers base .. base + 24: the last five have no customer row.
        for (int i = 0; i < 50; i++) {
            insertOrder(base + i % 25, i);
        }
        TableEnvironment tEnv = tableEnv(2);
        tEnv.executeSql("CREATE TABLE orders (customer_id BIGINT, order_id BIGINT, sku STRING, quantity INT, "
                + "proc_time AS PROCTIME(), PRIMARY KEY (customer_id, order_id) NOT ENFORCED)"
                + with("corder", ""));
        // The recipe of docs/sql-connector.md, "Lookups": the dimension read through VTGate's MySQL port.
        tEnv.executeSql("CREATE TABLE customers_dim (customer_id BIGINT, email STRING, name STRING, "
                + "PRIMARY KEY (customer_id) NOT ENFORCED) WITH ('connector' = 'jdbc', "
                + "'url' = 'jdbc:mysql://" + vtgateMysqlAddress() + "/customer', 'table-name' = 'customer', "
                + "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '10000', "
                + "'lookup.partial-cache.expire-after-write' = '10 min', "
                + "'lookup.partial-cache.cache-missing-key' = 'false', 'lookup.max-retries' = '3')");
        tEnv.executeSql("CREATE TABLE enriched (customer_id BIGINT, order_id BIGINT, sku STRING, email STRING, "
                + "name STRING, PRIMARY KEY (customer_id, order_id) NOT ENFORCED)" + upsertSink(runId));
        String join = "INSERT INTO enriched SELECT o.customer_id, o.order_id, o.sku, c.email, c.name FROM orders AS o "
                + "LEFT JOIN customers_dim FOR SYSTEM_TIME AS OF o.proc_time AS c ON o.customer_id = c.customer_id "
                + "WHERE " + writer.rangePredicate().replace("customer_id", "o.customer_id");
        assertThat(tEnv.explainSql(join))
                .as("a lookup join, not a regular join")
                .contains("LookupJoin");
        String expectedSql = "SELECT o.customer_id, o.order_id, o.sku, c.email, c.name FROM corder AS o "
                + "LEFT JOIN customer AS c ON c.customer_id = o.customer_id WHERE "
                + writer.rangePredicate().replace("customer_id", "o.customer_id");
        JobClient job = tEnv.executeSql(join).getJobClient().orElseThrow();
        try {
            Map<String, Map<String, String>> expected =
                    VitessCluster.query("customer", expectedSql, "customer_id", "order_id");
            awaitEqual(
                    expected, this::enrichedInRange, TestTimeouts.CONVERGE, "lookup join vs the join through VTGate");
            assertThat(enrichedInRange().get(key(base + 22) + "|22"))
                    .as("an order without customer row: LEFT JOIN keeps it, without email")
                    .containsEntry("email", null);

            // A customer that did not exist at the first lookups, then new orders of it and of an
            // existing customer: each order is enriched with the customer row as it is when the order
            // streams in (a missing key is not cached: 'lookup.partial-cache.cache-missing-key').
            // Orders enriched before stay as they were: a lookup join does not revisit its output.
            VitessCluster.execute(
                    "customer",
                    "INSERT INTO customer (customer_id, email, name, balance, visits) VALUES (" + (base + 22)
                            + ", 'late@example.com', 'late', 1.00, 0)");
            insertOrder(base + 22, 100);
            insertOrder(base + 3, 101);
            expected.putAll(VitessCluster.query(
                    "customer", expectedSql + " AND o.order_id IN (100, 101)", "customer_id", "order_id"));
            assertThat(expected.get(key(base + 22) + "|100")).containsEntry("email", "late@example.com");
            assertThat(expected.get(key(base + 3) + "|101")).containsEntry("email", "u" + (base + 3) + "@example.com");
            awaitEqual(
                    expected,
                    this::enrichedInRange,
                    TestTimeouts.CONVERGE,
                    "lookup join: the earlier output and the new orders enriched as of their arrival");
            assertThat(enrichedInRange().get(key(base + 22) + "|22"))
                    .as("enriched before its customer existed, and not revisited")
                    .containsEntry("email", null);
        } finally {
            VitessITBase.cancel(job);
        }
    }

    private static String vtgateMysqlAddress() {
        return VitessCluster.mysqlHost() + ":" + VitessCluster.mysqlPort();
    }

    private static void insertOrder(long customerId, int orderId) throws Exception {
        VitessCluster.execute(
                "customer",
                "INSERT INTO corder (customer_id, order_id, sku, quantity, price) VALUES (" + customerId + ", "
                        + orderId + ", 'sku" + orderId + "', " + (orderId + 1) + ", 9.99)");
    }

    private static String key(long customerId) {
        return String.valueOf(customerId);
    }

    private Map<String, Map<String, String>> mysqlRows() {
        try {
            return StandaloneMySql.query("SELECT * FROM " + mysqlTable, "customer_id");
        } catch (Exception e) {
            throw new IllegalStateException("reading " + mysqlTable + " from MySQL", e);
        }
    }

    private String mysqlRowsOrError() {
        try {
            return mysqlRows().size() + " rows";
        } catch (RuntimeException e) {
            return e.getCause().toString();
        }
    }

    private Map<String, Map<String, String>> enrichedInRange() {
        Map<String, Map<String, String>> out = new TreeMap<>();
        MaterializedTables.get(runId).rows().forEach((k, v) -> {
            if (writer.inRange(Long.parseLong(k.substring(0, k.indexOf('|'))))) {
                out.put(k, v);
            }
        });
        return out;
    }
}
