/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.ConfigurationException;
import io.vitesscdc.nativeio.ErrorCode;
import io.vitesscdc.nativeio.KeyOrders;
import io.vitesscdc.nativeio.NativeStream;
import io.vitesscdc.source.AuthMode;
import io.vitesscdc.source.BadRecordHandling;
import io.vitesscdc.source.DestructiveDdl;
import io.vitesscdc.source.InitialSnapshot;
import io.vitesscdc.source.StartupMode;
import io.vitesscdc.source.config.VitessSourceConfig;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import static io.vitesscdc.table.VitessConnectorOptions.ALLOW_TABLES_WITHOUT_PRIMARY_KEY;
import static io.vitesscdc.table.VitessConnectorOptions.AUTH_MODE;
import static io.vitesscdc.table.VitessConnectorOptions.BAD_RECORD_HANDLING;
import static io.vitesscdc.table.VitessConnectorOptions.BUFFER_SIZE;
import static io.vitesscdc.table.VitessConnectorOptions.CELLS;
import static io.vitesscdc.table.VitessConnectorOptions.CHANGELOG_MODE;
import static io.vitesscdc.table.VitessConnectorOptions.CONNECT_TIMEOUT;
import static io.vitesscdc.table.VitessConnectorOptions.FILTER_PUSH_DOWN;
import static io.vitesscdc.table.VitessConnectorOptions.HEARTBEAT_INTERVAL;
import static io.vitesscdc.table.VitessConnectorOptions.HOSTNAME;
import static io.vitesscdc.table.VitessConnectorOptions.IDLE_TIMEOUT;
import static io.vitesscdc.table.VitessConnectorOptions.KEEPALIVE_INTERVAL;
import static io.vitesscdc.table.VitessConnectorOptions.KEYSPACE;
import static io.vitesscdc.table.VitessConnectorOptions.MAX_MESSAGE_SIZE;
import static io.vitesscdc.table.VitessConnectorOptions.PASSWORD;
import static io.vitesscdc.table.VitessConnectorOptions.PORT;
import static io.vitesscdc.table.VitessConnectorOptions.RETRY_INITIAL_BACKOFF;
import static io.vitesscdc.table.VitessConnectorOptions.RETRY_MAX_ATTEMPTS;
import static io.vitesscdc.table.VitessConnectorOptions.RETRY_MAX_BACKOFF;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_DESTRUCTIVE_DDL;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_INITIAL_SNAPSHOT;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_SIGNAL_TABLE;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_SNAPSHOT_CHUNKS_FROM_TABLETS;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_SNAPSHOT_CHUNKS_IN_FLIGHT;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_SNAPSHOT_CHUNK_ROWS;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_SNAPSHOT_CHUNK_SIZE;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_SNAPSHOT_LANES;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_SNAPSHOT_TABLET_TYPE;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_SNAPSHOT_THROTTLER_APP;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_SNAPSHOT_THROTTLER_VTCTLD;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_STARTUP_MODE;
import static io.vitesscdc.table.VitessConnectorOptions.SCAN_STARTUP_SPECIFIC_OFFSET;
import static io.vitesscdc.table.VitessConnectorOptions.SHARDS;
import static io.vitesscdc.table.VitessConnectorOptions.TABLET_TYPE;
import static io.vitesscdc.table.VitessConnectorOptions.TABLE_NAME;
import static io.vitesscdc.table.VitessConnectorOptions.TLS_CA_CERT;
import static io.vitesscdc.table.VitessConnectorOptions.TLS_CLIENT_CERT;
import static io.vitesscdc.table.VitessConnectorOptions.TLS_CLIENT_KEY;
import static io.vitesscdc.table.VitessConnectorOptions.TLS_SERVER_NAME;
import static io.vitesscdc.table.VitessConnectorOptions.TRANSACTION_CHUNK_SIZE;
import static io.vitesscdc.table.VitessConnectorOptions.USERNAME;
import static io.vitesscdc.table.VitessConnectorOptions.VTGATE_ADDRESS;

/**
 * Factory of {@code 'connector' = 'vitess-cdc'} tables. Everything that can be checked without a
 * server is checked here, at planning time, with messages that name the option and the fix;
 * unknown keyspaces or tables and unreachable servers are reported when the job starts.
 */
@Internal
public final class VitessDynamicTableFactory implements DynamicTableSourceFactory {

