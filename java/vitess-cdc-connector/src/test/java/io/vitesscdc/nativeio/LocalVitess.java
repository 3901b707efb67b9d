package io.vitesscdc.nativeio;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The local Vitess of tests/vitess (up.sh): where it listens and how to write to it.
 *
 * <p>Addresses come from system properties, then the environment variables tests/vitess/env.sh
 * exports, then the defaults: {@code vitess.grpc.addr} / {@code VTGATE_GRPC_ADDR}
 * (127.0.0.1:15991), {@code vitess.mysql.host} / {@code VTGATE_MYSQL_HOST} (127.0.0.1),
 * {@code vitess.mysql.port} / {@code VTGATE_MYSQL_PORT} (15993).
 */
final class LocalVitess {

    private LocalVitess() {}

    static String grpcAddress() {
        return setting("vitess.grpc.addr", "VTGATE_GRPC_ADDR", "127.0.0.1:15991");
    }

    static String mysqlHost() {
        return setting("vitess.mysql.host", "VTGATE_MYSQL_HOST", "127.0.0.1");
    }

    static int mysqlPort() {
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
    static void requireRunning() {
        String grpc = grpcAddress();
        int colon = grpc.lastIndexOf(':');
        String grpcHost = grpc.substring(0, colon).replaceFirst("^https?://", "");
        int grpcPort = Integer.parseInt(grpc.substring(colon + 1));
        for (String[] target : new String[][] {
            {grpcHost, String.valueOf(grpcPort), "VTGate gRPC"},
            {mysqlHost(), String.valueOf(mysqlPort()), "VTGate MySQL"}
        }) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(target[0], Integer.parseInt(target[1])), 2000);
            } catch (IOException e) {
                fail("The local Vitess is not running: " + target[2] + " at " + target[0] + ":" + target[1]
                        + " refused the connection (" + e.getMessage() + "). Start it with tests/vitess/up.sh"
                        + " (once: tests/vitess/install.sh), or point VTGATE_GRPC_ADDR / VTGATE_MYSQL_PORT at"
                        + " a running one.");
            }
        }
    }

    /** A JDBC connection through VTGate's MySQL protocol port to {@code keyspace}. */
    static Connection connect(String keyspace) throws SQLException {
        String url = "jdbc:mysql://" + mysqlHost() + ":" + mysqlPort() + "/" + keyspace
                + "?user=vitess_cdc_it&useSSL=false&allowPublicKeyRetrieval=true&connectTimeout=5000";
        return DriverManager.getConnection(url);
    }

    /** Runs statements in {@code keyspace}, each auto-committed. */
    static void execute(String keyspace, String... sql) throws SQLException {
        try (Connection c = connect(keyspace);
                Statement s = c.createStatement()) {
            for (String q : sql) {
                s.execute(q);
            }
        }
    }
}
