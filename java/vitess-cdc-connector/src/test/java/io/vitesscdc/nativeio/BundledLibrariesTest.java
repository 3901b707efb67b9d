/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The libraries this build bundled (target/classes/native, what the jar carries): one per platform
 * the pom was configured for (linux-x86_64 and the cross-compiled linux-aarch64 on an x86_64
 * build machine), each an ELF file for its own CPU, and the loader resolving each platform's JVM
 * to its own library.
 */
class BundledLibrariesTest {

    /** ELF {@code e_machine} per architecture: what a loader on that CPU accepts. */
    private static final Map<String, Integer> ELF_MACHINE = Map.of("x86_64", 62, "aarch64", 183);

    private static final ClassLoader LOADER = BundledLibrariesTest.class.getClassLoader();

    @Test
    void bundlesEveryConfiguredPlatformAndIndexesThem() {
        String expected = System.getProperty("vitesscdc.bundled.platforms");
        assertThat(expected)
                .as("system property vitesscdc.bundled.platforms (set by the pom)")
                .isNotBlank();
        assertThat(NativeLibrary.bundledPlatforms(LOADER))
                .containsExactlyInAnyOrderElementsOf(Arrays.asList(expected.split(",")))
                .contains(Platform.current());
    }

    @Test
    void eachPlatformsJvmResolvesToALibraryForItsOwnCpu() throws IOException {
        for (String platform : NativeLibrary.bundledPlatforms(LOADER)) {
            String arch = platform.substring(platform.indexOf('-') + 1);
            URL library = NativeLibrary.findBundled(LOADER, Platform.of("Linux", jvmArchName(arch)), new ArrayList<>());
            assertThat(library.toString()).contains("/native/" + platform + "/");
            assertThat(elfMachine(library)).as("ELF e_machine of %s", library).isEqualTo(ELF_MACHINE.get(arch));
        }
    }

    /** Run in an aarch64 JVM too (scripts/aarch64-jvm-tests.sh, under qemu-user). */
    @Test
    void theRunningJvmLoadsItsOwnPlatformsLibrary() throws Exception {
        // The bundled library, as a job loads it: in a class loader of its own, with the test
        // library this JVM may be told to load (-Dvitesscdc.native.library) set aside.
        String saved = System.clearProperty(NativeLibrary.LIBRARY_FILE_PROPERTY);
        URL classes = NativeLibrary.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader loader =
                new URLClassLoader("bundled", new URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
            Class<?> library = Class.forName(NativeLibrary.class.getName(), true, loader);
            library.getMethod("load").invoke(null);
            assertThat(library.getMethod("loadedFrom").invoke(null))
                    .asString()
                    .contains("/native/" + Platform.current() + "/");
        } finally {
            if (saved != null) {
                System.setProperty(NativeLibrary.LIBRARY_FILE_PROPERTY, saved);
            }
        }
        assertThat(Platform.current()).isIn(NativeLibrary.SUPPORTED_PLATFORMS);
    }

    @Test
    void anUnsupportedPlatformIsToldWhichOnesAreSupported() {
        String message = NativeLibrary.missingPlatformMessage("linux-riscv64", List.of(), List.of());
        assertThat(message).contains("linux-riscv64", "supported platforms: linux-x86_64, linux-aarch64");
    }

    /** What a JVM on that CPU reports as {@code os.arch} (OpenJDK: amd64, aarch64). */
    private static String jvmArchName(String arch) {
        return arch.equals("x86_64") ? "amd64" : arch;
    }

    private static int elfMachine(URL library) throws IOException {
        try (InputStream in = library.openStream()) {
            byte[] header = in.readNBytes(20);
            assertThat(header).as("ELF magic").startsWith(new byte[] {0x7f, 'E', 'L', 'F'});
            return (header[18] & 0xff) | (header[19] & 0xff) << 8;
        }
    }
}
