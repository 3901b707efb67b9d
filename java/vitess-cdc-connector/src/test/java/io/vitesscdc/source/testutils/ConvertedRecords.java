/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.BatchEntry;
import io.vitesscdc.nativeio.NativeStreamReader;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;

import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Every record of a stream, converted by a deserializer as the reader converts it: what the tests
 * that pin the core's rows to the Java reader's compare, record by record, between a stream read
 * with values and the same stream with core-written rows.
 */
public final class ConvertedRecords {

    private ConvertedRecords() {}

    /** One record: what it became (kept as {@code R}), or why it could not; and whether the core wrote its row. */
    public record Converted<R>(String record, boolean byCore, List<R> outputs, String failure) {}

    /**
     * Reads {@code stream} to its end (and closes it), converting each record with {@code schema}
     * in a context of {@code position}, {@code epoch} and rank {@code rankBase} + the record's
     * ordinal; each output is kept as {@code keep} makes it (a row's bytes, an event's text).
     */
    public static <T, R> List<Converted<R>> read(
            NativeStreamReader stream,
            VitessDeserializationSchema<T> schema,
            String position,
            long epoch,
            long rankBase,
            Function<T, R> keep) {
        List<Converted<R>> out = new ArrayList<>();
        try (NativeStreamReader reader = stream) {
            boolean end = false;
            while (!end) {
                Batch batch = reader.poll(1_000);
                if (batch == null) {
                    continue;
                }
                end = batch.isEndOfStream();
                for (BatchEntry entry : batch) {
                    if (entry instanceof VitessRecord record) {
                        out.add(convert(
                                schema, record, new FixedRecordContext(position, epoch, rankBase + out.size()), keep));
                    }
                }
            }
        }
        return out;
    }

    private static <T, R> Converted<R> convert(
            VitessDeserializationSchema<T> schema,
            VitessRecord record,
            FixedRecordContext context,
            Function<T, R> keep) {
        List<R> outputs = new ArrayList<>();
        String failure = null;
        try {
            schema.deserialize(record, context, new Collector<>() {
                @Override
                public void collect(T output) {
                    outputs.add(keep.apply(output));
                }

                @Override
                public void close() {}
            });
        } catch (Exception e) {
            failure = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        return new Converted<>(record.toString(), record.hasFlinkRow() || record.hasJsonRow(), outputs, failure);
    }
}
