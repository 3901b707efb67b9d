/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Writes inserts, updates and deletes into customer.customer, only in its own id range
 * {@code [base, base + 10^6)}, so tests are rerunnable without cleanup and never disturb each
 * other or the load generator. Every update sets a unique {@code visits} value, which makes every
 * streamed event distinguishable (duplicates detectable).
 */
public final class CustomerWriter extends PacedWriter implements AutoCloseable {

    public static final long RANGE = 1_000_000L;

    private final long base;
    private final Random random = new Random();
    private final List<Long> live = new ArrayList<>();
    private long nextId;
    private int nextVisits = 1;

    public CustomerWriter() {
        super("customer", "customer-writer");
        // 7e15 .. 9e15, unique per run (ms clock), far from the load generator's ids (~1e11).
        this.base = 7_000_000_000_000_000L + (System.currentTimeMillis() % 2_000_000_000L) * RANGE;
        this.nextId = base;
    }

    public long base() {
        return base;
    }

    public String rangePredicate() {
        return "customer_id >= " + base + " AND customer_id < " + (base + RANGE);
    }

    public boolean inRange(long id) {
        return inRange(base, id);
    }

    /** Whether id is in the range of the writer whose base is base (for serializable filters). */
    public static boolean inRange(long base, long id) {
        return id >= base && id < base + RANGE;
    }

    /** Inserts {@code n} rows in batches (the snapshot part). */
    public void insertRows(int n) throws SQLException {
        List<String> tuples = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long id = nextId++;
            live.add(id);
            tuples.add("(" + id + ", 'u" + id + "@example.com', 'name" + id % 97 + "', " + random.nextInt(100000) + "."
                    + random.nextInt(100) + ", 0)");
        }
        try (Connection c = VitessCluster.connect("customer")) {
            insertInBatches(c, "INSERT INTO customer (customer_id, email, name, balance, visits) VALUES ", tuples, 200);
        }
    }

    @Override
    protected void step(Connection c) throws SQLException {
        int roll = random.nextInt(100);
        if (live.isEmpty() || roll < 40) {
            long id = nextId++;
            live.add(id);
            execute(
                    c,
                    "INSERT INTO customer (customer_id, email, name, balance, visits) VALUES (" + id + ", 'w" + id
                            + "@example.com', 'writer', " + random.nextInt(1000) + ".5, 0)");
        } else if (roll < 65) {
            // A transaction with several statements (multi-record transactions, both kinds).
            long a = live.get(random.nextInt(live.size()));
            long b = nextId++;
            live.add(b);
            c.setAutoCommit(false);
            try {
                execute(
                        c,
                        "UPDATE customer SET visits = " + (nextVisits++) + ", balance = balance + 1, "
                                + "updated_at = NOW(6) WHERE customer_id = " + a);
                execute(
                        c,
                        "INSERT INTO customer (customer_id, email, name, balance, visits) VALUES (" + b + ", 't" + b
                                + "@example.com', 'txn', 1.25, 0)");
                c.commit();
            } finally {
                c.setAutoCommit(true);
            }
        } else if (roll < 88) {
            long id = live.get(random.nextInt(live.size()));
            execute(
                    c,
                    "UPDATE customer SET visits = " + (nextVisits++) + ", name = 'upd" + random.nextInt(1000)
                            + "', updated_at = NOW(6) WHERE customer_id = " + id);
        } else {
            long id = live.remove(random.nextInt(live.size()));
            execute(c, "DELETE FROM customer WHERE customer_id = " + id);
        }
    }

    /**
     * The next id this writer would insert: every id in {@code [base, nextId)} was inserted exactly
     * once (by {@link #insertRows} or the random mix). Read it after {@link #stop()}.
     */
    public long nextId() {
        return nextId;
    }

    /**
     * Stops writing and deletes every row of this writer's range (customer, corder, all_types):
     * tests clean up after themselves, so the tables do not grow from run to run.
     */
    @Override
    public void close() throws Exception {
        stop();
        String range = " >= " + base + " AND %s < " + (base + RANGE);
        VitessCluster.execute(
                "customer",
                "DELETE FROM customer WHERE customer_id" + String.format(range, "customer_id"),
                "DELETE FROM corder WHERE customer_id" + String.format(range, "customer_id"),
                "DELETE FROM all_types WHERE id" + String.format(range, "id"));
    }
}
