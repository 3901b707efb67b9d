/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What the source does at DDL that changes what downstream holds without a row event: {@code
 * TRUNCATE}, {@code DROP TABLE} or a {@code RENAME} away of a selected table, or a change of its
 * primary key (docs/reliability.md, "DDL that changes what downstream holds").
 */
@PublicEvolving
public enum DestructiveDdl {
    /** Stop the job (without restarts) naming the table, the statement and the fix; the default. */
    FAIL,
    /** Log a warning naming the table and the statement, and go on: downstream keeps the rows it had. */
    CONTINUE;

    /** The value of the SQL option {@code scan.destructive-ddl} and the native option {@code destructive_ddl}. */
    public String optionValue() {
        return OptionValues.of(this);
    }

    /** The handling of an option value, case-insensitively. */
    public static DestructiveDdl fromOptionValue(String value) {
        DestructiveDdl found = OptionValues.find(DestructiveDdl.class, value);
        if (found != null) {
            return found;
        }
        throw new IllegalArgumentException("unknown destructive DDL handling '" + value
                + "': use 'fail' (stop the job) or 'continue' (log it and keep the rows downstream)");
    }
}
