/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.config;

import io.vitesscdc.source.BadRecordHandling;

import org.apache.flink.annotation.PublicEvolving;

import java.time.Duration;

/**
 * The defaults the Java side owns, written once: the SQL options ({@code VitessConnectorOptions})
 * and the DataStream builder read them from here.
 *
 * <p>The core's knobs (timeouts, buffers, retries, heartbeats, tablet type, …) are not here: their
 * one definition is the Rust core's ({@code vitess_cdc_core::options::defaults}). A DataStream
 * builder or SQL table that does not set one sends nothing, and the core's default applies;
 * docs/options.md tables the values (the CLI crate's {@code options_doc} test checks that table
 * against the core, {@code VitessOptionsDocTest} checks that Java declares no default of its own
 * for them).
 */
@PublicEvolving
public final class VitessDefaults {

    private VitessDefaults() {}

    // ---- settings the SQL connector decides on itself ----

    /** VTGate's gRPC port when only a host is given (the SQL option {@code port}). */
    public static final int VTGATE_GRPC_PORT = 15991;

    /**
     * Whether a Flink table may declare no primary key (the SQL option {@code
     * scan.allow-tables-without-primary-key}): the factory refuses such a table at planning, so it
     * needs the value itself, and always sends it to the core.
     */
    public static final boolean ALLOW_TABLES_WITHOUT_PRIMARY_KEY = false;

    // ---- Java-only settings ----

    /** The SQL option {@code scan.filter-push-down.enabled}. */
    public static final boolean FILTER_PUSH_DOWN = true;

    /** The SQL option {@code scan.startup.mode}. */
    public static final String SCAN_STARTUP_MODE = "initial";

    /** The SQL option {@code changelog-mode}. */
    public static final String CHANGELOG_MODE = "auto";

    public static final boolean HEARTBEAT_WATERMARKS = true;

    /** The SQL option {@code scan.bad-record.handling}, the builder's {@code badRecordHandling}. */
    public static final BadRecordHandling BAD_RECORD_HANDLING = BadRecordHandling.FAIL;

    /** Longest wait of one native poll before the fetcher thread re-checks for wake-ups. */
    public static final Duration POLL_TIMEOUT = Duration.ofMillis(200);

    public static final int INITIAL_BATCH_BUFFER_BYTES = 1 << 20;

    public static final int MAX_BATCH_BUFFER_BYTES = 256 << 20;
}
