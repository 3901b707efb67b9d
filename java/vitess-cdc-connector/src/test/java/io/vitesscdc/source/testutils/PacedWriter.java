/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The machinery of the tests' concurrent writers: random operations through VTGate, one after the
 * other on one connection, either synchronously ({@link #run}) or in a background thread at a
 * bounded rate ({@link #start}) until {@link #stop}, which rethrows a failure of the thread (a
 * writer that silently died would make a test pass on too few writes). Subclasses say what one
 * operation is ({@link #step}).
 *
 * <p>A writer that runs through faults of the cluster (reparents, a primary's crash) is made
 * {@link #tolerateFailures tolerant}: a failed operation is counted ({@link #failures}), and the
 * writer reconnects and goes on. Its own idea of the rows may then be wrong (a failed commit may
 * have been applied), so such tests compare Flink with what Vitess holds, not with the writer.
 */
public abstract class PacedWriter {

    private final String keyspace;
    private final String threadName;
    protected final SqlEndpoint endpoint;
    private final AtomicLong ops = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean tolerant;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private Thread thread;

    protected PacedWriter(String keyspace, String threadName) {
        this(keyspace, threadName, VitessCluster.sql());
    }

    protected PacedWriter(String keyspace, String threadName, SqlEndpoint endpoint) {
        this.keyspace = keyspace;
        this.threadName = threadName;
        this.endpoint = endpoint;
    }

    /** From now on a failed operation is counted, and the writer reconnects and goes on. */
    public void tolerateFailures() {
        tolerant = true;
    }

    /** Operations that failed (a tolerant writer's). */
    public long failures() {
        return failures.get();
    }

    /** One random operation (a statement or a transaction) on {@code c}, in autocommit mode. */
    protected abstract void step(Connection c) throws SQLException;

    /**
     * Starts writing in a background thread at most {@code opsPerSecond} (a fixed schedule that
     * never bursts to catch up after a slow statement).
     */
    public void start(int opsPerSecond) {
        running.set(true);
        thread = new Thread(
                () -> {
                    try {
                        writeUntilStopped(opsPerSecond);
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                },
                threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private void writeUntilStopped(int opsPerSecond) throws SQLException, InterruptedException {
        long period = TimeUnit.SECONDS.toNanos(1) / Math.max(1, opsPerSecond);
        long next = System.nanoTime();
        Connection c = endpoint.connect(keyspace);
        try {
            while (running.get()) {
                try {
                    step(c);
                    ops.incrementAndGet();
                } catch (SQLException e) {
                    if (!tolerant) {
                        throw e;
                    }
                    failures.incrementAndGet();
                    c.close();
                    TimeUnit.MILLISECONDS.sleep(200);
                    c = reconnect();
                }
                next = Math.max(next + period, System.nanoTime());
                TimeUnit.NANOSECONDS.sleep(next - System.nanoTime());
            }
        } finally {
            c.close();
        }
    }

    /** A new connection; a tolerant writer waits (up to a minute) for the gate to take one. */
    private Connection reconnect() throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + TestTimeouts.GATE_TAKES_CONNECTIONS.toNanos();
        while (true) {
            try {
                return endpoint.connect(keyspace);
            } catch (SQLException e) {
                failures.incrementAndGet();
                if (System.nanoTime() > deadline || !running.get()) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
    }

    /** Runs {@code n} random operations synchronously. */
    public void run(int n) throws SQLException {
        try (Connection c = endpoint.connect(keyspace)) {
            for (int i = 0; i < n; i++) {
                step(c);
                ops.incrementAndGet();
            }
        }
    }

    /** Operations done so far (background and synchronous). */
    public long ops() {
        return ops.get();
    }

    /** Stops the background writer and rethrows its failure, if any. */
    public void stop() throws Exception {
        running.set(false);
        if (thread != null) {
            thread.join(30_000);
            thread = null;
        }
        Throwable t = failure.get();
        if (t != null) {
            throw new AssertionError("the concurrent writer failed: " + t, t);
        }
    }

    /** Runs {@code prefix + tuples} as multi-row statements of at most {@code batch} tuples each. */
    protected static void insertInBatches(Connection c, String prefix, List<String> tuples, int batch)
            throws SQLException {
        for (int from = 0; from < tuples.size(); from += batch) {
            String sql = prefix + String.join(",", tuples.subList(from, Math.min(tuples.size(), from + batch)));
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.execute();
            }
        }
    }

    /**
     * Deletes the rows of run {@code run} with ids in {@code [from, to)} from {@code table}, in
     * id ranges: a tablet refuses a DML touching more than 10,000 rows.
     */
    protected void deleteRunRows(String table, long run, long from, long to) throws SQLException {
        for (long f = from; f < to; f += 5_000) {
            endpoint.execute(
                    keyspace,
                    "DELETE FROM " + table + " WHERE run = " + run + " AND id >= " + f + " AND id < " + (f + 5_000));
        }
    }

    protected static void execute(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
    }
}
