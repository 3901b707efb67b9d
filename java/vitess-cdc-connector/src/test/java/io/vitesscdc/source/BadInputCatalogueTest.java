/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;
import io.vitesscdc.source.enumerator.VitessEnumeratorState;
import io.vitesscdc.source.enumerator.VitessEnumeratorStateSerializer;
import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.split.VitessSplitSerializer;

import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Java part of the bad-input catalogue (docs/reliability.md, "Bad-input catalogue"), no
 * server needed: SQL options, builder options and checkpoint state a user can hand the source.
 * Each case must fail with a message naming the cause and the fix (the fragments listed), the JVM
 * goes on (the next case runs in it), and nothing is left that a restore would trust: a table
 * that does not plan has no job and no state; state that does not read is refused whole, with an
 * exception Flink classifies as non-recoverable (a restart would read the same bytes).
 */
class BadInputCatalogueTest {

    private static final String COLUMNS = "(id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED)";
    private static final String BASE = "'connector' = 'vitess-cdc', 'keyspace' = 'ks', 'table-name' = 't', "
            + "'hostname' = 'h', 'changelog-mode' = 'upsert'";

    /** Plans {@code SELECT *} over a vitess-cdc table with the given columns and options. */
    private static void plan(String columns, String options) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.executeSql("CREATE TABLE src " + columns + " WITH (" + options + ")");
        tEnv.explainSql("SELECT * FROM src");
    }

    private static Arguments sql(String name, String extra, String... says) {
        return table(name, COLUMNS, BASE + extra, says);
    }

    private static Arguments table(String name, String columns, String options, String... says) {
        return Arguments.of(name, (ThrowingCallable) () -> plan(columns, options), List.of(says), false);
    }

    private static Arguments builder(String name, ThrowingCallable build, String... says) {
        return Arguments.of(name, build, List.of(says), false);
    }

    private static Arguments state(String name, ThrowingCallable restore, String... says) {
        return Arguments.of(name, restore, List.of(says), true);
    }

    static Stream<Arguments> catalogue() {
        return Stream.of(
                // SQL options, checked when the statement is planned.
                sql("unknown option", ", 'scan.startup.mod' = 'initial'", "scan.startup.mod", "Supported options"),
                sql("option of the wrong type (port)", ", 'port' = 'fifteen'", "port", "fifteen"),
                sql("duration of the wrong type", ", 'connect.timeout' = 'soon'", "connect.timeout", "soon"),
                sql(
                        "out of range: negative retry attempts",
                        ", 'retry.max-attempts' = '-1'",
                        "'retry.max-attempts' = -1 must not be negative",
                        "set 0"),
                sql("out of range: zero buffer", ", 'buffer.size' = '0'", "'buffer.size') must be at least 1 MiB"),
                sql(
                        "out of range: tiny gRPC message limit",
                        ", 'grpc.max-message-size' = '100b'",
                        "'grpc.max-message-size') must be at least 4 MiB",
                        "--grpc-max-message-size"),
                sql(
                        "contradictory: first backoff beyond the longest",
                        ", 'retry.initial-backoff' = '20 s', 'retry.max-backoff' = '1 s'",
                        "must not exceed retry_max_backoff",
                        "lower the first or raise the second"),
                sql(
                        "contradictory: idle timeout shorter than the heartbeat",
                        ", 'heartbeat.interval' = '30 s', 'stream.idle-timeout' = '10 s'",
                        "must be longer than the heartbeat interval",
                        "raise it or shorten the heartbeat"),
                sql("out of range: negative backoff", ", 'retry.initial-backoff' = '-1 s'", "retry.initial-backoff"),
                sql(
                        "out of range: heartbeat not in whole seconds",
                        ", 'heartbeat.interval' = '1500 ms'",
                        "whole seconds"),
                sql(
                        "unknown startup mode",
                        ", 'scan.startup.mode' = 'earliest'",
                        "'earliest' is unknown",
                        "latest-offset"),
                sql("unknown tablet type", ", 'tablet-type' = 'leader'", "'leader'", "primary, replica or rdonly"),
                sql("unknown changelog mode", ", 'changelog-mode' = 'retract'", "'retract' is unknown", "upsert"),
                sql("contradictory: hostname and vtgate.address", ", 'vtgate.address' = 'h:1'", "keep one"),
                sql(
                        "contradictory: offsets without specific-offset mode",
                        ", 'scan.startup.specific-offset' = '{}'",
                        "set 'scan.startup.mode' = 'specific-offset'"),
                sql(
                        "contradictory: specific-offset mode without offsets",
                        ", 'scan.startup.mode' = 'specific-offset'",
                        "needs 'scan.startup.specific-offset'"),
                sql("contradictory: half of mutual TLS", ", 'tls.client-cert' = '/c.pem'", "'tls.client-key'"),
                sql(
                        "malformed offsets: not JSON",
                        ", 'scan.startup.mode' = 'specific-offset', 'scan.startup.specific-offset' = '{broken'",
                        "not valid JSON",
                        "shard_gtids"),
                sql(
                        "malformed offsets: another keyspace",
                        ", 'scan.startup.mode' = 'specific-offset', 'scan.startup.specific-offset' = "
                                + "'{\"shard_gtids\":[{\"keyspace\":\"other\",\"shard\":\"-80\",\"gtid\":\"current\"}]}'",
                        "'other'",
                        "drop that entry or fix the keyspace"),
                table(
                        "invalid table-name regex",
                        COLUMNS,
                        "'connector' = 'vitess-cdc', 'keyspace' = 'ks', 'table-name' = 'cust[', 'hostname' = 'h'",
                        "cust[",
                        "nor a valid regular expression"),
                table(
                        "missing keyspace",
                        COLUMNS,
                        "'connector' = 'vitess-cdc', 'hostname' = 'h', 'table-name' = 't'",
                        "keyspace"),
                table(
                        "missing VTGate address",
                        COLUMNS,
                        "'connector' = 'vitess-cdc', 'keyspace' = 'ks', 'table-name' = 't'",
                        "does not say where VTGate is",
                        "'vtgate.address'"),
                table(
                        "upsert table without a declared primary key",
                        "(id BIGINT)",
                        BASE,
                        "'changelog-mode' = 'upsert' but declares no primary key",
                        "PRIMARY KEY"),
                sql(
                        "unknown bad-record handling",
                        ", 'scan.bad-record.handling' = 'ignore'",
                        "'scan.bad-record.handling' = 'ignore' is unknown",
                        "fail",
                        "skip"),
                table(
                        "declared type the connector cannot produce",
                        "(id BIGINT, m MAP<STRING, STRING>, PRIMARY KEY (id) NOT ENFORCED)",
                        BASE,
                        "'m'",
                        "type mapping in docs/sql-connector.md"),
                // The DataStream builder.
                builder(
                        "builder without address",
                        () -> VitessSource.<String>builder()
                                .keyspace("ks")
                                .deserializer(new JsonDebeziumDeserializationSchema())
                                .build(),
                        "VTGate gRPC address is not set",
                        "call address("),
                builder(
                        "builder without deserializer",
                        () -> VitessSource.<String>builder()
                                .address("h:1")
                                .keyspace("ks")
                                .build(),
                        "no deserializer",
                        "call deserializer("),
                builder(
                        "builder: negative connect timeout",
                        () -> VitessSource.<String>builder().connectTimeout(Duration.ofSeconds(-1)),
                        "connectTimeout must not be negative",
                        "pass zero or a positive duration"),
                builder(
                        "builder: SPECIFIC_OFFSETS without offsets",
                        () -> VitessSource.<String>builder()
                                .address("h:1")
                                .keyspace("ks")
                                .startupMode(StartupMode.SPECIFIC_OFFSETS)
                                .deserializer(new JsonDebeziumDeserializationSchema())
                                .build(),
                        "SPECIFIC_OFFSETS needs the positions",
                        "call specificOffsets("),
                builder(
                        "builder: idle timeout shorter than the heartbeat",
                        () -> VitessSource.<String>builder()
                                .address("h:1")
                                .keyspace("ks")
                                .heartbeatInterval(Duration.ofSeconds(30))
                                .idleTimeout(Duration.ofSeconds(10))
                                .deserializer(new JsonDebeziumDeserializationSchema())
                                .build(),
                        "must be longer than the heartbeat interval",
                        "raise it or shorten the heartbeat"),
                // Checkpoint and savepoint state.
                state(
                        "split state: truncated",
                        () -> SPLITS.deserialize(SPLITS.getVersion(), half(SPLITS.serialize(SPLIT))),
                        "cannot restore Vitess split state",
                        "start the job without restoring state"),
                state(
                        "split state: random bytes",
                        () -> SPLITS.deserialize(SPLITS.getVersion(), random(64)),
                        "cannot restore Vitess split state",
                        "start the job without restoring state"),
                state(
                        "split state: written by a newer connector",
                        () -> SPLITS.deserialize(SPLITS.getVersion() + 1, SPLITS.serialize(SPLIT)),
                        "format version " + (VitessSplitSerializer.CURRENT_VERSION + 1),
                        "run that connector version or newer"),
                state(
                        "split state: foreign bytes (an enumerator state)",
                        () -> SPLITS.deserialize(SPLITS.getVersion(), ENUMERATOR.serialize(STATE)),
                        "cannot restore Vitess split state",
                        "not written by the vitess-cdc source"),
                state(
                        "split state: corrupt position bytes",
                        () -> SPLITS.deserialize(SPLITS.getVersion(), corruptPosition()),
                        "cannot restore Vitess split state",
                        "position"),
                state(
                        "enumerator state: truncated",
                        () -> ENUMERATOR.deserialize(ENUMERATOR.getVersion(), half(ENUMERATOR.serialize(STATE))),
                        "cannot restore Vitess",
                        "start the job without restoring state"),
                state(
                        "enumerator state: random bytes",
                        () -> ENUMERATOR.deserialize(ENUMERATOR.getVersion(), random(256)),
                        "cannot restore Vitess enumerator state",
                        "start the job without restoring state"),
                state(
                        "enumerator state: written by a newer connector",
                        () -> ENUMERATOR.deserialize(99, ENUMERATOR.serialize(STATE)),
                        "format version 99",
                        "run that connector version or newer"),
                state(
                        "enumerator state: foreign bytes (a split)",
                        () -> ENUMERATOR.deserialize(ENUMERATOR.getVersion(), SPLITS.serialize(SPLIT)),
                        "cannot restore Vitess enumerator state",
                        "not written by the vitess-cdc source"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogue")
    void badInputFailsNamingTheCauseAndTheFix(
            String name, ThrowingCallable action, List<String> says, boolean nonRecoverable) {
        assertThatThrownBy(action).as(name).satisfies(e -> {
            String m = messages(e);
            System.out.println(
                    "CATALOGUE " + name + " -> " + m.replace('\n', ' ').trim());
            for (String fragment : says) {
                assertThat(m).as(name).contains(fragment);
            }
            if (nonRecoverable) {
                assertThat(e).isInstanceOf(IOException.class);
                assertThat(ThrowableClassifier.findThrowableOfThrowableType(e, ThrowableType.NonRecoverableError))
                        .as("%s: Flink must not restart on state it cannot read", name)
                        .isPresent();
            }
        });
    }

    private static final VitessSplitSerializer SPLITS = new VitessSplitSerializer();
    private static final VitessEnumeratorStateSerializer ENUMERATOR = new VitessEnumeratorStateSerializer();
    private static final VitessSplit SPLIT = new VitessSplit(
            "customer",
            "-80",
            Position.fromSavedJson(
                    "customer", "-80", "{\"gtid\":\"MySQL56/00000000-0000-0000-0000-000000000001:1-5\"}"),
            3);
    private static final VitessEnumeratorState STATE = new VitessEnumeratorState(true, Set.of(), List.of(SPLIT));

    private static byte[] half(byte[] bytes) {
        return Arrays.copyOf(bytes, bytes.length / 2);
    }

    private static byte[] random(int n) {
        byte[] bytes = new byte[n];
        new Random(12).nextBytes(bytes);
        return bytes;
    }

    /** A current-version split whose position bytes are garbage of the right length. */
    private static byte[] corruptPosition() throws IOException {
        byte[] good = SPLITS.serialize(SPLIT);
        byte[] position = SPLIT.position().toBytes();
        byte[] bad = good.clone();
        for (int i = 0; i + position.length <= good.length; i++) {
            if (Arrays.equals(Arrays.copyOfRange(good, i, i + position.length), position)) {
                Arrays.fill(bad, i, i + position.length, (byte) 0x7f);
                return bad;
            }
        }
        throw new AssertionError("the position bytes are not in the serialized split");
    }

    private static String messages(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t.getMessage()).append('\n');
        }
        return sb.toString();
    }
}
