/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.soak;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a soak did and what it cost: every fault as it ran (start, duration, recovery, outcome),
 * per kind the count and the longest fault and recovery, and the JVM's CPU and memory (the
 * MiniCluster, the writers and the checks share it) sampled every few seconds.
 */
final class SoakReport {

    /** One fault as it ran; {@code recoverySeconds} from its end until the job delivered what was written by then. */
    record Ran(FaultPlan.Planned planned, double startSeconds, double seconds, double recoverySeconds, String outcome) {
        @Override
        public String toString() {
            return String.format(
                    "%s: started at %.1fs, %.1fs, recovered %s, %s",
                    planned,
                    startSeconds,
                    seconds,
                    recoverySeconds < 0 ? "-" : String.format("%.1fs", recoverySeconds),
                    outcome);
        }
    }

    private final List<Ran> ran = new ArrayList<>();
    private long startNanos = System.nanoTime();
    private long startCpuNanos = cpuNanos();
    private long maxRssKb;
    private long maxHeapBytes;
    private int samples;

    /** The clock starts (when the writes and the job begin: the plan's times count from here). */
    synchronized void begin() {
        startNanos = System.nanoTime();
        startCpuNanos = cpuNanos();
    }

    synchronized void ran(Ran r) {
        ran.add(r);
        System.out.println("soak: " + r);
    }

    synchronized List<Ran> faults() {
        return List.copyOf(ran);
    }

    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** One resource sample (called every few seconds). */
    synchronized void sample() {
        samples++;
        maxHeapBytes = Math.max(
                maxHeapBytes,
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        maxRssKb = Math.max(maxRssKb, rssKb());
    }

    synchronized String render(long seed, double minutes, String totals) {
        Map<Fault, int[]> counts = new EnumMap<>(Fault.class);
        Map<Fault, double[]> longest = new EnumMap<>(Fault.class);
        for (Ran r : ran) {
            counts.computeIfAbsent(r.planned().kind(), k -> new int[2])[
                    r.outcome().startsWith("ok") ? 0 : 1]++;
            double[] l = longest.computeIfAbsent(r.planned().kind(), k -> new double[2]);
            l[0] = Math.max(l[0], r.seconds());
            l[1] = Math.max(l[1], r.recoverySeconds());
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                "## Soak report: seed %d, %.0f minutes planned, %.1f minutes run%n%n",
                seed, minutes, elapsedSeconds() / 60));
        sb.append("| fault | injected | failed to inject | longest fault | longest recovery |\n");
        sb.append("|---|---:|---:|---:|---:|\n");
        counts.forEach((kind, n) -> sb.append(String.format(
                "| %s | %d | %d | %.1f s | %.1f s |%n", kind, n[0], n[1], longest.get(kind)[0], longest.get(kind)[1])));
        double wall = (System.nanoTime() - startNanos) / 1e9;
        double cpu = (cpuNanos() - startCpuNanos) / 1e9;
        sb.append(String.format(
                "%n%s%nJVM (MiniCluster + writers + checks): CPU %.0f%% of one core on average, max RSS %d MB, max heap"
                        + " used %d MB (%d samples)%n",
                totals, 100 * cpu / Math.max(1, wall), maxRssKb / 1024, maxHeapBytes >> 20, samples));
        sb.append("\nFaults as they ran:\n");
        for (Ran r : ran) {
            sb.append("- ").append(r).append('\n');
        }
        return sb.toString();
    }

    private static long cpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
    }

    private static long rssKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            // not Linux: no RSS figure
        }
        return 0;
    }
}
