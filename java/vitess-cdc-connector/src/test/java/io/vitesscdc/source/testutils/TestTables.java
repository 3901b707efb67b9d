/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Tables a test creates for itself in keyspace {@code customer}, sharded by {@code hash(id)}, under
 * names of their own (so reruns and a killed run leave nothing another run reads), dropped by
 * {@link #close}.
 */
public final class TestTables implements AutoCloseable {

    private static final String KEYSPACE = "customer";

    private final SqlEndpoint vitess;
    private final List<String> created = new ArrayList<>();

    /** Tables of the local Vitess ({@link VitessCluster}). */
    public TestTables() {
        this(VitessCluster.sql());
    }

    public TestTables(SqlEndpoint vitess) {
        this.vitess = vitess;
    }

    /** A new table {@code <prefix>_<unique>} with these column definitions and a hash(id) vindex. */
    public String create(String prefix, String columns) throws SQLException {
        String t = prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        created.add(t);
        vitess.execute(
                KEYSPACE,
                "CREATE TABLE " + t + " (" + columns + ")",
                "ALTER VSCHEMA ON " + KEYSPACE + "." + t + " ADD VINDEX hash(id) USING hash");
        return t;
    }

    /**
     * Runs the statements in order, each retried while VTGate answers "not found" (its schema
     * tracking learns of a column added or renamed by a DDL a moment after the DDL) or MySQL
     * asks to restart the transaction (a lock wait or deadlock against a concurrent writer).
     */
    public void executeOnceVtgateKnows(String... sql) throws Exception {
        for (String statement : sql) {
            long deadline = System.nanoTime() + TestTimeouts.PROGRESS.toNanos();
            while (true) {
                try {
                    vitess.execute(KEYSPACE, statement);
                    break;
                } catch (SQLException e) {
                    String m = String.valueOf(e.getMessage());
                    boolean transientRefusal = m.contains("not found") || m.contains("try restarting transaction");
                    if (!transientRefusal || System.nanoTime() > deadline) {
                        throw e;
                    }
                    Thread.sleep(250);
                }
            }
        }
    }

    /** Drops every table created here (and its vindex); a failure is printed, not thrown. */
    @Override
    public void close() {
        for (String t : created) {
            try {
                vitess.execute(KEYSPACE, "DROP TABLE IF EXISTS " + t);
            } catch (Exception e) {
                System.err.println("cannot drop " + t + ": " + e);
            }
            try {
                vitess.execute(KEYSPACE, "ALTER VSCHEMA ON " + KEYSPACE + "." + t + " DROP VINDEX hash");
            } catch (Exception e) {
                // already gone with the table
            }
        }
        created.clear();
    }
}
