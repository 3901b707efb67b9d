/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.deserializer;

import java.util.Arrays;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * A reused buffer of UTF-8 bytes that one text is put together in, then taken as a {@code String}
 * in one decoding: the JSON path's events are mostly bytes the core wrote (a row object, kept
 * pieces), and putting them together as bytes spares a {@code String} per row and a copy through
 * a {@code StringBuilder} per event. Numbers are written as {@link Long#toString(long)} writes
 * them, without a {@code String} each.
 */
final class Utf8TextBuilder {

    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    private static final byte[] LONG_MIN = Long.toString(Long.MIN_VALUE).getBytes(UTF_8);

    private byte[] bytes = new byte[512];
    private int length;

    Utf8TextBuilder bytes(byte[] src) {
        return bytes(src, 0, src.length);
    }

    Utf8TextBuilder bytes(byte[] src, int offset, int count) {
        room(count);
        System.arraycopy(src, offset, bytes, length, count);
        length += count;
        return this;
    }

    /** {@code s} in UTF-8; {@code null} as {@code null}, as {@code StringBuilder.append} writes it. */
    Utf8TextBuilder text(String s) {
        return s == null ? bytes(NULL) : bytes(s.getBytes(UTF_8));
    }

    /** Text of ASCII characters only (JSON punctuation, field names), a byte each. */
    Utf8TextBuilder ascii(String s) {
        int n = s.length();
        room(n);
        for (int i = 0; i < n; i++) {
            bytes[length++] = (byte) s.charAt(i);
        }
        return this;
    }

    Utf8TextBuilder bool(boolean b) {
        return bytes(b ? TRUE : FALSE);
    }

    /** {@code v} in decimal, as {@link Long#toString(long)}. */
    Utf8TextBuilder number(long v) {
        if (v == Long.MIN_VALUE) {
            return bytes(LONG_MIN);
        }
        if (v < 0) {
            room(1);
            bytes[length++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long rest = v / 10; rest != 0; rest /= 10) {
            digits++;
        }
        room(digits);
        for (int i = length + digits - 1; i >= length; i--) {
            bytes[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        length += digits;
        return this;
    }

    /** The text put together since the last take; the buffer starts over. */
    String take() {
        String text = new String(bytes, 0, length, UTF_8);
        length = 0;
        return text;
    }

    private void room(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}
