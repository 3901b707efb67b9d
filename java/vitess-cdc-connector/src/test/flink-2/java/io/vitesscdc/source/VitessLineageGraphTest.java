/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.lineage.LineageGraph;
import org.apache.flink.streaming.api.lineage.LineageGraphUtils;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink 2 builds a job's lineage graph from its transformations and finds the source's datasets
 * there (Flink 1.20 has the lineage interfaces, which {@code VitessLineageTest} covers, but builds
 * no graph: this test is in the Flink 2 lines' test sources).
 */
class VitessLineageGraphTest {

    @Test
    void flinkFindsTheSourceInTheJobsLineageGraph() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.fromSource(
                        VitessSource.<String>builder()
                                .address("127.0.0.1:15991")
                                .keyspace("customer")
                                .tables("customer")
                                .deserializer(new JsonDebeziumDeserializationSchema())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "vitess")
                .sinkTo(new DiscardingSink<>());
        LineageGraph graph = LineageGraphUtils.convertToLineageGraph(env.getTransformations());

        List<String> names = graph.sources().stream()
                .flatMap(v -> v.datasets().stream())
                .map(d -> d.namespace() + "/" + d.name())
                .toList();
        assertThat(names).containsExactly("vitess://127.0.0.1:15991/customer.customer");
    }
}
