/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

/**
 * One VStream of the native core: open, poll batches, close.
 *
 * <p>Java pulls: every {@link #poll} is ONE native call that blocks up to a timeout on the core's
 * bounded queue and copies as many whole events as fit into the caller's direct buffer, encoded
 * in the batch format (docs/batch-format.md, decoded by {@link BatchDecoder}). Events that do not
 * fit stay in the native stream for the next poll. The native side never calls back into Java.
 *
 * <p>Threading: {@link #poll} is meant for one thread at a time (concurrent polls are serialized
 * natively). {@link #wake} and {@link #close} may be called from any thread, also while another
 * thread is inside {@link #poll}: {@code wake} makes that poll return early, {@code close} makes
 * it return and releases the stream, its runtime and its threads. Lifetime is explicit (no
 * finalizer or cleaner: freeing on a GC thread could race a poll still in native code), so always
 * close, e.g. with try-with-resources.
 *
 * <p>A closed, foreign or garbage handle makes the native side throw {@link IllegalStateException};
 * it never dereferences it.
 *
 * <p>The native core's log events reach SLF4J through {@link NativeLogs}, drained on the calling
 * thread after every poll, open and close.
 */
public final class NativeStream implements AutoCloseable {

    /** {@link #poll} result: the stream ended (snapshot-only mode) and every batch was delivered. */
    public static final int END_OF_STREAM = -1;

    private static final boolean FORWARD_LOGS = slf4jPresent();

    private final long handle;
    private final AtomicBoolean closed = new AtomicBoolean();

    private NativeStream(long handle) {
        this.handle = handle;
    }

    /**
     * Opens a stream and connects to VTGate; fails within the connect timeout when VTGate is
     * unreachable or the keyspace is unknown.
     *
     * @param optionsJson the stream options as a JSON object (field names and defaults are listed in
     *     docs/native-bridge.md), e.g. {@code {"address":"127.0.0.1:15991","keyspace":"commerce"}}
     * @throws ConfigurationException for invalid options, an unknown keyspace or table
     * @throws RetryableException when VTGate cannot be reached
     */
    public static NativeStream open(String optionsJson) {
        return open(optionsJson, List.of());
    }

