/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink 2.1+ tells key-only deletes from full ones; the upsert changelog's {@code -D} carries the
 * whole row, so the planner must not treat it as key-only (Flink 1.20 has no such distinction: its
 * upsert deletes are full rows; this test is in the Flink 2 lines' test sources).
 */
class ChangelogModeDeletesTest {

    @Test
    void theUpsertChangelogsDeletesCarryTheWholeRow() {
        assertThat(ChangelogModeResolver.UPSERT.keyOnlyDeletes())
                .as("-D carries the whole row")
                .isFalse();
    }
}
