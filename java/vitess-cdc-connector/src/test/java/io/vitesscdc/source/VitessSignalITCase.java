/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.enumerator.VitessSourceEnumerator;
import io.vitesscdc.source.metrics.VitessSourceReaderMetrics;
import io.vitesscdc.source.testutils.CountingKinds;
import io.vitesscdc.source.testutils.LogWatch;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.RecordedChangelog;
import io.vitesscdc.source.testutils.SlowSnapshot;
import io.vitesscdc.source.testutils.SqlJobs;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VersionedChangelog;
import io.vitesscdc.source.testutils.VersionedRowsWriter;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Signals through a signal table ({@code customer.flink_signal}, docs/snapshots.md "Signals") on a
 * real MiniCluster at parallelism 2 against the real Vitess (two shards), while a writer inserts,
 * updates, deletes and moves keys of {@code flink_snap} ({@link VersionedRowsWriter}). A signal is
 * written as a user would, one plain INSERT per shard ({@code USE `customer:-80`}), in Debezium's
 * row format. Re-snapshots of a key range and of the whole table make the materialized rows equal
 * {@code SELECT *}; pause survives stop-with-savepoint; per key, versions never decrease.
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessSignalITCase extends VitessITBase {

    private static final String SIGNAL_TABLE = "flink_signal";
    private static final List<String> SHARDS = List.of("-80", "80-");
    /** The table of the SQL job's second source, captured by the same signal as the first's. */
    private static final String CUSTOMERS = "shape_customers";

    /** Retains the gauges of stopped jobs: a stopped stream's last figures are read after it. */
    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4, REPORTER.addToConfiguration(new Configuration()));

    private final VersionedRowsWriter writer = new VersionedRowsWriter(17);
    private int signals;

    VitessSignalITCase() {
        super("signal");
    }

    @AfterEach
    void cleanUp() throws Exception {
        writer.close();
        VersionedChangelog.drop(runId);
        MaterializedTables.drop(customersRun());
        VitessCluster.execute(VersionedRowsWriter.KEYSPACE, "DELETE FROM " + SIGNAL_TABLE);
        VitessCluster.execute(
                VersionedRowsWriter.KEYSPACE,
                "DELETE FROM " + CUSTOMERS + " WHERE id >= " + customersBase() + " AND id < "
                        + (customersBase() + 1000));
    }

    @Test
    void sqlReSnapshotsOfAKeyRangeThenTheTableBySignalEqualVitessUnderWrites() throws Exception {
        writer.insertRows(3000);
        long lo = writer.firstId() + 1000;
        long hi = writer.firstId() + 2000;
        TableEnvironment tEnv = SqlJobs.tableEnv(2);
        tEnv.executeSql("CREATE TABLE src (id BIGINT, run BIGINT, ver BIGINT, shard STRING METADATA VIRTUAL,"
                + " snap BOOLEAN METADATA FROM 'is_snapshot' VIRTUAL, PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with(
                        VersionedRowsWriter.TABLE,
                        ", 'scan.startup.mode' = 'latest-offset', 'scan.signal-table' = '" + SIGNAL_TABLE + "', "
                                + "'scan.snapshot.tablet-type' = 'rdonly', 'scan.snapshot.chunk-rows' = '300'"));
        tEnv.executeSql(
                "CREATE TABLE snk (id BIGINT, ver BIGINT, PRIMARY KEY (id) NOT ENFORCED)" + SqlJobs.upsertSink(runId));
        // A second source in the same job, over another table: one signal names both (and a
        // third that no source reads), as a user re-snapshots several tables at once.
        VitessCluster.execute(VersionedRowsWriter.KEYSPACE, customerRows(300));
        tEnv.executeSql("CREATE TABLE customers (id BIGINT, name STRING, tier STRING, PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with(
                        CUSTOMERS,
                        ", 'scan.startup.mode' = 'latest-offset', 'scan.signal-table' = '" + SIGNAL_TABLE
                                + "', 'scan.snapshot.tablet-type' = 'rdonly'"));
        tEnv.executeSql(
                "CREATE TABLE customers_snk (id BIGINT, name STRING, tier STRING, PRIMARY KEY (id) NOT ENFORCED)"
                        + SqlJobs.upsertSink(customersRun()));
        // Every change, as a retract changelog (the planner normalizes the upsert source for a sink
        // without key): per key, versions must never go back, through captures and the log alike.
        String recording = "signal-changes-" + runId;
        tEnv.executeSql("CREATE TABLE changes (id BIGINT, ver BIGINT, shard STRING, snap BOOLEAN) WITH ('connector' ="
                + " 'recorded-changelog', 'recording-id' = '" + recording + "', 'key-columns' = 'id')");
        String insert = "INSERT INTO snk SELECT id, ver FROM src WHERE run = " + writer.run();
        assertThat(tEnv.explainSql(insert, ExplainDetail.CHANGELOG_MODE))
                .as("a table that takes signals reads re-snapshots: an upsert changelog")
                .contains("changelogMode=[I,UA,D]");
        // Its sources, as many as the planner makes (one scan per INSERT of src, or one for both).
        LogWatch sources = LogWatch.of(VitessSourceEnumerator.class, "assigning one split per shard");
        JobClient job = SqlJobs.executeAll(
                tEnv,
                insert,
                "INSERT INTO changes SELECT id, ver, shard, snap FROM src WHERE run = " + writer.run(),
                "INSERT INTO customers_snk SELECT * FROM customers");
        String both = runId + "-both";
        try (sources;
                LogWatch received = LogWatch.of(VitessSourceEnumerator.class, "read signal '" + both + "'");
                LogWatch unread = LogWatch.of(VitessSourceEnumerator.class, "which no source of this job reads")) {
            writer.start(50);
            waitUntil(TestTimeouts.CONVERGE, () -> sunk().size() >= 5, "the log's first changes");
            assertThat(sunk().size())
                    .as("started at latest: the old rows are not read")
                    .isLessThan(1000);

            signal(
                    "execute-snapshot",
                    "{\"data-collections\": [\"" + VersionedRowsWriter.KEYSPACE + "."
                            + VersionedRowsWriter.TABLE + "\"], \"additional-conditions\": [{\"data-collection\": \""
                            + VersionedRowsWriter.TABLE + "\", \"filter\": \"id >= " + lo + " and id < " + hi
                            + "\"}]}");
            String range = "id >= " + lo + " AND id < " + hi;
            long ops = writer.ops();
            waitUntil(TestTimeouts.CONVERGE, () -> inRange(sunk(), lo, hi).size() >= 900, "the key range captured");
            waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= ops + 100, "writes beside the capture");
            writer.stop();
            awaitEqual(
                    rowsInVitess(range),
                    () -> inRange(sunk(), lo, hi),
                    TestTimeouts.CONVERGE,
                    "the re-snapshotted key range");
            assertThat(sunk().size())
                    .as("only the range was captured")
                    .isLessThan(rowsInVitess("true").size());

            assertThat(MaterializedTables.get(customersRun()).rows())
                    .as("the signal named only the first source's table")
                    .isEmpty();

            // One INSERT naming both sources' tables and one no source reads: each source
            // captures its table on both shards, and the third is reported once for the job.
            writer.start(50);
            signal(
                    both,
                    "execute-snapshot",
                    "{\"data-collections\": [\"" + VersionedRowsWriter.TABLE + "\", \"" + CUSTOMERS
                            + "\", \"corder\"]}");
            long more = writer.ops();
            waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= more + 100, "writes beside the second capture");
            writer.stop();
            awaitEqual(rowsInVitess("true"), this::sunk, TestTimeouts.CONVERGE, "the re-snapshotted table");
            awaitEqual(
                    VitessCluster.query(VersionedRowsWriter.KEYSPACE, "SELECT id, name, tier FROM " + CUSTOMERS, "id"),
                    () -> MaterializedTables.get(customersRun()).rows(),
                    TestTimeouts.CONVERGE,
                    "the second source's table, captured by the same signal");
            // Each source's reader of the shard the signal was written to reports the tables it
            // does not read (corder, for each); once every source's report is in, the table no
            // source reads has been reported once.
            int sourceCount = sources.threadNames().size();
            assertThat(sourceCount).as("the job's sources").isGreaterThanOrEqualTo(2);
            received.await(sourceCount, TestTimeouts.CONVERGE, "every source's report of the signal");
            assertThat(received.threadNames()).as("one report per source").hasSize(sourceCount);
            assertThat(unread.count())
                    .as("reports of the table no source reads, for the whole job")
                    .isEqualTo(1);
            assertThat(unread.lines()).singleElement().asString().contains("'" + both + "'", "[corder]");
            awaitEqual(
                    rowsInVitess("true"),
                    () -> liveVersions(RecordedChangelog.get(recording)),
                    TestTimeouts.CONVERGE,
                    "the whole changelog's rows");
        } finally {
            VitessITBase.cancel(job);
        }
        RecordedChangelog changes = RecordedChangelog.get(recording);
        try {
            assertThat(versionsGoneBack(changes))
                    .as("keys whose version went back, across the log and both captures")
                    .isEmpty();
            assertThat(changes.changelog().violations())
                    .as("the retract changelog is strict")
                    .isEmpty();
            assertThat(changes.snapshotRecords())
                    .as("snapshot reads of the two captures in the changelog")
                    .isGreaterThan(1000);
        } finally {
            RecordedChangelog.drop(recording);
        }
    }

    /** id → {ver} of the rows the recorded changelog holds now. */
    private static Map<String, Map<String, String>> liveVersions(RecordedChangelog changes) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        changes.changelog().liveRows().forEach((key, row) -> {
            Map<String, String> columns = new java.util.LinkedHashMap<>();
            columns.put("id", String.valueOf(row.get(0)));
            columns.put("ver", String.valueOf(row.get(1)));
            out.put(String.valueOf(key.get(0)), columns);
        });
        return out;
    }

    /** Each record (but a retraction's before image) whose version is below its key's previous one. */
    private static List<String> versionsGoneBack(RecordedChangelog changes) {
        Map<Object, Long> last = new java.util.HashMap<>();
        List<String> back = new java.util.ArrayList<>();
        for (RecordedChangelog.Entry e : changes.committedFrom(0)) {
            if (e.kind == org.apache.flink.types.RowKind.UPDATE_BEFORE) {
                continue;
            }
            long ver = Long.parseLong(String.valueOf(e.row.get(1)));
            Long previous = last.put(e.key.get(0), ver);
            if (previous != null && ver < previous && back.size() < 20) {
                back.add(e + " after version " + previous);
            }
        }
        return back;
    }

    @Test
    void pauseSurvivesStopWithSavepointAndResumeFinishesTheCaptureWithoutStartingOver(@TempDir Path savepoints)
            throws Exception {
        int rows = 6000;
        writer.insertRows(rows);
        // The in-stream copy first (the default initial snapshot); signals act once it completed.
        JobClient first = buildJob().executeAsync("vitess-signal-first");
        waitUntil(TestTimeouts.CONVERGE, () -> log().materialized().size() >= rows, "the in-stream copy");
        writer.start(50);
        // Requested and paused in one transaction per shard: the capture is planned, and no chunk
        // starts (a capture of these rows takes under a second, over before a later pause lands).
        signalPerShard(
                new String[] {"execute-snapshot", "pause-snapshot"},
                new String[] {"{\"data-collections\": [\"" + VersionedRowsWriter.TABLE + "\"]}", null});
        int before = log().entries().size();
        waitUntil(TestTimeouts.CONVERGE, () -> log().entries().size() > before + 20, "the log after the signals");
        waitUntil(
                TestTimeouts.CONVERGE,
                () -> readerGauge(first.getJobID(), VitessSourceReaderMetrics.CAPTURE_TABLES_REMAINING) == 2,
                "the capture planned on both shards");
        String savepoint = stopWithSavepoint(first, savepoints);
        // The streams closed with the job and left their final figures: the count of chunks
        // started never goes down, so 0 covers every moment of the pause, however long.
        assertThat(readerGauge(first.getJobID(), VitessSourceReaderMetrics.CAPTURE_CHUNKS_STARTED))
                .as("chunks started while paused")
                .isZero();
        assertThat(reads()).as("no chunk row of a paused capture").isZero();

        // Restored, still paused: stopped again once the log flowed through the restored streams.
        JobClient restored = executeRestored(buildJob(), savepoint, "vitess-signal-restored");
        int logged = log().entries().size();
        waitUntil(TestTimeouts.CONVERGE, () -> log().entries().size() > logged + 20, "the log flows while paused");
        waitUntil(
                TestTimeouts.CONVERGE,
                () -> readerGauge(restored.getJobID(), VitessSourceReaderMetrics.CAPTURE_TABLES_REMAINING) == 2,
                "the restored streams hold the paused capture");
        String stillPaused = stopWithSavepoint(restored, savepoints);
        assertThat(readerGauge(restored.getJobID(), VitessSourceReaderMetrics.CAPTURE_CHUNKS_STARTED))
                .as("chunks started after the restore, still paused")
                .isZero();
        assertThat(reads()).as("no chunk row after the restore").isZero();

        JobClient resumed = executeRestored(buildJob(), stillPaused, "vitess-signal-resumed");
        try {
            signal("resume-snapshot", null);
            waitUntil(TestTimeouts.CONVERGE, () -> reads() >= 1000, "the resumed capture");
            writer.stop();
            long deadline = System.nanoTime() + TestTimeouts.CONVERGE.toNanos();
            Map<String, String> expected = writer.rowsInVitess();
            while (System.nanoTime() < deadline && !log().materialized().equals(expected)) {
                Thread.sleep(300);
            }
            assertThat(log().materialized())
                    .as("materialized rows vs SELECT through VTGate")
                    .isEqualTo(expected);
        } finally {
            VitessITBase.cancel(resumed);
        }
        long total = reads();
        assertThat(total)
                .as("the capture read the table once, after the resume")
                .isLessThan(rows + rows / 2)
                .isGreaterThan(rows / 2);
        assertThat(log().violations())
                .as("records that went back in time or came back from a delete")
                .isEmpty();
        System.out.printf(
                "signals: no chunk while paused across two stops with savepoints, resumed to %d reads (table: %d rows)%n",
                total, rows);
    }

    /**
     * One INSERT through VTGate, as a user writes a signal: it lands on one shard, whose stream
     * relays it to the other.
     */
    private void signal(String type, String data) throws SQLException {
        signal(runId + "-" + (++signals), type, data);
    }

    private void signal(String id, String type, String data) throws SQLException {
        VitessCluster.execute(
                VersionedRowsWriter.KEYSPACE,
                "INSERT INTO " + SIGNAL_TABLE + " (id, type, data) VALUES ('" + id + "', '" + type + "', "
                        + sqlText(data) + ")");
    }

    /**
     * Several signals in one transaction per shard, in this order: each shard's own rows
     * ({@code <id>@<shard>}, with the session on the shard), the form for signals that must
     * reach a shard's log together.
     */
    private void signalPerShard(String[] types, String[] data) throws SQLException {
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < types.length; i++) {
            ids.add(runId + "-" + (++signals));
        }
        for (String shard : SHARDS) {
            List<String> sql = new java.util.ArrayList<>();
            sql.add("USE `" + VersionedRowsWriter.KEYSPACE + ":" + shard + "`");
            sql.add("BEGIN");
            for (int i = 0; i < types.length; i++) {
                sql.add("INSERT INTO " + SIGNAL_TABLE + " (id, type, data) VALUES ('" + ids.get(i) + "@" + shard
                        + "', '" + types[i] + "', " + sqlText(data[i]) + ")");
            }
            sql.add("COMMIT");
            VitessCluster.execute(VersionedRowsWriter.KEYSPACE, sql.toArray(new String[0]));
        }
    }

    private static String sqlText(String value) {
        return value == null ? "NULL" : "'" + value.replace("'", "''") + "'";
    }

    /** The SQL job's second source's sink. */
    private String customersRun() {
        return runId + "-customers";
    }

    /** Where this run's rows of the second source's table start (ids of its own, by the run). */
    private long customersBase() {
        return 1_000_000_000L + Math.floorMod(runId.hashCode(), 1_000_000) * 1000L;
    }

    /** An INSERT of {@code n} rows of the second source's table. */
    private String customerRows(int n) {
        StringBuilder sql = new StringBuilder("INSERT INTO " + CUSTOMERS + " (id, name, tier) VALUES ");
        for (int i = 0; i < n; i++) {
            sql.append(i == 0 ? "" : ", ")
                    .append("(")
                    .append(customersBase() + i)
                    .append(", 'c")
                    .append(i)
                    .append("', '")
                    .append(i % 3 == 0 ? "gold" : "basic")
                    .append("')");
        }
        return sql.toString();
    }

    /**
     * The sum over the job's readers of a reader-level gauge (group {@code VitessSourceReader}, not
     * its per-shard groups); {@link Long#MIN_VALUE} while no reader has it.
     */
    private static long readerGauge(JobID job, String name) {
        long sum = 0;
        boolean found = false;
        for (Map.Entry<String, Metric> e : REPORTER.findMetrics(job, name).entrySet()) {
            if (e.getKey().endsWith(".VitessSourceReader." + name) && e.getValue() instanceof Gauge<?> g) {
                long v = ((Number) g.getValue()).longValue();
                sum += Math.max(0, v);
                found |= v >= 0;
            }
        }
        return found ? sum : Long.MIN_VALUE;
    }

    private long reads() {
        return CountingKinds.reads(runId, VersionedRowsWriter.TABLE);
    }

    private Map<String, Map<String, String>> sunk() {
        return MaterializedTables.get(runId).rows();
    }

    private Map<String, Map<String, String>> rowsInVitess(String condition) throws SQLException {
        return VitessCluster.query(
                VersionedRowsWriter.KEYSPACE,
                "SELECT id, ver FROM " + VersionedRowsWriter.TABLE + " WHERE run = " + writer.run() + " AND "
                        + condition,
                "id");
    }

    private static Map<String, Map<String, String>> inRange(Map<String, Map<String, String>> rows, long lo, long hi) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        rows.forEach((k, v) -> {
            long id = Long.parseLong(k);
            if (id >= lo && id < hi) {
                out.put(k, v);
            }
        });
        return out;
    }

    private VersionedChangelog log() {
        return VersionedChangelog.get(runId);
    }

    /** Source (parallelism 2, signals on) → slow map on snapshot reads → changelog sink. */
    private StreamExecutionEnvironment buildJob() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(1000);
        VitessSource<String> source = VitessSource.<String>builder()
                .address(VitessCluster.grpcAddress())
                .keyspace(VersionedRowsWriter.KEYSPACE)
                .tables(VersionedRowsWriter.TABLE)
                .signalTable(SIGNAL_TABLE)
                .snapshotTabletType("rdonly")
                .snapshotChunkRows(50)
                .snapshotChunksInFlight(1)
                .deserializer(new CountingKinds(runId))
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source")
                .map(new SlowSnapshot(1))
                .uid("slow")
                .sinkTo(new VersionedChangelog.Sink(runId, writer.run()))
                .uid("sink")
                .setParallelism(1);
        return env;
    }
}
