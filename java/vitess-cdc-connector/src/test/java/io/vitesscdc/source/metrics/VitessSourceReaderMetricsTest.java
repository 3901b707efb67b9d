/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.metrics;

import io.vitesscdc.source.testutils.RenderedPositions;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.testutils.MetricListener;
import org.apache.flink.runtime.metrics.MetricNames;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The reader metrics' values, read back through the metric group as a reporter sees them. */
class VitessSourceReaderMetricsTest {

    private static final String SPLIT = "ks/-80";

    private final MetricListener listener = new MetricListener();
    private final InternalSourceReaderMetricGroup group =
            InternalSourceReaderMetricGroup.mock(listener.getMetricGroup());
    private final AtomicLong now = new AtomicLong(1_000_000);
    private final VitessSourceReaderMetrics metrics = new VitessSourceReaderMetrics(group, now::get);

    private long gauge(String... path) {
        Gauge<Long> g = listener.<Long>getGauge(path)
                .orElseThrow(() -> new AssertionError("no gauge " + String.join(".", path)));
        return g.getValue();
    }

    private long shardGauge(String name) {
        return gauge(VitessSourceReaderMetrics.GROUP, VitessSourceReaderMetrics.SHARD_GROUP, SPLIT, name);
    }

    private long readerGauge(String name) {
        return gauge(VitessSourceReaderMetrics.GROUP, name);
    }

    @Test
    void fetchLagIsTheFetchClockMinusTheCommitTimeOfTheLastStreamedRecord() {
        metrics.registerSplit(SPLIT);
        assertThat(gauge(MetricNames.CURRENT_FETCH_EVENT_TIME_LAG))
                .as("before any record")
                .isEqualTo(-1);
        metrics.recordsFetched(SPLIT, "t", now.get() - 250, false, 1);
        assertThat(gauge(MetricNames.CURRENT_FETCH_EVENT_TIME_LAG)).isEqualTo(250);
        now.addAndGet(1_000);
        metrics.recordsFetched(SPLIT, "t", 0, true, 1);
        assertThat(gauge(MetricNames.CURRENT_FETCH_EVENT_TIME_LAG))
                .as("copy records carry no commit time: the lag stays the last streamed record's")
                .isEqualTo(250);
        metrics.recordsFetched(SPLIT, "t", now.get() - 40, false, 1);
        assertThat(gauge(MetricNames.CURRENT_FETCH_EVENT_TIME_LAG)).isEqualTo(40);
        metrics.recordsFetched(SPLIT, "t", now.get() + 5_000, false, 1);
        assertThat(gauge(MetricNames.CURRENT_FETCH_EVENT_TIME_LAG))
                .as("a commit clock ahead of ours is no negative lag")
                .isEqualTo(0);
    }

    @Test
    void recordsInErrorAreFlinksStandardCounter() {
        metrics.recordInError();
        metrics.recordInError();
        Counter reported =
                listener.getCounter(MetricNames.NUM_RECORDS_IN_ERRORS).orElseThrow();
        assertThat(reported.getCount()).isEqualTo(2);
        assertThat(group.getNumRecordsInErrorsCounter()).isSameAs(reported);
    }

