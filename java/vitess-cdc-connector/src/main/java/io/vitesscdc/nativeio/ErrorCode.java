/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * What went wrong in the native core, as a stable code to decide on (the message is for people
 * and may change). The names are the core's {@code ErrorCode::as_str} (rust/core/src/error.rs);
 * a code this class does not know (a newer native library) reads as {@link #UNSPECIFIED}.
 */
public enum ErrorCode {
    /** No more specific code applies. */
    UNSPECIFIED,
    /** An option value is invalid or contradicts another. */
    INVALID_OPTION,
    UNKNOWN_KEYSPACE,
    UNKNOWN_TABLE,
    UNKNOWN_SHARD,
    /** A column the stream selects (e.g. a column declared in a Flink table) is not in the table. */
    UNKNOWN_COLUMN,
    /** A selected table has no primary key. */
    NO_PRIMARY_KEY,
    /** A saved position is corrupt, foreign or of another keyspace. */
    INVALID_POSITION,
    /** The binlogs a saved position needs are purged on every tablet. */
    POSITION_TOO_OLD,
    /** VTGate wants credentials or rejected them. */
    AUTH_FAILED,
    /** TLS is misconfigured on one side (plaintext vs TLS, unknown CA, client certificate). */
    TLS_MISMATCH,
    /** VTGate could not be reached or did not answer in time. */
    UNREACHABLE,
    /** The server is not a supported Vitess (too old, not VTGate). */
    UNSUPPORTED_SERVER,
    /** A message was larger than the client accepts. */
    MESSAGE_TOO_LARGE,
    /** VTGate copied a finished table again (its own retry): restart from an earlier checkpoint. */
    COPY_REPEATED,
    /**
     * Rows written before a schema change that the tablet cannot decode with the table's current
     * schema: it does not track schema versions ({@code vttablet --track-schema-versions}).
     */
    SCHEMA_MISMATCH,
    /**
     * DDL took a selected table's rows away without row events (TRUNCATE, DROP TABLE, a RENAME
     * away) or changed its primary key; docs/reliability.md, "DDL that changes what downstream holds".
     */
    DESTRUCTIVE_DDL,
    /**
     * A bug in vitess-cdc: a background task of the native stream panicked (the message says
     * where). Fatal: restarting from the last checkpoint may meet it again.
     */
    INTERNAL;

    /** The code of a wire name; unknown or missing names are {@link #UNSPECIFIED}. */
    public static ErrorCode fromWire(String name) {
        if (name != null) {
            for (ErrorCode c : values()) {
                if (c.name().equals(name)) {
                    return c;
                }
            }
        }
        return UNSPECIFIED;
    }

    /** The code of the first {@link VitessCdcException} in {@code error}'s cause chain. */
    public static ErrorCode of(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof VitessCdcException) {
                return ((VitessCdcException) t).code();
            }
        }
        return UNSPECIFIED;
    }
}
