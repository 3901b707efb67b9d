/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.lineage.DatasetConfigFacet;
import org.apache.flink.streaming.api.lineage.LineageDataset;
import org.apache.flink.streaming.api.lineage.LineageGraph;
import org.apache.flink.streaming.api.lineage.LineageGraphUtils;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code 'vitess-cdc'} table in a job's lineage graph: the planner's table dataset (named by the
 * catalog table) takes the source's namespace {@code vitess://<vtgate>} and its config facet.
 */
class VitessTableLineageTest {

    @Test
    void sqlSourceLineageCarriesTheVtgateNamespaceAndConfig() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql("CREATE TABLE customers (customer_id BIGINT, email STRING, PRIMARY KEY (customer_id) "
                + "NOT ENFORCED) WITH ('connector' = 'vitess-cdc', 'vtgate.address' = '127.0.0.1:15991', "
                + "'keyspace' = 'customer', 'table-name' = 'customer', 'password' = 's3cret', 'username' = 'app', "
                // Upsert reads nothing from VTGate at planning: this unit test needs no server.
                + "'changelog-mode' = 'upsert')");
        tEnv.toChangelogStream(tEnv.from("customers")).sinkTo(new DiscardingSink<>());

        LineageGraph graph = LineageGraphUtils.convertToLineageGraph(env.getTransformations());

        List<LineageDataset> datasets =
                graph.sources().stream().flatMap(v -> v.datasets().stream()).toList();
        assertThat(datasets).hasSize(1);
        LineageDataset dataset = datasets.get(0);
        assertThat(dataset.namespace()).isEqualTo("vitess://127.0.0.1:15991");
        assertThat(dataset.name()).isEqualTo("default_catalog.default_database.customers");
        DatasetConfigFacet config = (DatasetConfigFacet) dataset.facets().get("config");
        assertThat(config.config()).containsEntry("keyspace", "customer").containsEntry("table", "customer");
        assertThat(config.config().toString()).doesNotContain("s3cret");
    }
}
