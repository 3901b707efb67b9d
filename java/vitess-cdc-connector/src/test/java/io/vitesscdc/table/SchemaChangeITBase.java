/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.OnlineDdl;
import io.vitesscdc.source.testutils.SqlEndpoint;
import io.vitesscdc.source.testutils.TestTables;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VersionedRowsWriter;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.vitesscdc.source.testutils.SqlJobs.project;
import static io.vitesscdc.source.testutils.SqlJobs.tableEnv;
import static io.vitesscdc.source.testutils.SqlJobs.upsertSink;
import static io.vitesscdc.source.testutils.SqlJobs.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Schema changes in Vitess while a SQL job reads the table, each under a concurrent writer
 * (inserts, updates, deletes, primary-key moves, every write raising the row's version): the job
 * either carries on exactly — the sink equals {@code SELECT} through VTGate afterwards, per key the
 * versions never went down, the job never restarted — or it fails once, without restarts (a
 * restart would meet the same change again), naming the change and the fix. Never a silently
 * wrong or missing value. Each case works on a table of its own in the sharded keyspace
 * {@code customer}; the behaviour of each is listed in docs/reliability.md ("Schema changes").
 * Subclasses say which Vitess and which changes.
 */
abstract class SchemaChangeITBase extends VitessITBase {

    /** The writer's columns ({@code id, run, ver, pad}) and two it leaves alone, for the DDL. */
    private static final String COLUMNS = "id BIGINT NOT NULL PRIMARY KEY, run BIGINT NOT NULL, ver BIGINT NOT NULL, "
            + "pad VARCHAR(64), qty INT NOT NULL DEFAULT 7, extra VARCHAR(32) DEFAULT 'e'";

    private final String grpcAddress;
    private final SqlEndpoint vitess;
    private final InMemoryReporter reporter;
    private final boolean tabletsTrackSchemaVersions;
    private final TestTables tables;
    private final List<String> onlineMigrations = new ArrayList<>();

    /** Where the jobs keep their checkpoints: the failed job's last one is where the fix restores from. */
    @TempDir
    Path checkpoints;

    /**
     * {@code tabletsTrackSchemaVersions}: the tablets run with {@code --track-schema-versions}
     * (the multi-process cluster's do, vtcombo cannot), so they decode rows written before a DDL
     * with the schema of their time.
     */
    SchemaChangeITBase(
            String runIdPrefix,
            String grpcAddress,
            SqlEndpoint vitess,
            InMemoryReporter reporter,
            boolean tabletsTrackSchemaVersions) {
        super(runIdPrefix);
        this.grpcAddress = grpcAddress;
        this.vitess = vitess;
        this.reporter = reporter;
        this.tabletsTrackSchemaVersions = tabletsTrackSchemaVersions;
        this.tables = new TestTables(vitess);
    }

    /** The UUIDs of the online DDL migrations this test ran (their workflows stay until deleted). */
    protected List<String> onlineMigrations() {
        return onlineMigrations;
    }

    @AfterEach
    void dropTables() {
        tables.close();
    }

    /**
     * A change the job carries on through exactly: {@code %s} in the DDL and in the statements
     * after it is the table; {@code qty} is declared in Flink as {@code declaredQty}; an online
     * DDL goes through Vitess's migration scheduler ({@link OnlineDdl}).
     */
    protected void assertCarriesOnExactly(String change, String declaredQty, boolean online, String ddl, String after)
            throws Exception {
        String t = tables.create("ddl", COLUMNS);
        try (VersionedRowsWriter writer = new VersionedRowsWriter(change.hashCode(), vitess, t)) {
            insertRows(t, writer);
            String qty = "qty " + declaredQty;
            TableResult job = startJob(t, qty, writer, null);
            TableResult converged = job;
            try {
                changeUnderWrites(t, writer, online, ddl, after);
                converged = carryOnOrReSnapshot(t, qty, qty, writer, job, change);
                assertSinkEqualsVitess(t, qty, writer, converged.getJobClient().orElseThrow(), change);
            } finally {
                cancelIfRunning(job);
                cancelIfRunning(converged);
            }
        }
    }

    /**
     * A change the job cannot carry on through without the user's decision: it fails once, naming
     * the change and the fix. Then the fix is applied as the message says — {@code fixedColumn}
     * is the fourth column's declaration after it (empty: none) — and the job is restored from the
     * failed job's last checkpoint (taken before the change). Where the tablets track schema
     * versions it carries on exactly: nothing lost, nothing out of order. Where they do not, a
     * change the tablet cannot replay with the current schema ({@code replayNeedsSchemaTracking}:
     * a column gone, a type of another kind) makes the restore fail once more naming schema
     * tracking, and a new job with the fixed declaration (its snapshot rebuilding the downstream
     * table) carries on exactly; other changes (a rename, a widening) replay and carry on.
     */
    protected void assertFailsOnceThenTheFixCarriesOn(
            String change,
            String declaredQty,
            boolean online,
            String ddl,
            String after,
            List<String> expected,
            String fixedColumn,
            boolean replayNeedsSchemaTracking)
            throws Exception {
        String t = tables.create("ddl", COLUMNS);
        try (VersionedRowsWriter writer = new VersionedRowsWriter(change.hashCode(), vitess, t)) {
            insertRows(t, writer);
            TableResult insert = startJob(t, "qty " + declaredQty, writer, null);
            JobClient job = insert.getJobClient().orElseThrow();
            // A checkpoint taken after the copy ended, as a long-running job has: its restore
            // streams on from a position before the change instead of copying again.
            long afterCopy = checkpointNumber(latestCheckpoint(job.getJobID())) + 2;
            waitUntil(
                    TestTimeouts.CHECKPOINT,
                    () -> checkpointNumber(latestCheckpoint(job.getJobID())) >= afterCopy,
                    "checkpoint " + afterCopy + " of the job, after the copy and before the change");
            // Where the restore must replay rows written before the change, it restores from a
            // savepoint taken before it: the latest checkpoint may lie past the DDL already (one
            // can complete between the DDL and the first row after it, under load), and a restore
            // from there replays nothing old (seen in CI: the restored job then never failed).
            boolean replaysOldRows = replayNeedsSchemaTracking && !tabletsTrackSchemaVersions;
            String beforeChange = replaysOldRows
                    ? job.triggerSavepoint(
                                    checkpoints.resolve("savepoints").toUri().toString(),
                                    org.apache.flink.core.execution.SavepointFormatType.CANONICAL)
                            .get(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS)
                    : null;
            changeUnderWrites(t, writer, online, ddl, after);
            assertFailsOnce(insert, change, expected);
            assertThat(MaterializedTables.get(runId).versionRegressions())
                    .as("keys whose version went down before the failure")
                    .isEmpty();

            String checkpoint = replaysOldRows ? beforeChange : latestCheckpoint(job.getJobID());
            TableResult restored = startJob(t, fixedColumn, writer, checkpoint);
            if (replaysOldRows) {
                // The restored job replays rows written before the DDL, which a tablet that knows
                // only the current schema cannot decode: a second final failure, naming the two
                // ways out. The second (no tracking at hand) is a new job, whose snapshot rebuilds
                // the downstream table.
                assertFailsOnce(restored, change + ", fixed and restored", SCHEMA_MISMATCH_FIXES);
                MaterializedTables.drop(runId);
                restored = startJob(t, fixedColumn, writer, null);
            }
            // A column declared under a new name holds values only in the rows written since
            // the fix: the rows before it carry the old name downstream (the sink's own schema
            // migration), so the comparison leaves that column out.
            boolean renamed = !fixedColumn.isEmpty() && !fixedColumn.startsWith("qty ");
            String compared = renamed ? "" : fixedColumn;
            TableResult fixed = carryOnOrReSnapshot(t, compared, fixedColumn, writer, restored, change + ", fixed");
            try {
                assertSinkEqualsVitess(t, compared, writer, fixed.getJobClient().orElseThrow(), change + ", fixed");
            } finally {
                cancelIfRunning(fixed);
            }
        }
    }

    /**
     * What a job that meets a schema-version problem of the tablets fails with: the cause and both
     * ways out (schema tracking, or a new start with a snapshot).
     */
    private static final List<String> SCHEMA_MISMATCH_FIXES = List.of("--track-schema-versions", "re-snapshot");

    /**
     * Runs the writer against the running {@code job} until the sink equals Vitess. Where the
     * tablets track schema versions, Vitess's own tracker can still miss a change (seen after
     * online DDL cut-overs: the tablets then answer rows after the cut-over with the schema
     * before it, for as long as the job retries); the job must then fail once naming the fixes,
     * and the documented way out — a new job whose snapshot rebuilds the downstream table —
     * must carry on exactly. Returns the job that converged.
     */
    private TableResult carryOnOrReSnapshot(
            String t, String compared, String declared, VersionedRowsWriter writer, TableResult job, String what)
            throws Exception {
        JobClient client = job.getJobClient().orElseThrow();
        writer.run(40);
        String[] columns = columns(compared);
        Map<String, Map<String, String>> expected = vitess.query(
                "customer",
                "SELECT " + String.join(", ", columns) + " FROM " + t + " WHERE run = " + writer.run(),
                "id");
        waitUntil(
                TestTimeouts.CONVERGE,
                () -> terminated(client)
                        || project(MaterializedTables.get(runId).rows(), columns)
                                .equals(expected),
                what + ": the sink equal to Vitess, or the job failed");
        if (!terminated(client) || !tabletsTrackSchemaVersions) {
            return job;
        }
        System.out.println(what + ": the tablets' schema tracker missed the change; re-snapshot");
        assertFailsOnce(job, what + " (the schema tracker missed the change)", SCHEMA_MISMATCH_FIXES);
        MaterializedTables.drop(runId);
        TableResult fresh = startJob(t, declared, writer, null);
        writer.run(40);
        return fresh;
    }

    private static boolean terminated(JobClient job) {
        try {
            return job.getJobStatus().get().isGloballyTerminalState();
        } catch (Exception e) {
            return true;
        }
    }

    /** Cancels a job still running; one that ended already (failed) keeps its own outcome. */
    private static void cancelIfRunning(TableResult result) throws Exception {
        JobClient job = result.getJobClient().orElseThrow();
        if (!terminated(job)) {
            VitessITBase.cancel(job);
        }
    }

    /** The job fails at once, without restarts, with a message holding every one of {@code expected}. */
    private void assertFailsOnce(TableResult insert, String what, List<String> expected) throws Exception {
        JobClient job = insert.getJobClient().orElseThrow();
        assertThatThrownBy(() -> insert.await(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS))
                .satisfies(e -> {
                    String m = rootMessages(e);
                    System.out.println(what + " -> " + m);
                    assertThat(m).as("the job's failure").doesNotContain("TimeoutException");
                    for (String needle : expected) {
                        assertThat(m).contains(needle);
                    }
                });
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.FAILED);
        assertNoRestarts(job);
    }

    private void insertRows(String t, VersionedRowsWriter writer) throws Exception {
        writer.insertRows(300);
        vitess.execute("customer", "UPDATE " + t + " SET qty = MOD(id, 1000) WHERE run = " + writer.run());
    }

    /**
     * A job at parallelism 2 (one split a shard) over the table's rows of this writer: {@code id,
     * ver, pad} and {@code column} (a declaration, or empty), from the start or restored from
     * {@code checkpoint}. Its restart strategy would restart it a thousand times: a failure that
     * is not final shows as restarts. A new job returns once the sink holds as many rows as Vitess had.
     */
    private TableResult startJob(String t, String column, VersionedRowsWriter writer, String checkpoint)
            throws Exception {
        TableEnvironment tEnv = tableEnv(2);
        tEnv.getConfig().set("restart-strategy.type", "fixed-delay");
        tEnv.getConfig().set("restart-strategy.fixed-delay.attempts", "1000");
        tEnv.getConfig().set("restart-strategy.fixed-delay.delay", "100 ms");
        tEnv.getConfig().set("execution.checkpointing.dir", checkpoints.toUri().toString());
        tEnv.getConfig().set("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        if (checkpoint != null) {
            tEnv.getConfig().set("execution.savepoint.path", checkpoint);
        }
        String extra = column.isEmpty() ? "" : ", " + column;
        tEnv.executeSql("CREATE TABLE src (id BIGINT, run BIGINT, ver BIGINT, pad STRING" + extra
                + ", PRIMARY KEY (id) NOT ENFORCED)" + with(grpcAddress, "customer", t, ""));
        tEnv.executeSql("CREATE TABLE snk (id BIGINT, ver BIGINT, pad STRING" + extra
                + ", PRIMARY KEY (id) NOT ENFORCED)" + upsertSink(runId));
        TableResult insert = tEnv.executeSql("INSERT INTO snk SELECT " + String.join(", ", columns(column))
                + " FROM src WHERE run = " + writer.run());
        if (checkpoint == null) {
            int rows = vitess.query("customer", "SELECT id FROM " + t + " WHERE run = " + writer.run(), "id")
                    .size();
            waitUntil(
                    TestTimeouts.CONVERGE,
                    () -> MaterializedTables.get(runId).rows().size() >= rows,
                    "the snapshot of " + t + " (" + rows + " rows)");
        }
        return insert;
    }

    /** The columns the sink holds: {@code id, ver, pad} and the declared fourth one, if any. */
    private static String[] columns(String column) {
        return column.isEmpty()
                ? new String[] {"id", "ver", "pad"}
                : new String[] {"id", "ver", "pad", column.substring(0, column.indexOf(' '))};
    }

    /** The DDL (and the statements after it) while the writer writes, a second before and after. */
    private void changeUnderWrites(String t, VersionedRowsWriter writer, boolean online, String ddl, String after)
            throws Exception {
        // A DDL holds the table's metadata lock for a moment: a write that times out waiting for
        // it is rolled back, counted and not retried (the comparison is with what Vitess holds).
        writer.tolerateFailures();
        writer.start(40);
        Thread.sleep(1_000);
        long before = writer.ops();
        if (online) {
            onlineMigrations.add(OnlineDdl.run(vitess, "customer", String.format(ddl, t)));
        } else {
            vitess.execute("customer", String.format(ddl, t));
        }
        if (!after.isEmpty()) {
            tables.executeOnceVtgateKnows(String.format(after, t) + " AND run = " + writer.run());
        }
        long deadline = System.nanoTime() + TestTimeouts.PROGRESS.toNanos();
        while (writer.ops() < before + 40 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        writer.stop();
        assertThat(writer.ops()).as("writes after the schema change").isGreaterThanOrEqualTo(before + 40);
    }

    /** The sink equals the writer's rows in Vitess, no key's version went down, the job runs on. */
    private void assertSinkEqualsVitess(String t, String column, VersionedRowsWriter writer, JobClient job, String what)
            throws Exception {
        String[] columns = columns(column);
        awaitEqual(
                vitess.query(
                        "customer",
                        "SELECT " + String.join(", ", columns) + " FROM " + t + " WHERE run = " + writer.run(),
                        "id"),
                () -> project(MaterializedTables.get(runId).rows(), columns),
                TestTimeouts.CONVERGE,
                "the sink vs " + t + " after " + what);
        assertThat(job.getJobStatus().get()).as("the job after " + what).isEqualTo(JobStatus.RUNNING);
        assertThat(MaterializedTables.get(runId).versionRegressions())
                .as("keys whose version went down")
                .isEmpty();
        assertNoRestarts(job);
    }

    /** The newest completed checkpoint of the job ({@code chk-N} with its metadata), or null. */
    private String latestCheckpoint(JobID job) {
        File[] chks = checkpoints
                .resolve(job.toHexString())
                .toFile()
                .listFiles((dir, name) -> name.startsWith("chk-") && new File(dir, name + "/_metadata").exists());
        if (chks == null || chks.length == 0) {
            return null;
        }
        return Arrays.stream(chks)
                .max(Comparator.comparingLong(f -> Long.parseLong(f.getName().substring(4))))
                .map(f -> f.toURI().toString())
                .orElseThrow();
    }

    /** N of a {@code chk-N} path, or 0 for none. */
    private static long checkpointNumber(String checkpoint) {
        if (checkpoint == null) {
            return 0;
        }
        String name = new File(java.net.URI.create(checkpoint)).getName();
        return Long.parseLong(name.substring("chk-".length()));
    }

    private void assertNoRestarts(JobClient job) {
        Map<String, Metric> restarts = reporter.findMetrics(job.getJobID(), "numRestarts");
        assertThat(restarts).as("the job's numRestarts gauge").isNotEmpty();
        for (Metric gauge : restarts.values()) {
            assertThat(((Gauge<?>) gauge).getValue()).as("restarts").isEqualTo(0L);
        }
    }
}
