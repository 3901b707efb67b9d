/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import com.sun.management.GarbageCollectionNotificationInfo;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The memory of this JVM over a run, sampled every few milliseconds: the resident set (VmRSS,
 * which holds the native core's allocations and, with a pre-touched fixed heap, a constant heap)
 * and the live heap (what each garbage collection left; the heap in use between collections is
 * mostly garbage and says nothing about what a run holds). {@link #mark} starts a new baseline.
 */
final class MemorySampler implements AutoCloseable {

    private final AtomicLong peakRss = new AtomicLong();
    private final AtomicLong peakLiveHeap = new AtomicLong();
    private final AtomicLong lastLiveHeap = new AtomicLong();
    private final Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
            .filter(p -> p.getType() == MemoryType.HEAP)
            .map(MemoryPoolMXBean::getName)
            .collect(Collectors.toSet());
    private final Thread thread;
    private volatile boolean running = true;

    MemorySampler(long intervalMillis) {
        lastLiveHeap.set(heapUsedNow());
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter) {
                ((NotificationEmitter) gc)
                        .addNotificationListener(
                                (n, handback) -> {
                                    if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                                            n.getType())) {
                                        afterGc(GarbageCollectionNotificationInfo.from(
                                                (CompositeData) n.getUserData()));
                                    }
                                },
                                null,
                                null);
            }
        }
        thread = new Thread(
                () -> {
                    while (running) {
                        peakRss.accumulateAndGet(rssBytes(), Math::max);
                        try {
                            Thread.sleep(intervalMillis);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                },
                "memory-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void afterGc(GarbageCollectionNotificationInfo info) {
        // The map holds every pool, metaspace and code cache too; only the heap pools count.
        long live = 0;
        for (Map.Entry<String, MemoryUsage> pool :
                info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) {
                live += pool.getValue().getUsed();
            }
        }
        lastLiveHeap.set(live);
        peakLiveHeap.accumulateAndGet(live, Math::max);
    }

    /** Collects garbage, then starts peaks from the memory in use now; returns that baseline. */
    Snapshot mark() {
        System.gc();
        long rss = rssBytes();
        long live = lastLiveHeap.get();
        peakRss.set(rss);
        peakLiveHeap.set(live);
        return new Snapshot(rss, live);
    }

    /** The highest resident set and live heap since the last {@link #mark}. */
    Snapshot peak() {
        peakRss.accumulateAndGet(rssBytes(), Math::max);
        return new Snapshot(peakRss.get(), peakLiveHeap.get());
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }

    private static long heapUsedNow() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** VmRSS of this process in bytes (0 without /proc). */
    static long rssBytes() {
        return ProcessStats.statusKib("VmRSS:") * 1024;
    }

    /** Resident set and live heap at one moment (or their peaks), in bytes. */
    static final class Snapshot {
        final long rss;
        final long liveHeap;

        Snapshot(long rss, long liveHeap) {
            this.rss = rss;
            this.liveHeap = liveHeap;
        }
    }
}
