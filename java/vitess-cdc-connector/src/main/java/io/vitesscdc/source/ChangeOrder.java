/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Order metadata of a change record that survives resharding: an <em>epoch</em> and a
 * <em>rank</em>. Two changes of the same primary key, however they were reordered downstream (a
 * repartitioned Kafka topic, parallel sinks), are restored to their true order by comparing
 * {@code (epoch, rank)}: {@link #compare(long, long, long, long)}.
 *
 * <p><b>Epoch.</b> 0 for the shards a job starts with; the new shards of a reshard get one more
 * than the highest epoch of the shards that ended at its journal. A key lives in exactly one
 * shard at a time, and the new shards start only after every old one ended, so each of a key's
 * changes in a later epoch happened after all of its changes in an earlier one.
 *
 * <p><b>Rank.</b> Within a shard and epoch, increasing in binlog order: the number of
 * transactions in the shard's GTID set before the record's transaction plus one, shifted left by
 * {@value #ORDINAL_BITS} bits, plus the record's index among the records since that position. The
 * GTID set grows by exactly one transaction per commit, whichever server is primary (a reparent
 * keeps the set), so every reader, a restored one included, computes the same rank for the same
 * change. A snapshot (copy) row read at GTID set G ranks after every change in G and before every
 * later one: {@code count(G) << ORDINAL_BITS | MAX_ORDINAL}.
 *
 * <p>Limits: a transaction with more than {@value #MAX_ORDINAL} records gives the rest of its
 * records the same rank (their arrival order is still their order within the shard); ranks are
 * exact up to 2<sup>43</sup> (8.8 × 10<sup>12</sup>) transactions per shard. Ranks of different
 * shards are not comparable with each other, and neither are epochs of different jobs (an epoch
 * counts the reshards a job has followed since its first start). A shard whose positions are not
 * MySQL GTID sets (MariaDB, file positions) has no transaction count: its ranks are {@link
 * #UNAVAILABLE}.
 */
@PublicEvolving
public final class ChangeOrder {

    /** Bits of the rank that hold the record's index within its transaction. */
    public static final int ORDINAL_BITS = 20;

    /** The largest index within a transaction; snapshot rows take it. */
    public static final long MAX_ORDINAL = (1L << ORDINAL_BITS) - 1;

    /**
     * The rank of every record of a shard whose positions are not MySQL GTID sets (MariaDB or
     * file positions): they have no transaction count, so no rank.
     */
    public static final long UNAVAILABLE = -1;

    private static final long MAX_TRANSACTIONS = Long.MAX_VALUE >>> ORDINAL_BITS;

    private ChangeOrder() {}

    /**
     * The rank of a streamed record: the {@code ordinal}-th record after a position whose GTID
     * set holds {@code transactionsBefore} transactions.
     */
    public static long streamedRank(long transactionsBefore, long ordinal) {
        long transaction = transactionsBefore >= MAX_TRANSACTIONS ? MAX_TRANSACTIONS : transactionsBefore + 1;
        return (transaction << ORDINAL_BITS) | Math.min(ordinal, MAX_ORDINAL - 1);
    }

    /** The rank of a snapshot (copy) row read at a GTID set of {@code transactions} transactions. */
    public static long snapshotRank(long transactions) {
        return (Math.min(transactions, MAX_TRANSACTIONS) << ORDINAL_BITS) | MAX_ORDINAL;
    }

    /**
     * Compares two changes of the same key by their order metadata: negative if the first
     * happened before the second, positive if after, 0 if they are the same change (or share a
     * rank beyond {@link #MAX_ORDINAL} records into one transaction).
     */
    public static int compare(long epochA, long rankA, long epochB, long rankB) {
        int byEpoch = Long.compare(epochA, epochB);
        return byEpoch != 0 ? byEpoch : Long.compare(rankA, rankB);
    }
}
