/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.split.VitessSplitState;
import io.vitesscdc.source.testutils.RenderedPositions;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.metrics.SimpleCounter;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class VitessRecordEmitterTest {

    /** Captures what the emitter does to its output. */
    static final class CapturingOutput implements SourceOutput<String> {
        final List<String> events = new ArrayList<>();

        @Override
        public void collect(String record) {
            events.add(record + "@none");
        }

        @Override
        public void collect(String record, long timestamp) {
            events.add(record + "@" + timestamp);
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            events.add("wm " + watermark.getTimestamp());
        }

        @Override
        public void markIdle() {
            events.add("idle");
        }

        @Override
        public void markActive() {
            events.add("active");
        }
    }

    @Test
    void stateIsExactBetweenAnyTwoElements() {
        VitessRecordEmitter<String> emitter = new VitessRecordEmitter<>(true, new SimpleCounter());
        VitessSplitState state = new VitessSplitState(
                new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g0\"}"), 0));
        CapturingOutput out = new CapturingOutput();
        emitter.emitRecord(new SplitElement.Change<>(List.of("a"), 1000, false), out, state);
        assertThat(state.toSplit())
                .isEqualTo(new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g0\"}"), 1));
        emitter.emitRecord(new SplitElement.Change<>(List.of("b", "b2"), 1000, false), out, state);
        assertThat(state.toSplit().recordsSinceMark())
                .as("records, not values, are counted")
                .isEqualTo(2);
        emitter.emitRecord(new SplitElement.Change<>(List.of("-u", "+u"), 2, 1000, false, false), out, state);
        assertThat(state.toSplit().recordsSinceMark())
                .as("an update's two records as one element")
                .isEqualTo(4);
        emitter.emitRecord(
                new SplitElement.Mark<>(RenderedPositions.of("ks", "-80", "{\"gtid\":\"g1\"}"), false), out, state);
        assertThat(state.toSplit())
                .isEqualTo(new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g1\"}"), 0));
        emitter.emitRecord(
                new SplitElement.CopyBatch<>(
                        List.of(
                                new SplitElement.Change<>(List.of("s1"), 0, true),
                                new SplitElement.Change<>(List.of("s2"), 0, true)),
                        RenderedPositions.of("ks", "-80", "{\"gtid\":\"g2\"}"),
                        false),
                out,
                state);
        assertThat(state.toSplit())
                .isEqualTo(new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g2\"}"), 0));
        assertThat(state.snapshotRecords()).isEqualTo(2);
        assertThat(out.events)
                .containsExactly("a@1000", "b@1000", "b2@1000", "-u@1000", "+u@1000", "s1@none", "s2@none");
    }

    @Test
    void aRunOfChangesIsEmittedInOrderAndCountedRecordByRecord() {
        SimpleCounter numRecordsIn = new SimpleCounter();
        VitessRecordEmitter<String> emitter = new VitessRecordEmitter<>(true, numRecordsIn);
        VitessSplitState state = new VitessSplitState(
                new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g0\"}"), 3));
        SplitElement.Changes<String> run = new SplitElement.Changes<>(
                new SplitElement.Change<>(List.of("a"), 1000, false),
                new SplitElement.Change<>(List.of("-u", "+u"), 2, 2000, false, false));
        run.add(new SplitElement.Change<>(List.of(), 3000, false));
        CapturingOutput out = new CapturingOutput();
        numRecordsIn.inc(); // SourceReaderBase's one per element
        emitter.emitRecord(run, out, state);
        assertThat(out.events).containsExactly("a@1000", "-u@2000", "+u@2000");
        assertThat(state.toSplit().recordsSinceMark())
                .as("3 before + 1 + an update's 2 + 1 the deserializer dropped")
                .isEqualTo(7);
        assertThat(numRecordsIn.getCount()).isEqualTo(4);
    }

    /**
     * SourceReaderBase adds one to numRecordsIn for each element it hands over (done here before
     * each call, as it does); after the emitter's correction the counter holds the change
     * records: a copy batch's records, an update's two, nothing for marks, heartbeats and facts.
     */
    @Test
    void numRecordsInCountsChangeRecordsNotElements() {
        SimpleCounter numRecordsIn = new SimpleCounter();
        VitessRecordEmitter<String> emitter = new VitessRecordEmitter<>(true, numRecordsIn);
        VitessSplitState state = new VitessSplitState(
                new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g0\"}"), 0));
        List<SplitElement<String>> elements = List.of(
                new SplitElement.CopyBatch<>(
                        List.of(
                                new SplitElement.Change<>(List.of("s1"), 0, true),
                                new SplitElement.Change<>(List.of("s2"), 0, true),
                                new SplitElement.Change<>(List.of("s3"), 0, true)),
                        RenderedPositions.of("ks", "-80", "{\"gtid\":\"g1\"}"),
                        false),
                new SplitElement.CopyCompleted<>(),
                new SplitElement.Mark<>(RenderedPositions.of("ks", "-80", "{\"gtid\":\"g2\"}"), true),
                new SplitElement.Heartbeat<>(5000),
                new SplitElement.Change<>(List.of("a"), 6000, false),
                new SplitElement.Change<>(List.of("-u", "+u"), 2, 6000, false, false),
                new SplitElement.Change<>(List.of(), 6000, false),
                new SplitElement.Mark<>(RenderedPositions.of("ks", "-80", "{\"gtid\":\"g3\"}"), false));
        for (SplitElement<String> element : elements) {
            numRecordsIn.inc();
            emitter.emitRecord(element, new CapturingOutput(), state);
        }
        assertThat(numRecordsIn.getCount())
                .as("3 copied + 1 insert + an update's 2 + 1 filtered out by the deserializer; not the "
                        + elements.size() + " elements")
                .isEqualTo(7);
    }

    @Test
    void heartbeatsAdvanceWatermarksOutsideTransactionsAndMarkQuietSplitsIdle() {
        VitessRecordEmitter<String> emitter = new VitessRecordEmitter<>(true, new SimpleCounter());
        VitessSplitState state = new VitessSplitState(
                new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"g0\"}"), 0));
        CapturingOutput out = new CapturingOutput();
        emitter.emitRecord(new SplitElement.Heartbeat<>(5000), out, state);
        emitter.emitRecord(new SplitElement.Change<>(List.of("a"), 5500, false), out, state);
        emitter.emitRecord(new SplitElement.Heartbeat<>(6000), out, state);
        emitter.emitRecord(
                new SplitElement.Mark<>(RenderedPositions.of("ks", "-80", "{\"gtid\":\"g1\"}"), false), out, state);
        emitter.emitRecord(new SplitElement.Heartbeat<>(7000), out, state);
        emitter.emitRecord(new SplitElement.Heartbeat<>(8000), out, state);
        assertThat(out.events).containsExactly("wm 5000", "a@5500", "wm 7000", "wm 8000", "idle");
    }

    @Test
    void heartbeatWatermarksCanBeTurnedOff() {
        VitessRecordEmitter<String> emitter = new VitessRecordEmitter<>(false, new SimpleCounter());
        VitessSplitState state = new VitessSplitState(
                new VitessSplit("ks", "-80", RenderedPositions.of("ks", "-80", "{\"gtid\":\"\"}"), 0));
        CapturingOutput out = new CapturingOutput();
        emitter.emitRecord(new SplitElement.Heartbeat<>(5000), out, state);
        assertThat(out.events).isEmpty();
    }
}
