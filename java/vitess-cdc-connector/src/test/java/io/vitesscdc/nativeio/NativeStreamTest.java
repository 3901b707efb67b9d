/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The native bridge without a server: error mapping, panics, bad handles, bad options. Every
 * case must end in a Java exception, never in a crashed JVM (the test run itself proves that).
 */
class NativeStreamTest {

    @BeforeAll
    static void load() {
        NativeLibrary.load();
    }

    @Test
    void libraryLoadsAndAnswers() {
        assertThat(NativeStream.nativeVersion()).startsWith("vitess-cdc-jni ");
        assertThat(NativeLibrary.loadedFrom()).isNotNull();
    }

    @Test
    void errorKindsMapToExceptionClasses() {
        assertThatThrownBy(() -> NativeDiagnostics.nativeRaise(1))
                .isExactlyInstanceOf(ConfigurationException.class)
                .hasMessageContaining("option `x` is wrong")
                .extracting(e -> ((VitessCdcException) e).code())
                .isEqualTo(ErrorCode.UNSPECIFIED);
        assertThatThrownBy(() -> NativeDiagnostics.nativeRaise(2))
                .isExactlyInstanceOf(RetryableException.class)
                .hasMessageContaining("VTGate unreachable");
    }

    @Test
    void causeChainIsKeptInTheMessageAndAsCauses() {
        assertThatThrownBy(() -> NativeDiagnostics.nativeRaise(3))
                .isExactlyInstanceOf(FatalException.class)
                .hasMessage("self-test fatal error: middle cause: root cause")
                .cause()
                .isInstanceOf(NativeCause.class)
                .hasMessage("middle cause")
                .cause()
                .isInstanceOf(NativeCause.class)
                .hasMessage("root cause")
                .hasNoCause();
    }

