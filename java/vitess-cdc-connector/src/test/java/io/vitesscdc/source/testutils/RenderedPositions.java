/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import io.vitesscdc.nativeio.Position;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Test assertions about positions, read from the JSON rendering people see ({@link
 * Position#toJson()}, the {@code position} metadata column). Only tests look into a position;
 * the connector itself never does (it acts on the facts marks carry).
 */
public final class RenderedPositions {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RenderedPositions() {}

    /** A position starting {@code shard} at {@code gtid}, built by the core from its JSON form. */
    public static Position start(String keyspace, String shard, String gtid) {
        return Position.fromSavedJson(keyspace, shard, "{\"gtid\":" + quote(gtid) + "}");
    }

    /** A position from a JSON literal (the core's form; keyspace and shard filled in when absent). */
    public static Position of(String keyspace, String shard, String json) {
        return Position.fromSavedJson(keyspace, shard, json);
    }

    public static String gtid(Position position) {
        return read(position.toJson()).path("gtid").asText("");
    }

    /** Whether a rendered position (e.g. the {@code position} metadata column) says copy completed. */
    public static boolean copyCompleted(String renderedJson) {
        return read(renderedJson).path("copy_completed").asBoolean(false);
    }

    private static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException("not a rendered position: " + json, e);
        }
    }
}
