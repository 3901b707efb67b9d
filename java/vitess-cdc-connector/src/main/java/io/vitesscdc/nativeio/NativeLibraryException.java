/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

/**
 * The native library could not be loaded: the platform is not one the jar carries a library for,
 * or extracting or linking the bundled library failed. The message says which platform was
 * detected, which ones the jar carries, and what each load attempt reported.
 */
public class NativeLibraryException extends FatalException {

    private static final long serialVersionUID = 1L;

    public NativeLibraryException(String message) {
        super(message);
    }

    public NativeLibraryException(String message, Throwable cause) {
        super(message, cause);
    }
}
