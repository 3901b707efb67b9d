/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.reader;

import io.vitesscdc.source.event.SignalTablesElsewhere;

import org.apache.flink.annotation.Internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Signals that name tables a reader's streams do not read, on their way from the streams'
 * progress to the enumerator: the metrics refresh finds them in the fetcher's thread, the reader
 * sends them from its task thread (where events to the enumerator go out). Each signal once per
 * reader: the streams list the last ones they read on every refresh.
 */
@Internal
public final class SignalsElsewhere {

    /** Signals remembered as sent; the streams list at most 32. */
    private static final int REMEMBERED = 1024;

    private final Map<String, Boolean> sent = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > REMEMBERED;
        }
    };

    private final Queue<SignalTablesElsewhere> due = new ConcurrentLinkedQueue<>();

    /** A stream read signal {@code signalId}, which names {@code tables} it does not read. */
    public void found(String signalId, List<String> tables) {
        synchronized (sent) {
            if (sent.put(signalId, Boolean.TRUE) != null) {
                return;
            }
        }
        due.add(new SignalTablesElsewhere(signalId, tables));
    }

    /** The next report to send, or null. */
    public SignalTablesElsewhere next() {
        return due.poll();
    }
}
