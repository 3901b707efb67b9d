/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.deserializer.ShapeFailure;

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
public final class UnreadableColumnException extends IllegalArgumentException implements ShapeFailure {

    private static final long serialVersionUID = 1L;

    private final boolean badValue;

    /** The column cannot be read in any row (the table's shape and the declaration disagree). */
    public UnreadableColumnException(String message) {
        this(message, null, false);
    }

    public UnreadableColumnException(String message, Throwable cause) {
        this(message, cause, false);
    }

    private UnreadableColumnException(String message, Throwable cause, boolean badValue) {
        super(message, cause);
        this.badValue = badValue;
    }

    /** One row's value does not fit the declared type: a bad record, which 'scan.bad-record.handling' may skip. */
    public static UnreadableColumnException badValue(String message, Throwable cause) {
        return new UnreadableColumnException(message, cause, true);
    }

    /**
     * Whether only this row's value is unreadable (a bad record), not every row of the table: a
     * mismatch of shapes is never skipped, or a job would read nothing while looking healthy.
     */
    public boolean isBadValue() {
        return badValue;
    }

    @Override
    public boolean failsEveryRecord() {
        return !badValue;
    }
}
