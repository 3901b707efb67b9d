/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.demo;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The demo: a Flink SQL job reads {@code customer.customer} from the local Vitess with
 * {@code 'connector' = 'vitess-cdc'} (initial snapshot, then every change) and keeps a
 * materialized copy in sync with {@code INSERT INTO}, while a load generator writes. Every few
 * seconds it prints the copy's most recently changed rows next to Vitess's row count; at the end
 * it compares the whole copy with {@code SELECT *} through VTGate.
 *
 * <p>Arguments: {@code --vtgate HOST:PORT} (VTGate gRPC, default 127.0.0.1:15991),
 * {@code --mysql-port N} (VTGate MySQL, default 15993), {@code --seconds N} (how long to show
 * changes, default 30), {@code --parallelism N} (default 2).
 */
public final class SqlSyncDemo {

    private static final String COLUMNS = "customer_id, email, name, balance, visits, updated_at";
    private static final int SHOWN_ROWS = 8;

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = parseArgs(args);
        String vtgate = opts.getOrDefault("vtgate", "127.0.0.1:15991");
        String jdbcUrl = "jdbc:mysql://127.0.0.1:" + opts.getOrDefault("mysql-port", "15993")
                + "/customer?useSSL=false&allowPublicKeyRetrieval=true";
        int seconds = Integer.parseInt(opts.getOrDefault("seconds", "30"));
        int parallelism = Integer.parseInt(opts.getOrDefault("parallelism", "2"));

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(2_000);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);

        String ddl = "CREATE TABLE customers (\n"
                + "  customer_id BIGINT,\n"
                + "  email STRING,\n"
                + "  name STRING,\n"
                + "  balance DECIMAL(12, 2),\n"
                + "  visits INT,\n"
                + "  updated_at TIMESTAMP(6),\n"
                + "  PRIMARY KEY (customer_id) NOT ENFORCED\n"
                + ") WITH (\n"
                + "  'connector' = 'vitess-cdc',\n"
                + "  'vtgate.address' = '" + vtgate + "',\n"
                + "  'keyspace' = 'customer',\n"
                + "  'table-name' = 'customer'\n"
                + ")";
        String sink = "CREATE TABLE customers_copy (\n"
                + "  customer_id BIGINT, email STRING, name STRING, balance DECIMAL(12, 2), visits INT,\n"
                + "  updated_at TIMESTAMP(6), PRIMARY KEY (customer_id) NOT ENFORCED\n"
                + ") WITH ('connector' = 'materialized', 'name' = 'customers_copy')";
        String insert = "INSERT INTO customers_copy SELECT * FROM customers";
        System.out.println("Flink SQL:\n" + ddl + ";\n" + sink + ";\n" + insert + ";\n");
        tEnv.executeSql(ddl);
        tEnv.executeSql(sink);
        TableResult result = tEnv.executeSql(insert);
        JobClient job = result.getJobClient().orElseThrow();
        System.out.println("job " + job.getJobID() + " running with parallelism " + parallelism
                + " (one split per shard: customer/-80, customer/80-)\n");

        MaterializedTable copy = MaterializedTable.named("customers_copy");
        boolean inSync;
        try (Connection vitess = DriverManager.getConnection(jdbcUrl, "demo", "")) {
            try (Statement s = vitess.createStatement()) {
                // OLAP streams results: OLTP mode caps a SELECT at 10,000 rows.
                s.execute("SET workload = 'olap'");
            }
            long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            while (System.nanoTime() < end) {
                Thread.sleep(3_000);
                show(copy, vitess);
            }
            System.out.println("writes stopped; waiting for the copy to catch up with Vitess ...");
            inSync = waitInSync(copy, vitess, Duration.ofSeconds(30));
        } finally {
            job.cancel().get();
        }
        System.exit(inSync ? 0 : 1);
    }

    /** Prints the copy's most recently changed rows and both row counts. */
    private static void show(MaterializedTable copy, Connection vitess) throws Exception {
        Map<String, List<String>> rows = copy.snapshot();
        long inVitess = count(vitess);
        List<List<String>> recent = new ArrayList<>(rows.values());
        recent.sort(Comparator.comparing((List<String> r) -> r.get(5)).reversed());
        System.out.printf(
                "%s  materialized copy: %d rows (Vitess: %d) | applied %d upserts, %d deletes%n",
                LocalDateTime.now().withNano(0), rows.size(), inVitess, copy.upserts(), copy.deletes());
        System.out.printf(
                "  %-18s %-36s %-9s %10s %6s  %s%n", "customer_id", "email", "name", "balance", "visits", "updated_at");
        for (List<String> r : recent.subList(0, Math.min(SHOWN_ROWS, recent.size()))) {
            System.out.printf(
                    "  %-18s %-36s %-9s %10s %6s  %s%n", r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5));
        }
        System.out.println();
    }

    /** Compares the whole copy with SELECT * through VTGate until equal or the timeout passes. */
    private static boolean waitInSync(MaterializedTable copy, Connection vitess, Duration timeout) throws Exception {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            Map<String, List<String>> expected = selectAll(vitess);
            Map<String, List<String>> actual = copy.snapshot();
            if (expected.equals(actual)) {
                System.out.printf(
                        "IN SYNC: the materialized copy equals customer.customer in Vitess "
                                + "(%d rows, every column compared)%n",
                        expected.size());
                return true;
            }
            if (System.nanoTime() > end) {
                System.out.println("NOT IN SYNC after " + timeout.toSeconds() + " s:");
                printDiff(expected, actual);
                return false;
            }
            Thread.sleep(1_000);
        }
    }

    private static void printDiff(Map<String, List<String>> expected, Map<String, List<String>> actual) {
        int shown = 0;
        for (Map.Entry<String, List<String>> e : expected.entrySet()) {
            List<String> got = actual.get(e.getKey());
            if (!e.getValue().equals(got) && shown++ < 10) {
                System.out.println("  key " + e.getKey() + ": Vitess " + e.getValue() + " copy " + got);
            }
        }
        for (String k : actual.keySet()) {
            if (!expected.containsKey(k) && shown++ < 10) {
                System.out.println("  key " + k + ": only in the copy " + actual.get(k));
            }
        }
    }

    private static long count(Connection vitess) throws Exception {
        try (Statement s = vitess.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM customer")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Map<String, List<String>> selectAll(Connection vitess) throws Exception {
        Map<String, List<String>> rows = new TreeMap<>();
        try (Statement s = vitess.createStatement();
                ResultSet rs = s.executeQuery("SELECT " + COLUMNS + " FROM customer")) {
            while (rs.next()) {
                List<String> row = MaterializedTable.row(
                        rs.getLong(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getBigDecimal(4),
                        rs.getInt(5),
                        rs.getObject(6, LocalDateTime.class));
                rows.put(row.get(0), row);
            }
        }
        return rows;
    }

    private static Map<String, String> parseArgs(String[] args) {
        Map<String, String> out = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: SqlSyncDemo [--vtgate HOST:PORT] [--mysql-port N] "
                        + "[--seconds N] [--parallelism N]; bad argument: " + args[i]);
            }
            out.put(args[i].substring(2), args[++i]);
        }
        return out;
    }
}
