/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One consumer run's figures: records counted, the first and last record's times, latency
 * samples; printed as the one JSON line every consumer of the benchmark prints (the Rust floor
 * too: {@code rust/cli/src/bench/e2e.rs}).
 *
 * <p>Thread-safe: Flink's sink subtasks record from their own threads.
 */
final class Recorder {

    private final String consumer;
    private final String scenario;
    private final String table;
    private long openedNanos;
    private long firstNanos;
    private double ageAtFirst;
    private double cpuAtFirst;
    private double machineCpuAtFirst;
    /** Each thread name's CPU seconds at the first record: the window's share is told per thread. */
    private Map<String, Double> threadsAtFirst = Map.of();
    /** Each thread name's heap allocation at the first record. */
    private Map<String, Long> allocatedAtFirst = Map.of();

    private long lastNanos;
    private long events;
    private long[] latenciesMicros = new long[1024];
    /** The count a run expects (0: unknown); with it, when each tenth of it had arrived. */
    private long expected;

    private final long[] tenthNanos = new long[10];
    private int tenthsReached;
    private int latencyCount;

    Recorder(String consumer, String scenario, String table) {
        this.consumer = consumer;
        this.scenario = scenario;
        this.table = table;
        this.openedNanos = System.nanoTime();
    }

    /** The consumer starts now (the job is submitted, the engine started). */
    synchronized void opened() {
        openedNanos = System.nanoTime();
    }

    /**
     * The run expects {@code n} records: the result then says when each tenth of them had
     * arrived, which shows a short run's ramp (the JIT, a slow first batch) apart from its pace.
     */
    synchronized void expect(long n) {
        expected = n;
    }

    /** {@code n} more records arrived now. */
    synchronized void record(long n) {
        long now = System.nanoTime();
        if (events == 0 && n > 0) {
            firstNanos = now;
            ageAtFirst = ProcessStats.processAgeSeconds();
            cpuAtFirst = ProcessStats.cpuSeconds();
            machineCpuAtFirst = ProcessStats.machineBusyCpuSeconds();
            threadsAtFirst = ProcessStats.threadCpuSeconds();
            allocatedAtFirst = ProcessStats.threadAllocatedBytes();
        }
        events += n;
        lastNanos = now;
        while (expected > 0
                && tenthsReached < tenthNanos.length
                && events * tenthNanos.length >= expected * (tenthsReached + 1)) {
            tenthNanos[tenthsReached++] = now;
        }
    }

    /** The total count is now {@code total} (a counter polled from outside the pipeline). */
    synchronized void observeTotal(long total) {
        if (total > events) {
            record(total - events);
        }
    }

    synchronized long events() {
        return events;
    }

    /** Seconds since the first record, or -1 before it. */
    synchronized double secondsSinceFirst() {
        return events == 0 ? -1 : (System.nanoTime() - firstNanos) / 1e9;
    }

    /** One record arrived now, written with {@code stampMicros} (wall clock) by the writer. */
    synchronized void latency(long stampMicros) {
        long nowMicros = System.currentTimeMillis() * 1000 + (System.nanoTime() / 1000) % 1000;
        if (latencyCount == latenciesMicros.length) {
            latenciesMicros = Arrays.copyOf(latenciesMicros, latencyCount * 2);
        }
        latenciesMicros[latencyCount++] = nowMicros - stampMicros;
    }

    /** The nearest-rank percentile of the latency samples, ms; null without samples. */
    synchronized Double latencyPercentileMs(double p) {
        if (latencyCount == 0) {
            return null;
        }
        long[] sorted = Arrays.copyOf(latenciesMicros, latencyCount);
        Arrays.sort(sorted);
        int i = (int) Math.min(latencyCount, Math.max(1, Math.ceil(latencyCount * p))) - 1;
        return sorted[i] / 1000.0;
    }

