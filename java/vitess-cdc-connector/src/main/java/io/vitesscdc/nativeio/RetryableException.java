/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * A transient failure (network, VTGate restart, tablet failover) that outlasted the core's own
 * retry budget. Restarting the job from its last checkpoint is the expected recovery.
 */
public class RetryableException extends VitessCdcException {

    private static final long serialVersionUID = 1L;

    public RetryableException(String message) {
        super(message);
    }

    public RetryableException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Thrown by the native library: the core's error code by name (see {@link ErrorCode}). */
    public RetryableException(String message, Throwable cause, String code) {
        super(message, cause, ErrorCode.fromWire(code));
    }
}
