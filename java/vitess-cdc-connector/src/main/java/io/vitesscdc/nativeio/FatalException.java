/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * Anything that is neither a configuration mistake nor transient: protocol violations, corrupt
 * state, server refusals, values the core cannot decode, and bugs in the native core (a Rust panic
 * surfaces as this). Not retried by the core, and marked non-recoverable for Flink: a restart would
 * resume at the same position and meet the same event again, so the job stops once with the cause
 * instead of cycling through restarts (docs/reliability.md, "Failure classes").
 */
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public class FatalException extends VitessCdcException {

    private static final long serialVersionUID = 1L;

    public FatalException(String message) {
        super(message);
    }

    public FatalException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Thrown by the native library: the core's error code by name (see {@link ErrorCode}). */
    public FatalException(String message, Throwable cause, String code) {
        super(message, cause, ErrorCode.fromWire(code));
    }
}
