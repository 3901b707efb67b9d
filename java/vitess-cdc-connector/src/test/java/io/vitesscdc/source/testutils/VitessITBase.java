/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.dispatcher.UnavailableDispatcherOperationException;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.messages.FlinkJobTerminatedWithoutCancellationException;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every ITCase against the local Vitess shares: the cluster check, a run id that names the
 * run's materialized tables and changelogs (each test writes its own rows, so tests run again
 * without cleanup), dropping them after each test, a MiniCluster, and the waits (their durations
 * in {@link TestTimeouts}).
 */
public abstract class VitessITBase {

    /** Unique per test instance: {@code <prefix>-<uuid>}. */
    protected final String runId;

    protected VitessITBase(String runIdPrefix) {
        this.runId = runIdPrefix + "-" + UUID.randomUUID();
    }

    @BeforeAll
    static void clusterIsUp() {
        VitessCluster.requireRunning();
    }

    /** Runs after the subclass's own {@code @AfterEach} (which stops its writers first). */
    @AfterEach
    void dropRunState() {
        MaterializedTables.drop(runId);
        ChangelogRecorder.drop(runId);
        RecordedChangelog.drop(runId);
    }

    /** A MiniCluster of one TaskManager with this many slots (register it with {@code @RegisterExtension}). */
    protected static MiniClusterExtension miniCluster(int slots) {
        return miniCluster(slots, new Configuration());
    }

    protected static MiniClusterExtension miniCluster(int slots, Configuration configuration) {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setConfiguration(configuration)
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(slots)
                .build());
    }

    public static void waitUntil(Duration timeout, BooleanSupplier condition, String what) throws Exception {
        waitUntil(timeout, condition, () -> what);
    }

    /** Polls the condition until it holds; the failure names what was awaited (computed when it fails). */
    public static void waitUntil(Duration timeout, BooleanSupplier condition, Supplier<String> what) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what.get());
            }
            Thread.sleep(100);
        }
    }

    /**
     * Waits until the rows {@code actual} returns equal {@code expected} (writes must have
     * stopped), then asserts it: a non-empty expectation, equal row by row.
     */
    public static void awaitEqual(
            Map<String, Map<String, String>> expected,
            Supplier<Map<String, Map<String, String>>> actual,
            Duration timeout,
            String what)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !actual.get().equals(expected)) {
            Thread.sleep(300);
        }
        assertThat(expected).as("rows written by this test").isNotEmpty();
        assertThat(actual.get()).as(what).isEqualTo(expected);
    }

    /** Fixed-delay restarts (200 ms apart), at most this many. */
    public static void fixedDelayRestarts(StreamExecutionEnvironment env, int attempts) {
        Configuration restart = new Configuration();
        restart.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
        restart.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        env.configure(restart);
    }

    /**
     * Stops {@code job} with a canonical savepoint into {@code dir} and returns its path. Flink
     * refuses a savepoint while the job master is still initializing or a task is still being
     * deployed or restored ("not all required tasks are currently running"), which on a loaded
     * machine lasts seconds after a job is submitted or restored; those refusals are retried for
     * up to {@link TestTimeouts#PROGRESS}, any other failure is thrown at once.
     */
    public static String stopWithSavepoint(JobClient job, Path dir) throws Exception {
        long deadline = System.nanoTime() + TestTimeouts.PROGRESS.toNanos();
        while (true) {
            try {
                return job.stopWithSavepoint(false, dir.toString(), SavepointFormatType.CANONICAL)
                        .get(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!notRunningYet(e) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static boolean notRunningYet(Throwable t) {
        return ExceptionUtils.findThrowable(t, UnavailableDispatcherOperationException.class)
                        .isPresent()
                || ExceptionUtils.findThrowableWithMessage(t, "ot all required tasks are currently running")
                        .isPresent()
                || ExceptionUtils.findThrowableWithMessage(t, "is not being executed at the moment")
                        .isPresent();
    }

    /**
     * Cancels {@code job}. A job that failed before the cancel is reported with the cause it
     * failed with: Flink's refusal to cancel it says only that it FAILED, and in a {@code
     * finally} block that refusal would be all a failed test shows.
     */
    public static void cancel(JobClient job) throws Exception {
        try {
            job.cancel().get(TestTimeouts.PROGRESS.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (ExceptionUtils.findThrowable(e, FlinkJobTerminatedWithoutCancellationException.class)
                    .isEmpty()) {
                throw e;
            }
            Throwable failure;
            try {
                job.getJobExecutionResult().get(TestTimeouts.PROGRESS.toMillis(), TimeUnit.MILLISECONDS);
                failure = e;
            } catch (ExecutionException failed) {
                failure = failed;
            }
            throw new AssertionError(
                    "the job " + job.getJobID() + " failed before the test cancelled it:\n" + rootMessages(failure),
                    failure);
        }
    }

    /** Runs the environment's job restored from the savepoint. */
    public static JobClient executeRestored(StreamExecutionEnvironment env, String savepoint, String jobName)
            throws Exception {
        StreamGraph graph = env.getStreamGraph();
        graph.setJobName(jobName);
        graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(savepoint, false));
        return env.executeAsync(graph);
    }

    /** The messages of an exception and all its causes, one a line. */
    public static String rootMessages(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t.getMessage()).append('\n');
        }
        return sb.toString();
    }
}
