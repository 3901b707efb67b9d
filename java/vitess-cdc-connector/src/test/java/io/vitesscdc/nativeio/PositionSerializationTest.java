/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Positions travel Java-serialized in source events (a reshard journal, an ended split's last mark). */
class PositionSerializationTest {

    @Test
    void aDeserializedPositionAsksTheCoreForItsFactsInsteadOfTakingZeroForThem() throws Exception {
        Position copied = Position.fromSavedJson(
                "ks", "-80", "{\"gtid\":\"MySQL56/00000000-0000-0000-0000-000000000001:1-7\",\"copy_completed\":true}");
        assertThat(copied.copyCompleted()).isTrue();
        assertThat(copied.transactionCount()).isEqualTo(7);

        Position back = InstantiationUtil.clone(
                Position.fromSavedJson(
                        "ks",
                        "-80",
                        "{\"gtid\":\"MySQL56/00000000-0000-0000-0000-000000000001:1-7\",\"copy_completed\":true}"),
                getClass().getClassLoader());
        assertThat(back).isEqualTo(copied);
        assertThat(back.copyCompleted()).as("the copy fact, after a round trip").isTrue();
        assertThat(back.transactionCount())
                .as("the transaction count, after a round trip")
                .isEqualTo(7);
    }
}
