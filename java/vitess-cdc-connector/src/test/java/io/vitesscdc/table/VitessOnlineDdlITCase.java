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

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Vitess's online DDL ({@code ddl_strategy='vitess'}: the tablets copy the table into a shadow
 * table by VReplication, then cut over by RENAME while writes go on) under a running SQL job at
 * parallelism 2, on the multi-process cluster (vtcombo answers online DDL with "not implemented").
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessOnlineDdlITCase extends SchemaChangeITBase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4, REPORTER.addToConfiguration(new Configuration()));

    VitessOnlineDdlITCase() {
        super("online-ddl", MultiProcessCluster.grpcAddress(), MultiProcessCluster.sql(), REPORTER, true);
    }

    @Test
    void jobCarriesOnExactlyThroughAnOnlineAlterAndItsCutOver() throws Exception {
        assertCarriesOnExactly(
                "online ADD COLUMN and INT to BIGINT, declared BIGINT",
                "BIGINT",
                true,
                "ALTER TABLE %s ADD COLUMN note VARCHAR(16) DEFAULT 'n', MODIFY qty BIGINT NOT NULL DEFAULT 7",
                "UPDATE %s SET qty = 6000000000 + id WHERE MOD(id, 5) = 2");
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
