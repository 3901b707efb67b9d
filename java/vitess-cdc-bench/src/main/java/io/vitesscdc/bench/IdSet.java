/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The ids 1..n a run expects, one bit each (a million rows take 128 KiB): which arrived, how many
 * arrived again and how many were never expected. Safe to use from several sink subtasks.
 */
final class IdSet {

    private final long n;
    private final AtomicLongArray bits;
    private final AtomicLong distinct = new AtomicLong();
    private final AtomicLong repeated = new AtomicLong();
    private final AtomicLong foreign = new AtomicLong();

    IdSet(long n) {
        this.n = n;
        this.bits = new AtomicLongArray((int) (n / 64 + 1));
    }

    void add(long id) {
        if (id < 1 || id > n) {
            foreign.incrementAndGet();
            return;
        }
        long bit = 1L << (id & 63);
        long before = bits.getAndUpdate((int) (id >>> 6), w -> w | bit);
        if ((before & bit) != 0) {
            repeated.incrementAndGet();
        } else {
            distinct.incrementAndGet();
        }
    }

    /** Ids that arrived at least once. */
    long distinct() {
        return distinct.get();
    }

    /** Ids of 1..n that never arrived. */
    long missing() {
        return n - distinct.get();
    }

    /** Arrivals of an id that had arrived before. */
    long repeated() {
        return repeated.get();
    }

    /** Arrivals of ids outside 1..n. */
    long foreign() {
        return foreign.get();
    }
}
