/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Translates Flink filter predicates into the WHERE clause of the VStream filter rule ({@code select
 * … from t where …}), which Vitess pushes into MySQL for the copy and evaluates on the tablet for
 * every streamed row image.
 *
 * <p>Only what Vitess v24 evaluates at least as permissively as Flink is translated (verified against
 * a real vttestserver, see docs/sql-connector.md "Filter push-down"): a column compared with a
 * literal, one predicate per conjunct:
 *
 * <ul>
 *   <li>integer and DECIMAL columns: {@code = <> < <= > >=} and {@code IN} with non-negative integer
 *       or decimal literals (Vitess fails the stream on a negative literal, {@code -5} is not a
 *       literal to its planner);
 *   <li>DATE columns: the same operators with a DATE literal ({@code 'yyyy-MM-dd'});
 *   <li>CHAR/VARCHAR columns: {@code =} and {@code IN} only — MySQL compares with the column's
 *       collation (case-insensitive, maybe pad-space), so it matches a superset of Flink's binary
 *       equality; ordering and {@code <>} differ between collations and Flink and stay in Flink;
 *   <li>{@code IS NULL} and {@code IS NOT NULL} on any column.
 * </ul>
 *
 * Not translated (they stay in Flink only): booleans (Vitess refuses {@code TRUE}), floating point,
 * timestamps (a MySQL TIMESTAMP is compared in the session time zone, its binlog value in UTC),
 * binary strings, negative numbers, strings with control characters, OR/NOT (other than an OR of
 * equalities on one column, which is an IN list), functions, casts and column-to-column comparisons.
 * A nested AND (the planner's BETWEEN) is pushed only if all its terms are.
 *
 * <p>Every translated predicate also stays a remaining filter evaluated by Flink: VStream sends both
 * images of an update when either matches (so a row leaving the range arrives as an update whose
 * after image does not match), and string equality is a superset of Flink's. Flink's own filter
 * turns that into the exact result: the -U of a row leaving passes and its +U is dropped, a row
 * entering passes as its +U.
 */
@Internal
public final class VitessFilters {

    private VitessFilters() {}

    /** The WHERE clause of the accepted predicates (null if none) and the accepted predicates. */
    public static final class Translation {
        private final String where;
        private final List<ResolvedExpression> accepted;

        Translation(String where, List<ResolvedExpression> accepted) {
            this.where = where;
            this.accepted = accepted;
        }

        /** AND of the accepted predicates as SQL, or null when none is accepted. */
        public String where() {
            return where;
        }

        public List<ResolvedExpression> accepted() {
            return accepted;
        }
    }

    /** Translates each conjunct on its own; untranslatable ones are left out. */
    public static Translation translate(List<ResolvedExpression> filters) {
        List<ResolvedExpression> accepted = new ArrayList<>();
        List<String> sql = new ArrayList<>();
        for (ResolvedExpression f : filters) {
            Optional<String> s = toSql(f);
            if (s.isPresent()) {
                accepted.add(f);
                sql.add(s.get());
            }
        }
        return new Translation(sql.isEmpty() ? null : String.join(" and ", sql), accepted);
    }

    /** The predicate as a VStream WHERE term, or empty if it stays in Flink only. */
    public static Optional<String> toSql(ResolvedExpression e) {
        if (!(e instanceof CallExpression)) {
            return Optional.empty();
        }
        CallExpression call = (CallExpression) e;
        FunctionDefinition fn = call.getFunctionDefinition();
        List<ResolvedExpression> args = call.getResolvedChildren();
        if ((fn == BuiltInFunctionDefinitions.IS_NULL || fn == BuiltInFunctionDefinitions.IS_NOT_NULL)
                && args.size() == 1
                && args.get(0) instanceof FieldReferenceExpression) {
            return Optional.of(identifier(((FieldReferenceExpression) args.get(0)).getName())
                    + (fn == BuiltInFunctionDefinitions.IS_NULL ? " is null" : " is not null"));
        }
        if (fn == BuiltInFunctionDefinitions.OR) {
            return inList(args);
        }
        if (fn == BuiltInFunctionDefinitions.AND) {
            // A conjunct the planner kept together (BETWEEN is x >= a AND x <= b): all or nothing.
            List<String> terms = new ArrayList<>();
            for (ResolvedExpression a : args) {
                Optional<String> t = toSql(a);
                if (t.isEmpty()) {
                    return Optional.empty();
                }
                terms.add(t.get());
            }
            return terms.isEmpty() ? Optional.empty() : Optional.of(String.join(" and ", terms));
        }
        if (fn == BuiltInFunctionDefinitions.IN
                && args.size() >= 2
                && args.get(0) instanceof FieldReferenceExpression) {
            return in((FieldReferenceExpression) args.get(0), args.subList(1, args.size()));
        }
        String op = comparison(fn);
        if (op == null || args.size() != 2) {
            return Optional.empty();
        }
        if (args.get(0) instanceof FieldReferenceExpression && args.get(1) instanceof ValueLiteralExpression) {
            return compare((FieldReferenceExpression) args.get(0), op, (ValueLiteralExpression) args.get(1));
        }
        if (args.get(1) instanceof FieldReferenceExpression && args.get(0) instanceof ValueLiteralExpression) {
            // Vitess wants the column on the left: 5 < x is x > 5.
            return compare((FieldReferenceExpression) args.get(1), flip(op), (ValueLiteralExpression) args.get(0));
        }
        return Optional.empty();
    }

    private static String comparison(FunctionDefinition fn) {
        if (fn == BuiltInFunctionDefinitions.EQUALS) {
            return "=";
        } else if (fn == BuiltInFunctionDefinitions.NOT_EQUALS) {
            return "!=";
        } else if (fn == BuiltInFunctionDefinitions.LESS_THAN) {
            return "<";
        } else if (fn == BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL) {
            return "<=";
        } else if (fn == BuiltInFunctionDefinitions.GREATER_THAN) {
            return ">";
        } else if (fn == BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL) {
            return ">=";
        }
        return null;
    }

    private static String flip(String op) {
        switch (op) {
            case "<":
                return ">";
            case "<=":
                return ">=";
            case ">":
                return "<";
            case ">=":
                return "<=";
            default:
                return op;
        }
    }

    private enum Kind {
        NUMBER,
        DATE,
        STRING
    }

    private static Kind kind(FieldReferenceExpression column) {
        LogicalTypeRoot root = column.getOutputDataType().getLogicalType().getTypeRoot();
        switch (root) {
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case DECIMAL:
                return Kind.NUMBER;
            case DATE:
                return Kind.DATE;
            case CHAR:
            case VARCHAR:
                return Kind.STRING;
            default:
                return null;
        }
    }

    private static Optional<String> compare(FieldReferenceExpression column, String op, ValueLiteralExpression lit) {
        Kind kind = kind(column);
        if (kind == null || (kind == Kind.STRING && !op.equals("="))) {
            return Optional.empty();
        }
        return literal(kind, lit).map(v -> identifier(column.getName()) + " " + op + " " + v);
    }

    /** x = a OR x = b OR … on one column: x in (a, b, …). Flink hands IN lists over this way. */
    private static Optional<String> inList(List<ResolvedExpression> disjuncts) {
        List<ResolvedExpression> flat = new ArrayList<>();
        flatten(disjuncts, flat);
        FieldReferenceExpression column = null;
        List<ResolvedExpression> values = new ArrayList<>();
        for (ResolvedExpression d : flat) {
            FieldReferenceExpression col = d instanceof CallExpression ? equalityColumn((CallExpression) d) : null;
            if (col == null || (column != null && !sameColumn(column, col))) {
                return Optional.empty();
            }
            column = col;
            values.add(equalityValue((CallExpression) d));
        }
        return column == null ? Optional.empty() : in(column, values);
    }

    private static void flatten(List<ResolvedExpression> disjuncts, List<ResolvedExpression> out) {
        for (ResolvedExpression d : disjuncts) {
            if (d instanceof CallExpression
                    && ((CallExpression) d).getFunctionDefinition() == BuiltInFunctionDefinitions.OR) {
                flatten(((CallExpression) d).getResolvedChildren(), out);
            } else {
                out.add(d);
            }
        }
    }

    private static boolean sameColumn(FieldReferenceExpression a, FieldReferenceExpression b) {
        return a.getName().equals(b.getName()) && a.getInputIndex() == b.getInputIndex();
    }

    /** The column of `column = literal` (either side), else null. */
    private static FieldReferenceExpression equalityColumn(CallExpression c) {
        if (c.getFunctionDefinition() != BuiltInFunctionDefinitions.EQUALS
                || c.getResolvedChildren().size() != 2) {
            return null;
        }
        ResolvedExpression l = c.getResolvedChildren().get(0);
        ResolvedExpression r = c.getResolvedChildren().get(1);
        if (l instanceof FieldReferenceExpression && r instanceof ValueLiteralExpression) {
            return (FieldReferenceExpression) l;
        }
        if (r instanceof FieldReferenceExpression && l instanceof ValueLiteralExpression) {
            return (FieldReferenceExpression) r;
        }
        return null;
    }

    private static ResolvedExpression equalityValue(CallExpression c) {
        ResolvedExpression l = c.getResolvedChildren().get(0);
        return l instanceof ValueLiteralExpression ? l : c.getResolvedChildren().get(1);
    }

    private static Optional<String> in(FieldReferenceExpression column, List<ResolvedExpression> values) {
        Kind kind = kind(column);
        if (kind == null || values.isEmpty()) {
            return Optional.empty();
        }
        List<String> rendered = new ArrayList<>();
        for (ResolvedExpression v : values) {
            if (!(v instanceof ValueLiteralExpression)) {
                return Optional.empty();
            }
            Optional<String> lit = literal(kind, (ValueLiteralExpression) v);
            if (lit.isEmpty()) {
                return Optional.empty();
            }
            rendered.add(lit.get());
        }
        return Optional.of(identifier(column.getName()) + " in (" + String.join(", ", rendered) + ")");
    }

    /** A literal as SQL, or empty if it is of another kind than the column or odd. */
    private static Optional<String> literal(Kind kind, ValueLiteralExpression lit) {
        if (lit.isNull()) {
            return Optional.empty();
        }
        Object v = lit.getValueAs(Object.class).orElse(null);
        switch (kind) {
            case NUMBER:
                BigDecimal d;
                if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
                    d = BigDecimal.valueOf(((Number) v).longValue());
                } else if (v instanceof BigInteger) {
                    d = new BigDecimal((BigInteger) v);
                } else if (v instanceof BigDecimal) {
                    d = (BigDecimal) v;
                } else {
                    return Optional.empty(); // floating point, strings, …
                }
                if (d.signum() < 0) {
                    return Optional.empty(); // Vitess's planner takes -5 for an expression, not a literal
                }
                return Optional.of(d.toPlainString());
            case DATE:
                if (!(v instanceof LocalDate)) {
                    return Optional.empty();
                }
                LocalDate date = (LocalDate) v;
                if (date.getYear() < 1000 || date.getYear() > 9999) {
                    return Optional.empty();
                }
                return Optional.of("'" + date + "'");
            case STRING:
                return v instanceof String ? quote((String) v) : Optional.empty();
            default:
                return Optional.empty();
        }
    }

    /**
     * A string literal: quotes doubled, backslashes escaped (Vitess's parser and MySQL's default SQL
     * mode read backslash escapes). Control characters are refused rather than escaped.
     */
    static Optional<String> quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('\'');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch < 0x20 || ch == 0x7f || Character.isSurrogate(ch) && !validSurrogate(s, i)) {
                return Optional.empty();
            }
            if (ch == '\'') {
                sb.append("''");
            } else if (ch == '\\') {
                sb.append("\\\\");
            } else {
                sb.append(ch);
            }
        }
        return Optional.of(sb.append('\'').toString());
    }

    private static boolean validSurrogate(String s, int i) {
        char ch = s.charAt(i);
        if (Character.isHighSurrogate(ch)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    /** A column name in backticks, backticks doubled. */
    static String identifier(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
