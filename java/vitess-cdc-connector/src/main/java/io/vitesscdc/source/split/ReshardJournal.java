/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.split;

import io.vitesscdc.nativeio.Position;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A SHARDS reshard journal as one participant's stream delivered it: the journal id, every
 * participant (old shard) of the journal, and the new shards with the positions they start at
 * (the native core's positions, stored unread).
 *
 * <p>Every participant reports the same journal. New shards may be read only after every
 * participant ended at it: that is what keeps each key's changes in order across the reshard.
 */
@Internal
public final class ReshardJournal implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long id;
    private final String keyspace;
    private final List<String> participants;
    private final Map<String, Position> started;

    public ReshardJournal(long id, String keyspace, List<String> participants, Map<String, Position> started) {
        this.id = id;
        this.keyspace = Objects.requireNonNull(keyspace, "keyspace");
        this.participants = Collections.unmodifiableList(new ArrayList<>(participants));
        this.started = Collections.unmodifiableMap(new LinkedHashMap<>(started));
        if (this.participants.isEmpty()) {
            throw new IllegalArgumentException("a reshard journal has at least one participant");
        }
    }

    /** The journal id (the same on every participant). */
    public long id() {
        return id;
    }

    public String keyspace() {
        return keyspace;
    }

    /** The old shards: each one ends at this journal. */
    public List<String> participants() {
        return participants;
    }

    /** The new shards and their start positions, in the journal's order. */
    public Map<String, Position> started() {
        return started;
    }

    /**
     * Whether {@code other} describes the same reshard: journal ids are chosen by Vitess and equal
     * on all participants, so the shards must agree too.
     */
    public boolean sameReshard(ReshardJournal other) {
        return id == other.id
                && keyspace.equals(other.keyspace)
                && participants.equals(other.participants)
                && started.keySet().equals(other.started.keySet());
    }

    /**
     * What tells this reshard from another with the same id: a 64-bit hash (FNV-1a) of the id, the
     * keyspace, the participants and the new shards with their start positions. Vitess derives a
     * journal's id from the workflow's target shards and their stream ids, so a reshard repeated
     * (split, merged back, split again into the same shards, as the chaos soak does) has the id
     * of the first; its new shards start elsewhere, so this key differs. Stable across JVMs and
     * releases: it is stored in the enumerator's state. Independent of the order of the
     * participants and of the new shards: each participant's copy of one journal may list them in
     * another order (seen on the multi-process cluster).
     */
    public long completionKey() {
        long h = 0xcbf29ce484222325L;
        h = mix(h, Long.toString(id));
        h = mix(h, keyspace);
        for (String p : new java.util.TreeSet<>(participants)) {
            h = mix(h, p);
        }
        for (Map.Entry<String, Position> e : new java.util.TreeMap<>(started).entrySet()) {
            h = mix(h, e.getKey());
            for (byte b : e.getValue().toBytes()) {
                h = (h ^ (b & 0xff)) * 0x100000001b3L;
            }
            h = (h ^ 0xff) * 0x100000001b3L;
        }
        return h;
    }

    private static long mix(long h, String text) {
        for (byte b : text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        // A separator no UTF-8 text contains, so that ("ab", "c") and ("a", "bc") differ.
        return (h ^ 0xff) * 0x100000001b3L;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ReshardJournal)) {
            return false;
        }
        ReshardJournal that = (ReshardJournal) o;
        return id == that.id
                && keyspace.equals(that.keyspace)
                && participants.equals(that.participants)
                && started.equals(that.started);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, keyspace, participants, started);
    }

    @Override
    public String toString() {
        return "ReshardJournal{id=" + id + ", " + keyspace + " " + participants + " -> " + started.keySet() + "}";
    }
}
