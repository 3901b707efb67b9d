/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.types.RowKind;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.apache.flink.types.RowKind.DELETE;
import static org.apache.flink.types.RowKind.INSERT;
import static org.apache.flink.types.RowKind.UPDATE_AFTER;
import static org.apache.flink.types.RowKind.UPDATE_BEFORE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StrictChangelogTest {

    private final StrictChangelog log = new StrictChangelog("test-log");

    /** A row (id, name, balance) keyed by id. */
    private void record(RowKind kind, long id, String name, String shard) {
        log.accept(kind, List.of(id), List.of(id, name, new BigDecimal("1.50")), shard);
    }

    private static List<Object> row(long id, String name) {
        return List.of(id, name, new BigDecimal("1.50"));
    }

    @Test
    void aValidRetractStreamHasNoViolations() {
        record(INSERT, 1, "a", "-80");
        record(INSERT, 2, "b", "80-");
        record(UPDATE_BEFORE, 1, "a", "-80");
        record(UPDATE_AFTER, 1, "a2", "-80");
        record(DELETE, 2, "b", "80-");
        record(INSERT, 2, "b again", "80-"); // a key may come back after its delete
        record(UPDATE_BEFORE, 1, "a2", "-80");
        record(UPDATE_AFTER, 1, "a3", "-80");

        assertThat(log.violations()).isEmpty();
        log.assertValid();
        assertThat(log.records()).isEqualTo(8);
        assertThat(log.liveRows()).isEqualTo(Map.of(List.of(1L), row(1, "a3"), List.of(2L), row(2, "b again")));
    }

    @Test
    void deleteOfAKeyNeverEmittedIsAViolation() {
        record(DELETE, 7, "x", "-80");

        assertThat(log.violations())
                .singleElement()
                .asString()
                .contains("retracts a row that was not emitted")
                .contains("key [7]")
                .contains("-D")
                .contains("live []");
        assertThatThrownBy(log::assertValid).hasMessageContaining("retracts a row that was not emitted");
    }

    @Test
    void retractionMustMatchTheLiveRowInEveryColumn() {
        record(INSERT, 1, "a", "-80");
        log.accept(UPDATE_BEFORE, List.of(1L), List.of(1L, "a", new BigDecimal("9.99")), "-80");
        log.accept(UPDATE_AFTER, List.of(1L), List.of(1L, "b", new BigDecimal("9.99")), "-80");
        log.accept(DELETE, List.of(1L), List.of(1L, "stale", new BigDecimal("9.99")), "-80");

        assertThat(log.violations())
                .hasSize(2)
                .allSatisfy(v -> assertThat(v).contains("retracts a row that was not emitted"));
        // The first names what is live: the row the +I emitted.
        assertThat(log.violations().get(0))
                .contains("live [[1, a, 1.50] from shard -80]")
                .contains("retracted [1, a, 9.99]");
    }

    @Test
    void insertOfAPresentKeyFromTheSameShardIsAViolation() {
        record(INSERT, 1, "a", "-80");
        record(INSERT, 1, "a", "-80"); // e.g. a resumed copy sending a row again

        assertThat(log.violations())
                .singleElement()
                .asString()
                .contains("inserts a key that is present")
                .contains("key [1]")
                .contains("+I");
        assertThatThrownBy(log::assertValid).hasMessageContaining("2 live versions");
    }

    @Test
    void insertNextToAVersionOfUnknownShardIsAViolation() {
        record(INSERT, 1, "a", null);
        record(INSERT, 1, "b", "-80");
        record(INSERT, 2, "a", "-80");
        record(INSERT, 2, "b", null);

        assertThat(log.violations())
                .hasSize(2)
                .allSatisfy(v -> assertThat(v).contains("inserts a key that is present"));
    }

    @Test
    void crossShardMoveWithTheDeleteFirstIsValid() {
        record(INSERT, 1, "a", "-80");
        record(DELETE, 1, "a", "-80");
        record(INSERT, 1, "moved", "80-");

        log.assertValid();
        assertThat(log.liveRows()).isEqualTo(Map.of(List.of(1L), row(1, "moved")));
    }

    @Test
    void crossShardMoveWithTheInsertFirstIsValid() {
        record(INSERT, 1, "a", "-80");
        record(INSERT, 1, "moved", "80-"); // the new shard's +I overtakes the old shard's -D
        record(DELETE, 1, "a", "-80");

        log.assertValid();
        assertThat(log.liveRows()).isEqualTo(Map.of(List.of(1L), row(1, "moved")));
    }

    @Test
    void crossShardMoveWhoseDeleteNeverCameLeavesADuplicate() {
        record(INSERT, 1, "a", "-80");
        record(INSERT, 1, "moved", "80-");

        assertThat(log.violations()).isEmpty(); // in flight: allowed so far ...
        assertThatThrownBy(log::assertValid) // ... but not at the end
                .hasMessageContaining("changelog 'test-log'")
                .hasMessageContaining("2 records")
                .hasMessageContaining("1 violations")
                .hasMessageContaining("2 live versions");
        assertThatThrownBy(log::liveRows).hasMessageContaining("more than one live version");
    }

    @Test
    void reshardTargetRetractsRowsOfTheSourceShard() {
        record(INSERT, 1, "a", "-80");
        record(INSERT, 2, "b", "-80");
        // After the reshard -80 -> -40, 40-80, the new shards retract what -80 emitted.
        record(UPDATE_BEFORE, 1, "a", "-40");
        record(UPDATE_AFTER, 1, "a2", "-40");
        record(DELETE, 2, "b", "-40");

        log.assertValid();
        assertThat(log.liveRows()).isEqualTo(Map.of(List.of(1L), row(1, "a2")));
    }

    @Test
    void updateAfterWithoutUpdateBeforeIsAViolation() {
        record(INSERT, 1, "a", "-80");
        record(UPDATE_AFTER, 1, "b", "-80");

        assertThat(log.violations()).singleElement().asString().contains("+U without a -U");
    }

    @Test
    void updateAfterFromAnotherShardThanItsUpdateBeforeIsAViolation() {
        record(INSERT, 1, "a", "-80");
        record(UPDATE_BEFORE, 1, "a", "-80");
        record(UPDATE_AFTER, 1, "b", "80-");

        assertThat(log.violations())
                .singleElement()
                .asString()
                .contains("+U without a -U")
                .contains("from shard 80-");
        assertThatThrownBy(log::assertValid).hasMessageContaining("has no +U");
    }

    @Test
    void updateBeforeFollowedByAnotherRecordOfItsShardIsAViolation() {
        record(INSERT, 1, "a", "-80");
        record(UPDATE_BEFORE, 1, "a", "-80");
        record(DELETE, 1, "a", "-80");

        assertThat(log.violations()).anySatisfy(v -> assertThat(v).contains("before that -U's +U"));
    }

    @Test
    void updateBeforeOfUnknownShardFollowedByAnyOtherRecordIsAViolation() {
        record(INSERT, 1, "a", null);
        record(UPDATE_BEFORE, 1, "a", null);
        record(INSERT, 1, "c", "80-");

        assertThat(log.violations()).anySatisfy(v -> assertThat(v).contains("before that -U's +U"));
    }

    @Test
    void recordsOfAnotherShardMayComeBetweenUpdateBeforeAndAfter() {
        record(INSERT, 1, "a", "-80");
        // -80 updates the row, then the row moves to 80-; the reader of 80- is faster.
        record(UPDATE_BEFORE, 1, "a", "-80");
        record(INSERT, 1, "moved", "80-");
        record(UPDATE_AFTER, 1, "a2", "-80");
        record(DELETE, 1, "a2", "-80");

        log.assertValid();
        assertThat(log.liveRows()).isEqualTo(Map.of(List.of(1L), row(1, "moved")));
    }

    @Test
    void danglingUpdateBeforeAtTheEndIsAViolation() {
        record(INSERT, 1, "a", "-80");
        record(UPDATE_BEFORE, 1, "a", "-80");

        assertThat(log.violations()).isEmpty();
        assertThatThrownBy(log::assertValid).hasMessageContaining("a -U from shard -80 has no +U");
    }

    @Test
    void byteArraysCompareByContent() {
        log.accept(
                INSERT,
                List.of(new byte[] {1, 2}),
                Arrays.asList(new byte[] {1, 2}, null, new byte[] {(byte) 0xff}),
                "-80");
        log.accept(
                DELETE,
                List.of(new byte[] {1, 2}),
                Arrays.asList(new byte[] {1, 2}, null, new byte[] {(byte) 0xff}),
                "-80");
        log.assertValid();

        log.accept(DELETE, List.of(new byte[] {1, 2}), Arrays.asList(new byte[] {1, 2}, null, new byte[] {0}), "-80");
        assertThat(log.violations())
                .singleElement()
                .asString()
                .contains("key [0x0102]")
                .contains("retracted [0x0102, null, 0x00]");
    }

    @Test
    void violationsAreBoundedButCounted() {
        for (long id = 0; id < 150; id++) {
            record(DELETE, id, "never", "-80");
        }

        List<String> violations = log.violations();
        assertThat(violations).hasSize(101);
        assertThat(violations.get(100)).isEqualTo("... 50 more, 150 violations in all");
        assertThatThrownBy(log::assertValid)
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("changelog 'test-log' is not a strict changelog: 150 records, 150 violations "
                        + "(first 20 shown):")
                .hasMessageContaining("key [19]:")
                .hasMessageNotContaining("key [20]:");
    }

    @Test
    void violationsShowTheKeysEarlierRecords() {
        record(INSERT, 1, "a", "-80");
        record(UPDATE_BEFORE, 1, "a", "-80");
        record(UPDATE_AFTER, 1, "b", "-80");
        record(INSERT, 1, "c", "-80");

        assertThat(log.violations())
                .singleElement()
                .asString()
                .contains("#4 +I [1, c, 1.50] from shard -80 inserts a key that is present")
                .contains("earlier records of the key #1 +I [1, a, 1.50] from shard -80, #2 -U");
    }
}
