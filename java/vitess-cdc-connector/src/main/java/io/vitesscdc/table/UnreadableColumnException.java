/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A column declared in the Flink table that the connector cannot read: the Vitess table lacks it,
 * its MySQL type can never be read as the declared type, or one of its values does not fit the
 * declared type. The message names the column, both types and the declaration to use instead.
 *
 * <p>Marked non-recoverable: a restart replays the same rows from the last checkpoint and fails on
 * the same value again, so Flink fails the job at once (whatever its restart strategy) instead of
 * cycling RUNNING → RESTARTING. Flink's failure handler finds the annotation anywhere in the
 * cause chain, so wrapping this exception keeps the classification.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class UnreadableColumnException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public UnreadableColumnException(String message) {
        super(message);
    }

    public UnreadableColumnException(String message, Throwable cause) {
        super(message, cause);
    }
}
