/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The hand-built TIME text equals the {@code String.format} it replaced, over MySQL's range. */
class FieldConvertersTest {

    private static String reference(long micros) {
        String sign = micros < 0 ? "-" : "";
        long abs = Math.abs(micros);
        long seconds = abs / 1_000_000;
        return String.format(
                "%s%02d:%02d:%02d.%06d", sign, seconds / 3600, (seconds / 60) % 60, seconds % 60, abs % 1_000_000);
    }

    @Test
    void timeTextMatchesTheFormatOverMysqlsRange() {
        long max = 838L * 3_600_000_000L + 59 * 60_000_000L + 59_000_000L;
        long[] edges = {
            0,
            1,
            -1,
            999_999,
            1_000_000,
            59_999_999,
            3_599_999_999L,
            86_399_999_999L,
            86_400_000_000L,
            359_999_999_999L,
            360_000_000_000L,
            max,
            -max,
            10 * 3_600_000_000L,
            -9 * 3_600_000_000L - 5
        };
        for (long m : edges) {
            assertThat(FieldConverters.formatTime(m)).as("%d µs", m).isEqualTo(reference(m));
        }
        SplittableRandom random = new SplittableRandom(14);
        for (int k = 0; k < 200_000; k++) {
            long m = random.nextLong(-max, max + 1);
            assertThat(FieldConverters.formatTime(m)).as("%d µs", m).isEqualTo(reference(m));
        }
    }
}
