/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What the source does with a record that cannot be converted: a value that does not fit its
 * declared SQL type, or an exception of the user's deserializer (the SQL option {@code
 * scan.bad-record.handling}, the builder's {@code badRecordHandling}). A mismatch between the
 * table's shape and the declaration (a declared column the table lacks) is not a bad record: it
 * would fail every row, so it always stops the job.
 */
@PublicEvolving
public enum BadRecordHandling {
    /** Stop the job, without restarts (a restart would meet the same record again). */
    FAIL,
    /**
     * Leave the record out and go on: it is logged (table, shard, key, position, cause) and counted
     * in {@code numRecordsInErrors}, and the split's position moves past it, so a restore from a
     * later checkpoint does not meet it again.
     */
    SKIP;

    public String optionValue() {
        return OptionValues.of(this);
    }

    /** The policy of an option value (any case), or null when there is none of that name. */
    public static BadRecordHandling fromOptionValue(String value) {
        return OptionValues.find(BadRecordHandling.class, value);
    }
}
