/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Bounds-checked little-endian reads over one entry of a batch. Uses absolute gets only, so any
 * number of cursors and record views can share one buffer without touching its position.
 */
final class BatchCursor {

    private final ByteBuffer buf;
    private int end;
    private int pos;

    BatchCursor(ByteBuffer littleEndianBuffer, int pos, int end) {
        this.buf = littleEndianBuffer;
        this.pos = pos;
        this.end = end;
    }

    /**
     * This cursor moved to {@code [pos, end)} of the same buffer: the decoder reads every entry of
     * a batch with the same two cursors, not two new ones per entry (a record's only garbage
     * besides its own objects, and the JIT cannot remove them before it compiles the loop).
     */
    BatchCursor at(int pos, int end) {
        this.pos = pos;
        this.end = end;
        return this;
    }

    int position() {
        return pos;
    }

    int remaining() {
        return end - pos;
    }

    private int advance(int n) {
        if (n < 0 || n > end - pos) {
            throw corrupt("entry ends after " + (end - pos) + " bytes, needed " + n);
        }
        int at = pos;
        pos += n;
        return at;
    }

    void skip(int n) {
        advance(n);
    }

    int u8() {
        return buf.get(advance(1)) & 0xff;
    }

    int u16() {
        return buf.getShort(advance(2)) & 0xffff;
    }

    int i32() {
        return buf.getInt(advance(4));
    }

    long u32() {
        return buf.getInt(advance(4)) & 0xffffffffL;
    }

    /** A u32 length that must fit an int (Java arrays and buffers are int-indexed). */
    int length() {
        long n = u32();
        if (n > end - pos) {
            throw corrupt("length " + n + " exceeds the " + (end - pos) + " bytes left in the entry");
        }
        return (int) n;
    }

    long i64() {
        return buf.getLong(advance(8));
    }

    double f64() {
        return buf.getDouble(advance(8));
    }

    byte[] bytes() {
        int n = length();
        byte[] out = new byte[n];
        buf.get(advance(n), out);
        return out;
    }

    String str() {
        int n = length();
        int at = advance(n);
        if (buf.hasArray()) {
            return new String(buf.array(), buf.arrayOffset() + at, n, StandardCharsets.UTF_8);
        }
        byte[] tmp = new byte[n];
        buf.get(at, tmp);
        return new String(tmp, StandardCharsets.UTF_8);
    }

    static FatalException corrupt(String detail) {
        return new FatalException("corrupt batch from the native library: " + detail);
    }
}
