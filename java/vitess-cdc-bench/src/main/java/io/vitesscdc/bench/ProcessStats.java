/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * What this process costs, read from the kernel ({@code /proc/self}) so that Java threads and the
 * native library's threads count alike: CPU of the whole process and of each thread, peak RSS.
 */
final class ProcessStats {

    /** Linux's USER_HZ: /proc reports thread times in these ticks. */
    private static final double TICKS_PER_SECOND = 100.0;

    private ProcessStats() {}

    /** User + system CPU seconds of this process so far (getrusage, via the JVM). */
    static double cpuSeconds() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return os.getProcessCpuTime() / 1e9;
    }

    /**
     * Busy CPU seconds of the whole machine so far, every core and process ({@code /proc/stat}):
     * beside this process's own CPU over the same span it tells what the rest of the machine
     * (VTGate, the tablets, MySQL) spent on the same events. 0 where it cannot be read.
     */
    static double machineBusyCpuSeconds() {
        try (var lines = Files.lines(Path.of("/proc/stat"))) {
            return lines.findFirst().map(ProcessStats::busySecondsOfCpuLine).orElse(0.0);
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            return 0;
        }
    }

    /** The busy seconds of {@code /proc/stat}'s {@code cpu} line: all but idle and iowait. */
    static double busySecondsOfCpuLine(String line) {
        String[] f = line.trim().split("\\s+");
        long busy = 0;
        // cpu user nice system idle iowait irq softirq steal ...
        for (int i : new int[] {1, 2, 3, 6, 7, 8}) {
            if (i < f.length) {
                busy += Long.parseLong(f[i]);
            }
        }
        return busy / TICKS_PER_SECOND;
    }

    /** Seconds since the JVM started. */
    static double processAgeSeconds() {
        return ManagementFactory.getRuntimeMXBean().getUptime() / 1e3;
    }

    /** Peak resident set size (VmHWM), MiB. */
    static double peakRssMb() {
        return statusKib("VmHWM:") / 1024.0;
    }

    /** Resident set size now (VmRSS), MiB. */
    static double rssMb() {
        return statusKib("VmRSS:") / 1024.0;
    }

    /** Live threads of this process, Java's and the native library's alike (/proc/self/task). */
    static int threadCount() {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            int n = 0;
            for (Path ignored : tasks) {
                n++;
            }
            return n;
        } catch (IOException e) {
            return Thread.activeCount();
        }
    }

    /** Java heap in use now (live and not yet collected objects), MiB. */
    static double heapUsedMb() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
    }

    /** Java heap committed now, MiB: with {@code -Xms} = {@code -Xmx} and pre-touch, RSS minus this is native. */
    static double heapCommittedMb() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted() / (1024.0 * 1024.0);
    }

    /** A KiB field of /proc/self/status ({@code VmRSS:}, {@code VmHWM:}), 0 without /proc. */
    static long statusKib(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // no /proc: reported as 0
        }
        return 0;
    }

    /**
     * CPU seconds of every live thread, summed per name with digits removed ("C2 CompilerThre",
     * "tokio-runtime-w", "Source Data Fet", "G Conc#"): which part of the process spent the time.
     */
    static Map<String, Double> threadCpuSeconds() {
        Map<String, Double> byName = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"));
                } catch (IOException gone) {
                    continue; // the thread ended meanwhile
                }
                parseThreadStat(stat, byName);
            }
        } catch (IOException e) {
            // no /proc: an empty map
        }
        return byName;
    }

    /**
     * Bytes each live Java thread allocated on the heap so far (HotSpot's per-thread counter,
     * exact and cheap), summed by thread name without digits, as {@link #threadCpuSeconds} names
     * them. A thread that ended meanwhile is missing, so compare the threads that live across.
     */
    static Map<String, Long> threadAllocatedBytes() {
        Map<String, Long> byName = new TreeMap<>();
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean)) {
            return byName;
        }
        // Bulk reads without stack traces: no stop of every thread to walk its stack mid-run.
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] infos = threads.getThreadInfo(ids);
        long[] allocated = threads.getThreadAllocatedBytes(ids);
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] != null && allocated[i] > 0) {
                // As /proc shows it (the first 15 characters), then as the CPU figures key it.
                String name = infos[i].getThreadName();
                name = name.substring(0, Math.min(name.length(), 15))
                        .replaceAll("[0-9]", "")
                        .trim();
                byName.merge(name, allocated[i], Long::sum);
            }
        }
        return byName;
    }

    /** Adds one {@code /proc/<pid>/task/<tid>/stat} line's utime + stime under its name. */
    static void parseThreadStat(String stat, Map<String, Double> byName) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open) {
            return;
        }
        String name = stat.substring(open + 1, close).replaceAll("[0-9]", "").trim();
        String[] fields = stat.substring(close + 1).trim().split("\\s+");
        // After the name: state is field 3; utime and stime are fields 14 and 15.
        double ticks = Double.parseDouble(fields[11]) + Double.parseDouble(fields[12]);
        byName.merge(name, ticks / TICKS_PER_SECOND, Double::sum);
    }
}
