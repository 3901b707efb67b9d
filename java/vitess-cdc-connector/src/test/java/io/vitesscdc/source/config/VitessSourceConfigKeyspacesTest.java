/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.config;

import io.vitesscdc.source.StartupMode;

import org.junit.jupiter.api.Test;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A source of several keyspaces: tables per keyspace, the native options, and what is refused. */
class VitessSourceConfigKeyspacesTest {

    private static VitessSourceConfig.Builder two() {
        return VitessSourceConfig.builder()
                .address("127.0.0.1:1")
                .keyspaces(List.of("customer", "commerce"))
                .tables(List.of("customer.corder", "commerce.product", "audit"));
    }

    @Test
    void eachKeyspaceReadsItsOwnTablesAndTheBareOnes() {
        VitessSourceConfig config = two().build();
        assertThat(config.severalKeyspaces()).isTrue();
        assertThat(config.keyspace()).isEqualTo("customer");
        assertThat(config.forKeyspace("customer").tables()).containsExactly("corder", "audit");
        assertThat(config.forKeyspace("commerce").tables()).containsExactly("product", "audit");
        assertThat(config.forKeyspace("commerce").keyspaces()).containsExactly("commerce");
        assertThat(config.forKeyspace("commerce").severalKeyspaces()).isFalse();
        VitessSourceConfig onlyCustomerNamed =
                two().tables(List.of("customer.corder")).build();
        assertThat(onlyCustomerNamed.forKeyspace("commerce").tables())
                .as("a keyspace no name reaches reads every table")
                .isEmpty();
        assertThatThrownBy(() -> config.forKeyspace("other")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theNativeOptionsListEachKeyspaceWithItsShardsTablesAndCaptures() throws Exception {
        VitessSourceConfig config = two().build();
        Map<String, List<String>> shards = new LinkedHashMap<>();
        shards.put("customer", List.of("-80"));
        shards.put("commerce", List.of("0"));
        JsonNode o = new ObjectMapper()
                .readTree(config.toNativeOptionsJson(shards, "positions", Map.of("commerce.product", List.of("0"))));
        assertThat(o.has("keyspace")).isFalse();
        assertThat(o.path("keyspaces").size()).isEqualTo(2);
        JsonNode customer = o.path("keyspaces").get(0);
        assertThat(customer.path("keyspace").asText()).isEqualTo("customer");
        assertThat(customer.path("shards").toString()).isEqualTo("[\"-80\"]");
        assertThat(customer.path("tables").toString()).isEqualTo("[\"corder\",\"audit\"]");
        JsonNode commerce = o.path("keyspaces").get(1);
        assertThat(commerce.path("tables").toString()).isEqualTo("[\"product\",\"audit\"]");
        JsonNode capture = o.path("captures").get(0);
        assertThat(capture.path("keyspace").asText()).isEqualTo("commerce");
        assertThat(capture.path("table").asText()).isEqualTo("product");
        assertThatThrownBy(config::planningOptionsJson).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void oneKeyspaceTakesItsQualifiedNamesAsItsTables() throws Exception {
        VitessSourceConfig config = VitessSourceConfig.builder()
                .address("127.0.0.1:1")
                .keyspace("customer")
                .tables(List.of("customer.corder", "customer"))
                .build();
        assertThat(config.tables()).containsExactly("corder", "customer");
        JsonNode o = new ObjectMapper().readTree(config.planningOptionsJson());
        assertThat(o.path("keyspace").asText()).isEqualTo("customer");
        assertThat(o.path("tables").toString()).isEqualTo("[\"corder\",\"customer\"]");
    }

    @Test
    void whatASourceOfSeveralKeyspacesCannotDoIsRefusedWithTheFix() {
        assertThatThrownBy(() -> two().tables(List.of("other.t")).build())
                .hasMessageContaining("names keyspace 'other', which the source does not read");
        assertThatThrownBy(() -> VitessSourceConfig.builder()
                        .address("a:1")
                        .keyspace("customer")
                        .tables(List.of("commerce.product"))
                        .build())
                .hasMessageContaining("add the keyspace");
        assertThatThrownBy(
                        () -> two().keyspaces(List.of("customer", "customer")).build())
                .hasMessageContaining("name each keyspace once");
        assertThatThrownBy(() -> two().shards(List.of("-80")).build()).hasMessageContaining("a source per keyspace");
        assertThatThrownBy(() ->
                        two().nativeOption("signal_table", "vitess_cdc_signal").build())
                .hasMessageContaining("signals are read per keyspace");
        assertThatThrownBy(() -> two().startupMode(StartupMode.SPECIFIC_OFFSETS)
                        .specificOffsets("[]")
                        .build())
                .hasMessageContaining("a source per keyspace");
    }
}
