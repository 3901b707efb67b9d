/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * One link of a Rust error's cause chain ({@code std::error::Error::source}), rebuilt on the Java
 * side so stack traces show every cause as a {@code Caused by:} line. Carries no Java stack of
 * its own: the frames would only show the JNI call site, which the outer exception already has.
 */
public final class NativeCause extends Exception {

    private static final long serialVersionUID = 1L;

    public NativeCause(String message, Throwable cause) {
        super(message, cause, false, false);
    }
}