    /** The result line; call after the last record, while the consumer's threads still live. */
    synchronized String json() {
        double span = (lastNanos - firstNanos) / 1e9;
        double cpu = ProcessStats.cpuSeconds();
        double machineCpu = ProcessStats.machineBusyCpuSeconds();
        Map<String, Double> threads = ProcessStats.threadCpuSeconds();
        String threadJson = threads.entrySet().stream()
                .map(e -> quote(e.getKey()) + ":" + number(e.getValue()))
                .collect(Collectors.joining(",", "{", "}"));
        // From the first record to the last (the JIT's and the GC's share of the window included).
        String windowThreadJson = threads.entrySet().stream()
                .map(e -> quote(e.getKey()) + ":" + number(e.getValue() - threadsAtFirst.getOrDefault(e.getKey(), 0.0)))
                .collect(Collectors.joining(",", "{", "}"));
        return "{" + "\"consumer\":" + quote(consumer) + ",\"scenario\":" + quote(scenario) + ",\"table\":"
                + quote(table) + ",\"events\":" + events + ",\"process_to_first_s\":" + number(ageAtFirst)
                + ",\"open_to_first_s\":" + number((firstNanos - openedNanos) / 1e9)
                + ",\"source_setup_to_first_s\":" + number(sourceSetUpToFirstSeconds())
                + ",\"first_to_last_s\":" + number(span)
                + ",\"events_per_s\":" + number(span > 0 ? events / span : 0)
                + ",\"cpu_s\":" + number(cpu)
                + ",\"cpu_s_first_to_last\":" + number(cpu - cpuAtFirst)
                + ",\"machine_cpu_s_first_to_last\":" + number(machineCpu - machineCpuAtFirst)
                + ",\"peak_rss_mb\":" + number(ProcessStats.peakRssMb())
                + ",\"rss_mb\":" + number(ProcessStats.rssMb())
                + ",\"heap_used_mb\":" + number(ProcessStats.heapUsedMb())
                + ",\"heap_committed_mb\":" + number(ProcessStats.heapCommittedMb())
                + ",\"threads\":" + ProcessStats.threadCount()
                + ",\"latency_samples\":" + latencyCount
                + ",\"latency_p50_ms\":" + number(latencyPercentileMs(0.50))
                + ",\"latency_p99_ms\":" + number(latencyPercentileMs(0.99))
                + ",\"tenths_s\":" + tenthsJson()
                + ",\"threads_cpu_s\":" + threadJson
                + ",\"threads_cpu_s_first_to_last\":" + windowThreadJson
                + ",\"threads_allocated_mb_first_to_last\":" + allocatedJson() + "}";
    }

    /** Heap MB each thread name allocated from the first record to now (threads alive at both). */
    private String allocatedJson() {
        return ProcessStats.threadAllocatedBytes().entrySet().stream()
                .filter(e -> allocatedAtFirst.containsKey(e.getKey()))
                .map(e -> quote(e.getKey()) + ":" + number((e.getValue() - allocatedAtFirst.get(e.getKey())) / 1e6))
                .collect(Collectors.joining(",", "{", "}"));
    }

    /**
     * From the source operator's set-up on its task to the first record (a Flink consumer's own
     * source start: for the SQL consumer the connector's share of the time to the first record),
     * or null where no Flink source was set up (Debezium).
     */
    private Double sourceSetUpToFirstSeconds() {
        long setUp = SourceRecordCounter.sourceSetUpNanos();
        return setUp == 0 || events == 0 ? null : (firstNanos - setUp) / 1e9;
    }

    /** Seconds from the first record to each tenth of the expected count, as a JSON array. */
    private String tenthsJson() {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < tenthsReached; i++) {
            out.append(i == 0 ? "" : ",").append(number((tenthNanos[i] - firstNanos) / 1e9));
        }
        return out.append(']').toString();
    }

    private static String number(Double d) {
        return d == null ? "null" : String.format(Locale.ROOT, "%.6f", d);
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** The value of {@code "stamp_us":} in a JSON change event (the after image), or -1. */
    static long stampOf(String json) {
        int at = json.indexOf("\"stamp_us\":");
        if (at < 0) {
            return -1;
        }
        int i = at + "\"stamp_us\":".length();
        long v = 0;
        boolean any = false;
        for (; i < json.length() && Character.isDigit(json.charAt(i)); i++) {
            v = v * 10 + (json.charAt(i) - '0');
            any = true;
        }
        return any ? v : -1;
    }
}
