/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

import static org.assertj.core.api.Assertions.fail;

/**
 * The local Vitess of tests/vitess (up.sh) as the Flink tests see it. Addresses come from system
 * properties, then the variables tests/vitess/env.sh exports, then the defaults
 * (127.0.0.1:15991 gRPC, 127.0.0.1:15993 MySQL).
 */
public final class VitessCluster {

    private VitessCluster() {}

    public static String grpcAddress() {
        return setting("vitess.grpc.addr", "VTGATE_GRPC_ADDR", "127.0.0.1:15991");
    }

    public static String mysqlHost() {
        return setting("vitess.mysql.host", "VTGATE_MYSQL_HOST", "127.0.0.1");
    }

    public static int mysqlPort() {
        return Integer.parseInt(setting("vitess.mysql.port", "VTGATE_MYSQL_PORT", "15993"));
    }

    private static String setting(String property, String env, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isEmpty()) {
            v = System.getenv(env);
        }
        return v == null || v.isEmpty() ? fallback : v;
    }

    /**
     * Fails (never skips) with instructions when VTGate does not answer: an integration test that
     * quietly skips proves nothing.
     */
    public static void requireRunning() {
        String grpc = grpcAddress();
        int colon = grpc.lastIndexOf(':');
        String grpcHost = grpc.substring(0, colon).replaceFirst("^https?://", "");
        int grpcPort = Integer.parseInt(grpc.substring(colon + 1));
        String[][] targets = {
            {grpcHost, String.valueOf(grpcPort), "VTGate gRPC"},
            {mysqlHost(), String.valueOf(mysqlPort()), "VTGate MySQL"}
        };
        for (String[] target : targets) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(target[0], Integer.parseInt(target[1])), 2000);
            } catch (IOException e) {
                fail("The local Vitess is not running: " + target[2] + " at " + target[0] + ":" + target[1]
                        + " refused the connection (" + e.getMessage() + "). Start it with "
                        + "bash tests/vitess/up.sh (once: tests/vitess/install.sh), or point VTGATE_GRPC_ADDR / "
                        + "VTGATE_MYSQL_PORT at a running one.");
            }
        }
    }

    /** The vttestserver VTGate's MySQL port. */
    public static SqlEndpoint sql() {
        return new SqlEndpoint(mysqlHost(), mysqlPort());
    }

    public static Connection connect(String keyspace) throws SQLException {
        return sql().connect(keyspace);
    }

    public static void execute(String keyspace, String... sql) throws SQLException {
        sql().execute(keyspace, sql);
    }

    /** {@link SqlEndpoint#query} on {@link #sql()}. */
    public static Map<String, Map<String, String>> query(String keyspace, String sql, String... keyColumns)
            throws SQLException {
        return sql().query(keyspace, sql, keyColumns);
    }
}
