/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testframe;

import io.vitesscdc.source.testutils.VitessCluster;

import org.apache.flink.connector.testframe.TestResource;

/**
 * The external system of Flink's connector testing framework: the local Vitess of tests/vitess,
 * which the project's scripts start (bash tests/vitess/up.sh), not the test. Starting this
 * resource only checks that VTGate answers and fails, with instructions, when it does not: the
 * suite then fails, it is never skipped. It also drops suite tables a killed earlier run left
 * behind (each test case drops its own; the suite runs alone against its cluster, as failsafe
 * runs one class at a time).
 */
public final class LocalVitess implements TestResource {

    @Override
    public void startUp() throws Exception {
        VitessCluster.requireRunning();
        for (String leftover : VitessSourceExternalContext.existingTables()) {
            System.out.println("VitessSourceTestSuiteITCase: dropping " + leftover + ", left by an earlier run");
            VitessSourceExternalContext.drop(leftover);
        }
    }

    @Override
    public void tearDown() {
        // Not ours to stop: each test context drops the table it created.
    }

    @Override
    public String toString() {
        return "local Vitess at " + VitessCluster.grpcAddress();
    }
}
