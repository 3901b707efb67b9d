/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.sql;

import java.time.Duration;

/**
 * Every wait of this module's tests, by what is waited for, scaled by the same factor as the
 * connector's {@code io.vitesscdc.source.testutils.TestTimeouts} ({@code
 * -Dvitesscdc.test.timeout.factor=2} or {@code VITESSCDC_TEST_TIMEOUT_FACTOR=2}). It is a class of
 * its own because these tests must not see the connector's classes except through the shaded jar.
 */
final class SqlJarTestTimeouts {

    private SqlJarTestTimeouts() {}

    /** The scaling factor of every duration below (default 1). */
    static final double FACTOR = factor();

    /** The session cluster's JobManager and TaskManager start and offer their slots. */
    static final Duration CLUSTER_START = scaled(Duration.ofSeconds(90));

    /** A Flink helper process ({@code BashJavaUtils}) prints a process's memory settings. */
    static final Duration HELPER_PROCESS = scaled(Duration.ofSeconds(60));

    /** A JobManager or TaskManager exits after SIGTERM (then it is killed). */
    static final Duration PROCESS_EXIT = scaled(Duration.ofSeconds(15));

    /** A killed JobManager or TaskManager is gone. */
    static final Duration PROCESS_KILLED = scaled(Duration.ofSeconds(10));

    /** A TCP connection to the cluster's REST endpoint. */
    static final Duration REST_CONNECT = scaled(Duration.ofSeconds(2));

    /** One REST call's answer. */
    static final Duration REST_CALL = scaled(Duration.ofSeconds(5));

    /** A job reaches a state (FINISHED, CANCELED) after its results were read or it was cancelled. */
    static final Duration JOB_STATUS = scaled(Duration.ofSeconds(30));

    /** A job's collected results hold the snapshot, or converge with Vitess after the changes. */
    static final Duration RESULTS = scaled(Duration.ofSeconds(60));

    private static Duration scaled(Duration d) {
        return Duration.ofMillis(Math.round(d.toMillis() * FACTOR));
    }

    private static double factor() {
        String value =
                System.getProperty("vitesscdc.test.timeout.factor", System.getenv("VITESSCDC_TEST_TIMEOUT_FACTOR"));
        double f = value == null || value.isBlank() ? 1.0 : Double.parseDouble(value.trim());
        if (!(f > 0)) {
            throw new IllegalArgumentException(
                    "the test timeout factor must be a positive number, got '" + value + "'");
        }
        return f;
    }
}
