/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.config.VitessDefaults;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

import java.time.Duration;
import java.util.List;

/**
 * Every option of the {@code 'connector' = 'vitess-cdc'} SQL connector (docs/sql-connector.md), with
 * its default from {@link VitessDefaults}; docs/options.md tables them (checked by a test).
 */
@PublicEvolving
public final class VitessConnectorOptions {

    /**
     * The options below that end their description with this sentence are knobs of the native
     * core: unset, they are not sent, and the core's default applies (its one definition is
     * {@code vitess_cdc_core::options::defaults}; docs/options.md tables the values).
     */
    static final String CORE_DEFAULT = " Default: the core's (docs/options.md).";

    private VitessConnectorOptions() {}

    public static final ConfigOption<String> HOSTNAME = ConfigOptions.key("hostname")
            .stringType()
            .noDefaultValue()
            .withDescription("Host of VTGate's gRPC endpoint. Give 'hostname' (and 'port') or 'vtgate.address'.");

    public static final ConfigOption<Integer> PORT = ConfigOptions.key("port")
            .intType()
            .defaultValue(VitessDefaults.VTGATE_GRPC_PORT)
            .withDescription("Port of VTGate's gRPC endpoint (not the MySQL port).");

    public static final ConfigOption<String> VTGATE_ADDRESS = ConfigOptions.key("vtgate.address")
            .stringType()
            .noDefaultValue()
            .withDescription("VTGate's gRPC address as host:port (or https://host:port); alternative to "
                    + "'hostname' + 'port'.");

    public static final ConfigOption<String> KEYSPACE =
            ConfigOptions.key("keyspace").stringType().noDefaultValue().withDescription("The Vitess keyspace to read.");

    public static final ConfigOption<String> TABLE_NAME = ConfigOptions.key("table-name")
            .stringType()
            .noDefaultValue()
            .withDescription("The table to read: a plain name, or a regular expression matched against the whole "
                    + "table name (every matched table must have the declared columns).");

    public static final ConfigOption<List<String>> SHARDS = ConfigOptions.key("shards")
            .stringType()
            .asList()
            .noDefaultValue()
            .withDescription("Read only these shards, e.g. '-80;80-' (default: every shard).");

    public static final ConfigOption<String> USERNAME =
            ConfigOptions.key("username").stringType().noDefaultValue().withDescription("VTGate static-auth user.");

    public static final ConfigOption<String> PASSWORD =
            ConfigOptions.key("password").stringType().noDefaultValue().withDescription("VTGate static-auth password.");

    public static final ConfigOption<String> AUTH_MODE = ConfigOptions.key("auth-mode")
            .stringType()
            .noDefaultValue()
            .withDescription("How username and password travel: static (Vitess's static auth metadata) or basic "
                    + "(HTTP Basic over TLS, as PlanetScale takes it)." + CORE_DEFAULT);

    public static final ConfigOption<String> TLS_CA_CERT = ConfigOptions.key("tls.ca-cert")
            .stringType()
            .noDefaultValue()
            .withDescription("PEM file of the CA that signed VTGate's certificate; enables TLS.");

    public static final ConfigOption<String> TLS_CLIENT_CERT = ConfigOptions.key("tls.client-cert")
            .stringType()
            .noDefaultValue()
            .withDescription("PEM client certificate for mutual TLS (with 'tls.client-key').");

    public static final ConfigOption<String> TLS_CLIENT_KEY = ConfigOptions.key("tls.client-key")
            .stringType()
            .noDefaultValue()
            .withDescription("PEM private key of 'tls.client-cert'.");

    public static final ConfigOption<String> TLS_SERVER_NAME = ConfigOptions.key("tls.server-name")
            .stringType()
            .noDefaultValue()
            .withDescription("Server name to verify in VTGate's certificate (default: the host).");

