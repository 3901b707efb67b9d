/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.nativeio.ConfigurationException;
import io.vitesscdc.nativeio.NativeStream;
import io.vitesscdc.source.config.VitessDefaults;
import io.vitesscdc.source.config.VitessSourceConfig;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.MemorySize;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * Builds a {@link VitessSource}. Required: {@link #address}, {@link #keyspace} and
 * {@link #deserializer}; everything else has a documented default (docs/flink-source.md).
 * Mistakes that need no server are reported by {@link #build()}; the rest (unknown keyspace or
 * table, unreachable VTGate, bad credentials) when the job starts, by the enumerator.
 */
@PublicEvolving
public final class VitessSourceBuilder<T> {

    private final VitessSourceConfig.Builder config = VitessSourceConfig.builder();
    private VitessDeserializationSchema<T> deserializer;

    VitessSourceBuilder() {}

    /** VTGate's gRPC address, {@code host:port} (or {@code https://host:port} with TLS). */
    public VitessSourceBuilder<T> address(String hostAndPort) {
        config.address(hostAndPort);
        return this;
    }

    public VitessSourceBuilder<T> keyspace(String keyspace) {
        config.keyspace(keyspace);
        return this;
    }

    /**
     * Several keyspaces in one source, e.g. a sharded and an unsharded one (docs/flink-source.md,
     * "Several keyspaces"): each reader reads its shards of every keyspace in one native stream;
     * splits, positions, reshards and record metadata stay per keyspace. Name tables {@code
     * keyspace.table} (a bare name is read in every keyspace; a keyspace no name reaches reads every
     * table).
     */
    public VitessSourceBuilder<T> keyspaces(String... keyspaces) {
        config.keyspaces(Arrays.asList(keyspaces));
        return this;
    }

    /** Read only these shards (default: every shard of the keyspace). */
    public VitessSourceBuilder<T> shards(String... shards) {
        config.shards(Arrays.asList(shards));
        return this;
    }

    /** Tables by exact name; combined with {@link #tablePatterns}; neither = every table. */
    public VitessSourceBuilder<T> tables(String... tables) {
        config.tables(Arrays.asList(tables));
        return this;
    }

    /** Tables by regular expression, matched against the whole table name. */
    public VitessSourceBuilder<T> tablePatterns(String... patterns) {
        config.tablePatterns(Arrays.asList(patterns));
        return this;
    }

    /** Default {@link StartupMode#INITIAL}. */
    public VitessSourceBuilder<T> startupMode(StartupMode mode) {
        config.startupMode(mode);
        return this;
    }

    /**
     * Start from these positions ({@link StartupMode#SPECIFIC_OFFSETS}): a VGTID JSON with one
     * entry per shard, e.g. {@code {"shard_gtids":[{"keyspace":"ks","shard":"-80","gtid":"MySQL56/..."}]}}.
     */
    public VitessSourceBuilder<T> specificOffsets(String vgtidJson) {
        config.startupMode(StartupMode.SPECIFIC_OFFSETS).specificOffsets(vgtidJson);
        return this;
    }

    /** {@code primary} (default), {@code replica} or {@code rdonly}. */
    public VitessSourceBuilder<T> tabletType(String tabletType) {
        config.tabletType(tabletType);
        return this;
    }

    public VitessSourceBuilder<T> cells(String cells) {
        config.cells(cells);
        return this;
    }

    /** VTGate credentials, sent with every call as {@link #authMode} says (static auth by default). */
    public VitessSourceBuilder<T> credentials(String username, String password) {
        config.credentials(username, password);
        return this;
    }

    /**
     * How the credentials travel: {@link AuthMode#STATIC} (Vitess's static auth, the default) or
     * {@link AuthMode#BASIC} (HTTP Basic over TLS, as PlanetScale takes it; docs/tls.md).
     */
    public VitessSourceBuilder<T> authMode(AuthMode mode) {
        config.authMode(mode);
        return this;
    }

    /**
     * TLS to VTGate: the CA that signed VTGate's certificate and, for mTLS, the client
     * certificate and key (PEM files on every TaskManager and the JobManager).
     */
    public VitessSourceBuilder<T> tls(
            String caCertPath, String clientCertPath, String clientKeyPath, String serverName) {
        config.tls(new VitessSourceConfig.TlsConfig(caCertPath, clientCertPath, clientKeyPath, serverName));
        return this;
    }

    /** Accept tables without a primary key (default false; their updates and deletes cannot be keyed). */
    public VitessSourceBuilder<T> allowTablesWithoutPrimaryKey(boolean allow) {
        config.allowTablesWithoutPrimaryKey(allow);
        return this;
    }

    /** Connecting to VTGate and waiting for its first response (default {@link VitessDefaults#CONNECT_TIMEOUT}). */
    public VitessSourceBuilder<T> connectTimeout(Duration timeout) {
        config.connectTimeout(timeout);
        return this;
    }

    /** Largest gRPC message accepted (default {@link VitessDefaults#MAX_MESSAGE_SIZE}). */
    public VitessSourceBuilder<T> maxMessageSize(MemorySize size) {
        config.maxMessageSize(size);
        return this;
    }

    /** HTTP/2 keepalive ping interval, at least 10 s (default {@link VitessDefaults#KEEPALIVE_INTERVAL}). */
    public VitessSourceBuilder<T> keepaliveInterval(Duration interval) {
        config.keepaliveInterval(interval);
        return this;
    }

    /**
     * VTGate streams transactions larger than this in chunks, Vitess 24+, zero = off (default
     * {@link VitessDefaults#TRANSACTION_CHUNK_SIZE}).
     */
    public VitessSourceBuilder<T> transactionChunkSize(MemorySize size) {
        config.transactionChunkSize(size);
        return this;
    }

    /** Decoded events buffered between the gRPC stream and Flink (default {@link VitessDefaults#BUFFER_SIZE}). */
    public VitessSourceBuilder<T> bufferSize(MemorySize size) {
        config.bufferSize(size);
        return this;
    }

    /** First wait before a reconnect (default {@link VitessDefaults#RETRY_INITIAL_BACKOFF}). */
    public VitessSourceBuilder<T> retryInitialBackoff(Duration backoff) {
        config.retryInitialBackoff(backoff);
        return this;
    }

    /** Longest wait between reconnects (default {@link VitessDefaults#RETRY_MAX_BACKOFF}). */
    public VitessSourceBuilder<T> retryMaxBackoff(Duration backoff) {
        config.retryMaxBackoff(backoff);
        return this;
    }

    /** Consecutive failed reconnects before the source fails (default {@link VitessDefaults#RETRY_MAX_ATTEMPTS}). */
    public VitessSourceBuilder<T> retryMaxAttempts(int attempts) {
        config.retryMaxAttempts(attempts);
        return this;
    }

    /** No event, not even a heartbeat, for this long means a dead stream (default {@link VitessDefaults#IDLE_TIMEOUT}). */
    public VitessSourceBuilder<T> idleTimeout(Duration timeout) {
        config.idleTimeout(timeout);
        return this;
    }

    /**
     * How long VTGate may stay silent before it sends a heartbeat, whole seconds, zero = off
     * (default {@link VitessDefaults#HEARTBEAT_INTERVAL}).
     */
    public VitessSourceBuilder<T> heartbeatInterval(Duration interval) {
        config.heartbeatInterval(Objects.requireNonNull(interval, "interval"));
        return this;
    }

    /**
     * How {@link StartupMode#INITIAL} takes the first snapshot: {@link InitialSnapshot#COPY} (the
     * in-stream VStream copy, the default) or {@link InitialSnapshot#CHUNKED} (chunks in parallel
     * beside a change log that starts at once; rows are upserts, docs/snapshots.md).
     */
    public VitessSourceBuilder<T> initialSnapshot(InitialSnapshot mode) {
        config.initialSnapshot(mode);
        return this;
    }

    /**
     * DDL that takes a selected table's rows away ({@code TRUNCATE}, {@code DROP TABLE}, a {@code
     * RENAME} away) or changes its primary key: {@link DestructiveDdl#FAIL} stops the job naming
     * the fix, {@link DestructiveDdl#CONTINUE} logs it and goes on (default: the core's,
     * docs/options.md).
     */
    public VitessSourceBuilder<T> destructiveDdl(DestructiveDdl handling) {
        config.destructiveDdl(handling);
        return this;
    }

    /** Chunked snapshots: rows per chunk (default: the core's, docs/options.md). */
    public VitessSourceBuilder<T> snapshotChunkRows(int rows) {
        config.snapshotChunkRows(rows);
        return this;
    }

    /** Chunked snapshots: bytes one chunk may buffer (default: the core's, docs/options.md). */
    public VitessSourceBuilder<T> snapshotChunkSize(MemorySize size) {
        config.snapshotChunkSize(size);
        return this;
    }

    /** Chunked snapshots: chunks read at once (default: the core's, docs/options.md). */
    public VitessSourceBuilder<T> snapshotChunksInFlight(int chunks) {
        config.snapshotChunksInFlight(chunks);
        return this;
    }

    /** Chunked snapshots: lanes per table and shard read side by side (default: the core's, docs/options.md). */
    public VitessSourceBuilder<T> snapshotLanes(int lanes) {
        config.snapshotLanes(lanes);
        return this;
    }

    /**
     * Chunked snapshots: read the chunks from the tablets directly, found through vtctld's gRPC
     * port ({@code host:port}), not through VTGate (docs/snapshots.md, "Chunks from the tablets").
     */
    public VitessSourceBuilder<T> snapshotChunksFromTablets(String vtctldAddress) {
        config.snapshotChunksFromTablets(vtctldAddress);
        return this;
    }

    /**
     * Acts on the signals inserted into this table of the keyspace (re-snapshot a table or key
     * range, pause, resume, stop; docs/snapshots.md, Signals). Re-snapshot rows are snapshot reads
     * ({@code ChangeKind.SNAPSHOT_READ}), to apply as upserts.
     */
    public VitessSourceBuilder<T> signalTable(String table) {
        config.signalTable(table);
        return this;
    }

    /** Chunked snapshots: the chunks' tablet type (default: the core's, docs/options.md). */
    public VitessSourceBuilder<T> snapshotTabletType(String tabletType) {
        config.snapshotTabletType(tabletType);
        return this;
    }

    /**
     * Chunked snapshots: ask the tablet throttler through vtctld's gRPC port ({@code host:port})
     * before each chunk; none starts on a shard whose primary refuses (docs/snapshots.md, "The
     * tablet throttler"). Not set: no check of ours.
     */
    public VitessSourceBuilder<T> snapshotThrottler(String vtctldAddress) {
        config.snapshotThrottler(vtctldAddress);
        return this;
    }

    /** Chunked snapshots: the app name the tablet throttler is asked about (default {@code vitess-cdc}). */
    public VitessSourceBuilder<T> snapshotThrottlerApp(String app) {
        config.snapshotThrottlerApp(app);
        return this;
    }

    /**
     * What to do with a record that cannot be converted (the deserializer throws): stop the job
     * without restarts, or skip it with a log line, counted in {@code numRecordsInErrors} (default
     * {@link VitessDefaults#BAD_RECORD_HANDLING}; docs/reliability.md, "Failure classes").
     */
    public VitessSourceBuilder<T> badRecordHandling(BadRecordHandling handling) {
        config.badRecordHandling(handling);
        return this;
    }

    /** Whether heartbeats advance watermarks and mark quiet splits idle (default {@link VitessDefaults#HEARTBEAT_WATERMARKS}). */
    public VitessSourceBuilder<T> heartbeatWatermarks(boolean enabled) {
        config.heartbeatWatermarks(enabled);
        return this;
    }

    /** Longest wait of one native poll (default {@link VitessDefaults#POLL_TIMEOUT}). */
    public VitessSourceBuilder<T> pollTimeout(Duration timeout) {
        config.pollTimeout(timeout);
        return this;
    }

    /**
     * Batch buffer sizes: initial and largest (default {@link VitessDefaults#INITIAL_BATCH_BUFFER_BYTES} and
     * {@link VitessDefaults#MAX_BATCH_BUFFER_BYTES}).
     */
    public VitessSourceBuilder<T> batchBufferBytes(int initial, int max) {
        config.bufferBytes(initial, max);
        return this;
    }

    /**
     * Any option of the native core by its JSON name (docs/native-bridge.md): the escape hatch for
     * a core option newer than this builder. Every knob of docs/options.md has a typed method above;
     * prefer those (a value set here for the same knob replaces theirs, and the other way round).
     */
    public VitessSourceBuilder<T> nativeOption(String name, Object value) {
        config.nativeOption(name, value);
        return this;
    }

    public VitessSourceBuilder<T> deserializer(VitessDeserializationSchema<T> deserializer) {
        this.deserializer = deserializer;
        return this;
    }

    public VitessSource<T> build() {
        if (deserializer == null) {
            throw new IllegalArgumentException("no deserializer: call deserializer(...), e.g. with "
                    + "new JsonDebeziumDeserializationSchema() for JSON strings");
        }
        VitessSourceConfig built = config.build();
        try {
            // The core's own checks (sizes, timeouts and their relations) when the job is built, as
            // SQL runs them at planning: not at job start, in the enumerator.
            for (String keyspace : built.keyspaces()) {
                NativeStream.checkOptions(built.forKeyspace(keyspace).planningOptionsJson());
            }
        } catch (ConfigurationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return new VitessSource<>(built, deserializer);
    }
}
