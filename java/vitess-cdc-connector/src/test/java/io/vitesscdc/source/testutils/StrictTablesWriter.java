/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes into the tables of the {@code strict} keyspace ({@link StrictTable}): inserts, updates
 * of the value columns ({@code amount}, sometimes {@code grp}), deletes, and primary-key moves to
 * another shard. Only rows of its own run are touched: every row carries the writer's {@link
 * #run()} id, and every key embeds it, so keys never collide with rows an earlier run left behind
 * and tests can run again without manual cleanup ({@link #close} deletes the run's rows).
 *
 * <p>Deterministic given the seed: the keys' order among themselves, the values and the sequence
 * of operations (only the run id, from the clock, differs between runs; it sits below the random
 * part of every key, so it does not change how the run's keys sort).
 *
 * <p>Primary-key moves: Vitess v24 refuses an UPDATE of a primary vindex column ("VT12001: you
 * cannot UPDATE primary vindex columns"), so a move is what VTGate would run for one: in one
 * transaction, a DELETE of the row on its shard and an INSERT of it under the new key on another
 * shard (the new key is drawn until the vindex maps it to another shard; vttestserver's
 * transaction mode is MULTI, which allows the two-shard transaction).
 */
public final class StrictTablesWriter extends PacedWriter implements AutoCloseable {

    public static final int PAD_BYTES = 1000;

    /** Characters of text keys: case and accent variants, multi-byte, a 4-byte emoji; no quote, no space. */
    private static final String[] ALPHABET = {
        "a", "A", "á", "Á", "à", "b", "B", "e", "É", "ê", "o", "Ö", "ø", "s", "S", "ß", "z", "Z", "0", "9", "_", "-",
        "~", "ÿ", "Ω", "ж", "✓", "中", "😀"
    };

    private static final AtomicLong LAST_RUN = new AtomicLong();

    private final long run;
    private final Random random;
    private final Map<StrictTable, List<List<Object>>> live = new EnumMap<>(StrictTable.class);
    private final Map<StrictTable, Integer> nextSeq = new EnumMap<>(StrictTable.class);
    private final AtomicLong inserts = new AtomicLong();
    private final AtomicLong updates = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();
    private final AtomicLong moves = new AtomicLong();

    public StrictTablesWriter(long seed) {
        super(StrictTable.KEYSPACE, "strict-tables-writer");
        this.random = new Random(seed);
        // Deciseconds since the epoch, strictly increasing within the JVM: unique per writer.
        this.run = LAST_RUN.updateAndGet(last -> Math.max(last + 1, System.currentTimeMillis() / 100));
        for (StrictTable t : StrictTable.values()) {
            live.put(t, new ArrayList<>());
            nextSeq.put(t, 0);
        }
    }

    public long run() {
        return run;
    }

    /** The SQL condition selecting this writer's rows of any strict table. */
    public String runPredicate() {
        return "run = " + run;
    }

    /** Inserts {@code perTable} rows into every table (the part the copy phase reads). */
    public void insertRows(int perTable) throws SQLException {
        try (Connection c = VitessCluster.connect(StrictTable.KEYSPACE)) {
            for (StrictTable t : StrictTable.values()) {
                List<String> tuples = new ArrayList<>();
                for (int i = 0; i < perTable; i++) {
                    tuples.add(newRowTuple(t));
                }
                // ~100 KB per statement.
                insertInBatches(c, insertPrefix(t), tuples, 100);
            }
        }
    }

    @Override
    protected void step(Connection c) throws SQLException {
        StrictTable t = StrictTable.values()[random.nextInt(StrictTable.values().length)];
        List<List<Object>> keys = live.get(t);
        int roll = random.nextInt(100);
        if (keys.isEmpty() || roll < 25) {
            execute(c, insertPrefix(t) + newRowTuple(t));
            inserts.incrementAndGet();
        } else if (roll < 60) {
            List<Object> key = keys.get(random.nextInt(keys.size()));
            // A third of the updates also move the row to another group (a retraction from one
            // GROUP BY result and an accumulation into another).
            String grp = random.nextInt(3) == 0 ? ", grp = '" + grp() + "'" : "";
            execute(
                    c,
                    "UPDATE " + t.table + " SET amount = amount + " + (random.nextInt(2001) - 1000) + grp + " WHERE "
                            + where(t, key));
            updates.incrementAndGet();
        } else if (roll < 75) {
            List<Object> key = keys.remove(random.nextInt(keys.size()));
            execute(c, "DELETE FROM " + t.table + " WHERE " + where(t, key));
            deletes.incrementAndGet();
        } else {
            move(c, t, keys.remove(random.nextInt(keys.size())));
            moves.incrementAndGet();
        }
    }

    /** Moves a row to a new primary key on another shard (DELETE + INSERT in one transaction). */
    private void move(Connection c, StrictTable t, List<Object> key) throws SQLException {
        String from = shardOf(c, t, key);
        List<Object> moved = null;
        for (int attempt = 0; attempt < 50 && moved == null; attempt++) {
            List<Object> candidate = t == StrictTable.COMPOSITE
                    ? List.of(random.nextLong(), key.get(1)) // a new tenant: the vindex column
                    : newKey(t);
            if (!shardOf(c, t, candidate).equals(from)) {
                moved = candidate;
            }
        }
        if (moved == null) {
            throw new IllegalStateException("no key of " + t.table + " outside shard " + from + " in 50 draws");
        }
        c.setAutoCommit(false);
        try {
            String values;
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT run, grp, amount, pad FROM " + t.table + " WHERE "
                            + where(t, key) + " FOR UPDATE")) {
                if (!rs.next()) {
                    throw new IllegalStateException(t.table + " has no row " + key + " to move");
                }
                values =
                        rs.getLong(1) + ", '" + rs.getString(2) + "', " + rs.getLong(3) + ", '" + rs.getString(4) + "'";
            }
            execute(c, "DELETE FROM " + t.table + " WHERE " + where(t, key));
            execute(c, insertPrefix(t) + "(" + literals(moved) + ", " + values + ")");
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
        live.get(t).add(moved);
    }

    /** The shard the table's vindex maps the key to (Vitess vindex function). */
    private static String shardOf(Connection c, StrictTable t, List<Object> key) throws SQLException {
        Object v = key.get(t.keyColumns.indexOf(t.vindexColumn));
        // The hash vindex maps a BIGINT by its 64 bits; the vindex function takes no negative literal.
        String literal = v instanceof Long ? Long.toUnsignedString((Long) v) : literal(v);
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT shard FROM " + t.vindex + " WHERE id = " + literal)) {
            if (!rs.next()) {
                throw new IllegalStateException("vindex " + t.vindex + " maps no shard for " + literal);
            }
            return rs.getString(1);
        }
    }

    private String newRowTuple(StrictTable t) {
        List<Object> key = newKey(t);
        live.get(t).add(key);
        return "(" + literals(key) + ", " + run + ", '" + grp() + "', " + (random.nextInt(2_000_000) - 1_000_000)
                + ", '" + pad() + "')";
    }

    /**
     * A new key, unique in the table for ever: a random part first (it decides the order), then the
     * run id and a sequence number.
     */
    private List<Object> newKey(StrictTable t) {
        int seq = nextSeq.merge(t, 1, Integer::sum);
        if (seq >= 1 << 16) {
            throw new IllegalStateException("more than 65535 keys in " + t.table + " for one run");
        }
        long unique = run << 16 | seq;
        switch (t) {
            case COMPOSITE:
                return List.of(random.nextLong(), unique);
            case VARBINARY: {
                // 0..10 random bytes, often 0x00 and 0xff (edges of the order, prefixes of each other).
                int n = random.nextInt(11);
                ByteBuffer b = ByteBuffer.allocate(n + 8);
                for (int i = 0; i < n; i++) {
                    int roll = random.nextInt(4);
                    b.put(roll == 0 ? (byte) 0x00 : roll == 1 ? (byte) 0xff : (byte) random.nextInt(256));
                }
                return List.of(b.putLong(unique).array());
            }
            case VARCHAR:
            case VARCHAR_BIN: {
                StringBuilder s = new StringBuilder();
                for (int i = random.nextInt(7); i > 0; i--) {
                    s.append(ALPHABET[random.nextInt(ALPHABET.length)]);
                }
                // The suffix keeps keys unique also where utf8mb4_0900_ai_ci calls words equal (a = Á, ß = ss).
                return List.of(s.append('#').append(Long.toString(unique, 36)).toString());
            }
            case UNSIGNED:
                // 20 random high bits spread the keys over the whole u64 range (half above 2^63);
                // below them 28 bits of the run id and the 16-bit sequence.
                return List.of(BigInteger.valueOf(random.nextInt(1 << 20))
                        .shiftLeft(44)
                        .or(BigInteger.valueOf((run & ((1L << 28) - 1)) << 16 | seq)));
            default:
                throw new IllegalArgumentException(t.name());
        }
    }

    private String grp() {
        return "g" + random.nextInt(5);
    }

    private static String pad() {
        return "p".repeat(PAD_BYTES);
    }

    private static String insertPrefix(StrictTable t) {
        return "INSERT INTO " + t.table + " (" + String.join(", ", t.columns()) + ") VALUES ";
    }

    private static String where(StrictTable t, List<Object> key) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < key.size(); i++) {
            parts.add(t.keyColumns.get(i) + " = " + literal(key.get(i)));
        }
        return String.join(" AND ", parts);
    }

    private static String literals(List<Object> key) {
        List<String> out = new ArrayList<>();
        for (Object v : key) {
            out.add(literal(v));
        }
        return String.join(", ", out);
    }

    /** SQL literal of a key value (text keys come from {@link #ALPHABET}: nothing to escape). */
    private static String literal(Object v) {
        if (v instanceof byte[]) {
            return "x'" + HexFormat.of().formatHex((byte[]) v) + "'";
        }
        if (v instanceof String) {
            return "'" + v + "'";
        }
        return v.toString();
    }

    /** What the writer did, for test output. */
    public String summary() {
        return "run " + run + ": " + ops() + " ops (" + inserts + " inserts, " + updates + " updates, " + deletes
                + " deletes, " + moves + " cross-shard key moves)";
    }

    public long moves() {
        return moves.get();
    }

    /** Stops writing and deletes the run's rows from every strict table. */
    @Override
    public void close() throws Exception {
        stop();
        List<String> deletes = new ArrayList<>();
        for (StrictTable t : StrictTable.values()) {
            deletes.add("DELETE FROM " + t.table + " WHERE " + runPredicate());
        }
        VitessCluster.execute(StrictTable.KEYSPACE, deletes.toArray(new String[0]));
    }
}
