/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.StatementSet;
import org.apache.flink.table.api.TableEnvironment;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** What the SQL ITCases share: a table environment, the connector's WITH clause, the upsert sink. */
public final class SqlJobs {

    private SqlJobs() {}

    /** Streaming, checkpoints every second, no restarts (a failure fails the test). */
    public static TableEnvironment tableEnv(int parallelism) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("parallelism.default", String.valueOf(parallelism));
        tEnv.getConfig().set("execution.checkpointing.interval", "1 s");
        tEnv.getConfig().set("restart-strategy.type", "none");
        return tEnv;
    }

    /** {@code WITH (...)} of a vitess-cdc table of keyspace {@code customer}, plus extra options. */
    public static String with(String table, String extra) {
        return with("customer", table, extra);
    }

    public static String with(String keyspace, String table, String extra) {
        return with(VitessCluster.grpcAddress(), keyspace, table, extra);
    }

    /** The same for a VTGate at {@code grpcAddress} (e.g. of the multi-process cluster). */
    public static String with(String grpcAddress, String keyspace, String table, String extra) {
        return " WITH ('connector' = 'vitess-cdc', 'vtgate.address' = '" + grpcAddress + "', 'keyspace' = '" + keyspace
                + "', 'table-name' = '" + table + "'" + extra + ")";
    }

    /** The run's upsert sink ({@link MaterializedTables} under the run id). */
    public static String upsertSink(String runId) {
        return " WITH ('connector' = 'upsert-collecting', 'tables-id' = '" + runId + "')";
    }

    /** The INSERTs as one job: one scan of the source feeds every sink. */
    public static JobClient executeAll(TableEnvironment tEnv, String... inserts) {
        StatementSet set = tEnv.createStatementSet();
        for (String insert : inserts) {
            set.addInsertSql(insert);
        }
        return set.execute().getJobClient().orElseThrow();
    }

    /** The rows with only these columns, in this order. */
    public static Map<String, Map<String, String>> project(Map<String, Map<String, String>> rows, String[] columns) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        rows.forEach((k, row) -> {
            Map<String, String> p = new LinkedHashMap<>();
            for (String c : columns) {
                p.put(c, row.get(c));
            }
            out.put(k, p);
        });
        return out;
    }
}
