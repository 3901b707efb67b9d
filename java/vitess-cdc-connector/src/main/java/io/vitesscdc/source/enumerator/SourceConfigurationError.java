/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A mistake in the source's configuration found when the job starts (unknown keyspace or table,
 * bad positions, bad credentials). Marked non-recoverable so Flink fails the job at once with
 * this message instead of restarting it forever: a restart cannot fix a configuration.
 */
@Internal
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class SourceConfigurationError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SourceConfigurationError(String message, Throwable cause) {
        super(message, cause);
    }
}
