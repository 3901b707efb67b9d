/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.KeyOrders;
import io.vitesscdc.nativeio.RetryableException;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The decision of option 'changelog-mode' from the key orders, without a server. */
class ChangelogModeResolverTest {

    private static final String EXACT = "{\"tables\":{\"customer\":{\"exact\":true},\"corder\":{\"exact\":true}}}";
    private static final String INEXACT = "{\"tables\":{\"customer\":{\"exact\":true},\"s_varchar\":{\"exact\":false,"
            + "\"column\":\"k\",\"reason\":\"text in collation utf8mb4_0900_ai_ci is ordered by rules the core does "
            + "not reproduce\"}}}";

    private final AtomicInteger lookups = new AtomicInteger();

    private Supplier<KeyOrders> answering(String json) {
        return () -> {
            lookups.incrementAndGet();
            return KeyOrders.parse(json);
        };
    }

    private ChangelogModeResolver resolver(VitessChangelogMode option, boolean keyed, Supplier<KeyOrders> orders) {
        return new ChangelogModeResolver("`c`.`d`.`src`", option, keyed, orders);
    }

    @Test
    void autoIsRetractWhenEveryKeyOrderIsExact() {
        ChangelogModeResolver r = resolver(VitessChangelogMode.AUTO, true, answering(EXACT));
        assertThat(r.changelogMode()).isEqualTo(ChangelogMode.all());
        assertThat(r.upsert()).isFalse();
        assertThat(lookups).as("read once, however often the planner asks").hasValue(1);
    }

    @Test
    void autoIsUpsertWithFullDeletesWhenOneKeyOrderIsNot() {
        ChangelogModeResolver r = resolver(VitessChangelogMode.AUTO, true, answering(INEXACT));
        ChangelogMode mode = r.changelogMode();
        assertThat(mode.contains(RowKind.UPDATE_BEFORE)).isFalse();
        assertThat(mode.contains(RowKind.INSERT)
                        && mode.contains(RowKind.UPDATE_AFTER)
                        && mode.contains(RowKind.DELETE))
                .isTrue();
        assertThat(r.upsert()).isTrue();
        assertThat(lookups).hasValue(1);
    }

    @Test
    void allIsRefusedNamingTheTableColumnCollationAndFix() {
        ChangelogModeResolver r = resolver(VitessChangelogMode.ALL, true, answering(INEXACT));
        assertThatThrownBy(r::changelogMode)
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("`c`.`d`.`src`")
                .hasMessageContaining("'changelog-mode' = 'all'")
                .hasMessageContaining("table 's_varchar', primary-key column 'k'")
                .hasMessageContaining("utf8mb4_0900_ai_ci")
                .hasMessageContaining("utf8mb4_bin")
                .hasMessageContaining("'changelog-mode' = 'auto' or 'upsert'");
    }

    @Test
    void allStaysRetractWhenEveryKeyOrderIsExact() {
        assertThat(resolver(VitessChangelogMode.ALL, true, answering(EXACT)).changelogMode())
                .isEqualTo(ChangelogMode.all());
    }

    @Test
    void aChunkedSnapshotMakesTheTableUpsertWithoutAskingTheServer() {
        Supplier<KeyOrders> unreachable = () -> {
            throw new AssertionError("must not read key orders");
        };
        for (VitessChangelogMode mode :
                new VitessChangelogMode[] {VitessChangelogMode.AUTO, VitessChangelogMode.UPSERT}) {
            ChangelogModeResolver r = new ChangelogModeResolver("`c`.`d`.`src`", mode, true, true, unreachable);
            assertThat(r.changelogMode()).as("%s", mode).isEqualTo(ChangelogModeResolver.UPSERT);
        }
        assertThatThrownBy(() -> new ChangelogModeResolver(
                                "`c`.`d`.`src`", VitessChangelogMode.ALL, true, true, answering(EXACT))
                        .changelogMode())
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'changelog-mode' = 'all'")
                .hasMessageContaining("chunked snapshot")
                .hasMessageContaining("'scan.initial-snapshot' = 'copy'");
        assertThatThrownBy(() -> new ChangelogModeResolver(
                                "`c`.`d`.`src`", VitessChangelogMode.AUTO, false, true, unreachable)
                        .changelogMode())
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("declares no primary key");
    }

    @Test
    void upsertAndUnkeyedTablesNeedNoServer() {
        Supplier<KeyOrders> unreachable = () -> {
            throw new AssertionError("must not read key orders");
        };
        assertThat(resolver(VitessChangelogMode.UPSERT, true, unreachable).changelogMode())
                .isEqualTo(ChangelogModeResolver.UPSERT);
        // Keyless tables allowed and no declared key: no upsert form, the changelog stays as it comes.
        for (VitessChangelogMode mode : new VitessChangelogMode[] {VitessChangelogMode.AUTO, VitessChangelogMode.ALL}) {
            assertThat(new ChangelogModeResolver("`c`.`d`.`src`", mode, false, false, true, unreachable)
                            .changelogMode())
                    .isEqualTo(ChangelogMode.all());
        }
    }

    @Test
    void anUndeclaredKeyIsRetractWhereTheKeyOrderIsExactAndRefusedWhereNot() {
        assertThat(resolver(VitessChangelogMode.AUTO, false, answering(EXACT)).changelogMode())
                .isEqualTo(ChangelogMode.all());
        assertThatThrownBy(() -> resolver(VitessChangelogMode.AUTO, false, answering(INEXACT))
                        .changelogMode())
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("declares no primary key, so it can only be a retract changelog")
                .hasMessageContaining("table 's_varchar', primary-key column 'k'")
                .hasMessageContaining("PRIMARY KEY (<the Vitess table's key columns>) NOT ENFORCED");
    }

    @Test
    void anUnreachableVtgateFailsPlanningWithTheConnectionErrorAndTheWayOut() {
        ChangelogModeResolver r = resolver(VitessChangelogMode.AUTO, true, () -> {
            throw new RetryableException("cannot reach VTGate at 127.0.0.1:1: connection refused");
        });
        assertThatThrownBy(r::changelogMode)
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("`c`.`d`.`src`")
                .hasMessageContaining("cannot reach VTGate at 127.0.0.1:1: connection refused")
                .hasMessageContaining("'changelog-mode' = 'upsert', which needs no VTGate")
                .hasCauseInstanceOf(RetryableException.class);
    }

    @Test
    void optionValuesParseCaseInsensitively() {
        assertThat(VitessChangelogMode.parse(" Upsert ")).isEqualTo(VitessChangelogMode.UPSERT);
        assertThat(VitessChangelogMode.parse("ALL")).isEqualTo(VitessChangelogMode.ALL);
        assertThat(VitessChangelogMode.parse("retract")).isNull();
    }
}
