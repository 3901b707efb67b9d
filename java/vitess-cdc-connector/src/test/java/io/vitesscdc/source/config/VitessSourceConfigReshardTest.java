/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VitessSourceConfigReshardTest {

    private static VitessSourceConfig.Builder base() {
        return VitessSourceConfig.builder().address("127.0.0.1:1").keyspace("ks");
    }

    @Test
    void stopOnReshardIsRefusedBecauseTheSourceFollowsReshardsItself() {
        for (Object value : new Object[] {true, "true"}) {
            assertThatThrownBy(
                            () -> base().nativeOption("stop_on_reshard", value).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("stop_on_reshard")
                    .hasMessageContaining("drop the option");
        }
        assertThat(base().nativeOption("stop_on_reshard", false).build().nativeOptions())
                .containsEntry("stop_on_reshard", false);
    }
}
