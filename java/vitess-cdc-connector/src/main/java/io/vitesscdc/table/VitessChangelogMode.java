/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import org.apache.flink.annotation.Internal;

import java.util.Locale;

/** The values of option {@code 'changelog-mode'} (docs/sql-connector.md, "Which keys give an exact changelog"). */
@Internal
enum VitessChangelogMode {
    /** Retract when every selected table's key order is exact, else upsert. */
    AUTO,
    /** Always retract (+I -U +U -D); refused at planning for a table whose key order is not exact. */
    ALL,
    /** Always upsert (+I +U -D, full rows): Flink normalizes it where a retract stream is needed. */
    UPSERT;

    /** The option's value as written in the DDL. */
    String optionValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses the option, case-insensitively; null for an unknown value. */
    static VitessChangelogMode parse(String value) {
        for (VitessChangelogMode mode : values()) {
            if (mode.optionValue().equals(value.trim().toLowerCase(Locale.ROOT))) {
                return mode;
            }
        }
        return null;
    }
}
