/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import io.vitesscdc.source.testutils.VitessCluster;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No silent death, from Java: a panic injected into a background task of a native stream (its
 * reader, a capture's chunk task) makes the next poll throw a {@link FatalException} with code
 * {@link ErrorCode#INTERNAL} carrying the panic's message and location, within a bounded time,
 * instead of empty batches forever; the panic is also logged through the log bridge.
 *
 * <p>Needs the test library (its {@code NativeDiagnostics}): failsafe runs this class in a JVM of
 * its own with {@code -Dvitesscdc.native.library} naming it (the pom's execution {@code
 * test-natives-its}); the other ITCases load the jar's library, which has no test natives.
 */
@Timeout(180)
class NativePanicITCase {

    /** How long a panic may take to reach poll: an assertion, not scaled. */
    private static final Duration BOUND = Duration.ofSeconds(15);

    private static final AtomicLong IDS = new AtomicLong(4_000_000_000_000_000L + System.currentTimeMillis() * 10);

    @BeforeAll
    static void clusterIsUp() {
        VitessCluster.requireRunning();
        NativeLibrary.load();
    }

    private static String options(String extra) {
        return "{\"address\":\"" + VitessCluster.grpcAddress()
                + "\",\"keyspace\":\"customer\",\"tables\":[\"customer\"],\"start_mode\":\"latest\","
                + "\"connect_timeout_ms\":15000" + extra + "}";
    }

    private static long insertCustomer() throws Exception {
        long id = IDS.incrementAndGet();
        VitessCluster.execute(
                "customer",
                "insert into customer (customer_id, email) values (" + id + ", 'panic-" + id + "@example.com')");
        return id;
    }

    /** Polls until poll throws; fails if it does not within {@link #BOUND}. */
    private static RuntimeException pollUntilFailed(NativeStreamReader reader) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                reader.poll(200);
            } catch (RuntimeException e) {
                return e;
            }
        }
        throw new AssertionError("the stream did not fail within " + BOUND + ": it stalled");
    }

    private static void assertPanicError(Throwable e, String task) {
        assertThat(e).isExactlyInstanceOf(FatalException.class);
        assertThat(((VitessCdcException) e).code()).isEqualTo(ErrorCode.INTERNAL);
        assertThat(e.getMessage())
                .contains(task + " panicked at ")
                .contains("supervise.rs:")
                .contains("injected panic in " + task + " (fault injection)");
    }

    @Test
    void aPanicInTheReaderFailsTheNextPollAndIsLogged() throws Exception {
        try (CapturedLogs logs = CapturedLogs.capture(NativeLogs.LOGGER_PREFIX, Level.INFO);
                NativeStreamReader reader = new NativeStreamReader(NativeStream.open(options("")), 1 << 16, 64 << 20)) {
            NativeLogs.configure();
            // The stream reads: a row written now arrives.
            long id = insertCustomer();
            long deadline = System.nanoTime() + BOUND.toNanos();
            boolean arrived = false;
            while (!arrived) {
                assertThat(System.nanoTime()).as("the inserted row arrives").isLessThan(deadline);
                Batch batch = reader.poll(200);
                if (batch != null) {
                    for (BatchEntry e : batch) {
                        arrived |=
                                e instanceof VitessRecord r && Long.valueOf(id).equals(r.getObject(0));
                    }
                }
            }
            NativeDiagnostics.nativeInjectPanic(NativeDiagnostics.TASK_READER);
            insertCustomer(); // wakes the reader, whose next poll panics
            RuntimeException e = pollUntilFailed(reader);
            assertThat(NativeDiagnostics.nativePanicArmed(NativeDiagnostics.TASK_READER))
                    .as("the reader took the fault")
                    .isFalse();
            assertPanicError(e, "the stream's reader task");
            // Sticky: the next poll says the same.
            RuntimeException again = pollUntilFailed(reader);
            assertThat(again.getMessage()).isEqualTo(e.getMessage());

            NativeLogs.drain();
            assertThat(logs.events())
                    .as("the panic is logged through the bridge, with its location")
                    .anySatisfy(event -> {
                        assertThat(event.logger()).isEqualTo("vitesscdc.native.vitess_cdc_core.panic");
                        assertThat(event.level()).isEqualTo(Level.ERROR);
                        assertThat(event.message())
                                .contains("panic: injected panic in the stream's reader task")
                                .contains("supervise.rs:");
                    });
        }
    }

    @Test
    void aPanicInACaptureChunkTaskFailsTheStream() throws Exception {
        insertCustomer(); // the table has a row to read
        NativeDiagnostics.nativeInjectPanic(NativeDiagnostics.TASK_CAPTURE_CHUNK);
        String capture = ",\"captures\":[{\"table\":\"customer\"}],\"snapshot_tablet_type\":\"rdonly\","
                + "\"snapshot_chunk_rows\":1000";
        try (NativeStreamReader reader =
                new NativeStreamReader(NativeStream.open(options(capture)), 1 << 16, 64 << 20)) {
            RuntimeException e = pollUntilFailed(reader);
            assertThat(NativeDiagnostics.nativePanicArmed(NativeDiagnostics.TASK_CAPTURE_CHUNK))
                    .as("a chunk task took the fault")
                    .isFalse();
            assertPanicError(e, "a capture's chunk task");
        }
    }
}
