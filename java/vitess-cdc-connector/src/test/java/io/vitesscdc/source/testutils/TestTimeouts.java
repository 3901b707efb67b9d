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
 * turns them off (README, "Test timeouts"). Bounds that are assertions ("fails within 20 s") are named
 * here too, unscaled: scaling them would loosen what they assert.
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

    /** A reshard script of the multi-process cluster (copy, switch of reads and writes) finishes. */
    public static final Duration RESHARD_SCRIPT = scaled(Duration.ofMinutes(10));

    /** A short script of the multi-process cluster (dropping finished workflows) finishes. */
    public static final Duration CLUSTER_SCRIPT = scaled(Duration.ofMinutes(1));

    /** A tolerant writer's reconnect: the gate (restarted, reparented, resharded) takes connections again. */
    public static final Duration GATE_TAKES_CONNECTIONS = scaled(Duration.ofMinutes(1));

    /** A source metric shows what just happened: the idle time growing, a streamed record's lag. */
    public static final Duration METRIC_UPDATED = scaled(Duration.ofSeconds(30));

    /** Heartbeat watermarks (1 s apart) move past the last record while the table is quiet. */
    public static final Duration HEARTBEAT_WATERMARKS_PASS = scaled(Duration.ofSeconds(30));

    /** The copy's snapshot reads stopped growing for this long: the copy is over. */
    public static final Duration COPY_STOPPED_GROWING = scaled(Duration.ofSeconds(5));

    /** A job's results stopped changing for this long: the source delivered everything it will. */
    public static final Duration RESULTS_STOPPED_CHANGING = scaled(Duration.ofSeconds(15));

    /** The wall clock reaches the next second (the binlog's commit times have whole seconds). */
    public static final Duration NEXT_CLOCK_SECOND = scaled(Duration.ofSeconds(5));

    /** A native stream copies a small table and streams a row written around its open. */
    public static final Duration NATIVE_STREAM_ROW = scaled(Duration.ofSeconds(90));

    /** A native stream of a small table hands out its first batch. */
    public static final Duration NATIVE_FIRST_BATCH = scaled(Duration.ofSeconds(30));

    /** A closed native stream's runtime threads have exited. */
    public static final Duration NATIVE_THREADS_EXIT = scaled(Duration.ofSeconds(15));

    /** A job's class loader, dropped, is collected by the garbage collector. */
    public static final Duration CLASS_LOADER_COLLECTED = scaled(Duration.ofSeconds(30));

    /** A polling thread has drained the copy and blocks in its long poll. */
    public static final Duration POLLER_BLOCKED = scaled(Duration.ofSeconds(2));

    /** No batch for this long: the stream has handed out everything the cluster had. */
    public static final Duration STREAM_QUIET = scaled(Duration.ofSeconds(2));

    // Bounds that are assertions: not scaled, since scaling them would loosen what they assert.

    /** Assertion: an unreachable VTGate fails the open within the connect timeout, not a retry budget. */
    public static final Duration UNREACHABLE_FAILS_WITHIN = Duration.ofSeconds(20);

    /** Assertion: closing a stream ends another thread's poll within this. */
    public static final Duration CLOSE_ENDS_POLL_WITHIN = Duration.ofSeconds(20);

    /** Assertion: a wake ends a long poll within this (the wake comes after 0.5 s). */
    public static final Duration WAKE_ENDS_POLL_WITHIN = Duration.ofSeconds(5);

    /** Assertion: credentials a TLS gate rejects fail the job within this. */
    public static final Duration REJECTED_CREDENTIALS_FAIL_WITHIN = Duration.ofMinutes(1);

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
