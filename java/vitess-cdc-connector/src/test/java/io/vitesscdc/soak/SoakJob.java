/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.soak;

import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The soak's Flink job and the cluster it runs on: a MiniCluster of two TaskManagers with two slots
 * each, and one SQL job (a statement set) that reads {@code soak_rows} twice (retract; and upsert,
 * with the signal table) and {@code soak_appends} through {@code vitess-cdc} into three {@code
 * recorded-changelog} sinks, committed per checkpoint (every 3 s, retained on cancellation). The job faults: a lost
 * TaskManager, a crash restored from the latest retained checkpoint, a stop with a savepoint
 * restored at the other parallelism (2 ↔ 3).
 */
final class SoakJob implements AutoCloseable {

    private final String grpcAddress;
    private final long run;
    private final String rowsRecording;
    private final String upsertRowsRecording;
    private final String appendsRecording;
    private final Path checkpoints;
    private final Path savepoints;
    private final MiniCluster cluster;

    private JobClient job;
    private int parallelism = 2;
    /** The checkpoint or savepoint the running job was restored from (null: a fresh start). */
    private String restoredFrom;

    private int submissions;

    SoakJob(
            String grpcAddress,
            long run,
            String rowsRecording,
            String upsertRowsRecording,
            String appendsRecording,
            Path dir)
            throws Exception {
        this.grpcAddress = grpcAddress;
        this.run = run;
        this.rowsRecording = rowsRecording;
        this.upsertRowsRecording = upsertRowsRecording;
        this.appendsRecording = appendsRecording;
        this.checkpoints = Files.createDirectories(dir.resolve("checkpoints"));
        this.savepoints = Files.createDirectories(dir.resolve("savepoints"));
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64m"));
        this.cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(2)
                .setNumSlotsPerTaskManager(2)
                .build());
        cluster.start();
        TestStreamEnvironment.setAsContext(cluster, parallelism);
    }

    int parallelism() {
        return parallelism;
    }

    int submissions() {
        return submissions;
    }

    /**
     * Submits the job, fresh or restored from {@code restoreFrom} (a checkpoint or savepoint), as a
     * deployment that resubmits does: planning reads the tables' key orders from VTGate, so while
     * VTGate is down (an overlapping fault) it is refused, and tried again every 2 s for up to
     * {@link TestTimeouts#CONVERGE}.
     */
    synchronized void submit(String restoreFrom) throws InterruptedException {
        long deadline = System.nanoTime() + TestTimeouts.CONVERGE.toNanos();
        while (true) {
            try {
                submitOnce(restoreFrom);
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                System.out.println("soak: job submission refused, trying again in 2 s: "
                        + e.getMessage().lines().findFirst().orElse(""));
                Thread.sleep(2000);
            }
        }
    }

    private void submitOnce(String restoreFrom) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("parallelism.default", String.valueOf(parallelism));
        tEnv.getConfig().set("execution.checkpointing.interval", "3 s");
        tEnv.getConfig().set("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        tEnv.getConfig().set("execution.checkpointing.dir", checkpoints.toUri().toString());
        tEnv.getConfig().set("state.checkpoints.dir", checkpoints.toUri().toString());
        // A failover (a lost TaskManager, a failed checkpoint) restarts the job; every restart is
        // in the TaskManagers' logs, and a job that stops progressing fails the soak's recovery bound.
        tEnv.getConfig().set("restart-strategy.type", "fixed-delay");
        tEnv.getConfig().set("restart-strategy.fixed-delay.attempts", "1000");
        tEnv.getConfig().set("restart-strategy.fixed-delay.delay", "1 s");
        if (restoreFrom != null) {
            tEnv.getConfig().set("execution.savepoint.path", restoreFrom);
        }
        String label = "soak-" + (++submissions);
        String rowColumns = "id BIGINT, run BIGINT, ver BIGINT, pad STRING";
        tEnv.executeSql(source("src_rows", rowColumns, SoakRowsWriter.TABLE, ", 'changelog-mode' = 'all'"));
        tEnv.executeSql(source(
                "src_rows_signalled", rowColumns, SoakRowsWriter.TABLE, ", 'scan.signal-table' = 'soak_signal'"));
        tEnv.executeSql(source("src_appends", "id BIGINT, run BIGINT, note STRING", SoakAppendsWriter.TABLE, ""));
        tEnv.executeSql(sink("sink_rows", rowColumns, rowsRecording, label));
        tEnv.executeSql(sink("sink_rows_upsert", rowColumns, upsertRowsRecording, label));
        tEnv.executeSql(sink("sink_appends", "id BIGINT, run BIGINT, note STRING", appendsRecording, label));
        StatementSet set = tEnv.createStatementSet();
        set.addInsertSql("INSERT INTO sink_rows SELECT id, run, ver, pad, shard, pos, snap, epoch, `rank` FROM src_rows"
                + " WHERE run = " + run);
        // Upsert: Flink's ChangelogNormalize makes the retractions from its state, with the metadata
        // of the row they retract; this recording names one shard for all (SoakChecker).
        set.addInsertSql("INSERT INTO sink_rows_upsert SELECT id, run, ver, pad, 'all', CAST(NULL AS STRING), snap,"
                + " CAST(-1 AS BIGINT), CAST(-1 AS BIGINT) FROM src_rows_signalled WHERE run = " + run);
        set.addInsertSql("INSERT INTO sink_appends SELECT id, run, note, shard, pos, snap, epoch, `rank` FROM"
                + " src_appends WHERE run = " + run);
        job = set.execute().getJobClient().orElseThrow();
        restoredFrom = restoreFrom;
    }

    private String source(String name, String columns, String table, String extra) {
        return "CREATE TABLE " + name + " (" + columns + ", shard STRING METADATA VIRTUAL, pos STRING METADATA FROM"
                + " 'position' VIRTUAL, snap BOOLEAN METADATA FROM 'is_snapshot' VIRTUAL, epoch BIGINT METADATA VIRTUAL,"
                + " `rank` BIGINT METADATA VIRTUAL, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'vitess-cdc',"
                + " 'vtgate.address' = '" + grpcAddress + "', 'keyspace' = 'customer', 'table-name' = '" + table + "',"
                // REPLICA: the cluster runs without semi-sync (durability none), so an emergency
                // reparent may lose what the dead primary committed but never sent on; a job
                // reading the primary could have streamed such a transaction, which Vitess then
                // no longer holds. Its replica, which the reparent promotes, has all it read.
                + " 'tablet-type' = 'replica'"
                + extra + ")";
    }

    private static String sink(String name, String columns, String recording, String label) {
        return "CREATE TABLE " + name + " (" + columns + ", shard STRING, pos STRING, snap BOOLEAN, epoch BIGINT,"
                + " `rank` BIGINT) WITH ('connector' = 'recorded-changelog', 'recording-id' = '" + recording
                + "', 'key-columns' = 'id', 'job-label' = '" + label + "')";
    }

    /** A TaskManager ends abruptly (its tasks fail); a new one joins after {@code downMillis}. */
    void loseTaskManager(long downMillis) throws Exception {
        cluster.terminateTaskManager(0).get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
        Thread.sleep(downMillis);
        cluster.startTaskManager();
    }

    /**
     * The job dies without a savepoint, then is submitted again from its latest retained checkpoint
     * (or, when it completed none since its start, from what it was started from): what a job
     * whose JVM was killed comes back to.
     */
    synchronized String crashAndRestore() throws Exception {
        JobClient dead = job;
        dead.cancel().get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
        awaitTerminal(dead);
        String from = latestCheckpoint(dead).orElse(restoredFrom);
        submit(from);
        return from == null ? "a fresh start (no checkpoint yet)" : from;
    }

    /** Stop with a savepoint; restore at the other parallelism. */
    synchronized String savepointAndRescale() throws Exception {
        String savepoint = VitessITBase.stopWithSavepoint(job, savepoints);
        parallelism = parallelism == 2 ? 3 : 2;
        submit(savepoint);
        return savepoint + " at parallelism " + parallelism;
    }

    private static void awaitTerminal(JobClient job) throws Exception {
        long deadline = System.nanoTime() + TestTimeouts.CLUSTER_CALL.toNanos();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("job " + job.getJobID() + " did not end after its cancellation");
            }
            Thread.sleep(100);
        }
    }

    /** The newest {@code chk-N} of the job that has its {@code _metadata} (a completed checkpoint). */
    private Optional<String> latestCheckpoint(JobClient of) throws IOException {
        Path dir = checkpoints.resolve(of.getJobID().toString());
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        try (Stream<Path> chks = Files.list(dir)) {
            return chks.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.exists(p.resolve("_metadata")))
                    .max(Comparator.comparingLong(
                            p -> Long.parseLong(p.getFileName().toString().substring(4))))
                    .map(Path::toString);
        }
    }

    @Override
    public synchronized void close() throws Exception {
        try {
            if (job != null && !job.getJobStatus().get().isGloballyTerminalState()) {
                job.cancel().get(TestTimeouts.CLUSTER_CALL.toMillis(), TimeUnit.MILLISECONDS);
            }
        } finally {
            TestStreamEnvironment.unsetAsContext();
            cluster.close();
        }
    }
}
