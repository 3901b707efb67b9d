/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.config;

import io.vitesscdc.source.AuthMode;
import io.vitesscdc.source.BadRecordHandling;
import io.vitesscdc.source.DestructiveDdl;
import io.vitesscdc.source.InitialSnapshot;
import io.vitesscdc.source.StartupMode;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.MemorySize;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a {@link io.vitesscdc.source.VitessSource} needs to open native streams, in one
 * serializable value that travels from the client to the enumerator and every reader.
 *
 * <p>It renders itself as the options JSON of {@code NativeStream.open} (field names of the
 * Rust core's {@code StreamOptions}); knobs the Java side does not model explicitly pass through
 * {@link #nativeOptions()} unchanged, so every core limit stays reachable without a Java release.
 */
@Internal
public final class VitessSourceConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Default wait of one native poll before the fetcher thread re-checks for wake-ups. */
    public static final Duration DEFAULT_POLL_TIMEOUT = VitessDefaults.POLL_TIMEOUT;

    public static final int DEFAULT_INITIAL_BUFFER_BYTES = VitessDefaults.INITIAL_BATCH_BUFFER_BYTES;
    public static final int DEFAULT_MAX_BUFFER_BYTES = VitessDefaults.MAX_BATCH_BUFFER_BYTES;

    // JSON names of the core's knobs that the builder sets by typed methods (docs/options.md).
    static final String ALLOW_TABLES_WITHOUT_PRIMARY_KEY = "allow_tables_without_primary_key";
    static final String CONNECT_TIMEOUT_MS = "connect_timeout_ms";
    static final String MAX_MESSAGE_BYTES = "max_message_bytes";
    static final String KEEPALIVE_INTERVAL_MS = "keepalive_interval_ms";
    static final String TRANSACTION_CHUNK_BYTES = "transaction_chunk_bytes";
    static final String BUFFER_BYTES = "buffer_bytes";
    static final String RETRY_INITIAL_BACKOFF_MS = "retry_initial_backoff_ms";
    static final String RETRY_MAX_BACKOFF_MS = "retry_max_backoff_ms";
    static final String RETRY_MAX_ATTEMPTS = "retry_max_attempts";
    static final String IDLE_TIMEOUT_MS = "idle_timeout_ms";
    static final String INITIAL_SNAPSHOT = "initial_snapshot";
    static final String DESTRUCTIVE_DDL = "destructive_ddl";
    static final String AUTH_MODE = "auth_mode";
    static final String SNAPSHOT_CHUNK_ROWS = "snapshot_chunk_rows";
    static final String SNAPSHOT_CHUNK_BYTES = "snapshot_chunk_bytes";
    static final String SNAPSHOT_CHUNKS_IN_FLIGHT = "snapshot_chunks_in_flight";
    static final String SNAPSHOT_LANES = "snapshot_lanes";
    static final String SNAPSHOT_TABLETS_VTCTLD = "snapshot_tablets_vtctld";
    static final String SNAPSHOT_TABLET_TYPE = "snapshot_tablet_type";
    static final String SIGNAL_TABLE = "signal_table";
    static final String THROTTLER_VTCTLD = "throttler_vtctld";
    static final String THROTTLER_APP = "throttler_app";

    private final String address;
    private final String keyspace;
    private final List<String> keyspaces;
    private final List<String> shards;
    private final List<String> tables;
    private final List<String> tablePatterns;
    private final StartupMode startupMode;
    private final String specificOffsets;
    private final String tabletType;
    private final String cells;
    private final String username;
    private final String password;
    private final TlsConfig tls;
    private final Duration heartbeatInterval;
    private final boolean heartbeatWatermarks;
    private final BadRecordHandling badRecordHandling;
    private final Duration pollTimeout;
    private final int initialBufferBytes;
    private final int maxBufferBytes;
    private final Map<String, Object> nativeOptions;

    private VitessSourceConfig(Builder b) {
        this.address = b.address;
        this.keyspaces = List.copyOf(b.keyspaces);
        this.keyspace = keyspaces.get(0);
        this.shards = List.copyOf(b.shards);
        this.tables = List.copyOf(b.tables);
        this.tablePatterns = List.copyOf(b.tablePatterns);
        this.startupMode = b.startupMode;
        this.specificOffsets = b.specificOffsets;
        this.tabletType = b.tabletType;
        this.cells = b.cells;
        this.username = b.username;
        this.password = b.password;
        this.tls = b.tls;
        this.heartbeatInterval = b.heartbeatInterval;
        this.heartbeatWatermarks = b.heartbeatWatermarks;
        this.badRecordHandling = b.badRecordHandling;
        this.pollTimeout = b.pollTimeout;
        this.initialBufferBytes = b.initialBufferBytes;
        this.maxBufferBytes = b.maxBufferBytes;
        this.nativeOptions = Collections.unmodifiableMap(new LinkedHashMap<>(b.nativeOptions));
    }

    public static Builder builder() {
        return new Builder();
    }

    public String address() {
        return address;
    }

    /** The keyspace read; with several ({@link #keyspaces()}), the first. */
    public String keyspace() {
        return keyspace;
    }

    /**
     * The keyspaces read, in the order given (docs/flink-source.md, "Several keyspaces"): one, or
     * several read side by side by each reader.
     */
    public List<String> keyspaces() {
        return keyspaces;
    }

    /** Whether the source reads more than one keyspace. */
    public boolean severalKeyspaces() {
        return keyspaces.size() > 1;
    }

    /**
     * This configuration for one of its keyspaces: that keyspace alone, with the tables named for
     * it ({@code ks.table}) or for every keyspace (a bare name), unqualified. A keyspace no table
     * name reaches reads every table, as the core selects them (rust/core/src/keyspaces.rs).
     */
    public VitessSourceConfig forKeyspace(String ks) {
        if (!keyspaces.contains(ks)) {
            throw new IllegalArgumentException("keyspace '" + ks + "' is not one of " + keyspaces);
        }
        Builder b = toBuilder();
        b.keyspaces.clear();
        b.keyspaces.add(ks);
        b.tables.clear();
        b.tables.addAll(tablesOf(ks, tables));
        return new VitessSourceConfig(b);
    }

    /**
     * The names in {@code names} that belong to keyspace {@code ks}, unqualified: {@code ks.t} as
     * {@code t}, a bare {@code t} as it is; names qualified with another keyspace are left out.
     */
    public static List<String> tablesOf(String ks, List<String> names) {
        List<String> own = new ArrayList<>();
        for (String name : names) {
            int dot = name.indexOf('.');
            String table = dot < 0 ? name : name.substring(0, dot).equals(ks) ? name.substring(dot + 1) : null;
            if (table != null && !own.contains(table)) {
                own.add(table);
            }
        }
        return own;
    }

    /** Shards to read; empty means every shard of the keyspace. */
    public List<String> shards() {
        return shards;
    }

    public List<String> tables() {
        return tables;
    }

    public List<String> tablePatterns() {
        return tablePatterns;
    }

    public StartupMode startupMode() {
        return startupMode;
    }

    /** VGTID JSON for {@link StartupMode#SPECIFIC_OFFSETS}; null otherwise. */
    public String specificOffsets() {
        return specificOffsets;
    }

    public String tabletType() {
        return tabletType;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /** Whether VTGate heartbeats advance every split's watermark (see docs/flink-source.md). */
    public boolean heartbeatWatermarks() {
        return heartbeatWatermarks;
    }

    /** What the reader does with a record it cannot convert (see {@link BadRecordHandling}). */
    public BadRecordHandling badRecordHandling() {
        return badRecordHandling;
    }

    public Duration pollTimeout() {
        return pollTimeout;
    }

    public int initialBufferBytes() {
        return initialBufferBytes;
    }

    public int maxBufferBytes() {
        return maxBufferBytes;
    }

    /** A copy of this config with one more core option (see {@link Builder#nativeOption}). */
    public VitessSourceConfig withNativeOption(String name, Object value) {
        Builder b = toBuilder();
        b.nativeOptions.put(Objects.requireNonNull(name, "name"), value);
        return new VitessSourceConfig(b);
    }

    private Builder toBuilder() {
        Builder b = new Builder();
        b.address = address;
        b.keyspaces.addAll(keyspaces);
        b.shards.addAll(shards);
        b.tables.addAll(tables);
        b.tablePatterns.addAll(tablePatterns);
        b.startupMode = startupMode;
        b.specificOffsets = specificOffsets;
        b.tabletType = tabletType;
        b.cells = cells;
        b.username = username;
        b.password = password;
        b.tls = tls;
        b.heartbeatInterval = heartbeatInterval;
        b.heartbeatWatermarks = heartbeatWatermarks;
        b.badRecordHandling = badRecordHandling;
        b.pollTimeout = pollTimeout;
        b.initialBufferBytes = initialBufferBytes;
        b.maxBufferBytes = maxBufferBytes;
        b.nativeOptions.putAll(nativeOptions);
        return b;
    }

    /**
     * Whether the first snapshot is a chunked one ({@link InitialSnapshot#CHUNKED}): its rows are
     * snapshot reads, applied as upserts.
     */
    public boolean chunkedInitialSnapshot() {
        return startupMode == StartupMode.INITIAL
                && InitialSnapshot.CHUNKED.optionValue().equals(nativeOptions.get(INITIAL_SNAPSHOT));
    }

    /** The signal table the stream acts on (docs/snapshots.md, Signals), or {@code null}. */
    public String signalTable() {
        Object table = nativeOptions.get(SIGNAL_TABLE);
        return table == null ? null : table.toString();
    }

    /**
     * Whether the stream may carry chunked snapshots' rows (snapshot reads, applied as upserts):
     * a chunked initial snapshot, or re-snapshots a signal asks for.
     */
    public boolean readsChunkedSnapshots() {
        return chunkedInitialSnapshot() || (signalTable() != null && startupMode != StartupMode.SNAPSHOT);
    }

    /** Extra core options, passed to the native stream as they are. */
    public Map<String, Object> nativeOptions() {
        return nativeOptions;
    }

    /**
     * The options of a native call that plans a stream over the configured shards without reading
     * from it (shard discovery, key orders): copy modes plan a copy, the others start "now" (which
     * the core resolves to each shard's GTID set).
     */
    public String planningOptionsJson() {
        String startMode =
                startupMode == StartupMode.INITIAL || startupMode == StartupMode.SNAPSHOT ? "initial" : "latest";
        return toNativeOptionsJson(shards, startMode);
    }

    /**
     * The {@code NativeStream.open} options for the given shards.
     *
     * @param shardsToRead the shards of this stream (empty = all shards of the keyspace)
     * @param startMode {@code initial}, {@code latest}, {@code snapshot_only}, or {@code positions} when
     *     the start positions are given to {@code NativeStream.open} as bytes (they are never part of
     *     this JSON)
     */
    public String toNativeOptionsJson(Collection<String> shardsToRead, String startMode) {
        return toNativeOptionsJson(shardsToRead, startMode, Map.of());
    }

    /**
     * {@link #toNativeOptionsJson(Collection, String)} with tables to capture in chunks when the
     * stream opens, each on the given shards ({@code captures} of the native options).
     */
    public String toNativeOptionsJson(
            Collection<String> shardsToRead, String startMode, Map<String, List<String>> capturesOnShards) {
        if (severalKeyspaces()) {
            throw new IllegalStateException("a source of several keyspaces names the shards of each: "
                    + "use toNativeOptionsJson(Map, String, Map)");
        }
        return toNativeOptionsJson(Map.of(keyspace, List.copyOf(shardsToRead)), startMode, capturesOnShards);
    }

    /**
     * The {@code NativeStream.open} options of a stream over the given shards of each keyspace
     * (a reader's splits), with tables to capture in chunks when it opens, each on the given
     * shards: with several keyspaces the tables are named {@code keyspace.table}.
     */
    public String toNativeOptionsJson(
            Map<String, List<String>> shardsByKeyspace, String startMode, Map<String, List<String>> capturesOnShards) {
        ObjectNode o = JSON.createObjectNode();
        if (!capturesOnShards.isEmpty()) {
            ArrayNode captures = o.putArray("captures");
            capturesOnShards.forEach((table, onShards) -> {
                ObjectNode c = captures.addObject();
                int dot = table.indexOf('.');
                if (severalKeyspaces() && dot > 0) {
                    c.put("keyspace", table.substring(0, dot));
                    table = table.substring(dot + 1);
                }
                c.put("table", table);
                ArrayNode s = c.putArray("shards");
                onShards.forEach(s::add);
            });
        }
        o.put("address", address);
        if (severalKeyspaces()) {
            ArrayNode parts = o.putArray("keyspaces");
            shardsByKeyspace.forEach((ks, shardsOfKeyspace) -> {
                ObjectNode part = parts.addObject();
                part.put("keyspace", ks);
                putSelection(part, shardsOfKeyspace, tablesOf(ks, tables));
            });
        } else {
            o.put("keyspace", keyspace);
            putSelection(o, shardsByKeyspace.getOrDefault(keyspace, List.of()), tables);
        }
        o.put("start_mode", startMode);
        if (tabletType != null) {
            o.put("tablet_type", tabletType);
        }
        if (cells != null) {
            o.put("cells", cells);
        }
        if (username != null) {
            o.put("username", username);
        }
        if (password != null) {
            o.put("password", password);
        }
        if (tls != null) {
            ObjectNode t = o.putObject("tls");
            putIfSet(t, "ca_cert_path", tls.caCertPath());
            putIfSet(t, "client_cert_path", tls.clientCertPath());
            putIfSet(t, "client_key_path", tls.clientKeyPath());
            putIfSet(t, "server_name", tls.serverName());
        }
        if (heartbeatInterval != null) {
            o.put("heartbeat_interval_secs", heartbeatInterval.toSeconds());
        }
        for (Map.Entry<String, Object> e : nativeOptions.entrySet()) {
            o.set(e.getKey(), JSON.valueToTree(e.getValue()));
        }
        try {
            return JSON.writeValueAsString(o);
        } catch (Exception e) {
            throw new IllegalStateException("cannot render native stream options", e);
        }
    }

    private void putSelection(ObjectNode node, Collection<String> shardsToRead, List<String> tablesToRead) {
        ArrayNode shardArray = node.putArray("shards");
        shardsToRead.forEach(shardArray::add);
        if (!tablesToRead.isEmpty()) {
            ArrayNode a = node.putArray("tables");
            tablesToRead.forEach(a::add);
        }
        if (!tablePatterns.isEmpty()) {
            ArrayNode a = node.putArray("table_patterns");
            tablePatterns.forEach(a::add);
        }
    }

    private static void putIfSet(ObjectNode node, String field, String value) {
        if (value != null) {
            node.put(field, value);
        }
    }

    @Override
    public String toString() {
        return "VitessSourceConfig{address=" + address + ", keyspaces=" + keyspaces + ", shards=" + shards
                + ", tables=" + tables + ", tablePatterns=" + tablePatterns + ", startupMode=" + startupMode
                + ", tabletType=" + tabletType + ", user=" + username + ", tls=" + (tls != null) + "}";
    }

    /** TLS files for the gRPC connection to VTGate (all optional; CA alone = server-only TLS). */
    public static final class TlsConfig implements Serializable {
        private static final long serialVersionUID = 1L;

        private final String caCertPath;
        private final String clientCertPath;
        private final String clientKeyPath;
        private final String serverName;

        public TlsConfig(String caCertPath, String clientCertPath, String clientKeyPath, String serverName) {
            this.caCertPath = caCertPath;
            this.clientCertPath = clientCertPath;
            this.clientKeyPath = clientKeyPath;
            this.serverName = serverName;
        }

        public String caCertPath() {
            return caCertPath;
        }

        public String clientCertPath() {
            return clientCertPath;
        }

        public String clientKeyPath() {
            return clientKeyPath;
        }

        public String serverName() {
            return serverName;
        }
    }

    /** Mutable builder; validation that needs no server happens in {@link #build()}. */
    public static final class Builder {
        private String address;
        private final List<String> keyspaces = new ArrayList<>();
        private final List<String> shards = new ArrayList<>();
        private final List<String> tables = new ArrayList<>();
        private final List<String> tablePatterns = new ArrayList<>();
        private StartupMode startupMode = StartupMode.INITIAL;
        private String specificOffsets;
        private String tabletType;
        private String cells;
        private String username;
        private String password;
        private TlsConfig tls;
        private Duration heartbeatInterval;
        private boolean heartbeatWatermarks = VitessDefaults.HEARTBEAT_WATERMARKS;
        private BadRecordHandling badRecordHandling = VitessDefaults.BAD_RECORD_HANDLING;
        private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
        private int initialBufferBytes = DEFAULT_INITIAL_BUFFER_BYTES;
        private int maxBufferBytes = DEFAULT_MAX_BUFFER_BYTES;
        private final Map<String, Object> nativeOptions = new LinkedHashMap<>();

        public Builder address(String address) {
            this.address = address;
            return this;
        }

        public Builder keyspace(String keyspace) {
            this.keyspaces.clear();
            this.keyspaces.add(keyspace);
            return this;
        }

        /**
         * Several keyspaces read side by side (docs/flink-source.md, "Several keyspaces"): tables
         * are then named {@code keyspace.table} (a bare name is read in every keyspace).
         */
        public Builder keyspaces(Collection<String> keyspaces) {
            this.keyspaces.clear();
            this.keyspaces.addAll(keyspaces);
            return this;
        }

        public Builder shards(Collection<String> shards) {
            this.shards.clear();
            this.shards.addAll(shards);
            return this;
        }

        public Builder tables(Collection<String> tables) {
            this.tables.clear();
            this.tables.addAll(tables);
            return this;
        }

        public Builder tablePatterns(Collection<String> patterns) {
            this.tablePatterns.clear();
            this.tablePatterns.addAll(patterns);
            return this;
        }

        public Builder startupMode(StartupMode mode) {
            this.startupMode = Objects.requireNonNull(mode, "startupMode");
            return this;
        }

        public Builder specificOffsets(String vgtidJson) {
            this.specificOffsets = vgtidJson;
            return this;
        }

        public Builder tabletType(String tabletType) {
            this.tabletType = tabletType;
            return this;
        }

        public Builder cells(String cells) {
            this.cells = cells;
            return this;
        }

        public Builder credentials(String username, String password) {
            this.username = username;
            this.password = password;
            return this;
        }

        /** How the credentials travel: Vitess's static auth (the default) or HTTP Basic (PlanetScale). */
        public Builder authMode(AuthMode mode) {
            return nativeOption(
                    AUTH_MODE, Objects.requireNonNull(mode, "authMode").optionValue());
        }

        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = interval;
            return this;
        }

        public Builder badRecordHandling(BadRecordHandling handling) {
            this.badRecordHandling = java.util.Objects.requireNonNull(handling, "badRecordHandling");
            return this;
        }

        public Builder heartbeatWatermarks(boolean enabled) {
            this.heartbeatWatermarks = enabled;
            return this;
        }

        public Builder pollTimeout(Duration timeout) {
            this.pollTimeout = Objects.requireNonNull(timeout, "pollTimeout");
            return this;
        }

        public Builder bufferBytes(int initial, int max) {
            this.initialBufferBytes = initial;
            this.maxBufferBytes = max;
            return this;
        }

        /** Accept tables without a primary key (their updates and deletes cannot be keyed). */
        public Builder allowTablesWithoutPrimaryKey(boolean allow) {
            return nativeOption(ALLOW_TABLES_WITHOUT_PRIMARY_KEY, allow);
        }

        /** Connecting to VTGate and waiting for its first response. */
        public Builder connectTimeout(Duration timeout) {
            return nativeOption(CONNECT_TIMEOUT_MS, millis("connectTimeout", timeout));
        }

        /** Largest gRPC message accepted; at least VTGate's {@code --grpc-max-message-size}. */
        public Builder maxMessageSize(MemorySize size) {
            return nativeOption(MAX_MESSAGE_BYTES, bytes("maxMessageSize", size));
        }

        /** HTTP/2 keepalive ping interval (VTGate refuses pings more often than every 10 s). */
        public Builder keepaliveInterval(Duration interval) {
            return nativeOption(KEEPALIVE_INTERVAL_MS, millis("keepaliveInterval", interval));
        }

        /** VTGate streams transactions larger than this in chunks (Vitess 24+; zero = off). */
        public Builder transactionChunkSize(MemorySize size) {
            return nativeOption(TRANSACTION_CHUNK_BYTES, bytes("transactionChunkSize", size));
        }

        /** Bytes of decoded events buffered between the gRPC stream and Flink (per reader). */
        public Builder bufferSize(MemorySize size) {
            return nativeOption(BUFFER_BYTES, bytes("bufferSize", size));
        }

        /** First wait before a reconnect (doubles up to {@link #retryMaxBackoff}). */
        public Builder retryInitialBackoff(Duration backoff) {
            return nativeOption(RETRY_INITIAL_BACKOFF_MS, millis("retryInitialBackoff", backoff));
        }

        /** Longest wait between reconnects. */
        public Builder retryMaxBackoff(Duration backoff) {
            return nativeOption(RETRY_MAX_BACKOFF_MS, millis("retryMaxBackoff", backoff));
        }

        /** Consecutive failed reconnects before the source fails (zero = fail at the first error). */
        public Builder retryMaxAttempts(int attempts) {
            require(
                    attempts >= 0,
                    "retryMaxAttempts must not be negative, got " + attempts
                            + ": pass 0 (fail at the first connection error) or more reconnects");
            return nativeOption(RETRY_MAX_ATTEMPTS, attempts);
        }

        /** No event (not even a heartbeat) for this long means the stream is dead; reconnect. */
        public Builder idleTimeout(Duration timeout) {
            return nativeOption(IDLE_TIMEOUT_MS, millis("idleTimeout", timeout));
        }

        /** DDL that takes a selected table's rows away or changes its key (docs/reliability.md). */
        public Builder destructiveDdl(DestructiveDdl handling) {
            return nativeOption(
                    DESTRUCTIVE_DDL,
                    Objects.requireNonNull(handling, "destructiveDdl").optionValue());
        }

        /** How {@link StartupMode#INITIAL} takes its first snapshot (docs/snapshots.md). */
        public Builder initialSnapshot(InitialSnapshot mode) {
            return nativeOption(
                    INITIAL_SNAPSHOT,
                    Objects.requireNonNull(mode, "initialSnapshot").optionValue());
        }

        /** Chunked snapshots: rows one chunk reads before its side stream is cut. */
        public Builder snapshotChunkRows(int rows) {
            require(rows >= 1, "snapshotChunkRows must be at least 1, got " + rows);
            return nativeOption(SNAPSHOT_CHUNK_ROWS, rows);
        }

        /** Chunked snapshots: bytes of decoded rows one chunk may buffer before it is cut. */
        public Builder snapshotChunkSize(MemorySize size) {
            long bytes = bytes("snapshotChunkSize", size);
            require(bytes >= 1, "snapshotChunkSize must be at least 1 byte, got " + size);
            return nativeOption(SNAPSHOT_CHUNK_BYTES, bytes);
        }

        /** Chunked snapshots: side streams reading chunks at once (each holds a read view on its tablet). */
        public Builder snapshotChunksInFlight(int chunks) {
            require(chunks >= 1, "snapshotChunksInFlight must be at least 1, got " + chunks);
            return nativeOption(SNAPSHOT_CHUNKS_IN_FLIGHT, chunks);
        }

        /**
         * Chunked snapshots: lanes a table's range on one shard is split into at most, so that its
         * chunks read side by side (integer keys, never more than chunks in flight); 1 reads them
         * one after another (docs/snapshots.md, "Lanes").
         */
        public Builder snapshotLanes(int lanes) {
            require(lanes >= 1, "snapshotLanes must be at least 1, got " + lanes);
            return nativeOption(SNAPSHOT_LANES, lanes);
        }

        /**
         * Chunked snapshots: read the chunks from the tablets directly, found through vtctld's gRPC
         * port ({@code host:port}), instead of through VTGate: VTGate's CPU is not spent on their
         * rows (docs/snapshots.md, "Chunks from the tablets"). The tablets' gRPC ports must be
         * reachable from the TaskManagers.
         */
        public Builder snapshotChunksFromTablets(String vtctldAddress) {
            Objects.requireNonNull(vtctldAddress, "snapshotChunksFromTablets");
            require(
                    !vtctldAddress.isBlank(),
                    "snapshotChunksFromTablets needs vtctld's gRPC address, e.g. 127.0.0.1:15999");
            return nativeOption(SNAPSHOT_TABLETS_VTCTLD, vtctldAddress.trim());
        }

        /**
         * A table of the keyspace whose inserted rows are signals: execute-snapshot (capture tables
         * or key ranges again, beside the log), pause-snapshot, resume-snapshot, stop-snapshot. It
         * is read from the change stream and never emitted (docs/snapshots.md, Signals).
         */
        public Builder signalTable(String table) {
            Objects.requireNonNull(table, "signalTable");
            require(!table.isBlank(), "signalTable must name a table, e.g. vitess_cdc_signal");
            return nativeOption(SIGNAL_TABLE, table.trim());
        }

        /** Chunked snapshots: the tablet type the chunks read from ({@code primary}, {@code replica}, {@code rdonly}). */
        public Builder snapshotTabletType(String tabletType) {
            return nativeOption(SNAPSHOT_TABLET_TYPE, Objects.requireNonNull(tabletType, "snapshotTabletType"));
        }

        /**
         * Chunked snapshots: ask the tablet throttler, through vtctld's gRPC port ({@code host:port}),
         * before each chunk; no chunk starts on a shard whose primary refuses the throttler app
         * ({@link #snapshotThrottlerApp}, {@code vitess-cdc} by default). The log is never held back
         * by it (docs/snapshots.md, "The tablet throttler").
         */
        public Builder snapshotThrottler(String vtctldAddress) {
            Objects.requireNonNull(vtctldAddress, "snapshotThrottler");
            require(!vtctldAddress.isBlank(), "snapshotThrottler needs vtctld's gRPC address, e.g. 127.0.0.1:15999");
            return nativeOption(THROTTLER_VTCTLD, vtctldAddress.trim());
        }

        /** Chunked snapshots: the app name the tablet throttler is asked about (with {@link #snapshotThrottler}). */
        public Builder snapshotThrottlerApp(String app) {
            Objects.requireNonNull(app, "snapshotThrottlerApp");
            require(!app.isBlank(), "snapshotThrottlerApp must name an app, e.g. vitess-cdc");
            return nativeOption(THROTTLER_APP, app.trim());
        }

        private static long millis(String what, Duration d) {
            Objects.requireNonNull(d, what);
            require(!d.isNegative(), what + " must not be negative, got " + d + ": pass zero or a positive duration");
            return d.toMillis();
        }

        private static long bytes(String what, MemorySize size) {
            return Objects.requireNonNull(size, what).getBytes();
        }

        /**
         * A core option by its JSON name (see docs/native-bridge.md): the escape hatch for a core
         * option that has no typed method yet; prefer the typed methods.
         */
        public Builder nativeOption(String name, Object value) {
            this.nativeOptions.put(Objects.requireNonNull(name, "name"), value);
            return this;
        }

        public VitessSourceConfig build() {
            require(
                    address != null && !address.isBlank(),
                    "the VTGate gRPC address is not set: call address(\"host:port\"), e.g. 127.0.0.1:15991");
            require(
                    !keyspaces.isEmpty() && keyspaces.stream().allMatch(k -> k != null && !k.isBlank()),
                    "the keyspace is not set: call keyspace(\"<name>\") with the Vitess keyspace to read");
            require(
                    keyspaces.stream().distinct().count() == keyspaces.size(),
                    "keyspaces " + keyspaces + " name one twice: name each keyspace once");
            for (String table : tables) {
                int dot = table.indexOf('.');
                require(
                        dot < 0 || keyspaces.contains(table.substring(0, dot)),
                        "table '" + table + "' names keyspace '" + (dot < 0 ? "" : table.substring(0, dot))
                                + "', which the source does not read " + keyspaces
                                + ": add the keyspace or name a table of one of them");
            }
            require(
                    nativeOptions.get(THROTTLER_APP) == null || nativeOptions.get(THROTTLER_VTCTLD) != null,
                    "snapshotThrottlerApp(" + nativeOptions.get(THROTTLER_APP) + ") without snapshotThrottler: the "
                            + "throttler is asked through vtctld; call snapshotThrottler(\"host:port\") too");
            if (keyspaces.size() == 1) {
                // keyspace.table of the one keyspace is its table
                List<String> own = tablesOf(keyspaces.get(0), tables);
                tables.clear();
                tables.addAll(own);
            }
            if (keyspaces.size() > 1) {
                require(
                        shards.isEmpty(),
                        "shards " + shards + " with several keyspaces " + keyspaces + ": a source of several "
                                + "keyspaces reads every shard of each; read a subset of shards with a source per keyspace");
                require(
                        nativeOptions.get(SIGNAL_TABLE) == null,
                        "a signal table with several keyspaces " + keyspaces + ": signals are read per keyspace; "
                                + "capture with a source per keyspace (docs/snapshots.md, \"Signals\")");
                require(
                        startupMode != StartupMode.SPECIFIC_OFFSETS,
                        "startup mode SPECIFIC_OFFSETS with several keyspaces " + keyspaces + ": start each keyspace "
                                + "at its own offsets with a source per keyspace, or start INITIAL or LATEST_OFFSET");
            }
            if (startupMode == StartupMode.SPECIFIC_OFFSETS) {
                require(
                        specificOffsets != null && !specificOffsets.isBlank(),
                        "startup mode SPECIFIC_OFFSETS needs the positions: call specificOffsets(<VGTID JSON>)");
            } else {
                require(
                        specificOffsets == null,
                        "specific offsets are only used with startup mode SPECIFIC_OFFSETS, but the mode is "
                                + startupMode + ": drop the offsets or change the mode");
            }
            require(
                    initialBufferBytes >= 64 && maxBufferBytes >= initialBufferBytes,
                    "batch buffer sizes must satisfy 64 <= initial <= max, got " + initialBufferBytes + " and "
                            + maxBufferBytes);
            require(!pollTimeout.isNegative(), "the poll timeout must not be negative");
            require(
                    startupMode != StartupMode.SNAPSHOT
                            || !InitialSnapshot.CHUNKED.optionValue().equals(nativeOptions.get(INITIAL_SNAPSHOT)),
                    "a chunked initial snapshot runs beside a change log that does not end; the bounded startup mode "
                            + "SNAPSHOT takes the in-stream copy: drop initialSnapshot(CHUNKED) or start INITIAL");
            require(
                    !Boolean.TRUE.equals(nativeOptions.get("stop_on_reshard"))
                            && !"true".equals(String.valueOf(nativeOptions.get("stop_on_reshard"))),
                    "the native option stop_on_reshard would end every split of a reader at a reshard; the source "
                            + "follows reshards by itself (docs/flink-source.md, Resharding): drop the option");
            return new VitessSourceConfig(this);
        }

        private static void require(boolean condition, String message) {
            if (!condition) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
