/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import io.vitesscdc.source.VitessSource;
import io.vitesscdc.source.VitessSourceBuilder;
import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;

import org.apache.flink.streaming.api.datastream.DataStream;

import org.junit.jupiter.api.AfterEach;

import java.time.Duration;
import java.util.Map;

/**
 * {@link VitessITBase} for tests on {@code customer.customer}: each test writes only its own id
 * range ({@link CustomerWriter}), seen on both sides through {@link RangeView}.
 */
public abstract class CustomerRangeITBase extends VitessITBase {

    protected final CustomerWriter writer = new CustomerWriter();
    protected final RangeView range = new RangeView(runId, writer);

    protected CustomerRangeITBase(String runIdPrefix) {
        super(runIdPrefix);
    }

    /** Stops the writer and deletes its id range (before the base drops the run's state). */
    @AfterEach
    void closeWriter() throws Exception {
        writer.close();
    }

    /** A source of {@code customer.customer} as Debezium JSON strings. */
    protected static VitessSourceBuilder<String> customerSource() {
        return VitessSource.<String>builder()
                .address(VitessCluster.grpcAddress())
                .keyspace("customer")
                .tables("customer")
                .deserializer(new JsonDebeziumDeserializationSchema());
    }

    /**
     * The job's end: the run's strict changelog ({@link ChangelogRecorder}, uid {@code
     * strict-changelog}) of these changes, then the run's materialized table (uid {@code sink});
     * both parallelism 1.
     */
    protected void recordAndMaterialize(DataStream<String> events, ChangelogRecorder.Extractor<String> changes) {
        ChangelogRecorder.record(events, runId, "strict-changelog", changes)
                .sinkTo(new DebeziumJsonMaterializingSink(runId, "customer_id"))
                .uid("sink")
                .setParallelism(1);
    }

    /** Materialized rows of the writer's range, by primary key. */
    protected Map<String, Map<String, String>> materializedInRange() {
        return range.materialized();
    }

    protected void awaitEqualToVitess(Duration timeout) throws Exception {
        range.awaitEqualToVitess(timeout, "materialized state vs SELECT * through VTGate");
    }
}
