/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.deserializer;

import org.junit.jupiter.api.Test;

import java.util.concurrent.ThreadLocalRandom;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/** The JSON path's byte builder writes what {@code StringBuilder.append} would. */
class Utf8TextBuilderTest {

    @Test
    void numbersAreWrittenAsLongToStringWritesThem() {
        long[] edges = {
            0,
            1,
            -1,
            9,
            10,
            -10,
            99,
            100,
            1_000_000_007L,
            Integer.MAX_VALUE,
            Integer.MIN_VALUE,
            Long.MAX_VALUE,
            Long.MIN_VALUE,
            Long.MIN_VALUE + 1,
            999_999_999_999_999_999L
        };
        Utf8TextBuilder b = new Utf8TextBuilder();
        StringBuilder expected = new StringBuilder();
        for (long v : edges) {
            b.number(v).ascii(",");
            expected.append(v).append(',');
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < 10_000; i++) {
            long v = random.nextLong() >> random.nextInt(64);
            b.number(v).ascii(",");
            expected.append(v).append(',');
        }
        assertThat(b.take()).isEqualTo(expected.toString());
    }

    @Test
    void textBytesAndBooleansGoInAsUtf8AndTheBufferStartsOverAfterATake() {
        Utf8TextBuilder b = new Utf8TextBuilder();
        byte[] row = "xx{\"name\":\"Zoë 🦊\"}yy".getBytes(UTF_8);
        b.ascii("{\"before\":")
                .text(null)
                .ascii(",\"after\":")
                .bytes(row, 2, row.length - 4)
                .ascii(",\"s\":")
                .text("\"ünïcode\"")
                .ascii(",\"t\":")
                .bool(true)
                .ascii(",\"f\":")
                .bool(false)
                .ascii("}");
        assertThat(b.take())
                .isEqualTo(
                        "{\"before\":null,\"after\":{\"name\":\"Zoë 🦊\"},\"s\":\"ünïcode\",\"t\":true,\"f\":false}");
        assertThat(b.ascii("again").take()).isEqualTo("again");
    }

    @Test
    void growsBeyondItsFirstBuffer() {
        Utf8TextBuilder b = new Utf8TextBuilder();
        String big = "é".repeat(5_000);
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            b.text(big).number(i);
            expected.append(big).append(i);
        }
        assertThat(b.take()).isEqualTo(expected.toString());
    }
}
