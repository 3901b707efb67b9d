/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testframe;

import org.apache.flink.connector.testframe.external.ExternalContextFactory;

/** A fresh {@link VitessSourceExternalContext} (its own table) for every test case of the suite. */
public final class VitessSourceExternalContextFactory implements ExternalContextFactory<VitessSourceExternalContext> {

    @Override
    public VitessSourceExternalContext createExternalContext(String testName) {
        return new VitessSourceExternalContext(testName);
    }
}
