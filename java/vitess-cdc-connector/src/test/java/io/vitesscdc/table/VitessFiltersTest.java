/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.DataType;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** What filter push-down hands to VStream and what stays in Flink only; no server needed. */
class VitessFiltersTest {

    private static FieldReferenceExpression col(String name, DataType type) {
        return new FieldReferenceExpression(name, type, 0, 0);
    }

    private static CallExpression call(FunctionDefinition fn, ResolvedExpression... args) {
        return CallExpression.anonymous(fn, Arrays.asList(args), DataTypes.BOOLEAN());
    }

    private static ValueLiteralExpression lit(Object v) {
        return new ValueLiteralExpression(v);
    }

    private static Optional<String> sql(ResolvedExpression e) {
        return VitessFilters.toSql(e);
    }

    private static final FieldReferenceExpression ID = col("id", DataTypes.BIGINT());
    private static final FieldReferenceExpression QTY = col("qty", DataTypes.INT());
    private static final FieldReferenceExpression PRICE = col("price", DataTypes.DECIMAL(10, 2));
    private static final FieldReferenceExpression NAME = col("name", DataTypes.STRING());
    private static final FieldReferenceExpression DAY = col("day", DataTypes.DATE());

    @Test
    void numericComparisonsArePushedWithTheColumnOnTheLeft() {
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, ID, lit(5L)))).hasValue("`id` = 5");
        assertThat(sql(call(BuiltInFunctionDefinitions.NOT_EQUALS, QTY, lit(7))))
                .hasValue("`qty` != 7");
        assertThat(sql(call(BuiltInFunctionDefinitions.LESS_THAN, ID, lit(5L)))).hasValue("`id` < 5");
        assertThat(sql(call(BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL, ID, lit((short) 5))))
                .hasValue("`id` <= 5");
        assertThat(sql(call(BuiltInFunctionDefinitions.GREATER_THAN, ID, lit((byte) 5))))
                .hasValue("`id` > 5");
        assertThat(sql(call(BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, PRICE, lit(new BigDecimal("2.50")))))
                .hasValue("`price` >= 2.50");
        assertThat(sql(call(BuiltInFunctionDefinitions.GREATER_THAN, PRICE, lit(new BigDecimal("1E+3")))))
                .as("plain notation, no exponent")
                .hasValue("`price` > 1000");
        // 5 < id is id > 5
        assertThat(sql(call(BuiltInFunctionDefinitions.LESS_THAN, lit(5L), ID))).hasValue("`id` > 5");
        assertThat(sql(call(BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, lit(5L), ID)))
                .hasValue("`id` <= 5");
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, lit(new BigDecimal("18446744073709551615")), ID)))
                .hasValue("`id` = 18446744073709551615");
    }

    @Test
    void nullTestsAndInListsArePushed() {
        assertThat(sql(call(BuiltInFunctionDefinitions.IS_NULL, NAME))).hasValue("`name` is null");
        assertThat(sql(call(BuiltInFunctionDefinitions.IS_NOT_NULL, PRICE))).hasValue("`price` is not null");
        ResolvedExpression in = call(
                BuiltInFunctionDefinitions.OR,
                call(BuiltInFunctionDefinitions.EQUALS, ID, lit(1L)),
                call(
                        BuiltInFunctionDefinitions.OR,
                        call(BuiltInFunctionDefinitions.EQUALS, lit(2L), ID),
                        call(BuiltInFunctionDefinitions.EQUALS, ID, lit(3L))));
        assertThat(sql(in)).hasValue("`id` in (1, 2, 3)");
        assertThat(sql(call(BuiltInFunctionDefinitions.IN, NAME, lit("a"), lit("b'c"))))
                .hasValue("`name` in ('a', 'b''c')");
        assertThat(sql(call(BuiltInFunctionDefinitions.IN, DAY, lit(LocalDate.of(2024, 6, 1)))))
                .hasValue("`day` in ('2024-06-01')");
    }

    @Test
    void whatVitessDoesNotEvaluateLikeFlinkStaysInFlink() {
        // Negative literals: Vitess's planner fails the stream on `n = -5` (not a literal to it).
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, ID, lit(-5L)))).isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.LESS_THAN, PRICE, lit(new BigDecimal("-0.5")))))
                .isEmpty();
        // Strings: the column's collation orders differently from Flink; only equality is a superset.
        assertThat(sql(call(BuiltInFunctionDefinitions.LESS_THAN, NAME, lit("b"))))
                .isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.NOT_EQUALS, NAME, lit("b"))))
                .isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, NAME, lit("b")))).hasValue("`name` = 'b'");
        // Floating point, booleans (Vitess refuses TRUE), timestamps (time zones), bytes.
        assertThat(sql(call(BuiltInFunctionDefinitions.GREATER_THAN, col("f", DataTypes.DOUBLE()), lit(1.5d))))
                .isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.GREATER_THAN, ID, lit(1.5d))))
                .as("a floating-point literal")
                .isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, col("b", DataTypes.BOOLEAN()), lit(true))))
                .isEmpty();
        assertThat(sql(call(
                        BuiltInFunctionDefinitions.GREATER_THAN,
                        col("ts", DataTypes.TIMESTAMP(3)),
                        lit(LocalDateTime.of(2024, 1, 1, 0, 0)))))
                .isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, col("bin", DataTypes.BYTES()), lit(new byte[] {1}))))
                .isEmpty();
        // A literal of another kind than the column, NULL literals, column vs column.
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, ID, lit("5")))).isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, NAME, lit(5)))).isEmpty();
        assertThat(sql(call(
                        BuiltInFunctionDefinitions.EQUALS, ID, new ValueLiteralExpression(null, DataTypes.BIGINT()))))
                .isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, ID, QTY))).isEmpty();
        // OR of different columns or of non-equalities, NOT, functions.
        assertThat(sql(call(
                        BuiltInFunctionDefinitions.OR,
                        call(BuiltInFunctionDefinitions.EQUALS, ID, lit(1L)),
                        call(BuiltInFunctionDefinitions.EQUALS, QTY, lit(1)))))
                .isEmpty();
        assertThat(sql(call(
                        BuiltInFunctionDefinitions.OR,
                        call(BuiltInFunctionDefinitions.EQUALS, ID, lit(1L)),
                        call(BuiltInFunctionDefinitions.GREATER_THAN, ID, lit(9L)))))
                .isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.NOT, call(BuiltInFunctionDefinitions.IS_NULL, ID))))
                .isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.LIKE, NAME, lit("a%")))).isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.IN, ID, lit(1L), lit(-1L))))
                .as("one odd value keeps the whole list in Flink")
                .isEmpty();
    }

    @Test
    void stringsAreQuotedAndOddOnesRefused() {
        assertThat(VitessFilters.quote("it's")).hasValue("'it''s'");
        assertThat(VitessFilters.quote("back\\slash")).hasValue("'back\\\\slash'");
        assertThat(VitessFilters.quote("x' or '1'='1")).hasValue("'x'' or ''1''=''1'");
        assertThat(VitessFilters.quote("\u00e9\u4e2d\ud83d\ude00")).hasValue("'\u00e9\u4e2d\ud83d\ude00'");
        assertThat(VitessFilters.quote("")).hasValue("''");
        assertThat(VitessFilters.quote("nul\0")).isEmpty();
        assertThat(VitessFilters.quote("line\nbreak")).isEmpty();
        assertThat(VitessFilters.quote("lone \ud83d surrogate")).isEmpty();
        assertThat(VitessFilters.identifier("we`ird")).isEqualTo("`we``ird`");
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, col("we`ird", DataTypes.STRING()), lit("\\'"))))
                .hasValue("`we``ird` = '\\\\'''");
    }

    @Test
    void datesArePushedInIsoForm() {
        assertThat(sql(call(BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, DAY, lit(LocalDate.of(2024, 6, 1)))))
                .hasValue("`day` >= '2024-06-01'");
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, DAY, lit(LocalDate.of(99, 1, 1)))))
                .as("years MySQL would read differently")
                .isEmpty();
        assertThat(sql(call(BuiltInFunctionDefinitions.EQUALS, DAY, lit("2024-06-01"))))
                .isEmpty();
    }

    @Test
    void translateJoinsTheAcceptedConjunctsAndSkipsTheRest() {
        List<ResolvedExpression> filters = List.of(
                call(BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, ID, lit(5L)),
                call(BuiltInFunctionDefinitions.LIKE, NAME, lit("a%")),
                call(BuiltInFunctionDefinitions.IS_NOT_NULL, PRICE));
        VitessFilters.Translation t = VitessFilters.translate(filters);
        assertThat(t.where()).isEqualTo("`id` >= 5 and `price` is not null");
        assertThat(t.accepted()).containsExactly(filters.get(0), filters.get(2));
        assertThat(VitessFilters.translate(List.of(filters.get(1))).where()).isNull();
        ResolvedExpression between = call(
                BuiltInFunctionDefinitions.AND,
                call(BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, ID, lit(5L)),
                call(BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL, ID, lit(100L)));
        assertThat(sql(between)).hasValue("`id` >= 5 and `id` <= 100");
        assertThat(sql(call(
                        BuiltInFunctionDefinitions.AND,
                        call(BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, ID, lit(5L)),
                        call(BuiltInFunctionDefinitions.LIKE, NAME, lit("a%")))))
                .as("a nested AND is pushed whole or not at all")
                .isEmpty();
    }

    private static final String TABLE = "CREATE TABLE src (id BIGINT, qty INT, price DECIMAL(10, 2), name STRING, "
            + "d DATE, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'vitess-cdc', "
            + "'keyspace' = 'ks', 'hostname' = 'vtgate', 'changelog-mode' = 'upsert', 'table-name' = ";

    /** The plan of a query: the scan's pushed filter and Flink's Calc that still evaluates all of it. */
    private static String explain(String tableName, String where) {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.executeSql(TABLE + "'" + tableName + "')");
        return tEnv.explainSql("SELECT id, qty FROM src WHERE " + where);
    }

    @Test
    void thePlannerPushesWhatVitessEvaluatesAndKeepsEverythingInFlink() {
        String plan = explain(
                "t",
                "id BETWEEN 5 AND 100 AND qty IN (1, 2, 3) AND name = 'x''y' AND price > 2.5 "
                        + "AND d >= DATE '2024-06-01' AND ts > TIMESTAMP '2024-01-01 00:00:00' AND name LIKE 'a%'");
        String scan = plan.lines()
                .filter(l -> l.contains("TableSourceScan"))
                .findFirst()
                .orElseThrow();
        assertThat(scan)
                .as(plan)
                .contains("filter=[")
                .contains(">=(id, 5)")
                .contains("<=(id, 100)")
                .contains("qty")
                .contains("=(name, _UTF-16LE'x''y'")
                .contains(">(price, 2.5")
                .contains(">=(d, 2024-06-01)")
                .doesNotContain("LIKE")
                .doesNotContain("(ts, ");
        // Upsert mode: the PK predicate is evaluated below ChangelogNormalize, the others in it.
        String physical = plan.substring(plan.indexOf("== Optimized Physical Plan =="), plan.indexOf(scan));
        assertThat(physical)
                .as("Flink still evaluates every predicate: " + plan)
                .contains("where=[SEARCH(id, Sarg[[5..100]])]")
                .contains("SEARCH(qty, Sarg[1, 2, 3])")
                .contains("=(name, _UTF-16LE'x''y'")
                .contains(">(price, 2.5")
                .contains(">=(d, 2024-06-01)")
                .contains(">(ts, 2024-01-01 00:00:00)")
                .contains("LIKE(name, _UTF-16LE'a%')");
    }

    @Test
    void tablePatternsGetNoPushDown() {
        String plan = explain("/t.*", "id > 5");
        assertThat(plan.lines().filter(l -> l.contains("TableSourceScan")))
                .as(plan)
                .allSatisfy(l -> assertThat(l).contains("filter=[]"));
    }

    @Test
    void pushDownCanBeTurnedOff() {
        String plan = explain("t', 'scan.filter-push-down.enabled' = 'false", "id > 5");
        // Not even an empty filter spec: the source does not offer filter push-down at all.
        assertThat(plan.lines().filter(l -> l.contains("TableSourceScan")))
                .as(plan)
                .isNotEmpty()
                .allSatisfy(l -> assertThat(l).doesNotContain("filter="));
        assertThat(plan).as("Flink evaluates the filter").contains(">(id, 5)");
    }
}
