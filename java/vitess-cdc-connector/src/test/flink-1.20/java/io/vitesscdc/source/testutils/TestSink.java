/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;

import java.io.IOException;

/**
 * The tests' sinks, written once for every Flink line: Flink 1.20 calls {@code
 * createWriter(InitContext)}, Flink 2 {@code createWriter(WriterInitContext)} (this class has one
 * version per line, in {@code src/test/flink-<line>/java}). Both contexts are an {@code sink2.InitContext}, which is what the writers get.
 */
public abstract class TestSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    /** A writer for one parallel subtask ({@code context}: its task and job, on every line). */
    protected abstract SinkWriter<T> newWriter(InitContext context) throws IOException;

    @Override
    @SuppressWarnings("deprecation")
    public final SinkWriter<T> createWriter(InitContext context) throws IOException {
        return newWriter(context);
    }
}