    @Test
    void snapshotProgressFollowsTheCopyOfEachTable() {
        metrics.registerSplit(SPLIT);
        assertThat(shardGauge(VitessSourceReaderMetrics.TABLES_TOTAL))
                .as("no estimates yet")
                .isEqualTo(-1);
        assertThat(shardGauge(VitessSourceReaderMetrics.ROWS_ESTIMATED_REMAINING))
                .isEqualTo(-1);
        assertThat(readerGauge(VitessSourceReaderMetrics.ROWS_ESTIMATED)).isEqualTo(-1);
        assertThat(readerGauge(VitessSourceReaderMetrics.SHARDS_COPYING)).isEqualTo(1);
        assertThat(readerGauge(VitessSourceReaderMetrics.SHARDS_DONE)).isEqualTo(0);

        Map<String, Long> rows = new HashMap<>();
        rows.put("a", 10L);
        rows.put("b", 100L);
        rows.put("c", null); // no statistics
        metrics.copyEstimates(SPLIT, List.of("a", "b", "c"), rows);
        // a copy from scratch: every table to go
        metrics.positionReached(SPLIT, RenderedPositions.of("ks", "-80", "{\"gtid\":\"\"}"));
        assertThat(shardGauge(VitessSourceReaderMetrics.TABLES_TOTAL)).isEqualTo(3);
        assertThat(shardGauge(VitessSourceReaderMetrics.TABLES_REMAINING)).isEqualTo(3);
        assertThat(shardGauge(VitessSourceReaderMetrics.ROWS_ESTIMATED)).isEqualTo(110);
        assertThat(shardGauge(VitessSourceReaderMetrics.ROWS_ESTIMATED_REMAINING))
                .isEqualTo(110);

        // table a copied, b in progress with 30 of its rows fetched
        metrics.recordsFetched(SPLIT, "a", 0, true, 10);
        metrics.recordsFetched(SPLIT, "b", 0, true, 30);
        metrics.positionReached(
                SPLIT,
                RenderedPositions.of(
                        "ks",
                        "-80",
                        "{\"gtid\":\"MySQL56/u:1-5\",\"table_p_ks\":[{\"table_name\":\"a\",\"lastpk\":\"AQ==\"},"
                                + "{\"table_name\":\"b\",\"lastpk\":\"AQ==\"}],\"tables_to_copy\":[\"c\"]}"));
        assertThat(shardGauge(VitessSourceReaderMetrics.TABLES_REMAINING))
                .as("b and c")
                .isEqualTo(2);
        assertThat(shardGauge(VitessSourceReaderMetrics.ROWS_ESTIMATED_REMAINING))
                .as("b's 100 estimated less 30 fetched, c unknown (0)")
                .isEqualTo(70);
        assertThat(shardGauge(VitessSourceReaderMetrics.SNAPSHOT_RECORDS)).isEqualTo(40);
        assertThat(readerGauge(VitessSourceReaderMetrics.SNAPSHOT_RECORDS)).isEqualTo(40);

        // more rows than estimated: remaining stays at 0, not negative
        metrics.recordsFetched(SPLIT, "b", 0, true, 90);
        assertThat(shardGauge(VitessSourceReaderMetrics.ROWS_ESTIMATED_REMAINING))
                .isEqualTo(0);

        metrics.copyCompleted(SPLIT);
        assertThat(shardGauge(VitessSourceReaderMetrics.TABLES_REMAINING)).isEqualTo(0);
        assertThat(shardGauge(VitessSourceReaderMetrics.ROWS_ESTIMATED_REMAINING))
                .isEqualTo(0);
        assertThat(shardGauge(VitessSourceReaderMetrics.TABLES_TOTAL)).isEqualTo(3);
        assertThat(readerGauge(VitessSourceReaderMetrics.SHARDS_COPYING)).isEqualTo(0);
        assertThat(readerGauge(VitessSourceReaderMetrics.SHARDS_DONE)).isEqualTo(1);
        assertThat(readerGauge(VitessSourceReaderMetrics.TABLES_REMAINING)).isEqualTo(0);
    }

