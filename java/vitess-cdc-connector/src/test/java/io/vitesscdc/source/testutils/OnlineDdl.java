/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Vitess's online DDL as teams run it: {@code SET @@ddl_strategy='vitess'}, then the ALTER, which
 * VTGate answers at once with the migration's UUID; the tablets copy the table into a shadow table
 * by VReplication and cut over by RENAME. {@link #run} returns the migration's UUID when every
 * shard's migration is complete, and fails with the migration's message when one failed. The
 * migration's VReplication workflow (named by the UUID) stays, stopped, until deleted.
 */
public final class OnlineDdl {

    private OnlineDdl() {}

    public static String run(SqlEndpoint vitess, String keyspace, String alter) throws Exception {
        String uuid;
        try (Connection c = vitess.connect(keyspace);
                Statement s = c.createStatement()) {
            s.execute("SET @@ddl_strategy = 'vitess'");
            if (!s.execute(alter)) {
                throw new AssertionError("VTGate answered the online DDL without a migration UUID: " + alter);
            }
            try (ResultSet rs = s.getResultSet()) {
                if (!rs.next()) {
                    throw new AssertionError("VTGate answered the online DDL with no rows: " + alter);
                }
                uuid = rs.getString(1);
            }
        }
        long deadline = System.nanoTime() + TestTimeouts.RESHARD.toNanos();
        List<String> statuses = List.of();
        while (System.nanoTime() < deadline) {
            statuses = statuses(vitess, keyspace, uuid);
            if (!statuses.isEmpty() && statuses.stream().allMatch(st -> st.startsWith("complete"))) {
                return uuid;
            }
            for (String st : statuses) {
                if (st.startsWith("failed") || st.startsWith("cancelled")) {
                    throw new AssertionError("online DDL " + uuid + " (" + alter + ") ended: " + statuses);
                }
            }
            Thread.sleep(250);
        }
        throw new AssertionError(
                "online DDL " + uuid + " (" + alter + ") not complete in " + TestTimeouts.RESHARD + ": " + statuses);
    }

    /** Each shard's {@code migration_status: message} of the migration. */
    private static List<String> statuses(SqlEndpoint vitess, String keyspace, String uuid) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = vitess.connect(keyspace);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW VITESS_MIGRATIONS LIKE '" + uuid + "'")) {
            while (rs.next()) {
                out.add(rs.getString("migration_status") + ": " + rs.getString("message"));
            }
        }
        return out;
    }
}
