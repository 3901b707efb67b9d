/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The decoded entries of one batch, in stream order.
 *
 * <p>Records are views over the buffer the batch was polled into: they stay valid until that
 * buffer is polled into again. Convert (or copy) them before the next poll.
 */
public final class Batch implements Iterable<BatchEntry> {

    /** Header flag: the batch holds the end-of-stream entry. */
    public static final int FLAG_END_OF_STREAM = 1;

    private final int version;
    private final int flags;
    private final List<BatchEntry> entries;
    private final int sizeInBytes;

    Batch(int version, int flags, List<BatchEntry> entries, int sizeInBytes) {
        this.version = version;
        this.flags = flags;
        this.entries = Collections.unmodifiableList(entries);
        this.sizeInBytes = sizeInBytes;
    }

    public int version() {
        return version;
    }

    public int flags() {
        return flags;
    }

    /** True when the stream ended with this batch (snapshot-only mode). */
    public boolean isEndOfStream() {
        return (flags & FLAG_END_OF_STREAM) != 0;
    }

    public List<BatchEntry> entries() {
        return entries;
    }

    public int size() {
        return entries.size();
    }

    /** Encoded size, header included. */
    public int sizeInBytes() {
        return sizeInBytes;
    }

    @Override
    public Iterator<BatchEntry> iterator() {
        return entries.iterator();
    }

    @Override
    public String toString() {
        return "Batch{entries=" + entries.size() + ", bytes=" + sizeInBytes + ", flags=" + flags + "}";
    }
}
