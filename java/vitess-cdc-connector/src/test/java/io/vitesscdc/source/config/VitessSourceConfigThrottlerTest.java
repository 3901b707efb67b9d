/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VitessSourceConfigThrottlerTest {

    private static VitessSourceConfig.Builder base() {
        return VitessSourceConfig.builder().address("127.0.0.1:1").keyspace("ks");
    }

    @Test
    void theThrottlerCheckTravelsToTheCoreAsItsTwoOptions() {
        VitessSourceConfig config = base().snapshotThrottler(" vtctld:15999 ")
                .snapshotThrottlerApp("cdc-orders")
                .build();
        assertThat(config.nativeOptions())
                .containsEntry("throttler_vtctld", "vtctld:15999")
                .containsEntry("throttler_app", "cdc-orders");
        assertThat(config.toNativeOptionsJson(java.util.List.of("-80"), "latest"))
                .contains("\"throttler_vtctld\":\"vtctld:15999\"")
                .contains("\"throttler_app\":\"cdc-orders\"");
        assertThat(base().build().nativeOptions()).doesNotContainKey("throttler_vtctld");
    }

    @Test
    void anAppWithoutVtctldOrABlankAddressIsRefusedWithTheFix() {
        assertThatThrownBy(() -> base().snapshotThrottlerApp("cdc").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("without snapshotThrottler")
                .hasMessageContaining("host:port");
        assertThatThrownBy(() -> base().snapshotThrottler(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vtctld's gRPC address");
    }
}