    public static final ConfigOption<String> TABLET_TYPE = ConfigOptions.key("tablet-type")
            .stringType()
            .noDefaultValue()
            .withDescription("Tablet type to stream from: primary, replica or rdonly." + CORE_DEFAULT);

    public static final ConfigOption<String> CELLS = ConfigOptions.key("cells")
            .stringType()
            .noDefaultValue()
            .withDescription("Cells to pick tablets from (comma-separated), default: VTGate's choice.");

    public static final ConfigOption<String> SCAN_STARTUP_MODE = ConfigOptions.key("scan.startup.mode")
            .stringType()
            .defaultValue(VitessDefaults.SCAN_STARTUP_MODE)
            .withDescription("initial: snapshot (VStream copy) then changes; latest-offset: changes from now on; "
                    + "specific-offset: from 'scan.startup.specific-offset'; snapshot: the snapshot only (bounded).");

    public static final ConfigOption<String> SCAN_STARTUP_SPECIFIC_OFFSET = ConfigOptions.key(
                    "scan.startup.specific-offset")
            .stringType()
            .noDefaultValue()
            .withDescription("Start positions for 'specific-offset' as VGTID JSON with one entry per shard, e.g. "
                    + "{\"shard_gtids\":[{\"keyspace\":\"ks\",\"shard\":\"-80\",\"gtid\":\"MySQL56/...\"}]}; gtid "
                    + "'current' starts a shard now, '' copies it first.");

    public static final ConfigOption<String> SCAN_INITIAL_SNAPSHOT = ConfigOptions.key("scan.initial-snapshot")
            .stringType()
            .noDefaultValue()
            .withDescription("How 'initial' takes the first snapshot: copy (VStream's in-stream copy, tables one "
                    + "after another, the change log held meanwhile) or chunked (every table in chunks, in parallel, "
                    + "beside a change log that starts at once; the table is then read as an upsert changelog, "
                    + "docs/snapshots.md)." + CORE_DEFAULT);

    public static final ConfigOption<String> SCAN_DESTRUCTIVE_DDL = ConfigOptions.key("scan.destructive-ddl")
            .stringType()
            .noDefaultValue()
            .withDescription("DDL that takes the table's rows away without row events (TRUNCATE, DROP TABLE, a "
                    + "RENAME away) or changes its primary key: fail stops the job naming the fix; continue logs "
                    + "it and goes on, downstream keeping the rows it had." + CORE_DEFAULT);

    public static final ConfigOption<Integer> SCAN_SNAPSHOT_CHUNK_ROWS = ConfigOptions.key("scan.snapshot.chunk-rows")
            .intType()
            .noDefaultValue()
            .withDescription("Chunked snapshots: rows one chunk reads before its side stream is cut." + CORE_DEFAULT);

    public static final ConfigOption<MemorySize> SCAN_SNAPSHOT_CHUNK_SIZE = ConfigOptions.key(
                    "scan.snapshot.chunk-size")
            .memoryType()
            .noDefaultValue()
            .withDescription("Chunked snapshots: decoded bytes one chunk may buffer before it is cut." + CORE_DEFAULT);

    public static final ConfigOption<Integer> SCAN_SNAPSHOT_CHUNKS_IN_FLIGHT = ConfigOptions.key(
                    "scan.snapshot.chunks-in-flight")
            .intType()
            .noDefaultValue()
            .withDescription("Chunked snapshots: chunks read at once (each holds a read view and a MySQL "
                    + "connection on its tablet)." + CORE_DEFAULT);

    public static final ConfigOption<Integer> SCAN_SNAPSHOT_LANES = ConfigOptions.key("scan.snapshot.lanes")
            .intType()
            .noDefaultValue()
            .withDescription("Chunked snapshots: lanes a table's range on one shard is split into at most, read "
                    + "side by side (integer keys; never more than scan.snapshot.chunks-in-flight); 1 reads a "
                    + "table's chunks on a shard one after another." + CORE_DEFAULT);