    public static final String IDENTIFIER = "vitess-cdc";

    private static final Pattern PLAIN_TABLE_NAME = Pattern.compile("[A-Za-z0-9_$]+");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(KEYSPACE, TABLE_NAME);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                HOSTNAME,
                PORT,
                VTGATE_ADDRESS,
                SHARDS,
                USERNAME,
                PASSWORD,
                AUTH_MODE,
                TLS_CA_CERT,
                TLS_CLIENT_CERT,
                TLS_CLIENT_KEY,
                TLS_SERVER_NAME,
                TABLET_TYPE,
                CELLS,
                SCAN_STARTUP_MODE,
                SCAN_STARTUP_SPECIFIC_OFFSET,
                HEARTBEAT_INTERVAL,
                ALLOW_TABLES_WITHOUT_PRIMARY_KEY,
                CONNECT_TIMEOUT,
                IDLE_TIMEOUT,
                RETRY_MAX_ATTEMPTS,
                RETRY_INITIAL_BACKOFF,
                RETRY_MAX_BACKOFF,
                BUFFER_SIZE,
                TRANSACTION_CHUNK_SIZE,
                MAX_MESSAGE_SIZE,
                KEEPALIVE_INTERVAL,
                CHANGELOG_MODE,
                FILTER_PUSH_DOWN,
                SCAN_INITIAL_SNAPSHOT,
                SCAN_SNAPSHOT_CHUNK_ROWS,
                SCAN_SNAPSHOT_CHUNK_SIZE,
                SCAN_SNAPSHOT_CHUNKS_IN_FLIGHT,
                SCAN_SNAPSHOT_LANES,
                SCAN_SNAPSHOT_CHUNKS_FROM_TABLETS,
                SCAN_SNAPSHOT_TABLET_TYPE,
                SCAN_SNAPSHOT_THROTTLER_VTCTLD,
                SCAN_SNAPSHOT_THROTTLER_APP,
                SCAN_SIGNAL_TABLE,
                SCAN_DESTRUCTIVE_DDL,
                BAD_RECORD_HANDLING);
    }

    @Override
    public Set<ConfigOption<?>> forwardOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        String table = context.getObjectIdentifier().asSummaryString();
        refuseBatchMode(context.getConfiguration(), table);
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        // A Flink table may leave the key undeclared: its changelog is then retract, which the
        // resolver accepts only where the core keeps it exact (the Vitess table's key order).
        boolean allowNoPk = options.get(ALLOW_TABLES_WITHOUT_PRIMARY_KEY);
        VitessChangelogMode changelogMode =
                changelogMode(options, table, schema.getPrimaryKey().isPresent());
        if (options.get(KEYSPACE).contains(",")) {
            throw invalid(
                    table,
                    "option '" + KEYSPACE.key() + "' = '" + options.get(KEYSPACE) + "' names several keyspaces, but "
                            + "a SQL table reads one: declare a table per keyspace and read them in one job "
                            + "(docs/flink-source.md, \"Several keyspaces\"; the DataStream source reads several)");
        }
        VitessSourceConfig.Builder config =
                VitessSourceConfig.builder().address(address(options, table)).keyspace(options.get(KEYSPACE));
        String tableName = options.get(TABLE_NAME);
        if (PLAIN_TABLE_NAME.matcher(tableName).matches()) {
            config.tables(List.of(tableName));
        } else {
            try {
                Pattern.compile(tableName);
            } catch (PatternSyntaxException e) {
                throw invalid(
                        table,
                        "option '" + TABLE_NAME.key() + "' = '" + tableName + "' is neither a table name "
                                + "nor a valid regular expression (" + e.getDescription() + "): fix the pattern");
            }
            config.tablePatterns(List.of(tableName));
        }
        options.getOptional(SHARDS).ifPresent(config::shards);
        options.getOptional(TABLET_TYPE).ifPresent(t -> config.tabletType(tabletType(t, table)));
        options.getOptional(CELLS).ifPresent(config::cells);
        if (options.getOptional(USERNAME).isPresent()
                || options.getOptional(PASSWORD).isPresent()) {
            config.credentials(
                    options.getOptional(USERNAME).orElse(null),
                    options.getOptional(PASSWORD).orElse(null));
        }
        options.getOptional(AUTH_MODE).ifPresent(m -> config.authMode(authMode(m, table)));
        tls(options, table, config);
        startup(options, table, config);
        // The core's knobs are passed only when the table sets them; unset, the core's default
        // applies (VitessConnectorOptions.CORE_DEFAULT).
        options.getOptional(HEARTBEAT_INTERVAL).ifPresent(heartbeat -> {
            if (heartbeat.isNegative() || heartbeat.toMillis() % 1000 != 0) {
                throw invalid(
                        table,
                        "option '" + HEARTBEAT_INTERVAL.key() + "' = '" + heartbeat + "' must be whole seconds "
                                + "(VTGate counts heartbeats in seconds), e.g. '5 s', or '0 s' to turn heartbeats off");
            }
            config.heartbeatInterval(heartbeat);
        });
        config.allowTablesWithoutPrimaryKey(allowNoPk);
        options.getOptional(CONNECT_TIMEOUT).ifPresent(config::connectTimeout);
        options.getOptional(IDLE_TIMEOUT).ifPresent(config::idleTimeout);
        options.getOptional(RETRY_MAX_ATTEMPTS).ifPresent(n -> config.retryMaxAttempts(notNegative(n, table)));
        options.getOptional(RETRY_INITIAL_BACKOFF).ifPresent(config::retryInitialBackoff);
        options.getOptional(RETRY_MAX_BACKOFF).ifPresent(config::retryMaxBackoff);
        options.getOptional(BUFFER_SIZE).ifPresent(config::bufferSize);
        options.getOptional(TRANSACTION_CHUNK_SIZE).ifPresent(config::transactionChunkSize);
        options.getOptional(MAX_MESSAGE_SIZE).ifPresent(config::maxMessageSize);
        options.getOptional(KEEPALIVE_INTERVAL).ifPresent(config::keepaliveInterval);
        config.badRecordHandling(badRecordHandling(options, table));
        VitessSourceConfig built;
        try {
            snapshots(options, table, config);
            built = config.build();
        } catch (IllegalArgumentException e) {
            throw invalid(table, e.getMessage());
        }
        try {
            // The core's own checks (sizes, timeouts and their relations), at planning rather than
            // when the job starts.
            NativeStream.checkOptions(built.planningOptionsJson());
        } catch (ConfigurationException e) {
            throw invalid(table, e.getMessage());
        }
        ChangelogModeResolver changelog = new ChangelogModeResolver(
                table,
                changelogMode,
                schema.getPrimaryKey().isPresent(),
                built.readsChunkedSnapshots(),
                allowNoPk,
                () -> KeyOrders.read(declaredColumns(built, context).planningOptionsJson()));
        return VitessDynamicTableSource.of(
                built, context.getPhysicalRowDataType(), changelog, options.get(FILTER_PUSH_DOWN));
    }

    /**
     * Flink's batch mode reads insert-only sources, and no phase of this one is: the copy brings
     * the changes made while it runs as updates and deletes of rows it sent (VStream's catch-up),
     * so even a bounded read is a changelog. Refused when the statement is planned, with the way
     * to a bounded, final answer in streaming mode.
     */
    private static void refuseBatchMode(ReadableConfig session, String table) {
        if (session.get(ExecutionOptions.RUNTIME_MODE) != RuntimeExecutionMode.BATCH) {
            return;
        }
        throw invalid(
                table,
                "cannot be read in batch mode ('" + ExecutionOptions.RUNTIME_MODE.key() + "' = 'batch'): Flink's "
                        + "batch mode reads insert-only sources, and a vitess-cdc table is a changelog in every phase "
                        + "(even the copy's rows are updated and deleted by the changes made while it runs). Run the "
                        + "query in streaming mode ('" + ExecutionOptions.RUNTIME_MODE.key() + "' = 'streaming') "
                        + "with '" + SCAN_STARTUP_MODE.key() + "' = 'snapshot': the job then ends by itself when every "
                        + "shard's copy completed, and its final result equals the table as of the copy's end "
                        + "(docs/sql-connector.md, \"Batch mode\")");
    }

    /**
     * The configuration with the table's declared physical columns as its selection, for the key
     * orders read at planning: the core then also checks that every declared column exists (only
     * for a named table; a pattern's tables may differ).
     */
    private static VitessSourceConfig declaredColumns(VitessSourceConfig config, Context context) {
        if (config.tables().isEmpty() || !config.tablePatterns().isEmpty()) {
            return config;
        }
        return config.withNativeOption(
                "columns", new java.util.ArrayList<>(DataType.getFieldNames(context.getPhysicalRowDataType())));
    }

    private static BadRecordHandling badRecordHandling(ReadableConfig options, String table) {
        String value = options.get(BAD_RECORD_HANDLING);
        BadRecordHandling handling = BadRecordHandling.fromOptionValue(value);
        if (handling == null) {
            throw invalid(
                    table,
                    "option '" + BAD_RECORD_HANDLING.key() + "' = '" + value + "' is unknown: use fail (stop the "
                            + "job) or skip (leave bad records out, each logged and counted)");
        }
        return handling;
    }

    private static VitessChangelogMode changelogMode(ReadableConfig options, String table, boolean keyed) {
        String value = options.get(CHANGELOG_MODE);
        VitessChangelogMode mode = VitessChangelogMode.parse(value);
        if (mode == null) {
            throw invalid(
                    table,
                    "option '" + CHANGELOG_MODE.key() + "' = '" + value + "' is unknown: use auto "
                            + "(retract where the connector keeps it exact, else upsert), all (retract) or upsert");
        }
        if (mode == VitessChangelogMode.UPSERT && !keyed) {
            throw invalid(
                    table,
                    "sets '" + CHANGELOG_MODE.key() + "' = 'upsert' but declares no primary key: an "
                            + "upsert changelog is keyed. Add PRIMARY KEY (<the table's key columns>) NOT ENFORCED, or use '"
                            + CHANGELOG_MODE.key() + "' = 'auto'");
        }
        return mode;
    }

    private static String address(ReadableConfig options, String table) {
        boolean hasHost = options.getOptional(HOSTNAME).isPresent();
        boolean hasAddress = options.getOptional(VTGATE_ADDRESS).isPresent();
        if (hasHost == hasAddress) {
            throw invalid(
                    table,
                    hasHost
                            ? "sets both '" + HOSTNAME.key() + "' and '" + VTGATE_ADDRESS.key() + "': keep one"
                            : "does not say where VTGate is: set '" + HOSTNAME.key() + "' (and '" + PORT.key()
                                    + "', default 15991, VTGate's gRPC port) or '" + VTGATE_ADDRESS.key()
                                    + "' = 'host:port'");
        }
        if (hasAddress) {
            return options.get(VTGATE_ADDRESS);
        }
        return options.get(HOSTNAME) + ":" + options.get(PORT);
    }

    private static String tabletType(String value, String table) {
        return tabletType(value, table, TABLET_TYPE);
    }

    private static String tabletType(String value, String table, ConfigOption<String> option) {
        String v = value.toLowerCase(Locale.ROOT);
        if (v.equals("master")) {
            v = "primary";
        }
        if (!v.equals("primary") && !v.equals("replica") && !v.equals("rdonly")) {
            throw invalid(
                    table,
                    "option '" + option.key() + "' = '" + value + "' is unknown: use primary, " + "replica or rdonly");
        }
        return v;
    }

    private static AuthMode authMode(String value, String table) {
        try {
            return AuthMode.fromOptionValue(value);
        } catch (IllegalArgumentException e) {
            throw invalid(table, "option '" + AUTH_MODE.key() + "': " + e.getMessage());
        }
    }

    private static void tls(ReadableConfig options, String table, VitessSourceConfig.Builder config) {
        String ca = options.getOptional(TLS_CA_CERT).orElse(null);
        String cert = options.getOptional(TLS_CLIENT_CERT).orElse(null);
        String key = options.getOptional(TLS_CLIENT_KEY).orElse(null);
        String serverName = options.getOptional(TLS_SERVER_NAME).orElse(null);
        if ((cert == null) != (key == null)) {
            throw invalid(
                    table,
                    "mutual TLS needs both '" + TLS_CLIENT_CERT.key() + "' and '" + TLS_CLIENT_KEY.key()
                            + "': set the missing one");
        }
        if (ca != null || cert != null || serverName != null) {
            config.tls(new VitessSourceConfig.TlsConfig(ca, cert, key, serverName));
        }
    }

    private static void startup(ReadableConfig options, String table, VitessSourceConfig.Builder config) {
        String mode = options.get(SCAN_STARTUP_MODE).toLowerCase(Locale.ROOT);
        String offset = options.getOptional(SCAN_STARTUP_SPECIFIC_OFFSET).orElse(null);
        StartupMode startupMode;
        switch (mode) {
            case "initial":
                startupMode = StartupMode.INITIAL;
                break;
            case "latest-offset":
                startupMode = StartupMode.LATEST_OFFSET;
                break;
            case "specific-offset":
                startupMode = StartupMode.SPECIFIC_OFFSETS;
                break;
            case "snapshot":
                startupMode = StartupMode.SNAPSHOT;
                break;
            default:
                throw invalid(
                        table,
                        "option '" + SCAN_STARTUP_MODE.key() + "' = '" + options.get(SCAN_STARTUP_MODE)
                                + "' is unknown: use initial, latest-offset, specific-offset or snapshot");
        }
        if (startupMode == StartupMode.SPECIFIC_OFFSETS) {
            if (offset == null) {
                throw invalid(
                        table,
                        "'" + SCAN_STARTUP_MODE.key() + "' = 'specific-offset' needs '"
                                + SCAN_STARTUP_SPECIFIC_OFFSET.key()
                                + "' with a VGTID, e.g. {\"shard_gtids\":[{\"keyspace\":"
                                + "\"ks\",\"shard\":\"-80\",\"gtid\":\"MySQL56/...\"}]}");
            }
            try {
                // Read by the core, which owns positions; the same check runs again at discovery.
                NativeStream.checkSpecificOffsets(options.get(KEYSPACE), offset);
            } catch (ConfigurationException e) {
                if (ErrorCode.of(e) != ErrorCode.INVALID_POSITION) {
                    throw e;
                }
                throw invalid(table, "option '" + SCAN_STARTUP_SPECIFIC_OFFSET.key() + "': " + e.getMessage());
            }
            config.specificOffsets(offset);
        } else if (offset != null) {
            throw invalid(
                    table,
                    "sets '" + SCAN_STARTUP_SPECIFIC_OFFSET.key() + "' but '" + SCAN_STARTUP_MODE.key() + "' is '"
                            + mode + "': set '" + SCAN_STARTUP_MODE.key() + "' = 'specific-offset' or drop the offset");
        }
        config.startupMode(startupMode);
    }

    /** The chunked snapshot options; the builder checks their ranges. */
    private static void snapshots(ReadableConfig options, String table, VitessSourceConfig.Builder config) {
        options.getOptional(SCAN_INITIAL_SNAPSHOT)
                .ifPresent(v -> config.initialSnapshot(InitialSnapshot.fromOptionValue(v)));
        options.getOptional(SCAN_DESTRUCTIVE_DDL)
                .ifPresent(v -> config.destructiveDdl(DestructiveDdl.fromOptionValue(v)));
        options.getOptional(SCAN_SIGNAL_TABLE).ifPresent(config::signalTable);
        options.getOptional(SCAN_SNAPSHOT_CHUNK_ROWS).ifPresent(config::snapshotChunkRows);
        options.getOptional(SCAN_SNAPSHOT_CHUNK_SIZE).ifPresent(config::snapshotChunkSize);
        options.getOptional(SCAN_SNAPSHOT_CHUNKS_IN_FLIGHT).ifPresent(config::snapshotChunksInFlight);
        options.getOptional(SCAN_SNAPSHOT_LANES).ifPresent(config::snapshotLanes);
        options.getOptional(SCAN_SNAPSHOT_CHUNKS_FROM_TABLETS).ifPresent(config::snapshotChunksFromTablets);
        options.getOptional(SCAN_SNAPSHOT_TABLET_TYPE)
                .ifPresent(t -> config.snapshotTabletType(tabletType(t, table, SCAN_SNAPSHOT_TABLET_TYPE)));
        options.getOptional(SCAN_SNAPSHOT_THROTTLER_VTCTLD).ifPresent(config::snapshotThrottler);
        options.getOptional(SCAN_SNAPSHOT_THROTTLER_APP).ifPresent(config::snapshotThrottlerApp);
    }

    private static int notNegative(int v, String table) {
        if (v < 0) {
            throw invalid(
                    table,
                    "option '" + RETRY_MAX_ATTEMPTS.key() + "' = " + v + " must not be negative: set 0 (fail at the "
                            + "first connection error) or more reconnects");
        }
        return v;
    }

    private static ValidationException invalid(String table, String problem) {
        return new ValidationException("vitess-cdc table " + table + " " + problem + ".");
    }
}