    @Test
    void readerGaugesSumTheSplitsThatKnowTheirValue() {
        metrics.registerSplit("ks/-80");
        metrics.registerSplit("ks/80-");
        metrics.copyEstimates("ks/-80", List.of("a"), Map.of("a", 7L));
        metrics.copyEstimates("ks/80-", List.of("a"), Map.of("a", 5L));
        metrics.positionReached(
                "ks/-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"\",\"tables_to_copy\":[\"a\"]}"));
        assertThat(readerGauge(VitessSourceReaderMetrics.ROWS_ESTIMATED)).isEqualTo(12);
        assertThat(readerGauge(VitessSourceReaderMetrics.ROWS_ESTIMATED_REMAINING))
                .as("ks/80- has no position yet: only ks/-80 counts")
                .isEqualTo(7);
        assertThat(readerGauge(VitessSourceReaderMetrics.TABLES_REMAINING)).isEqualTo(1);
    }

    @Test
    void chunkedSnapshotProgressComesFromTheNativeMetricsPerShard() throws Exception {
        metrics.registerSplit(SPLIT);
        metrics.registerSplit("ks/80-");
        assertThat(shardGauge(VitessSourceReaderMetrics.CAPTURE_ROWS))
                .as("no capture reported yet")
                .isEqualTo(VitessSourceReaderMetrics.UNKNOWN);
        String shard = SPLIT.substring(SPLIT.indexOf('/') + 1);
        metrics.nativeMetrics("{\"reconnects\":2,\"capture\":{\"" + shard + "\":{\"chunks_done\":3,"
                + "\"chunks_planned\":10,\"rows\":1500,\"tables_remaining\":1,\"chunks_discarded\":0,"
                + "\"chunks_failed\":0},\"80-\":{\"chunks_done\":1,\"chunks_planned\":2,\"rows\":7,"
                + "\"tables_remaining\":0}}}");
        assertThat(shardGauge(VitessSourceReaderMetrics.CAPTURE_CHUNKS_DONE)).isEqualTo(3);
        assertThat(shardGauge(VitessSourceReaderMetrics.CAPTURE_CHUNKS_PLANNED)).isEqualTo(10);
        assertThat(shardGauge(VitessSourceReaderMetrics.CAPTURE_ROWS)).isEqualTo(1500);
        assertThat(shardGauge(VitessSourceReaderMetrics.CAPTURE_TABLES_REMAINING))
                .isEqualTo(1);
        assertThat(readerGauge(VitessSourceReaderMetrics.CAPTURE_ROWS)).isEqualTo(1507);
        assertThat(readerGauge(VitessSourceReaderMetrics.CAPTURE_TABLES_REMAINING))
                .isEqualTo(1);
        assertThat(readerGauge(VitessSourceReaderMetrics.RECONNECTS)).isEqualTo(2);
        assertThat(shardGauge(VitessSourceReaderMetrics.CAPTURE_THROTTLED_MILLIS))
                .as("no throttler hold reported: none")
                .isZero();
    }

    @Test
    void timeHeldBackByTheTabletThrottlerAndChunksFromTabletsAreGaugesPerShardAndSummed() throws Exception {
        metrics.registerSplit(SPLIT);
        metrics.registerSplit("ks/80-");
        String shard = SPLIT.substring(SPLIT.indexOf('/') + 1);
        metrics.nativeMetrics("{\"capture\":{\"" + shard + "\":{\"chunks_done\":0,\"throttled_ms\":4100,"
                + "\"throttled\":true,\"chunks_from_tablets\":7},\"80-\":{\"chunks_done\":2,\"throttled_ms\":900,"
                + "\"throttled\":false,\"chunks_from_tablets\":3}}}");
        assertThat(shardGauge(VitessSourceReaderMetrics.CAPTURE_THROTTLED_MILLIS))
                .isEqualTo(4100);
        assertThat(shardGauge(VitessSourceReaderMetrics.CAPTURE_THROTTLED)).isEqualTo(1);
        assertThat(readerGauge(VitessSourceReaderMetrics.CAPTURE_THROTTLED_MILLIS))
                .isEqualTo(5000);
        assertThat(readerGauge(VitessSourceReaderMetrics.CAPTURE_THROTTLED))
                .as("shards held now")
                .isEqualTo(1);
        assertThat(shardGauge(VitessSourceReaderMetrics.CAPTURE_CHUNKS_FROM_TABLETS))
                .isEqualTo(7);
        assertThat(readerGauge(VitessSourceReaderMetrics.CAPTURE_CHUNKS_FROM_TABLETS))
                .isEqualTo(10);
    }
}
