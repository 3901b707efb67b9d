/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;
import io.vitesscdc.source.metrics.VitessSourceReaderMetrics;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.metrics.MetricNames;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reader's metrics read from a real job on the MiniCluster against the real local Vitess, as
 * a metric reporter sees them: snapshot progress (with the row estimates the shards' table
 * statistics give), then the lag metrics after a write and while nothing is written.
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessSourceMetricsITCase extends VitessITBase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(2, REPORTER.addToConfiguration(new Configuration()));

    private static final String[] SHARDS = {"-80", "80-"};
    private static final int ROWS = 40;

    private final String table =
            "metrics_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    VitessSourceMetricsITCase() {
        super("metrics");
    }

    @AfterEach
    void dropTable() throws Exception {
        VitessCluster.execute("customer", "DROP TABLE IF EXISTS " + table);
        try {
            VitessCluster.execute("customer", "ALTER VSCHEMA ON customer." + table + " DROP VINDEX hash");
        } catch (Exception e) {
            // already gone with the table
        }
    }

    @Test
    void snapshotProgressAndLagMetricsOfARealJob() throws Exception {
        VitessCluster.execute(
                "customer",
                "CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, v VARCHAR(32))",
                "ALTER VSCHEMA ON customer." + table + " ADD VINDEX hash(id) USING hash");
        try (Connection c = VitessCluster.connect("customer");
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id, v) VALUES (?, ?)")) {
            for (int i = 1; i <= ROWS; i++) {
                ps.setLong(1, i);
                ps.setString(2, "v" + i);
                ps.executeUpdate();
            }
        }
        // Fresh statistics, so the estimates are the shards' real counts (small tables).
        long[] shardRows = new long[SHARDS.length];
        for (int s = 0; s < SHARDS.length; s++) {
            shardRows[s] = analyzedTableRows(SHARDS[s]);
        }
        assertThat(shardRows[0] + shardRows[1]).as("table_rows of both shards").isEqualTo(ROWS);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        VitessSource<String> source = VitessSource.<String>builder()
                .address(VitessCluster.grpcAddress())
                .keyspace("customer")
                .tables(table)
                .heartbeatInterval(Duration.ofSeconds(1))
                .heartbeatWatermarks(true)
                .deserializer(new JsonDebeziumDeserializationSchema())
                .build();
        env.fromSource(source, WatermarkStrategy.<String>forMonotonousTimestamps(), "vitess")
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("vitess-metrics");
        JobID id = job.getJobID();
        try {
            waitUntil(
                    TestTimeouts.SAVEPOINT,
                    () -> gauge(id, VitessSourceReaderMetrics.GROUP + "." + VitessSourceReaderMetrics.SHARDS_DONE) == 2
                            // read beside the stream, the estimates may land after a short copy
                            && Arrays.stream(SHARDS)
                                    .allMatch(s -> gauge(
                                                    id,
                                                    VitessSourceReaderMetrics.GROUP + "."
                                                            + VitessSourceReaderMetrics.SHARD_GROUP + ".customer/" + s
                                                            + "." + VitessSourceReaderMetrics.ROWS_ESTIMATED)
                                            >= 0),
                    "both shards copied and their estimates read");
            // Snapshot progress, per shard and for the reader.
            for (int s = 0; s < SHARDS.length; s++) {
                String shard = VitessSourceReaderMetrics.GROUP + "." + VitessSourceReaderMetrics.SHARD_GROUP
                        + ".customer/" + SHARDS[s] + ".";
                assertThat(gauge(id, shard + VitessSourceReaderMetrics.TABLES_TOTAL))
                        .isEqualTo(1);
                assertThat(gauge(id, shard + VitessSourceReaderMetrics.TABLES_REMAINING))
                        .isEqualTo(0);
                assertThat(gauge(id, shard + VitessSourceReaderMetrics.ROWS_ESTIMATED))
                        .as("estimate of " + SHARDS[s])
                        .isEqualTo(shardRows[s]);
                assertThat(gauge(id, shard + VitessSourceReaderMetrics.ROWS_ESTIMATED_REMAINING))
                        .isEqualTo(0);
                assertThat(gauge(id, shard + VitessSourceReaderMetrics.SNAPSHOT_RECORDS))
                        .isEqualTo(shardRows[s]);
                assertThat(gauge(id, shard + VitessSourceReaderMetrics.COPY_COMPLETED))
                        .isEqualTo(1);
            }
            String reader = VitessSourceReaderMetrics.GROUP + ".";
            assertThat(gauge(id, reader + VitessSourceReaderMetrics.SHARDS_COPYING))
                    .isEqualTo(0);
            assertThat(gauge(id, reader + VitessSourceReaderMetrics.ROWS_ESTIMATED))
                    .isEqualTo(ROWS);
            assertThat(gauge(id, reader + VitessSourceReaderMetrics.SNAPSHOT_RECORDS))
                    .isEqualTo(ROWS);
            assertThat(gauge(id, reader + VitessSourceReaderMetrics.TABLES_REMAINING))
                    .isEqualTo(0);
            assertThat(gauge(id, MetricNames.CURRENT_FETCH_EVENT_TIME_LAG))
                    .as("no streamed record yet (copy records carry no commit time)")
                    .isEqualTo(-1);

            // Nothing written: the source idles, and its idle time grows.
            waitUntil(TestTimeouts.METRIC_UPDATED, () -> gauge(id, MetricNames.SOURCE_IDLE_TIME) > 0, "source idle");
            long idle1 = gauge(id, MetricNames.SOURCE_IDLE_TIME);
            Thread.sleep(1500);
            long idle2 = gauge(id, MetricNames.SOURCE_IDLE_TIME);
            assertThat(idle2)
                    .as("idle time after 1.5 s more of silence (was " + idle1 + ")")
                    .isGreaterThanOrEqualTo(idle1 + 1500);

            // One write: fetch lag, then emit lag, of that record.
            long beforeWrite = System.currentTimeMillis();
            VitessCluster.execute("customer", "INSERT INTO " + table + " (id, v) VALUES (1000, 'streamed')");
            waitUntil(
                    TestTimeouts.METRIC_UPDATED,
                    () -> gauge(id, MetricNames.CURRENT_FETCH_EVENT_TIME_LAG) >= 0
                            && gauge(id, MetricNames.CURRENT_EMIT_EVENT_TIME_LAG) >= 0,
                    "lag of the streamed record");
            // The gauges answer for the last record, which stays the same while nothing is written.
            Thread.sleep(500);
            long observed = System.currentTimeMillis();
            long fetchLag = gauge(id, MetricNames.CURRENT_FETCH_EVENT_TIME_LAG);
            long emitLag = gauge(id, MetricNames.CURRENT_EMIT_EVENT_TIME_LAG);
            // Binlog commit times have whole seconds: a lag may read up to 1 s more than the wait.
            long bound = observed - beforeWrite + 1000;
            System.out.printf(
                    "fetch lag %d ms, emit lag %d ms, idle %d -> %d ms (bound %d ms)%n",
                    fetchLag, emitLag, idle1, idle2, bound);
            assertThat(fetchLag).isBetween(0L, bound);
            assertThat(emitLag).as("emitted after it was fetched").isBetween(fetchLag, bound);
            assertThat(gauge(id, MetricNames.SOURCE_IDLE_TIME))
                    .as("the emitted record ended the idle period")
                    .isLessThan(idle2);
            // Flink's watermarkLag is the last record's emit time minus the last watermark: while
            // the table is quiet, heartbeat watermarks move the watermark past that record.
            waitUntil(
                    TestTimeouts.HEARTBEAT_WATERMARKS_PASS,
                    () -> gauge(id, MetricNames.WATERMARK_LAG) <= -1000L,
                    "heartbeat watermarks past the last record");
            long watermarkLag = gauge(id, MetricNames.WATERMARK_LAG);
            long sinceWrite = System.currentTimeMillis() - beforeWrite;
            System.out.printf(
                    "watermark lag %d ms after the heartbeats' wait (%d ms since the write)%n",
                    watermarkLag, sinceWrite);
            assertThat(watermarkLag)
                    .as("heartbeat watermarks (1 s) passed the last record's emit time")
                    .isBetween(-(sinceWrite + 1000), -1000L);
        } finally {
            job.cancel().get(TestTimeouts.SAVEPOINT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** ANALYZE TABLE on one shard, then its {@code information_schema.tables.table_rows}. */
    private long analyzedTableRows(String shard) throws Exception {
        try (Connection c = VitessCluster.connect("customer");
                Statement st = c.createStatement()) {
            st.execute("USE `customer:" + shard + "`");
            st.execute("ANALYZE TABLE " + table);
            try (ResultSet rs = st.executeQuery("SELECT table_rows FROM information_schema.tables "
                    + "WHERE table_schema = database() AND table_name = '" + table + "'")) {
                assertThat(rs.next())
                        .as("statistics of " + table + " on " + shard)
                        .isTrue();
                return rs.getLong(1);
            }
        }
    }

    /** The value of the source's one gauge whose identifier ends with {@code .<name>}. */
    private static long gauge(JobID job, String name) {
        Map<String, Metric> found = REPORTER.findMetrics(job, name);
        Long value = null;
        for (Map.Entry<String, Metric> e : found.entrySet()) {
            if (e.getKey().endsWith("." + name) && e.getValue() instanceof Gauge) {
                Object v = ((Gauge<?>) e.getValue()).getValue();
                assertThat(value)
                        .as("one gauge " + name + " in " + found.keySet())
                        .isNull();
                value = ((Number) v).longValue();
            }
        }
        return value == null ? Long.MIN_VALUE : value;
    }
}
