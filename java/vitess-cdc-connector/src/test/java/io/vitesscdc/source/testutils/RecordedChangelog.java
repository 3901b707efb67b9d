/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.types.RowKind;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JVM-wide record of one source table's raw changelog, by id, as a test sink committed it: only
 * records of completed checkpoints arrive here (the sink commits per checkpoint, exactly once), so
 * the record is the changelog of the job's consistent history, the same across a failure and a
 * restore from a checkpoint or savepoint (records emitted after the last checkpoint are dropped
 * with the failed job and emitted again by the restored one). Every record goes into a {@link
 * StrictChangelog}; per shard it counts copy-phase and streamed records and whether the shard's
 * copy phase completed. It also carries the sink's failure switch ({@link #failNextRecord}).
 */
public final class RecordedChangelog {

    private static final Map<String, RecordedChangelog> REGISTRY = new ConcurrentHashMap<>();

    private final String id;
    private final StrictChangelog changelog;
    private final Set<String> committedBatches = new HashSet<>();
    private final Map<String, ShardProgress> shards = new TreeMap<>();
    private final Map<String, Long> snapshotRecordsBy = new TreeMap<>();
    private final AtomicBoolean failNext = new AtomicBoolean();
    /** The sink's open writers: when the checkpoint of the latest batch committed of each reached it. */
    private final Map<String, Long> openWriters = new HashMap<>();
    /**
     * The committed records in commit order from index {@link #released} on (for checks that read
     * them as they come); a long run releases what it has checked ({@link #release}).
     */
    private final List<Entry> committed = new ArrayList<>();

    /** Committed records dropped from the front of {@link #committed}. */
    private int released;

    private RecordedChangelog(String id) {
        this.id = id;
        this.changelog = new StrictChangelog(id);
    }

    public static RecordedChangelog get(String id) {
        return REGISTRY.computeIfAbsent(id, RecordedChangelog::new);
    }

    public static void drop(String id) {
        REGISTRY.remove(id);
    }

    /** One record as the source emitted it. */
    public static final class Entry {
        public final RowKind kind;
        public final List<Object> key;
        public final List<Object> row;
        public final String shard;
        /** The record came from the copy phase ({@code is_snapshot}). */
        public final boolean snapshot;
        /** The position before the record's transaction says the shard's copy is complete. */
        public final boolean afterCopy;
        /** The record's {@code epoch} and {@code rank} metadata, or -1 when the sink has no such column. */
        public final long epoch;

        public final long rank;

        public Entry(
                RowKind kind, List<Object> key, List<Object> row, String shard, boolean snapshot, boolean afterCopy) {
            this(kind, key, row, shard, snapshot, afterCopy, -1, -1);
        }

        public Entry(
                RowKind kind,
                List<Object> key,
                List<Object> row,
                String shard,
                boolean snapshot,
                boolean afterCopy,
                long epoch,
                long rank) {
            this.kind = kind;
            this.key = key;
            this.row = row;
            this.shard = shard;
            this.snapshot = snapshot;
            this.afterCopy = afterCopy;
            this.epoch = epoch;
            this.rank = rank;
        }

        @Override
        public String toString() {
            return kind.shortString() + key + row + "@" + shard + (snapshot ? " (copy)" : "") + " epoch " + epoch
                    + " rank " + rank;
        }
    }

    /**
     * Applies one committed batch, once: a batch recommitted after a restore (Flink retries commits
     * it cannot prove done) is ignored.
     */
    public synchronized void commit(
            String batchId, String writerId, String writtenBy, long preparedAtNanos, List<Entry> entries) {
        if (!committedBatches.add(batchId)) {
            return;
        }
        openWriters.computeIfPresent(writerId, (w, latest) -> Math.max(latest, preparedAtNanos));
        for (Entry e : entries) {
            if (e.snapshot) {
                snapshotRecordsBy.merge(writtenBy, 1L, Long::sum);
            }
            changelog.accept(e.kind, e.key, e.row, e.shard);
            ShardProgress p = shards.computeIfAbsent(e.shard, s -> new ShardProgress());
            if (e.snapshot) {
                p.snapshotRecords++;
            } else {
                p.streamedRecords++;
            }
            p.copyCompleted |= e.afterCopy;
        }
        committed.addAll(entries);
    }

