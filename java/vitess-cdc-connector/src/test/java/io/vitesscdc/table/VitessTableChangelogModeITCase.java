/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.RecordedChangelog;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static io.vitesscdc.source.testutils.SqlJobs.tableEnv;
import static io.vitesscdc.source.testutils.SqlJobs.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Option 'changelog-mode' against the real local Vitess, on tables of its own in the unsharded
 * keyspace {@code commerce} (created through VTGate, dropped afterwards) with a {@code VARCHAR(64)}
 * primary key: in utf8mb4_general_ci (case-insensitive, an order the connector does not reproduce)
 * 'auto' declares an upsert changelog and the result still equals Vitess, 'all' is refused at
 * planning; in MySQL's default utf8mb4_0900_ai_ci and in utf8mb4_bin the table stays a retract
 * changelog.
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessTableChangelogModeITCase extends VitessITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4);

    private static final String KEYSPACE = "commerce";
    private static final String COLUMNS = "k, v, note";

    private final List<String> tables = new ArrayList<>();

    VitessTableChangelogModeITCase() {
        super("changelog-mode");
    }

    @AfterEach
    void dropTables() {
        for (String t : tables) {
            try {
                VitessCluster.execute(KEYSPACE, "DROP TABLE IF EXISTS " + t);
            } catch (Exception e) {
                System.err.println("cannot drop " + t + ": " + e);
            }
        }
    }

    /** A new table {@code <prefix>_<unique>} with a VARCHAR(64) key in {@code collation} (empty: the default). */
    private String createTable(String prefix, String collation) throws Exception {
        String t = prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        tables.add(t);
        VitessCluster.execute(
                KEYSPACE,
                "CREATE TABLE " + t + " (k VARCHAR(64) " + collation + " NOT NULL, "
                        + "v INT NOT NULL, note VARCHAR(64), PRIMARY KEY (k))");
        return t;
    }

    private static void createSource(TableEnvironment tEnv, String name, String table, String extra) {
        tEnv.executeSql("CREATE TABLE " + name + " (k STRING, v INT, note STRING, shard STRING METADATA VIRTUAL, "
                + "PRIMARY KEY (k) NOT ENFORCED)" + with(KEYSPACE, table, extra));
    }

    /**
     * {@code log}: records the raw changelog it gets into the run's strict changelog. It declares no
     * primary key, so behind an upsert source the planner must rebuild a retract stream for it
     * (ChangelogNormalize).
     */
    private void createRetractSink(TableEnvironment tEnv) {
        tEnv.executeSql("CREATE TABLE log (k STRING, v INT, note STRING, shard STRING) WITH ("
                + "'connector' = 'recorded-changelog', 'recording-id' = '" + runId + "', 'key-columns' = 'k')");
    }

    @Test
    void autoDeclaresACaseInsensitiveKeyAsUpsertAndTheResultEqualsVitess() throws Exception {
        String t = createTable("cm_ci", "COLLATE utf8mb4_general_ci");
        KeyedWriter writer = new KeyedWriter(t);
        writer.insert(150);
        TableEnvironment tEnv = tableEnv(2);
        createSource(tEnv, "src", t, "");
        tEnv.executeSql("CREATE TABLE snk (k STRING, v INT, note STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                + "'connector' = 'upsert-collecting', 'tables-id' = '" + runId + "')");
        createRetractSink(tEnv);
        String toLog = "INSERT INTO log SELECT " + COLUMNS + ", shard FROM src";
        String plan = tEnv.explainSql(toLog, ExplainDetail.CHANGELOG_MODE);
        assertThat(plan)
                .as("the source is declared upsert with full deletes")
                .contains("TableSourceScan(table=[[default_catalog, default_database, src")
                .contains("changelogMode=[I,UA,D]")
                .contains("ChangelogNormalize");
        StatementSet set = tEnv.createStatementSet();
        set.addInsertSql("INSERT INTO snk SELECT " + COLUMNS + " FROM src");
        set.addInsertSql(toLog);
        JobClient job = set.execute().getJobClient().orElseThrow();
        try {
            // Writes while the copy runs and after it: updates, deletes, inserts, and updates of the key.
            writer.run(200);
            Map<String, Map<String, String>> expected =
                    VitessCluster.query(KEYSPACE, "SELECT " + COLUMNS + " FROM " + t, "k");
            awaitEqual(expected, TestTimeouts.CONVERGE);
            RecordedChangelog.get(runId).awaitCommitted(TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(job);
        }
        RecordedChangelog.get(runId).assertStrict();
    }

    @Test
    void allIsRefusedAtPlanningNamingTheColumnAndItsCollation() throws Exception {
        String t = createTable("cm_all", "COLLATE utf8mb4_general_ci");
        TableEnvironment tEnv = tableEnv(2);
        createSource(tEnv, "src", t, ", 'changelog-mode' = 'all'");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM src"))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'changelog-mode' = 'all'")
                .hasMessageContaining("table '" + t + "', primary-key column 'k'")
                .hasMessageContaining("utf8mb4_general_ci")
                .hasMessageContaining("utf8mb4_bin");
    }

    @ParameterizedTest
    @ValueSource(strings = {"COLLATE utf8mb4_bin", "COLLATE utf8mb4_0900_ai_ci", ""})
    void aKeyInAnExactCollationStaysARetractChangelog(String collation) throws Exception {
        String t = createTable("cm_exact", collation);
        TableEnvironment tEnv = tableEnv(2);
        createSource(tEnv, "src", t, "");
        createRetractSink(tEnv);
        // The same retract sink that needs ChangelogNormalize behind an upsert source (above).
        String plan =
                tEnv.explainSql("INSERT INTO log SELECT " + COLUMNS + ", shard FROM src", ExplainDetail.CHANGELOG_MODE);
        assertThat(plan).contains("changelogMode=[I,UB,UA,D]").doesNotContain("ChangelogNormalize");
        createSource(tEnv, "src_all", t, ", 'changelog-mode' = 'all'");
        assertThat(tEnv.explainSql("SELECT " + COLUMNS + " FROM src_all", ExplainDetail.CHANGELOG_MODE))
                .as("'all' accepts an exact key order")
                .contains("changelogMode=[I,UB,UA,D]");
    }

    /**
     * A retract table written to a sink that takes no {@code -U} gets Flink's DropUpdateBefore
     * filter chained in, one more copy of every row with object reuse off; a sink that takes them
     * does not (docs/sql-connector.md, "Object reuse").
     */
    @Test
    void aSinkThatTakesNoUpdateBeforeGetsDropUpdateBeforeBehindARetractTable() throws Exception {
        String t = createTable("cm_dub", "COLLATE utf8mb4_bin");
        TableEnvironment tEnv = tableEnv(2);
        createSource(tEnv, "src", t, "");
        tEnv.executeSql("CREATE TABLE hole (k STRING, v INT, note STRING) WITH ('connector' = 'blackhole')");
        assertThat(tEnv.explainSql("INSERT INTO hole SELECT " + COLUMNS + " FROM src", ExplainDetail.CHANGELOG_MODE))
                .contains("changelogMode=[I,UB,UA,D]")
                .contains("DropUpdateBefore");
        createRetractSink(tEnv);
        assertThat(tEnv.explainSql(
                        "INSERT INTO log SELECT " + COLUMNS + ", shard FROM src", ExplainDetail.CHANGELOG_MODE))
                .doesNotContain("DropUpdateBefore");
    }

    private void awaitEqual(Map<String, Map<String, String>> expected, Duration timeout) throws Exception {
        awaitEqual(
                expected,
                () -> MaterializedTables.get(runId).rows(),
                timeout,
                "upsert sink vs SELECT * through VTGate");
    }

    /** Inserts, updates (of values and of the key) and deletes in one test table through VTGate. */
    private static final class KeyedWriter {
        private final String table;
        private final Random random = new Random();
        private final List<String> keys = new ArrayList<>();
        private int next;

        KeyedWriter(String table) {
            this.table = table;
        }

        /** Keys in mixed case (distinct under a case-insensitive collation too). */
        private String newKey() {
            next++;
            return (next % 2 == 0 ? "Key-" : "key-") + next + "-" + Integer.toHexString(random.nextInt());
        }

        void insert(int rows) throws Exception {
            try (Connection c = VitessCluster.connect(KEYSPACE);
                    PreparedStatement ps =
                            c.prepareStatement("INSERT INTO " + table + " (k, v, note) VALUES (?, ?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    String k = newKey();
                    ps.setString(1, k);
                    ps.setInt(2, i);
                    ps.setString(3, "n" + i);
                    ps.executeUpdate();
                    keys.add(k);
                }
            }
        }

        /** {@code ops} random changes, a few milliseconds apart, so they overlap the copy and the stream. */
        void run(int ops) throws Exception {
            try (Connection c = VitessCluster.connect(KEYSPACE)) {
                for (int i = 0; i < ops; i++) {
                    int op = random.nextInt(10);
                    if (keys.isEmpty() || op < 3) {
                        String k = newKey();
                        update(c, "INSERT INTO " + table + " (k, v, note) VALUES (?, " + i + ", 'new')", k);
                        keys.add(k);
                    } else if (op < 7) {
                        update(c, "UPDATE " + table + " SET v = v + 1, note = 'upd" + i + "' WHERE k = ?", pick());
                    } else if (op < 9) {
                        update(c, "DELETE FROM " + table + " WHERE k = ?", keys.remove(random.nextInt(keys.size())));
                    } else {
                        String moved = newKey();
                        String old = keys.remove(random.nextInt(keys.size()));
                        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET k = ? WHERE k = ?")) {
                            ps.setString(1, moved);
                            ps.setString(2, old);
                            ps.executeUpdate();
                        }
                        keys.add(moved);
                    }
                    Thread.sleep(5);
                }
            }
        }

        private String pick() {
            return keys.get(random.nextInt(keys.size()));
        }

        private static void update(Connection c, String sql, String key) throws Exception {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setString(1, key);
                ps.executeUpdate();
            }
        }
    }
}
