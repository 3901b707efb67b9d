/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Counts the records the source operators emitted, without a step in the pipeline: a metric
 * reporter (in the MiniCluster's JVM) that keeps every source subtask's {@code numRecordsOut}
 * counter, which the benchmark polls. So the SQL job is exactly {@code INSERT INTO blackhole
 * SELECT * FROM vitess}.
 */
public final class SourceRecordCounter implements MetricReporter {

    private static final List<Counter> SOURCE_COUNTERS = new CopyOnWriteArrayList<>();

    /**
     * When the first source operator's metrics were registered ({@link System#nanoTime}), 0
     * before: the task is deployed and its source is being set up, so from here to the first
     * record is the source's own start (the reader, its split, the connector's stream), apart
     * from Flink's planning, job submission and deployment before it.
     */
    private static volatile long sourceSetUpNanos;

    /** See {@link #sourceSetUpNanos}; 0 before any source was set up. */
    static long sourceSetUpNanos() {
        return sourceSetUpNanos;
    }

    /** Records emitted by every source subtask so far. */
    static long total() {
        long sum = 0;
        for (Counter c : SOURCE_COUNTERS) {
            sum += c.getCount();
        }
        return sum;
    }

    /** Registers this reporter in a Flink configuration. */
    static void register(org.apache.flink.configuration.Configuration conf) {
        conf.setString("metrics.reporter.bench.factory.class", Factory.class.getName());
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (!"numRecordsOut".equals(name) || !(metric instanceof Counter)) {
            return;
        }
        Map<String, String> vars = group.getAllVariables();
        String operator = vars.get("<operator_name>");
        // Operator-level counters only (the task-level one has no operator name).
        if (operator != null && operator.startsWith("Source")) {
            if (sourceSetUpNanos == 0) {
                sourceSetUpNanos = System.nanoTime();
            }
            SOURCE_COUNTERS.add((Counter) metric);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}

    /** Flink instantiates reporters through a factory. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new SourceRecordCounter();
        }
    }
}
