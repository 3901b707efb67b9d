/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.soak;

import io.vitesscdc.source.enumerator.VitessSourceEnumerator;
import io.vitesscdc.source.testutils.LogWatch;
import io.vitesscdc.source.testutils.MultiProcessCluster;
import io.vitesscdc.source.testutils.RecordedChangelog;
import io.vitesscdc.source.testutils.SqlEndpoint;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessITBase;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seeded chaos soak (issue #32; docs/reliability.md, "Chaos soak"): on the multi-process local
 * Vitess, a writer ({@link SoakRowsWriter}, {@link SoakAppendsWriter}) and a Flink SQL job ({@link
 * SoakJob}) run for {@code soak.minutes} while the faults of a {@link FaultPlan} drawn from {@code
 * soak.seed} strike at their planned moments, overlapping where their groups allow ({@link
 * Fault.Group}). {@link SoakChecker} checks the invariants on every committed record as it comes;
 * a violation stops the run. At the end the writers stop, the layout goes back to two shards, and
 * Flink must equal Vitess.
 *
 * <p>Not an ITCase: the test command runs it through {@code scripts/soak.sh} (a short soak with a
 * fresh seed each run), which prints the seed; {@code scripts/soak.sh --seed N --minutes M}
 * replays a plan or runs a long soak. On a violation the evidence (plan, faults as they ran,
 * violations, the records of the keys involved) is kept in {@code target/soak/seed-N/}.
 */
class VitessChaosSoak {

    private static final String TWO = "-80,80-";
    private static final String FOUR = "-40,40-80,80-c0,c0-";
    /** The job's sources: soak_rows twice (retract, upsert with signals) and soak_appends. */
    private static final int SOURCES = 3;

    private static final java.util.regex.Pattern SOURCE = java.util.regex.Pattern.compile("Source: (\\w+)\\[");
    /** A fault's writes must reach the sinks within this (else the job did not recover). */
    private static final Duration RECOVERY_LIMIT = TestTimeouts.scaled(Duration.ofMinutes(5));

    private final long seed = Long.getLong("soak.seed", System.currentTimeMillis());
    private final double minutes = Double.parseDouble(System.getProperty("soak.minutes", "4"));
    private final double meanGapSeconds = Double.parseDouble(System.getProperty("soak.mean-gap-seconds", "20"));
    private final int initialRows = Integer.getInteger("soak.initial-rows", 30_000);
    private final int bigTransactionRows = Integer.getInteger("soak.big-transaction-rows", 100_000);

    private final SqlEndpoint sql = MultiProcessCluster.sql();
    private final long run = System.currentTimeMillis() / 100;
    private final String rowsRecording = "soak-rows-" + run;
    private final String upsertRowsRecording = "soak-rows-upsert-" + run;
    private final String appendsRecording = "soak-appends-" + run;
    private final Map<Fault.Group, ReentrantLock> groupLocks = new EnumMap<>(Fault.Group.class);
    private final List<String> addedColumns = new ArrayList<>();
    private final AtomicReference<String> stopReason = new AtomicReference<>();
    private final SoakReport report = new SoakReport();
    private volatile String layout;

    @TempDir
    Path dir;

    @Test
    void soak() throws Exception {
        FaultPlan plan = FaultPlan.draw(seed, minutes * 60, meanGapSeconds);
        System.out.printf(
                "soak: seed %d, %.1f minutes, run %d (replay: scripts/soak.sh --seed %d --minutes %s)%n%s",
                seed, minutes, run, seed, minutes, plan.describe());
        for (Fault.Group g : Fault.Group.values()) {
            groupLocks.put(g, new ReentrantLock());
        }
        // A failed run (a soak, the cluster scenarios) may have left a reshard half done.
        MultiProcessCluster.restoreTwoCustomerShards();
        layout = currentLayout();
        assertThat(layout).as("customer's shards at the start").isEqualTo(TWO);
        SoakRowsWriter rows = new SoakRowsWriter(run, seed, sql);
        SoakAppendsWriter appends = new SoakAppendsWriter(run, sql);
        SoakChecker checker = new SoakChecker(
                RecordedChangelog.get(rowsRecording),
                RecordedChangelog.get(upsertRowsRecording),
                RecordedChangelog.get(appendsRecording));
        ExecutorService faults = Executors.newCachedThreadPool();
        try (SoakJob job = new SoakJob(
                MultiProcessCluster.grpcAddress(), run, rowsRecording, upsertRowsRecording, appendsRecording, dir)) {
            rows.insertRows(initialRows);
            appends.run(500);
            job.submit(null);
            rows.tolerateFailures();
            appends.tolerateFailures();
            rows.start(40);
            appends.start(10);

            report.begin();
            long t0 = System.nanoTime();
            int next = 0;
            long lastSample = 0;
            while (stopReason.get() == null && report.elapsedSeconds() < minutes * 60) {
                double now = (System.nanoTime() - t0) / 1e9;
                while (next < plan.faults().size() && plan.faults().get(next).atSeconds() <= now) {
                    FaultPlan.Planned p = plan.faults().get(next++);
                    faults.submit(() -> inject(p, job, rows, checker));
                }
                lastSample = check(checker, lastSample);
                Thread.sleep(1000);
            }
            System.out.println(
                    "soak: the planned time is over" + (stopReason.get() == null ? "" : " early: " + stopReason.get())
                            + "; waiting for the faults still running");
            faults.shutdown();
            // The checks go on while the last faults run: their recoveries wait for the records
            // the checks take in (a soak that stopped checking here saw every late fault "stall").
            long faultsDeadline = System.nanoTime() + TestTimeouts.RESHARD_SCRIPT.toNanos() * 2;
            while (!faults.awaitTermination(1, TimeUnit.SECONDS)) {
                lastSample = check(checker, lastSample);
                assertThat(System.nanoTime() - faultsDeadline)
                        .as("the faults still running end")
                        .isNegative();
            }
            if (stopReason.get() == null && !layout.equals(TWO)) {
                // The merge back runs under the writer like any reshard; if it cannot be done, the
                // run still ends with its report and evidence.
                try {
                    reshard();
                } catch (Exception e) {
                    stopReason.compareAndSet(
                            null,
                            "the reshard back to two shards at the end failed: "
                                    + String.valueOf(e.getMessage())
                                            .lines()
                                            .findFirst()
                                            .orElse(""));
                }
            }
            rows.stop();
            appends.stop();
            List<String> violations = stopReason.get() == null
                    ? awaitFinalVerdict(rows, appends, checker)
                    : checker.finalViolations(rows.rowsInVitess(), appends.idsInVitess());
            String totals = String.format(
                    "records checked: %d (%d from copies and captures); writer: %d transactions (%d failed during"
                            + " faults), %d appends (%d failed); job submissions: %d (1 + restores), final parallelism %d",
                    checker.recordsChecked(),
                    checker.snapshotRecords(),
                    rows.ops(),
                    rows.failures(),
                    appends.ops(),
                    appends.failures(),
                    job.submissions(),
                    job.parallelism());
            String rendered = report.render(seed, minutes, totals);
            System.out.println(rendered);
            Path out = Path.of("target", "soak");
            Files.createDirectories(out);
            Files.writeString(out.resolve("report-seed-" + seed + ".md"), rendered);
            if (stopReason.get() != null || !violations.isEmpty()) {
                keepEvidence(plan, violations, checker);
            }
            assertThat(stopReason.get())
                    .as("the soak ran to its end (replay: scripts/soak.sh --seed %d)", seed)
                    .isNull();
            assertThat(violations)
                    .as("invariants at the end (replay: scripts/soak.sh --seed %d)", seed)
                    .isEmpty();
            assertThat(checker.recordsChecked()).as("records checked").isGreaterThan(initialRows);
        } finally {
            faults.shutdownNow();
            cleanUp(rows, appends);
        }
    }

    /**
     * Takes in the records committed since the last check (a violation stops the run) and samples
     * the JVM every 5 s; returns when it last sampled.
     */
    private long check(SoakChecker checker, long lastSample) {
        List<String> v = checker.poll();
        if (!v.isEmpty()) {
            stopReason.compareAndSet(null, "invariant violated: " + v.get(0));
        }
        if (System.nanoTime() - lastSample > TimeUnit.SECONDS.toNanos(5)) {
            report.sample();
            return System.nanoTime();
        }
        return lastSample;
    }

    // --- faults -------------------------------------------------------------------------------

    private void inject(FaultPlan.Planned p, SoakJob job, SoakRowsWriter rows, SoakChecker checker) {
        ReentrantLock lock = groupLocks.get(p.kind().group);
        if (p.kind().group != Fault.Group.FREE) {
            lock.lock();
        }
        double start = report.elapsedSeconds();
        String outcome;
        try {
            if (stopReason.get() != null) {
                return;
            }
            outcome = "ok: " + apply(p, job, rows);
        } catch (Throwable t) {
            // A fault the cluster refused (a script that failed) is the environment's, not the
            // connector's: it is reported, and the run goes on; the invariants judge the job.
            List<String> lines = String.valueOf(t.getMessage()).lines().toList();
            outcome = "failed to inject: " + lines.get(0)
                    + (lines.size() > 1
                            ? " … " + String.join(" | ", lines.subList(Math.max(1, lines.size() - 3), lines.size()))
                            : "");
            if (p.kind().group == Fault.Group.JOB) {
                // A cluster fault the scripts could not inject leaves the cluster as it was; a job
                // fault that failed leaves no job running: nothing after it would be judged.
                stopReason.compareAndSet(null, p + " left no job running: " + lines.get(0));
            }
        } finally {
            if (p.kind().group != Fault.Group.FREE) {
                lock.unlock();
            }
        }
        double end = report.elapsedSeconds();
        double recovery = -1;
        long deadline = System.nanoTime() + RECOVERY_LIMIT.toNanos();
        try {
            long target = maxVersionInVitess();
            while (checker.maxVersion() < target && stopReason.get() == null) {
                if (System.nanoTime() > deadline) {
                    stopReason.compareAndSet(
                            null,
                            "the job did not deliver version " + target + " (written before " + p + " ended) within "
                                    + RECOVERY_LIMIT + ": it did not recover; " + checker.describe());
                    threadDump("stalled-after-" + p.index());
                    break;
                }
                Thread.sleep(200);
            }
            recovery = target < 0 ? -1 : report.elapsedSeconds() - end;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        report.ran(new SoakReport.Ran(p, start, end - start, recovery, outcome));
    }

    private String apply(FaultPlan.Planned p, SoakJob job, SoakRowsWriter rows) throws Exception {
        String[] shards = layout.split(",");
        String shard = "customer/" + shards[p.pick() % shards.length];
        switch (p.kind()) {
            case VTGATE_KILL:
                script(TestTimeouts.CLUSTER_SCRIPT, "fault.sh", "restart-vtgate", String.valueOf(1 + p.pick() % 4));
                return "VTGate down " + (1 + p.pick() % 4) + " s";
            case PLANNED_REPARENT:
                script(TestTimeouts.CLUSTER_SCRIPT, "fault.sh", "prs", shard);
                return shard;
            case EMERGENCY_REPARENT:
                script(TestTimeouts.RESHARD_SCRIPT, "fault.sh", "ers", shard);
                return shard;
            case REPLICA_RESTART:
                script(TestTimeouts.RESHARD_SCRIPT, "fault.sh", "restart-replica", shard);
                return shard;
            case TABLET_FREEZE:
                script(TestTimeouts.CLUSTER_SCRIPT, "fault.sh", "freeze", shard, String.valueOf(2 + p.pick() % 7));
                return shard + " frozen " + (2 + p.pick() % 7) + " s";
            case TASKMANAGER_LOSS:
                job.loseTaskManager(1000 + p.pick() % 3000);
                return "a TaskManager lost, a new one after " + (1000 + p.pick() % 3000) + " ms";
            case JOB_CRASH:
                return "restored from " + job.crashAndRestore();
            case SAVEPOINT_RESCALE:
                return "restored from " + job.savepointAndRescale();
            case RESHARD:
                return reshard();
            case SIGNAL_RESNAPSHOT:
                return signal(p, shards);
            case ADD_COLUMN:
                String column = "soak_c" + p.index();
                sql.execute(
                        "customer",
                        "ALTER TABLE " + SoakRowsWriter.TABLE + " ADD COLUMN " + column + " INT NOT NULL DEFAULT 0");
                addedColumns.add(column);
                return column;
            case BIG_TRANSACTION:
                rows.bigTransaction(bigTransactionRows);
                return bigTransactionRows + " rows in one transaction";
            default:
                throw new IllegalStateException("no fault " + p.kind());
        }
    }

    /**
     * A reshard 2 → 4 or a merge 4 → 2 as a careful operator runs it: prepare, create, switch
     * traffic (the old shards journal), then — once every source of the job passed the journal
     * and a checkpoint followed — complete (the old shards deleted). Completing earlier breaks any
     * CDC job restored from before the journal (the core then stops the job naming the cause).
     */
    private String reshard() throws Exception {
        String from = layout;
        String to = from.equals(TWO) ? FOUR : TWO;
        try {
            script(TestTimeouts.RESHARD_SCRIPT, "reshard.sh", "prepare", "customer", to);
            script(TestTimeouts.RESHARD_SCRIPT, "reshard.sh", "create", "customer", from, to);
        } catch (Exception e) {
            // A copy that did not finish (or new shards that did not start) is undone, as an
            // operator would, so that the next reshard of the run can be tried: the fault is
            // reported as not injected.
            script(TestTimeouts.RESHARD_SCRIPT, "reshard.sh", "cancel", "customer", to);
            throw e;
        }
        // Each source's enumerator logs this line once its old splits all ended.
        String passed = "Every participant [" + from.replace(",", ", ") + "] of reshard journal";
        try (LogWatch journal = LogWatch.of(VitessSourceEnumerator.class, passed)) {
            script(TestTimeouts.RESHARD_SCRIPT, "reshard.sh", "switch", "customer");
            layout = to;
            VitessITBase.waitUntil(
                    TestTimeouts.RESHARD,
                    () -> sourcesOf(journal.threadNames()).size() >= SOURCES,
                    () -> "every source passing the reshard journal (passed: " + sourcesOf(journal.threadNames())
                            + ")");
        }
        for (String recording : List.of(rowsRecording, upsertRowsRecording, appendsRecording)) {
            RecordedChangelog.get(recording).awaitCommitted(TestTimeouts.CONVERGE_AFTER_RESTORE);
        }
        script(TestTimeouts.RESHARD_SCRIPT, "reshard.sh", "complete", "customer", from);
        return from + " -> " + to;
    }

    /** The sources named by their enumerators' threads ({@code SourceCoordinator-Source: src_rows[9]}). */
    private static Set<String> sourcesOf(Set<String> threads) {
        Set<String> out = new TreeSet<>();
        for (String t : threads) {
            java.util.regex.Matcher m = SOURCE.matcher(t);
            out.add(m.find() ? m.group(1) : t);
        }
        return out;
    }

    private static void script(Duration timeout, String script, String... args) throws Exception {
        MultiProcessCluster.script(timeout, script, args);
    }

    /**
     * The highest version Vitess holds now: what the job must deliver to have recovered. Not the
     * writer's own count: an emergency reparent may lose writes the old primary acknowledged
     * (durability none). -1 when Vitess does not answer for 30 s (no recovery is measured then).
     */
    private long maxVersionInVitess() throws InterruptedException {
        for (int attempt = 0; attempt < 30; attempt++) {
            try {
                return Long.parseLong(sql.query(
                                "customer",
                                "SELECT COALESCE(MAX(ver), 0) AS v FROM " + SoakRowsWriter.TABLE + " WHERE run = "
                                        + run,
                                "v")
                        .keySet()
                        .iterator()
                        .next());
            } catch (Exception e) {
                Thread.sleep(1000);
            }
        }
        return -1;
    }

    /**
     * An execute-snapshot signal (half of them for a key range): half written once through VTGate
     * (the stream of the shard it lands on relays it to the others, under whatever fault runs),
     * half written to every shard as its own row.
     */
    private String signal(FaultPlan.Planned p, String[] shards) throws SQLException {
        String id = "soak-" + run + "-" + p.index();
        String data = p.pick() % 2 == 0
                ? "{\"data-collections\": [\"" + SoakRowsWriter.TABLE + "\"]}"
                : "{\"data-collections\": [\"" + SoakRowsWriter.TABLE + "\"], \"additional-conditions\": "
                        + "[{\"data-collection\": \"" + SoakRowsWriter.TABLE + "\", \"filter\": \"run = " + run
                        + "\"}]}";
        boolean once = (p.pick() / 2) % 2 == 0;
        try (Connection c = sql.connect("customer");
                Statement s = c.createStatement()) {
            if (once) {
                s.execute("INSERT INTO soak_signal (id, type, data) VALUES ('" + id + "', 'execute-snapshot', '" + data
                        + "')");
            } else {
                for (String shard : shards) {
                    s.execute("USE `customer:" + shard + "`");
                    // Each shard's own row id (the rows meet when shards merge).
                    s.execute("INSERT INTO soak_signal (id, type, data) VALUES ('" + id + "@" + shard
                            + "', 'execute-snapshot', '" + data + "')");
                }
            }
        }
        return "signal " + id + (once ? " written once, relayed" : " on " + shards.length + " shards")
                + (p.pick() % 2 == 0 ? "" : " (run's rows)");
    }

    // --- the end ------------------------------------------------------------------------------

    /** Waits until Flink equals Vitess (or the bound passes), then returns the final verdict. */
    private List<String> awaitFinalVerdict(SoakRowsWriter rows, SoakAppendsWriter appends, SoakChecker checker)
            throws Exception {
        Map<String, String> inVitess = rows.rowsInVitess();
        Set<String> appendIds = appends.idsInVitess();
        long deadline = System.nanoTime() + TestTimeouts.CONVERGE_AFTER_RESTORE.toNanos();
        List<String> v = checker.finalViolations(inVitess, appendIds);
        while (!v.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(1000);
            v = checker.finalViolations(inVitess, appendIds);
        }
        return v;
    }

    private String currentLayout() throws SQLException {
        List<String> shards = new ArrayList<>();
        try (Connection c = sql.connect("customer");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW VITESS_SHARDS")) {
            while (rs.next()) {
                String ks = rs.getString(1);
                if (ks.startsWith("customer/")) {
                    shards.add(ks.substring("customer/".length()));
                }
            }
        }
        shards.sort((a, b) -> a.startsWith("-") ? -1 : b.startsWith("-") ? 1 : a.compareTo(b));
        return String.join(",", shards);
    }

    /** Every thread's stack (the MiniCluster's tasks, the native stream's pollers) into the evidence. */
    private void threadDump(String name) {
        try {
            Path out = Path.of("target", "soak", "seed-" + seed);
            Files.createDirectories(out);
            StringBuilder sb = new StringBuilder();
            for (java.lang.management.ThreadInfo t :
                    java.lang.management.ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                sb.append('"').append(t.getThreadName()).append("\" ").append(t.getThreadState());
                if (t.getLockName() != null) {
                    sb.append(" on ").append(t.getLockName());
                }
                sb.append('\n');
                for (StackTraceElement e : t.getStackTrace()) {
                    sb.append("    at ").append(e).append('\n');
                }
                sb.append('\n');
            }
            Files.writeString(out.resolve(name + "-threads.txt"), sb.toString());
        } catch (Exception e) {
            System.out.println("soak: no thread dump: " + e);
        }
    }

    private void keepEvidence(FaultPlan plan, List<String> violations, SoakChecker checker) throws Exception {
        Path out = Path.of("target", "soak", "seed-" + seed);
        Files.createDirectories(out);
        Files.writeString(out.resolve("plan.txt"), plan.describe());
        StringBuilder ran = new StringBuilder();
        report.faults().forEach(r -> ran.append(r).append('\n'));
        Files.writeString(out.resolve("faults-as-they-ran.txt"), ran.toString());
        List<String> all = new ArrayList<>();
        if (stopReason.get() != null) {
            all.add("stopped: " + stopReason.get());
        }
        all.addAll(violations);
        Files.write(out.resolve("violations.txt"), all);
        Set<String> ids = new TreeSet<>();
        for (String v : all) {
            java.util.regex.Matcher m =
                    java.util.regex.Pattern.compile("id (\\d+)").matcher(v);
            while (m.find()) {
                ids.add(m.group(1));
            }
        }
        Files.write(out.resolve("records-of-the-keys.txt"), checker.recordsOf(ids));
        System.out.println("soak: evidence kept in " + out.toAbsolutePath() + "; replay: scripts/soak.sh --seed " + seed
                + " --minutes " + minutes);
    }

    private void cleanUp(SoakRowsWriter rows, SoakAppendsWriter appends) {
        for (AutoCloseable c : List.<AutoCloseable>of(rows, appends)) {
            try {
                c.close();
            } catch (Exception e) {
                System.out.println("soak: clean-up: " + e);
            }
        }
        try {
            for (String column : addedColumns) {
                sql.execute("customer", "ALTER TABLE " + SoakRowsWriter.TABLE + " DROP COLUMN " + column);
            }
            sql.execute("customer", "DELETE FROM soak_signal WHERE id LIKE 'soak-" + run + "-%'");
        } catch (SQLException e) {
            System.out.println("soak: clean-up: " + e);
        }
        RecordedChangelog.drop(rowsRecording);
        RecordedChangelog.drop(upsertRowsRecording);
        RecordedChangelog.drop(appendsRecording);
    }
}
