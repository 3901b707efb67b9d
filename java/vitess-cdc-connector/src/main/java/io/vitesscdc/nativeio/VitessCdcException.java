/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * Base of every error the connector raises from its native core.
 *
 * <p>Unchecked, because Flink's source interfaces do not declare checked exceptions and because
 * callers decide by subclass what to do: {@link ConfigurationException} (fix the job),
 * {@link RetryableException} (the core already retried; restarting the job may help) and
 * {@link FatalException} (anything else). The message is the Rust error's full message; the
 * Rust cause chain, when there is one, hangs below as {@link NativeCause}s; {@link #code()} says
 * what went wrong in a form to decide on.
 */
public class VitessCdcException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public VitessCdcException(String message) {
        super(message);
        this.code = ErrorCode.UNSPECIFIED;
    }

    public VitessCdcException(String message, Throwable cause) {
        this(message, cause, ErrorCode.UNSPECIFIED);
    }

    public VitessCdcException(String message, Throwable cause, ErrorCode code) {
        super(message, cause);
        this.code = code;
    }

    /** What went wrong, to decide on (never parse the message). */
    public ErrorCode code() {
        return code;
    }
}
