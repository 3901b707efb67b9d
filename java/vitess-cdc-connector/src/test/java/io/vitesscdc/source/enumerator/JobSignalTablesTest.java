/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JobSignalTablesTest {

    private static JobSignalTables.Member source(String job, List<String> tables, List<String> patterns) {
        return JobSignalTables.member(job, "vtgate:15991", "customer", "sig", tables, patterns);
    }

    @Test
    void aTableIsReadByNoneOnlyWhenNoSourceOfTheJobSelectsIt() {
        JobSignalTables.Member orders = source("job-a", List.of("orders"), List.of());
        JobSignalTables.Member logs = source("job-a", List.of(), List.of("log_.*"));
        JobSignalTables.Member otherJob = source("job-b", List.of("customers"), List.of());
        orders.join();
        logs.join();
        otherJob.join();
        try {
            assertThat(orders.readByNone(List.of("log_2026", "customers", "catalog")))
                    .as("a pattern matches whole names; another job's sources do not count")
                    .containsExactly("customers", "catalog");
            assertThat(logs.readByNone(List.of("orders", "xlog_1"))).containsExactly("xlog_1");
            assertThat(orders.jobSelection()).isEqualTo("/log_.*/; orders");

            logs.leave();
            assertThat(orders.readByNone(List.of("log_2026"))).containsExactly("log_2026");
        } finally {
            orders.leave();
            logs.leave();
            otherJob.leave();
        }
    }

    @Test
    void aSignalIsReportedOnceForTheWholeJob() {
        JobSignalTables.Member a = source("job-c", List.of("a"), List.of());
        JobSignalTables.Member b = source("job-c", List.of("b"), List.of());
        JobSignalTables.Member elsewhere = source("job-d", List.of("a"), List.of());
        a.join();
        b.join();
        elsewhere.join();
        try {
            assertThat(a.firstReport("resnap-1")).isTrue();
            assertThat(b.firstReport("resnap-1")).as("the job's other source").isFalse();
            assertThat(a.firstReport("resnap-1")).as("a restart's repeat").isFalse();
            assertThat(elsewhere.firstReport("resnap-1"))
                    .as("another job reports its own")
                    .isTrue();
            assertThat(b.firstReport("resnap-2")).isTrue();
        } finally {
            a.leave();
            b.leave();
            elsewhere.leave();
        }
    }

    @Test
    void aPatternJavaCannotReadCountsAsReadingEveryTableNotAsAnError() {
        // Valid for the core (Rust's regex), not for java.util.regex.
        JobSignalTables.Member named = source("job-f", List.of(), List.of("(?P<t>log_.*)"));
        named.join();
        try {
            assertThat(named.readByNone(List.of("log_1", "orders"))).isEmpty();
        } finally {
            named.leave();
        }
    }

    @Test
    void aReportAfterEverySourceLeftIsTheFirstAndLeavesNoChannelBehind() {
        JobSignalTables.Member gone = source("job-g", List.of("a"), List.of());
        gone.join();
        gone.leave();
        assertThat(gone.firstReport("late")).isTrue();
        assertThat(gone.firstReport("late")).as("no channel was made for it").isTrue();
    }

    @Test
    void aSourceThatSelectsEveryTableReadsThemAll() {
        JobSignalTables.Member all = source("job-e", List.of(), List.of());
        all.join();
        try {
            assertThat(all.readByNone(List.of("anything"))).isEmpty();
            assertThat(all.selection()).isEqualTo("every table");
        } finally {
            all.leave();
        }
    }
}
