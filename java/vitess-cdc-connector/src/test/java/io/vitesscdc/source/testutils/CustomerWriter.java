package io.vitesscdc.source.testutils;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes inserts, updates and deletes into customer.customer, only in its own id range
 * {@code [base, base + 10^6)}, so tests are rerunnable without cleanup and never disturb each
 * other or the load generator. Every update sets a unique {@code visits} value, which makes every
 * streamed event distinguishable (duplicates detectable).
 */
public final class CustomerWriter implements AutoCloseable {

    public static final long RANGE = 1_000_000L;

    private final long base;
    private final Random random = new Random();
    private final List<Long> live = new ArrayList<>();
    private final AtomicLong ops = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private long nextId;
    private int nextVisits = 1;
    private Thread thread;

    public CustomerWriter() {
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
        try (Connection c = VitessCluster.connect("customer")) {
            c.setAutoCommit(true);
            int done = 0;
            while (done < n) {
                int batch = Math.min(200, n - done);
                StringBuilder sql = new StringBuilder(
                        "INSERT INTO customer (customer_id, email, name, balance, visits) VALUES ");
                for (int i = 0; i < batch; i++) {
                    long id = nextId++;
                    live.add(id);
                    sql.append(i == 0 ? "" : ",").append('(').append(id).append(", 'u").append(id)
                            .append("@example.com', 'name").append(id % 97).append("', ")
                            .append(random.nextInt(100000)).append('.').append(random.nextInt(100))
                            .append(", 0)");
                }
                try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                    ps.execute();
                }
                done += batch;
            }
        }
    }

    /** Starts writing a random mix at roughly {@code opsPerSecond} in a background thread. */
    public void start(int opsPerSecond) {
        running.set(true);
        thread = new Thread(() -> {
            try (Connection c = VitessCluster.connect("customer")) {
                long pause = Math.max(1, 1000 / opsPerSecond);
                while (running.get()) {
                    step(c);
                    Thread.sleep(pause);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "customer-writer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs {@code n} random operations synchronously. */
    public void run(int n) throws SQLException {
        try (Connection c = VitessCluster.connect("customer")) {
            for (int i = 0; i < n; i++) {
                step(c);
            }
        }
    }

    private void step(Connection c) throws SQLException {
        int roll = random.nextInt(100);
        String sql;
        if (live.isEmpty() || roll < 40) {
            long id = nextId++;
            live.add(id);
            sql = "INSERT INTO customer (customer_id, email, name, balance, visits) VALUES (" + id + ", 'w" + id
                    + "@example.com', 'writer', " + random.nextInt(1000) + ".5, 0)";
        } else if (roll < 65) {
            // A transaction with several statements (multi-record transactions, both kinds).
            long a = live.get(random.nextInt(live.size()));
            long b = nextId++;
            live.add(b);
            c.setAutoCommit(false);
            try (PreparedStatement p1 = c.prepareStatement(
                            "UPDATE customer SET visits = " + (nextVisits++) + ", balance = balance + 1, "
                                    + "updated_at = NOW(6) WHERE customer_id = " + a);
                    PreparedStatement p2 = c.prepareStatement(
                            "INSERT INTO customer (customer_id, email, name, balance, visits) VALUES (" + b + ", 't"
                                    + b + "@example.com', 'txn', 1.25, 0)")) {
                p1.execute();
                p2.execute();
                c.commit();
            } finally {
                c.setAutoCommit(true);
            }
            ops.incrementAndGet();
            return;
        } else if (roll < 88) {
            long id = live.get(random.nextInt(live.size()));
            sql = "UPDATE customer SET visits = " + (nextVisits++) + ", name = 'upd" + random.nextInt(1000)
                    + "', updated_at = NOW(6) WHERE customer_id = " + id;
        } else {
            long id = live.remove(random.nextInt(live.size()));
            sql = "DELETE FROM customer WHERE customer_id = " + id;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
        ops.incrementAndGet();
    }

    public long ops() {
        return ops.get();
    }

    /**
     * The next id this writer would insert: every id in {@code [base, nextId)} was inserted exactly
     * once (by {@link #insertRows} or the random mix). Read it after {@link #stop()}.
     */
    public long nextId() {
        return nextId;
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

    /**
     * Stops writing and deletes every row of this writer's range (customer, corder, all_types):
     * tests clean up after themselves, so the tables do not grow from run to run.
     */
    @Override
    public void close() throws Exception {
        stop();
        String range = " >= " + base + " AND %s < " + (base + RANGE);
        VitessCluster.execute("customer",
                "DELETE FROM customer WHERE customer_id" + String.format(range, "customer_id"),
                "DELETE FROM corder WHERE customer_id" + String.format(range, "customer_id"),
                "DELETE FROM all_types WHERE id" + String.format(range, "id"));
    }
}
