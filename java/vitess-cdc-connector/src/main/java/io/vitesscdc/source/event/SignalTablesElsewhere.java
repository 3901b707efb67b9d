/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.event;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

import java.util.List;
import java.util.Objects;

/**
 * Reader to enumerator: a signal, read where it was written, names tables this source does not
 * read. The enumerator tells whether any source of the job reads them and reports those none
 * reads, once per signal (docs/snapshots.md, "Signals").
 *
 * @param signalId the signal's id
 * @param tables the tables it names that this source does not read
 */
@Internal
public record SignalTablesElsewhere(String signalId, List<String> tables) implements SourceEvent {

    private static final long serialVersionUID = 1L;

    public SignalTablesElsewhere {
        Objects.requireNonNull(signalId);
        tables = List.copyOf(tables);
    }
}
