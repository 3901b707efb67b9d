/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * Anything that is neither a configuration mistake nor transient: protocol violations, corrupt
 * state, server refusals, and bugs in the native core (a Rust panic surfaces as this). Not retried.
 */
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
