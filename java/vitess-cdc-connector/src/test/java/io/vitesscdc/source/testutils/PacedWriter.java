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
 */
public abstract class PacedWriter {

    private final VitessEndpoint vitess;
    private final String keyspace;
    private final String threadName;
    private final AtomicLong ops = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private Thread thread;

    protected PacedWriter(String keyspace, String threadName) {
        this(VitessCluster.endpoint(), keyspace, threadName);
    }

    protected PacedWriter(VitessEndpoint vitess, String keyspace, String threadName) {
        this.vitess = vitess;
        this.keyspace = keyspace;
        this.threadName = threadName;
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
                    try (Connection c = vitess.connect(keyspace)) {
                        long period = TimeUnit.SECONDS.toNanos(1) / Math.max(1, opsPerSecond);
                        long next = System.nanoTime();
                        while (running.get()) {
                            step(c);
                            ops.incrementAndGet();
                            next = Math.max(next + period, System.nanoTime());
                            TimeUnit.NANOSECONDS.sleep(next - System.nanoTime());
                        }
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                },
                threadName);
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs {@code n} random operations synchronously. */
    public void run(int n) throws SQLException {
        try (Connection c = vitess.connect(keyspace)) {
            for (int i = 0; i < n; i++) {
                step(c);
                ops.incrementAndGet();
            }
        }
    }

    /** The VTGate this writer writes through. */
    protected VitessEndpoint vitess() {
        return vitess;
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

    protected static void execute(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
    }
}
