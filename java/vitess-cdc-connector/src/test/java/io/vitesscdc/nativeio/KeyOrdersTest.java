/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The key-order answer without a server: its JSON, and the errors of the native call. */
class KeyOrdersTest {

    @Test
    void exactInexactAndKeylessTablesAreRead() {
        KeyOrders orders = KeyOrders.parse("{\"tables\":{\"customer\":{\"exact\":true},"
                + "\"s_varchar\":{\"exact\":false,\"column\":\"k\",\"reason\":\"text in collation utf8mb4_0900_ai_ci\"},"
                + "\"log\":{\"exact\":false,\"reason\":\"the table has no primary key\"}}}");
        assertThat(orders.tables()).containsExactly("customer", "log", "s_varchar");
        assertThat(orders.allExact()).isFalse();
        assertThat(orders.inexact()).extracting(KeyOrders.Inexact::table).containsExactly("log", "s_varchar");
        KeyOrders.Inexact keyless = orders.inexact().get(0);
        assertThat(keyless.column()).isNull();
        assertThat(keyless.toString()).isEqualTo("table 'log': the table has no primary key");
        KeyOrders.Inexact varchar = orders.inexact().get(1);
        assertThat(varchar.column()).isEqualTo("k");
        assertThat(varchar.toString())
                .isEqualTo("table 's_varchar', primary-key column 'k': text in collation utf8mb4_0900_ai_ci");
    }

    @Test
    void onlyAnExplicitExactCounts() {
        assertThat(KeyOrders.parse("{\"tables\":{\"a\":{\"exact\":true}}}").allExact())
                .isTrue();
        assertThat(KeyOrders.parse("{\"tables\":{}}").allExact()).isTrue();
        assertThat(KeyOrders.parse("{\"tables\":{\"a\":{}}}").inexact())
                .singleElement()
                .satisfies(i -> assertThat(i.reason()).isEqualTo("no reason given"));
    }

    @Test
    void malformedAnswersAreFatal() {
        assertThatThrownBy(() -> KeyOrders.parse("{\"tables\":"))
                .isExactlyInstanceOf(FatalException.class)
                .hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> KeyOrders.parse("{\"shards\":[]}"))
                .isExactlyInstanceOf(FatalException.class)
                .hasMessageContaining("no \"tables\" object");
    }

    @Test
    void optionMistakesAndAnUnreachableVtgateAreReportedByTheNativeCall() {
        assertThatThrownBy(() -> KeyOrders.read("{\"address\":\"127.0.0.1:1\",\"keyspace\":\"k\",\"tabels\":[]}"))
                .isExactlyInstanceOf(ConfigurationException.class)
                .hasMessageContaining("tabels");
        assertThatThrownBy(() ->
                        KeyOrders.read("{\"address\":\"127.0.0.1:1\",\"keyspace\":\"k\",\"connect_timeout_ms\":2000}"))
                .isExactlyInstanceOf(RetryableException.class)
                .hasMessageContaining("127.0.0.1:1")
                .hasMessageContaining("connection refused");
        assertThatThrownBy(() -> KeyOrders.read(null)).isInstanceOf(NullPointerException.class);
    }
}
