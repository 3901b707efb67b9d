/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.soak;

import io.vitesscdc.source.testutils.PacedWriter;
import io.vitesscdc.source.testutils.SqlEndpoint;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Set;
import java.util.TreeSet;

/** Append-only inserts into {@code customer.soak_appends}: each must reach Flink exactly once. */
final class SoakAppendsWriter extends PacedWriter implements AutoCloseable {

    static final String TABLE = "soak_appends";

    private final long run;
    private final long firstId;
    private long nextId;

    SoakAppendsWriter(long run, SqlEndpoint endpoint) {
        super("customer", "soak-appends-writer", endpoint);
        this.run = run;
        this.firstId = (run % 100_000) * 100_000_000L;
        this.nextId = firstId;
    }

    @Override
    protected synchronized void step(Connection c) throws SQLException {
        long id = nextId++;
        execute(c, "INSERT INTO " + TABLE + " (id, run, note) VALUES (" + id + ", " + run + ", 'a" + id + "')");
    }

    /** Ids of the run's rows in Vitess. */
    Set<String> idsInVitess() throws SQLException {
        return new TreeSet<>(endpoint.query("customer", "SELECT id FROM " + TABLE + " WHERE run = " + run, "id")
                .keySet());
    }

    @Override
    public void close() throws Exception {
        stop();
        deleteRunRows(TABLE, run, firstId, nextId);
    }
}
