/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Loading the native library the way Flink does: the packaged jar, opened by several class
 * loaders in one JVM (one per job or restart). Each must get a working library of its own; a
 * single shared file would be refused by the JVM for every loader after the first.
 */
class NativeLibraryITCase {

    private static URL packagedJar() {
        URL jar = NativeStream.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(jar.toString()).as("failsafe runs against the packaged jar").endsWith(".jar");
        return jar;
    }

    /** Calls {@code NativeStream.nativeSelfTest(kind)} through a class loader of its own. */
    private static Object selfTest(ClassLoader loader, int kind) throws Exception {
        return selfTest(loader, NativeStream.class.getName(), kind);
    }

    private static Object selfTest(ClassLoader loader, String streamClass, int kind) throws Exception {
        String pkg = streamClass.substring(0, streamClass.lastIndexOf('.'));
        Class.forName(pkg + ".NativeLibrary", true, loader).getMethod("load").invoke(null);
        Class<?> stream = Class.forName(streamClass, true, loader);
        assertThat(stream.getClassLoader()).isSameAs(loader);
        Method m = stream.getDeclaredMethod("nativeSelfTest", int.class);
        m.setAccessible(true);
        try {
            return m.invoke(null, kind);
        } catch (InvocationTargetException e) {
            return e.getCause();
        }
    }

    @Test
    void everyClassLoaderGetsItsOwnWorkingCopy() throws Exception {
        URL jar = packagedJar();
        for (int i = 0; i < 3; i++) {
            try (URLClassLoader loader =
                    new URLClassLoader("job-" + i, new URL[] {jar}, ClassLoader.getPlatformClassLoader())) {
                assertThat(selfTest(loader, 0)).asString().startsWith("vitess-cdc-jni ");

                // Exceptions are this loader's classes, found through the natives' own loader.
                Object error = selfTest(loader, 1);
                assertThat(error.getClass().getName()).isEqualTo(ConfigurationException.class.getName());
                assertThat(error.getClass().getClassLoader()).isSameAs(loader);
                assertThat(error.getClass()).isNotSameAs(ConfigurationException.class);

                Class<?> lib = Class.forName(NativeLibrary.class.getName(), true, loader);
                Object from = lib.getMethod("loadedFrom").invoke(null);
                assertThat(from).asString().startsWith("jar:file:").contains("!/native/");
            }
        }
        // The application's own copy still works after the others came and went.
        assertThat(NativeStream.nativeVersion()).startsWith("vitess-cdc-jni ");
    }

    /**
     * A user shading the connector with relocation (maven-shade {@code io.vitesscdc ->
     * relocated.vitesscdc}, done on the packaged jar during {@code package}): registration follows
     * the relocated class, and exceptions are the relocated classes.
     */
    @Test
    void relocatedCopyRegistersItsNativesAndThrowsItsOwnExceptions() throws Exception {
        Path relocated = Paths.get(
                System.getProperty("vitesscdc.relocated.jar", "target/relocation-check/connector-relocated.jar"));
        assertThat(Files.isRegularFile(relocated))
                .as("relocated jar %s", relocated)
                .isTrue();
        try (URLClassLoader loader = new URLClassLoader(
                "relocated", new URL[] {relocated.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
            String streamClass = "relocated.vitesscdc.nativeio.NativeStream";
            assertThat(selfTest(loader, streamClass, 0)).asString().startsWith("vitess-cdc-jni ");
            Object error = selfTest(loader, streamClass, 1);
            assertThat(error.getClass().getName()).isEqualTo("relocated.vitesscdc.nativeio.ConfigurationException");
            Object fatal = selfTest(loader, streamClass, 3);
            assertThat(((Throwable) fatal).getCause().getClass().getName())
                    .isEqualTo("relocated.vitesscdc.nativeio.NativeCause");
        }
    }
}
