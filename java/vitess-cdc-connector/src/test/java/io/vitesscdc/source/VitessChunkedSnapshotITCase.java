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
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The chunked initial snapshot ({@link InitialSnapshot#CHUNKED}) on a real MiniCluster at
 * parallelism 2 against the real Vitess (two shards), while a writer inserts, updates, deletes
 * and moves primary keys, each write raising the row's version ({@link VersionedRowsWriter}).
 * Over the whole changelog, per key, versions never decrease and a deleted key never comes back;
 * once the writer stopped, the materialized rows equal {@code SELECT *} through VTGate. The
 * chunks read from the RDONLY tablets (vttestserver's non-primary tablets).
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessChunkedSnapshotITCase extends VitessITBase {

    private static final int ROWS = 6000;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4);

    private final VersionedRowsWriter writer = new VersionedRowsWriter(13);

    VitessChunkedSnapshotITCase() {
        super("chunked");
    }

    @AfterEach
    void closeWriter() throws Exception {
        writer.close();
        VersionedChangelog.drop(runId);
    }

    @Test
    void chunkedInitialSnapshotUnderWritesEqualsVitessAndNoKeyGoesBackInTime() throws Exception {
        writer.insertRows(ROWS);
        writer.start(100);
        JobClient job = buildJob(0).executeAsync("vitess-chunked-snapshot");
        try {
            waitUntil(TestTimeouts.CONVERGE, () -> log().snapshotReads() >= ROWS / 2, "half the snapshot");
            long ops = writer.ops();
            waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= ops + 200, "writes beside the capture");
            writer.stop();
            awaitEqual(TestTimeouts.CONVERGE);
        } finally {
            VitessITBase.cancel(job);
        }
        assertThat(log().violations())
                .as("records that went back in time or came back from a delete")
                .isEmpty();
        assertThat(log().snapshotReads()).as("the rows the chunks read").isGreaterThan(ROWS / 2);
        assertChunkedNotCopied();
        System.out.printf(
                "chunked initial snapshot: %d snapshot reads of %d rows, %d records in all, %d writes%n",
                log().snapshotReads(), ROWS, log().entries().size(), writer.ops());
    }

    @Test
    void stopWithSavepointMidCaptureAndRestoreContinuesTheCapture(@TempDir Path savepoints) throws Exception {
        writer.insertRows(ROWS);
        writer.start(50);
        // A slow map keeps the capture in progress when the savepoint is taken.
        JobClient first = buildJob(3).executeAsync("vitess-chunked-first");
        waitUntil(TestTimeouts.CONVERGE, () -> log().snapshotReads() >= 500, "the first chunks");
        String savepoint = stopWithSavepoint(first, savepoints);
        long readBefore = log().snapshotReads();
        assertThat(readBefore).as("the savepoint must be taken mid-capture").isLessThan(ROWS);

        writeMoreThenAwaitEqual(executeRestored(buildJob(0), savepoint, "vitess-chunked-restored"));
        long readAfter = log().snapshotReads() - readBefore;
        assertThat(readAfter).as("snapshot rows after the restore").isPositive();
        assertThat(readBefore + readAfter)
                .as(
                        "the capture continued where it was instead of starting over (%d read before, %d after)",
                        readBefore, readAfter)
                .isLessThan(ROWS + ROWS / 2);
        assertThat(readAfter)
                .as("fewer snapshot rows after the restore than the table holds")
                .isLessThan(ROWS);
        assertThat(log().violations())
                .as("records that went back in time or came back from a delete")
                .isEmpty();
        assertChunkedNotCopied();
        System.out.printf(
                "chunked snapshot across stop-with-savepoint: %d snapshot reads before, %d after (table: %d rows)%n",
                readBefore, readAfter, ROWS);
    }

    @Test
    void aTableAddedOnRestoreIsCapturedInChunksAndTheOthersAreNotReadAgain(@TempDir Path savepoints) throws Exception {
        restoreWithAnAddedTable(
                savepoints, b -> b.tables("customer"), b -> b.tables("customer", VersionedRowsWriter.TABLE));
    }

    @Test
    void aTableAPatternMatchesSinceTheSavepointIsCapturedOnRestoreLikeOneAddedByName(@TempDir Path savepoints)
            throws Exception {
        // A pattern that matches more on restore stands for a table created while the job was down
        // (the keyspace's tables are shared by the suite, so none is created here).
        restoreWithAnAddedTable(
                savepoints,
                b -> b.tablePatterns("cust.mer"),
                b -> b.tablePatterns("cust.mer|" + VersionedRowsWriter.TABLE.replace("_", ".")));
    }

    /**
     * A job of {@code before}'s tables (customer) from now on, stopped with a savepoint, restored
     * with {@code after}'s (customer and the writer's table): the added table is captured in chunks
     * and equals Vitess, customer is not read again.
     */
    private void restoreWithAnAddedTable(
            Path savepoints,
            UnaryOperator<VitessSourceBuilder<String>> before,
            UnaryOperator<VitessSourceBuilder<String>> after)
            throws Exception {
        writer.insertRows(2000);
        long customerIds = 7_000_000_000_000L + (writer.run() % 1_000_000) * 1000;
        try {
            // 1. A job of customer only, from now on; a few customer rows give its splits marks.
            JobClient first = buildJob(0, b -> before.apply(b).startupMode(StartupMode.LATEST_OFFSET))
                    .executeAsync("vitess-before-adding");
            long deadline = System.nanoTime() + TestTimeouts.CONVERGE.toNanos();
            for (int i = 0; CountingKinds.records(runId, "customer") < 4 && System.nanoTime() < deadline; i++) {
                VitessCluster.execute(
                        "customer",
                        "INSERT INTO customer (customer_id, email) VALUES (" + (customerIds + i) + ", 'a" + i + "@x')");
                Thread.sleep(500);
            }
            assertThat(CountingKinds.records(runId, "customer"))
                    .as("customer rows streamed")
                    .isGreaterThan(0);
            String savepoint = stopWithSavepoint(first, savepoints);
            assertThat(log().entries()).as("flink_snap is not selected yet").isEmpty();

            // 2. Restored with flink_snap added: it is captured in chunks, customer is not read again.
            writer.start(50);
            writeMoreThenAwaitEqual(executeRestored(
                    buildJob(0, b -> after.apply(b).startupMode(StartupMode.LATEST_OFFSET)),
                    savepoint,
                    "vitess-tables-added"));
        } finally {
            VitessCluster.execute(
                    "customer",
                    "DELETE FROM customer WHERE customer_id >= " + customerIds + " AND customer_id < "
                            + (customerIds + 1000));
        }
        assertThat(CountingKinds.reads(runId, VersionedRowsWriter.TABLE))
                .as("the added table's rows came as chunked snapshot reads (less the rows the writer deleted "
                        + "before their chunk; the materialized rows equal Vitess above)")
                .isGreaterThan(1000);
        assertThat(CountingKinds.reads(runId, "customer"))
                .as("customer is not read again")
                .isZero();
        assertThat(CountingKinds.copied(runId)).as("in-stream copy rows").isZero();
        assertThat(log().violations())
                .as("records that went back in time or came back from a delete")
                .isEmpty();
    }

    @Test
    void sqlTableWithAChunkedInitialSnapshotIsAnUpsertChangelogThatEqualsVitess() throws Exception {
        writer.insertRows(2000);
        writer.start(100);
        TableEnvironment tEnv = SqlJobs.tableEnv(2);
        String options = ", 'scan.initial-snapshot' = 'chunked', 'scan.snapshot.tablet-type' = 'rdonly', "
                + "'scan.snapshot.chunk-rows' = '500'";
        tEnv.executeSql(
                "CREATE TABLE src (id BIGINT, run BIGINT, ver BIGINT, pad STRING, PRIMARY KEY (id) NOT ENFORCED)"
                        + SqlJobs.with(VersionedRowsWriter.TABLE, options));
        tEnv.executeSql(
                "CREATE TABLE snk (id BIGINT, ver BIGINT, PRIMARY KEY (id) NOT ENFORCED)" + SqlJobs.upsertSink(runId));
        String insert = "INSERT INTO snk SELECT id, ver FROM src WHERE run = " + writer.run();
        assertThat(tEnv.explainSql(insert, ExplainDetail.CHANGELOG_MODE))
                .as("a chunked snapshot's table is an upsert changelog")
                .contains("changelogMode=[I,UA,D]");
        JobClient job = SqlJobs.executeAll(tEnv, insert);
        try {
            long ops = writer.ops();
            waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= ops + 200, "writes beside the capture");
            writer.stop();
            Map<String, Map<String, String>> expected = VitessCluster.query(
                    VersionedRowsWriter.KEYSPACE,
                    "SELECT id, ver FROM " + VersionedRowsWriter.TABLE + " WHERE run = " + writer.run(),
                    "id");
            awaitEqual(expected, () -> MaterializedTables.get(runId).rows(), TestTimeouts.CONVERGE, "SQL upsert sink");
        } finally {
            VitessITBase.cancel(job);
        }
        tEnv.executeSql("CREATE TABLE src_all (id BIGINT, ver BIGINT, PRIMARY KEY (id) NOT ENFORCED)"
                + SqlJobs.with(VersionedRowsWriter.TABLE, options + ", 'changelog-mode' = 'all'"));
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM src_all"))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'changelog-mode' = 'all'")
                .hasMessageContaining("chunked snapshot");
    }

    private VersionedChangelog log() {
        return VersionedChangelog.get(runId);
    }

    /** A restored job: 100 more writes, the writer stopped, then the job's rows must equal Vitess's; cancels it. */
    private void writeMoreThenAwaitEqual(JobClient restored) throws Exception {
        try {
            long ops = writer.ops();
            waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= ops + 100, "writes after the restore");
            writer.stop();
            awaitEqual(TestTimeouts.CONVERGE_AFTER_RESTORE);
        } finally {
            VitessITBase.cancel(restored);
        }
    }

    private void awaitEqual(java.time.Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, String> expected = writer.rowsInVitess();
        while (System.nanoTime() < deadline && !log().materialized().equals(expected)) {
            Thread.sleep(300);
        }
        assertThat(expected).as("rows written by this test").isNotEmpty();
        assertThat(log().materialized())
                .as("materialized rows vs SELECT through VTGate")
                .isEqualTo(expected);
    }

    /** Source (parallelism 2, chunked initial snapshot) → optional slow map → changelog sink. */
    private StreamExecutionEnvironment buildJob(long sleepMillisPerSnapshotRow) {
        return buildJob(
                sleepMillisPerSnapshotRow,
                b -> b.tables(VersionedRowsWriter.TABLE).initialSnapshot(InitialSnapshot.CHUNKED));
    }

    private StreamExecutionEnvironment buildJob(
            long sleepMillisPerSnapshotRow, UnaryOperator<VitessSourceBuilder<String>> customize) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(1000);
        VitessSource<String> source = customize
                .apply(VitessSource.<String>builder()
                        .address(VitessCluster.grpcAddress())
                        .keyspace(VersionedRowsWriter.KEYSPACE)
                        .snapshotTabletType("rdonly")
                        .snapshotChunkRows(500)
                        .deserializer(new CountingKinds(runId)))
                .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source")
                .map(new SlowSnapshot(sleepMillisPerSnapshotRow))
                .uid("slow")
                .sinkTo(new VersionedChangelog.Sink(runId, writer.run()))
                .uid("sink")
                .setParallelism(1);
        return env;
    }

    private void assertChunkedNotCopied() {
        assertThat(CountingKinds.copied(runId)).as("in-stream copy rows").isZero();
        assertThat(CountingKinds.reads(runId))
                .as("chunked snapshot reads (of every table the source selects)")
                .isGreaterThanOrEqualTo(log().snapshotReads());
    }
}
