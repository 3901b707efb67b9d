/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.testutils.ChangelogRecorder;
import io.vitesscdc.source.testutils.CustomerRangeITBase;
import io.vitesscdc.source.testutils.CustomerWriter;
import io.vitesscdc.source.testutils.DebeziumJson;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exactly once across repeated task failures: real MiniCluster (parallelism 2, checkpoints every
 * 300 ms, fixed-delay restarts), real local Vitess, a concurrent writer inserting, updating and
 * deleting rows of this run's id range of customer.customer. A map function throws at several
 * random points (seeded record counts; {@code -Dfailover.seed=N} reproduces a run), each time
 * the job restores from the latest completed checkpoint.
 *
 * <p>Judged two ways: the materialized upsert view equals {@code SELECT *} of the range, and an
 * append-only count of the streamed inserts ({@code op = c}), kept in checkpointed operator state,
 * counts every id the writer inserted exactly once. The counts are read only as of completed
 * checkpoints (published from {@code notifyCheckpointComplete}), so a record replayed after a
 * restore although the restored state had counted it shows as 2, and a lost one as missing.
 * And the whole changelog, recorded the same way ({@link ChangelogRecorder}), must be a strict
 * changelog.
 */
@Timeout(value = TestTimeouts.IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessSourceFailoverITCase extends CustomerRangeITBase {

    private static final int FAILURES = 3;
    private static final long PROBE_BASE_OFFSET = CustomerWriter.RANGE - 1000;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4);

    VitessSourceFailoverITCase() {
        super("failover");
    }

    /** Before the base stops the writer (deleting the id range) and drops the run's state. */
    @AfterEach
    void forgetPlans() {
        Injector.PLANS.remove(runId);
        InsertCounter.PUBLISHED.remove(runId);
    }

    @Test
    void randomTaskFailuresRestoreFromTheLatestCheckpointExactlyOnce() throws Exception {
        long seed = Long.getLong("failover.seed", System.nanoTime());
        Random random = new Random(seed);
        long[] thresholds = new long[FAILURES];
        long at = 0;
        for (int i = 0; i < FAILURES; i++) {
            at += 60 + random.nextInt(240); // in-range streamed records between failures
            thresholds[i] = at;
        }
        System.out.printf(
                "VitessSourceFailoverITCase: seed %d (-Dfailover.seed=%d), failures after %s "
                        + "in-range streamed records%n",
                seed, seed, java.util.Arrays.toString(thresholds));
        Plan plan = new Plan(thresholds);
        Injector.PLANS.put(runId, plan);

        JobClient job = buildJob().executeAsync("vitess-failover-exactness");
        try {
            // 1. Streaming has begun on every shard: a probe insert of this range arrived as a change
            //    event from each shard (after that, every insert of the range streams as op=c).
            long probe = writer.base() + PROBE_BASE_OFFSET;
            long deadline = System.nanoTime() + TestTimeouts.CONVERGE.toNanos();
            while (plan.streamingShards.size() < 2) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no streamed probe from both shards, saw " + plan.streamingShards);
                }
                VitessCluster.execute(
                        "customer",
                        "INSERT INTO customer (customer_id, email, name, balance, visits)" + " VALUES (" + probe
                                + ", 'p" + probe + "@example.com', 'probe', 0.5, 0)");
                probe++;
                Thread.sleep(300);
            }
            long probeEnd = probe;

            // 2. Write concurrently; failures are armed once two checkpoints completed after the
            //    writer started (a restore never goes back before streaming began).
            long firstWriterId = writer.base();
            writer.start(100);
            plan.armAfterCheckpoint.set(plan.lastCompletedCheckpoint.get() + 2);
            waitUntil(
                    TestTimeouts.CONVERGE_AFTER_RESTORE,
                    () -> plan.failures.get() >= FAILURES,
                    "the injected failures",
                    plan);
            long opsAtLastFailure = writer.ops();
            waitUntil(
                    TestTimeouts.PROGRESS,
                    () -> writer.ops() >= opsAtLastFailure + 100,
                    "writes after the last failure",
                    plan);
            writer.stop();
            long writerIdsEnd = writer.nextId();

            // 3. Quiescence: the materialized view equals Vitess ...
            awaitEqualToVitess(TestTimeouts.CONVERGE);
            // ... and the counts as of a checkpoint taken after that are published by every subtask.
            long after = plan.lastCompletedCheckpoint.get() + 2;
            waitUntil(
                    TestTimeouts.CHECKPOINT,
                    () -> InsertCounter.published(runId).checkpointId >= after,
                    "a checkpoint after quiescence",
                    plan);

            Published counts = InsertCounter.published(runId);
            List<String> problems = new ArrayList<>();
            for (long id = firstWriterId; id < writerIdsEnd; id++) {
                Integer n = counts.counts.get(id);
                if (n == null || n != 1) {
                    problems.add(id + " counted " + (n == null ? 0 : n) + "x");
                }
            }
            counts.counts.forEach((id, n) -> {
                boolean writerId = id >= firstWriterId && id < writerIdsEnd;
                boolean probeId = id >= writer.base() + PROBE_BASE_OFFSET && id < probeEnd;
                if (!writerId && !(probeId && n == 1)) {
                    problems.add(id + " counted " + n + "x but not inserted by the writer");
                }
            });
            System.out.printf(
                    "VitessSourceFailoverITCase: seed %d, %d failures, %d writer inserts, "
                            + "%d ops, counts as of checkpoint %d%n",
                    seed, plan.failures.get(), writerIdsEnd - firstWriterId, writer.ops(), counts.checkpointId);
            assertThat(plan.failures.get()).as("injected failures").isEqualTo(FAILURES);
            assertThat(writerIdsEnd - firstWriterId)
                    .as("inserts made while streaming")
                    .isGreaterThan(100);
            assertThat(problems)
                    .as("append-only insert counts from checkpointed state (seed %d)", seed)
                    .isEmpty();
            ChangelogRecorder.awaitCheckpointed(runId, TestTimeouts.CHECKPOINT);
            ChangelogRecorder.assertStrict(runId);
        } finally {
            VitessITBase.cancel(job);
        }
    }

    /**
     * Source (p 2) → failure injector (p 2) → insert counter (p 1, operator state) → changelog
     * recorder (p 1, operator state) → upsert sink.
     */
    private StreamExecutionEnvironment buildJob() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(300);
        fixedDelayRestarts(env, FAILURES + 10);
        VitessSource<String> source = customerSource().build();
        DataStream<String> events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source")
                .map(new Injector(runId, writer.base()))
                .uid("failure-injector")
                .map(new InsertCounter(runId, writer.base()))
                .uid("insert-counter")
                .setParallelism(1);
        recordAndMaterialize(events, DebeziumJson.changes("customer_id"));
        return env;
    }

    private static void waitUntil(Duration timeout, BooleanSupplier condition, String what, Plan plan)
            throws Exception {
        VitessITBase.waitUntil(
                timeout,
                condition,
                () -> what + " (failures " + plan.failures.get()
                        + ", in-range records " + plan.seen.get() + ", last checkpoint "
                        + plan.lastCompletedCheckpoint.get()
                        + ")");
    }

    private static long idOf(String json) {
        Matcher m = CUSTOMER_ID.matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static final Pattern CUSTOMER_ID = Pattern.compile("\"customer_id\":(\\d+)");
    private static final Pattern SHARD = Pattern.compile("\"shard\":\"([^\"]+)\"");

    /** The failure plan of one run, shared by the test thread and the injector subtasks (same JVM). */
    private static final class Plan {
        final long[] thresholds;
        final AtomicLong seen = new AtomicLong();
        final AtomicInteger failures = new AtomicInteger();
        final AtomicLong lastCompletedCheckpoint = new AtomicLong();
        final AtomicLong armAfterCheckpoint = new AtomicLong(Long.MAX_VALUE);
        volatile long checkpointAtLastFailure;
        final Set<String> streamingShards = ConcurrentHashMap.newKeySet();

        Plan(long[] thresholds) {
            this.thresholds = thresholds;
        }
    }

    /**
     * Throws once per threshold: when the in-range streamed records seen (replays included) reach
     * it, failures are armed, and a checkpoint completed since the previous failure.
     */
    private static final class Injector implements MapFunction<String, String>, CheckpointListener {
        static final Map<String, Plan> PLANS = new ConcurrentHashMap<>();
        private final String runId;
        private final long base;

        Injector(String runId, long base) {
            this.runId = runId;
            this.base = base;
        }

        @Override
        public String map(String value) {
            Plan plan = PLANS.get(runId);
            if (plan == null || !value.contains("\"snapshot\":false")) {
                return value;
            }
            long id = idOf(value);
            if (id < base || id >= base + CustomerWriter.RANGE) {
                return value;
            }
            Matcher shard = SHARD.matcher(value);
            if (shard.find()) {
                plan.streamingShards.add(shard.group(1));
            }
            long seen = plan.seen.incrementAndGet();
            long checkpoint = plan.lastCompletedCheckpoint.get();
            if (checkpoint < plan.armAfterCheckpoint.get()) {
                plan.seen.set(0); // thresholds count from arming
                return value;
            }
            synchronized (plan) {
                int next = plan.failures.get();
                if (next < plan.thresholds.length
                        && seen >= plan.thresholds[next]
                        && checkpoint > plan.checkpointAtLastFailure) {
                    plan.failures.incrementAndGet();
                    plan.checkpointAtLastFailure = checkpoint;
                    System.out.printf(
                            "VitessSourceFailoverITCase: injected failure %d after %d in-range records "
                                    + "(last completed checkpoint %d)%n",
                            next + 1, seen, checkpoint);
                    throw new IllegalStateException("injected failure " + (next + 1) + " (test)");
                }
            }
            return value;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Plan plan = PLANS.get(runId);
            if (plan != null) {
                plan.lastCompletedCheckpoint.accumulateAndGet(checkpointId, Math::max);
            }
        }
    }

    /** Counts as of one completed checkpoint. */
    static final class Published {
        final long checkpointId;
        final Map<Long, Integer> counts;

        Published(long checkpointId, Map<Long, Integer> counts) {
            this.checkpointId = checkpointId;
            this.counts = counts;
        }
    }

    /**
     * Append-only count of streamed inserts ({@code op = c}) per id of the range, in checkpointed
     * operator state (parallelism 1). The full counts of each snapshot are published when Flink
     * confirms that checkpoint complete, so the test reads only checkpointed state.
     */
    private static final class InsertCounter
            implements MapFunction<String, String>, CheckpointedFunction, CheckpointListener {
        static final Map<String, Published> PUBLISHED = new ConcurrentHashMap<>();
        private final String runId;
        private final long base;
        private transient Map<Long, Integer> counts;
        private transient TreeMap<Long, Map<Long, Integer>> snapshots;
        private transient ListState<Tuple2<Long, Integer>> state;

        InsertCounter(String runId, long base) {
            this.runId = runId;
            this.base = base;
        }

        static Published published(String runId) {
            return PUBLISHED.getOrDefault(runId, new Published(-1, Map.of()));
        }

        @Override
        public String map(String value) {
            if (value.contains("\"op\":\"c\"") && value.contains("\"snapshot\":false")) {
                long id = idOf(value);
                if (id >= base && id < base + CustomerWriter.RANGE) {
                    counts.merge(id, 1, Integer::sum);
                }
            }
            return value;
        }

        @Override
        public void initializeState(FunctionInitializationContext context) throws Exception {
            state = context.getOperatorStateStore()
                    .getListState(new ListStateDescriptor<>("insert-counts", Types.TUPLE(Types.LONG, Types.INT)));
            counts = new HashMap<>();
            snapshots = new TreeMap<>();
            if (context.isRestored()) {
                for (Tuple2<Long, Integer> e : state.get()) {
                    counts.put(e.f0, e.f1);
                }
            }
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) throws Exception {
            List<Tuple2<Long, Integer>> all = new ArrayList<>(counts.size());
            counts.forEach((k, v) -> all.add(Tuple2.of(k, v)));
            state.update(all);
            snapshots.put(context.getCheckpointId(), new HashMap<>(counts));
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Map.Entry<Long, Map<Long, Integer>> confirmed = snapshots.floorEntry(checkpointId);
            if (confirmed != null) {
                PUBLISHED.merge(
                        runId,
                        new Published(confirmed.getKey(), Map.copyOf(confirmed.getValue())),
                        (old, fresh) -> fresh.checkpointId > old.checkpointId ? fresh : old);
                snapshots.headMap(confirmed.getKey(), true).clear();
            }
        }
    }
}
