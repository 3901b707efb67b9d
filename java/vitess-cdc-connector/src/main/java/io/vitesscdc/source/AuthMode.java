/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * How the credentials ({@code username}, {@code password}) travel to VTGate with every call
 * (docs/tls.md, "Authentication" and "PlanetScale").
 */
@PublicEvolving
public enum AuthMode {
    /** Vitess's static auth ({@code --grpc_auth_mode static}): {@code username} and {@code password} metadata; the default. */
    STATIC,
    /** HTTP Basic ({@code authorization: Basic …}), as PlanetScale's VTGates take it; needs TLS. */
    BASIC;

    /** The value of the SQL option {@code auth-mode} and the native option {@code auth_mode}. */
    public String optionValue() {
        return OptionValues.of(this);
    }

    /** The mode of an option value, case-insensitively. */
    public static AuthMode fromOptionValue(String value) {
        AuthMode found = OptionValues.find(AuthMode.class, value);
        if (found != null) {
            return found;
        }
        throw new IllegalArgumentException("unknown auth mode '" + value
                + "': use 'static' (Vitess's static auth) or 'basic' (HTTP Basic, as PlanetScale takes it)");
    }
}
