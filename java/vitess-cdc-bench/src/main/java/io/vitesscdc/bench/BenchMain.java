/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

/**
 * One consumer run of the end-to-end benchmark, in a JVM of its own (so CPU, RSS and the time to
 * the first record are that consumer's alone): {@code --consumer sql|sql-datagen|datastream|debezium}. Prints
 * the result as one JSON line on stdout and exits; exit code 2 if the run did not finish within
 * {@code --timeout} seconds.
 */
public final class BenchMain {

    /** The run of this JVM; static so that Flink's sink subtasks (same JVM) can reach it. */
    static volatile Recorder recorder;

    static volatile BenchArgs args;

    private BenchMain() {}

    /**
     * Writes the JFR recordings started with {@code -XX:StartFlightRecording} to the file the
     * system property {@code bench.jfr} names (scripts/profile-e2e.sh): {@code halt} skips the
     * shutdown hook that would dump them.
     */
    private static void dumpFlightRecordings() throws java.io.IOException {
        String file = System.getProperty("bench.jfr");
        if (file == null) {
            return;
        }
        for (jdk.jfr.Recording r : jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings()) {
            r.dump(java.nio.file.Path.of(file));
        }
    }

    public static void main(String[] argv) throws Exception {
        BenchArgs a = new BenchArgs(argv);
        args = a;
        Recorder rec = new Recorder(a.consumer, a.scenario, a.table);
        recorder = rec;
        if (!a.latencyMode()) {
            rec.expect(a.events);
        }
        switch (a.consumer) {
            case "sql":
                FlinkConsumers.startSql(a, rec);
                break;
            case "sql-datagen":
                FlinkConsumers.startSqlDatagen(a, rec);
                break;
            case "datastream":
                FlinkConsumers.startDataStream(a, rec);
                break;
            case "debezium":
                DebeziumConsumer.start(a, rec);
                break;
            default:
                throw new IllegalArgumentException(
                        "unknown --consumer " + a.consumer + " (sql, sql-datagen, datastream, debezium)");
        }
        boolean flinkCounted = !a.consumer.equals("debezium");
        long deadline = System.nanoTime() + (long) (a.timeoutSeconds * 1e9);
        while (!a.done(rec)) {
            if (System.nanoTime() > deadline) {
                System.err.println("bench: " + a.consumer + " saw " + rec.events() + " records within "
                        + a.timeoutSeconds + " s, expected " + (a.latencyMode() ? "a latency window" : a.events));
                System.out.flush();
                Runtime.getRuntime().halt(2);
            }
            if (flinkCounted) {
                rec.observeTotal(SourceRecordCounter.total());
            }
            Thread.sleep(1);
        }
        System.out.println(rec.json());
        System.out.flush();
        dumpFlightRecordings();
        // The figures are out; a graceful shutdown of the job or engine would only add time.
        Runtime.getRuntime().halt(0);
    }
}
