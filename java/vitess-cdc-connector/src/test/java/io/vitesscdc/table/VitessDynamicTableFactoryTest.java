/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.StartupMode;
import io.vitesscdc.source.config.VitessSourceConfig;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.factories.FactoryUtil;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Planning-time validation: no server needed, every mistake names the option and the fix. */
class VitessDynamicTableFactoryTest {

    private static final String COLUMNS = "(id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)";
    private static final String BASE = "'connector' = 'vitess-cdc', 'keyspace' = 'ks', 'table-name' = 't'";

    /** Plans {@code SELECT *} over a table with the given columns and options. */
    private static String plan(String columns, String options) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.executeSql("CREATE TABLE src " + columns + " WITH (" + options + ")");
        return tEnv.explainSql("SELECT * FROM src", ExplainDetail.CHANGELOG_MODE);
    }

    private static void assertInvalid(String columns, String options, String... needles) {
        assertThatThrownBy(() -> plan(columns, options)).satisfies(e -> {
            StringBuilder all = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                all.append(t.getMessage()).append('\n');
            }
            for (String needle : needles) {
                assertThat(all.toString()).contains(needle);
            }
        });
    }

    @Test
    void batchModeIsRefusedAtPlanningWithTheStreamingWayToABoundedRead() {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tEnv.executeSql("CREATE TABLE src " + COLUMNS + " WITH (" + BASE
                + ", 'hostname' = 'h', 'changelog-mode' = 'upsert', 'scan.startup.mode' = 'snapshot')");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM src"))
                .isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(rootMessages(e))
                        .contains("cannot be read in batch mode")
                        .contains("'execution.runtime-mode' = 'streaming'")
                        .contains("'scan.startup.mode' = 'snapshot'"));
    }

    @Test
    void aLookupJoinIsRefusedAtPlanningPointingToTheJdbcRecipe() {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.executeSql("CREATE TABLE src " + COLUMNS + " WITH (" + BASE + ", 'hostname' = 'h', "
                + "'changelog-mode' = 'upsert')");
        tEnv.executeSql("CREATE TABLE probe (id BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen')");
        assertThatThrownBy(() -> tEnv.explainSql(
                        "SELECT p.id, s.name FROM probe p JOIN src FOR SYSTEM_TIME AS OF p.pt AS s ON p.id = s.id"))
                .satisfies(e -> assertThat(rootMessages(e))
                        .contains("does not serve lookups")
                        .contains("JDBC connector")
                        .contains("docs/sql-connector.md")
                        .contains("event-time temporal join"));
    }

    private static String rootMessages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }

    @Test
    void validTablePlansAsAnUpsertChangelogSourceWithoutAServer() {
        // 'upsert' reads nothing from VTGate at planning ('auto' and 'all' do: ChangelogModeResolverTest).
        String plan = plan(COLUMNS, BASE + ", 'hostname' = 'vtgate', 'port' = '15999', 'changelog-mode' = 'upsert'");
        assertThat(plan)
                .contains("TableSourceScan(table=[[default_catalog, default_database, src]]")
                .contains("changelogMode=[I,UA,D]");
    }

    @Test
    void aChunkedInitialSnapshotPlansAsUpsertWithoutAServerAndItsMistakesAreNamed() {
        // 'auto' would read the key orders from VTGate; a chunked snapshot is upsert without asking.
        String plan = plan(COLUMNS, BASE + ", 'vtgate.address' = '127.0.0.1:1', 'scan.initial-snapshot' = 'chunked'");
        assertThat(plan).contains("changelogMode=[I,UA,D]");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.initial-snapshot' = 'chunked', 'changelog-mode' = 'all'",
                "'changelog-mode' = 'all'",
                "chunked snapshot");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.initial-snapshot' = 'lazy'",
                "unknown initial snapshot 'lazy'",
                "'copy'",
                "'chunked'");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.initial-snapshot' = 'chunked', 'scan.startup.mode' = 'snapshot'",
                "bounded startup mode SNAPSHOT");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.snapshot.chunks-in-flight' = '0'",
                "snapshotChunksInFlight must be at least 1");
        assertInvalid(
                COLUMNS, BASE + ", 'hostname' = 'h', 'scan.snapshot.lanes' = '0'", "snapshotLanes must be at least 1");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.snapshot.chunks-from-tablets.vtctld-address' = ' '",
                "snapshotChunksFromTablets needs vtctld's gRPC address");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.snapshot.tablet-type' = 'leader'",
                "'scan.snapshot.tablet-type' = 'leader' is unknown");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.snapshot.throttler.app-name' = 'cdc'",
                "without snapshotThrottler");
        String throttled = plan(
                COLUMNS,
                BASE + ", 'vtgate.address' = '127.0.0.1:1', 'scan.initial-snapshot' = 'chunked', "
                        + "'scan.snapshot.throttler.vtctld-address' = '127.0.0.1:15999', "
                        + "'scan.snapshot.throttler.app-name' = 'cdc'");
        assertThat(throttled).contains("changelogMode=[I,UA,D]");
    }

    @Test
    void changelogModeMistakes() {
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'changelog-mode' = 'retract'",
                "'changelog-mode' = 'retract' is unknown",
                "auto",
                "all",
                "upsert");
        assertInvalid(
                "(id BIGINT)",
                BASE + ", 'hostname' = 'h', 'scan.allow-tables-without-primary-key' = 'true', "
                        + "'changelog-mode' = 'upsert'",
                "'changelog-mode' = 'upsert' but declares no primary key",
                "PRIMARY KEY");
    }

    @Test
    void autoAndAllNeedVtgateAtPlanningAndSayHowToDoWithout() {
        for (String mode : new String[] {"auto", "all"}) {
            assertInvalid(
                    COLUMNS,
                    BASE + ", 'vtgate.address' = '127.0.0.1:1', 'connect.timeout' = '2 s', " + "'changelog-mode' = '"
                            + mode + "'",
                    "cannot decide its changelog mode",
                    "127.0.0.1:1",
                    "connection refused",
                    "'changelog-mode' = 'upsert'");
        }
    }

    @Test
    void missingAddressNamesBothWays() {
        assertInvalid(COLUMNS, BASE, "does not say where VTGate is", "'hostname'", "'vtgate.address'");
    }

    @Test
    void severalKeyspacesInOneTableAreRefusedWithTheWayToReadThem() {
        assertInvalid(
                COLUMNS,
                "'connector' = 'vitess-cdc', 'keyspace' = 'customer,commerce', 'table-name' = 'customer',"
                        + " 'hostname' = 'h'",
                "names several keyspaces",
                "a table per keyspace");
    }

    @Test
    void bothAddressesAreRefused() {
        assertInvalid(COLUMNS, BASE + ", 'hostname' = 'h', 'vtgate.address' = 'h:1'", "keep one");
    }

    @Test
    void anUndeclaredKeyIsDecidedFromTheVitessTablesKeyOrder() {
        // Flink needs no declared key for a retract changelog: the planner asks VTGate whether the
        // core keeps the table's key order exact (the query-shape suite runs it against Vitess).
        assertInvalid(
                "(id BIGINT)",
                BASE + ", 'vtgate.address' = '127.0.0.1:1', 'connect.timeout' = '2 s'",
                "cannot decide its changelog mode",
                "127.0.0.1:1");
        assertThat(plan("(id BIGINT)", BASE + ", 'hostname' = 'h', 'scan.allow-tables-without-primary-key' = 'true'"))
                .as("no declared key: retract as it comes, without asking VTGate")
                .contains("TableSourceScan")
                .contains("changelogMode=[I,UB,UA,D]");
    }

    @Test
    void startupModeMistakes() {
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.startup.mode' = 'earliest'",
                "'scan.startup.mode' = 'earliest' is unknown",
                "latest-offset");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.startup.mode' = 'specific-offset'",
                "needs 'scan.startup.specific-offset'");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.startup.mode' = 'specific-offset', "
                        + "'scan.startup.specific-offset' = '{broken'",
                "not valid JSON");
        assertInvalid(
                COLUMNS,
                BASE + ", 'hostname' = 'h', 'scan.startup.specific-offset' = '[]'",
                "set 'scan.startup.mode' = 'specific-offset'");
    }

    @Test
    void otherMistakes() {
        assertInvalid(
                COLUMNS,
                "'connector' = 'vitess-cdc', 'keyspace' = 'ks', 'table-name' = 'cust[', " + "'hostname' = 'h'",
                "nor a valid regular expression");
        assertInvalid(COLUMNS, BASE + ", 'hostname' = 'h', 'tablet-type' = 'leader'", "primary, replica or rdonly");
        assertInvalid(COLUMNS, BASE + ", 'hostname' = 'h', 'tls.client-cert' = '/c.pem'", "'tls.client-key'");
        assertInvalid(COLUMNS, BASE + ", 'hostname' = 'h', 'heartbeat.interval' = '1500 ms'", "whole seconds");
        assertInvalid(COLUMNS, BASE + ", 'hostname' = 'h', 'no-such-option' = 'x'", "no-such-option");
        assertInvalid(COLUMNS, BASE + ", 'hostname' = 'h', 'auth-mode' = 'bearer'", "use 'static'");
        assertInvalid(COLUMNS, "'connector' = 'vitess-cdc', 'hostname' = 'h', 'table-name' = 't'", "keyspace");
    }

    @Test
    void optionsReachTheNativeOptions() {
        Map<String, String> options = new HashMap<>();
        options.put("connector", "vitess-cdc");
        options.put("keyspace", "ks");
        options.put("table-name", "order_.*");
        options.put("vtgate.address", "gate:1");
        options.put("tablet-type", "REPLICA");
        options.put("scan.startup.mode", "snapshot");
        options.put("username", "u");
        options.put("password", "p");
        options.put("auth-mode", "BASIC");
        options.put("shards", "-80;80-");
        options.put("tls.ca-cert", "/ca.pem");
        options.put("buffer.size", "8mb");
        options.put("heartbeat.interval", "2 s");
        options.put("retry.max-attempts", "3");
        options.put("changelog-mode", "UPSERT");
        ResolvedSchema schema = new ResolvedSchema(
                List.of(
                        Column.physical("id", DataTypes.BIGINT().notNull()),
                        Column.physical("name", DataTypes.STRING())),
                List.of(),
                UniqueConstraint.primaryKey("pk", List.of("id")));
        CatalogTable table = CatalogTable.newBuilder()
                .schema(Schema.newBuilder().fromResolvedSchema(schema).build())
                .options(options)
                .build();
        VitessDynamicTableSource source = (VitessDynamicTableSource) FactoryUtil.createDynamicTableSource(
                null,
                ObjectIdentifier.of("c", "d", "src"),
                new ResolvedCatalogTable(table, schema),
                Map.of(),
                new Configuration(),
                getClass().getClassLoader(),
                false);
        VitessSourceConfig config = source.config();
        assertThat(config.startupMode()).isEqualTo(StartupMode.SNAPSHOT);
        assertThat(config.shards()).containsExactly("-80", "80-");
        String json = config.toNativeOptionsJson(config.shards(), "initial");
        assertThat(json)
                .contains("\"address\":\"gate:1\"")
                .contains("\"table_patterns\":[\"order_.*\"]")
                .contains("\"tablet_type\":\"replica\"")
                .contains("\"username\":\"u\"")
                .contains("\"auth_mode\":\"basic\"")
                .contains("\"tls\":{\"ca_cert_path\":\"/ca.pem\"}")
                .contains("\"buffer_bytes\":8388608")
                .contains("\"heartbeat_interval_secs\":2")
                .contains("\"retry_max_attempts\":3");
        assertThat(source.getChangelogMode()).isEqualTo(ChangelogModeResolver.UPSERT);
        assertThat(source.copy()).as("copies keep the mode").isEqualTo(source);
        assertThat(source.listReadableMetadata())
                .containsOnlyKeys(
                        "keyspace",
                        "shard",
                        "table_name",
                        "op_ts",
                        "row_kind",
                        "position",
                        "is_snapshot",
                        "epoch",
                        "rank");
    }
}
