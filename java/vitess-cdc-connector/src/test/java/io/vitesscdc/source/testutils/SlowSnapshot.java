/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.api.common.functions.MapFunction;

/** Sleeps on every snapshot read, so the capture lasts (and backpressures the source). */
public final class SlowSnapshot implements MapFunction<String, String> {
    private final long sleepMillis;

    public SlowSnapshot(long sleepMillis) {
        this.sleepMillis = sleepMillis;
    }

    @Override
    public String map(String value) throws Exception {
        if (sleepMillis > 0 && value.contains("\"op\":\"r\"")) {
            Thread.sleep(sleepMillis);
        }
        return value;
    }
}
