/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;
import io.vitesscdc.source.enumerator.VitessSourceEnumerator;
import io.vitesscdc.source.reader.VitessSourceReader;
import io.vitesscdc.source.testutils.ChangelogRecorder;
import io.vitesscdc.source.testutils.ChangelogRecorder.Change;
import io.vitesscdc.source.testutils.DebeziumJson;
import io.vitesscdc.source.testutils.LogWatch;
import io.vitesscdc.source.testutils.MultiProcessCluster;
import io.vitesscdc.source.testutils.PacedWriter;
import io.vitesscdc.source.testutils.SqlEndpoint;
import io.vitesscdc.source.testutils.StrictChangelog;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VersionedRowsWriter;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.IOUtils;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue #10's scenarios on the real multi-process local Vitess (tests/vitess/cluster: etcd,
 * vtctld, a mysqld and vttablet per tablet, VTGates) under a running Flink job at parallelism 2,
 * with a concurrent writer: inserts, updates, deletes and primary-key moves of {@code
 * customer.flink_snap} (a version counter per row, {@link VersionedRowsWriter}) and append-only
 * inserts into {@code customer.customer}. One job, stopped with a savepoint once and restored,
 * goes through, in order:
 *
 * <ol>
 *   <li>the copy: {@code kill -9} of VTGate and its restart, a PlannedReparentShard of -80;
 *   <li>streaming: {@code kill -9} of VTGate and its restart, a PlannedReparentShard of 80-;
 *   <li>a chunked snapshot of the whole of {@code flink_snap} (an execute-snapshot signal), held
 *       back mid-way by the tablet throttler ({@code UpdateThrottlerConfig --throttle-app
 *       vitess-cdc}), so that the reshard below meets it in progress;
 *   <li>a reshard 2 → 4 ({@code reshard.sh} prepare, create, switch): the moment both old splits
 *       ended at their journal (the reader's log says so), before the next checkpoint would start
 *       the new splits, a stop with a savepoint; a restore reading REPLICA tablets (both old splits
 *       come back ended, the new ones start with the capture's cursors of their old shard), the
 *       throttler lets the chunks go, the capture completes on the new shards without reading
 *       again what the old ones emitted, then {@code reshard.sh complete};
 *   <li>a REPLICA vttablet of a new shard {@code kill -9}ed and restarted while the job reads replicas;
 *   <li>a merge 4 → 2, then an EmergencyReparentShard after {@code kill -9} of a primary's mysqld;
 *   <li>the split 2 → 4 again and the merge back again: Vitess gives each the journal id of the
 *       first (the id comes from the target shards and their stream ids), which the enumerator
 *       once took for a repeat of it and read nothing from then on (found by the chaos soak).
 * </ol>
 *
 * <p>The copy of {@value #SNAPSHOT_ROWS} rows lasts long enough for its two faults (they begin at
 * its first record; the test checks that snapshot records came after them).
 *
 * <p>Judged at the end, on the records as of completed checkpoints ({@link ChangelogRecorder}):
 * the materialized rows equal {@code SELECT *} through VTGate; every append-only insert arrived
 * exactly once; per key, versions never decrease and a deleted key never comes back; each key's
 * streamed changes, shuffled and sorted by {@code (epoch, rank)}, are in their true order; the
 * shards of each layout were spread evenly over the two readers. Each step's duration is printed
 * (docs/reliability.md has the figures).
 */
@Timeout(value = 25, unit = TimeUnit.MINUTES)
class VitessClusterScenariosITCase {

    private static final int SNAPSHOT_ROWS = 100_000;
    private static final int APPEND_ROWS_BEFORE = 500;
    private static final String OLD = "-80,80-";
    private static final String SPLIT = "-40,40-80,80-c0,c0-";
    private static final String SIGNAL_TABLE = "flink_signal";
    /** Rows per chunk of the capture: many chunks per shard, so the throttler meets it mid-way. */
    private static final int CHUNK_ROWS = 1000;
    /** Where the native core's capture logs its holds and its tables done on a shard. */
    private static final String THROTTLE_LOG = "vitesscdc.native.vitess_cdc_core.snapshot.capture.throttle";

    private static final String CAPTURE_LOG = "vitesscdc.native.vitess_cdc_core.snapshot.capture.positions";

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    private final String runId = "cluster-scenarios-" + UUID.randomUUID();
    private final SqlEndpoint sql = MultiProcessCluster.sql();
    private final long seed = Long.getLong("cluster.seed", System.nanoTime());
    private final VersionedRowsWriter rows = new VersionedRowsWriter(seed, sql);
    private final AppendOnlyWriter appends = new AppendOnlyWriter(rows.run(), sql);
    private final List<String> timings = Collections.synchronizedList(new ArrayList<>());

    @TempDir
    Path savepoints;

    /** The native core's INFO lines (the capture's holds and tables done), for the watches. */
    private AutoCloseable nativeInfo;

    @BeforeEach
    void setUp() throws Exception {
        // The scenarios begin at two shards, with the throttler off: an earlier run that failed
        // mid-way may have left a reshard half done, or the throttler holding our app back.
        MultiProcessCluster.restoreTwoCustomerShards();
        releaseThrottler();
        nativeInfo = LogWatch.nativeCoreInfo();
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            // Every step runs whatever the ones before it threw (the first failure is thrown, the
            // others suppressed in it): a writer that failed must not leave the throttler holding
            // the next tests' captures for an hour.
            IOUtils.closeAll(
                    nativeInfo,
                    rows,
                    appends,
                    () -> sql.execute(
                            "customer", "DELETE FROM " + SIGNAL_TABLE + " WHERE id LIKE '" + signalId() + "%'"),
                    VitessClusterScenariosITCase::releaseThrottler);
        } finally {
            for (String log : logs()) {
                ChangelogRecorder.drop(log);
            }
            ShardOwners.OWNERS.remove(runId);
            ShardOwners.RECORDS.remove(runId);
            ShardOwners.SNAPSHOT.remove(runId);
            ShardOwners.SNAPSHOT_BY_EPOCH.remove(runId);
        }
    }

    /** No app throttled, the throttler off: as the cluster starts. */
    private static void releaseThrottler() throws Exception {
        throttler("--unthrottle-app", "vitess-cdc");
        throttler("--disable");
    }

    @Test
    void reshardsReparentsAndRestartsUnderARunningJob() throws Exception {
        System.out.printf(
                "VitessClusterScenariosITCase: seed %d (-Dcluster.seed=%d), run %d%n", seed, seed, rows.run());
        long t0 = System.nanoTime();
        rows.insertRows(SNAPSHOT_ROWS);
        appends.insertRows(APPEND_ROWS_BEFORE);
        timed("insert " + SNAPSHOT_ROWS + " + " + APPEND_ROWS_BEFORE + " rows (what the copy reads)", t0);
        rows.tolerateFailures();
        appends.tolerateFailures();
        rows.start(40);
        appends.start(10);

        JobClient job = job("primary", 3000).executeAsync("cluster-scenarios");
        Throwable primary = null;
        try {
            // 1. The copy.
            // The faults begin at the copy's first record (seen by the source's subtasks at once).
            waitUntil(TestTimeouts.PROGRESS, () -> ShardOwners.snapshotRecords(runId) > 0, "the first snapshot reads");
            fault("kill -9 VTGate and restart it during the copy", "fault.sh", "restart-vtgate", "2");
            fault("PlannedReparentShard customer/-80 during the copy", "fault.sh", "prs", "customer/-80");
            long copiedBeforeTheFaultsEnded = ShardOwners.snapshotRecords(runId);
            long copied = awaitCopyDone();
            assertThat(copiedBeforeTheFaultsEnded)
                    .as("snapshot records emitted when the copy faults were over: the copy went on after them")
                    .isLessThan(copied);

            // 2. Streaming.
            fault("kill -9 VTGate and restart it while streaming", "fault.sh", "restart-vtgate", "2");
            fault("PlannedReparentShard customer/80- while streaming", "fault.sh", "prs", "customer/80-");
            awaitStreamedFromEveryShardOf(0, 2);

            // 2b. A chunked snapshot of all of flink_snap, held back mid-way by the throttler.
            throttler("--enable", "--threshold", "3600");
            long copiedRows = ShardOwners.snapshotRecords(runId);
            long rowsAtSignal = tableRows();
            long captureStart = System.nanoTime();
            try (LogWatch held = LogWatch.ofLogger(THROTTLE_LOG, "held back")) {
                sql.execute(
                        "customer",
                        "INSERT INTO " + SIGNAL_TABLE + " (id, type, data) VALUES ('" + signalId() + "', "
                                + "'execute-snapshot', '{\"data-collections\": [\"customer." + VersionedRowsWriter.TABLE
                                + "\"]}')");
                waitUntil(
                        TestTimeouts.PROGRESS,
                        () -> ShardOwners.snapshotRecords(runId) - copiedRows >= 3L * CHUNK_ROWS,
                        "the capture's first chunks");
                throttler("--throttle-app", "vitess-cdc", "--throttle-app-duration", "1h");
                held.await(1, TestTimeouts.PROGRESS, "the tablet throttler holding the capture's chunks back");
            }
            long capturedAtHold = ShardOwners.snapshotRecords(runId) - copiedRows;
            assertThat(capturedAtHold)
                    .as("rows captured when the throttler held the capture (of %d)", rowsAtSignal)
                    .isLessThan(rowsAtSignal * 3 / 4);
            timed(
                    "capture of flink_snap started, held back by the throttler after " + capturedAtHold + " rows",
                    captureStart);

            // 3. Reshard 2 -> 4, a stop with a savepoint right after the old shards journaled.
            fault("reshard 2 -> 4: new tablets (prepare)", "reshard.sh", "prepare", "customer", SPLIT);
            fault(
                    "reshard 2 -> 4: Reshard create (copy into the new shards)",
                    "reshard.sh",
                    "create",
                    "customer",
                    OLD,
                    SPLIT);
            // SwitchTraffic runs in the background; the stop begins the moment both old splits
            // ended at their journal, before the checkpoint (every 3 s) that would start the new ones.
            String savepoint;
            long newShardRecordsAtStop;
            Set<String> endedOldSplits;
            Set<String> acknowledgedBeforeStop;
            try (LogWatch ended = LogWatch.of(VitessSourceReader.class, "ended at reshard journal");
                    LogWatch acknowledged = LogWatch.of(VitessSourceReader.class, "took note that split")) {
                CompletableFuture<Void> switched = CompletableFuture.runAsync(() -> {
                    try {
                        fault(
                                "reshard 2 -> 4: SwitchTraffic (the old shards journal)",
                                "reshard.sh",
                                "switch",
                                "customer");
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                });
                ended.await(2, TestTimeouts.RESHARD, "both old splits ending at the reshard journal");
                long stop = System.nanoTime();
                savepoint = VitessITBase.stopWithSavepoint(job, savepoints);
                newShardRecordsAtStop = ShardOwners.recordsOfEpoch(runId, 1);
                endedOldSplits = splitIds(ended.lines());
                // A checkpoint that completed between the two ends made the first one durable:
                // the enumerator acknowledged it and the reader dropped it, so the savepoint does
                // not hold it (the enumerator's state does).
                acknowledgedBeforeStop = splitIds(acknowledged.lines());
                timed("stop with a savepoint once both old splits ended at the journal", stop);
                switched.get(TestTimeouts.RESHARD_SCRIPT.toMillis(), TimeUnit.MILLISECONDS);
            }
            assertThat(newShardRecordsAtStop)
                    .as("records of the new shards before the savepoint (their splits must not have started)")
                    .isZero();
            long restore = System.nanoTime();
            int carriedShards;
            try (LogWatch restoredEnded =
                            LogWatch.of(VitessSourceReader.class, "was restored as ended at reshard journal");
                    LogWatch carried =
                            LogWatch.of(VitessSourceEnumerator.class, "goes on with the chunked snapshots")) {
                job = VitessITBase.executeRestored(job("replica", 1000), savepoint, "cluster-scenarios-restored");
                awaitStreamedFromEveryShardOf(1, 4);
                Set<String> restoredAsEnded = splitIds(restoredEnded.lines());
                assertThat(endedOldSplits)
                        .as("old splits that ended at the journal")
                        .hasSize(2);
                assertThat(restoredAsEnded)
                        .as("old splits restored as ended (the savepoint fell between the journals and the new "
                                + "splits), besides those the enumerator acknowledged before the stop: "
                                + acknowledgedBeforeStop)
                        .isSubsetOf(endedOldSplits)
                        .containsAll(endedOldSplits.stream()
                                .filter(id -> !acknowledgedBeforeStop.contains(id))
                                .toList());
                carriedShards = carried.count();
                assertThat(carriedShards)
                        .as("new shards that go on with the held capture (two per old shard still capturing): "
                                + carried.lines())
                        .isBetween(2, 4);
            }
            timed("restore reading REPLICA tablets, every new shard streams", restore);

            // The capture goes on on the new shards from the old shards' cursors.
            long goOn = System.nanoTime();
            try (LogWatch done = LogWatch.ofLogger(CAPTURE_LOG, "chunked snapshot of the table done on the shard")) {
                throttler("--unthrottle-app", "vitess-cdc");
                done.await(carriedShards, TestTimeouts.CONVERGE, "the capture done on every new shard that carried it");
            }
            timed("the capture went on on the new shards and completed", goOn);
            throttler("--disable");
            fault(
                    "reshard 2 -> 4: Reshard complete (old tablets stopped, old shards deleted)",
                    "reshard.sh",
                    "complete",
                    "customer",
                    OLD);

            // 4. A replica restarted while the job reads replicas.
            fault(
                    "kill -9 and restart the REPLICA vttablet of customer/-40 (job reads replicas)",
                    "fault.sh",
                    "restart-replica",
                    "customer/-40");

            // 5. Merge 4 -> 2, then an emergency reparent.
            fault("merge 4 -> 2 (prepare, create, switch, complete)", "reshard.sh", "all", "customer", SPLIT, OLD);
            awaitStreamedFromEveryShardOf(2, 2);
            fault(
                    "kill -9 the mysqld of customer/80-'s PRIMARY, EmergencyReparentShard",
                    "fault.sh",
                    "ers",
                    "customer/80-");

            // 6. The same split and merge again: their journals have the first ones' ids.
            fault("split 2 -> 4 again (the first split's journal id)", "reshard.sh", "all", "customer", OLD, SPLIT);
            awaitStreamedFromEveryShardOf(3, 4);
            fault("merge 4 -> 2 again (the first merge's journal id)", "reshard.sh", "all", "customer", SPLIT, OLD);
            awaitStreamedFromEveryShardOf(4, 2);
            long tail = rows.ops() + 200;
            waitUntil(TestTimeouts.PROGRESS, () -> rows.ops() >= tail, "writes after the last fault");

            long quiesce = System.nanoTime();
            rows.stop();
            appends.stop();
            awaitEqualToVitess();
            timed("writers stopped; Flink equals Vitess", quiesce);

            // Every record of the capture went through the job by now (the core's log lines run
            // ahead of it): the new shards read what the old ones had not emitted, once.
            long captured = ShardOwners.snapshotRecords(runId) - copiedRows;
            long onNewShards = ShardOwners.snapshotRecordsOfEpoch(runId, 1);
            long onOldShards = captured - onNewShards;
            System.out.printf(
                    "VitessClusterScenariosITCase: capture of %d rows: %d on the old shards, %d on the new shards, "
                            + "%d in all%n",
                    rowsAtSignal, onOldShards, onNewShards, captured);
            assertThat(onNewShards).as("rows the new shards captured").isPositive();
            assertThat(onOldShards).as("rows the old shards captured").isGreaterThanOrEqualTo(capturedAtHold);
            assertThat(captured)
                    .as(
                            "rows captured in all, of %d: each about once (the writer's changes evict a few, its "
                                    + "inserts add a few); starting again on the new shards would read the %d rows the "
                                    + "old shards emitted twice",
                            rowsAtSignal, onOldShards)
                    .isBetween(rowsAtSignal * 9 / 10, rowsAtSignal + onOldShards / 2);
        } catch (Throwable t) {
            primary = t;
            throw t;
        } finally {
            try {
                VitessITBase.cancel(job);
            } catch (Throwable cancelled) {
                if (primary == null) {
                    throw cancelled;
                }
                // The job's own failure (its cause) beside the step that saw it.
                primary.addSuppressed(cancelled);
            }
        }
        verdict();
        System.out.println("VitessClusterScenariosITCase timings:\n" + String.join("\n", timings));
    }

    /** The job: source (parallelism 2) → shard owners → three recorders (parallelism 1) → discard. */
    private StreamExecutionEnvironment job(String tabletType, long checkpointMillis) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(checkpointMillis);
        VitessITBase.fixedDelayRestarts(env, 30);
        VitessSource<String> source = VitessSource.<String>builder()
                .address(MultiProcessCluster.grpcAddress())
                .keyspace("customer")
                .tables(VersionedRowsWriter.TABLE, AppendOnlyWriter.TABLE)
                .tabletType(tabletType)
                .signalTable(SIGNAL_TABLE)
                .snapshotChunkRows(CHUNK_ROWS)
                .snapshotChunksInFlight(1)
                .snapshotThrottler(MultiProcessCluster.env("VT_CLUSTER_VTCTLD_ADDR"))
                .deserializer(new JsonDebeziumDeserializationSchema())
                .build();
        long run = rows.run();
        String appendPrefix = "email=" + AppendOnlyWriter.emailPrefix(run);
        String runColumn = "run=" + run;
        DataStream<String> events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source")
                .map(new ShardOwners(runId, run))
                .uid("shard-owners");
        events = ChangelogRecorder.record(
                events,
                snapLog(),
                "snap-changelog",
                DebeziumJson.changes("id").where(c -> c.row().contains(runColumn)));
        events = ChangelogRecorder.record(
                events,
                appendLog(),
                "append-changelog",
                DebeziumJson.changes("customer_id")
                        .where(c ->
                                c.row().stream().anyMatch(v -> String.valueOf(v).startsWith(appendPrefix))));
        ChangelogRecorder.record(events, orderLog(), "order-log", new OrderEntries(run))
                .sinkTo(new DiscardingSink<>())
                .uid("discard")
                .setParallelism(1);
        return env;
    }

    // --- the verdict -------------------------------------------------------------------------

    private void verdict() throws Exception {
        StrictChangelog snap = ChangelogRecorder.changelog(snapLog());
        ChangelogRecorder.assertStrict(snapLog());
        assertThat(materializedVersions(snap))
                .as("flink_snap: materialized vs SELECT * through VTGate")
                .isEqualTo(rows.rowsInVitess());

        ChangelogRecorder.assertStrict(appendLog());
        List<Change> appended = ChangelogRecorder.published(appendLog());
        assertThat(appended).as("append-only table: only inserts").allMatch(c -> c.kind() == RowKind.INSERT);
        Map<String, Integer> insertsPerKey = new TreeMap<>();
        for (Change c : appended) {
            insertsPerKey.merge(String.valueOf(c.key().get(0)), 1, Integer::sum);
        }
        Set<String> inFlink = new TreeSet<>(insertsPerKey.keySet());
        assertThat(inFlink)
                .as("append-only inserts in Flink vs the rows in Vitess")
                .isEqualTo(appends.idsInVitess());
        assertThat(insertsPerKey.values())
                .as("append-only inserts arrive exactly once")
                .allMatch(n -> n == 1);

        List<Change> order = ChangelogRecorder.published(orderLog());
        assertThat(versionViolations(order))
                .as("per key, versions never decrease and deletes are final")
                .isEmpty();
        int acrossReshards = assertEpochRankRestoresTrueOrder(order);
        assertThat(acrossReshards).as("keys whose changes span a reshard").isPositive();

        Map<Long, Map<String, Set<Integer>>> owners = ShardOwners.owners(runId);
        System.out.println(
                "VitessClusterScenariosITCase split assignment (epoch -> shard -> reader subtasks): " + owners);
        assertBalanced(owners, 0, 2);
        assertBalanced(owners, 1, 4);
        assertBalanced(owners, 2, 2);
        assertBalanced(owners, 3, 4);
        assertBalanced(owners, 4, 2);
        System.out.printf(
                "VitessClusterScenariosITCase: %d writer ops (%d failed during faults), %d appends (%d failed), "
                        + "%d order records, %d keys across a reshard%n",
                rows.ops(), rows.failures(), appends.ops(), appends.failures(), order.size(), acrossReshards);
    }

    /** Each shard of the epoch's layout read by one reader; the readers hold equally many. */
    private static void assertBalanced(Map<Long, Map<String, Set<Integer>>> owners, long epoch, int shards) {
        Map<String, Set<Integer>> layout = owners.getOrDefault(epoch, Map.of());
        assertThat(layout).as("shards of epoch %d", epoch).hasSize(shards);
        Map<Integer, Integer> perReader = new TreeMap<>();
        layout.forEach((shard, readers) -> {
            assertThat(readers)
                    .as("readers of shard %s in epoch %d", shard, epoch)
                    .hasSize(1);
            perReader.merge(readers.iterator().next(), 1, Integer::sum);
        });
        assertThat(perReader.values())
                .as("shards per reader in epoch %d: %s", epoch, layout)
                .containsOnly(shards / 2);
    }

    /** id -> ver of the live rows of the strict changelog (rows are "column=value" strings). */
    private static Map<String, String> materializedVersions(StrictChangelog log) {
        Map<String, String> out = new TreeMap<>();
        log.liveRows().forEach((key, row) -> out.put(String.valueOf(key.get(0)), column(row, "ver")));
        return out;
    }

    private static String column(List<Object> row, String name) {
        for (Object v : row) {
            String s = String.valueOf(v);
            if (s.startsWith(name + "=")) {
                return s.substring(name.length() + 1);
            }
        }
        throw new IllegalStateException("no column " + name + " in " + row);
    }

    /** Records that bring a key's version down, or follow its delete. */
    private static List<String> versionViolations(List<Change> order) {
        Map<Object, OrderEntry> last = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (Change c : order) {
            OrderEntry e = OrderEntry.of(c);
            OrderEntry before = last.put(e.id, e);
            if (before != null && (e.ver < before.ver || before.op.equals("d"))) {
                out.add(before + " then " + e);
            }
        }
        return out;
    }

    /**
     * Per key, its streamed changes in arrival order (which {@link #versionViolations} found in
     * version order, i.e. commit order) are what sorting a shuffled copy by {@code (epoch, rank)}
     * gives. Returns how many keys have changes in more than one epoch.
     */
    private int assertEpochRankRestoresTrueOrder(List<Change> order) {
        Map<Object, List<OrderEntry>> byKey = new HashMap<>();
        for (Change c : order) {
            OrderEntry e = OrderEntry.of(c);
            if (!e.snapshot) {
                byKey.computeIfAbsent(e.id, k -> new ArrayList<>()).add(e);
            }
        }
        Random shuffle = new Random(seed);
        int across = 0;
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<Object, List<OrderEntry>> k : byKey.entrySet()) {
            List<OrderEntry> sorted = new ArrayList<>(k.getValue());
            Collections.shuffle(sorted, shuffle);
            sorted.sort(Comparator.comparingLong((OrderEntry e) -> e.epoch).thenComparingLong(e -> e.rank));
            if (!sorted.equals(k.getValue())) {
                wrong.add(k.getKey() + ": true " + k.getValue() + ", by (epoch, rank) " + sorted);
            }
            if (k.getValue().stream().map(e -> e.epoch).distinct().count() > 1) {
                across++;
            }
        }
        assertThat(wrong)
                .as("keys whose (epoch, rank) order is not their true order")
                .isEmpty();
        return across;
    }

    // --- steps and waits ----------------------------------------------------------------------

    /**
     * The capture signal's id: short, so that the copies relayed to the other shards ({@code
     * <id>@<shard>}) fit the signal table's {@code id} column.
     */
    private String signalId() {
        return "scn-capture-" + rows.run();
    }

    /** {@code vtctldclient UpdateThrottlerConfig ARGS customer}. */
    private static void throttler(String... args) throws Exception {
        List<String> all = new ArrayList<>();
        all.add("UpdateThrottlerConfig");
        all.addAll(List.of(args));
        all.add("customer");
        MultiProcessCluster.script(TestTimeouts.PROGRESS, "ctl.sh", all.toArray(new String[0]));
    }

    /** The rows of flink_snap (every run's): what a capture of the whole table reads. */
    private long tableRows() throws SQLException {
        return Long.parseLong(sql.query("customer", "SELECT COUNT(*) AS n FROM " + VersionedRowsWriter.TABLE, "n")
                .keySet()
                .iterator()
                .next());
    }

    private void fault(String what, String script, String... args) throws Exception {
        long t = System.nanoTime();
        System.out.println("VitessClusterScenariosITCase: " + what + " ...");
        MultiProcessCluster.script(TestTimeouts.RESHARD_SCRIPT, script, args);
        timed(what, t);
    }

    private void timed(String what, long startNanos) {
        String line = String.format("| %s | %.1f s |", what, (System.nanoTime() - startNanos) / 1e9);
        System.out.println("VitessClusterScenariosITCase: " + line);
        timings.add(line);
    }

    private void waitUntil(Duration timeout, BooleanSupplier condition, String what) throws Exception {
        VitessITBase.waitUntil(
                timeout,
                condition,
                () -> what + " (writer ops " + rows.ops() + ", snapshot reads " + snapshotReads() + ", owners "
                        + ShardOwners.owners(runId) + ")");
    }

    private long snapshotReads() {
        return ChangelogRecorder.published(orderLog()).stream()
                .filter(c -> OrderEntry.of(c).snapshot)
                .count();
    }

    /** The copy is over when no snapshot read was added for a few checkpoints. */
    private long awaitCopyDone() throws Exception {
        long t = System.nanoTime();
        long[] last = {-1};
        long[] stableSince = {System.nanoTime()};
        waitUntil(
                TestTimeouts.CONVERGE,
                () -> {
                    long n = snapshotReads();
                    if (n != last[0]) {
                        last[0] = n;
                        stableSince[0] = System.nanoTime();
                    }
                    // (the writer deletes and moves a few percent of the rows while they are copied)
                    return n > SNAPSHOT_ROWS * 0.9
                            && System.nanoTime() - stableSince[0] > TestTimeouts.COPY_STOPPED_GROWING.toNanos();
                },
                "the end of the copy");
        timed("copy done (" + last[0] + " snapshot reads of flink_snap)", t);
        return last[0];
    }

    /** Records from every shard of the epoch's layout, through a checkpoint. */
    private void awaitStreamedFromEveryShardOf(long epoch, int shards) throws Exception {
        waitUntil(
                TestTimeouts.RESHARD,
                () -> ShardOwners.owners(runId).getOrDefault(epoch, Map.of()).size() >= shards,
                shards + " shards streaming in epoch " + epoch);
    }

    private void awaitEqualToVitess() throws Exception {
        long deadline = System.nanoTime() + TestTimeouts.CONVERGE.toNanos();
        while (true) {
            StrictChangelog snap = ChangelogRecorder.awaitCheckpointed(snapLog(), TestTimeouts.CHECKPOINT);
            Map<String, String> expected = rows.rowsInVitess();
            if (materializedVersions(snap).equals(expected) || System.nanoTime() > deadline) {
                return;
            }
            Thread.sleep(500);
        }
    }

    private String snapLog() {
        return runId + "-flink_snap";
    }

    private String appendLog() {
        return runId + "-append";
    }

    private String orderLog() {
        return runId + "-order";
    }

    private List<String> logs() {
        return List.of(snapLog(), appendLog(), orderLog());
    }

    // --- job parts ----------------------------------------------------------------------------

    /** One flink_snap record of the run: op, key, version, order metadata. */
    private record OrderEntry(String op, Object id, long ver, long epoch, long rank, boolean snapshot) {
        static OrderEntry of(Change c) {
            List<Object> r = c.row();
            return new OrderEntry(
                    (String) r.get(0), r.get(1), (Long) r.get(2), (Long) r.get(3), (Long) r.get(4), (Boolean) r.get(5));
        }
    }

    /**
     * Every flink_snap record of the run as an insert of a key of its own ({@code id, ver, op}),
     * so the strict changelog also finds a record delivered twice; the row is {@code [op, id, ver,
     * epoch, rank, snapshot]}.
     */
    private static final class OrderEntries implements ChangelogRecorder.Extractor<String> {
        private static final long serialVersionUID = 1L;
        private final long run;

        OrderEntries(long run) {
            this.run = run;
        }

        @Override
        public List<Change> changes(String element) throws Exception {
            JsonNode e = DebeziumJson.parse(element);
            JsonNode source = e.path("source");
            if (!VersionedRowsWriter.TABLE.equals(source.path("table").asText())) {
                return List.of();
            }
            String op = e.path("op").asText();
            JsonNode image = op.equals("d") ? e.path("before") : e.path("after");
            if (image.path("run").asLong() != run) {
                return List.of();
            }
            String id = image.path("id").asText();
            long ver = image.path("ver").asLong();
            List<Object> row = List.of(
                    op,
                    id,
                    ver,
                    source.path("epoch").asLong(),
                    source.path("rank").asLong(),
                    source.path("snapshot").asBoolean());
            return List.of(new Change(
                    RowKind.INSERT,
                    List.of(id, ver, op),
                    row,
                    source.path("shard").asText()));
        }
    }

    /**
     * Which reader subtask emitted records of which shard, per epoch (JVM-wide, by run): the split
     * assignment as the records show it. Chained to the source (parallelism 2).
     */
    private static final class ShardOwners extends RichMapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        static final Map<String, Map<Long, Map<String, Set<Integer>>>> OWNERS = new ConcurrentHashMap<>();
        static final Map<String, Map<Long, Long>> RECORDS = new ConcurrentHashMap<>();
        /** Snapshot records the subtasks emitted (by run; replays after a restore included). */
        static final Map<String, AtomicLong> SNAPSHOT = new ConcurrentHashMap<>();
        /** The same by order epoch (epoch 1: the shards of the first split). */
        static final Map<String, Map<Long, Long>> SNAPSHOT_BY_EPOCH = new ConcurrentHashMap<>();

        private final String runId;
        private final long run;

        ShardOwners(String runId, long run) {
            this.runId = runId;
            this.run = run;
        }

        static Map<Long, Map<String, Set<Integer>>> owners(String runId) {
            Map<Long, Map<String, Set<Integer>>> copy = new TreeMap<>();
            OWNERS.getOrDefault(runId, Map.of()).forEach((epoch, shards) -> {
                Map<String, Set<Integer>> s = new TreeMap<>();
                shards.forEach((shard, readers) -> s.put(shard, new TreeSet<>(readers)));
                copy.put(epoch, s);
            });
            return copy;
        }

        static long snapshotRecords(String runId) {
            AtomicLong n = SNAPSHOT.get(runId);
            return n == null ? 0 : n.get();
        }

        static long snapshotRecordsOfEpoch(String runId, long epoch) {
            return SNAPSHOT_BY_EPOCH.getOrDefault(runId, Map.of()).getOrDefault(epoch, 0L);
        }

        static long recordsOfEpoch(String runId, long epoch) {
            return RECORDS.getOrDefault(runId, Map.of()).getOrDefault(epoch, 0L);
        }

        @Override
        public String map(String value) throws Exception {
            JsonNode source = DebeziumJson.parse(value).path("source");
            long epoch = source.path("epoch").asLong();
            int reader = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            OWNERS.computeIfAbsent(runId, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(epoch, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(source.path("shard").asText(), k -> ConcurrentHashMap.newKeySet())
                    .add(reader);
            RECORDS.computeIfAbsent(runId, k -> new ConcurrentHashMap<>()).merge(epoch, 1L, Long::sum);
            if (source.path("snapshot").asBoolean()) {
                SNAPSHOT.computeIfAbsent(runId, k -> new AtomicLong()).incrementAndGet();
                SNAPSHOT_BY_EPOCH
                        .computeIfAbsent(runId, k -> new ConcurrentHashMap<>())
                        .merge(epoch, 1L, Long::sum);
            }
            return value;
        }
    }

    /** Append-only inserts into customer.customer, ids and emails of the run. */
    private static final class AppendOnlyWriter extends PacedWriter implements AutoCloseable {
        static final String TABLE = "customer";
        private final long run;
        private long nextId;

        AppendOnlyWriter(long run, SqlEndpoint endpoint) {
            super("customer", "append-only-writer", endpoint);
            this.run = run;
            this.nextId = (run % 1_000_000) * 10_000_000L;
        }

        static String emailPrefix(long run) {
            return "scn" + run + "-";
        }

        void insertRows(int n) throws SQLException {
            List<String> tuples = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                tuples.add(tuple(nextId++));
            }
            try (Connection c = endpoint.connect("customer")) {
                insertInBatches(c, insertPrefix(), tuples, 500);
            }
        }

        @Override
        protected void step(Connection c) throws SQLException {
            execute(c, insertPrefix() + tuple(nextId++));
        }

        Set<String> idsInVitess() throws SQLException {
            return new TreeSet<>(endpoint.query(
                            "customer",
                            "SELECT customer_id FROM customer WHERE email LIKE '" + emailPrefix(run) + "%'",
                            "customer_id")
                    .keySet());
        }

        @Override
        public void close() throws Exception {
            stop();
            endpoint.execute("customer", "DELETE FROM customer WHERE email LIKE '" + emailPrefix(run) + "%'");
        }

        private static String insertPrefix() {
            return "INSERT INTO customer (customer_id, email) VALUES ";
        }

        private String tuple(long id) {
            return "(" + id + ", '" + emailPrefix(run) + id + "')";
        }
    }

    /** The split ids (keyspace/shard) the reader's log lines name ({@code Split X …}, {@code split X ended}). */
    private static Set<String> splitIds(List<String> lines) {
        Set<String> ids = new TreeSet<>();
        for (String line : lines) {
            Matcher m = SPLIT_IN_LINE.matcher(line);
            if (m.find()) {
                ids.add(m.group(1));
            }
        }
        return ids;
    }

    private static final Pattern SPLIT_IN_LINE = Pattern.compile("[Ss]plit (\\S+) ");
}
