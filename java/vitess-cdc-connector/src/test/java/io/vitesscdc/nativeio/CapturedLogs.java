/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

import java.util.ArrayList;
import java.util.List;

/**
 * A log4j appender that keeps every event of one logger subtree in memory, installed at a given
 * level for the duration of a test (try-with-resources). SLF4J in the tests is bound to log4j.
 */
final class CapturedLogs extends AbstractAppender implements AutoCloseable {

    /** What a test needs from an event (log4j reuses its mutable events). */
    record Event(String logger, Level level, String message, String thread) {}

    private final String loggerName;
    private final List<Event> events = new ArrayList<>();

    private CapturedLogs(String loggerName) {
        super("captured-" + loggerName, null, null, true, Property.EMPTY_ARRAY);
        this.loggerName = loggerName;
    }

    /** Captures everything logged under {@code loggerName} at {@code level} or above. */
    static CapturedLogs capture(String loggerName, Level level) {
        CapturedLogs appender = new CapturedLogs(loggerName);
        appender.start();
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        config.addAppender(appender);
        LoggerConfig logger = new LoggerConfig(loggerName, level, true);
        logger.addAppender(appender, null, null);
        config.addLogger(loggerName, logger);
        ctx.updateLoggers();
        return appender;
    }

    @Override
    public void append(LogEvent event) {
        synchronized (events) {
            events.add(new Event(
                    event.getLoggerName(),
                    event.getLevel(),
                    event.getMessage().getFormattedMessage(),
                    event.getThreadName()));
        }
    }

    List<Event> events() {
        synchronized (events) {
            return new ArrayList<>(events);
        }
    }

    @Override
    public void close() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        Configuration config = ctx.getConfiguration();
        config.removeLogger(loggerName);
        config.getAppenders().remove(getName());
        ctx.updateLoggers();
        stop();
    }
}
