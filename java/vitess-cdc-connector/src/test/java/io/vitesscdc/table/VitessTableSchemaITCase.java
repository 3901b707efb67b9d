/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.metrics.VitessSourceReaderMetrics;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.TestTables;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static io.vitesscdc.source.testutils.SqlJobs.project;
import static io.vitesscdc.source.testutils.SqlJobs.tableEnv;
import static io.vitesscdc.source.testutils.SqlJobs.upsertSink;
import static io.vitesscdc.source.testutils.SqlJobs.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The SQL connector and the table's shape against the real local Vitess: projection pushdown
 * measured in source bytes, declared columns that Vitess lacks or cannot convert, and a column
 * added in Vitess while a job runs. Each test works on a table of its own, created through VTGate
 * in the sharded keyspace {@code customer} and dropped afterwards.
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessTableSchemaITCase extends VitessITBase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4, REPORTER.addToConfiguration(new Configuration()));

    private final TestTables tables = new TestTables();

    VitessTableSchemaITCase() {
        super("schema");
    }

    @AfterEach
    void dropTables() {
        tables.close();
    }

    private String createTable(String prefix, String columns) throws Exception {
        return tables.create(prefix, columns);
    }

    private String sink() {
        return upsertSink(runId);
    }

    @Test
    void projectedQueryMovesOnlyItsColumns() throws Exception {
        String t = createTable(
                "bytes", "id BIGINT NOT NULL PRIMARY KEY, small INT, " + "name VARCHAR(64), payload VARCHAR(2000)");
        int rows = 400;
        String filler = "x".repeat(600);
        try (Connection c = VitessCluster.connect("customer");
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO " + t + " (id, small, name, payload) VALUES (?, ?, ?, ?)")) {
            for (int i = 1; i <= rows; i++) {
                ps.setLong(1, i);
                ps.setInt(2, i % 100);
                ps.setString(3, "name-" + i);
                ps.setString(4, filler + i);
                ps.executeUpdate();
            }
        }
        TableEnvironment tEnv = tableEnv(1);
        tEnv.executeSql("CREATE TABLE src (id BIGINT, small INT, name STRING, payload STRING, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + with(t, ", 'scan.startup.mode' = 'snapshot'"));
        String range = " WHERE id BETWEEN 1 AND " + rows;
        long all = bytesOfBoundedQuery(tEnv, "SELECT * FROM src" + range, rows);
        long projected = bytesOfBoundedQuery(tEnv, "SELECT id, small FROM src" + range, rows);
        System.out.printf(
                "numBytesIn of the source: SELECT * = %d bytes, SELECT id, small = %d bytes (%.1f%%)%n",
                all, projected, 100.0 * projected / all);
        assertThat(all).as("bytes of SELECT *").isGreaterThan((long) rows * filler.length());
        assertThat(projected)
                .as("bytes of the projection vs SELECT * (" + all + ")")
                .isLessThan(all * 6 / 10);
    }

    /** Pushed-down: qty range and tag IN; 'BLUE' matches 'blue' in MySQL's collation, not in Flink. */
    private static final String FILTER =
            " WHERE qty >= 20 AND qty < 60 AND tag IN ('red', 'BLUE') AND payload LIKE 'x%'";
    /** The same rows as VTGate sees them (no upper-case tags in the data). */
    private static final String VTGATE_FILTER = " WHERE qty >= 20 AND qty < 60 AND tag = 'red'";

    private String filteredTable(int rows) throws Exception {
        return filteredTable(rows, 600);
    }

    /** Rows 1..rows: qty = id % 100, every third row red, the others blue; inserted 500 per statement. */
    private String filteredTable(int rows, int payloadBytes) throws Exception {
        String t =
                createTable("filt", "id BIGINT NOT NULL PRIMARY KEY, qty INT, tag VARCHAR(16), payload VARCHAR(4000)");
        String filler = "x".repeat(payloadBytes);
        for (int from = 1; from <= rows; from += 500) {
            StringBuilder insert = new StringBuilder("INSERT INTO " + t + " (id, qty, tag, payload) VALUES ");
            for (int i = from; i < Math.min(from + 500, rows + 1); i++) {
                insert.append(i == from ? "" : ", ")
                        .append(String.format(
                                "(%d, %d, '%s', '%s%d')", i, i % 100, i % 3 == 0 ? "red" : "blue", filler, i));
            }
            VitessCluster.execute("customer", insert.toString());
        }
        return t;
    }

    @Test
    void filteredQueryReadsOnlyMatchingRows() throws Exception {
        int rows = 400;
        String t = filteredTable(rows);
        int matching = VitessCluster.query("customer", "SELECT id FROM " + t + VTGATE_FILTER, "id")
                .size();
        assertThat(matching).as("rows matching the filter").isBetween(40, 60);
        TableEnvironment tEnv = tableEnv(1);
        tEnv.executeSql("CREATE TABLE src (id BIGINT, qty INT, tag STRING, payload STRING, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + with(t, ", 'scan.startup.mode' = 'snapshot'"));
        long all = bytesOfBoundedQuery(tEnv, "SELECT id, qty, tag, payload FROM src", rows);
        long filtered = bytesOfBoundedQuery(tEnv, "SELECT id, qty, tag, payload FROM src" + FILTER, matching);
        System.out.printf(
                "numBytesIn of the source: unfiltered = %d bytes (%d rows), filtered = %d bytes (%d rows, %.1f%%)%n",
                all, rows, filtered, matching, 100.0 * filtered / all);
        // The source sees the rows Vitess let through: the red ones in range and the blue ones
        // (collation), a third of the table's qty range: at most half of the unfiltered bytes.
        assertThat(filtered)
                .as("bytes of the filtered query vs the unfiltered one (" + all + ")")
                .isLessThan(all / 2);
    }

    @Test
    void filteredTableFollowsRowsAcrossTheFilterBoundary() throws Exception {
        String t = filteredTable(300);
        TableEnvironment tEnv = tableEnv(2);
        tEnv.executeSql("CREATE TABLE src (id BIGINT, qty INT, tag STRING, payload STRING, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + with(t, ""));
        tEnv.executeSql("CREATE TABLE snk (id BIGINT, qty INT, tag STRING, PRIMARY KEY (id) NOT ENFORCED)" + sink());
        JobClient job = tEnv.executeSql("INSERT INTO snk SELECT id, qty, tag FROM src" + FILTER)
                .getJobClient()
                .orElseThrow();
        String[] columns = {"id", "qty", "tag"};
        String query = "SELECT id, qty, tag FROM " + t + VTGATE_FILTER;
        try {
            // The copy: only matching rows.
            awaitEqual(query, columns, TestTimeouts.CONVERGE, "id");
            // Streaming: rows leave the range (qty, tag), enter it (qty, tag), move inside it, and
            // rows are inserted and deleted on both sides.
            VitessCluster.execute(
                    "customer",
                    "UPDATE " + t + " SET qty = 70 WHERE id IN (21, 24, 27)", // red, in range -> out
                    "UPDATE " + t + " SET tag = 'blue' WHERE id IN (30, 33)", // red -> blue: out
                    "UPDATE " + t + " SET qty = 25 WHERE id IN (3, 6, 9, 90)", // red, out -> in
                    "UPDATE " + t + " SET tag = 'red' WHERE id IN (22, 23, 41)", // blue, in range -> in
                    "UPDATE " + t + " SET qty = 59 WHERE id IN (36, 39)", // moves inside the range
                    "UPDATE " + t + " SET qty = 5 WHERE id IN (1, 2)", // blue, outside stays outside
                    "UPDATE " + t + " SET qty = 30, tag = 'red' WHERE id = 4", // blue, out -> in (both columns)
                    "INSERT INTO " + t + " (id, qty, tag, payload) VALUES (1001, 30, 'red', 'x'), "
                            + "(1002, 70, 'red', 'x'), (1003, 30, 'blue', 'x'), (1004, 30, 'RED', 'x')",
                    "DELETE FROM " + t + " WHERE id IN (42, 45, 48, 50)");
            // Then back again: the rows that left come back, those that came in leave.
            VitessCluster.execute(
                    "customer",
                    "UPDATE " + t + " SET qty = 21 WHERE id = 21",
                    "UPDATE " + t + " SET qty = 95 WHERE id IN (3, 90)",
                    "UPDATE " + t + " SET tag = 'green' WHERE id = 22");
            awaitEqual(
                    "SELECT id, qty, tag FROM " + t + " WHERE qty >= 20 AND qty < 60 AND BINARY tag IN ('red', 'BLUE')",
                    columns,
                    TestTimeouts.CONVERGE,
                    "id");
            assertThat(project(MaterializedTables.get(runId).rows(), columns))
                    .as("rows moved into the range are there, rows moved out are not")
                    .containsKeys("4", "6", "9", "23", "41", "1001", "21")
                    .doesNotContainKeys("24", "27", "30", "33", "3", "90", "22", "1002", "1003", "1004", "42");
        } finally {
            VitessITBase.cancel(job);
        }
    }

    /**
     * Rows cross the filter's boundary while the copy is still running: a writer moves rows into and
     * out of the range (qty, tag), inserts and deletes from before the job starts until after the copy
     * has ended. The copy is held open by backpressure (a Flink function that takes 2 ms per row, 3 KB
     * rows and a 1 MiB native buffer, so the buffers between the tablet and it fill), so the writes land on rows
     * the copy has read and rows it has not reached yet. The result must equal the same query through
     * VTGate.
     */
    @Test
    void filteredTableFollowsRowsAcrossTheFilterBoundaryDuringTheCopy() throws Exception {
        int rows = 6_000;
        String t = filteredTable(rows, 3000);
        TableEnvironment tEnv = tableEnv(2);
        tEnv.createTemporarySystemFunction("slow_pass", SlowPass.class);
        tEnv.executeSql("CREATE TABLE src (id BIGINT, qty INT, tag STRING, payload STRING, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + with(t, ", 'buffer.size' = '1mb'"));
        tEnv.executeSql("CREATE TABLE snk (id BIGINT, qty INT, tag STRING, PRIMARY KEY (id) NOT ENFORCED)" + sink());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong writes = new AtomicLong();
        Thread writer = new Thread(() -> moveRowsAcrossTheBoundary(t, rows, stop, writes), "boundary-writer");
        writer.start();
        JobClient job = null;
        try {
            while (writes.get() < 20) {
                Thread.sleep(20);
            }
            job = tEnv.executeSql("INSERT INTO snk SELECT id, qty, tag FROM src" + FILTER + " AND slow_pass(id)")
                    .getJobClient()
                    .orElseThrow();
            long deadline = System.nanoTime() + TestTimeouts.CONVERGE.toNanos();
            while (shardsCopied(job.getJobID()) < 2 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            long writesDuringCopy = writes.get();
            Thread.sleep(1500);
            stop.set(true);
            writer.join();
            System.out.printf(
                    "boundary writer: %d writes before the copy ended (as the readers saw it), %d in all%n",
                    writesDuringCopy, writes.get());
            assertThat(shardsCopied(job.getJobID()))
                    .as("shards whose copy ended")
                    .isEqualTo(2);
            assertThat(writesDuringCopy).as("writes while the copy ran").isGreaterThan(100);
            awaitEqual(
                    "SELECT id, qty, tag FROM " + t + " WHERE qty >= 20 AND qty < 60 AND BINARY tag IN ('red', 'BLUE')",
                    new String[] {"id", "qty", "tag"},
                    TestTimeouts.CONVERGE,
                    "id");
        } finally {
            stop.set(true);
            writer.join();
            if (job != null) {
                VitessITBase.cancel(job);
            }
        }
    }

    /** Passes every row, 2 ms each: keeps the copy open by backpressure. */
    public static class SlowPass extends ScalarFunction {
        public boolean eval(Long id) throws InterruptedException {
            Thread.sleep(2);
            return true;
        }
    }

    /** Updates qty and tag of random rows (in and out of the range), inserts and deletes rows. */
    private static void moveRowsAcrossTheBoundary(String t, int rows, AtomicBoolean stop, AtomicLong writes) {
        Random random = new Random(rows);
        try (Connection c = VitessCluster.connect("customer");
                Statement st = c.createStatement()) {
            long nextId = rows + 1;
            while (!stop.get()) {
                long id = 1 + random.nextInt(rows);
                int op = random.nextInt(10);
                if (op < 6) {
                    st.executeUpdate("UPDATE " + t + " SET qty = " + random.nextInt(100) + " WHERE id = " + id);
                } else if (op < 8) {
                    st.executeUpdate("UPDATE " + t + " SET tag = IF(tag = 'red', 'blue', 'red') WHERE id = " + id);
                } else if (op < 9) {
                    st.executeUpdate("INSERT INTO " + t + " (id, qty, tag, payload) VALUES (" + nextId++ + ", "
                            + (20 + random.nextInt(40)) + ", 'red', 'x')");
                } else {
                    st.executeUpdate("DELETE FROM " + t + " WHERE id = " + id);
                }
                writes.incrementAndGet();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("boundary writer failed", e);
        }
    }

    /** Sum over the readers of {@code snapshotShardsDone}: shards whose copy ended. */
    private static long shardsCopied(JobID jobId) {
        long done = 0;
        for (Metric m : REPORTER.findMetrics(jobId, VitessSourceReaderMetrics.SHARDS_DONE)
                .values()) {
            if (m instanceof Gauge<?> g && g.getValue() instanceof Number n) {
                done += n.longValue();
            }
        }
        return done;
    }

    /** Runs a bounded query to its end and returns the source's numBytesIn. */
    private static long bytesOfBoundedQuery(TableEnvironment tEnv, String sql, int expectedRows) throws Exception {
        TableResult result = tEnv.executeSql(sql);
        JobClient job = result.getJobClient().orElseThrow();
        int count = 0;
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                it.next();
                count++;
            }
        }
        assertThat(count).as("rows of " + sql).isEqualTo(expectedRows);
        job.getJobExecutionResult().get(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS);
        return sourceBytesIn(job.getJobID());
    }

    private static long sourceBytesIn(JobID jobId) {
        long sum = 0;
        Map<String, Metric> metrics = REPORTER.findMetrics(jobId, "numBytesIn");
        for (Map.Entry<String, Metric> e : metrics.entrySet()) {
            // The operator-level counter of the source (the chained task's own numBytesIn counts
            // network input, none here).
            if (e.getKey().contains("Source")
                    && e.getKey().endsWith(".numBytesIn")
                    && e.getValue() instanceof Counter) {
                sum += ((Counter) e.getValue()).getCount();
            }
        }
        assertThat(sum)
                .as("numBytesIn of job " + jobId + " in " + metrics.keySet())
                .isPositive();
        return sum;
    }

    @Test
    void declaredColumnMissingInVitessFailsWithItsName() throws Exception {
        String t = createTable("missing", "id BIGINT NOT NULL PRIMARY KEY, email VARCHAR(64)");
        VitessCluster.execute("customer", "INSERT INTO " + t + " (id, email) VALUES (1, 'a@b')");
        // 'auto' asks VTGate at planning anyway (the key orders): the statement is refused there.
        TableEnvironment planning = tableEnv(1);
        planning.executeSql("CREATE TABLE src (id BIGINT, email STRING, no_such_col STRING, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + with(t, ""));
        planning.executeSql("CREATE TABLE snk (id BIGINT, email STRING, no_such_col STRING, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + sink());
        assertThatThrownBy(() -> planning.executeSql("INSERT INTO snk SELECT * FROM src"))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(rootMessages(e))
                        .contains("column 'no_such_col' is not in Vitess table customer." + t)
                        .contains("remove it from the selection"));
        // 'upsert' needs no VTGate at planning: the job stops when it starts, once, naming the fix.
        TableEnvironment tEnv = tableEnv(1);
        tEnv.executeSql("CREATE TABLE src (id BIGINT, email STRING, no_such_col STRING, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + with(t, ", 'changelog-mode' = 'upsert'"));
        tEnv.executeSql("CREATE TABLE snk (id BIGINT, email STRING, no_such_col STRING, "
                + "PRIMARY KEY (id) NOT ENFORCED)" + sink());
        TableResult insert = tEnv.executeSql("INSERT INTO snk SELECT * FROM src");
        assertThatThrownBy(() -> insert.await(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS))
                .satisfies(e -> {
                    String m = rootMessages(e);
                    System.out.println("missing column -> " + m);
                    assertThat(m).contains("no_such_col").contains(t).containsIgnoringCase("remove the column");
                });
    }

    @Test
    void declaredColumnOfIncompatibleTypeFailsWithTheFix() throws Exception {
        String t = createTable("badtype", "id BIGINT NOT NULL PRIMARY KEY, email VARCHAR(64)");
        VitessCluster.execute("customer", "INSERT INTO " + t + " (id, email) VALUES (1, 'a@b')");
        TableEnvironment tEnv = tableEnv(1);
        tEnv.executeSql("CREATE TABLE src (id BIGINT, email INT, PRIMARY KEY (id) NOT ENFORCED)" + with(t, ""));
        tEnv.executeSql("CREATE TABLE snk (id BIGINT, email INT, PRIMARY KEY (id) NOT ENFORCED)" + sink());
        TableResult insert = tEnv.executeSql("INSERT INTO snk SELECT * FROM src");
        assertThatThrownBy(() -> insert.await(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS))
                .satisfies(e -> {
                    String m = rootMessages(e);
                    System.out.println("incompatible type -> " + m);
                    assertThat(m).contains("'email'").contains("INT").contains("declare it as STRING");
                });
    }

    /**
     * A value its declared Flink type cannot hold exactly, read by a job whose restart strategy
     * would restart it a thousand times: the job fails once, at once, naming a declaration Flink
     * accepts (a restart would replay the same row and fail again).
     */
    @ParameterizedTest(name = "{0} holding {1} declared as {2}")
    @MethodSource("valuesThatDoNotFit")
    void valueThatDoesNotFitFailsTheJobWithoutRestarts(
            String mysqlType, String value, String declared, List<String> expected, List<String> unexpected)
            throws Exception {
        String t = createTable("nofit", "id BIGINT NOT NULL PRIMARY KEY, v " + mysqlType);
        VitessCluster.execute("customer", "INSERT INTO " + t + " (id, v) VALUES (1, " + value + ")");
        TableEnvironment tEnv = tableEnv(1);
        tEnv.getConfig().set("restart-strategy.type", "fixed-delay");
        tEnv.getConfig().set("restart-strategy.fixed-delay.attempts", "1000");
        tEnv.getConfig().set("restart-strategy.fixed-delay.delay", "100 ms");
        tEnv.executeSql(
                "CREATE TABLE src (id BIGINT, v " + declared + ", PRIMARY KEY (id) NOT ENFORCED)" + with(t, ""));
        tEnv.executeSql("CREATE TABLE snk (id BIGINT, v " + declared + ", PRIMARY KEY (id) NOT ENFORCED)" + sink());
        TableResult insert = tEnv.executeSql("INSERT INTO snk SELECT * FROM src");
        JobClient job = insert.getJobClient().orElseThrow();
        assertThatThrownBy(() -> insert.await(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS))
                .satisfies(e -> {
                    String m = rootMessages(e);
                    System.out.println(mysqlType + " " + value + " as " + declared + " -> " + m);
                    assertThat(m).as("the job's failure").doesNotContain("TimeoutException");
                    assertThat(m).contains("'v'").contains(t);
                    for (String needle : expected) {
                        assertThat(m).contains(needle);
                    }
                    for (String needle : unexpected) {
                        assertThat(m).doesNotContain(needle);
                    }
                });
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.FAILED);
        Map<String, Metric> restarts = REPORTER.findMetrics(job.getJobID(), "numRestarts");
        assertThat(restarts).as("the job's numRestarts gauge").isNotEmpty();
        for (Metric gauge : restarts.values()) {
            assertThat(((Gauge<?>) gauge).getValue()).as("restarts").isEqualTo(0L);
        }
    }

    static Stream<Arguments> valuesThatDoNotFit() {
        return Stream.of(
                // Flink's DECIMAL stops at 38 digits: the advice must be one Flink can declare.
                Arguments.of(
                        "DECIMAL(65, 30)",
                        "'12345678901234567890123456789012345.5'",
                        "DECIMAL(38, 30)",
                        List.of("does not fit DECIMAL(38, 30)", "declare it as STRING (exact"),
                        List.of("declare it as DECIMAL(65")),
                // Flink turns TIME(6) into TIME(0): the message names neither a precision nor a range
                // that contradicts the DDL or the docs.
                Arguments.of(
                        "TIME(6)",
                        "'-838:59:59'",
                        "TIME(6)",
                        List.of(
                                "declared as TIME:",
                                "-838:59:59.000000",
                                "outside Flink's TIME range 00:00:00 to 23:59:59.999",
                                "declare the column as STRING"),
                        List.of("TIME(0)")),
                Arguments.of(
                        "TIME(6)",
                        "'12:00:00.123456'",
                        "TIME(6)",
                        List.of("12:00:00.123456", "sub-millisecond", "declare the column as STRING"),
                        List.of("TIME(0)")),
                Arguments.of(
                        "DECIMAL(10, 4)",
                        "'1.2345'",
                        "DECIMAL(10, 2)",
                        List.of("does not fit DECIMAL(10, 2)", "declare it as DECIMAL(10, 4)"),
                        List.of()),
                Arguments.of(
                        "BIGINT UNSIGNED",
                        "18446744073709551615",
                        "BIGINT",
                        List.of("does not fit BIGINT", "DECIMAL(20, 0)"),
                        List.of()),
                Arguments.of(
                        "INT", "100000", "SMALLINT", List.of("does not fit SMALLINT", "declare it as INT"), List.of()));
    }

    @Test
    void columnAddedInVitessDoesNotBreakTheJob() throws Exception {
        String t = createTable("evolve", "id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(64), qty INT");
        for (int i = 1; i <= 20; i++) {
            VitessCluster.execute(
                    "customer", "INSERT INTO " + t + " (id, name, qty) VALUES (" + i + ", 'n" + i + "', " + i + ")");
        }
        TableEnvironment tEnv = tableEnv(2);
        tEnv.executeSql(
                "CREATE TABLE src (id BIGINT, name STRING, qty INT, PRIMARY KEY (id) NOT ENFORCED)" + with(t, ""));
        tEnv.executeSql("CREATE TABLE snk (id BIGINT, name STRING, qty INT, PRIMARY KEY (id) NOT ENFORCED)" + sink());
        JobClient job = tEnv.executeSql("INSERT INTO snk SELECT * FROM src")
                .getJobClient()
                .orElseThrow();
        try {
            waitUntil(
                    TestTimeouts.CONVERGE,
                    () -> MaterializedTables.get(runId).rows().size() >= 20,
                    "the snapshot of " + t);
            for (int i = 21; i <= 30; i++) {
                VitessCluster.execute(
                        "customer",
                        "INSERT INTO " + t + " (id, name, qty) VALUES (" + i + ", 'n" + i + "', " + i + ")");
            }
            // A new column in the middle of the table: the declared columns move, by name they stay.
            VitessCluster.execute(
                    "customer", "ALTER TABLE " + t + " ADD COLUMN note VARCHAR(32) DEFAULT 'new' AFTER id");
            for (int i = 31; i <= 60; i++) {
                tables.executeOnceVtgateKnows(
                        "INSERT INTO " + t + " (id, note, name, qty) VALUES (" + i + ", 'x" + i + "', 'n" + i + "', "
                                + i + ")",
                        "UPDATE " + t + " SET qty = qty + 100, note = 'u' WHERE id = " + (i - 30),
                        "DELETE FROM " + t + " WHERE id = " + (i - 25) + " AND MOD(id, 7) = 0");
            }
            awaitEqual(
                    "SELECT id, name, qty FROM " + t, new String[] {"id", "name", "qty"}, TestTimeouts.CONVERGE, "id");
            assertThat(job.getJobStatus().get()).as("the job after ADD COLUMN").isEqualTo(JobStatus.RUNNING);
        } finally {
            VitessITBase.cancel(job);
        }
    }

    private void awaitEqual(String sql, String[] columns, Duration timeout, String... key) throws Exception {
        awaitEqual(
                VitessCluster.query("customer", sql, key),
                () -> project(MaterializedTables.get(runId).rows(), columns),
                timeout,
                "upsert sink vs " + sql);
    }
}
