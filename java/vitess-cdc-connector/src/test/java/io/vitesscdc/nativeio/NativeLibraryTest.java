/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The loader's resource resolution and error text, on a fake jar layout (no native code runs). */
class NativeLibraryTest {

    @TempDir
    Path root;

    private URLClassLoader loaderOver(Path dir) throws IOException {
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, null);
    }

    private void bundle(String platform) throws IOException {
        Path dir = Files.createDirectories(root.resolve("native").resolve(platform));
        Files.write(dir.resolve(System.mapLibraryName(NativeLibrary.LIBRARY_NAME)), new byte[] {1, 2, 3});
    }

    @Test
    void findsTheLibraryOfTheRequestedPlatform() throws IOException {
        bundle("linux-x86_64");
        try (URLClassLoader loader = loaderOver(root)) {
            URL url = NativeLibrary.findBundled(loader, "linux-x86_64", new ArrayList<>());
            assertThat(url.getPath())
                    .endsWith("native/linux-x86_64/" + System.mapLibraryName(NativeLibrary.LIBRARY_NAME));
        }
    }

    @Test
    void missingPlatformNamesTheDetectedAndTheBundledPlatforms() throws IOException {
        bundle("linux-x86_64");
        bundle("macos-aarch64");
        Files.write(
                root.resolve("native/platforms.txt"), "linux-x86_64\nmacos-aarch64\n".getBytes(StandardCharsets.UTF_8));
        List<String> attempts = List.of("java.library.path: no vitess_cdc_jni in java.library.path");
        try (URLClassLoader loader = loaderOver(root)) {
            assertThatThrownBy(() -> NativeLibrary.findBundled(loader, "sunos-sparcv9", attempts))
                    .isInstanceOf(NativeLibraryException.class)
                    .isInstanceOf(FatalException.class)
                    .hasMessageContaining("for platform sunos-sparcv9")
                    .hasMessageContaining("This jar carries: linux-x86_64, macos-aarch64")
                    .hasMessageContaining("java.library.path")
                    .hasMessageContaining("no vitess_cdc_jni in java.library.path");
        }
    }

    @Test
    void jarWithoutIndexSaysItCarriesNoLibraries() throws IOException {
        try (URLClassLoader loader = loaderOver(root)) {
            assertThatThrownBy(() -> NativeLibrary.findBundled(loader, "linux-x86_64", List.of()))
                    .isInstanceOf(NativeLibraryException.class)
                    .hasMessageContaining("for platform linux-x86_64")
                    .hasMessageContaining("carries: no native libraries");
        }
    }

    @Test
    void indexIgnoresBlankLinesAndComments() throws IOException {
        Files.createDirectories(root.resolve("native"));
        Files.write(
                root.resolve("native/platforms.txt"),
                "# built by maven\n\n linux-aarch64 \n".getBytes(StandardCharsets.UTF_8));
        try (URLClassLoader loader = loaderOver(root)) {
            assertThat(NativeLibrary.bundledPlatforms(loader)).containsExactly("linux-aarch64");
        }
    }
}
