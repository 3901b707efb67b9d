/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A position's copy progress, as the core states it ({@link Position#copyTables()}): the tables
 * the shard's copy has started — in progress, or already copied while the copy is unfinished —
 * and the tables it has not started. Both are empty once the copy is done. For progress metrics.
 */
public final class CopyTables {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> started;
    private final List<String> notStarted;

    CopyTables(List<String> started, List<String> notStarted) {
        this.started = Collections.unmodifiableList(started);
        this.notStarted = Collections.unmodifiableList(notStarted);
    }

    /** Reads the core's answer {@code {"started":[..],"not_started":[..]}}. */
    static CopyTables parse(String json) {
        try {
            JsonNode root = JSON.readTree(json);
            return new CopyTables(names(root.path("started")), names(root.path("not_started")));
        } catch (IOException e) {
            throw new UncheckedIOException("the native library answered unreadable copy tables: " + json, e);
        }
    }

    private static List<String> names(JsonNode array) {
        List<String> out = new ArrayList<>(array.size());
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** Tables the copy started (in progress or done), in the position's order. */
    public List<String> started() {
        return started;
    }

    /** Tables the copy has not started yet. */
    public List<String> notStarted() {
        return notStarted;
    }
}
