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

/**
 * A VTGate's MySQL port (no password), as tests write and read through it: the vttestserver's
 * ({@link VitessCluster#sql()}) or one of the multi-process cluster's gates. With {@code olap},
 * queries run in VTGate's OLAP workload (streamed, without the tablets' 10,000-row limit of a
 * result).
 */
public record SqlEndpoint(String host, int port, boolean olap) {

    public SqlEndpoint(String host, int port) {
        this(host, port, false);
    }

    public Connection connect(String keyspace) throws SQLException {
        String url = "jdbc:mysql://" + host + ":" + port + "/" + keyspace
                + "?user=vitess_cdc_it&useSSL=false&allowPublicKeyRetrieval=true&connectTimeout=5000"
                // A gate whose tablet hangs (a frozen vttablet, a reparent) must fail a statement,
                // not hold a test's writer forever.
                + "&socketTimeout=120000";
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

    private ResultSet executeQuery(Statement s, String sql) throws SQLException {
        if (olap) {
            s.execute("SET workload = 'olap'");
        }
        return s.executeQuery(sql);
    }

    /**
     * Rows of a query as {@code key -> (column -> normalized text)}, keyed by the given key
     * columns joined with {@code |}. Values are normalized by {@link Values#normalize}.
     */
    public Map<String, Map<String, String>> query(String keyspace, String sql, String... keyColumns)
            throws SQLException {
        try (Connection c = connect(keyspace);
                Statement s = c.createStatement();
                ResultSet rs = executeQuery(s, sql)) {
            return rows(rs, keyColumns);
        }
    }

    /**
     * A result's rows as {@code key -> (column -> normalized text)}, keyed by the given key columns
     * joined with {@code |}; values normalized by {@link Values#normalize}, date-times read as
     * {@code LocalDateTime}. For any MySQL server's results, not only VTGate's.
     */
    public static Map<String, Map<String, String>> rows(ResultSet rs, String... keyColumns) throws SQLException {
        Map<String, Map<String, String>> out = new TreeMap<>();
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
        return out;
    }
}
