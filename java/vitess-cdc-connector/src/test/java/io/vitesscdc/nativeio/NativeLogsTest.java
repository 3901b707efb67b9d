/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Native tracing events reach SLF4J with their level, target, fields and native thread. */
class NativeLogsTest {

    private static final String SELF_TEST_LOGGER = "vitesscdc.native.vitess_cdc_jni.diagnostics";

    @BeforeAll
    static void load() {
        NativeLibrary.load();
    }

    @Test
    void nativeEventsAreForwardedAtTheirLevelToTheTargetsLogger() {
        try (CapturedLogs logs = CapturedLogs.capture(NativeLogs.LOGGER_PREFIX, Level.DEBUG)) {
            NativeLogs.configure();
            assertThat(NativeLogs.enabledLevel()).isEqualTo(NativeLogs.DEBUG);
            assertThat(NativeDiagnostics.nativeRaise(5)).isEqualTo("logged");
            NativeLogs.drainIfPending();

            List<CapturedLogs.Event> events = logs.events().stream()
                    .filter(e -> e.message().contains("self-test"))
                    .toList();
            assertThat(events).extracting(CapturedLogs.Event::logger).containsOnly(SELF_TEST_LOGGER);
            // Events logged on this Java thread carry its OS-level name; the message follows "] ".
            assertThat(events)
                    .extracting(e ->
                            e.level() + " " + e.message().substring(e.message().indexOf("] ") + 2))
                    .containsExactly(
                            "ERROR self-test error kind=5",
                            "WARN self-test warn kind=5",
                            "INFO self-test info kind=5 text=\"☕ 𝄞\"",
                            "DEBUG self-test debug kind=5",
                            "INFO self-test info from a native thread");
            assertThat(events.get(4).message()).startsWith("[vitess-cdc-selftest] ");
            assertThat(events.get(0).message()).matches("\\[[^\\]]+\\] .*");
            assertThat(events)
                    .as("TRACE is above the level SLF4J enables, so never formatted natively")
                    .noneMatch(e -> e.message().contains("trace"));
        }
    }

    @Test
    void theNativeLevelFollowsSlf4j() {
        try (CapturedLogs logs = CapturedLogs.capture(NativeLogs.LOGGER_PREFIX, Level.WARN)) {
            NativeLogs.configure();
            assertThat(NativeLogs.enabledLevel()).isEqualTo(NativeLogs.WARN);
            NativeDiagnostics.nativeRaise(5);
            NativeLogs.drainIfPending();
            assertThat(logs.events())
                    .filteredOn(e -> e.message().contains("self-test"))
                    .extracting(CapturedLogs.Event::level)
                    .containsExactly(Level.ERROR, Level.WARN);
        }
        try (CapturedLogs logs = CapturedLogs.capture(NativeLogs.LOGGER_PREFIX, Level.OFF)) {
            NativeLogs.configure();
            assertThat(NativeLogs.enabledLevel()).isEqualTo(NativeLogs.OFF);
            NativeDiagnostics.nativeRaise(5);
            NativeLogs.drain();
            assertThat(logs.events()).isEmpty();
        }
    }

    @Test
    void targetsBecomeDottedLoggerNames() {
        assertThat(NativeLogs.logger("vitess_cdc_core::stream").getName())
                .isEqualTo("vitesscdc.native.vitess_cdc_core.stream");
        assertThat(NativeLogs.logger("h2::proto::connection").getName())
                .isEqualTo("vitesscdc.native.h2.proto.connection");
    }
}
