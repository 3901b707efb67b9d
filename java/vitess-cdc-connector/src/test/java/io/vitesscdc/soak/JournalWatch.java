/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.soak;

import io.vitesscdc.source.enumerator.VitessSourceEnumerator;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which of the job's sources passed a reshard journal: the enumerator of each logs "Every
 * participant [old shards] of reshard journal … ended" once its old splits all ended. The soak
 * completes a reshard (deleting the old shards) only after every source passed it and a checkpoint
 * followed, as an operator must (a job restored from before the journal needs the old shards).
 */
final class JournalWatch implements AutoCloseable {

    private static final Pattern SOURCE = Pattern.compile("Source: (\\w+)\\[");

    private final Logger logger;
    private final AbstractAppender appender;
    private final Set<String> passed = ConcurrentHashMap.newKeySet();

    JournalWatch(String oldShards) {
        String line = "Every participant [" + oldShards.replace(",", ", ") + "] of reshard journal";
        this.logger = (Logger)
                ((LoggerContext) LogManager.getContext(false)).getLogger(VitessSourceEnumerator.class.getName());
        this.appender = new AbstractAppender("journal-watch", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                if (event.getMessage().getFormattedMessage().contains(line)) {
                    Matcher m = SOURCE.matcher(event.getThreadName());
                    passed.add(m.find() ? m.group(1) : event.getThreadName());
                }
            }
        };
        appender.start();
        if (!logger.isEnabled(Level.INFO)) {
            logger.setLevel(Level.INFO);
        }
        logger.addAppender(appender);
    }

    /** Waits until {@code sources} distinct sources passed the journal. */
    void await(int sources, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (passed.size() < sources) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "only " + passed + " of " + sources + " sources passed the reshard journal within " + timeout);
            }
            Thread.sleep(100);
        }
    }

    @Override
    public void close() {
        logger.removeAppender(appender);
        appender.stop();
    }
}
