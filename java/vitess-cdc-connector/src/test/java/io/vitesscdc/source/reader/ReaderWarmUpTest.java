/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class ReaderWarmUpTest {

    @Test
    void aWarmUpRunsWithinItsBoundsAndAFailedOneOnlyEnds() {
        AtomicInteger asked = new AtomicInteger();
        AtomicLong deadline = new AtomicLong();
        long before = System.nanoTime();
        assertThat(ReaderWarmUp.run((max, until) -> {
                    asked.set(max);
                    deadline.set(until);
                    return 7;
                }))
                .isEqualTo(7);
        assertThat(asked.get()).isEqualTo(ReaderWarmUp.MAX_RECORDS);
        assertThat(deadline.get() - before).isBetween(ReaderWarmUp.MAX_NANOS, ReaderWarmUp.MAX_NANOS + 5_000_000_000L);

        assertThat(ReaderWarmUp.run((max, until) -> {
                    throw new IllegalStateException("a deserializer that cannot warm up");
                }))
                .isEqualTo(-1);
        assertThat(ReaderWarmUp.run((max, until) -> {
                    throw new NoClassDefFoundError("org/apache/flink/Missing");
                }))
                .isEqualTo(-1);
    }
}
