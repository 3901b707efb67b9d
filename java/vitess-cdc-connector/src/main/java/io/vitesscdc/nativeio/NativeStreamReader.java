/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import io.vitesscdc.source.config.VitessDefaults;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Polls a {@link NativeStream} into a reusable direct buffer and decodes the batches: the buffer
 * management and result-code handling every consumer would otherwise repeat.
 *
 * <p>The buffer starts at {@code initialBufferBytes} and grows (doubling, at least to what the
 * native side asks for) when a single event does not fit, up to {@link #DIRECT_LIMIT_BYTES} (or
 * {@code initialBufferBytes}, if larger). An event that needs more, up to {@code maxBufferBytes},
 * is polled into a heap array of its own size instead: a row near VTGate's 16 MiB message limit
 * then lives in the heap that Flink's memory model budgets (task heap), for as long as its batch
 * is read, rather than in a direct buffer that would stay that large for the stream's life and
 * count against the TaskManager's direct-memory limit. A batch returned by {@link #poll} is valid
 * until the next call to {@link #poll}.
 *
 * <p>Not thread-safe, except {@link #wake} and {@link #close}, which may be called from any
 * thread (see {@link NativeStream}).
 */
public final class NativeStreamReader implements AutoCloseable {

    public static final int DEFAULT_INITIAL_BUFFER_BYTES = VitessDefaults.INITIAL_BATCH_BUFFER_BYTES;
    public static final int DEFAULT_MAX_BUFFER_BYTES = VitessDefaults.MAX_BATCH_BUFFER_BYTES;

    /**
     * The largest the reusable direct buffer grows; larger events go through a heap array (see
     * the class comment). Above the default batch size (1 MiB), so ordinary batches never take
     * that path.
     */
    public static final int DIRECT_LIMIT_BYTES = 4 << 20;

    private static final Batch END = new Batch(BatchDecoder.VERSION, Batch.FLAG_END_OF_STREAM, List.of(), 0);

    private final NativeStream stream;
    private final BatchDecoder decoder = new BatchDecoder();
    private final int maxBufferBytes;
    private final int directLimitBytes;
    private ByteBuffer buffer;
    private boolean ended;
    private long heapBatches;

    public NativeStreamReader(NativeStream stream) {
        this(stream, DEFAULT_INITIAL_BUFFER_BYTES, DEFAULT_MAX_BUFFER_BYTES);
    }

    public NativeStreamReader(NativeStream stream, int initialBufferBytes, int maxBufferBytes) {
        this(stream, initialBufferBytes, Math.max(initialBufferBytes, DIRECT_LIMIT_BYTES), maxBufferBytes);
    }

    /**
     * A reader whose direct buffer grows up to {@code directLimitBytes} (tests send most events
     * through the heap path with a small one).
     */
    NativeStreamReader(NativeStream stream, int initialBufferBytes, int directLimitBytes, int maxBufferBytes) {
        if (initialBufferBytes < BatchDecoder.HEADER_LENGTH || maxBufferBytes < initialBufferBytes) {
            throw new IllegalArgumentException("need " + BatchDecoder.HEADER_LENGTH
                    + " <= initialBufferBytes <= maxBufferBytes, got " + initialBufferBytes + ", " + maxBufferBytes);
        }
        if (directLimitBytes < initialBufferBytes) {
            throw new IllegalArgumentException(
                    "need initialBufferBytes <= directLimitBytes, got " + initialBufferBytes + ", " + directLimitBytes);
        }
        this.stream = stream;
        this.maxBufferBytes = maxBufferBytes;
        this.directLimitBytes = Math.min(maxBufferBytes, directLimitBytes);
        this.buffer = ByteBuffer.allocateDirect(initialBufferBytes);
    }

    /**
     * The next batch; {@code null} when nothing arrived within the timeout; an empty batch with
     * {@link Batch#isEndOfStream()} once the stream has ended (and on every call after that).
     */
    public Batch poll(long timeoutMillis) {
        if (ended) {
            return END;
        }
        while (true) {
            int n = stream.poll(buffer, timeoutMillis);
            if (n > 0) {
                Batch batch = decoder.decode(buffer, n);
                ended = batch.isEndOfStream();
                return batch;
            }
            if (n == 0) {
                return null;
            }
            if (n == NativeStream.END_OF_STREAM) {
                ended = true;
                return END;
            }
            int needed = -n;
            if (needed > maxBufferBytes) {
                throw new FatalException("A single change event needs a " + needed
                        + "-byte batch buffer, more than the " + maxBufferBytes
                        + " allowed: raise the maximum batch buffer size");
            }
            if (needed > directLimitBytes) {
                return pollHeap(needed);
            }
            grow(needed);
        }
    }

    /**
     * Polls the pending event that needs {@code needed} bytes into a heap array of that size; it
     * is already received, so this does not wait.
     */
    private Batch pollHeap(int needed) {
        byte[] array = new byte[needed];
        int n = stream.pollHeap(array, 0);
        if (n > 0) {
            heapBatches++;
            Batch batch = decoder.decode(ByteBuffer.wrap(array), n);
            ended = batch.isEndOfStream();
            return batch;
        }
        if (n == NativeStream.END_OF_STREAM) {
            ended = true;
            return END;
        }
        // 0: closed or woken meanwhile; below -1 cannot happen for the same event, and the next
        // poll asks again if it does.
        return null;
    }

    private void grow(int needed) {
        long size = Math.max(needed, Math.min((long) buffer.capacity() * 2, directLimitBytes));
        buffer = ByteBuffer.allocateDirect((int) size);
    }

    /** Batches polled into a heap array so far (events larger than the direct buffer may grow). */
    public long heapBatches() {
        return heapBatches;
    }

    /** Current buffer capacity in bytes. */
    public int bufferCapacity() {
        return buffer.capacity();
    }

    public NativeStream stream() {
        return stream;
    }

    /** Makes a {@link #poll} waiting in another thread return {@code null} now. */
    public void wake() {
        stream.wake();
    }

    @Override
    public void close() {
        stream.close();
    }
}
