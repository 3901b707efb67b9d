/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The huge-transaction benchmark's exactly-once count, without a server. */
class IdSetTest {

    @Test
    void countsRepeatsMissingAndForeignIds() {
        IdSet ids = new IdSet(130);
        for (long id : new long[] {1, 64, 65, 128, 130, 64, 130, 0, 131, -5}) {
            ids.add(id);
        }
        assertThat(ids.distinct()).isEqualTo(5);
        assertThat(ids.repeated()).isEqualTo(2);
        assertThat(ids.foreign()).isEqualTo(3);
        assertThat(ids.missing()).isEqualTo(125);
    }

    @Test
    void everyIdOnceIsNothingMissingNothingRepeated() {
        IdSet ids = new IdSet(1000);
        for (long id = 1000; id >= 1; id--) {
            ids.add(id);
        }
        assertThat(ids.missing()).isZero();
        assertThat(ids.repeated()).isZero();
        assertThat(ids.foreign()).isZero();
    }
}
