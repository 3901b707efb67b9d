/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether the native core reproduces MySQL's primary-key order of each table a source selects.
 * Only for such tables can a resumed copy drop exactly the changes of rows it has not copied yet,
 * so only they give an exact retract changelog in every phase; the others (a text key in a case-
 * or accent-insensitive collation, a FLOAT key, a table without key) are at-least-once while a
 * copy resumes and must be consumed as an upsert changelog.
 *
 * <p>Read before streaming ({@link #read}: connect, query {@code information_schema}, close). The
 * JSON of the native call is parsed with the Jackson that every Flink distribution ships
 * (flink-shaded-jackson), as the rest of the connector does.
 */
public final class KeyOrders {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A selected table whose key order the core does not reproduce, and why. */
    public static final class Inexact {
        private final String table;
        private final String column;
        private final String reason;

        Inexact(String table, String column, String reason) {
            this.table = table;
            this.column = column;
            this.reason = reason;
        }

        public String table() {
            return table;
        }

        /** The key column whose order is not reproduced; null for a table without primary key. */
        public String column() {
            return column;
        }

        public String reason() {
            return reason;
        }

        @Override
        public String toString() {
            return column == null
                    ? "table '" + table + "': " + reason
                    : "table '" + table + "', primary-key column '" + column + "': " + reason;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Inexact && toString().equals(o.toString());
        }

        @Override
        public int hashCode() {
            return toString().hashCode();
        }
    }

    private final Set<String> tables;
    private final List<Inexact> inexact;

    private KeyOrders(Set<String> tables, List<Inexact> inexact) {
        this.tables = Collections.unmodifiableSet(tables);
        this.inexact = Collections.unmodifiableList(inexact);
    }

    /**
     * Asks the core about the tables {@code optionsJson} selects (the options of {@link
     * NativeStream#open}).
     *
     * @throws ConfigurationException for invalid options, an unknown keyspace or table
     * @throws RetryableException when VTGate cannot be reached within the connect timeout
     */
    public static KeyOrders read(String optionsJson) {
        return parse(NativeStream.keyOrdersJson(optionsJson));
    }

    /**
     * The native answer {@code {"tables":{"t":{"exact":true},"u":{"exact":false,"column":"k",
     * "reason":"..."}}}} ({@code column} absent for a table without primary key).
     */
    public static KeyOrders parse(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(Objects.requireNonNull(json, "json"));
        } catch (Exception e) {
            throw new FatalException("the native key orders are not valid JSON: " + json, e);
        }
        JsonNode byTable = root.path("tables");
        if (!byTable.isObject()) {
            throw new FatalException("the native key orders have no \"tables\" object: " + json);
        }
        Set<String> tables = new TreeSet<>();
        List<Inexact> inexact = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = byTable.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> table = it.next();
            tables.add(table.getKey());
            JsonNode entry = table.getValue();
            if (!entry.path("exact").asBoolean(false)) {
                JsonNode column = entry.get("column");
                inexact.add(new Inexact(
                        table.getKey(),
                        column == null || column.isNull() ? null : column.asText(),
                        entry.path("reason").asText("no reason given")));
            }
        }
        inexact.sort(java.util.Comparator.comparing(Inexact::table));
        return new KeyOrders(tables, inexact);
    }

    /** Every table the options select, sorted by name. */
    public Set<String> tables() {
        return tables;
    }

    /** The selected tables whose key order is not exact, sorted by table name. */
    public List<Inexact> inexact() {
        return inexact;
    }

    public boolean allExact() {
        return inexact.isEmpty();
    }

    @Override
    public String toString() {
        return "KeyOrders{tables=" + tables + ", inexact=" + inexact + "}";
    }
}
