/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.streaming.api.lineage.DatasetConfigFacet;
import org.apache.flink.streaming.api.lineage.LineageDataset;
import org.apache.flink.streaming.api.lineage.SourceLineageVertex;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The source's lineage (FLIP-314): datasets {@code vitess://<vtgate>/<keyspace>.<table>}. */
class VitessLineageTest {

    private static VitessSourceBuilder<String> builder(String address) {
        return VitessSource.<String>builder()
                .address(address)
                .keyspace("customer")
                .deserializer(new JsonDebeziumDeserializationSchema());
    }

    @Test
    void oneDatasetPerTableNamedByVtgateKeyspaceAndTable() {
        VitessSource<String> source = builder("127.0.0.1:15991")
                .tables("customer", "corder")
                .shards("-80")
                .credentials("app", "s3cret")
                .build();
        SourceLineageVertex vertex = source.getLineageVertex();

        assertThat(vertex.boundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(VitessLineage.qualifiedNames(vertex))
                .containsExactly(
                        "vitess://127.0.0.1:15991/customer.customer", "vitess://127.0.0.1:15991/customer.corder");
        LineageDataset customer = vertex.datasets().get(0);
        assertThat(customer.namespace()).isEqualTo("vitess://127.0.0.1:15991");
        assertThat(customer.name()).isEqualTo("customer.customer");
        Map<String, String> config = ((DatasetConfigFacet) customer.facets().get("config")).config();
        assertThat(config)
                .containsEntry("keyspace", "customer")
                .containsEntry("table", "customer")
                .containsEntry("shards", "-80")
                .containsEntry("tablet-type", "primary")
                .containsEntry("startup-mode", "INITIAL");
        assertThat(config.toString()).doesNotContain("s3cret").doesNotContain("app");
    }

    @Test
    void patternsKeyspacesTlsAddressesAndBoundedSnapshots() {
        SourceLineageVertex patterns = builder("https://vtgate.example:443")
                .tablePatterns("order_.*")
                .startupMode(StartupMode.SNAPSHOT)
                .build()
                .getLineageVertex();
        assertThat(patterns.boundedness()).isEqualTo(Boundedness.BOUNDED);
        assertThat(VitessLineage.qualifiedNames(patterns))
                .containsExactly("vitess://vtgate.example:443/customer.order_.*");
        assertThat(((DatasetConfigFacet) patterns.datasets().get(0).facets().get("config")).config())
                .containsEntry("table-pattern", "order_.*")
                .containsEntry("startup-mode", "SNAPSHOT");

        SourceLineageVertex keyspace = builder("vtgate:15991").build().getLineageVertex();
        assertThat(VitessLineage.qualifiedNames(keyspace)).containsExactly("vitess://vtgate:15991/customer");
    }
}
