/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Loads the native core ({@code vitess_cdc_jni}) once per class loader.
 *
 * <p>Search order:
 *
 * <ol>
 *   <li>the file named by the system property {@value #LIBRARY_FILE_PROPERTY}, if set (and then
 *       nothing else: an explicit choice that fails is an error, not a reason to guess);
 *   <li>{@code System.loadLibrary} on {@code java.library.path} (lets operators install one
 *       library in Flink's {@code lib/} setup);
 *   <li>the library bundled in the jar at {@code /native/<os>-<arch>/}, copied to a fresh temp
 *       file and loaded from there.
 * </ol>
 *
 * <p>Why a fresh temp file per load: the JVM binds a native library file to the first class
 * loader that loads it, and Flink loads a job's connector classes in a new class loader for every
 * job (and every restart). A per-load copy gives each class loader its own library instance, with
 * its own native statics, so nothing leaks between jobs. For the same reason a failure of step 2
 * with "already loaded in another classloader" simply falls through to step 3.
 *
 * <p>Natives are registered from {@code JNI_OnLoad} by class name rather than resolved through
 * mangled {@code Java_...} symbols, so the connector can be shaded and relocated: before linking,
 * this class publishes the (possibly relocated) name of {@link NativeStream} in the system
 * property {@value #NATIVES_CLASS_PROPERTY}, which {@code JNI_OnLoad} reads.
 */
public final class NativeLibrary {

    /** Base name of the library, as given to {@link System#mapLibraryName}. */
    public static final String LIBRARY_NAME = "vitess_cdc_jni";

    /** System property: path of a library file to load instead of searching. */
    public static final String LIBRARY_FILE_PROPERTY = "vitesscdc.native.library";

    /** System property: directory to extract the bundled library into (default java.io.tmpdir). */
    public static final String EXTRACT_DIR_PROPERTY = "vitesscdc.native.tmpdir";

    /**
     * Read by {@code JNI_OnLoad}: the JVM name of the class whose natives it registers. Must not
     * start with this package's name, or shading would relocate the key itself.
     */
    static final String NATIVES_CLASS_PROPERTY = "vitesscdc.jni.natives-class";

    /** Set by a failing {@code JNI_OnLoad} to its reason (the JVM reports only a bad version). */
    static final String LOAD_ERROR_PROPERTY = "vitesscdc.jni.load-error";

    /** Resource directory holding one subdirectory per platform. */
    static final String RESOURCE_DIR = "native/";

    /** The platforms a jar built by the project's Maven build carries and its tests cover. */
    static final List<String> SUPPORTED_PLATFORMS = List.of("linux-x86_64", "linux-aarch64");

    /** Index of the bundled platforms, one per line, written by the Maven build. */
    static final String PLATFORM_INDEX = RESOURCE_DIR + "platforms.txt";

    private static volatile String loadedFrom;

    private NativeLibrary() {}

    /**
     * Loads the library unless this class loader already did. Thread-safe; a failed attempt can
     * be retried (for example after fixing {@code java.library.path}).
     *
     * @throws NativeLibraryException naming the detected platform, the bundled platforms and
     *     what every attempt reported
     */
    public static void load() {
        if (loadedFrom != null) {
            return;
        }
        synchronized (NativeLibrary.class) {
            if (loadedFrom == null) {
                loadedFrom = doLoad();
            }
        }
    }

    /** Where the library came from ({@code null} before {@link #load()} succeeded). */
    public static String loadedFrom() {
        return loadedFrom;
    }

    private static String doLoad() {
        String explicit = System.getProperty(LIBRARY_FILE_PROPERTY);
        if (explicit != null && !explicit.isEmpty()) {
            Path file = Paths.get(explicit).toAbsolutePath();
            try {
                link(() -> System.load(file.toString()));
                return file.toString();
            } catch (UnsatisfiedLinkError e) {
                throw new NativeLibraryException(
                        "Cannot load the native library " + file + " named by -D" + LIBRARY_FILE_PROPERTY + ": "
                                + e.getMessage(),
                        e);
            }
        }

        List<String> attempts = new ArrayList<>();
        try {
            link(() -> System.loadLibrary(LIBRARY_NAME));
            return "java.library.path";
        } catch (UnsatisfiedLinkError e) {
            attempts.add("java.library.path: " + e.getMessage());
        }

        String platform = Platform.current();
        URL bundled = findBundled(NativeLibrary.class.getClassLoader(), platform, attempts);
        Path file = extract(bundled);
        try {
            link(() -> System.load(file.toString()));
            return bundled.toString();
        } catch (UnsatisfiedLinkError e) {
            throw new NativeLibraryException(
                    "Cannot load the bundled native library " + bundled + " (extracted to " + file + ") on " + platform
                            + ": " + e.getMessage(),
                    e);
        } finally {
            deleteExtracted(file);
        }
    }

    /**
     * Resolves the bundled library for {@code platform}, or explains which platforms the jar
     * carries instead.
     */
    static URL findBundled(ClassLoader loader, String platform, List<String> attempts) {
        String resource = RESOURCE_DIR + platform + "/" + System.mapLibraryName(LIBRARY_NAME);
        URL url = loader == null ? ClassLoader.getSystemResource(resource) : loader.getResource(resource);
        if (url != null) {
            return url;
        }
        throw new NativeLibraryException(missingPlatformMessage(platform, bundledPlatforms(loader), attempts));
    }

    /** The platforms listed in the jar's index; empty when the jar has no index. */
    static List<String> bundledPlatforms(ClassLoader loader) {
        URL index = loader == null ? ClassLoader.getSystemResource(PLATFORM_INDEX) : loader.getResource(PLATFORM_INDEX);
        if (index == null) {
            return Collections.emptyList();
        }
        List<String> platforms = new ArrayList<>();
        try (InputStream in = index.openStream();
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                line = line.trim();
                if (!line.isEmpty() && !line.startsWith("#")) {
                    platforms.add(line);
                }
            }
        } catch (IOException e) {
            platforms.add("(unreadable " + PLATFORM_INDEX + ": " + e + ")");
        }
        return platforms;
    }

    static String missingPlatformMessage(String platform, List<String> bundled, List<String> attempts) {
        StringBuilder msg = new StringBuilder();
        msg.append("No native vitess-cdc library for platform ")
                .append(platform)
                .append(" (os.name=")
                .append(System.getProperty("os.name"))
                .append(", os.arch=")
                .append(System.getProperty("os.arch"))
                .append("). This jar carries: ");
        if (bundled.isEmpty()) {
            msg.append("no native libraries (built with -Dnative.skip=true?)");
        } else {
            msg.append(String.join(", ", bundled));
        }
        msg.append(". vitess-cdc's supported platforms: ")
                .append(String.join(", ", SUPPORTED_PLATFORMS))
                .append(" (the published jar carries both). Elsewhere, build the connector on ")
                .append(platform)
                .append(" (mvn package), or put ")
                .append(System.mapLibraryName(LIBRARY_NAME))
                .append(" on java.library.path, or name the file with -D")
                .append(LIBRARY_FILE_PROPERTY)
                .append('.');
        for (String attempt : attempts) {
            msg.append(" Tried ").append(attempt).append('.');
        }
        return msg.toString();
    }

    private static Path extract(URL bundled) {
        String dirName = System.getProperty(EXTRACT_DIR_PROPERTY, System.getProperty("java.io.tmpdir"));
        String libFile = System.mapLibraryName(LIBRARY_NAME);
        int dot = libFile.lastIndexOf('.');
        String prefix = (dot > 0 ? libFile.substring(0, dot) : libFile) + "-";
        String suffix = dot > 0 ? libFile.substring(dot) : "";
        Path file = null;
        try {
            Path dir = Paths.get(dirName);
            Files.createDirectories(dir);
            file = Files.createTempFile(dir, prefix, suffix);
            try (InputStream in = bundled.openStream()) {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            }
            return file;
        } catch (IOException e) {
            if (file != null) {
                deleteExtracted(file);
            }
            throw new NativeLibraryException(
                    "Cannot extract the bundled native library " + bundled + " into " + dirName + " (set -D"
                            + EXTRACT_DIR_PROPERTY + " to a writable directory): " + e,
                    e);
        }
    }

    /**
     * Removes the extracted copy. A loaded library stays mapped after its file is unlinked on
     * Linux and macOS; Windows keeps the file locked, so there it goes at JVM exit instead.
     */
    private static void deleteExtracted(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            file.toFile().deleteOnExit();
        }
    }

    /**
     * Runs a {@code System.load*} call with the natives class published for JNI_OnLoad, and turns
     * a failed registration into an error that says why.
     */
    private static void link(Runnable systemLoad) {
        String previous = System.getProperty(NATIVES_CLASS_PROPERTY);
        System.setProperty(NATIVES_CLASS_PROPERTY, NativeStream.class.getName().replace('.', '/'));
        System.clearProperty(LOAD_ERROR_PROPERTY);
        try {
            systemLoad.run();
        } catch (UnsatisfiedLinkError e) {
            String reason = System.clearProperty(LOAD_ERROR_PROPERTY);
            if (reason == null) {
                throw e;
            }
            UnsatisfiedLinkError explained = new UnsatisfiedLinkError(
                    "JNI_OnLoad of " + LIBRARY_NAME + " failed for " + NativeStream.class.getName() + ": " + reason);
            explained.initCause(e);
            throw explained;
        } finally {
            if (previous == null) {
                System.clearProperty(NATIVES_CLASS_PROPERTY);
            } else {
                System.setProperty(NATIVES_CLASS_PROPERTY, previous);
            }
        }
    }
}
