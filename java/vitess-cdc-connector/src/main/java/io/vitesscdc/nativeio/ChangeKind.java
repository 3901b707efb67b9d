/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * The kind of a row change. Byte values equal Flink's {@code RowKind} ones, so conversion to Flink
 * is a table lookup; this package stays free of Flink types so it can be tested and used alone.
 */
public enum ChangeKind {
    INSERT("+I"),
    UPDATE_BEFORE("-U"),
    UPDATE_AFTER("+U"),
    DELETE("-D");

    private static final ChangeKind[] BY_CODE = values();

    private final String shortString;

    ChangeKind(String shortString) {
        this.shortString = shortString;
    }

    /** {@code +I}, {@code -U}, {@code +U} or {@code -D}, as Flink prints changelogs. */
    public String shortString() {
        return shortString;
    }

    /** The wire code (0..3), equal to Flink's {@code RowKind.toByteValue()}. */
    public byte toByteValue() {
        return (byte) ordinal();
    }

    static ChangeKind fromCode(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new FatalException("corrupt batch: unknown row kind " + code);
        }
        return BY_CODE[code];
    }
}
