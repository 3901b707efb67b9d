/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.reader.HeartbeatWatermarks;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.util.clock.RelativeClock;
import org.apache.flink.util.clock.SystemClock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heartbeats through the SQL table's own {@code WATERMARK} expression: each split gets a generator
 * of the planner's pushed-down strategy of its own, fed only rows that stand for heartbeats (the
 * {@code op_ts} metadata column set to the heartbeat's time, every other column null). So
 * {@code WATERMARK FOR op_ts AS op_ts - INTERVAL '1' SECOND} moves to {@code T - 1 s} at a
 * heartbeat at {@code T}, and an expression over a physical column (whose future values a
 * heartbeat says nothing about) yields no watermark from heartbeats at all.
 */
@Internal
final class WatermarkExpressionHeartbeats implements HeartbeatWatermarks {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(WatermarkExpressionHeartbeats.class);

    private final String table;
    private final WatermarkStrategy<RowData> strategy;
    private final int arity;
    private final int opTsField;

    /**
     * @param arity the fields of the rows the source produces (physical, then metadata)
     * @param opTsField the position of the {@code op_ts} metadata column in them
     */
    WatermarkExpressionHeartbeats(String table, WatermarkStrategy<RowData> strategy, int arity, int opTsField) {
        this.table = table;
        this.strategy = strategy;
        this.arity = arity;
        this.opTsField = opTsField;
    }

    @Override
    public PerSplit forSplit(String splitId) {
        WatermarkGenerator<RowData> generator = strategy.createWatermarkGenerator(new GeneratorContext());
        return new PerSplit() {
            private boolean disabled;

            @Override
            public long at(long heartbeatMillis) {
                if (disabled) {
                    return NONE;
                }
                GenericRowData heartbeat = new GenericRowData(arity);
                heartbeat.setField(opTsField, TimestampData.fromEpochMillis(heartbeatMillis));
                Captured out = new Captured();
                try {
                    generator.onEvent(heartbeat, heartbeatMillis, out);
                    generator.onPeriodicEmit(out);
                } catch (RuntimeException e) {
                    // The expression reads a column a heartbeat has no value for: heartbeats
                    // cannot move this watermark (records still do).
                    disabled = true;
                    LOG.info(
                            "vitess-cdc table {}, split {}: the WATERMARK expression cannot be evaluated at a "
                                    + "heartbeat ({}), so only records advance its watermark; a watermark on the "
                                    + "op_ts metadata column alone also advances while the table is quiet",
                            table,
                            splitId,
                            e.toString());
                    return NONE;
                }
                return out.watermark;
            }
        };
    }

    /** The last watermark a generator emitted for a heartbeat row. */
    private static final class Captured implements WatermarkOutput {
        long watermark = NONE;

        @Override
        public void emitWatermark(Watermark w) {
            watermark = Math.max(watermark, w.getTimestamp());
        }

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
    }

    /** What the planner's generator may ask of its context: metrics it does not report, the clock. */
    private static final class GeneratorContext implements WatermarkGeneratorSupplier.Context {
        @Override
        public MetricGroup getMetricGroup() {
            return new UnregisteredMetricsGroup();
        }

        @Override
        public RelativeClock getInputActivityClock() {
            return SystemClock.getInstance();
        }
    }
}
