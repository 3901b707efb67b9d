/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import io.vitesscdc.source.testutils.VitessCluster;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link KeyOrders#read} against the local Vitess, whose schema (tests/vitess/schema) has both kinds of key. */
class KeyOrdersITCase {

    @BeforeAll
    static void clusterIsUp() {
        VitessCluster.requireRunning();
    }

    private static String options(String keyspace, String tables) {
        return "{\"address\":\"" + VitessCluster.grpcAddress() + "\",\"keyspace\":\"" + keyspace + "\"" + tables + "}";
    }

    @Test
    void integerAndCompositeKeysAreExact() {
        KeyOrders orders = KeyOrders.read(options("customer", ",\"tables\":[\"customer\",\"corder\"]"));
        assertThat(orders.tables()).containsExactly("corder", "customer");
        assertThat(orders.allExact()).isTrue();
    }

    @Test
    void aVarcharKeyInTheDefaultCollationIsExact() {
        // commerce.product: sku VARCHAR(32) PRIMARY KEY, in MySQL's default utf8mb4_0900_ai_ci,
        // whose order the core reproduces (UCA 9.0.0 primary weights).
        KeyOrders orders = KeyOrders.read(options("commerce", ",\"table_patterns\":[\"prod.*\"]"));
        assertThat(orders.tables()).containsExactly("product");
        assertThat(orders.allExact()).isTrue();
        assertThat(orders.inexact()).isEmpty();
    }

    @Test
    void theSelectionIsPlannedAsForAStream() {
        assertThatThrownBy(() -> KeyOrders.read(options("customer", ",\"tables\":[\"no_such_table\"]")))
                .isExactlyInstanceOf(ConfigurationException.class)
                .hasMessageContaining("no_such_table")
                .hasMessageContaining("customer")
                .extracting(ErrorCode::of)
                .isEqualTo(ErrorCode.UNKNOWN_TABLE);
        assertThatThrownBy(() -> KeyOrders.read(options("no_such_keyspace", "")))
                .isExactlyInstanceOf(ConfigurationException.class)
                .hasMessageContaining("no_such_keyspace")
                .hasMessageContaining("not found");
    }
}
