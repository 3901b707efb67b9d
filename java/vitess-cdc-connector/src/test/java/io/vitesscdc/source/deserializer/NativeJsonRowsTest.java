/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.deserializer;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.BatchEntry;
import io.vitesscdc.nativeio.NativeStreamReader;
import io.vitesscdc.nativeio.SyntheticStreams;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.testutils.FixedRecordContext;

import org.apache.flink.util.Collector;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the Debezium JSON rows the native core writes (docs/batch-format.md, "JSON rows") to the
 * text {@link JsonDebeziumDeserializationSchema}'s Jackson generator writes from the values: the
 * same seed gives the same records, once with values and once with core-written rows, and every
 * event must be the same text. Two streams: the typed one (every type family, fixed columns) and
 * the random one (random column names with control characters and 4-byte UTF-8, schema changes,
 * NaN and infinities, zero and invalid dates, huge text and binary, absent values).
 *
 * <p>One difference is allowed and counted: a double the core writes in fewer digits than this
 * JVM's {@code Double.toString} (the core prints the shortest text that reads back as the same
 * double, as Java 19 and later do; Java 17's older algorithm prints a few doubles longer).
 */
class NativeJsonRowsTest {

    private static final Pattern NOW = Pattern.compile("\"op\":\"(.)\",\"ts_ms\":\\d+,");

    private static final JsonFactory JSON = new JsonFactory();

    @ParameterizedTest(name = "typed rows, seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void typedRowsAreTheTextJacksonWrites(long seed) throws IOException {
        compare((form, s) -> SyntheticStreams.typedRows(s, 4_000, form), seed, 2_000);
    }

    @ParameterizedTest(name = "random stream, seed {0}")
    @ValueSource(longs = {11, 12, 13, 14})
    void randomStreamsAreTheTextJacksonWrites(long seed) throws IOException {
        compare((form, s) -> SyntheticStreams.openAs(s, 3_000, form), seed, 500);
    }

    private static void compare(BiFunction<String, Long, NativeStreamReader> open, long seed, int minCoreRows)
            throws IOException {
        String form = new JsonDebeziumDeserializationSchema().nativeOptionsJson();
        List<Converted> fromValues = read(open.apply(null, seed));
        List<Converted> fromCore = read(open.apply(form, seed));
        assertThat(fromCore).hasSameSizeAs(fromValues);
        int coreRows = 0;
        int longerDoubles = 0;
        for (int i = 0; i < fromValues.size(); i++) {
            Converted java = fromValues.get(i);
            Converted core = fromCore.get(i);
            String where = "seed " + seed + ", record " + i + " " + java.record;
            coreRows += core.byCore ? 1 : 0;
            assertThat(core.failure).as(where).isEqualTo(java.failure);
            assertThat(core.events).as(where).hasSameSizeAs(java.events);
            for (int e = 0; e < java.events.size(); e++) {
                String expected = NOW.matcher(java.events.get(e)).replaceFirst("\"op\":\"$1\",\"ts_ms\":0,");
                String actual = NOW.matcher(core.events.get(e)).replaceFirst("\"op\":\"$1\",\"ts_ms\":0,");
                if (!actual.equals(expected)) {
                    longerDoubles += sameButShorterDoubles(actual, expected, where);
                }
            }
        }
        assertThat(coreRows).as("records the core wrote the rows of").isGreaterThanOrEqualTo(minCoreRows);
        assertThat(longerDoubles)
                .as("events where this JVM prints a double longer than the shortest text")
                .isLessThanOrEqualTo(fromValues.size() / 100);
    }

    /**
     * Walks both texts token by token: every token the same text, except floating-point numbers
     * that read as the same double where the core's text is the shorter. Answers 1 (one such
     * event), or fails.
     */
    private static int sameButShorterDoubles(String core, String java, String where) throws IOException {
        try (JsonParser c = JSON.createParser(core);
                JsonParser j = JSON.createParser(java)) {
            for (JsonToken t = j.nextToken(); t != null; t = j.nextToken()) {
                assertThat(c.nextToken())
                        .as(where + "\ncore: " + core + "\njava: " + java)
                        .isEqualTo(t);
                if (c.getText().equals(j.getText())) {
                    continue;
                }
                assertThat(t)
                        .as(where + ": " + c.getText() + " vs " + j.getText())
                        .isEqualTo(JsonToken.VALUE_NUMBER_FLOAT);
                String texts = where + ": core " + c.getText() + ", Java " + j.getText();
                assertThat(c.getDoubleValue()).as(texts).isEqualTo(j.getDoubleValue());
                assertThat(c.getText().length())
                        .as(texts)
                        .isLessThan(j.getText().length());
            }
            assertThat(c.nextToken()).isNull();
        }
        return 1;
    }

    /** One record: the events it became, or why it could not; and whether the core wrote its row. */
    private record Converted(String record, boolean byCore, List<String> events, String failure) {}

    private static List<Converted> read(NativeStreamReader stream) {
        JsonDebeziumDeserializationSchema schema = new JsonDebeziumDeserializationSchema();
        List<Converted> out = new ArrayList<>();
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
                        out.add(convert(schema, record, out.size()));
                    }
                }
            }
        }
        return out;
    }

    private static Converted convert(JsonDebeziumDeserializationSchema schema, VitessRecord record, int ordinal) {
        List<String> events = new ArrayList<>();
        String failure = null;
        try {
            schema.deserialize(record, new FixedRecordContext("{\"g\":1}", 2, ordinal), new Collector<>() {
                @Override
                public void collect(String event) {
                    events.add(event);
                }

                @Override
                public void close() {}
            });
        } catch (Exception e) {
            failure = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        return new Converted(record.toString(), record.hasJsonRow(), events, failure);
    }
}
