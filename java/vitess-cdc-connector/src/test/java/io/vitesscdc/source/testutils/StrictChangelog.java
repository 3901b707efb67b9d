/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.types.RowKind;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Checks that a changelog is a valid retract stream (docs/architecture.md, invariant 9, "a strict changelog"):
 * per primary key, globally across shards,
 *
 * <ul>
 *   <li>{@code -U} and {@code -D} retract exactly a live version of their key (equal in every
 *       column);
 *   <li>{@code +I} is for a key with no live version, except a cross-shard primary-key move in
 *       flight: Vitess runs an UPDATE of the sharding key as a DELETE on the old shard and an
 *       INSERT on the new one, and Flink reads shards in parallel, so the new shard's {@code +I}
 *       may arrive before the old shard's {@code -D}. A {@code +I} is therefore allowed when every
 *       live version of its key came from a different (known) shard;
 *   <li>a {@code -U} is followed by its {@code +U} (same key, same shard) before any other record
 *       of that key from that shard, and a {@code +U} follows such a {@code -U}. Records of the
 *       same key from <em>other</em> shards may come in between: shards are read in parallel and
 *       Flink interleaves their records arbitrarily (a cross-shard move next to an update);
 *   <li>at the end ({@link #assertValid()}), every key has at most one live version and no
 *       {@code -U} waits for its {@code +U}.
 * </ul>
 *
 * <p>A retraction may come from another shard than the version it retracts (after a reshard,
 * rows emitted by {@code -80} are retracted by {@code -40}); it prefers a version of its own shard
 * when several are equal.
 *
 * <p>Values are compared with {@code equals}. A {@code byte[]} value (at any depth of the key or
 * row lists, not inside other containers) is copied into a {@link Bytes}, which compares by
 * content and prints as hex; {@link #liveRows()} returns rows with those {@link Bytes}. Pass
 * values of one Java type per column (e.g. {@code Long}, {@code BigDecimal}, {@code String}):
 * {@code 1L} and {@code 1} are different values.
 */
public final class StrictChangelog {

    private static final int MAX_VIOLATIONS = 100;
    private static final int HISTORY = 6;

    private final String name;
    private final Map<List<Object>, List<Version>> live = new HashMap<>();
    /** Per key: the {@code -U}s still waiting for their {@code +U}, by shard (null = unknown). */
    private final Map<List<Object>, Map<String, List<Object>>> awaitingAfter = new HashMap<>();
    /** Per key: its last few records, printed with a violation. */
    private final Map<List<Object>, Deque<String>> history = new HashMap<>();

    private final List<String> violations = new ArrayList<>();
    private long violationCount;
    private long records;

    public StrictChangelog(String name) {
        this.name = name;
    }

    /**
     * One record. key = primary-key values, row = all column values of the record (both compared
     * with equals; {@code byte[]} values are compared by content, see the class comment), shard =
     * the source shard the record came from (e.g. "-80"; may be null when unknown).
     */
    public synchronized void accept(RowKind kind, List<Object> key, List<Object> row, String shard) {
        Objects.requireNonNull(kind, "kind");
        List<Object> k = normalize(key);
        List<Object> r = normalize(row);
        records++;
        String record = "#" + records + " " + kind.shortString() + " " + r + " from " + shardName(shard);
        Deque<String> seen = history.computeIfAbsent(k, x -> new ArrayDeque<>());

        Map<String, List<Object>> waiting = awaitingAfter.get(k);
        boolean completesUpdate = false;
        if (waiting != null) {
            for (Iterator<Map.Entry<String, List<Object>>> it =
                            waiting.entrySet().iterator();
                    it.hasNext(); ) {
                Map.Entry<String, List<Object>> w = it.next();
                if (kind == RowKind.UPDATE_AFTER && Objects.equals(w.getKey(), shard)) {
                    completesUpdate = true;
                    it.remove();
                } else if (w.getKey() == null || shard == null || w.getKey().equals(shard)) {
                    violation(
                            k,
                            record,
                            "follows a -U of its key from " + shardName(w.getKey()) + " before that -U's +U (-U row "
                                    + w.getValue() + ")");
                    it.remove();
                }
            }
            if (waiting.isEmpty()) {
                awaitingAfter.remove(k);
            }
        }

        List<Version> versions = live.computeIfAbsent(k, x -> new ArrayList<>());
        switch (kind) {
            case INSERT:
                for (Version v : versions) {
                    if (v.shard == null || shard == null || v.shard.equals(shard)) {
                        violation(k, record, "inserts a key that is present: live " + versions);
                        break;
                    }
                }
                versions.add(new Version(r, shard));
                break;
            case UPDATE_AFTER:
                if (!completesUpdate) {
                    violation(k, record, "+U without a -U of its key from its shard just before it; live " + versions);
                }
                versions.add(new Version(r, shard));
                break;
            case UPDATE_BEFORE:
            case DELETE:
                if (!retract(versions, r, shard)) {
                    violation(
                            k,
                            record,
                            "retracts a row that was not emitted: key " + k + ", retracted " + r + ", live "
                                    + versions);
                }
                if (kind == RowKind.UPDATE_BEFORE) {
                    awaitingAfter.computeIfAbsent(k, x -> new LinkedHashMap<>()).put(shard, r);
                }
                break;
            default:
                throw new IllegalArgumentException("unknown row kind " + kind);
        }
        if (versions.isEmpty()) {
            live.remove(k);
        }
        seen.addLast(record);
        if (seen.size() > HISTORY) {
            seen.removeFirst();
        }
    }

    /**
     * A chunked snapshot's row: the key's state at its chunk's snapshot, to apply as an upsert. It
     * replaces whatever is live for the key (from any shard); it must not come between a {@code -U}
     * and its {@code +U}. (Its version must not be older than the live one: the callers' version
     * checks say that.)
     */
    public synchronized void acceptUpsert(List<Object> key, List<Object> row, String shard) {
        List<Object> k = normalize(key);
        List<Object> r = normalize(row);
        records++;
        String record = "#" + records + " upsert " + r + " from " + shardName(shard);
        Map<String, List<Object>> waiting = awaitingAfter.remove(k);
        if (waiting != null) {
            violation(k, record, "comes between a -U of its key and that -U's +U (-U rows " + waiting + ")");
        }
        List<Version> versions = live.computeIfAbsent(k, x -> new ArrayList<>());
        versions.clear();
        versions.add(new Version(r, shard));
        Deque<String> seen = history.computeIfAbsent(k, x -> new ArrayDeque<>());
        seen.addLast(record);
        if (seen.size() > HISTORY) {
            seen.removeFirst();
        }
    }

    /**
     * Human-readable violations found so far by {@link #accept}: the first 100, then one line with
     * the total when there were more. The end-of-changelog checks are in {@link #assertValid()}.
     */
    public synchronized List<String> violations() {
        List<String> out = new ArrayList<>(violations);
        if (violationCount > violations.size()) {
            out.add("... " + (violationCount - violations.size()) + " more, " + violationCount + " violations in all");
        }
        return out;
    }

    /**
     * Throws AssertionError naming the changelog, the number of records and violations, and the
     * first 20 violations. Also checks the end state: no key has two live versions, no {@code -U}
     * waits for its {@code +U}.
     */
    public synchronized void assertValid() {
        List<String> end = endViolations();
        long total = violationCount + end.size();
        if (total == 0) {
            return;
        }
        List<String> all = new ArrayList<>(violations);
        all.addAll(end);
        StringBuilder msg = new StringBuilder("changelog '")
                .append(name)
                .append("' is not a strict changelog: ")
                .append(records)
                .append(" records, ")
                .append(total)
                .append(" violations");
        if (total > 20) {
            msg.append(" (first 20 shown)");
        }
        msg.append(':');
        all.stream().limit(20).forEach(v -> msg.append("\n  ").append(v));
        throw new AssertionError(msg.toString());
    }

    /** The materialized state: key -> the single live row (fails if a key has more than one live version). */
    public synchronized Map<List<Object>, List<Object>> liveRows() {
        List<String> duplicates = duplicateViolations();
        if (!duplicates.isEmpty()) {
            throw new AssertionError("changelog '" + name + "': " + duplicates.size()
                    + " keys have more than one live version, e.g. " + duplicates.get(0));
        }
        Map<List<Object>, List<Object>> out = new HashMap<>();
        live.forEach((k, versions) -> out.put(k, versions.get(0).row));
        return out;
    }

    public synchronized long records() {
        return records;
    }

    private List<String> endViolations() {
        List<String> out = duplicateViolations();
        awaitingAfter.forEach((k, waiting) -> waiting.forEach((shard, row) ->
                out.add(describe(k, "at the end: a -U from " + shardName(shard) + " has no +U (-U row " + row + ")"))));
        return out;
    }

    private List<String> duplicateViolations() {
        List<String> out = new ArrayList<>();
        live.forEach((k, versions) -> {
            if (versions.size() > 1) {
                out.add(describe(k, "at the end: " + versions.size() + " live versions " + versions));
            }
        });
        return out;
    }

    /** Removes one version equal to row, preferring one from the same shard. */
    private static boolean retract(List<Version> versions, List<Object> row, String shard) {
        int match = -1;
        for (int i = 0; i < versions.size(); i++) {
            Version v = versions.get(i);
            if (v.row.equals(row)) {
                if (Objects.equals(v.shard, shard)) {
                    match = i;
                    break;
                }
                if (match < 0) {
                    match = i;
                }
            }
        }
        if (match < 0) {
            return false;
        }
        versions.remove(match);
        return true;
    }

    private void violation(List<Object> key, String record, String what) {
        violationCount++;
        if (violations.size() < MAX_VIOLATIONS) {
            violations.add(describe(key, record + " " + what));
        }
    }

    private String describe(List<Object> key, String what) {
        Deque<String> seen = history.get(key);
        return "key " + key + ": " + what
                + (seen == null || seen.isEmpty() ? "" : "; earlier records of the key " + String.join(", ", seen));
    }

    private static String shardName(String shard) {
        return shard == null ? "an unknown shard" : "shard " + shard;
    }

    /** An unmodifiable copy (nulls kept) with byte[] values wrapped, so equals compares content. */
    private static List<Object> normalize(List<Object> values) {
        List<Object> out = new ArrayList<>(values.size());
        for (Object v : values) {
            out.add(v instanceof byte[] ? new Bytes((byte[]) v) : v);
        }
        return Collections.unmodifiableList(out);
    }

    /** A byte[] value compared by content, printed as hex. */
    public static final class Bytes implements Serializable {
        private static final long serialVersionUID = 1L;
        private final byte[] bytes;

        public Bytes(byte[] bytes) {
            this.bytes = bytes.clone();
        }

        public byte[] toByteArray() {
            return bytes.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Bytes && Arrays.equals(bytes, ((Bytes) o).bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return "0x" + HexFormat.of().formatHex(bytes);
        }
    }

    /** One live version of a key: its row and the shard that emitted it. */
    private static final class Version {
        final List<Object> row;
        final String shard;

        Version(List<Object> row, String shard) {
            this.row = row;
            this.shard = shard;
        }

        @Override
        public String toString() {
            return row + " from " + shardName(shard);
        }
    }
}
