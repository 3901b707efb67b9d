/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.sql;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged SQL jar holds what a Flink SQL session needs and nothing Flink already has: the
 * connector, flink-connector-base (unrelocated), the native library with its platform index, the
 * factory service entry — and no Flink core/streaming/table classes, no slf4j, no Jackson.
 */
class ShadedJarContentsITCase {

    static Path sqlJar() {
        String path = System.getProperty("vitesscdc.sql.jar");
        assertThat(path)
                .as("system property vitesscdc.sql.jar (set by the pom)")
                .isNotBlank();
        Path jar = Path.of(path);
        assertThat(jar).as("the shaded jar; build it with mvn package").exists();
        return jar;
    }

    @Test
    void carriesTheConnectorConnectorBaseNativeLibraryAndFactory() throws IOException {
        try (JarFile jar = new JarFile(sqlJar().toFile())) {
            List<String> names = new ArrayList<>();
            Collections.list(jar.entries()).forEach(e -> names.add(e.getName()));

            assertThat(names)
                    .contains(
                            "io/vitesscdc/table/VitessDynamicTableFactory.class",
                            "io/vitesscdc/source/VitessSource.class",
                            "io/vitesscdc/nativeio/NativeStream.class",
                            // flink-connector-base, not relocated
                            "org/apache/flink/connector/base/source/reader/SingleThreadMultiplexSourceReaderBase.class",
                            "native/platforms.txt");
            String platforms = new String(
                    jar.getInputStream(jar.getEntry("native/platforms.txt")).readAllBytes(), StandardCharsets.UTF_8);
            // The connector module's BundledLibrariesTest checks that index against the build's
            // configuration (linux-x86_64 and linux-aarch64 on an x86_64 machine); here: the shaded jar
            // carries every indexed library, each built for its own CPU.
            assertThat(platforms.strip().split("\\R"))
                    .as("the jar's platform index")
                    .containsExactlyInAnyOrderElementsOf(
                            Files.readAllLines(Path.of(System.getProperty("vitesscdc.connector.platform.index")))
                                    .stream()
                                    .filter(line -> !line.isBlank())
                                    .toList());
            for (String platform : platforms.strip().split("\\R")) {
                JarEntry library = jar.getJarEntry("native/" + platform + "/libvitess_cdc_jni.so");
                assertThat(library).as("the %s library", platform).isNotNull();
                byte[] elf = jar.getInputStream(library).readNBytes(20);
                int machine = (elf[18] & 0xff) | (elf[19] & 0xff) << 8;
                assertThat(machine)
                        .as("ELF e_machine of the %s library (62 x86_64, 183 aarch64)", platform)
                        .isEqualTo(platform.endsWith("aarch64") ? 183 : 62);
            }
            String services = new String(
                    jar.getInputStream(jar.getEntry("META-INF/services/org.apache.flink.table.factories.Factory"))
                            .readAllBytes(),
                    StandardCharsets.UTF_8);
            assertThat(services.lines()).contains("io.vitesscdc.table.VitessDynamicTableFactory");

            List<String> foreign = names.stream()
                    .filter(n -> n.endsWith(".class"))
                    .filter(n -> !n.startsWith("io/vitesscdc/") && !n.startsWith("org/apache/flink/connector/base/"))
                    .toList();
            assertThat(foreign)
                    .as("classes Flink's distribution provides, or unrelocated third-party classes")
                    .isEmpty();
        }
        long size = Files.size(sqlJar());
        System.out.printf("vitess-cdc SQL jar: %s, %.1f MB%n", sqlJar().getFileName(), size / 1e6);
    }
}
