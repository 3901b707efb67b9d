/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many streams opened and closed in one JVM against the real local Vitess leave nothing behind:
 * no native threads, no Java threads, no growing native memory. Linux only (reads /proc), like
 * the machines the connector is built and tested on.
 */
@Timeout(900)
class NativeLifetimeITCase {

    private static final int WARM_UP = 10;
    private static final int CYCLES = 50;
    /** Allowed RSS growth over {@link #CYCLES} cycles after the warm-up: a leak of 1 MiB per stream fails. */
    private static final long MAX_RSS_GROWTH_BYTES = 32L << 20;

    @BeforeAll
    static void clusterIsUp() {
        VitessCluster.requireRunning();
        assertThat(Paths.get("/proc/self/task")).as("needs Linux /proc").isDirectory();
    }

    private static String options() {
        return "{\"address\":\"" + VitessCluster.grpcAddress()
                + "\",\"keyspace\":\"commerce\",\"tables\":[\"product\"]," + "\"connect_timeout_ms\":15000}";
    }

    /** Opens a stream, reads until the first batch (the copy of commerce.product), closes it. */
    private static void cycle(ByteBuffer buffer) {
        try (NativeStream stream = NativeStream.open(options())) {
            long deadline = System.nanoTime() + TestTimeouts.NATIVE_FIRST_BATCH.toNanos();
            int n = 0;
            while (n <= 0 && System.nanoTime() < deadline) {
                n = stream.poll(buffer, 200);
                assertThat(n)
                        .as("no end, no buffer growth for the small product table")
                        .isGreaterThanOrEqualTo(0);
            }
            assertThat(n)
                    .as("a batch within " + TestTimeouts.NATIVE_FIRST_BATCH)
                    .isPositive();
        }
    }

    private static List<String> threadNames() throws IOException {
        try (Stream<Path> tasks = Files.list(Paths.get("/proc/self/task"))) {
            return tasks.map(t -> {
                        try {
                            return new String(Files.readAllBytes(t.resolve("comm")), StandardCharsets.UTF_8).trim();
                        } catch (IOException gone) {
                            return null;
                        }
                    })
                    .filter(name -> name != null)
                    .toList();
        }
    }

    /** Native threads of the core (vitess-cdc-worker; Linux keeps 15 characters of a name). */
    private static long coreThreads() throws IOException {
        return threadNames().stream().filter(n -> n.startsWith("vitess-cdc")).count();
    }

    private static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    private static void settle() throws Exception {
        long deadline = System.nanoTime() + TestTimeouts.NATIVE_THREADS_EXIT.toNanos();
        while (coreThreads() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        System.gc();
        Thread.sleep(200);
    }

    @Test
    void openingAndClosingManyStreamsLeavesNoThreadsAndNoGrowingMemory() throws Exception {
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
        for (int i = 0; i < WARM_UP; i++) {
            cycle(buffer);
        }
        settle();
        assertThat(coreThreads()).as("no core threads after the warm-up").isZero();
        int osThreadsBefore = threadNames().size();
        int javaThreadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        long rssBefore = rssBytes();

        long start = System.nanoTime();
        for (int i = 0; i < CYCLES; i++) {
            cycle(buffer);
            assertThat(NativeStream.openStreamCount()).isZero();
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        settle();

        long rssAfter = rssBytes();
        List<String> threadsAfter = threadNames();
        int javaThreadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
        String report = String.format(
                "%d open/poll/close cycles in %.1f s: OS threads %d -> %d, Java threads %d -> %d, VmRSS %.1f -> %.1f MiB",
                CYCLES,
                took.toMillis() / 1000.0,
                osThreadsBefore,
                threadsAfter.size(),
                javaThreadsBefore,
                javaThreadsAfter,
                rssBefore / 1048576.0,
                rssAfter / 1048576.0);
        System.out.println(report);

        assertThat(threadsAfter).as(report).noneMatch(n -> n.startsWith("vitess-cdc"));
        // The JVM may start or retire a compiler or GC helper thread meanwhile; streams add 3+ each.
        assertThat(threadsAfter.size()).as(report).isLessThanOrEqualTo(osThreadsBefore + 2);
        assertThat(javaThreadsAfter).as(report).isLessThanOrEqualTo(javaThreadsBefore);
        assertThat(rssAfter - rssBefore).as(report).isLessThan(MAX_RSS_GROWTH_BYTES);
    }
}