    public static final ConfigOption<String> SCAN_SNAPSHOT_CHUNKS_FROM_TABLETS = ConfigOptions.key(
                    "scan.snapshot.chunks-from-tablets.vtctld-address")
            .stringType()
            .noDefaultValue()
            .withDescription("Chunked snapshots: read the chunks from the tablets directly, found through this "
                    + "vtctld's gRPC address (host:port), not through VTGate (docs/snapshots.md, \"Chunks from "
                    + "the tablets\"); the tablets' gRPC ports must be reachable. Not set: through VTGate.");

    public static final ConfigOption<String> SCAN_SNAPSHOT_TABLET_TYPE = ConfigOptions.key("scan.snapshot.tablet-type")
            .stringType()
            .noDefaultValue()
            .withDescription("Chunked snapshots: the tablet type the chunks read from (their brief table lock "
                    + "lands there): primary, replica or rdonly." + CORE_DEFAULT);

    public static final ConfigOption<String> SCAN_SNAPSHOT_THROTTLER_VTCTLD = ConfigOptions.key(
                    "scan.snapshot.throttler.vtctld-address")
            .stringType()
            .noDefaultValue()
            .withDescription("Chunked snapshots: vtctld's gRPC address (host:port). Before each chunk the tablet "
                    + "throttler of the shard's primary is asked about the app scan.snapshot.throttler.app-name; "
                    + "no chunk starts while it refuses, the change log goes on (docs/snapshots.md, \"The tablet "
                    + "throttler\"). Not set: no check of ours (Vitess still throttles the chunks' rows).");

    public static final ConfigOption<String> SCAN_SNAPSHOT_THROTTLER_APP = ConfigOptions.key(
                    "scan.snapshot.throttler.app-name")
            .stringType()
            .noDefaultValue()
            .withDescription("Chunked snapshots: the app name the tablet throttler is asked about; "
                    + "'vtctldclient UpdateThrottlerConfig --throttle-app <name>' holds the chunks back."
                    + CORE_DEFAULT);

    public static final ConfigOption<String> SCAN_SIGNAL_TABLE = ConfigOptions.key("scan.signal-table")
            .stringType()
            .noDefaultValue()
            .withDescription("A table of the keyspace whose inserted rows are signals: execute-snapshot (capture "
                    + "tables or key ranges again, in chunks beside the change log), pause-snapshot, resume-snapshot, "
                    + "stop-snapshot. Read from the change stream, never emitted; the table is then read as an "
                    + "upsert changelog (docs/snapshots.md, Signals). Not set: no signals.");

    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL = ConfigOptions.key("heartbeat.interval")
            .durationType()
            .noDefaultValue()
            .withDescription("VTGate sends a heartbeat after this much silence (whole seconds; 0 = off). "
                    + "Heartbeats advance watermarks of quiet shards." + CORE_DEFAULT);

    public static final ConfigOption<Boolean> ALLOW_TABLES_WITHOUT_PRIMARY_KEY = ConfigOptions.key(
                    "scan.allow-tables-without-primary-key")
            .booleanType()
            .defaultValue(VitessDefaults.ALLOW_TABLES_WITHOUT_PRIMARY_KEY)
            .withDescription("Accept Vitess tables without a primary key (their updates and deletes cannot be "
                    + "keyed; declare no PRIMARY KEY on the Flink table).");

    public static final ConfigOption<String> CHANGELOG_MODE = ConfigOptions.key("changelog-mode")
            .stringType()
            .defaultValue(VitessDefaults.CHANGELOG_MODE)
            .withDescription("auto: a retract changelog (+I -U +U -D) when the connector reproduces the primary-key "
                    + "order of every selected table exactly, else an upsert changelog (+I +U -D, Flink adds "
                    + "ChangelogNormalize); all: always retract, refused at planning for a table whose key order is "
                    + "not exact; upsert: always upsert. auto and all read the keys from VTGate at planning time.");

