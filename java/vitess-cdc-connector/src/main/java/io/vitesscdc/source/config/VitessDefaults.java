/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.config;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.MemorySize;

import java.time.Duration;

/**
 * The default of every knob of the Flink source, written once for Java: the SQL options
 * ({@code VitessConnectorOptions}) and the DataStream builder read them from here.
 *
 * <p>The core's knobs have their one definition in the Rust core
 * ({@code vitess_cdc_core::options::defaults}); a DataStream builder that does not set one sends
 * nothing and the core's default applies. The SQL connector states every option explicitly, so
 * its defaults (the core's knobs below) must equal the core's: docs/options.md's table is the
 * contract both sides are tested against ({@code VitessOptionsDocTest} here, the CLI crate's
 * {@code options_doc} test in Rust), so one changed without the other fails a test.
 */
@PublicEvolving
public final class VitessDefaults {

    private VitessDefaults() {}

    // ---- the core's knobs (equal to vitess_cdc_core::options::defaults) ----

    /** VTGate's gRPC port when only a host is given (the SQL option {@code port}). */
    public static final int VTGATE_GRPC_PORT = 15991;

    public static final String TABLET_TYPE = "primary";

    public static final boolean ALLOW_TABLES_WITHOUT_PRIMARY_KEY = false;

    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    public static final MemorySize MAX_MESSAGE_SIZE = MemorySize.ofMebiBytes(17);

    public static final Duration KEEPALIVE_INTERVAL = Duration.ofSeconds(30);

    /** Whole seconds; zero turns heartbeats off. */
    public static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(5);

    /** Zero turns chunking off (Vitess 24+). */
    public static final MemorySize TRANSACTION_CHUNK_SIZE = MemorySize.ofMebiBytes(4);

    public static final MemorySize BUFFER_SIZE = MemorySize.ofMebiBytes(64);

    public static final Duration RETRY_INITIAL_BACKOFF = Duration.ofMillis(200);

    public static final Duration RETRY_MAX_BACKOFF = Duration.ofSeconds(10);

    public static final int RETRY_MAX_ATTEMPTS = 10;

    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);

    // ---- Java-only settings ----

    /** The SQL option {@code scan.startup.mode}. */
    public static final String SCAN_STARTUP_MODE = "initial";

    /** The SQL option {@code changelog-mode}. */
    public static final String CHANGELOG_MODE = "auto";

    public static final boolean HEARTBEAT_WATERMARKS = true;

    /** Longest wait of one native poll before the fetcher thread re-checks for wake-ups. */
    public static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

    public static final int INITIAL_BATCH_BUFFER_BYTES = 1 << 20;

    public static final int MAX_BATCH_BUFFER_BYTES = 256 << 20;
}
