/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.nio.ByteBuffer;

/**
 * Native entry points for tests and benchmarks of the bridge itself, without a server: synthetic
 * streams of every value type (read with the real {@link NativeStream#poll}) and a pre-encoded
 * batch that isolates the cost of the JNI boundary. Registered by {@code JNI_OnLoad} next to
 * {@link NativeStream} only by the test library, built with the cargo feature {@code diagnostics}
 * (the pom's {@code cargo.test.features}; the tests load it through {@code
 * -Dvitesscdc.native.library}). The class lives with the tests and the library a jar bundles never
 * registers it (NativeLibraryITCase checks both); the test library registers it only where its
 * class loader can see this class. Call {@link NativeLibrary#load()} first.
 */
final class NativeDiagnostics {

    /** Shape of {@code customer.customer} (6 columns). */
    static final int SHAPE_CUSTOMER = 1;

    /** Shape of {@code customer.all_types} (44 columns, every type family). */
    static final int SHAPE_ALL_TYPES = 2;

    private NativeDiagnostics() {}

    /**
     * A stream of {@code events} random events of every column type and marker (then END),
     * deterministic in {@code seed}; its canonical rendering is {@link #nativeSyntheticExpected}.
     */
    static NativeStream openSynthetic(long seed, int events) {
        NativeLibrary.load();
        return NativeStream.wrap(nativeOpenSynthetic(seed, events));
    }

    static native long nativeOpenSynthetic(long seed, int events);

    /**
     * A stream of {@code rows} random {@code customer.all_types} records with edge values (then
     * END), deterministic in {@code seed}, written in the row form {@code rowForm} (the stream
     * options a deserializer's {@code nativeOptionsJson} gives; {@code null}: values only).
     * rust/jni/src/diagnostics/typed_rows.rs.
     */
    static native long nativeOpenTypedRows(long seed, int rows, String rowForm);

    /** The stream of {@link #openSynthetic}, its records written in the row form {@code rowForm}. */
    static native long nativeOpenSyntheticAs(long seed, int events, String rowForm);

    /** The expected content of the synthetic stream, one line per entry (rust/jni/src/diagnostics/synth.rs). */
    static native String nativeSyntheticExpected(long seed, int events);

    /** A batch of {@code shape} rows (at most {@code batchBytes}), encoded once. */
    static native long nativeBenchOpen(int shape, int batchBytes);

    /** Rows per batch after the first (the first also carries the table descriptor). */
    static native int nativeBenchRows(long handle);

    /** {@code nativePoll} with the stream replaced by a copy of the pre-encoded batch. */
    static native int nativeBenchPoll(long handle, ByteBuffer buffer, long timeoutMillis);

    /**
     * {@link NativeStream#poll} of a pre-encoded batch: the same Java checks and log check around
     * {@link #nativeBenchPoll} as {@code poll} has around {@code nativePoll}.
     */
    static int benchPoll(long handle, ByteBuffer buffer, long timeoutMillis) {
        if (!buffer.isDirect() || buffer.isReadOnly()) {
            throw new IllegalArgumentException("NativeStream.poll needs a writable direct ByteBuffer");
        }
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("timeoutMillis must be >= 0, was " + timeoutMillis);
        }
        try {
            return nativeBenchPoll(handle, buffer, timeoutMillis);
        } finally {
            NativeStream.drainLogs();
        }
    }

    static native void nativeBenchClose(long handle);

    /** An entry point that does nothing, with the bridge's usual wrapper (panic catching, errors). */
    static native void nativeNoop();

    /** An entry point that does nothing at all. */
    static native void nativeNoopRaw();

    /**
     * Raises an error of the given kind inside the native library and maps it like any other:
     * 1 = configuration error, 2 = retryable, 3 = fatal with a two-level cause chain, 4 = Rust panic;
     * 5 logs one event per level (and one from a native thread) and returns "logged".
     */
    static native String nativeRaise(int kind);

    /** {@link #nativeInjectPanic} task: the reader of a stream. */
    static final int TASK_READER = 0;

    /** {@link #nativeInjectPanic} task: a capture's log task. */
    static final int TASK_CAPTURE_LOG = 1;

    /** {@link #nativeInjectPanic} task: a capture's chunk task. */
    static final int TASK_CAPTURE_CHUNK = 2;

    /**
     * The next poll of a background task of that kind, in any stream of this library copy, panics
     * (once): the core's fault injection, to prove a panic fails the stream instead of stalling it.
     */
    static native void nativeInjectPanic(int task);

    /** Whether a panic injected for {@code task} still waits for a task of that kind to run. */
    static native boolean nativePanicArmed(int task);
}
