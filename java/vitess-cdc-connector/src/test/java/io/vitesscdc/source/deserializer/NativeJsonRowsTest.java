/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.deserializer;

import io.vitesscdc.nativeio.NativeStreamReader;
import io.vitesscdc.nativeio.SyntheticStreams;
import io.vitesscdc.source.testutils.ConvertedRecords;
import io.vitesscdc.source.testutils.ConvertedRecords.Converted;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonFactory;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonParser;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
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
        List<Converted<String>> fromValues = read(open.apply(null, seed));
        List<Converted<String>> fromCore = read(open.apply(form, seed));
        assertThat(fromCore).hasSameSizeAs(fromValues);
        int coreRows = 0;
        int longerDoubles = 0;
        for (int i = 0; i < fromValues.size(); i++) {
            Converted<String> java = fromValues.get(i);
            Converted<String> core = fromCore.get(i);
            String where = "seed " + seed + ", record " + i + " " + java.record();
            coreRows += core.byCore() ? 1 : 0;
            assertThat(core.failure()).as(where).isEqualTo(java.failure());
            assertThat(core.outputs()).as(where).hasSameSizeAs(java.outputs());
            for (int e = 0; e < java.outputs().size(); e++) {
                String expected = NOW.matcher(java.outputs().get(e)).replaceFirst("\"op\":\"$1\",\"ts_ms\":0,");
                String actual = NOW.matcher(core.outputs().get(e)).replaceFirst("\"op\":\"$1\",\"ts_ms\":0,");
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

    private static List<Converted<String>> read(NativeStreamReader stream) {
        return ConvertedRecords.read(
                stream, new JsonDebeziumDeserializationSchema(), "{\"g\":1}", 2, 0L, event -> event);
    }
}
