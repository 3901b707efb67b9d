/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Plain DDL ({@code ALTER TABLE} through VTGate, as a direct migration runs it) on the local
 * vttestserver Vitess while a SQL job at parallelism 2 reads the table under concurrent writes.
 * Vitess's online DDL needs real tablets: {@link VitessOnlineDdlITCase}.
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessSchemaChangeITCase extends SchemaChangeITBase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4, REPORTER.addToConfiguration(new Configuration()));

    VitessSchemaChangeITCase() {
        super("ddl", VitessCluster.grpcAddress(), VitessCluster.sql(), REPORTER, false);
    }

    static Stream<Arguments> changesTheJobCarriesOnThrough() {
        return Stream.of(
                Arguments.of("ADD COLUMN (first)", "INT", "ALTER TABLE %s ADD COLUMN note VARCHAR(16) FIRST", ""),
                Arguments.of("DROP COLUMN (not declared)", "INT", "ALTER TABLE %s DROP COLUMN extra", ""),
                Arguments.of("RENAME COLUMN (not declared)", "INT", "ALTER TABLE %s RENAME COLUMN extra TO extra2", ""),
                // Declared wide enough ahead of the change: values beyond INT arrive exactly.
                Arguments.of(
                        "widening INT to BIGINT, declared BIGINT",
                        "BIGINT",
                        "ALTER TABLE %s MODIFY qty BIGINT NOT NULL DEFAULT 7",
                        "UPDATE %s SET qty = 5000000000 + id WHERE MOD(id, 5) = 0"),
                Arguments.of(
                        "narrowing VARCHAR(64) to VARCHAR(24) and INT to SMALLINT",
                        "INT",
                        "ALTER TABLE %s MODIFY pad VARCHAR(24), MODIFY qty SMALLINT NOT NULL DEFAULT 7",
                        "UPDATE %s SET qty = -32768 WHERE MOD(id, 5) = 1"),
                Arguments.of(
                        "a new index", "INT", "ALTER TABLE %s ADD INDEX by_pad (pad), ADD INDEX by_qty (qty)", ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changesTheJobCarriesOnThrough")
    void jobCarriesOnExactlyThrough(String change, String declaredQty, String ddl, String after) throws Exception {
        assertCarriesOnExactly(change, declaredQty, false, ddl, after);
    }

    static Stream<Arguments> changesThatStopTheJob() {
        return Stream.of(
                Arguments.of(
                        "DROP COLUMN (declared)",
                        "INT",
                        "ALTER TABLE %s DROP COLUMN qty",
                        "",
                        List.of("'qty'", "dropped or renamed", "restore"),
                        "",
                        true),
                Arguments.of(
                        "RENAME COLUMN (declared)",
                        "INT",
                        "ALTER TABLE %s RENAME COLUMN qty TO amount",
                        "",
                        List.of("'qty'", "dropped or renamed", "restore"),
                        "amount INT",
                        false),
                Arguments.of(
                        "widening INT to BIGINT, declared INT, then a value beyond INT",
                        "INT",
                        "ALTER TABLE %s MODIFY qty BIGINT NOT NULL DEFAULT 7",
                        "UPDATE %s SET qty = 5000000000 WHERE MOD(id, 5) = 0",
                        List.of("'qty'", "does not fit INT", "declare it as BIGINT"),
                        "qty BIGINT",
                        false),
                Arguments.of(
                        "INT to VARCHAR, declared INT",
                        "INT",
                        "ALTER TABLE %s MODIFY qty VARCHAR(16) NOT NULL DEFAULT '7'",
                        "",
                        List.of("'qty'", "declare it as STRING"),
                        "qty STRING",
                        true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changesThatStopTheJob")
    void jobFailsOnceNamingTheFixThatThenCarriesOn(
            String change,
            String declaredQty,
            String ddl,
            String after,
            List<String> expected,
            String fixedColumn,
            boolean replayNeedsSchemaTracking)
            throws Exception {
        assertFailsOnceThenTheFixCarriesOn(
                change, declaredQty, false, ddl, after, expected, fixedColumn, replayNeedsSchemaTracking);
    }
}
