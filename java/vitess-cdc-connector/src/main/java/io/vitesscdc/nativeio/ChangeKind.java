/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * The kind of a row change. The first four byte values equal Flink's {@code RowKind} ones, so
 * conversion to Flink is a table lookup; this package stays free of Flink types so it can be
 * tested and used alone.
 *
 * <p>{@link #SNAPSHOT_READ} (wire code 4) is a row of a chunked snapshot (docs/snapshots.md): the
 * row's state at its chunk's snapshot, which the key may already have downstream (a re-snapshot)
 * or not. It is an upsert, never an insert of an absent key, so it has no Flink retract kind: a
 * table that reads chunked snapshots declares an upsert changelog, where it is {@code +U}.
 */
public enum ChangeKind {
    INSERT("+I"),
    UPDATE_BEFORE("-U"),
    UPDATE_AFTER("+U"),
    DELETE("-D"),
    SNAPSHOT_READ("=R");

    private static final ChangeKind[] BY_CODE = values();

    private final String shortString;

    ChangeKind(String shortString) {
        this.shortString = shortString;
    }

    /** {@code +I}, {@code -U}, {@code +U} or {@code -D}, as Flink prints changelogs; {@code =R} for a snapshot read. */
    public String shortString() {
        return shortString;
    }

    /**
     * The wire code (0..4); 0..3 equal Flink's {@code RowKind.toByteValue()}, 4 is {@link
     * #SNAPSHOT_READ}, which Flink's {@code RowKind} does not have.
     */
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
