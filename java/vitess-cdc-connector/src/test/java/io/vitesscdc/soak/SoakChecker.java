/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.soak;

import io.vitesscdc.source.testutils.RecordedChangelog;
import io.vitesscdc.source.testutils.RecordedChangelog.Entry;

import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The soak's invariants, on the records the sinks committed (the job's consistent history):
 * checked as they arrive ({@link #poll}, every second) and at the end ({@link #finalViolations}).
 * {@code soak_rows} is read twice: as a retract changelog (its records keep their shard and order
 * metadata) and, with the signal table, as an upsert changelog (Flink's {@code ChangelogNormalize}
 * then makes the retractions from its state, so they carry the metadata of the row they retract:
 * that recording names no shard).
 *
 * <ul>
 *   <li>both recordings of {@code soak_rows} are strict changelogs ({@link
 *       io.vitesscdc.source.testutils.StrictChangelog});
 *   <li>per key, versions never go down, and nothing follows a key's delete (keys are never
 *       reused);
 *   <li>{@code soak_appends} holds inserts only, each id once;
 *   <li>each key's streamed records of the retract recording arrive in the order of their {@code
 *       (epoch, rank)} (each one's greater than the one before), so that sorting by it restores
 *       the order (reported at the end);
 *   <li>at the end: what both recordings materialized equals Vitess; every append in Vitess
 *       arrived exactly once.
 * </ul>
 *
 * Each record is read once and then released from its recording (but the last few, kept as
 * evidence): an hour's changelog would not fit the heap; what the checks keep is per key.
 * </ul>
 */
final class SoakChecker {

    private static final int ID = 0;
    private static final int VER = 2;
    /** Committed records each recording keeps after they were checked (the evidence of a violation). */
    private static final int EVIDENCE_KEPT = 200_000;
    /** A key's streamed records, in the order (epoch, rank) gives them. */
    private static final Comparator<Entry> ORDER =
            Comparator.comparingLong((Entry e) -> e.epoch).thenComparingLong(e -> e.rank);

    private final RowsRecording retract;
    private final RowsRecording upsert;
    private final RecordedChangelog appends;
    private final List<String> violations = new ArrayList<>();
    private final Map<String, Integer> appendsPerId = new TreeMap<>();
    private int appendsSeen;

    SoakChecker(RecordedChangelog retract, RecordedChangelog upsert, RecordedChangelog appends) {
        this.retract = new RowsRecording("soak_rows (retract)", retract, true);
        this.upsert = new RowsRecording("soak_rows (upsert, signals)", upsert, false);
        this.appends = appends;
    }

    /** Checks the records committed since the last call; returns the violations so far. */
    synchronized List<String> poll() {
        retract.poll();
        upsert.poll();
        List<Entry> freshAppends = appends.committedFrom(appendsSeen);
        appends.release(appendsSeen + freshAppends.size(), EVIDENCE_KEPT);
        for (Entry e : freshAppends) {
            appendsSeen++;
            String id = (String) e.key.get(0);
            if (e.kind != RowKind.INSERT) {
                violation("soak_appends: " + e.kind + " of id " + id + " (append-only: inserts only): " + e);
            } else if (appendsPerId.merge(id, 1, Integer::sum) > 1) {
                violation("soak_appends: id " + id + " inserted " + appendsPerId.get(id) + " times: " + e);
            }
        }
        return List.copyOf(violations);
    }

    private void violation(String v) {
        if (violations.size() < 200 && !violations.contains(v)) {
            violations.add(v);
        }
    }

    /** The highest version both recordings delivered (what a fault's recovery waits for). */
    synchronized long maxVersion() {
        return Math.min(retract.maxVersion, upsert.maxVersion);
    }

    /** Where each recording stands (for a message when the job stops delivering). */
    synchronized String describe() {
        return retract.name + ": " + retract.seen + " records, up to version " + retract.maxVersion + " ("
                + retract.recording.progress() + "); " + upsert.name + ": " + upsert.seen + " records, up to version "
                + upsert.maxVersion + "; soak_appends: " + appendsSeen + " records";
    }

    synchronized int recordsChecked() {
        return retract.seen + upsert.seen + appendsSeen;
    }

    synchronized long snapshotRecords() {
        return retract.snapshotRecords + upsert.snapshotRecords;
    }

    /**
     * The end's checks, after the writes stopped and the job caught up: the continuous ones once
     * more, then (epoch, rank) order, the materialized rows against {@code inVitess} (id → ver),
     * the appends against {@code appendIdsInVitess}, and no retraction left waiting.
     */
    synchronized List<String> finalViolations(Map<String, String> inVitess, Set<String> appendIdsInVitess) {
        poll();
        List<String> out = new ArrayList<>(violations);
        retract.finalChecks(inVitess, out);
        upsert.finalChecks(inVitess, out);
        Set<String> arrived = new TreeSet<>(appendsPerId.keySet());
        if (!arrived.equals(appendIdsInVitess)) {
            Set<String> missing = new TreeSet<>(appendIdsInVitess);
            missing.removeAll(arrived);
            Set<String> extra = new TreeSet<>(arrived);
            extra.removeAll(appendIdsInVitess);
            out.add("soak_appends: " + missing.size() + " ids in Vitess never arrived (first: " + first(missing) + "), "
                    + extra.size() + " arrived that Vitess lacks (first: " + first(extra) + ")");
        }
        return out;
    }

    /** The records of these keys in both recordings, as committed (the evidence a violation keeps). */
    synchronized List<String> recordsOf(Set<String> ids) {
        List<String> out = new ArrayList<>();
        for (RowsRecording r : List.of(retract, upsert)) {
            out.add(r.name + ":");
            for (Entry e : r.recording.committedFrom(0)) {
                if (ids.contains((String) e.key.get(0))) {
                    out.add("  " + e);
                }
            }
        }
        return out;
    }

    /** One recording of soak_rows and what its checks keep. */
    private final class RowsRecording {
        final String name;
        final RecordedChangelog recording;
        /** Whether its records carry their own shard and order metadata (the retract reading). */
        final boolean ordered;
        /** Per key: the last version seen and whether the key was deleted. */
        final Map<String, long[]> lastVersion = new HashMap<>();
        /** Per key: its last streamed record (for the (epoch, rank) order). */
        final Map<String, Entry> lastStreamed = new HashMap<>();

        int seen;
        long maxVersion;
        long snapshotRecords;

        RowsRecording(String name, RecordedChangelog recording, boolean ordered) {
            this.name = name;
            this.recording = recording;
            this.ordered = ordered;
        }

        void poll() {
            List<Entry> fresh = recording.committedFrom(seen);
            seen += fresh.size();
            recording.release(seen, EVIDENCE_KEPT);
            for (Entry e : fresh) {
                checkVersion(e);
            }
            for (String v : recording.changelog().violations()) {
                violation(name + ": strict changelog: " + v);
            }
        }

        private void checkVersion(Entry e) {
            if (e.snapshot) {
                snapshotRecords++;
            }
            if (e.kind == RowKind.UPDATE_BEFORE) {
                return;
            }
            String id = (String) e.key.get(0);
            long ver = Long.parseLong((String) e.row.get(VER));
            long[] last = lastVersion.get(id);
            if (last != null && last[1] == 1) {
                violation(name + ": id " + id + " came back after its delete: " + e);
            } else if (last != null && ver < last[0]) {
                violation(name + ": id " + id + " went back from version " + last[0] + " to " + ver + ": " + e);
            }
            lastVersion.put(id, new long[] {ver, e.kind == RowKind.DELETE ? 1 : 0});
            if (e.kind != RowKind.DELETE) {
                maxVersion = Math.max(maxVersion, ver);
            }
            if (ordered && !e.snapshot) {
                Entry before = lastStreamed.put(id, e);
                if (before != null && ORDER.compare(before, e) >= 0) {
                    violation(name + ": (epoch, rank) does not restore the order of id " + id + ": " + e
                            + " arrived after " + before);
                }
            }
        }

        void finalChecks(Map<String, String> inVitess, List<String> out) {
            Map<String, String> materialized = new TreeMap<>();
            recording
                    .changelog()
                    .liveRows()
                    .forEach((key, row) -> materialized.put(String.valueOf(key.get(ID)), String.valueOf(row.get(VER))));
            if (!materialized.equals(inVitess)) {
                out.add(name + ": Flink's " + materialized.size() + " rows differ from Vitess's " + inVitess.size()
                        + ": " + difference(materialized, inVitess));
            }
            try {
                recording.changelog().assertValid();
            } catch (AssertionError e) {
                out.add(name + ": strict changelog at the end: " + e.getMessage());
            }
        }
    }

    private static String difference(Map<String, String> flink, Map<String, String> vitess) {
        List<String> out = new ArrayList<>();
        Set<String> keys = new TreeSet<>(flink.keySet());
        keys.addAll(vitess.keySet());
        for (String k : keys) {
            String f = flink.get(k);
            String v = vitess.get(k);
            if (f == null ? v != null : !f.equals(v)) {
                out.add(k + ": flink " + f + ", vitess " + v);
                if (out.size() == 20) {
                    break;
                }
            }
        }
        return String.join("; ", out);
    }

    private static String first(Set<String> s) {
        return s.stream().limit(5).toList().toString();
    }
}
