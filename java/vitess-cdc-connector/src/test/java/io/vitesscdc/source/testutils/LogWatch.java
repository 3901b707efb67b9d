/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the log lines of one class that contain a text, as they are logged (the MiniCluster
 * runs in the test JVM): a test can react to a moment only the connector's log shows (a split
 * ended at a reshard journal) within microseconds, without polling. Close it to detach.
 */
public final class LogWatch implements AutoCloseable {

    private final Logger logger;
    private final AbstractAppender appender;
    private final AtomicInteger count = new AtomicInteger();
    private final Semaphore seen = new Semaphore(0);
    private final Set<String> threads = ConcurrentHashMap.newKeySet();
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private LogWatch(String loggerName, String contains) {
        this.logger = (Logger) ((LoggerContext) LogManager.getContext(false)).getLogger(loggerName);
        this.appender = new AbstractAppender("watch-" + contains, null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                if (event.getMessage().getFormattedMessage().contains(contains)) {
                    threads.add(event.getThreadName());
                    lines.add(event.getMessage().getFormattedMessage());
                    count.incrementAndGet();
                    seen.release();
                }
            }
        };
        appender.start();
        if (!logger.isEnabled(Level.INFO)) {
            logger.setLevel(Level.INFO);
        }
        logger.addAppender(appender);
    }

    /** Watches the INFO (and higher) lines of {@code source} that contain {@code contains}. */
    public static LogWatch of(Class<?> source, String contains) {
        return new LogWatch(source.getName(), contains);
    }

    /**
     * Watches the INFO (and higher) lines of the logger {@code loggerName} that contain {@code
     * contains}: e.g. a module of the native core, whose lines arrive under {@code
     * NativeLogs.LOGGER_PREFIX} plus its Rust path ({@code vitess_cdc_core.snapshot.capture.throttle}).
     */
    public static LogWatch ofLogger(String loggerName, String contains) {
        return new LogWatch(loggerName, contains);
    }

    /**
     * The native core's INFO lines forwarded to Java while the returned handle is open (the test
     * configuration forwards WARN and above). The core's level is set when a stream opens, so open
     * this before the job whose lines a {@link #ofLogger} watch waits for.
     */
    public static AutoCloseable nativeCoreInfo() {
        String name = "vitesscdc.native.vitess_cdc_core";
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        org.apache.logging.log4j.core.config.Configuration config = ctx.getConfiguration();
        config.addLogger(name, new org.apache.logging.log4j.core.config.LoggerConfig(name, Level.INFO, true));
        ctx.updateLoggers();
        return () -> {
            config.removeLogger(name);
            ctx.updateLoggers();
        };
    }

    /** Lines seen so far. */
    public int count() {
        return count.get();
    }

    /** The lines seen so far, in order. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** The threads that logged the lines seen so far (e.g. which sources' coordinators). */
    public Set<String> threadNames() {
        return Set.copyOf(threads);
    }

    /** Waits until {@code n} lines were seen since the watch began; fails after the timeout. */
    public void await(int n, Duration timeout, String what) throws InterruptedException {
        if (!seen.tryAcquire(n, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("timed out after " + timeout + " waiting for " + what + " (" + count() + " of " + n
                    + " log lines seen)");
        }
        seen.release(n);
    }

    @Override
    public void close() {
        logger.removeAppender(appender);
        appender.stop();
    }
}