    public static final ConfigOption<String> BAD_RECORD_HANDLING = ConfigOptions.key("scan.bad-record.handling")
            .stringType()
            .defaultValue(VitessDefaults.BAD_RECORD_HANDLING.optionValue())
            .withDescription("What to do with a record that cannot be read (a value that does not fit its "
                    + "declared type): fail stops the job without restarts; skip leaves the record out with a "
                    + "log line naming its table, key and position, counts it in numRecordsInErrors and moves "
                    + "the position past it. A declared column the table lacks always stops the job.");

    public static final ConfigOption<Boolean> FILTER_PUSH_DOWN = ConfigOptions.key("scan.filter-push-down.enabled")
            .booleanType()
            .defaultValue(VitessDefaults.FILTER_PUSH_DOWN)
            .withDescription("Push the predicates Vitess evaluates into the VStream rule (fewer bytes from the "
                    + "tablets; Flink still evaluates every predicate). Turn it off for a statement set that "
                    + "reads one table several times with metadata columns and WHERE clauses: Flink's planner "
                    + "does not share a scan that carries a filter spec after its metadata columns, so each "
                    + "query would open its own stream.");

    public static final ConfigOption<Duration> CONNECT_TIMEOUT = ConfigOptions.key("connect.timeout")
            .durationType()
            .noDefaultValue()
            .withDescription("Connecting to VTGate and waiting for its first response." + CORE_DEFAULT);

    public static final ConfigOption<Duration> IDLE_TIMEOUT = ConfigOptions.key("stream.idle-timeout")
            .durationType()
            .noDefaultValue()
            .withDescription("No event (not even a heartbeat) for this long means the stream is dead; reconnect."
                    + CORE_DEFAULT);

    public static final ConfigOption<Integer> RETRY_MAX_ATTEMPTS = ConfigOptions.key("retry.max-attempts")
            .intType()
            .noDefaultValue()
            .withDescription("Consecutive failed reconnects before the source fails." + CORE_DEFAULT);

    public static final ConfigOption<Duration> RETRY_INITIAL_BACKOFF = ConfigOptions.key("retry.initial-backoff")
            .durationType()
            .noDefaultValue()
            .withDescription("First wait before a reconnect (doubles up to 'retry.max-backoff')." + CORE_DEFAULT);

    public static final ConfigOption<Duration> RETRY_MAX_BACKOFF = ConfigOptions.key("retry.max-backoff")
            .durationType()
            .noDefaultValue()
            .withDescription("Longest wait between reconnects." + CORE_DEFAULT);

    public static final ConfigOption<MemorySize> BUFFER_SIZE = ConfigOptions.key("buffer.size")
            .memoryType()
            .noDefaultValue()
            .withDescription(
                    "Bytes of decoded events buffered between the gRPC stream and Flink (per reader)." + CORE_DEFAULT);

    public static final ConfigOption<MemorySize> TRANSACTION_CHUNK_SIZE = ConfigOptions.key("transaction.chunk-size")
            .memoryType()
            .noDefaultValue()
            .withDescription(
                    "VTGate streams transactions larger than this in chunks (Vitess 24+; 0 = off)." + CORE_DEFAULT);

    public static final ConfigOption<MemorySize> MAX_MESSAGE_SIZE = ConfigOptions.key("grpc.max-message-size")
            .memoryType()
            .noDefaultValue()
            .withDescription(
                    "Largest gRPC message accepted; at least VTGate's --grpc-max-message-size." + CORE_DEFAULT);

    public static final ConfigOption<Duration> KEEPALIVE_INTERVAL = ConfigOptions.key("grpc.keepalive-interval")
            .durationType()
            .noDefaultValue()
            .withDescription(
                    "HTTP/2 keepalive ping interval (VTGate refuses pings more often than every 10 s)." + CORE_DEFAULT);
}
