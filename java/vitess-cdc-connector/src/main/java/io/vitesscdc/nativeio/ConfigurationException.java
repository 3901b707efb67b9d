/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * The user asked for something invalid: a bad option, an unknown keyspace or table, a table
 * without primary key, an unparsable position. Retrying does not help; the message names the fix.
 *
 * <p>Marked non-recoverable wherever it is thrown (enumerator, reader, restore): a restart would
 * meet the same configuration and fail again, so Flink fails the job at once instead of cycling
 * RUNNING → RESTARTING. (Outside Flink the annotation is inert.)
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class ConfigurationException extends VitessCdcException {

    private static final long serialVersionUID = 1L;

    public ConfigurationException(String message) {
        super(message);
    }

    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Thrown by the native library: the core's error code by name (see {@link ErrorCode}). */
    public ConfigurationException(String message, Throwable cause, String code) {
        super(message, cause, ErrorCode.fromWire(code));
    }
}
