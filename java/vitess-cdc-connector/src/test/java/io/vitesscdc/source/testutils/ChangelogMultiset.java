/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A query's result as the multiset of its rows, each row the text of its values ({@link
 * Values#normalize}) joined with {@code |}: what a Flink changelog materializes to ({@code +I}/{@code
 * +U} add a row, {@code -U}/{@code -D} take one away), and what a JDBC query answers, so that the two
 * compare equal whatever the row order and the numeric types (Flink's {@code SUM(BIGINT)} is a
 * BIGINT, MySQL's a DECIMAL).
 */
public final class ChangelogMultiset {

    private final Map<String, Integer> rows = new TreeMap<>();
    /** Retractions of rows that were not there: a changelog that is not strict. */
    private final List<String> violations = new ArrayList<>();

    public synchronized void apply(Row row) {
        String text = text(row);
        RowKind kind = row.getKind();
        if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER) {
            rows.merge(text, 1, Integer::sum);
        } else if (rows.containsKey(text)) {
            rows.computeIfPresent(text, (k, n) -> n == 1 ? null : n - 1);
        } else if (violations.size() < 20) {
            violations.add(kind.shortString() + " " + text);
        }
    }

    public synchronized Map<String, Integer> rows() {
        return new TreeMap<>(rows);
    }

    public synchronized List<String> violations() {
        return new ArrayList<>(violations);
    }

    /** The rows of a JDBC result, in the same text form. */
    public static Map<String, Integer> of(ResultSet rs) throws SQLException {
        Map<String, Integer> out = new TreeMap<>();
        ResultSetMetaData md = rs.getMetaData();
        while (rs.next()) {
            StringBuilder text = new StringBuilder();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                text.append(i == 1 ? "" : "|").append(Values.normalize(rs.getObject(i)));
            }
            out.merge(text.toString(), 1, Integer::sum);
        }
        return out;
    }

    /** The same text form for rows computed in the test. */
    public static String text(Object... values) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            text.append(i == 0 ? "" : "|").append(Values.normalize(values[i]));
        }
        return text.toString();
    }

    private static String text(Row row) {
        Object[] values = new Object[row.getArity()];
        for (int i = 0; i < values.length; i++) {
            values[i] = row.getField(i);
        }
        return text(values);
    }
}
