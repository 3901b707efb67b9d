/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.VitessCluster;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The writes behind {@link VitessQueryShapesITCase}, from a seed: orders are inserted, updated
 * (status and amount, each write raising {@code ver}), deleted and moved to a new primary key (a
 * DELETE and an INSERT in one transaction, on another shard for about half of the moves: the key
 * is the vindex column); customers are renamed and change tier; visits are only inserted.
 */
final class QueryShapesWriter implements AutoCloseable {

    static final String[] STATUSES = {"new", "paid", "shipped", "returned", "cancelled"};
    static final int CUSTOMERS = 12;

    private final Random random;
    private final List<Long> live = new ArrayList<>();
    private final AtomicLong ops = new AtomicLong();
    private long nextOrder = 1;
    private long nextVisit = 1;
    private Thread thread;
    private volatile boolean running;
    private volatile Throwable failure;

    QueryShapesWriter(long seed) {
        this.random = new Random(seed);
    }

    /** Empties the suite's tables, then writes every customer and {@code orders} orders. */
    void reset(int orders) throws SQLException {
        live.clear();
        nextVisit = 1;
        VitessCluster.execute(
                "customer", "DELETE FROM shape_orders", "DELETE FROM shape_customers", "DELETE FROM shape_visits");
        try (Connection c = VitessCluster.connect("customer");
                Statement s = c.createStatement()) {
            for (long id = 1; id <= CUSTOMERS; id++) {
                s.execute("INSERT INTO shape_customers VALUES (" + id + ", 'customer-" + id + "', '" + tier() + "')");
            }
            for (int i = 0; i < orders; i++) {
                insertOrder(s);
            }
        }
    }

    /** Writes about {@code perSecond} changes a second on a thread of its own until {@link #stop()}. */
    void start(int perSecond) {
        running = true;
        thread = new Thread(
                () -> {
                    try (Connection c = VitessCluster.connect("customer")) {
                        long pause = Math.max(1, 1000 / perSecond);
                        while (running) {
                            write(c);
                            ops.incrementAndGet();
                            Thread.sleep(pause);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (Throwable t) {
                        failure = t;
                    }
                },
                "query-shapes-writer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops the writes and waits for the last one; fails if a write failed. */
    void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            thread.join();
            thread = null;
        }
        if (failure != null) {
            throw new AssertionError("the writer failed", failure);
        }
    }

    long ops() {
        if (failure != null) {
            throw new AssertionError("the writer failed", failure);
        }
        return ops.get();
    }

    /** Inserts {@code count} visits, each of a random customer. */
    void insertVisits(int count) throws SQLException {
        try (Connection c = VitessCluster.connect("customer");
                Statement s = c.createStatement()) {
            for (int i = 0; i < count; i++) {
                s.execute("INSERT INTO shape_visits VALUES (" + nextVisit++ + ", " + customer() + ")");
            }
        }
    }

    private void write(Connection c) throws SQLException {
        int op = random.nextInt(100);
        try (Statement s = c.createStatement()) {
            if (op < 30 || live.size() < 5) {
                insertOrder(s);
            } else if (op < 65) {
                long id = live.get(random.nextInt(live.size()));
                s.execute("UPDATE shape_orders SET status = '" + status() + "', amount = " + amount()
                        + ", ver = ver + 1 WHERE id = " + id);
            } else if (op < 78) {
                long id = live.remove(random.nextInt(live.size()));
                s.execute("DELETE FROM shape_orders WHERE id = " + id);
            } else if (op < 90) {
                move(c, live.remove(random.nextInt(live.size())));
            } else {
                s.execute("UPDATE shape_customers SET name = 'customer-" + random.nextInt(1000) + "', tier = '" + tier()
                        + "' WHERE id = " + customer());
            }
        }
    }

    private void insertOrder(Statement s) throws SQLException {
        long id = nextOrder++;
        s.execute("INSERT INTO shape_orders VALUES (" + id + ", " + customer() + ", '" + status() + "', " + amount()
                + ", 1)");
        live.add(id);
    }

    /** A new primary key for an order, as VTGate would run a change of the vindex column. */
    private void move(Connection c, long id) throws SQLException {
        long moved = nextOrder++;
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            String values;
            try (ResultSet rs = s.executeQuery(
                    "SELECT customer_id, status, amount, ver FROM shape_orders WHERE id = " + id + " FOR UPDATE")) {
                if (!rs.next()) {
                    throw new IllegalStateException("shape_orders has no row " + id + " to move");
                }
                values = rs.getLong(1) + ", '" + rs.getString(2) + "', " + rs.getLong(3) + ", " + (rs.getLong(4) + 1);
            }
            s.execute("DELETE FROM shape_orders WHERE id = " + id);
            s.execute("INSERT INTO shape_orders VALUES (" + moved + ", " + values + ")");
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
        live.add(moved);
    }

    private String status() {
        return STATUSES[random.nextInt(STATUSES.length)];
    }

    private long amount() {
        return 1 + random.nextInt(500);
    }

    private long customer() {
        return 1 + random.nextInt(CUSTOMERS);
    }

    private String tier() {
        return random.nextBoolean() ? "gold" : "basic";
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
