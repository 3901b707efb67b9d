/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.ErrorCode;
import io.vitesscdc.nativeio.KeyOrders;
import io.vitesscdc.nativeio.VitessCdcException;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.RowKind;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/**
 * Decides, once per planned table, which changelog a {@code vitess-cdc} table declares (docs/architecture.md,
 * invariant 9: a declared retract changelog must be exact in every phase).
 *
 * <p>The native core keeps a retract changelog exact while a copy resumes only for tables whose
 * primary-key order it reproduces ({@link KeyOrders}); for the others a resumed copy may repeat a
 * row or retract one it never sent, which only an upsert changelog tolerates: the planner then
 * adds ChangelogNormalize where a retract stream is needed. The key orders are read from VTGate at
 * planning time, once (copies of the table source share this object).
 */
@Internal
final class ChangelogModeResolver {

    private static final Logger LOG = LoggerFactory.getLogger(ChangelogModeResolver.class);

    /**
     * Upsert with full rows in deletes: the source's {@code -D} carries the whole row (as MySQL's
     * binlog has it), so the planner need not restore it. Flink's {@code ChangelogMode.upsert()}
     * would declare key-only deletes. Built without {@code keyOnlyDeletes}, which Flink 1.20 does
     * not have (its upsert deletes are full rows anyway), so one class serves every Flink line.
     */
    static final ChangelogMode UPSERT = ChangelogMode.newBuilder()
            .addContainedKind(RowKind.INSERT)
            .addContainedKind(RowKind.UPDATE_AFTER)
            .addContainedKind(RowKind.DELETE)
            .build();

    private final String table;
    private final VitessChangelogMode option;
    private final boolean keyed;
    private final Supplier<KeyOrders> keyOrders;
    /** Whether the table reads chunked snapshots, whose rows are upserts (docs/snapshots.md). */
    private final boolean chunkedSnapshots;
    /** 'scan.allow-tables-without-primary-key': the selected Vitess tables may have no key at all. */
    private final boolean keylessTablesAllowed;

    private Boolean upsert;

    /**
     * @param table the Flink table, for messages
     * @param keyed whether the Flink table declares a primary key (an upsert changelog needs one)
     * @param keyOrders reads the key orders of the selected tables from VTGate
     */
    ChangelogModeResolver(String table, VitessChangelogMode option, boolean keyed, Supplier<KeyOrders> keyOrders) {
        this(table, option, keyed, false, false, keyOrders);
    }

    /**
     * @param chunkedSnapshots the table reads chunked snapshots (a chunked initial snapshot): their
     *     rows may be for keys the downstream has, or arrive after the log changed the key, so only
     *     an upsert changelog is exact for them
     */
    ChangelogModeResolver(
            String table,
            VitessChangelogMode option,
            boolean keyed,
            boolean chunkedSnapshots,
            Supplier<KeyOrders> keyOrders) {
        this(table, option, keyed, chunkedSnapshots, false, keyOrders);
    }

    /**
     * @param keylessTablesAllowed the selected Vitess tables may have no primary key
     *     ('scan.allow-tables-without-primary-key'): a table declared without a key is then read as
     *     the changelog it is, without asking VTGate
     */
    ChangelogModeResolver(
            String table,
            VitessChangelogMode option,
            boolean keyed,
            boolean chunkedSnapshots,
            boolean keylessTablesAllowed,
            Supplier<KeyOrders> keyOrders) {
        this.table = table;
        this.option = option;
        this.keyed = keyed;
        this.chunkedSnapshots = chunkedSnapshots;
        this.keylessTablesAllowed = keylessTablesAllowed;
        this.keyOrders = keyOrders;
    }

    VitessChangelogMode option() {
        return option;
    }

    /** {@link ChangelogMode#all()} or {@link #UPSERT}. */
    ChangelogMode changelogMode() {
        return upsert() ? UPSERT : ChangelogMode.all();
    }

    /** Whether the table is read as an upsert changelog (its source then leaves {@code -U} records out). */
    synchronized boolean upsert() {
        if (upsert == null) {
            upsert = decide();
        }
        return upsert;
    }

