/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.RecordedChangelog;
import io.vitesscdc.source.testutils.StrictChangelog;
import io.vitesscdc.source.testutils.StrictTable;
import io.vitesscdc.source.testutils.StrictTablesWriter;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Aggregates over {@code 'connector' = 'vitess-cdc'} are only right if the source's changelog is
 * a strict retract stream (docs/architecture.md, invariant 9): Flink trusts the declared changelog mode, so a
 * {@code -U}/{@code -D} of a row never emitted, or a second {@code +I} of a present row, silently
 * corrupts COUNT, SUM and GROUP BY. The risky moment is a copy phase that resumes mid-table: VStream
 * then replays changes of rows beyond the table's copy position, which the resumed copy sends again.
 *
 * <p>Each test preloads every table of the {@code strict} keyspace (3 shards; composite,
 * VARBINARY, VARCHAR in the default and in a binary collation, BIGINT UNSIGNED keys), runs one
 * Flink SQL job computing per-table {@code COUNT(*)}/{@code SUM(amount)} and {@code GROUP BY grp}
 * into upsert sinks while {@link StrictTablesWriter} inserts, updates, deletes and moves keys across
 * shards, interrupts the job inside the copy (stop-with-savepoint and restore; a task failure and
 * restore from the latest checkpoint), lets the copy finish with the writer running, stops the
 * writer and then requires the aggregates to equal the same queries through VTGate. The job also
 * records each source's raw changelog (with the {@code shard} metadata) exactly once per checkpoint
 * ({@link RecordedChangelogSinkFactory}); for tables the source declares as retract streams, that
 * changelog must pass {@link StrictChangelog} and materialize to {@code SELECT *} through VTGate.
 * A third test runs the same job through the copy without interruption: the control, which shows
 * that the recording and the comparisons are exact.
 *
 * <p>The copy is slowed down as Flink sees it (the recording sink, chained to the source, emits at
 * most {@value #COPY_ROWS_PER_SECOND} rows/s per subtask; the source is shared with the
 * aggregates, which the test checks in the plan), and rows carry a 1 KB pad, so a shard's copy
 * spans several VStream packets (~250 KB) and checkpoints fall between them.
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessChangelogAggregatesITCase extends VitessITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(2);

    private static final int PARALLELISM = 2;
    /** ~2.4 MB per table: ~800 rows per shard, 3-4 VStream copy packets. */
    private static final int ROWS_PER_TABLE = 2400;
    /** Per recording subtask (one or two shards of a table): the copy takes ~5-11 s. */
    private static final int COPY_ROWS_PER_SECOND = 150;
    /** Interrupt once every table has this many copied rows committed (a checkpoint inside the copy). */
    private static final int INTERRUPT_AFTER_COPIED = ROWS_PER_TABLE / 8;

    private static final int WRITES_PER_SECOND = 40;
    /** Writes after every shard's copy completed, before the writer stops. */
    private static final int WRITES_AFTER_COPY = 120;

    private static final long SEED = 0x5EED_2026L;
    private static final Duration SETTLE_QUIET = TestTimeouts.RESULTS_STOPPED_CHANGING;
    private static final Duration SETTLE_MAX = TestTimeouts.CONVERGE;
    /** Violations shown per table in the failure message. */
    private static final int VIOLATIONS_SHOWN = 5;

    private final StrictTablesWriter writer = new StrictTablesWriter(SEED);

    VitessChangelogAggregatesITCase() {
        super("agg");
    }

    @AfterEach
    void cleanUp() throws Exception {
        writer.close();
        MaterializedTables.drop(totalsId());
        MaterializedTables.drop(groupsId());
        for (StrictTable t : StrictTable.values()) {
            RecordedChangelog.drop(recordingId(t));
        }
    }

    @Test
    void stopWithSavepointInsideTheCopyThenRestore(@TempDir Path savepoints) throws Exception {
        writer.insertRows(ROWS_PER_TABLE);
        Job first = start("first", null, false);
        String savepoint;
        try {
            writer.start(WRITES_PER_SECOND);
            awaitCopiedRowsCommitted(first);
            savepoint = stopWithSavepoint(first.client, savepoints);
        } finally {
            first.cancelIfRunning();
        }
        assertInsideTheCopy("the savepoint");

        Job restored = start("restored", savepoint, false);
        try {
            awaitCopyCompleted("restored/attempt 0", restored);
            finishWritingAndCompare(restored);
        } finally {
            restored.cancelIfRunning();
        }
    }

    @Test
    void taskFailureInsideTheCopyRestoresFromTheLatestCheckpoint() throws Exception {
        writer.insertRows(ROWS_PER_TABLE);
        Job job = start("job", null, true);
        try {
            writer.start(WRITES_PER_SECOND);
            awaitCopiedRowsCommitted(job);
            assertInsideTheCopy("the latest checkpoint before the failure");
            // The next record of s_composite's recording sink fails its task: the whole job
            // (one failover region: the aggregates read every source) restarts from the latest
            // completed checkpoint.
            recording(StrictTable.COMPOSITE).failNextRecord();
            awaitCopyCompleted("job/attempt 1", job);
            finishWritingAndCompare(job);
        } finally {
            job.cancelIfRunning();
        }
    }

    /**
     * The control: the same job and writes, through the whole copy without interruption. It shows
     * that the recording, the aggregates and the comparisons are exact, so a failure of the tests
     * above is the resumed copy's.
     */
    @Test
    void uninterruptedCopyEqualsVitess() throws Exception {
        writer.insertRows(ROWS_PER_TABLE);
        Job job = start("job", null, false);
        try {
            writer.start(WRITES_PER_SECOND);
            awaitCopyCompleted("job/attempt 0", job);
            finishWritingAndCompare(job);
        } finally {
            job.cancelIfRunning();
        }
    }

    // ---------------------------------------------------------------------------------------------
    // The job

    /** A submitted job and what its plan says about the sources. */
    private static final class Job {
        final JobClient client;
        /** Tables whose source declares a retract changelog (with -U), from the plan. */
        final List<StrictTable> retract;

        Job(JobClient client, List<StrictTable> retract) {
            this.client = client;
            this.retract = retract;
        }

        void cancelIfRunning() throws Exception {
            JobStatus status = client.getJobStatus().get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
            if (!status.isGloballyTerminalState()) {
                client.cancel().get(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    private Job start(String label, String savepoint, boolean restartOnFailure) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("parallelism.default", String.valueOf(PARALLELISM));
        tEnv.getConfig().set("execution.checkpointing.interval", "1 s");
        if (restartOnFailure) {
            tEnv.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            tEnv.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
            tEnv.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        } else {
            tEnv.getConfig().set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        if (savepoint != null) {
            tEnv.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        List<String> runRows = new ArrayList<>();
        StatementSet set = tEnv.createStatementSet();
        for (StrictTable t : StrictTable.values()) {
            String physical = t.keyColumnsDdl + ", " + StrictTable.VALUE_COLUMNS_DDL;
            tEnv.executeSql("CREATE TABLE src_" + t.table + " (" + physical + ", "
                    + "shard STRING METADATA VIRTUAL, pos STRING METADATA FROM 'position' VIRTUAL, "
                    + "snap BOOLEAN METADATA FROM 'is_snapshot' VIRTUAL, "
                    + "PRIMARY KEY (" + String.join(", ", t.keyColumns) + ") NOT ENFORCED) WITH ("
                    + "'connector' = 'vitess-cdc', 'vtgate.address' = '" + VitessCluster.grpcAddress() + "', "
                    + "'keyspace' = '" + StrictTable.KEYSPACE + "', 'table-name' = '" + t.table + "', "
                    // One scan must feed the recording sink and the aggregates (asserted below);
                    // Flink does not share a scan whose pushed filter follows its metadata columns.
                    + "'scan.filter-push-down.enabled' = 'false')");
            tEnv.executeSql("CREATE TABLE rec_" + t.table + " (" + physical + ", shard STRING, pos STRING, "
                    + "snap BOOLEAN) WITH ('connector' = 'recorded-changelog', 'recording-id' = '"
                    + recordingId(t) + "', 'key-columns' = '" + String.join(";", t.keyColumns) + "', "
                    + "'rows-per-second' = '" + COPY_ROWS_PER_SECOND + "', 'job-label' = '" + label + "')");
            set.addInsertSql("INSERT INTO rec_" + t.table + " SELECT " + String.join(", ", t.columns())
                    + ", shard, pos, snap FROM src_" + t.table + " WHERE " + writer.runPredicate());
            runRows.add("SELECT '" + t.table + "' AS tbl, grp, amount FROM src_" + t.table + " WHERE "
                    + writer.runPredicate());
        }
        tEnv.executeSql("CREATE TEMPORARY VIEW run_rows AS " + String.join(" UNION ALL ", runRows));
        tEnv.executeSql(
                "CREATE TABLE table_totals (tbl STRING, cnt BIGINT, total BIGINT, PRIMARY KEY (tbl) NOT ENFORCED) "
                        + "WITH ('connector' = 'upsert-collecting', 'tables-id' = '" + totalsId() + "')");
        tEnv.executeSql("CREATE TABLE group_totals (tbl STRING, grp STRING, cnt BIGINT, total BIGINT, "
                + "PRIMARY KEY (tbl, grp) NOT ENFORCED) "
                + "WITH ('connector' = 'upsert-collecting', 'tables-id' = '" + groupsId() + "')");
        set.addInsertSql("INSERT INTO table_totals SELECT tbl, COUNT(*), SUM(amount) FROM run_rows GROUP BY tbl");
        set.addInsertSql(
                "INSERT INTO group_totals SELECT tbl, grp, COUNT(*), SUM(amount) FROM run_rows GROUP BY tbl, grp");

        String plan = set.explain(ExplainDetail.CHANGELOG_MODE);
        List<StrictTable> retract = new ArrayList<>();
        for (StrictTable t : StrictTable.values()) {
            List<String> modes = scanChangelogModes(plan, t);
            // One scan per table: the recording sink (which throttles the copy) sees exactly the
            // stream the aggregates consume, not a second VStream of its own.
            assertThat(modes)
                    .as("scans of src_%s in the optimized plan (one, shared):%n%s", t.table, plan)
                    .hasSize(1);
            if (modes.get(0).contains("UB")) {
                retract.add(t);
            }
        }
        JobClient client = set.execute().getJobClient().orElseThrow();
        return new Job(client, retract);
    }

    /**
     * The declared changelog mode of each scan of one source table that the executed plan keeps
     * (scans are reused after the physical plan, whose section shows the mode).
     */
    private static List<String> scanChangelogModes(String plan, StrictTable t) {
        String scan = "TableSourceScan\\(table=\\[\\[default_catalog, default_database, src_" + t.table + "[,\\]]";
        int execution = plan.indexOf("== Optimized Execution Plan ==");
        Matcher mode = Pattern.compile(scan + ".*changelogMode=\\[([A-Z,]+)\\]").matcher(plan.substring(0, execution));
        String declared = mode.find() ? mode.group(1) : "(no changelogMode in the plan)";
        List<String> modes = new ArrayList<>();
        for (Matcher m = Pattern.compile(scan).matcher(plan.substring(execution)); m.find(); ) {
            modes.add(declared);
        }
        return modes;
    }

    // ---------------------------------------------------------------------------------------------
    // Phases

    /** Waits until every table has {@link #INTERRUPT_AFTER_COPIED} copied rows in completed checkpoints. */
    private void awaitCopiedRowsCommitted(Job job) throws Exception {
        waitUntil(
                TestTimeouts.THROTTLED_COPY_STARTED,
                () -> {
                    assertRunning(job);
                    for (StrictTable t : StrictTable.values()) {
                        if (recording(t).snapshotRecords() < INTERRUPT_AFTER_COPIED) {
                            return false;
                        }
                    }
                    return true;
                },
                () -> "every table to have " + INTERRUPT_AFTER_COPIED + " copied rows in completed checkpoints: "
                        + progress());
    }

    /**
     * The committed records (= the interrupted job's last checkpoint or savepoint) must lie inside
     * the copy of every table: otherwise the test would not test a resumed copy, and says so.
     */
    private void assertInsideTheCopy(String what) {
        for (StrictTable t : StrictTable.values()) {
            RecordedChangelog r = recording(t);
            assertThat(r.snapshotRecords())
                    .as(
                            "%s must fall inside the copy of %s (else slow the copy down: COPY_ROWS_PER_SECOND, "
                                    + "ROWS_PER_TABLE); %s",
                            what, t.table, progress())
                    .isLessThan(ROWS_PER_TABLE);
            assertThat(r.copiedShards())
                    .as("%s must fall inside the copy of %s: some shard still copying; %s", what, t.table, progress())
                    .hasSizeLessThan(StrictTable.SHARDS.size());
        }
    }

    /**
     * Waits until the job run {@code writtenBy} committed copied rows of every table (for a restored
     * job: the copy resumed in it) and every shard's copy completed, with the writer running.
     */
    private void awaitCopyCompleted(String writtenBy, Job job) throws Exception {
        waitUntil(
                TestTimeouts.THROTTLED_COPY_COMPLETED,
                () -> {
                    assertRunning(job);
                    for (StrictTable t : StrictTable.values()) {
                        RecordedChangelog r = recording(t);
                        if (r.snapshotRecordsBy(writtenBy) == 0
                                || r.copiedShards().size() < StrictTable.SHARDS.size()) {
                            return false;
                        }
                    }
                    return true;
                },
                () -> "copied rows of every table from '" + writtenBy + "' and complete on every shard (job "
                        + jobStatus(job) + "): " + progress());
    }

    /** Lets the writer run past the copy, stops it, waits until results settle, compares with VTGate. */
    private void finishWritingAndCompare(Job job) throws Exception {
        long opsAtCopyEnd = writer.ops();
        waitUntil(
                TestTimeouts.PROGRESS,
                () -> writer.ops() >= opsAtCopyEnd + WRITES_AFTER_COPY,
                () -> WRITES_AFTER_COPY + " writes after the copy (" + writer.summary() + ")");
        writer.stop();
        assertThat(writer.moves())
                .as("cross-shard key moves by the writer: %s", writer.summary())
                .isPositive();

        Map<String, Map<String, String>> totals = expectedTotals();
        Map<String, Map<String, String>> groups = expectedGroups();
        Map<StrictTable, Map<List<Object>, List<Object>>> rows = new EnumMap<>(StrictTable.class);
        for (StrictTable t : job.retract) {
            rows.put(t, expectedRows(t));
        }
        for (Map<String, String> total : totals.values()) {
            // COUNT(*) answers a row even for no rows: the comparison is only worth something if the
            // run's rows are there.
            assertThat(Long.parseLong(total.get("cnt")))
                    .as("rows of this run in %s", total.get("tbl"))
                    .isGreaterThan(ROWS_PER_TABLE / 2);
        }
        awaitSettled(job, totals, groups, rows);

        List<String> failures = new ArrayList<>();
        diff(
                "COUNT(*), SUM(amount) per table",
                totals,
                MaterializedTables.get(totalsId()).rows(),
                failures);
        diff(
                "GROUP BY grp: COUNT(*), SUM(amount)",
                groups,
                MaterializedTables.get(groupsId()).rows(),
                failures);
        for (StrictTable t : job.retract) {
            StrictChangelog changelog = recording(t).changelog();
            try {
                changelog.assertValid();
            } catch (AssertionError e) {
                failures.add(firstLines(e.getMessage(), VIOLATIONS_SHOWN + 1));
            }
            liveRowsDiff(t, rows.get(t), failures);
        }
        if (!failures.isEmpty()) {
            fail("after the interrupted copy, Flink's results differ from VTGate (" + writer.summary() + "; "
                    + "retract sources: " + job.retract + "; " + progress() + "):\n\n"
                    + String.join("\n\n", failures));
        }
    }

    /** The first {@code n} lines of a message, and how many were left out. */
    private static String firstLines(String message, int n) {
        String[] lines = message.split("\n");
        if (lines.length <= n) {
            return message;
        }
        return String.join("\n", java.util.Arrays.copyOf(lines, n)) + "\n  ... (" + (lines.length - n)
                + " more shown by " + "StrictChangelog.assertValid)";
    }

    /**
     * Waits until Flink's results equal VTGate's, or stop changing for {@link #SETTLE_QUIET} (the
     * source has delivered everything: a wrong result stays wrong), at most {@link #SETTLE_MAX}.
     */
    private void awaitSettled(
            Job job,
            Map<String, Map<String, String>> totals,
            Map<String, Map<String, String>> groups,
            Map<StrictTable, Map<List<Object>, List<Object>>> rows)
            throws Exception {
        long deadline = System.nanoTime() + SETTLE_MAX.toNanos();
        long quietSince = System.nanoTime();
        Object last = null;
        while (System.nanoTime() < deadline) {
            Map<String, Map<String, String>> actualTotals =
                    MaterializedTables.get(totalsId()).rows();
            Map<String, Map<String, String>> actualGroups =
                    MaterializedTables.get(groupsId()).rows();
            if (actualTotals.equals(totals) && actualGroups.equals(groups) && liveRowsEqual(rows)) {
                return;
            }
            List<Object> now = new ArrayList<>(List.of(actualTotals, actualGroups));
            for (StrictTable t : StrictTable.values()) {
                now.add(recording(t).changelog().records());
            }
            if (!now.equals(last)) {
                last = now;
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > SETTLE_QUIET.toNanos()) {
                return;
            }
            assertRunning(job);
            Thread.sleep(500);
        }
    }

    private boolean liveRowsEqual(Map<StrictTable, Map<List<Object>, List<Object>>> rows) {
        for (Map.Entry<StrictTable, Map<List<Object>, List<Object>>> e : rows.entrySet()) {
            try {
                if (!recording(e.getKey()).changelog().liveRows().equals(e.getValue())) {
                    return false;
                }
            } catch (AssertionError duplicates) {
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------------------------------------
    // VTGate's answers

    private Map<String, Map<String, String>> expectedTotals() throws Exception {
        Map<String, Map<String, String>> out = new TreeMap<>();
        for (StrictTable t : StrictTable.values()) {
            out.putAll(VitessCluster.query(
                    StrictTable.KEYSPACE,
                    "SELECT '" + t.table + "' AS tbl, COUNT(*) AS cnt, " + "SUM(amount) AS total FROM " + t.table
                            + " WHERE " + writer.runPredicate(),
                    "tbl"));
        }
        return out;
    }

    private Map<String, Map<String, String>> expectedGroups() throws Exception {
        Map<String, Map<String, String>> out = new TreeMap<>();
        for (StrictTable t : StrictTable.values()) {
            out.putAll(VitessCluster.query(
                    StrictTable.KEYSPACE,
                    "SELECT '" + t.table + "' AS tbl, grp, "
                            + "COUNT(*) AS cnt, SUM(amount) AS total FROM " + t.table + " WHERE "
                            + writer.runPredicate()
                            + " GROUP BY grp",
                    "tbl",
                    "grp"));
        }
        return out;
    }

    /** {@code SELECT *} of the run's rows, as the recording holds them: key -> row, normalized. */
    private Map<List<Object>, List<Object>> expectedRows(StrictTable t) throws Exception {
        Map<List<Object>, List<Object>> out = new HashMap<>();
        try (Connection c = VitessCluster.connect(StrictTable.KEYSPACE);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + String.join(", ", t.columns()) + " FROM " + t.table
                        + " WHERE " + writer.runPredicate())) {
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (String column : t.columns()) {
                    row.add(StrictTable.normalize(column, rs.getObject(column)));
                }
                out.put(row.subList(0, t.keyColumns.size()), row);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------------
    // Reporting

    private static void diff(
            String what,
            Map<String, Map<String, String>> expected,
            Map<String, Map<String, String>> actual,
            List<String> failures) {
        if (expected.equals(actual)) {
            return;
        }
        StringBuilder sb = new StringBuilder(what + ": Flink differs from VTGate");
        TreeSet<String> keys = new TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        for (String k : keys) {
            if (!Objects.equals(expected.get(k), actual.get(k))) {
                sb.append("\n  ")
                        .append(k)
                        .append(": Flink ")
                        .append(actual.get(k))
                        .append(", VTGate ")
                        .append(expected.get(k));
            }
        }
        failures.add(sb.toString());
    }

    private void liveRowsDiff(StrictTable t, Map<List<Object>, List<Object>> expected, List<String> failures) {
        Map<List<Object>, List<Object>> live;
        try {
            live = recording(t).changelog().liveRows();
        } catch (AssertionError e) {
            failures.add(t.table + ": the recorded changelog does not materialize: " + e.getMessage());
            return;
        }
        if (live.equals(expected)) {
            return;
        }
        List<String> lines = new ArrayList<>();
        int missing = 0;
        int extra = 0;
        int different = 0;
        for (Map.Entry<List<Object>, List<Object>> e : expected.entrySet()) {
            List<Object> got = live.get(e.getKey());
            if (got == null) {
                missing++;
            } else if (!got.equals(e.getValue())) {
                different++;
            } else {
                continue;
            }
            if (lines.size() < 10) {
                lines.add("key " + e.getKey() + ": recorded " + got + ", VTGate " + e.getValue());
            }
        }
        for (Map.Entry<List<Object>, List<Object>> e : live.entrySet()) {
            if (!expected.containsKey(e.getKey())) {
                extra++;
                if (lines.size() < 10) {
                    lines.add("key " + e.getKey() + ": recorded " + e.getValue() + ", not in VTGate");
                }
            }
        }
        failures.add(t.table + ": live rows of the recorded changelog vs SELECT * through VTGate: " + missing
                + " missing, " + extra + " extra, " + different + " different of " + expected.size()
                + ", e.g.\n  " + String.join("\n  ", lines));
    }

    private String progress() {
        List<String> out = new ArrayList<>();
        for (StrictTable t : StrictTable.values()) {
            out.add(t.table + " [" + recording(t).progress() + "]");
        }
        return String.join(", ", out);
    }

    /** Fails at once when the job ended (failed, finished, cancelled) instead of waiting out a timeout. */
    private void assertRunning(Job job) {
        JobStatus status = jobStatus(job);
        if (status.isGloballyTerminalState()) {
            throw new AssertionError(
                    "the job is " + status + " (expected it to run); " + progress() + "; see target/test.log");
        }
    }

    private static JobStatus jobStatus(Job job) {
        try {
            return job.client.getJobStatus().get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("cannot read the job status", e);
        }
    }

    private RecordedChangelog recording(StrictTable t) {
        return RecordedChangelog.get(recordingId(t));
    }

    private String recordingId(StrictTable t) {
        return runId + "/" + t.table;
    }

    private String totalsId() {
        return runId + "-totals";
    }

    private String groupsId() {
        return runId + "-groups";
    }
}
