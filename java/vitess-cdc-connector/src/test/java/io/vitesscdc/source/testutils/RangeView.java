/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rows of one test's id range on both sides: what its job materialized ({@link
 * MaterializedTables} of the run) and what Vitess holds ({@code SELECT *} through VTGate). Tests
 * share the {@code customer} table, so both sides are limited to the writer's range.
 */
public final class RangeView {

    private final String runId;
    private final CustomerWriter writer;

    public RangeView(String runId, CustomerWriter writer) {
        this.runId = runId;
        this.writer = writer;
    }

    /** Materialized rows of the range, by primary key. */
    public Map<String, Map<String, String>> materialized() {
        Map<String, Map<String, String>> out = new TreeMap<>();
        MaterializedTables.get(runId).rows().forEach((k, v) -> {
            if (writer.inRange(Long.parseLong(k))) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** Rows of the range in Vitess, by primary key. */
    public Map<String, Map<String, String>> inVitess() throws Exception {
        return VitessCluster.query(
                "customer", "SELECT * FROM customer WHERE " + writer.rangePredicate(), "customer_id");
    }

    /**
     * Waits until the materialized rows equal Vitess's (writes must have stopped), then asserts it:
     * a non-empty range, equal row by row.
     */
    public void awaitEqualToVitess(Duration timeout, String what) throws Exception {
        Map<String, Map<String, String>> expected = inVitess();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !materialized().equals(expected)) {
            Thread.sleep(300);
        }
        assertThat(expected).as("rows written by this test").isNotEmpty();
        assertThat(materialized()).as(what).isEqualTo(expected);
    }
}
