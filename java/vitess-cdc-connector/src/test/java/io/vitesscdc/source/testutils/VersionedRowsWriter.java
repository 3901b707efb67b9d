/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes rows of one test run into {@code customer.flink_snap}, or another table of keyspace
 * {@code customer} with the columns {@code id, run, ver, pad} (others take their defaults): inserts,
 * updates, deletes and primary-key moves (a DELETE and an INSERT under a new key, in one
 * transaction). Every write gives the row it touches the next value of one counter ({@code ver}),
 * and the writer runs one statement at a time, so per key the versions follow commit order: a
 * changelog where one key's version goes down has delivered an older row after a newer one. Keys
 * are never reused, so a key that comes back after its delete was brought back from the dead.
 */
public final class VersionedRowsWriter extends PacedWriter implements AutoCloseable {

    public static final String KEYSPACE = "customer";
    public static final String TABLE = "flink_snap";

    private static final AtomicLong LAST_RUN = new AtomicLong();

    private final String table;
    private final long run;
    private final Random random;
    private final List<Long> live = new ArrayList<>();
    private final long firstId;
    private long nextId;
    private long ver;

    public VersionedRowsWriter(long seed) {
        this(seed, VitessCluster.sql());
    }

    /** A writer through another VTGate's MySQL port (e.g. of the multi-process cluster). */
    public VersionedRowsWriter(long seed, SqlEndpoint endpoint) {
        this(seed, endpoint, TABLE);
    }

    /** A writer into another table of keyspace {@code customer} with the same four columns. */
    public VersionedRowsWriter(long seed, SqlEndpoint endpoint, String table) {
        super(KEYSPACE, "versioned-rows-writer", endpoint);
        this.table = table;
        this.random = new Random(seed);
        this.run = LAST_RUN.updateAndGet(last -> Math.max(last + 1, System.currentTimeMillis() / 100));
        // Ids of a run sit in their own range, so runs never share a key.
        this.firstId = (run % 1_000_000) * 10_000_000L;
        this.nextId = firstId;
    }

    public long run() {
        return run;
    }

    /** The run's first id: its ids count up from here. */
    public long firstId() {
        return firstId;
    }

    /** Inserts {@code n} rows (what the snapshot reads). */
    public void insertRows(int n) throws SQLException {
        List<String> tuples = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            tuples.add(newRow());
        }
        try (Connection c = endpoint.connect(KEYSPACE)) {
            insertInBatches(c, insertPrefix(), tuples, 500);
        }
    }

    @Override
    protected synchronized void step(Connection c) throws SQLException {
        int roll = random.nextInt(100);
        if (live.isEmpty() || roll < 25) {
            execute(c, insertPrefix() + newRow());
        } else if (roll < 65) {
            long id = live.get(random.nextInt(live.size()));
            execute(c, "UPDATE " + table + " SET ver = " + (++ver) + " WHERE id = " + id);
        } else if (roll < 80) {
            long id = live.remove(random.nextInt(live.size()));
            execute(c, "DELETE FROM " + table + " WHERE id = " + id);
        } else {
            long id = live.remove(random.nextInt(live.size()));
            c.setAutoCommit(false);
            try {
                execute(c, "DELETE FROM " + table + " WHERE id = " + id);
                execute(c, insertPrefix() + newRow());
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    /** The run's rows through VTGate, {@code id -> ver}. */
    public Map<String, String> rowsInVitess() throws SQLException {
        Map<String, String> rows = new java.util.TreeMap<>();
        endpoint.query(KEYSPACE, "SELECT id, ver FROM " + table + " WHERE run = " + run, "id")
                .forEach((id, row) -> rows.put(id, row.get("ver")));
        return rows;
    }

    /** Stops writing and deletes the run's rows. */
    @Override
    public void close() throws Exception {
        stop();
        deleteRunRows(table, run, firstId, nextId);
    }

    private String insertPrefix() {
        return "INSERT INTO " + table + " (id, run, ver, pad) VALUES ";
    }

    private String newRow() {
        long id = nextId++;
        live.add(id);
        return "(" + id + ", " + run + ", " + (++ver) + ", 'p" + id + "')";
    }
}