    /**
     * The committed records from index {@code from} on, in commit order (a copy); {@code from}
     * below what was released starts at the first record kept.
     */
    public synchronized List<Entry> committedFrom(int from) {
        int start = Math.min(Math.max(0, from - released), committed.size());
        return new ArrayList<>(committed.subList(start, committed.size()));
    }

    /**
     * Drops the committed records before index {@code upTo} but the last {@code keep} of them: a
     * check that runs for an hour reads each record once, and the whole changelog would not fit
     * the heap. The changelog's verdict ({@link #changelog()}) is unaffected.
     */
    public synchronized void release(int upTo, int keep) {
        int drop = Math.min(upTo - keep, released + committed.size()) - released;
        if (drop > 0) {
            committed.subList(0, drop).clear();
            released += drop;
        }
    }

    public StrictChangelog changelog() {
        return changelog;
    }

    /** For the sink: a writer opened (it commits a batch, maybe empty, at every checkpoint). */
    public synchronized void opened(String writerId) {
        openWriters.put(writerId, Long.MIN_VALUE);
    }

    /** For the sink: a writer closed. */
    public synchronized void closed(String writerId) {
        openWriters.remove(writerId);
    }

    /**
     * Waits until every record the sink received before this call is committed (every open
     * writer committed a checkpoint that reached it after the call), then returns the changelog.
     */
    public StrictChangelog awaitCommitted(Duration timeout) throws InterruptedException {
        long after = System.nanoTime();
        long deadline = after + timeout.toNanos();
        while (true) {
            synchronized (this) {
                if (!openWriters.isEmpty() && openWriters.values().stream().allMatch(t -> t > after)) {
                    return changelog;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("recorded changelog '" + id + "': no checkpoint after the "
                            + "call was committed by every writer within " + timeout + " (" + openWriters.size()
                            + " open writers)");
                }
            }
            Thread.sleep(50);
        }
    }

    /** The test's verdict on the whole changelog as committed (read it after {@link #awaitCommitted}). */
    public void assertStrict() {
        System.out.printf(
                "recorded changelog '%s': %d records, %d violations%n",
                id, changelog.records(), changelog.violations().size());
        assertThat(changelog.records()).as("records in changelog '%s'", id).isPositive();
        changelog.assertValid();
    }

    /** Copy-phase records committed so far, all shards. */
    public synchronized long snapshotRecords() {
        long n = 0;
        for (ShardProgress p : shards.values()) {
            n += p.snapshotRecords;
        }
        return n;
    }

    /**
     * Copy-phase records committed by the writers of one job run ({@code <job label>/attempt <n>}):
     * shows which run copied what, e.g. that a restored job continued the copy.
     */
    public synchronized long snapshotRecordsBy(String writtenBy) {
        return snapshotRecordsBy.getOrDefault(writtenBy, 0L);
    }

    /** Shards whose copy phase is complete in the committed records. */
    public synchronized Set<String> copiedShards() {
        Set<String> out = new HashSet<>();
        shards.forEach((s, p) -> {
            if (p.copyCompleted) {
                out.add(s);
            }
        });
        return out;
    }

    /** Per shard: copy-phase and streamed records, copy complete or not (for messages). */
    public synchronized String progress() {
        List<String> out = new ArrayList<>();
        shards.forEach((s, p) -> out.add(s + ": " + p.snapshotRecords + " copied, " + p.streamedRecords + " streamed"
                + (p.copyCompleted ? ", copy complete" : ", copying")));
        return String.join("; ", out) + "; copied by " + snapshotRecordsBy;
    }

    /** The sink's next record (on any subtask) fails its task, once. */
    public void failNextRecord() {
        failNext.set(true);
    }

    /** For the sink: true once per {@link #failNextRecord}. */
    public boolean takeFailure() {
        return failNext.compareAndSet(true, false);
    }

    private static final class ShardProgress {
        long snapshotRecords;
        long streamedRecords;
        boolean copyCompleted;
    }
}
