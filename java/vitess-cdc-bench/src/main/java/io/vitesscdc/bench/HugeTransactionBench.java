/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.StartupMode;
import io.vitesscdc.source.VitessSource;
import io.vitesscdc.source.VitessSourceBuilder;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One huge transaction through a Flink job (#12, docs/benchmarks.md "Huge transactions"): a
 * DataStream job at parallelism 1 reads a table of an unsharded keyspace from the latest
 * position; once it runs, one {@code INSERT … SELECT} commits {@code --rows} rows of {@code
 * --row-bytes} bytes each in a single transaction; the job streams it while a sampler records
 * the JVM's resident set and live heap. With {@code --savepoint-at F} the job stops with a
 * savepoint once a fraction F of the rows arrived (inside the transaction) and a second job
 * restores from it in the same JVM; the sink checks every id arrived exactly once. Prints one
 * JSON line. Run by {@code scripts/bench-huge-txn.sh}.
 */
public final class HugeTransactionBench {

    /** The ids the sink saw; static, so that the sink subtasks (same JVM) reach it. */
    static volatile IdSet seen;

    static final AtomicLong PAYLOAD_BYTES = new AtomicLong();

    private HugeTransactionBench() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = BenchArgs.pairs(argv);
        String vtgate = a.getOrDefault("vtgate", "127.0.0.1:17991");
        String keyspace = a.getOrDefault("keyspace", "commerce");
        String table = a.getOrDefault("table", "huge_txn");
        String writeUrl = BenchArgs.required(a, "write-url");
        long rows = Long.parseLong(a.getOrDefault("rows", "1048576"));
        int rowBytes = Integer.parseInt(a.getOrDefault("row-bytes", "1024"));
        String chunkSize = a.getOrDefault("transaction-chunk-size", "4mb");
        // Empty: the connector's default.
        String bufferSize = a.getOrDefault("buffer-size", "");
        double savepointAt = Double.parseDouble(a.getOrDefault("savepoint-at", "0"));
        Path savepoints = Path.of(a.getOrDefault("savepoint-dir", "/tmp/bench-huge-txn-savepoints"));
        double timeoutSeconds = Double.parseDouble(a.getOrDefault("timeout", "1200"));

        seen = new IdSet(rows);
        try (MemorySampler memory = new MemorySampler(10);
                Connection sql = DriverManager.getConnection(writeUrl);
                Statement st = sql.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
            st.execute("CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, pad LONGTEXT NOT NULL)");
            // The stream's schema tracking sees the new table before the first job opens.
            Thread.sleep(2_000);

            JobClient first = start(vtgate, keyspace, table, chunkSize, bufferSize, null);
            awaitRunning(first, timeoutSeconds);
            // A few seconds of the job idling on the empty table, then the baseline.
            Thread.sleep(3_000);
            MemorySampler.Snapshot baseline = memory.mark();

            long writeStart = System.nanoTime();
            st.execute("SET SESSION cte_max_recursion_depth = " + (rows + 1));
            st.execute("INSERT INTO " + table + " (id, pad) WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL "
                    + "SELECT i + 1 FROM n WHERE i < " + rows + ") SELECT i, RPAD(CONCAT(i, ':'), " + rowBytes
                    + ", 'abcdefghijklmnopqrstuvwxyz') FROM n");
            double writeSeconds = (System.nanoTime() - writeStart) / 1e9;
            long streamStart = System.nanoTime();
            long cpuStart = (long) (ProcessStats.cpuSeconds() * 1e9);

            long atSavepoint = -1;
            JobClient job = first;
            if (savepointAt > 0) {
                long threshold = (long) (rows * savepointAt);
                awaitSeen(threshold, timeoutSeconds, "the savepoint moment");
                Files.createDirectories(savepoints);
                String savepoint = first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();
                atSavepoint = seen.distinct();
                job = start(vtgate, keyspace, table, chunkSize, bufferSize, savepoint);
            }
            awaitSeen(rows, timeoutSeconds, "every row of the transaction");
            double streamSeconds = (System.nanoTime() - streamStart) / 1e9;
            double cpuSeconds = ProcessStats.cpuSeconds() - cpuStart / 1e9;
            // Late repeats would arrive right after the last row.
            Thread.sleep(2_000);
            MemorySampler.Snapshot peak = memory.peak();
            job.cancel().get();

            Map<String, Object> out = new java.util.LinkedHashMap<>();
            out.put("transaction_chunk_size", chunkSize);
            out.put("rows", rows);
            out.put("row_bytes", rowBytes);
            out.put("buffer_size", bufferSize.isEmpty() ? "default" : bufferSize);
            // The rows' bytes in MySQL (the id and the payload), once each.
            long transactionBytes = rows * (rowBytes + 8L);
            out.put("transaction_mib", mib(transactionBytes));
            out.put("decoded_mib", mib(PAYLOAD_BYTES.get()));
            out.put("write_s", round(writeSeconds));
            out.put("stream_s", round(streamSeconds));
            out.put("rows_per_s", Math.round(rows / streamSeconds));
            out.put("mib_per_s", round(mib(transactionBytes) / streamSeconds));
            out.put("cpu_s_per_m_rows", round(cpuSeconds / (rows / 1e6)));
            out.put("baseline_rss_mib", mib(baseline.rss));
            out.put("peak_rss_mib", mib(peak.rss));
            out.put("rss_growth_mib", mib(peak.rss - baseline.rss));
            out.put("baseline_live_heap_mib", mib(baseline.liveHeap));
            out.put("peak_live_heap_mib", mib(peak.liveHeap));
            out.put("live_heap_growth_mib", mib(peak.liveHeap - baseline.liveHeap));
            out.put("savepoint_after_rows", atSavepoint);
            // Few big rows may all arrive before the savepoint completes: then it was not inside.
            out.put("savepoint_inside", atSavepoint > 0 && atSavepoint < rows);
            out.put("distinct_rows", seen.distinct());
            out.put("missing_rows", seen.missing());
            out.put("repeated_rows", seen.repeated());
            out.put("foreign_rows", seen.foreign());
            System.out.println(json(out));
            st.execute("DROP TABLE IF EXISTS " + table);
        }
        System.out.flush();
        // The figures are out; Flink's shutdown would only add time.
        Runtime.getRuntime().halt(0);
    }

    private static JobClient start(
            String vtgate, String keyspace, String table, String chunkSize, String bufferSize, String savepoint)
            throws Exception {
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(2_000);
        VitessSourceBuilder<Long> builder = VitessSource.<Long>builder()
                .address(vtgate)
                .keyspace(keyspace)
                .tables(table)
                .startupMode(StartupMode.LATEST_OFFSET)
                .transactionChunkSize(MemorySize.parse(chunkSize))
                .deserializer(new IdOnly());
        if (!bufferSize.isEmpty()) {
            builder.bufferSize(MemorySize.parse(bufferSize));
        }
        VitessSource<Long> source = builder.build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .sinkTo(new FlinkConsumers.PerRecordSink<Long>(id -> seen.add(id)))
                .name("exactly-once check");
        return env.executeAsync(savepoint == null ? "huge-txn" : "huge-txn-restored");
    }

    private static void awaitRunning(JobClient job, double timeoutSeconds) throws Exception {
        long deadline = System.nanoTime() + (long) (timeoutSeconds * 1e9);
        while (job.getJobStatus().get() != JobStatus.RUNNING) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the job did not start in " + timeoutSeconds + " s");
            }
            Thread.sleep(50);
        }
        // RUNNING is reported before the source has opened its stream: a first record-free
        // checkpoint cycle would be the proof, a few seconds are enough in practice.
        Thread.sleep(3_000);
    }

    private static void awaitSeen(long n, double timeoutSeconds, String what) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (timeoutSeconds * 1e9);
        while (seen.distinct() < n) {
            if (System.nanoTime() > deadline) {
                System.err.println("huge-txn: " + seen.distinct() + " of " + n + " rows within " + timeoutSeconds
                        + " s waiting for " + what);
                System.out.flush();
                Runtime.getRuntime().halt(2);
            }
            Thread.sleep(5);
        }
    }

    /** Each change's id; the payload's length is added up so that the value is really decoded. */
    static final class IdOnly implements VitessDeserializationSchema<Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(VitessRecord record, RecordContext context, Collector<Long> out) {
            PAYLOAD_BYTES.addAndGet(record.getBytes(1).length + 8);
            out.collect(record.getLong(0));
        }

        @Override
        public TypeInformation<Long> getProducedType() {
            return Types.LONG;
        }
    }

    private static double mib(long bytes) {
        return round(bytes / 1048576.0);
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static String json(Map<String, Object> m) {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, Object> e : m.entrySet()) {
            if (b.length() > 1) {
                b.append(", ");
            }
            b.append('"').append(e.getKey()).append("\": ");
            Object v = e.getValue();
            b.append(v instanceof String ? "\"" + v + "\"" : String.format(Locale.ROOT, "%s", v));
        }
        return b.append('}').toString();
    }
}
