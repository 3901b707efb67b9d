/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.types.RowKind;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pass-through map (parallelism 1) that feeds every record of a job into the {@link
 * StrictChangelog} of its name, JVM-wide (the MiniCluster runs in the test JVM), so one log spans
 * every job and restore of a test.
 *
 * <p>The log holds the records as of completed checkpoints. A plain recorder would see the records
 * after the last completed checkpoint twice after a failover (the source replays them; Flink's
 * exactly-once is about state, not side effects). So the records between two checkpoints are kept
 * in operator state, and each checkpoint's records enter the log once Flink confirms that
 * checkpoint ({@code notifyCheckpointComplete}) or, when that confirmation did not arrive before a
 * failure or stop, when a job restores from it. The records after the restored checkpoint are
 * dropped with the failed task and arrive again. This is right for failovers and for
 * stop-with-savepoint + restore alike; it needs checkpointing, and a test reads the log with
 * {@link #awaitCheckpointed} (a checkpoint taken after the call completes) while the job runs.
 */
public final class ChangelogRecorder<T> implements MapFunction<T, T>, CheckpointedFunction, CheckpointListener {

    private static final long serialVersionUID = 1L;
    private static final Map<String, Log> LOGS = new ConcurrentHashMap<>();

    /**
     * One record of the changelog, as {@link StrictChangelog#accept} takes it; {@code upsert}: a
     * chunked snapshot's row, the key's state whether or not it is present ({@link
     * StrictChangelog#acceptUpsert}).
     */
    public record Change(RowKind kind, List<Object> key, List<Object> row, String shard, boolean upsert)
            implements Serializable {
        public Change(RowKind kind, List<Object> key, List<Object> row, String shard) {
            this(kind, key, row, shard, false);
        }
    }

    /** The changes one stream element stands for (none, one, or a -U/+U pair). */
    @FunctionalInterface
    public interface Extractor<T> extends Serializable {
        List<Change> changes(T element) throws Exception;

        /** Only the changes the filter keeps, e.g. the keys of a test's id range. */
        default Extractor<T> where(ChangeFilter filter) {
            return element -> changes(element).stream().filter(filter).toList();
        }
    }

    /** A serializable filter of changes. */
    @FunctionalInterface
    public interface ChangeFilter extends Predicate<Change>, Serializable {}

    private final String name;
    private final Extractor<T> extractor;

    private transient List<Change> sinceLastSnapshot;
    /** Records by the checkpoint that ends them, not yet in the log. */
    private transient TreeMap<Long, List<Change>> unconfirmed;

    private transient ListState<Tuple2<Long, byte[]>> state;

    public ChangelogRecorder(String name, Extractor<T> extractor) {
        this.name = name;
        this.extractor = extractor;
    }

    /** Records {@code stream} into the log {@code name}: a pass-through map, parallelism 1, uid {@code uid}. */
    public static <T> DataStream<T> record(DataStream<T> stream, String name, String uid, Extractor<T> extractor) {
        return stream.map(new ChangelogRecorder<>(name, extractor))
                .returns(stream.getType())
                .name("strict-changelog")
                .uid(uid)
                .setParallelism(1);
    }

    /** The log as published so far. */
    public static StrictChangelog changelog(String name) {
        return log(name).changelog;
    }

    /**
     * Waits until every record the recorder received before this call is in the log (a checkpoint
     * started after the call completed), then returns the log.
     */
    public static StrictChangelog awaitCheckpointed(String name, Duration timeout) throws InterruptedException {
        Log log = log(name);
        long after;
        synchronized (log) {
            after = log.snapshotted;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            synchronized (log) {
                if (log.published > after) {
                    return log.changelog;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("changelog '" + name + "': no checkpoint after " + after
                            + " completed within " + timeout + " (published up to " + log.published + ")");
                }
            }
            Thread.sleep(50);
        }
    }

    /**
     * The test's verdict on the whole changelog as published (read it with {@link
     * #awaitCheckpointed} while the job runs): not empty, and a strict changelog.
     */
    public static void assertStrict(String name) {
        StrictChangelog log = changelog(name);
        System.out.printf(
                "changelog '%s': %d records, %d violations%n",
                name, log.records(), log.violations().size());
        assertThat(log.records()).as("records in changelog '%s'", name).isPositive();
        log.assertValid();
    }

    /** Every record of the log as published so far, in the order the recorder received them. */
    public static List<Change> published(String name) {
        Log log = log(name);
        synchronized (log) {
            return new ArrayList<>(log.records);
        }
    }

    public static void drop(String name) {
        LOGS.remove(name);
    }

    private static Log log(String name) {
        return LOGS.computeIfAbsent(name, Log::new);
    }

    @Override
    public T map(T element) throws Exception {
        sinceLastSnapshot.addAll(extractor.changes(element));
        return element;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state = context.getOperatorStateStore()
                .getListState(new ListStateDescriptor<>(
                        "strict-changelog", Types.TUPLE(Types.LONG, Types.PRIMITIVE_ARRAY(Types.BYTE))));
        sinceLastSnapshot = new ArrayList<>();
        unconfirmed = new TreeMap<>();
        if (context.isRestored()) {
            // The restored checkpoint completed: its records are confirmed, whether or not its
            // notification arrived before the failure or stop.
            long restored = context.getRestoredCheckpointId().orElseThrow();
            TreeMap<Long, List<Change>> confirmed = new TreeMap<>();
            for (Tuple2<Long, byte[]> e : state.get()) {
                confirmed.put(e.f0, decode(e.f1));
            }
            Log log = log(name);
            synchronized (log) {
                if (restored < log.published) {
                    // Its later records are in the log already and would be replayed into it.
                    throw new IllegalStateException("changelog '" + name + "' holds records up to checkpoint "
                            + log.published + "; cannot restore the older checkpoint " + restored);
                }
                publish(log, confirmed);
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        unconfirmed.put(context.getCheckpointId(), sinceLastSnapshot);
        sinceLastSnapshot = new ArrayList<>();
        List<Tuple2<Long, byte[]>> all = new ArrayList<>(unconfirmed.size());
        for (Map.Entry<Long, List<Change>> e : unconfirmed.entrySet()) {
            all.add(Tuple2.of(e.getKey(), encode(e.getValue())));
        }
        state.update(all);
        Log log = log(name);
        synchronized (log) {
            log.snapshotted = Math.max(log.snapshotted, context.getCheckpointId());
        }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        // A completed checkpoint also confirms the records of earlier, aborted ones (its state has them).
        Map<Long, List<Change>> confirmed = unconfirmed.headMap(checkpointId, true);
        Log log = log(name);
        synchronized (log) {
            publish(log, confirmed);
        }
        confirmed.clear();
    }

    /** Appends the confirmed records not yet in the log, in checkpoint order. */
    private static void publish(Log log, Map<Long, List<Change>> confirmed) {
        for (Map.Entry<Long, List<Change>> e : confirmed.entrySet()) {
            if (e.getKey() > log.published) {
                for (Change c : e.getValue()) {
                    if (c.upsert()) {
                        log.changelog.acceptUpsert(c.key(), c.row(), c.shard());
                    } else {
                        log.changelog.accept(c.kind(), c.key(), c.row(), c.shard());
                    }
                }
                log.records.addAll(e.getValue());
                log.published = e.getKey();
            }
        }
    }

    private static byte[] encode(List<Change> changes) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(new ArrayList<>(changes));
        }
        return bytes.toByteArray();
    }

    @SuppressWarnings("unchecked")
    private static List<Change> decode(byte[] bytes) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            return (List<Change>) in.readObject();
        }
    }

    /** The published log of one name, shared by the recorder subtask and the test thread. */
    private static final class Log {
        final StrictChangelog changelog;
        /** The records in the log, in order. */
        final List<Change> records = new ArrayList<>();
        /** The last checkpoint whose records are in the log. */
        long published = -1;
        /** The last checkpoint the recorder took a snapshot for. */
        long snapshotted = -1;

        Log(String name) {
            changelog = new StrictChangelog(name);
        }
    }
}
