/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Loading the native library the way Flink does: the packaged jar, opened by several class
 * loaders in one JVM (one per job or restart). Each must get a working library of its own; a
 * single shared file would be refused by the JVM for every loader after the first. The library these
 * loaders get is the one the jar bundles, the product's ({@code -Dvitesscdc.native.library}, which
 * names the test library where a JVM has it, is set aside here).
 */
class NativeLibraryITCase {

    /** Every native method of NativeStream: what the product library registers, no more, no less. */
    private static final List<String> PRODUCT_NATIVES = List.of(
            "nativeCarryCaptures",
            "nativeCheckOptions",
            "nativeCheckSpecificOffsets",
            "nativeClose",
            "nativeCopyEstimates",
            "nativeDrainLogs",
            "nativeKeyOrders",
            "nativeLibraryVersion",
            "nativeLogState",
            "nativeMetricsJson",
            "nativeOpen",
            "nativeOpenStreams",
            "nativePlanStart",
            "nativePoll",
            "nativePollHeap",
            "nativePositionCopyTables",
            "nativePositionFacts",
            "nativePositionFromJson",
            "nativePositionJson",
            "nativePositionTransactionCount",
            "nativePositionsJson",
            "nativeSetLogLevel",
            "nativeWake");

    private static URL packagedJar() {
        URL jar = NativeStream.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(jar.toString()).as("failsafe runs against the packaged jar").endsWith(".jar");
        return jar;
    }

    /** Runs {@code work} with the test library's property set aside: loaders get the bundled library. */
    private static <T> T withBundledLibrary(Callable<T> work) throws Exception {
        String saved = System.clearProperty(NativeLibrary.LIBRARY_FILE_PROPERTY);
        try {
            return work.call();
        } finally {
            if (saved != null) {
                System.setProperty(NativeLibrary.LIBRARY_FILE_PROPERTY, saved);
            }
        }
    }

    /**
     * Calls the static native {@code name} of {@code streamClass} through {@code loader} (after
     * loading that loader's library); returns its result, or the exception it threw.
     */
    private static Object call(ClassLoader loader, String streamClass, String name, Object... args) throws Exception {
        String pkg = streamClass.substring(0, streamClass.lastIndexOf('.'));
        Class.forName(pkg + ".NativeLibrary", true, loader).getMethod("load").invoke(null);
        Class<?> stream = Class.forName(streamClass, true, loader);
        assertThat(stream.getClassLoader()).isSameAs(loader);
        Method m = null;
        for (Method candidate : stream.getDeclaredMethods()) {
            if (candidate.getName().equals(name)) {
                m = candidate;
            }
        }
        assertThat(m).as("%s.%s", streamClass, name).isNotNull();
        m.setAccessible(true);
        try {
            return m.invoke(null, args);
        } catch (InvocationTargetException e) {
            return e.getCause();
        }
    }

    private static Object version(ClassLoader loader, String streamClass) throws Exception {
        return call(loader, streamClass, "nativeLibraryVersion");
    }

    /** A configuration error raised by the product's natives: options that are not JSON. */
    private static Object configurationError(ClassLoader loader, String streamClass) throws Exception {
        return call(loader, streamClass, "nativeCheckOptions", "not json");
    }

    @Test
    void everyClassLoaderGetsItsOwnWorkingCopy() throws Exception {
        URL jar = packagedJar();
        withBundledLibrary(() -> {
            for (int i = 0; i < 3; i++) {
                try (URLClassLoader loader =
                        new URLClassLoader("job-" + i, new URL[] {jar}, ClassLoader.getPlatformClassLoader())) {
                    String streamClass = NativeStream.class.getName();
                    assertThat(version(loader, streamClass)).asString().startsWith("vitess-cdc-jni ");

                    // Exceptions are this loader's classes, found through the natives' own loader.
                    Object error = configurationError(loader, streamClass);
                    assertThat(error.getClass().getName()).isEqualTo(ConfigurationException.class.getName());
                    assertThat(error.getClass().getClassLoader()).isSameAs(loader);
                    assertThat(error.getClass()).isNotSameAs(ConfigurationException.class);

                    Class<?> lib = Class.forName(NativeLibrary.class.getName(), true, loader);
                    Object from = lib.getMethod("loadedFrom").invoke(null);
                    assertThat(from).asString().startsWith("jar:file:").contains("!/native/");
                }
            }
            return null;
        });
        // The application's own copy still works after the others came and went.
        assertThat(NativeStream.nativeVersion()).startsWith("vitess-cdc-jni ");
    }

