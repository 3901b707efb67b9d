/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.fail;

/**
 * One VTGate as the tests reach it: its gRPC address (for the source) and its MySQL port (for
 * the tests' own statements, user {@code vitess_cdc_it} without password). {@link VitessCluster}
 * is the vttestserver one; {@link #multiProcess()} the multi-process cluster of
 * tests/vitess/cluster, which can do what vtcombo cannot (online DDL, resharding, reparents).
 */
public record VitessEndpoint(String grpcAddress, String mysqlHost, int mysqlPort) {

    /**
     * The multi-process cluster's plaintext VTGate, from the variables tests/vitess/cluster/env.sh
     * exports; fails (never skips) with the fix when they are missing.
     */
    public static VitessEndpoint multiProcess() {
        return new VitessEndpoint(
                clusterEnv("VT_CLUSTER_GRPC_ADDR"), "127.0.0.1", Integer.parseInt(clusterEnv("VT_CLUSTER_MYSQL_PORT")));
    }

    private static String clusterEnv(String name) {
        String v = System.getenv(name);
        if (v == null || v.isEmpty()) {
            fail(name + " is not set: this test needs the multi-process local Vitess. Start it with "
                    + "bash tests/vitess/cluster/up.sh && source tests/vitess/cluster/env.sh "
                    + "(installs with tests/vitess/cluster/install.sh)");
        }
        return v;
    }

    public Connection connect(String keyspace) throws SQLException {
        String url = "jdbc:mysql://" + mysqlHost + ":" + mysqlPort + "/" + keyspace
                + "?user=vitess_cdc_it&useSSL=false&allowPublicKeyRetrieval=true&connectTimeout=5000";
        return DriverManager.getConnection(url);
    }

    public void execute(String keyspace, String... sql) throws SQLException {
        try (Connection c = connect(keyspace);
                Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    /**
     * Rows of a query as {@code key -> (column -> normalized text)}, keyed by the given key
     * columns joined with {@code |}. Values are normalized by {@link Values#normalize}.
     */
    public Map<String, Map<String, String>> query(String keyspace, String sql, String... keyColumns)
            throws SQLException {
        Map<String, Map<String, String>> out = new TreeMap<>();
        try (Connection c = connect(keyspace);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    String type = md.getColumnTypeName(i).toUpperCase();
                    Object v = type.startsWith("DATETIME") || type.startsWith("TIMESTAMP")
                            ? rs.getObject(i, java.time.LocalDateTime.class)
                            : rs.getObject(i);
                    row.put(md.getColumnLabel(i), Values.normalize(v));
                }
                StringBuilder key = new StringBuilder();
                for (String k : keyColumns) {
                    key.append(key.length() == 0 ? "" : "|").append(row.get(k));
                }
                out.put(key.toString(), row);
            }
        }
        return out;
    }
}
