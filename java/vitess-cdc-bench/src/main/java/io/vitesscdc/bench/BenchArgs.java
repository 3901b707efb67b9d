/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The arguments of one consumer run ({@code --name value} pairs; scripts/bench-e2e.sh passes
 * them). A run ends after {@code --events} records, or, with {@code --window S} (the latency
 * scenario), {@code --warmup} + S seconds after its first record, sampling latency after the
 * warm-up.
 */
final class BenchArgs {
    final String consumer;
    final String scenario;
    final String vtgate;
    final String keyspace;
    final String table;
    final String shape;
    final long events;
    /** {@code initial}, {@code latest}, or {@code @file} with positions JSON (vstream positions). */
    final String start;

    final double warmupSeconds;
    final double windowSeconds;
    final double timeoutSeconds;
    final int parallelism;

    BenchArgs(String[] argv) {
        Map<String, String> m = pairs(argv);
        consumer = required(m, "consumer");
        scenario = m.getOrDefault("scenario", "run");
        vtgate = m.getOrDefault("vtgate", "127.0.0.1:15991");
        keyspace = m.getOrDefault("keyspace", "customer");
        table = required(m, "table");
        shape = m.getOrDefault("shape", "narrow");
        events = Long.parseLong(m.getOrDefault("events", "0"));
        start = m.getOrDefault("start", "initial");
        warmupSeconds = Double.parseDouble(m.getOrDefault("warmup", "3"));
        windowSeconds = Double.parseDouble(m.getOrDefault("window", "0"));
        timeoutSeconds = Double.parseDouble(m.getOrDefault("timeout", "900"));
        parallelism = Integer.parseInt(m.getOrDefault("parallelism", "2"));
        if (windowSeconds <= 0 && events <= 0) {
            throw new IllegalArgumentException("give --events N (or --window S for the latency scenario)");
        }
    }

    boolean latencyMode() {
        return windowSeconds > 0;
    }

    /**
     * The regular expression of {@code --table /regex/} (VStream's own way of naming tables by
     * pattern: the many-tables scenario), or null for a plain table name.
     */
    String tablePattern() {
        return table.length() > 2 && table.startsWith("/") && table.endsWith("/")
                ? table.substring(1, table.length() - 1)
                : null;
    }

    /** What SQL's {@code 'table-name'} takes: the plain name or the pattern (a whole-name match). */
    String tableOrPattern() {
        String pattern = tablePattern();
        return pattern != null ? pattern : table;
    }

    /** The positions JSON of {@code --start @file}, or null for initial/latest. */
    String positionsJson() {
        if (!start.startsWith("@")) {
            return null;
        }
        try {
            return Files.readString(Path.of(start.substring(1))).trim();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the start positions " + start + ": " + e, e);
        }
    }

    /** True once the run has what it came for. */
    boolean done(Recorder rec) {
        if (latencyMode()) {
            return rec.secondsSinceFirst() >= warmupSeconds + windowSeconds;
        }
        return rec.events() >= events;
    }

    /** In the latency scenario, whether a record arriving now is past the warm-up. */
    boolean sampling(Recorder rec) {
        return latencyMode() && rec.secondsSinceFirst() >= warmupSeconds;
    }

    /** {@code --name value} pairs of a benchmark program's command line. */
    static Map<String, String> pairs(String[] argv) {
        if (argv.length % 2 != 0) {
            throw new IllegalArgumentException("--" + argv[argv.length - 1] + " needs a value");
        }
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < argv.length; i += 2) {
            if (!argv[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got '" + argv[i] + "'");
            }
            m.put(argv[i].substring(2), argv[i + 1]);
        }
        return m;
    }

    static String required(Map<String, String> m, String name) {
        String v = m.get(name);
        if (v == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }
}
