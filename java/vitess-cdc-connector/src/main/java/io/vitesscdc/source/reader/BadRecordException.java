/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.throwable.ThrowableAnnotation;
import org.apache.flink.runtime.throwable.ThrowableType;

/**
 * A record the source could not convert, with 'scan.bad-record.handling' = 'fail' (the default):
 * names its table, shard, key and position and carries the cause. Marked non-recoverable: a
 * restart would replay the same record from the last checkpoint and fail again, so Flink stops
 * the job at once instead of restarting it in a loop; 'skip' leaves such records out instead.
 */
@PublicEvolving
@ThrowableAnnotation(ThrowableType.NonRecoverableError)
public final class BadRecordException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BadRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