    /**
     * Opens a stream whose shards start at the given positions (each as a mark or
     * {@link #planStart} gave it), which implies start mode {@code positions}.
     *
     * <p>The positions cross as {@code byte[][]}, unchanged, rather than inside the options JSON:
     * nothing between a checkpoint and the core reads, re-encodes or escapes a position, and no
     * JSON (or base64 in JSON) is built per open.
     *
     * @throws ConfigurationException for invalid options or positions (code {@code INVALID_POSITION})
     * @throws RetryableException when VTGate cannot be reached
     */
    public static NativeStream open(String optionsJson, List<Position> startPositions) {
        if (optionsJson == null) {
            throw new NullPointerException("optionsJson");
        }
        byte[][] positions = new byte[startPositions.size()][];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = startPositions.get(i).bytesNoCopy();
        }
        prepare();
        try {
            return new NativeStream(nativeOpen(optionsJson, positions));
        } finally {
            drainLogs();
        }
    }

    /**
     * Where each shard of a stream with these options starts, by shard in the plan's order,
     * without reading from it: the core connects, discovers the shards and plans like
     * {@link #open} (so every configuration mistake fails the same way), applies the start mode or,
     * when {@code specificOffsets} is given, the user's VGTID JSON (one entry per shard; gtid
     * {@code current} = now). A shard starting now is resolved to its real GTID set before this
     * returns (the core asks VTGate with a short VStream that ends at once), so no planned
     * position says {@code current}.
     *
     * @param specificOffsets the user's start positions (VGTID JSON), or {@code null}
     * @throws ConfigurationException for invalid options or offsets (code {@code INVALID_POSITION}
     *     for the offsets), an unknown keyspace or table
     * @throws RetryableException when VTGate cannot be reached
     */
    public static Map<String, Position> planStart(String optionsJson, String specificOffsets) {
        if (optionsJson == null) {
            throw new NullPointerException("optionsJson");
        }
        prepare();
        Object[] pairs;
        try {
            pairs = nativePlanStart(optionsJson, specificOffsets);
        } finally {
            drainLogs();
        }
        Map<String, Position> planned = new LinkedHashMap<>();
        for (int i = 0; i + 1 < pairs.length; i += 2) {
            planned.put((String) pairs[i], Position.of((byte[]) pairs[i + 1]));
        }
        return planned;
    }

    /**
     * Checks the user's specific offsets (VGTID JSON) for {@code keyspace} without a server: the
     * same checks {@link #planStart} makes first, for failing early (e.g. at SQL planning).
     *
     * @throws ConfigurationException (code {@code INVALID_POSITION}) naming what is wrong and the fix
     */
    public static void checkSpecificOffsets(String keyspace, String specificOffsets) {
        NativeLibrary.load();
        nativeCheckSpecificOffsets(keyspace, specificOffsets);
    }

    /**
     * Checks stream options without a server: the checks every stream makes when it opens (sizes,
     * timeouts, backoffs, their relations), for failing early (e.g. at SQL planning).
     *
     * @throws ConfigurationException (code {@code INVALID_OPTION}) naming the option and the fix
     */
    public static void checkOptions(String optionsJson) {
        NativeLibrary.load();
        nativeCheckOptions(optionsJson);
    }

    /**
     * Which tables the options select and whether the core reproduces each one's primary-key order
     * exactly, as the JSON {@link KeyOrders#parse} reads. Connects, queries and closes within the
     * connect timeout; opens no VStream.
     *
     * @throws ConfigurationException for invalid options, an unknown keyspace or table
     * @throws RetryableException when VTGate cannot be reached
     */
    static String keyOrdersJson(String optionsJson) {
        if (optionsJson == null) {
            throw new NullPointerException("optionsJson");
        }
        prepare();
        try {
            return nativeKeyOrders(optionsJson);
        } finally {
            drainLogs();
        }
    }

    /**
     * The tables a stream with these options would copy and, per planned shard, each table's
     * estimated row count from MySQL's table statistics ({@code information_schema.tables
     * .table_rows}, asked of every shard), as JSON: {@code {"tables":["a","b"],"shards":{"-80":
     * {"a":120,"b":null}}}} ({@code null}: no statistics). Estimates for progress metrics, never
     * exact. Connects, queries and closes within the connect timeout; opens no VStream.
     *
     * @throws ConfigurationException for invalid options, an unknown keyspace or table
     * @throws RetryableException when VTGate cannot be reached
     */
    public static String copyEstimatesJson(String optionsJson) {
        if (optionsJson == null) {
            throw new NullPointerException("optionsJson");
        }
        prepare();
        try {
            return nativeCopyEstimates(optionsJson);
        } finally {
            drainLogs();
        }
    }

    /** Loads the library and sets the native log level before a call that talks to VTGate. */
    private static void prepare() {
        // Here rather than in a static initializer: a failed load then surfaces as the
        // NativeLibraryException that says why, on every attempt, instead of an
        // ExceptionInInitializerError once and a bare NoClassDefFoundError after that.
        NativeLibrary.load();
        if (FORWARD_LOGS) {
            NativeLogs.configure();
        }
    }

    /** A stream object for a handle the native side opened (synthetic streams of tests). */
    static NativeStream wrap(long handle) {
        return new NativeStream(handle);
    }

    /**
     * Fills {@code buffer} (from index 0 to its capacity; position and limit are ignored and left
     * unchanged) with the next batch.
     *
     * @param buffer a direct buffer; its contents are overwritten
     * @param timeoutMillis how long to wait for the first event; 0 returns at once
     * @return the number of bytes written (&gt; 0); 0 when the timeout passed without an event (or
     *     {@link #wake} was called); {@link #END_OF_STREAM}; or, below -1, {@code -needed}: the next
     *     event alone needs a buffer of {@code needed} bytes (nothing was consumed)
     * @throws IllegalStateException if the stream is closed
     * @throws VitessCdcException if the stream failed; the stream is unusable afterwards
     */
    public int poll(ByteBuffer buffer, long timeoutMillis) {
        if (!buffer.isDirect() || buffer.isReadOnly()) {
            throw new IllegalArgumentException("NativeStream.poll needs a writable direct ByteBuffer");
        }
        return pollWith(timeoutMillis, () -> nativePoll(handle, buffer, timeoutMillis));
    }

    /**
     * {@link #poll} into a heap array: for an event too large for the reader's direct buffer, so
     * that it crosses into the heap Flink's memory model budgets, not into a direct buffer grown
     * for it. The native side writes the batch with {@code SetByteArrayRegion}, from the received
     * message straight into {@code array}.
     *
     * @param array the batch's destination from index 0; its contents are overwritten
     * @param timeoutMillis as for {@link #poll}
     * @return as {@link #poll} returns
     */
    public int pollHeap(byte[] array, long timeoutMillis) {
        if (array == null) {
            throw new IllegalArgumentException("NativeStream.pollHeap needs an array");
        }
        return pollWith(timeoutMillis, () -> nativePollHeap(handle, array, timeoutMillis));
    }

    /** What both polls share: the timeout's check, and the native logs forwarded after the call. */
    private int pollWith(long timeoutMillis, IntSupplier nativePoll) {
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeoutMillis must be >= 0, was " + timeoutMillis);
        }
        ensureOpen();
        try {
            return nativePoll.getAsInt();
        } finally {
            drainLogs();
        }
    }

    /**
     * Makes a {@link #poll} that is waiting in another thread return 0 now (or the next poll, if
     * none is waiting). A no-op on a closed stream, also when racing {@link #close}.
     */
    public void wake() {
        if (!closed.get()) {
            nativeWake(handle);
        }
    }

    /**
     * The positions of every shard after the last event the native side delivered, as the JSON
     * {@code {"shards":[{"keyspace":..,"shard":..,"gtid":..,"table_p_ks":[..]},..]}}; accepted
     * back as {@code start_positions} when opening a stream.
     */
    public String positionsJson() {
        ensureOpen();
        return nativePositionsJson(handle);
    }

    /** A JSON snapshot of the core's counters (events, bytes, reconnects, queue fill, ...). */
    public String metricsJson() {
        ensureOpen();
        return nativeMetricsJson(handle);
    }

    /** True once {@link #close} was called. */
    public boolean isClosed() {
        return closed.get();
    }

    /** Closes the stream; idempotent, and safe while another thread is inside {@link #poll}. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                nativeClose(handle);
            } finally {
                drainLogs();
            }
        }
    }

    static void drainLogs() {
        if (FORWARD_LOGS) {
            NativeLogs.drainIfPending();
        }
    }

    /** Whether SLF4J is there to forward native logs to (without it the native level stays off). */
    private static boolean slf4jPresent() {
        try {
            Class.forName("org.slf4j.LoggerFactory", false, NativeStream.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("NativeStream is closed");
        }
    }

    // ---- natives: registered by JNI_OnLoad (see NativeLibrary), so callable only after
    // NativeLibrary.load(); the handle is always explicit ----

    static native long nativeOpen(String optionsJson, byte[][] startPositions);

    static native Object[] nativePlanStart(String optionsJson, String specificOffsets);

    static native int nativePositionFacts(byte[] position);

    static native String nativePositionJson(byte[] position);

    static native long nativePositionTransactionCount(byte[] position);

    static native String nativePositionCopyTables(byte[] position);

    static native String nativeCopyEstimates(String optionsJson);

    static native byte[] nativePositionFromJson(String keyspace, String shard, String positionJson);

    static native void nativeCheckSpecificOffsets(String keyspace, String specificOffsets);

    static native byte[] nativeCarryCaptures(byte[] started, byte[][] ended);

    static native void nativeCheckOptions(String optionsJson);

    static native int nativePoll(long handle, ByteBuffer buffer, long timeoutMillis);

    static native int nativePollHeap(long handle, byte[] array, long timeoutMillis);

    static native String nativePositionsJson(long handle);

    static native String nativeMetricsJson(long handle);

    static native void nativeWake(long handle);

    static native void nativeClose(long handle);

    static native String nativeKeyOrders(String optionsJson);

    // ---- native logs (NativeLogs) ----

    static native void nativeSetLogLevel(int level);

    static native ByteBuffer nativeLogState();

    static native int nativeDrainLogs(ByteBuffer buffer);

    /** The library's name and version, e.g. {@code vitess-cdc-jni 0.1.0}. */
    static native String nativeLibraryVersion();

    /**
     * Streams opened through this class loader's copy of the library and not closed yet: for leak
     * checks in tests and at reader shutdown.
     */
    public static int openStreamCount() {
        NativeLibrary.load();
        return nativeOpenStreams();
    }

    static native int nativeOpenStreams();

    /** Loads the native library and returns its version, e.g. {@code vitess-cdc-jni 0.1.0}. */
    public static String nativeVersion() {
        NativeLibrary.load();
        return nativeLibraryVersion();
    }
}
