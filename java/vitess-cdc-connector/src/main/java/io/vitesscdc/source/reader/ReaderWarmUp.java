/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema.RecordContext;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs a deserializer's code over synthetic records while a new reader waits for its splits, so
 * the JVM has loaded and compiled it before the first real batch.
 *
 * <p>Why: the rows of a VStream copy reach Flink only with the position that closes their copy
 * packet (≈ 2 000 narrow rows), so the first record waits until a whole packet is converted —
 * and a JVM converts its first rows a hundred times slower than later ones (class loading, the
 * interpreter). A reader is created ≈ 200 ms before Flink assigns its splits and the stream's
 * first packet arrives; the warm-up uses that time (docs/flink-source.md, "The first record").
 *
 * <p>Once per class loader (the first reader of a job on a task manager; compiled code is shared
 * by the JVM), on a daemon thread, bounded by {@link #MAX_RECORDS} and {@link #MAX_NANOS}. It
 * never touches the reader's own state and never fails the job: a failure is logged and ends it.
 */
@Internal
public final class ReaderWarmUp {

    private static final Logger LOG = LoggerFactory.getLogger(ReaderWarmUp.class);

    /** About two copy packets of narrow rows: past the JIT's first compilation thresholds. */
    static final int MAX_RECORDS = 4_096;

    /** A wide table's rows cost more each; the warm-up never runs longer than this. */
    static final long MAX_NANOS = 1_000_000_000L;

    private static final AtomicBoolean STARTED = new AtomicBoolean();

    /** A deserializer that can run its conversion over synthetic records of its own. */
    @Internal
    public interface WarmsUp {

        /**
         * Converts synthetic records until {@code maxRecords} or {@code deadlineNanos} (of {@link
         * System#nanoTime()}), with state of its own: safe beside the reader's calls on another
         * thread.
         *
         * @return the records converted
         */
        int warmUp(int maxRecords, long deadlineNanos) throws Exception;
    }

    /** The context of a synthetic record: no position, epoch 0, rank 0. */
    public static final RecordContext SYNTHETIC_CONTEXT = new RecordContext() {
        @Override
        public String position() {
            return null;
        }

        @Override
        public long epoch() {
            return 0;
        }

        @Override
        public long rank() {
            return 0;
        }
    };

    /** What a warm-up does with one synthetic record. */
    @Internal
    @FunctionalInterface
    public interface Conversion {
        void convert(VitessRecord record) throws Exception;
    }

    /**
     * Runs {@code conversion} over {@code records} again and again, in whole passes, until
     * {@code maxRecords} or {@code deadlineNanos}; the records converted.
     */
    public static int repeat(List<VitessRecord> records, int maxRecords, long deadlineNanos, Conversion conversion)
            throws Exception {
        int done = 0;
        while (done < maxRecords && System.nanoTime() < deadlineNanos) {
            for (VitessRecord record : records) {
                conversion.convert(record);
            }
            done += records.size();
        }
        return done;
    }

    private ReaderWarmUp() {}

    /** Starts the warm-up of {@code deserializer} if it can warm up and none ran in this class loader. */
    public static void startOnce(Object deserializer) {
        if (deserializer instanceof WarmsUp warmable && STARTED.compareAndSet(false, true)) {
            Thread thread = new Thread(() -> run(warmable), "vitess-cdc-warm-up");
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** Runs one warm-up to its bounds on the calling thread; the records converted, -1 if it failed. */
    @VisibleForTesting
    static int run(WarmsUp warmable) {
        long start = System.nanoTime();
        try {
            int records = warmable.warmUp(MAX_RECORDS, start + MAX_NANOS);
            LOG.debug(
                    "Warmed up the record conversion: {} synthetic records in {} ms",
                    records,
                    (System.nanoTime() - start) / 1_000_000);
            return records;
        } catch (Exception | LinkageError e) {
            // Only the first record's latency depends on it: the real records take the same code.
            LOG.info("The record conversion's warm-up stopped early (no effect on the job): {}", e.toString());
            return -1;
        }
    }
}
