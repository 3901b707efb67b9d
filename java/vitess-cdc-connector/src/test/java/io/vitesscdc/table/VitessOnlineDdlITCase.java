/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.MultiProcessCluster;
import io.vitesscdc.source.testutils.TestTimeouts;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Vitess's online DDL ({@code ddl_strategy='vitess'}: the tablets copy the table into a shadow
 * table by VReplication, then cut over by RENAME while writes go on) under a running SQL job at
 * parallelism 2, on the multi-process cluster (vtcombo answers online DDL with "not implemented").
 * An online ALTER the job should carry on through is not here yet: in 2 of 5 runs the tablets
 * (tracking schema versions) could not decode the rows after the cut-over with the stream's column
 * list for 17 s and more, and the job failed with the SCHEMA_MISMATCH message (docs/reliability.md,
 * "Schema changes while a job runs").
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessOnlineDdlITCase extends SchemaChangeITBase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4, REPORTER.addToConfiguration(new Configuration()));

    VitessOnlineDdlITCase() {
        super("online-ddl", MultiProcessCluster.grpcAddress(), MultiProcessCluster.sql(), REPORTER, true);
    }

    /**
     * A completed migration leaves its VReplication workflow behind, stopped; a Reshard's
     * SwitchTraffic refuses to run while a stream on its source shards is not running, so the
     * reshard scenarios of this cluster would fail after this test without the delete.
     */
    @AfterEach
    void deleteMigrationWorkflows() throws Exception {
        for (String uuid : onlineMigrations()) {
            MultiProcessCluster.script(1, "ctl.sh", "Workflow", "--keyspace", "customer", "delete", "--workflow", uuid);
        }
    }

    @Test
    void onlineDropOfADeclaredColumnFailsTheJobOnceNamingTheFix() throws Exception {
        assertFailsOnceThenTheFixCarriesOn(
                "online DROP COLUMN (declared)",
                "INT",
                true,
                "ALTER TABLE %s DROP COLUMN qty",
                "",
                List.of("'qty'", "dropped or renamed", "restore"),
                "",
                true);
    }
}
