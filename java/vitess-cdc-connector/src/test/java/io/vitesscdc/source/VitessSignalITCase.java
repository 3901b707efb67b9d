/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.testutils.CountingKinds;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.SlowSnapshot;
import io.vitesscdc.source.testutils.SqlJobs;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VersionedChangelog;
import io.vitesscdc.source.testutils.VersionedRowsWriter;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
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

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4);

    private final VersionedRowsWriter writer = new VersionedRowsWriter(17);
    private int signals;

    VitessSignalITCase() {
        super("signal");
    }

    @AfterEach
    void cleanUp() throws Exception {
        writer.close();
        VersionedChangelog.drop(runId);
        VitessCluster.execute(VersionedRowsWriter.KEYSPACE, "DELETE FROM " + SIGNAL_TABLE);
    }

    @Test
    void sqlReSnapshotsOfAKeyRangeThenTheTableBySignalEqualVitessUnderWrites() throws Exception {
        writer.insertRows(3000);
        long lo = writer.firstId() + 1000;
        long hi = writer.firstId() + 2000;
        TableEnvironment tEnv = SqlJobs.tableEnv(2);
        tEnv.executeSql("CREATE TABLE src (id BIGINT, run BIGINT, ver BIGINT, PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with(
                        VersionedRowsWriter.TABLE,
                        ", 'scan.startup.mode' = 'latest-offset', 'scan.signal-table' = '" + SIGNAL_TABLE + "', "
                                + "'scan.snapshot.tablet-type' = 'rdonly', 'scan.snapshot.chunk-rows' = '300'"));
        tEnv.executeSql(
                "CREATE TABLE snk (id BIGINT, ver BIGINT, PRIMARY KEY (id) NOT ENFORCED)" + SqlJobs.upsertSink(runId));
        String insert = "INSERT INTO snk SELECT id, ver FROM src WHERE run = " + writer.run();
        assertThat(tEnv.explainSql(insert, ExplainDetail.CHANGELOG_MODE))
                .as("a table that takes signals reads re-snapshots: an upsert changelog")
                .contains("changelogMode=[I,UA,D]");
        JobClient job = SqlJobs.executeAll(tEnv, insert);
        try {
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

            writer.start(50);
            signal("execute-snapshot", "{\"data-collections\": [\"" + VersionedRowsWriter.TABLE + "\"]}");
            long more = writer.ops();
            waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= more + 100, "writes beside the second capture");
            writer.stop();
            awaitEqual(rowsInVitess("true"), this::sunk, TestTimeouts.CONVERGE, "the re-snapshotted table");
        } finally {
            job.cancel().get();
        }
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
        signal(
                new String[] {"execute-snapshot", "pause-snapshot"},
                new String[] {"{\"data-collections\": [\"" + VersionedRowsWriter.TABLE + "\"]}", null});
        int before = log().entries().size();
        waitUntil(TestTimeouts.CONVERGE, () -> log().entries().size() > before + 20, "the log after the signals");
        Thread.sleep(TestTimeouts.PAUSED_CAPTURE_WATCHED.toMillis());
        long paused = reads();
        assertThat(paused).as("no chunk of a paused capture").isZero();

        String savepoint = stopWithSavepoint(first, savepoints);
        JobClient restored = executeRestored(buildJob(), savepoint, "vitess-signal-restored");
        try {
            int logged = log().entries().size();
            // Twice as long: the restored job starts its stream within the watch.
            Thread.sleep(TestTimeouts.PAUSED_CAPTURE_WATCHED.multipliedBy(2).toMillis());
            assertThat(reads()).as("still paused after the restore").isEqualTo(paused);
            assertThat(log().entries().size()).as("the log flows while paused").isGreaterThan(logged);

            signal("resume-snapshot", null);
            waitUntil(TestTimeouts.CONVERGE, () -> reads() >= paused + 1000, "the resumed capture");
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
            restored.cancel().get();
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
                "signals: paused at %d snapshot reads, restored paused, resumed to %d (table: %d rows)%n",
                paused, total, rows);
    }

    /** One row per shard, as a user writes it: a plain INSERT with the session on the shard. */
    private void signal(String type, String data) throws SQLException {
        signal(new String[] {type}, new String[] {data});
    }

    /** Several signals in one transaction per shard, in this order. */
    private void signal(String[] types, String[] data) throws SQLException {
        for (String shard : SHARDS) {
            List<String> sql = new java.util.ArrayList<>();
            sql.add("USE `" + VersionedRowsWriter.KEYSPACE + ":" + shard + "`");
            sql.add("BEGIN");
            for (int i = 0; i < types.length; i++) {
                String value = data[i] == null ? "NULL" : "'" + data[i].replace("'", "''") + "'";
                sql.add("INSERT INTO " + SIGNAL_TABLE + " (id, type, data) VALUES ('" + runId + "-" + (++signals)
                        + "', '" + types[i] + "', " + value + ")");
            }
            sql.add("COMMIT");
            VitessCluster.execute(VersionedRowsWriter.KEYSPACE, sql.toArray(new String[0]));
        }
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