    @Test
    void panicBecomesFatalExceptionAndTheLibraryKeepsWorking() {
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> NativeDiagnostics.nativeRaise(4))
                    .isExactlyInstanceOf(FatalException.class)
                    .hasMessageContaining("panic")
                    .hasMessageContaining("self-test panic");
        }
        assertThat(NativeStream.nativeVersion()).startsWith("vitess-cdc-jni ");
    }

    @Test
    void foreignAndGarbageHandlesThrowInsteadOfCrashing() {
        ByteBuffer buf = ByteBuffer.allocateDirect(1024);
        for (long handle : new long[] {0L, 1L, -1L, 0xdeadbeefL, Long.MIN_VALUE, Long.MAX_VALUE}) {
            assertThatThrownBy(() -> NativeStream.nativePoll(handle, buf, 0))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed or was never opened");
            assertThatThrownBy(() -> NativeStream.nativePositionsJson(handle))
                    .isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> NativeStream.nativeMetricsJson(handle)).isInstanceOf(IllegalStateException.class);
            assertThatCode(() -> NativeStream.nativeWake(handle))
                    .as("waking an unknown (e.g. just closed) handle is a no-op")
                    .doesNotThrowAnyException();
            assertThatCode(() -> NativeStream.nativeClose(handle))
                    .as("closing an unknown handle is a no-op")
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void invalidOptionsAreConfigurationErrorsNamingTheField() {
        assertThatThrownBy(() -> NativeStream.open("{\"address\":\"127.0.0.1:1\"}"))
                .isExactlyInstanceOf(ConfigurationException.class)
                .hasMessageContaining("keyspace");
        assertThatThrownBy(() -> NativeStream.open("{\"address\":\"a:1\",\"keyspace\":\"k\",\"keyspcae\":\"c\"}"))
                .isExactlyInstanceOf(ConfigurationException.class)
                .hasMessageContaining("keyspcae");
        assertThatThrownBy(() -> NativeStream.open(
                        "{\"address\":\"a:1\",\"keyspace\":\"k\",\"keyspaces\":[{\"keyspace\":\"c\"}]}"))
                .isExactlyInstanceOf(ConfigurationException.class)
                .hasMessageContaining("with several keyspaces, each entry of `keyspaces` names its own");
        assertThatThrownBy(() ->
                        NativeStream.open("{\"address\":\"a:1\",\"keyspace\":\"k\",\"connect_timeout_ms\":\"soon\"}"))
                .isExactlyInstanceOf(ConfigurationException.class)
                .hasMessageContaining("connect_timeout_ms")
                .extracting(e -> ((VitessCdcException) e).code())
                .as("the core's error code crosses JNI")
                .isEqualTo(ErrorCode.INVALID_OPTION);
        assertThatThrownBy(() -> NativeStream.open("not json"))
                .isExactlyInstanceOf(ConfigurationException.class)
                .hasMessageContaining("invalid stream options JSON");
        assertThatThrownBy(() -> NativeStream.open(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void pollRefusesBadArgumentsNativelyToo() {
        // The poll's hot path (no jni Env on success) throws exactly like the other entry points.
        try (NativeStream stream = NativeDiagnostics.openSynthetic(1, 10)) {
            long handle = streamHandle(stream);
            assertThatThrownBy(() -> NativeStream.nativePoll(handle, ByteBuffer.allocate(64), 0))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("direct ByteBuffer");
            assertThatThrownBy(() -> NativeStream.nativePoll(handle, null, 0))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("null");
            assertThatThrownBy(() -> NativeStream.nativePoll(handle, ByteBuffer.allocateDirect(64), -5))
                    .isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("-5");
            assertThat(NativeStream.nativePoll(handle, ByteBuffer.allocateDirect(1 << 20), 0))
                    .as("and then works")
                    .isPositive();
        }
        long bench = NativeDiagnostics.nativeBenchOpen(NativeDiagnostics.SHAPE_CUSTOMER, 4096);
        NativeDiagnostics.nativeBenchClose(bench);
        assertThatThrownBy(() -> NativeDiagnostics.nativeBenchPoll(bench, ByteBuffer.allocateDirect(64), 0))
                .isExactlyInstanceOf(IllegalStateException.class);
    }

    @Test
    void benchEntryPointsServeTheirPreEncodedBatch() {
        NativeDiagnostics.nativeNoop();
        NativeDiagnostics.nativeNoopRaw();
        for (int shape : new int[] {NativeDiagnostics.SHAPE_CUSTOMER, NativeDiagnostics.SHAPE_ALL_TYPES}) {
            long handle = NativeDiagnostics.nativeBenchOpen(shape, 16 << 10);
            try {
                ByteBuffer buffer = ByteBuffer.allocateDirect(16 << 10);
                BatchDecoder decoder = new BatchDecoder();
                Batch first = decoder.decode(buffer, NativeDiagnostics.benchPoll(handle, buffer, 0));
                assertThat(first.entries().get(0)).isInstanceOf(TableDescriptor.class);
                for (int i = 0; i < 3; i++) {
                    Batch batch = decoder.decode(buffer, NativeDiagnostics.benchPoll(handle, buffer, 0));
                    assertThat(batch.size()).isEqualTo(NativeDiagnostics.nativeBenchRows(handle));
                    assertThat(batch.sizeInBytes()).isLessThanOrEqualTo(16 << 10);
                    VitessRecord last = (VitessRecord) batch.entries().get(batch.size() - 1);
                    assertThat(last.arity()).isEqualTo(shape == NativeDiagnostics.SHAPE_CUSTOMER ? 6 : 44);
                    assertThat(last.toString()).isNotEmpty();
                }
                assertThat(NativeDiagnostics.nativeBenchPoll(handle, ByteBuffer.allocateDirect(64), 0))
                        .as("too small: -needed")
                        .isLessThan(-64);
            } finally {
                NativeDiagnostics.nativeBenchClose(handle);
            }
        }
    }

    private static long streamHandle(NativeStream stream) {
        try {
            Field f = NativeStream.class.getDeclaredField("handle");
            f.setAccessible(true);
            return f.getLong(stream);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void nullArgumentsAreRefusedNatively() {
        assertThatThrownBy(() -> NativeStream.nativeOpen(null, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> NativeStream.nativeKeyOrders(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null");
    }
}
