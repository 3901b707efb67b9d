/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.testframe.LocalVitess;
import io.vitesscdc.source.testframe.VitessSourceExternalContextFactory;
import io.vitesscdc.source.testutils.TestTimeouts;

import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestExternalSystem;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SourceTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

/**
 * Flink's connector testing framework ({@link SourceTestSuiteBase}, flink-connector-test-utils)
 * run for {@link VitessSource} on a MiniCluster against the local Vitess (bash tests/vitess/up.sh):
 * single and multiple splits, idle readers, savepoint restore, scale up and down, {@code
 * numRecordsIn}, TaskManager failover. Each test case works on a table of its own (see {@link
 * io.vitesscdc.source.testframe.VitessSourceExternalContext} for how the framework's splits map to
 * shards), dropped afterwards.
 *
 * <p>Semantics: {@code EXACTLY_ONCE} only. The framework's semantic changes nothing in the source
 * or the job it builds (the restart cases checkpoint exactly-once whatever it is); it only picks
 * the assertion, and at-least-once's assertion is implied by exactly-once's (every record, in
 * order per split, none twice).
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessSourceTestSuiteITCase extends SourceTestSuiteBase<String> {

    @TestEnv
    final MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

    @TestExternalSystem
    final LocalVitess vitess = new LocalVitess();

    @TestContext
    final VitessSourceExternalContextFactory contexts = new VitessSourceExternalContextFactory();

    @TestSemantics
    final CheckpointingMode[] semantics = {CheckpointingMode.EXACTLY_ONCE};

    /** The instance is made once (per-class lifecycle), before the MiniCluster starts. */
    private final long startNanos = System.nanoTime();

    @AfterAll
    void printRuntime() {
        System.out.printf(
                "VitessSourceTestSuiteITCase: the suite took %.1f s%n", (System.nanoTime() - startNanos) / 1e9);
    }
}