    private boolean decide() {
        if (option == VitessChangelogMode.UPSERT) {
            LOG.info(
                    "vitess-cdc table {} is read as an upsert changelog (+I +U -D): 'changelog-mode' = 'upsert'",
                    table);
            return true;
        }
        if (chunkedSnapshots) {
            return chunkedNeedsUpsert();
        }
        if (!keyed && keylessTablesAllowed) {
            // Tables that may have no key (scan.allow-tables-without-primary-key): the changelog
            // is not keyed, so there is no upsert form of it and no key order to keep exact.
            return false;
        }
        KeyOrders orders = read();
        if (!keyed && !orders.allExact()) {
            // A Flink table may leave its key undeclared (Flink needs none for a retract
            // changelog), but then there is no upsert form to fall back on.
            KeyOrders.Inexact first = orders.inexact().get(0);
            throw new ValidationException("vitess-cdc table " + table + " declares no primary key, so it can only be "
                    + "a retract changelog, but the connector cannot reproduce MySQL's primary-key order of " + first
                    + ", so a resumed copy could repeat a row or retract one it never sent. Declare the key, PRIMARY "
                    + "KEY (<the Vitess table's key columns>) NOT ENFORCED, so the table can be read as an upsert "
                    + "changelog, or " + fix(first)
                    + (first.column() == null
                            ? " (or set 'scan.allow-tables-without-primary-key' = 'true' to read it unkeyed)"
                            : "")
                    + "." + others(orders));
        }
        if (orders.allExact()) {
            LOG.info(
                    "vitess-cdc table {} is read as a retract changelog (+I -U +U -D): the connector reproduces "
                            + "the primary-key order of every selected table {} exactly",
                    table,
                    orders.tables());
            return false;
        }
        if (option == VitessChangelogMode.ALL) {
            KeyOrders.Inexact first = orders.inexact().get(0);
            throw new ValidationException("vitess-cdc table " + table + " sets 'changelog-mode' = 'all' (a retract "
                    + "changelog), but the connector cannot reproduce MySQL's primary-key order of " + first
                    + ", so a resumed copy could repeat a row or retract one it never sent. Either " + fix(first)
                    + ", or set 'changelog-mode' = 'auto' or 'upsert' (an upsert changelog, which Flink normalizes "
                    + "where a retract stream is needed)." + others(orders));
        }
        for (KeyOrders.Inexact inexact : orders.inexact()) {
            LOG.warn(
                    "vitess-cdc table {} is read as an upsert changelog (+I +U -D; Flink adds ChangelogNormalize "
                            + "where a retract stream is needed): the connector cannot reproduce MySQL's primary-key order "
                            + "of {}, so a resumed copy may repeat a row or retract one it never sent. For a retract "
                            + "changelog, {}; to accept upsert and silence this warning, set 'changelog-mode' = 'upsert'.",
                    table,
                    inexact,
                    fix(inexact));
        }
        return true;
    }

    /**
     * A chunked snapshot is merged into a change log that is already running: the log may update
     * or delete a key before its chunk's row arrives (a {@code -U}/{@code -D} of a row never
     * emitted), and a chunk's row may be for a key the downstream has. Only an upsert changelog
     * states that exactly, so a table that reads chunked snapshots is one.
     */
    private boolean chunkedNeedsUpsert() {
        String why = "a chunked snapshot's rows are upserts merged into a running change log (docs/snapshots.md)";
        if (!keyed) {
            throw new ValidationException("vitess-cdc table " + table + " reads a chunked snapshot but declares no "
                    + "primary key: " + why + ", keyed by the primary key. Declare PRIMARY KEY (...) NOT ENFORCED, "
                    + "or take the in-stream copy ('scan.initial-snapshot' = 'copy').");
        }
        if (option == VitessChangelogMode.ALL) {
            throw new ValidationException("vitess-cdc table " + table + " sets 'changelog-mode' = 'all' (a retract "
                    + "changelog) and reads a chunked snapshot: " + why + ", which a retract changelog cannot "
                    + "carry exactly. Set 'changelog-mode' = 'auto' or 'upsert', or take the in-stream copy "
                    + "('scan.initial-snapshot' = 'copy').");
        }
        LOG.info("vitess-cdc table {} is read as an upsert changelog (+I +U -D): {}", table, why);
        return true;
    }

    private KeyOrders read() {
        try {
            return keyOrders.get();
        } catch (VitessCdcException e) {
            ErrorCode code = ErrorCode.of(e);
            if (code == ErrorCode.UNKNOWN_TABLE
                    || code == ErrorCode.UNKNOWN_COLUMN
                    || code == ErrorCode.UNKNOWN_KEYSPACE) {
                // A mistake in the declaration, found while VTGate was asked anyway: said as it is,
                // at planning, rather than when the job starts.
                throw new ValidationException("vitess-cdc table " + table + ": " + e.getMessage(), e);
            }
            throw new ValidationException(
                    "vitess-cdc table " + table + " cannot decide its changelog mode: "
                            + "'changelog-mode' = '" + option.optionValue()
                            + "' reads the primary keys of the selected "
                            + "tables from VTGate when the statement is planned, and that failed: " + e.getMessage()
                            + ". Fix that, or set 'changelog-mode' = 'upsert', which needs no VTGate at planning time.",
                    e);
        }
    }

    private static String fix(KeyOrders.Inexact inexact) {
        if (inexact.column() == null) {
            return "add a primary key to Vitess table '" + inexact.table() + "'";
        }
        return "give the key column a collation the connector orders exactly (e.g. ALTER TABLE " + inexact.table()
                + " MODIFY " + inexact.column() + " ... COLLATE utf8mb4_bin; also utf8mb4_0900_bin or MySQL's "
                + "default utf8mb4_0900_ai_ci) or an exactly ordered type (integers, DECIMAL, DOUBLE, binary "
                + "strings, temporal types)";
    }

    private static String others(KeyOrders orders) {
        return orders.inexact().size() == 1
                ? ""
                : " Not exact either: "
                        + orders.inexact().subList(1, orders.inexact().size()) + ".";
    }
}
