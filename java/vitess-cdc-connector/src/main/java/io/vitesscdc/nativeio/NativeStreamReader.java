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
 * native side asks for) when a single event does not fit, up to {@code maxBufferBytes}. A batch
 * returned by {@link #poll} is valid until the next call to {@link #poll}.
 *
 * <p>Not thread-safe, except {@link #wake} and {@link #close}, which may be called from any
 * thread (see {@link NativeStream}).
 */
public final class NativeStreamReader implements AutoCloseable {

    public static final int DEFAULT_INITIAL_BUFFER_BYTES = VitessDefaults.INITIAL_BATCH_BUFFER_BYTES;
    public static final int DEFAULT_MAX_BUFFER_BYTES = VitessDefaults.MAX_BATCH_BUFFER_BYTES;

    private static final Batch END = new Batch(BatchDecoder.VERSION, Batch.FLAG_END_OF_STREAM, List.of(), 0);

    private final NativeStream stream;
    private final BatchDecoder decoder = new BatchDecoder();
    private final int maxBufferBytes;
    private ByteBuffer buffer;
    private boolean ended;

    public NativeStreamReader(NativeStream stream) {
        this(stream, DEFAULT_INITIAL_BUFFER_BYTES, DEFAULT_MAX_BUFFER_BYTES);
    }

    public NativeStreamReader(NativeStream stream, int initialBufferBytes, int maxBufferBytes) {
        if (initialBufferBytes < BatchDecoder.HEADER_LENGTH || maxBufferBytes < initialBufferBytes) {
            throw new IllegalArgumentException("need " + BatchDecoder.HEADER_LENGTH
                    + " <= initialBufferBytes <= maxBufferBytes, got " + initialBufferBytes + ", " + maxBufferBytes);
        }
        this.stream = stream;
        this.maxBufferBytes = maxBufferBytes;
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
            grow(-(long) n);
        }
    }

    private void grow(long needed) {
        if (needed > maxBufferBytes) {
            throw new FatalException("A single change event needs a " + needed + "-byte batch buffer, more than the "
                    + maxBufferBytes + " allowed: raise the maximum batch buffer size");
        }
        long size = Math.max(needed, Math.min((long) buffer.capacity() * 2, maxBufferBytes));
        buffer = ByteBuffer.allocateDirect((int) size);
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
