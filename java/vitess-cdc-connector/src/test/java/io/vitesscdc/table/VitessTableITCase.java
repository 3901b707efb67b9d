/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.CustomerRangeITBase;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.RecordedChangelog;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static io.vitesscdc.source.testutils.SqlJobs.executeAll;
import static io.vitesscdc.source.testutils.SqlJobs.project;
import static io.vitesscdc.source.testutils.SqlJobs.tableEnv;
import static io.vitesscdc.source.testutils.SqlJobs.upsertSink;
import static io.vitesscdc.source.testutils.SqlJobs.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The SQL connector end to end against the real local Vitess: {@code CREATE TABLE ... WITH
 * ('connector' = 'vitess-cdc')}, {@code INSERT INTO} an upsert sink keyed by the primary key,
 * while rows change concurrently; at quiescence the sink equals {@code SELECT *} through VTGate.
 * The same job records the source's raw changelog ({@link RecordedChangelogSinkFactory}), which
 * must be a strict changelog.
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessTableITCase extends CustomerRangeITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4);

    VitessTableITCase() {
        super("sql");
    }

    private String sink() {
        return upsertSink(runId);
    }

    /** The raw changelog of a table with a {@code shard} column into the run's recorded changelog. */
    private String changelogSink(String key) {
        return " WITH ('connector' = 'recorded-changelog', 'recording-id' = '" + runId + "', 'key-columns' = '" + key
                + "')";
    }

    @Test
    void customerTableWithMetadataEqualsVitess() throws Exception {
        writer.insertRows(200);
        TableEnvironment tEnv = tableEnv(2);
        tEnv.executeSql("CREATE TABLE src (customer_id BIGINT, email STRING, name STRING, balance DECIMAL(12, 2), "
                + "visits INT, updated_at TIMESTAMP(6), "
                + "ks STRING METADATA FROM 'keyspace' VIRTUAL, shard STRING METADATA VIRTUAL, "
                + "tbl STRING METADATA FROM 'table_name' VIRTUAL, op_ts TIMESTAMP_LTZ(3) METADATA VIRTUAL, "
                + "kind STRING METADATA FROM 'row_kind' VIRTUAL, pos STRING METADATA FROM 'position' VIRTUAL, "
                + "snap BOOLEAN METADATA FROM 'is_snapshot' VIRTUAL, "
                + "PRIMARY KEY (customer_id) NOT ENFORCED)" + with("customer", ""));
        tEnv.executeSql("CREATE TABLE snk (customer_id BIGINT, email STRING, name STRING, balance DECIMAL(12, 2), "
                + "visits INT, updated_at TIMESTAMP(6), ks STRING, shard STRING, tbl STRING, op_ts TIMESTAMP_LTZ(3), "
                + "kind STRING, pos STRING, snap BOOLEAN, PRIMARY KEY (customer_id) NOT ENFORCED)" + sink());
        tEnv.executeSql("CREATE TABLE log (customer_id BIGINT, email STRING, name STRING, balance DECIMAL(12, 2), "
                + "visits INT, updated_at TIMESTAMP(6), shard STRING)" + changelogSink("customer_id"));
        String physical = "customer_id, email, name, balance, visits, updated_at";
        JobClient job = executeAll(
                tEnv, "INSERT INTO snk SELECT * FROM src", "INSERT INTO log SELECT " + physical + ", shard FROM src");
        try {
            writer.start(80);
            waitUntil(TestTimeouts.PROGRESS, () -> writer.ops() >= 150, "writer progress");
            writer.stop();
            awaitEqual(
                    "SELECT " + physical + " FROM customer WHERE " + writer.rangePredicate(),
                    physical.split(", "),
                    TestTimeouts.CONVERGE,
                    "customer_id");
            RecordedChangelog.get(runId).awaitCommitted(TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(job);
        }
        RecordedChangelog.get(runId).assertStrict();
        Map<String, Map<String, String>> rows =
                inRange(MaterializedTables.get(runId).rows());
        Set<String> shards = new HashSet<>();
        boolean sawSnapshot = false;
        boolean sawStreamed = false;
        for (Map<String, String> row : rows.values()) {
            assertThat(row.get("ks")).isEqualTo("customer");
            assertThat(row.get("tbl")).isEqualTo("customer");
            assertThat(row.get("shard")).isIn("-80", "80-");
            assertThat(row.get("pos")).contains("\"shard\":\"" + row.get("shard") + "\"");
            shards.add(row.get("shard"));
            if (Boolean.parseBoolean(row.get("snap"))) {
                sawSnapshot = true;
                assertThat(row.get("kind")).isEqualTo("+I");
                assertThat(row.get("op_ts")).isEqualTo(Instant.EPOCH.toString());
            } else {
                sawStreamed = true;
                assertThat(row.get("kind")).isIn("+I", "+U");
                assertThat(Instant.parse(row.get("op_ts")))
                        .isAfter(Instant.now().minus(Duration.ofHours(1)));
            }
        }
        assertThat(shards).containsExactlyInAnyOrder("-80", "80-");
        assertThat(sawSnapshot).as("rows from the snapshot").isTrue();
        assertThat(sawStreamed).as("rows from the binlog").isTrue();
    }

    @Test
    void compositePrimaryKeyAtParallelismFourEqualsVitess() throws Exception {
        long base = writer.base();
        Random random = new Random();
        for (int i = 0; i < 50; i++) {
            VitessCluster.execute(
                    "customer",
                    "INSERT INTO corder (customer_id, order_id, sku, quantity, price) VALUES (" + (base + i % 10) + ", "
                            + i + ", 'sku" + i + "', " + i + ", " + i + ".25)");
        }
        TableEnvironment tEnv = tableEnv(4);
        tEnv.executeSql("CREATE TABLE src (customer_id BIGINT, order_id BIGINT, sku STRING, quantity INT, "
                + "price DECIMAL(10, 2), shard STRING METADATA VIRTUAL, "
                + "PRIMARY KEY (customer_id, order_id) NOT ENFORCED)" + with("corder", ""));
        tEnv.executeSql("CREATE TABLE snk (customer_id BIGINT, order_id BIGINT, sku STRING, quantity INT, "
                + "price DECIMAL(10, 2), PRIMARY KEY (customer_id, order_id) NOT ENFORCED)" + sink());
        tEnv.executeSql("CREATE TABLE log (customer_id BIGINT, order_id BIGINT, sku STRING, quantity INT, "
                + "price DECIMAL(10, 2), shard STRING)" + changelogSink("customer_id, order_id"));
        String columns = "customer_id, order_id, sku, quantity, price";
        JobClient job = executeAll(
                tEnv,
                "INSERT INTO snk SELECT " + columns + " FROM src",
                "INSERT INTO log SELECT " + columns + ", shard FROM src");
        try {
            waitUntil(
                    TestTimeouts.PROGRESS,
                    () -> inRange(MaterializedTables.get(runId).rows()).size() >= 50,
                    "the snapshot of corder");
            for (int i = 50; i < 120; i++) {
                long cid = base + random.nextInt(10);
                VitessCluster.execute(
                        "customer",
                        "INSERT INTO corder (customer_id, order_id, sku, quantity, price) VALUES (" + cid + ", " + i
                                + ", 'new', 1, 9.99)",
                        "UPDATE corder SET quantity = quantity + 7, sku = 'upd' WHERE customer_id = " + (base + i % 10)
                                + " AND order_id = " + (i - 50),
                        "DELETE FROM corder WHERE customer_id = " + (base + (i + 3) % 10) + " AND order_id = "
                                + (i - 45));
            }
            awaitEqual(
                    "SELECT " + columns + " FROM corder WHERE " + writer.rangePredicate(),
                    columns.split(", "),
                    TestTimeouts.CONVERGE,
                    "customer_id",
                    "order_id");
            RecordedChangelog.get(runId).awaitCommitted(TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(job);
        }
        RecordedChangelog.get(runId).assertStrict();
    }

    @Test
    void regexSelectedTableWithProjection() throws Exception {
        writer.insertRows(50);
        TableEnvironment tEnv = tableEnv(2);
        tEnv.executeSql("CREATE TABLE src (customer_id BIGINT, email STRING, name STRING, balance DECIMAL(12, 2), "
                + "visits INT, updated_at TIMESTAMP(6), tbl STRING METADATA FROM 'table_name' VIRTUAL, "
                + "shard STRING METADATA VIRTUAL, PRIMARY KEY (customer_id) NOT ENFORCED)" + with("cust[a-z]+", ""));
        tEnv.executeSql("CREATE TABLE snk (customer_id BIGINT, visits INT, tbl STRING, "
                + "PRIMARY KEY (customer_id) NOT ENFORCED)" + sink());
        tEnv.executeSql("CREATE TABLE log (customer_id BIGINT, visits INT, tbl STRING, shard STRING)"
                + changelogSink("tbl, customer_id"));
        String plan = tEnv.explainSql("INSERT INTO snk SELECT customer_id, visits, tbl FROM src");
        assertThat(plan).as("projection pushed into the source").contains("project=[customer_id, visits]");
        JobClient job = executeAll(
                tEnv,
                "INSERT INTO snk SELECT customer_id, visits, tbl FROM src",
                "INSERT INTO log SELECT customer_id, visits, tbl, shard FROM src");
        try {
            writer.run(60);
            awaitEqual(
                    "SELECT customer_id, visits, 'customer' AS tbl FROM customer WHERE " + writer.rangePredicate(),
                    new String[] {"customer_id", "visits", "tbl"},
                    TestTimeouts.CONVERGE,
                    "customer_id");
            RecordedChangelog.get(runId).awaitCommitted(TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(job);
        }
        RecordedChangelog.get(runId).assertStrict();
    }

    @Test
    void snapshotModeIsBoundedAndMapsEveryType() throws Exception {
        long id = writer.base();
        VitessCluster.execute(
                "customer",
                "INSERT INTO all_types (id, c_tinyint, c_tinyint_u, c_smallint, "
                        + "c_smallint_u, c_mediumint, c_mediumint_u, c_int, c_int_u, c_bigint, c_bigint_u, c_bool, c_decimal, "
                        + "c_decimal0, c_float, c_double, c_bit1, c_bit64, c_date, c_datetime, c_datetime6, c_timestamp, "
                        + "c_time, c_time6, c_year, c_char, c_varchar, c_varchar_bin, c_text, c_latin1, c_binary, c_varbinary, "
                        + "c_blob, c_enum, c_set, c_json) VALUES (" + id
                        + ", -128, 255, -32768, 65535, -8388608, 16777215, "
                        + "-2147483648, 4294967295, -9223372036854775808, 18446744073709551615, 1, "
                        + "'12345678901234567890.0123456789', 99999999999999999999, 1.5, -2.25, b'1', x'8000000000000001', "
                        + "'2024-02-29', '2024-02-29 13:14:15', '2024-02-29 13:14:15.123456', '2024-02-29 13:14:15.123', "
                        + "'23:59:58', '-838:59:59.000000', 2024, 'abc', 'héllo ✓', x'00ff', 'text', 'café', x'0102', "
                        + "x'abcd', x'01', 'medium', 'a,c', '{\"k\": [1, 2]}')");
        long timestampMillis;
        try (Connection c = VitessCluster.connect("customer");
                Statement s = c.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT UNIX_TIMESTAMP(c_timestamp) * 1000 FROM all_types WHERE id = " + id)) {
            rs.next();
            timestampMillis = rs.getBigDecimal(1).longValueExact();
        }
        TableEnvironment tEnv = tableEnv(2);
        tEnv.executeSql("CREATE TABLE t (id BIGINT, c_tinyint TINYINT, c_tinyint_u SMALLINT, c_smallint SMALLINT, "
                + "c_smallint_u INT, c_mediumint INT, c_mediumint_u INT, c_int INT, c_int_u BIGINT, c_bigint BIGINT, "
                + "c_bigint_u DECIMAL(20, 0), c_bool BOOLEAN, c_decimal DECIMAL(30, 10), c_decimal0 DECIMAL(20, 0), "
                + "c_float FLOAT, c_double DOUBLE, c_bit1 BOOLEAN, c_bit64 BYTES, c_date DATE, c_datetime TIMESTAMP(0), "
                + "c_datetime6 TIMESTAMP(6), c_timestamp TIMESTAMP_LTZ(3), c_time STRING, c_time6 STRING, c_year INT, "
                + "c_char STRING, c_varchar STRING, c_varchar_bin BYTES, c_text STRING, c_latin1 STRING, "
                + "c_binary BYTES, c_varbinary BYTES, c_blob BYTES, c_enum STRING, c_set STRING, c_json STRING, "
                + "c_geometry BYTES, PRIMARY KEY (id) NOT ENFORCED)"
                + with("all_types", ", 'scan.startup.mode' = 'snapshot'"));
        Row mine = null;
        try (CloseableIterator<Row> rows = tEnv.executeSql("SELECT * FROM t").collect()) {
            // The iterator ends when the bounded snapshot ends; that is part of the assertion.
            while (rows.hasNext()) {
                Row row = rows.next();
                if (Long.valueOf(id).equals(row.getField("id"))) {
                    mine = row;
                }
            }
        }
        assertThat(mine).as("the row inserted before the snapshot").isNotNull();
        assertThat(mine.getField("c_tinyint")).isEqualTo((byte) -128);
        assertThat(mine.getField("c_tinyint_u")).isEqualTo((short) 255);
        assertThat(mine.getField("c_smallint")).isEqualTo((short) -32768);
        assertThat(mine.getField("c_smallint_u")).isEqualTo(65535);
        assertThat(mine.getField("c_mediumint")).isEqualTo(-8388608);
        assertThat(mine.getField("c_mediumint_u")).isEqualTo(16777215);
        assertThat(mine.getField("c_int")).isEqualTo(Integer.MIN_VALUE);
        assertThat(mine.getField("c_int_u")).isEqualTo(4294967295L);
        assertThat(mine.getField("c_bigint")).isEqualTo(Long.MIN_VALUE);
        assertThat(mine.getField("c_bigint_u")).isEqualTo(new BigDecimal("18446744073709551615"));
        assertThat(mine.getField("c_bool")).isEqualTo(true);
        assertThat(mine.getField("c_decimal")).isEqualTo(new BigDecimal("12345678901234567890.0123456789"));
        assertThat(mine.getField("c_decimal0")).isEqualTo(new BigDecimal("99999999999999999999"));
        assertThat(mine.getField("c_float")).isEqualTo(1.5f);
        assertThat(mine.getField("c_double")).isEqualTo(-2.25d);
        assertThat(mine.getField("c_bit1")).isEqualTo(true);
        assertThat((byte[]) mine.getField("c_bit64")).containsExactly(0x80, 0, 0, 0, 0, 0, 0, 1);
        assertThat(mine.getField("c_date")).isEqualTo(LocalDate.of(2024, 2, 29));
        assertThat(mine.getField("c_datetime")).isEqualTo(LocalDateTime.of(2024, 2, 29, 13, 14, 15));
        assertThat(mine.getField("c_datetime6")).isEqualTo(LocalDateTime.of(2024, 2, 29, 13, 14, 15, 123_456_000));
        assertThat(mine.getField("c_timestamp")).isEqualTo(Instant.ofEpochMilli(timestampMillis));
        // Other tests store TIME values beyond a day in this table: TIME(p) would fail on them (by design).
        assertThat(mine.getField("c_time")).isEqualTo("23:59:58.000000");
        assertThat(mine.getField("c_time6")).isEqualTo("-838:59:59.000000");
        assertThat(mine.getField("c_year")).isEqualTo(2024);
        assertThat(mine.getField("c_char")).isEqualTo("abc");
        assertThat(mine.getField("c_varchar")).isEqualTo("héllo ✓");
        assertThat((byte[]) mine.getField("c_varchar_bin")).containsExactly(0x00, 0xff);
        assertThat(mine.getField("c_text")).isEqualTo("text");
        assertThat(mine.getField("c_latin1")).isEqualTo("café");
        assertThat((byte[]) mine.getField("c_binary")).hasSize(16).startsWith(1, 2);
        assertThat((byte[]) mine.getField("c_varbinary")).containsExactly(0xab, 0xcd);
        assertThat((byte[]) mine.getField("c_blob")).containsExactly(1);
        assertThat(mine.getField("c_enum")).isEqualTo("medium");
        assertThat(mine.getField("c_set")).isEqualTo("a,c");
        ObjectMapper json = new ObjectMapper();
        assertThat(json.readTree((String) mine.getField("c_json"))).isEqualTo(json.readTree("{\"k\":[1,2]}"));
        assertThat(mine.getField("c_geometry")).isNull();
    }

    @Test
    void unknownKeyspaceFailsWithTheCauseAtPlanningOrAtJobStart() {
        TableEnvironment tEnv = tableEnv(1);
        for (String mode : new String[] {"auto", "upsert"}) {
            tEnv.executeSql("CREATE TABLE src_" + mode + " (customer_id BIGINT, PRIMARY KEY (customer_id) NOT ENFORCED)"
                    + " WITH ('connector' = 'vitess-cdc', 'vtgate.address' = '" + VitessCluster.grpcAddress() + "', "
                    + "'keyspace' = 'no_such_keyspace', 'table-name' = 'customer', 'changelog-mode' = '" + mode + "')");
        }
        tEnv.executeSql("CREATE TABLE snk (customer_id BIGINT, PRIMARY KEY (customer_id) NOT ENFORCED)" + sink());
        // 'auto' reads the key orders from VTGate when the statement is planned.
        assertThatThrownBy(() -> tEnv.executeSql("INSERT INTO snk SELECT * FROM src_auto"))
                .satisfies(e ->
                        assertThat(rootMessages(e)).contains("no_such_keyspace").contains("not found"));
        // 'upsert' asks VTGate nothing at planning: the job fails when it starts.
        // Not collect(): Flink's collect sink throws in close() when the job fails before it opened.
        TableResult insert = tEnv.executeSql("INSERT INTO snk SELECT * FROM src_upsert");
        assertThatThrownBy(insert::await)
                .satisfies(e ->
                        assertThat(rootMessages(e)).contains("no_such_keyspace").contains("not found"));
    }

    private Map<String, Map<String, String>> inRange(Map<String, Map<String, String>> rows) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        rows.forEach((k, v) -> {
            String first = k.contains("|") ? k.substring(0, k.indexOf('|')) : k;
            if (writer.inRange(Long.parseLong(first))) {
                out.put(k, v);
            }
        });
        return out;
    }

    private void awaitEqual(String sql, String[] columns, Duration timeout, String... key) throws Exception {
        awaitEqual(
                VitessCluster.query("customer", sql, key),
                () -> project(inRange(MaterializedTables.get(runId).rows()), columns),
                timeout,
                "upsert sink vs " + sql);
    }
}
