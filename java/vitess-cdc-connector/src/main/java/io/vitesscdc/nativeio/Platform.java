/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.util.Locale;

/**
 * The {@code <os>-<arch>} string that names a directory of bundled native libraries, e.g.
 * {@code linux-x86_64}.
 *
 * <p>The JVM reports the same machine under several names ({@code amd64} and {@code x86_64},
 * {@code Mac OS X} and {@code Darwin}); normalizing here keeps one directory per platform in the
 * jar. The Maven build computes the same string when it bundles the library
 * ({@code native.platform} in the connector's pom), so both sides must change together.
 */
public final class Platform {

    private Platform() {}

    /** The platform of the running JVM. */
    public static String current() {
        return of(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
    }

    /** The platform string for the given {@code os.name} and {@code os.arch} values. */
    public static String of(String osName, String osArch) {
        return normalizeOs(osName) + "-" + normalizeArch(osArch);
    }

    /** {@code linux}, {@code macos}, {@code windows}, or the lower-cased name with spaces removed. */
    public static String normalizeOs(String osName) {
        String os = osName.toLowerCase(Locale.ROOT).replaceAll("\\s+", "");
        if (os.startsWith("linux")) {
            return "linux";
        }
        if (os.startsWith("macosx") || os.startsWith("mac") || os.startsWith("darwin") || os.startsWith("osx")) {
            return "macos";
        }
        if (os.startsWith("windows")) {
            return "windows";
        }
        return os.isEmpty() ? "unknown" : os;
    }

    /** {@code x86_64}, {@code aarch64}, or the lower-cased name as given. */
    public static String normalizeArch(String osArch) {
        String arch = osArch.toLowerCase(Locale.ROOT).trim();
        switch (arch) {
            case "amd64":
            case "x86_64":
            case "x86-64":
            case "x64":
            case "em64t":
                return "x86_64";
            case "aarch64":
            case "arm64":
                return "aarch64";
            default:
                return arch.isEmpty() ? "unknown" : arch;
        }
    }
}
