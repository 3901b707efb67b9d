/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.ExceptionHistory;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.SqlJobs;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DDL that changes what downstream holds without a row event (docs/reliability.md, "DDL that
 * changes what downstream holds"), against the real Vitess under a running SQL job with a restart
 * strategy of three restarts: {@code TRUNCATE}, {@code DROP TABLE} (and a table created again under
 * the name), a {@code RENAME} away and a change of the primary key each stop the job once, naming
 * the statement and the fix; with {@code 'scan.destructive-ddl' = 'continue'} the job goes on.
 * Each test has a table of its own in the unsharded keyspace {@code commerce}, dropped after.
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessDestructiveDdlITCase extends VitessITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(2);

    private static final String KEYSPACE = "commerce";

    private final String table = "ddl_" + Long.toHexString(System.nanoTime());

    VitessDestructiveDdlITCase() {
        super("ddl");
    }

    @AfterEach
    void dropTables() throws Exception {
        VitessCluster.execute(KEYSPACE, "DROP TABLE IF EXISTS " + table, "DROP TABLE IF EXISTS " + table + "_archive");
    }

    @Test
    void truncateStopsTheJobOnceNamingTheFix() throws Exception {
        assertStopsOnce("TRUNCATE TABLE " + table, "truncated it");
    }

    @Test
    void dropAndCreateAgainStopsTheJobAtTheDrop() throws Exception {
        assertStopsOnce(
                "DROP TABLE " + table, "dropped it", "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, v BIGINT)");
    }

    @Test
    void aRenameAwayStopsTheJob() throws Exception {
        assertStopsOnce("RENAME TABLE " + table + " TO " + table + "_archive", "renamed it to '" + table + "_archive'");
    }

    @Test
    void aChangedPrimaryKeyStopsTheJob() throws Exception {
        assertStopsOnce(
                "ALTER TABLE " + table + " DROP PRIMARY KEY, ADD PRIMARY KEY (id, v)",
                "primary key changed from (id) to (id, v)",
                "INSERT INTO " + table + " VALUES (100, 100)");
    }

    @Test
    void withContinueATruncateIsLoggedAndTheJobGoesOn() throws Exception {
        JobClient job = start(", 'scan.destructive-ddl' = 'continue'");
        try {
            awaitRows(5);
            VitessCluster.execute(KEYSPACE, "TRUNCATE TABLE " + table, "INSERT INTO " + table + " VALUES (6, 6)");
            // Downstream keeps the truncated rows (what 'continue' accepts) and reads on.
            awaitRows(6);
            assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            assertThat(ExceptionHistory.failures(MINI_CLUSTER, job.getJobID())).isZero();
        } finally {
            job.cancel().get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    // ---------------------------------------------------------------------------------------------

    private void assertStopsOnce(String ddl, String says, String... after) throws Exception {
        JobClient job = start("");
        awaitRows(5);
        VitessCluster.execute(KEYSPACE, ddl);
        if (after.length > 0) {
            VitessCluster.execute(KEYSPACE, after);
        }
        String failure;
        try {
            job.getJobExecutionResult().get(TestTimeouts.PROGRESS.toMillis(), TimeUnit.MILLISECONDS);
            throw new AssertionError("the job ended without failing after " + ddl);
        } catch (ExecutionException e) {
            failure = rootMessages(e);
        }
        assertThat(failure)
                .contains("table '" + KEYSPACE + "." + table + "'")
                .contains(says)
                .contains("'scan.destructive-ddl' = 'continue'")
                .contains("'scan.startup.mode' = 'initial'");
        assertThat(ExceptionHistory.failures(MINI_CLUSTER, job.getJobID()))
                .as("failures in the job's exception history: no restart")
                .isEqualTo(1);
    }

    private JobClient start(String extraOptions) throws Exception {
        VitessCluster.execute(
                KEYSPACE,
                "CREATE TABLE " + table + " (id BIGINT NOT NULL, v BIGINT NOT NULL, PRIMARY KEY (id))",
                "INSERT INTO " + table + " VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)");
        TableEnvironment tEnv = SqlJobs.tableEnv(2);
        tEnv.getConfig().set("restart-strategy.type", "fixed-delay");
        tEnv.getConfig().set("restart-strategy.fixed-delay.attempts", "3");
        tEnv.getConfig().set("restart-strategy.fixed-delay.delay", "200 ms");
        tEnv.executeSql("CREATE TABLE src (id BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with(KEYSPACE, table, ", 'changelog-mode' = 'upsert'" + extraOptions));
        tEnv.executeSql(
                "CREATE TABLE snk (id BIGINT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)" + SqlJobs.upsertSink(runId));
        return SqlJobs.executeAll(tEnv, "INSERT INTO snk SELECT * FROM src");
    }

    private void awaitRows(int rows) throws Exception {
        waitUntil(
                TestTimeouts.CONVERGE,
                () -> MaterializedTables.get(runId).rows().size() == rows,
                () -> rows + " rows downstream; have "
                        + MaterializedTables.get(runId).rows().keySet());
        Map<String, Map<String, String>> have = MaterializedTables.get(runId).rows();
        assertThat(have).hasSize(rows);
    }
}
