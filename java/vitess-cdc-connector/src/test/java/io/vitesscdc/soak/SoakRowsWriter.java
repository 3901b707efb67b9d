/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.soak;

import io.vitesscdc.source.testutils.PacedWriter;
import io.vitesscdc.source.testutils.SqlEndpoint;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The soak's writer of {@code customer.soak_rows}: each step is one transaction of 1–50
 * operations (most of one), each an insert, an update, a delete or a primary-key move to a new key
 * (a DELETE and an INSERT, the new row mostly on another shard). Every write gives its row the next value of one counter ({@code ver}), and one
 * transaction runs at a time, so per key the versions follow commit order. Keys are never reused.
 * Now and then ({@link #bigTransaction}) one transaction inserts many rows.
 *
 * <p>It runs through the faults ({@link #tolerateFailures}): a failed transaction may or may not
 * have been applied, so the verdict compares Flink with what Vitess holds, never with this writer.
 */
final class SoakRowsWriter extends PacedWriter implements AutoCloseable {

    static final String TABLE = "soak_rows";

    private final long run;
    private final Random random;
    private final List<Long> live = new ArrayList<>();
    private final long firstId;
    private long nextId;
    private long ver;

    SoakRowsWriter(long run, long seed, SqlEndpoint endpoint) {
        super("customer", "soak-rows-writer", endpoint);
        this.run = run;
        this.random = new Random(seed);
        this.firstId = (run % 100_000) * 100_000_000L;
        this.nextId = firstId;
    }

    synchronized void insertRows(int n) throws SQLException {
        List<String> tuples = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tuples.add(newRow());
        }
        try (Connection c = endpoint.connect("customer")) {
            insertInBatches(c, insertPrefix(), tuples, 2_000);
        }
    }

    /** One transaction of {@code n} inserts, in statements of 2,000 rows (a tablet's DML limit is 10,000). */
    synchronized void bigTransaction(int n) throws SQLException {
        List<String> tuples = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tuples.add(newRow());
        }
        try (Connection c = endpoint.connect("customer")) {
            c.setAutoCommit(false);
            insertInBatches(c, insertPrefix(), tuples, 2_000);
            c.commit();
        }
    }

    @Override
    protected synchronized void step(Connection c) throws SQLException {
        int size = random.nextInt(10) < 7 ? 1 : 2 + random.nextInt(49);
        // A move is two statements: it always runs in a transaction.
        c.setAutoCommit(false);
        try {
            for (int i = 0; i < size; i++) {
                operation(c);
            }
            c.commit();
        } catch (SQLException e) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // the connection is gone with the fault; the writer reconnects
            }
            throw e;
        } finally {
            try {
                c.setAutoCommit(true);
            } catch (SQLException ignored) {
                // as above
            }
        }
    }

    private void operation(Connection c) throws SQLException {
        int roll = random.nextInt(100);
        if (live.isEmpty() || roll < 30) {
            execute(c, insertPrefix() + newRow());
        } else if (roll < 70) {
            int at = random.nextInt(live.size());
            // A key a failed transaction may or may not have written is not live after all: the
            // writer forgets it when its update touches no row.
            if (rowsTouched(c, "UPDATE " + TABLE + " SET ver = " + (++ver) + " WHERE id = " + live.get(at)) == 0) {
                live.remove(at);
            }
        } else if (roll < 85) {
            long id = live.remove(random.nextInt(live.size()));
            execute(c, "DELETE FROM " + TABLE + " WHERE id = " + id);
        } else {
            int at = random.nextInt(live.size());
            long id = live.get(at);
            long moved = nextId++;
            live.set(at, moved);
            // VTGate refuses an UPDATE of a primary vindex column (VT12001): a move is a DELETE and
            // an INSERT under the new key, the new row usually on another shard.
            execute(c, "DELETE FROM " + TABLE + " WHERE id = " + id);
            execute(c, insertPrefix() + "(" + moved + ", " + run + ", " + (++ver) + ", 'p" + moved + "')");
        }
    }

    private static int rowsTouched(Connection c, String sql) throws SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            return s.executeUpdate(sql);
        }
    }

    /** The run's rows through VTGate, {@code id -> ver}. */
    Map<String, String> rowsInVitess() throws SQLException {
        Map<String, String> rows = new TreeMap<>();
        endpoint.query("customer", "SELECT id, ver FROM " + TABLE + " WHERE run = " + run, "id")
                .forEach((id, row) -> rows.put(id, row.get("ver")));
        return rows;
    }

    /** Stops writing and deletes the run's rows. */
    @Override
    public void close() throws Exception {
        stop();
        deleteRunRows(TABLE, run, firstId, nextId);
    }

    private static String insertPrefix() {
        return "INSERT INTO " + TABLE + " (id, run, ver, pad) VALUES ";
    }

    private String newRow() {
        long id = nextId++;
        live.add(id);
        return "(" + id + ", " + run + ", " + (++ver) + ", 'p" + id + "')";
    }
}
