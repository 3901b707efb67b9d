/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class PlatformTest {

    @ParameterizedTest
    @CsvSource({
        "Linux, amd64, linux-x86_64",
        "Linux, x86_64, linux-x86_64",
        "Linux, aarch64, linux-aarch64",
        "Mac OS X, x86_64, macos-x86_64",
        "Mac OS X, aarch64, macos-aarch64",
        "Darwin, arm64, macos-aarch64",
        "Windows 11, amd64, windows-x86_64",
        "Windows Server 2022, AMD64, windows-x86_64",
        "FreeBSD, amd64, freebsd-x86_64",
        "SunOS, sparcv9, sunos-sparcv9",
        "Linux, riscv64, linux-riscv64",
    })
    void normalizesOsAndArch(String osName, String osArch, String expected) {
        assertThat(Platform.of(osName, osArch)).isEqualTo(expected);
    }

    @Test
    void emptyValuesBecomeUnknown() {
        assertThat(Platform.of("", "")).isEqualTo("unknown-unknown");
    }

    @Test
    void currentMatchesTheRunningJvm() {
        assertThat(Platform.current())
                .isEqualTo(Platform.of(System.getProperty("os.name"), System.getProperty("os.arch")))
                .matches("[a-z0-9]+-[a-z0-9_]+");
    }
}