    /**
     * The library a jar bundles registers exactly the product's natives: every native of
     * NativeStream is linked, and none of NativeDiagnostics' test natives (synthetic streams,
     * raised errors, injected panics) is, whatever Maven profile built the jar. The jar does not
     * even hold that class; here a loader sees it from the tests' classes, next to the jar.
     */
    @Test
    void thePackagedLibraryRegistersTheProductNativesAndNoTestNatives() throws Exception {
        URL jar = packagedJar();
        URL testClasses =
                NativeDiagnostics.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(testClasses).as("NativeDiagnostics is a test class").isNotEqualTo(jar);
        withBundledLibrary(() -> {
            try (URLClassLoader jarOnly =
                    new URLClassLoader("jar-only", new URL[] {jar}, ClassLoader.getPlatformClassLoader())) {
                assertThat(jarOnly.getResource(NativeDiagnostics.class.getName().replace('.', '/') + ".class"))
                        .as("the test natives' class in the packaged jar")
                        .isNull();
            }
            try (URLClassLoader loader = new URLClassLoader(
                    "release-and-tests", new URL[] {jar, testClasses}, ClassLoader.getPlatformClassLoader())) {
                assertThat(version(loader, NativeStream.class.getName()))
                        .asString()
                        .startsWith("vitess-cdc-jni ");
                assertThat(linkedNatives(loader, NativeStream.class.getName()))
                        .as("the natives the product library registers")
                        .containsExactlyElementsOf(PRODUCT_NATIVES);
                List<String> tests = nativesOf(loader, NativeDiagnostics.class.getName());
                assertThat(tests).as("test natives declared").contains("nativeRaise", "nativeInjectPanic");
                assertThat(linkedNatives(loader, NativeDiagnostics.class.getName()))
                        .as("test natives registered by the product library")
                        .isEmpty();
            }
            return null;
        });
    }

    private static List<String> nativesOf(ClassLoader loader, String className) throws Exception {
        List<String> names = new ArrayList<>();
        for (Method m : Class.forName(className, true, loader).getDeclaredMethods()) {
            if (Modifier.isNative(m.getModifiers())) {
                names.add(m.getName());
            }
        }
        names.sort(String::compareTo);
        return names;
    }

    /**
     * The natives of {@code className} that are linked: called with zero and null arguments (each
     * refuses them with an exception, or does nothing harmful), only an unregistered one throws
     * UnsatisfiedLinkError.
     */
    private static List<String> linkedNatives(ClassLoader loader, String className) throws Exception {
        Class<?> c = Class.forName(className, true, loader);
        List<String> linked = new ArrayList<>();
        for (String name : nativesOf(loader, className)) {
            Method m = null;
            for (Method candidate : c.getDeclaredMethods()) {
                if (candidate.getName().equals(name) && Modifier.isNative(candidate.getModifiers())) {
                    m = candidate;
                }
            }
            Class<?>[] types = m.getParameterTypes();
            Object[] args = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                args[i] = types[i] == int.class ? (Object) 0 : types[i] == long.class ? (Object) 0L : null;
            }
            if (name.equals("nativeSetLogLevel")) {
                args[0] = 1; // errors only: this loader's copy keeps logging what matters
            }
            m.setAccessible(true);
            try {
                m.invoke(null, args);
                linked.add(name);
            } catch (InvocationTargetException e) {
                if (!(e.getCause() instanceof UnsatisfiedLinkError)) {
                    linked.add(name);
                }
            }
        }
        return linked;
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
        withBundledLibrary(() -> {
            try (URLClassLoader loader = new URLClassLoader(
                    "relocated", new URL[] {relocated.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
                String streamClass = "relocated.vitesscdc.nativeio.NativeStream";
                assertThat(version(loader, streamClass)).asString().startsWith("vitess-cdc-jni ");
                Object error = configurationError(loader, streamClass);
                assertThat(error.getClass().getName()).isEqualTo("relocated.vitesscdc.nativeio.ConfigurationException");
                // A CA file that cannot be read: the Rust cause (the I/O error) becomes a NativeCause.
                Object unreadable = call(
                        loader,
                        streamClass,
                        "nativeKeyOrders",
                        "{\"address\":\"127.0.0.1:1\",\"keyspace\":\"k\","
                                + "\"tls\":{\"ca_cert_path\":\"/nonexistent/vitess-cdc-ca.pem\"}}");
                assertThat(unreadable.getClass().getName())
                        .isEqualTo("relocated.vitesscdc.nativeio.ConfigurationException");
                assertThat(((Throwable) unreadable).getCause())
                        .as("the native cause of %s", unreadable)
                        .isNotNull();
                assertThat(((Throwable) unreadable).getCause().getClass().getName())
                        .isEqualTo("relocated.vitesscdc.nativeio.NativeCause");
            }
            return null;
        });
    }
}
