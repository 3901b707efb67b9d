/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.nativeio.KeyOrders;
import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tables a job's marks record (what a restore compares with to capture added tables): the
 * names it gives as they are, a pattern or "every table" resolved against the keyspace.
 */
class VitessSourceJobTablesTest {

    private final List<String> planned = new ArrayList<>();

    /** A planning call that answers these tables and remembers the options it was asked with. */
    private Function<String, KeyOrders> keyspaceWith(String... tables) {
        return options -> {
            planned.add(options);
            StringBuilder json = new StringBuilder("{\"tables\":{");
            for (int i = 0; i < tables.length; i++) {
                json.append(i == 0 ? "" : ",").append('"').append(tables[i]).append("\":{\"exact\":true}");
            }
            return KeyOrders.parse(json.append("}}").toString());
        };
    }

    private static VitessSource<String> source(UnaryOperator<VitessSourceBuilder<String>> selection) {
        return selection
                .apply(VitessSource.<String>builder()
                        .address("127.0.0.1:15991")
                        .keyspace("customer")
                        .deserializer(new JsonDebeziumDeserializationSchema()))
                .build();
    }

    @Test
    void tablesNamedAreRecordedAsTheyAreWithoutAskingVtgate() {
        List<String> tables = VitessSource.jobTables(
                source(b -> b.tables("customer", "corder")).config(), keyspaceWith("customer", "corder", "other"));
        assertThat(tables).containsExactly("customer", "corder");
        assertThat(planned).as("planning calls").isEmpty();
    }

    @Test
    void aPatternIsResolvedToTheTablesItMatchesNow() {
        List<String> tables = VitessSource.jobTables(
                source(b -> b.tablePatterns("cust.*")).config(), keyspaceWith("customer", "customer_archive"));
        assertThat(tables).containsExactly("customer", "customer_archive");
        assertThat(planned).hasSize(1);
        assertThat(planned.get(0)).contains("cust.*");
    }

    @Test
    void namesAndPatternsTogetherAndEveryTableAreResolvedToo() {
        assertThat(VitessSource.jobTables(
                        source(b -> b.tables("corder").tablePatterns("cust.*")).config(),
                        keyspaceWith("corder", "customer")))
                .containsExactly("corder", "customer");
        assertThat(VitessSource.jobTables(source(b -> b).config(), keyspaceWith("a", "b", "c")))
                .containsExactly("a", "b", "c");
        assertThat(planned).hasSize(2);
    }
}
