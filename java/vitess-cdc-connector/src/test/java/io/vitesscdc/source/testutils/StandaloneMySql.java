/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import static org.assertj.core.api.Assertions.fail;

/**
 * The standalone MySQL of tests/mysql (up.sh), the target of the JDBC sink recipe: a plain mysqld,
 * not Vitess. Where it is comes from system properties, then the variables tests/mysql/env.sh
 * exports, then its defaults (127.0.0.1:15980, user {@code flink}/{@code flink}, database {@code
 * sink}).
 */
public final class StandaloneMySql {

    private StandaloneMySql() {}

    public static String host() {
        return setting("mysql.sink.host", "MYSQL_SINK_HOST", "127.0.0.1");
    }

    public static int port() {
        return Integer.parseInt(setting("mysql.sink.port", "MYSQL_SINK_PORT", "15980"));
    }

    public static String user() {
        return setting("mysql.sink.user", "MYSQL_SINK_USER", "flink");
    }

    public static String password() {
        return setting("mysql.sink.password", "MYSQL_SINK_PASSWORD", "flink");
    }

    public static String database() {
        return setting("mysql.sink.database", "MYSQL_SINK_DATABASE", "sink");
    }

    /** The JDBC URL of its database, as a Flink {@code 'connector' = 'jdbc'} table names it. */
    public static String jdbcUrl() {
        return "jdbc:mysql://" + host() + ":" + port() + "/" + database();
    }

    private static String setting(String property, String env, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isEmpty()) {
            v = System.getenv(env);
        }
        return v == null || v.isEmpty() ? fallback : v;
    }

    /** Fails (never skips) with instructions when the server does not answer. */
    public static void requireRunning() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host(), port()), 2000);
        } catch (IOException e) {
            fail("The standalone MySQL is not running: " + host() + ":" + port() + " refused the connection ("
                    + e.getMessage() + "). Start it with bash tests/mysql/up.sh (needs tests/vitess/install.sh "
                    + "once), or point MYSQL_SINK_PORT at a running one.");
        }
    }

    public static Connection connect() throws SQLException {
        // MySQL 9 authenticates with caching_sha2_password only: without TLS the driver needs the
        // server's public key for the first login of an account.
        return DriverManager.getConnection(
                jdbcUrl() + "?allowPublicKeyRetrieval=true&connectTimeout=5000", user(), password());
    }

    public static void execute(String... sql) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }

    /** Rows as {@link SqlEndpoint#rows}: key columns joined with {@code |}, normalized values. */
    public static Map<String, Map<String, String>> query(String sql, String... keyColumns) throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return SqlEndpoint.rows(rs, keyColumns);
        }
    }
}
