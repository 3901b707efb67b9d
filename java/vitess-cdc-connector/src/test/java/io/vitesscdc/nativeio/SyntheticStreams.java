/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * The native library's random synthetic streams (rust/jni/src/diagnostics/synth.rs: every value
 * type and its edges), for tests outside this package that read records as a reader does.
 */
public final class SyntheticStreams {

    private SyntheticStreams() {}

    /** A reader of seed {@code seed}'s {@code events} events (the native library must be loaded). */
    public static NativeStreamReader open(long seed, int events, int initialBufferBytes) {
        return new NativeStreamReader(NativeDiagnostics.openSynthetic(seed, events), initialBufferBytes, 64 << 20);
    }

    /**
     * A reader of seed {@code seed}'s {@code rows} {@code customer.all_types} records, written in
     * the row form {@code rowForm} (a deserializer's {@code nativeOptionsJson}; {@code null}: values),
     * in batches of up to 1 MiB, so a batch's rows span several of the decoder's heap pieces.
     */
    public static NativeStreamReader typedRows(long seed, int rows, String rowForm) {
        NativeLibrary.load();
        return new NativeStreamReader(
                NativeStream.wrap(NativeDiagnostics.nativeOpenTypedRows(seed, rows, rowForm)), 1 << 20, 64 << 20);
    }

    /** {@link #open}'s stream, its records written in the row form {@code rowForm} ({@code null}: values). */
    public static NativeStreamReader openAs(long seed, int events, String rowForm) {
        NativeLibrary.load();
        return new NativeStreamReader(
                NativeStream.wrap(NativeDiagnostics.nativeOpenSyntheticAs(seed, events, rowForm)), 64 << 10, 64 << 20);
    }
}
