/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.time.Duration;

/**
 * Every timeout of the tests against the local Vitess, in one place, by what is waited for.
 *
 * <p>A slow machine scales them all with one factor: {@code -Dvitesscdc.test.timeout.factor=2}
 * (or the environment variable {@code VITESSCDC_TEST_TIMEOUT_FACTOR=2}); default 1. The whole-test
 * limits ({@link #IT_CASE_MINUTES}, {@link #LONG_IT_CASE_MINUTES}) are JUnit {@code @Timeout}
 * annotations, which take constants only: JUnit's {@code -Djunit.jupiter.execution.timeout.mode=disabled}
 * turns them off (README, "Tests").
 */
public final class TestTimeouts {

    private TestTimeouts() {}

    public static final String FACTOR_PROPERTY = "vitesscdc.test.timeout.factor";
    public static final String FACTOR_ENV = "VITESSCDC_TEST_TIMEOUT_FACTOR";

    /** The scaling factor of every duration below. */
    public static final double FACTOR = factor();

    /** Whole-test limit of an ITCase with one or two jobs (minutes; a JUnit constant, not scaled). */
    public static final long IT_CASE_MINUTES = 5;

    /** Whole-test limit of an ITCase with several jobs, savepoints and restores (minutes, not scaled). */
    public static final long LONG_IT_CASE_MINUTES = 10;

    /** A checkpoint brings the whole changelog recorded so far into the log. */
    public static final Duration CHECKPOINT = scaled(Duration.ofSeconds(30));

    /** A writer, a job or an injected fault shows progress (rows written, a first record, a failure). */
    public static final Duration PROGRESS = scaled(Duration.ofSeconds(60));

    /** What a job materialized equals Vitess once the writes stopped; a snapshot of thousands of rows. */
    public static final Duration CONVERGE = scaled(Duration.ofSeconds(90));

    /** Like {@link #CONVERGE}, after a restore, a rescale, a failover or a reshard. */
    public static final Duration CONVERGE_AFTER_RESTORE = scaled(Duration.ofSeconds(120));

    /** A reshard completes and the job follows it onto the new shards. */
    public static final Duration RESHARD = scaled(Duration.ofSeconds(150));

    /** A throttled copy of several tables commits its first rows in completed checkpoints. */
    public static final Duration THROTTLED_COPY_STARTED = scaled(Duration.ofMinutes(2));

    /** A throttled copy of several tables completes on every shard. */
    public static final Duration THROTTLED_COPY_COMPLETED = scaled(Duration.ofMinutes(3));

    /** A call to the MiniCluster (a job's status). */
    public static final Duration CLUSTER_CALL = scaled(Duration.ofSeconds(30));

    /** A savepoint completes, or a job ends with its result. */
    public static final Duration SAVEPOINT = scaled(Duration.ofMinutes(2));

    /** A local process (VTGate) stops. */
    public static final Duration PROCESS_EXIT = scaled(Duration.ofSeconds(10));

    /** Any other duration, scaled by {@link #FACTOR}. */
    public static Duration scaled(Duration d) {
        return Duration.ofMillis(Math.round(d.toMillis() * FACTOR));
    }

    private static double factor() {
        String value = System.getProperty(FACTOR_PROPERTY, System.getenv(FACTOR_ENV));
        if (value == null || value.isBlank()) {
            return 1.0;
        }
        try {
            double f = Double.parseDouble(value.trim());
            if (f > 0) {
                return f;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("-D" + FACTOR_PROPERTY + " / " + FACTOR_ENV + " must be a positive "
                + "number (the factor every test timeout is multiplied by), got '" + value + "'");
    }
}
