/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.VitessSource;
import io.vitesscdc.source.VitessSourceBuilder;
import io.vitesscdc.source.config.VitessDefaults;
import io.vitesscdc.source.config.VitessSourceConfig;
import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

import org.junit.jupiter.api.Test;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/options.md's tables are checked against the code: every SQL option exists with the
 * documented default and type, every builder method exists and renders the documented JSON field
 * with the documented default, and no SQL option or builder method is missing from the tables. The
 * Rust side checks the same table against the core's defaults and the CLI (the CLI crate's
 * {@code options_doc} test), so the Java defaults ({@link VitessDefaults}) equal the core's through
 * the one table both are tested against.
 */
class VitessOptionsDocTest {

    private static final String MAIN_HEADER = "| setting | SQL option | builder | CLI flag | JSON field | default |";
    private static final String JAVA_ONLY_HEADER = "| setting | builder | default |";
    private static final Pattern METHOD = Pattern.compile("([a-z][A-Za-z]*)(\\(.*\\))?");
    private static final Pattern QUANTITY = Pattern.compile("(\\d+) (ms|s|MiB)");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One table row: its cells by column name. */
    private record Row(Map<String, String> cells) {
        String get(String column) {
            return cells.get(column);
        }
    }

    @Test
    void everySqlOptionHasTheDocumentedDefaultAndType() throws Exception {
        Map<String, ConfigOption<?>> options = factoryOptions();
        Map<String, List<Row>> rowsByKey = new HashMap<>();
        for (Row row : table(MAIN_HEADER)) {
            for (String key : leadingCodeSpans(row.get("SQL option"))) {
                assertThat(options)
                        .as("docs/options.md names the SQL option '%s'", key)
                        .containsKey(key);
                rowsByKey.computeIfAbsent(key, k -> new ArrayList<>()).add(row);
            }
        }
        int checked = 0;
        for (Map.Entry<String, List<Row>> e : rowsByKey.entrySet()) {
            ConfigOption<?> option = options.get(e.getKey());
            // A key documented in a row of its own is checked there; else in every row naming it.
            List<Row> own = e.getValue().stream()
                    .filter(r -> leadingCodeSpans(r.get("SQL option")).size() == 1)
                    .toList();
            for (Row row : own.isEmpty() ? e.getValue() : own) {
                String documented = defaultOf(row.get("default"));
                if (isCoreKnob(option, row)) {
                    // Its one definition is the core's (checked against this table by the CLI
                    // crate's options_doc test); Java must not declare a second one.
                    assertThat(option.hasDefaultValue())
                            .as(
                                    "'%s' is a knob of the core (JSON field %s): its default is the core's, "
                                            + "the SQL option declares none (it has %s)",
                                    option.key(),
                                    row.get("JSON field"),
                                    option.hasDefaultValue() ? option.defaultValue() : null)
                            .isFalse();
                    checked++;
                } else if (documented == null) {
                    assertThat(option.hasDefaultValue())
                            .as(
                                    "'%s' has no documented default but defaults to %s",
                                    option.key(), option.hasDefaultValue() ? option.defaultValue() : null)
                            .isFalse();
                } else {
                    assertThat(option.hasDefaultValue())
                            .as("'%s' is documented as %s", option.key(), documented)
                            .isTrue();
                    assertThat(parse(documented, option.defaultValue().getClass()))
                            .as("the default of '%s' (docs/options.md says %s)", option.key(), documented)
                            .isEqualTo(option.defaultValue());
                    checked++;
                }
            }
        }
        assertThat(checked).isGreaterThanOrEqualTo(15);
        assertThat(rowsByKey.keySet())
                .as("SQL options missing from docs/options.md")
                .containsAll(options.keySet());
    }

    /** docs/sql-connector.md repeats the SQL options for SQL users; its defaults must be these too. */
    @Test
    void theSqlConnectorPageHasTheSameDefaults() throws Exception {
        Map<String, ConfigOption<?>> options = factoryOptions();
        Map<String, String> coreDefaults = new HashMap<>();
        for (Row row : table(MAIN_HEADER)) {
            List<String> keys = leadingCodeSpans(row.get("SQL option"));
            if (keys.size() == 1
                    && isCoreKnob(options.get(keys.get(0)), row)
                    && defaultOf(row.get("default")) != null) {
                coreDefaults.put(keys.get(0), defaultOf(row.get("default")));
            }
        }
        assertThat(coreDefaults).hasSizeGreaterThanOrEqualTo(11);
        Set<String> documented = new TreeSet<>();
        for (Row row : table(Paths.get("sql-connector.md"), "| option | default | meaning |")) {
            String[] keys = row.get("option").split(" / ");
            String[] defaults = row.get("default").split(" / ");
            for (int i = 0; i < keys.length; i++) {
                String key = codeSpans(keys[i]).get(0);
                if (key.equals("connector")) {
                    continue;
                }
                ConfigOption<?> option = options.get(key);
                assertThat(option)
                        .as("docs/sql-connector.md names the SQL option '%s'", key)
                        .isNotNull();
                documented.add(key);
                String value = defaultOf(defaults[defaults.length == keys.length ? i : 0]);
                String core = coreDefaults.get(key);
                if (core != null) {
                    // A core knob: this page must show the default docs/options.md tables for it.
                    assertThat(value)
                            .as("docs/sql-connector.md documents the core's default of '%s'", key)
                            .isNotNull();
                    Configuration given = new Configuration();
                    given.setString(key, value);
                    Object shown = given.get(option);
                    assertThat(parse(core, shown.getClass()))
                            .as("the default of '%s' (docs/sql-connector.md says %s, options.md %s)", key, value, core)
                            .isEqualTo(shown);
                } else if (value == null) {
                    assertThat(option.hasDefaultValue())
                            .as("'%s' has no default in docs/sql-connector.md", key)
                            .isFalse();
                } else {
                    Object expected = option.defaultValue() instanceof MemorySize
                            ? MemorySize.parse(value)
                            : parse(value, option.defaultValue().getClass());
                    assertThat(expected)
                            .as("the default of '%s' (docs/sql-connector.md says %s)", key, value)
                            .isEqualTo(option.defaultValue());
                }
            }
        }
        assertThat(documented)
                .as("SQL options missing from docs/sql-connector.md")
                .containsAll(options.keySet());
    }

    @Test
    void everyBuilderMethodIsDocumentedAndRendersTheDocumentedDefault() throws Exception {
        Set<String> documented = new TreeSet<>();
        int rendered = 0;
        for (Row row : table(MAIN_HEADER)) {
            List<String> methods = methods(row.get("builder"));
            documented.addAll(methods);
            String value = defaultOf(row.get("default"));
            String field = defaultOf(row.get("JSON field"));
            if (methods.size() != 1 || value == null || field == null) {
                continue;
            }
            Method m = builderMethod(methods.get(0));
            if (m.getParameterCount() != 1 || !PARAMETER_TYPES.contains(m.getParameterTypes()[0])) {
                continue; // an enum or several values: the JSON field is the native mapping's business
            }
            VitessSourceBuilder<String> builder = minimalBuilder();
            m.invoke(builder, parse(value, m.getParameterTypes()[0]));
            JsonNode json = nativeJson(builder.build().config());
            assertThat(json.has(field))
                    .as("%s(%s) sets the JSON field %s: %s", m.getName(), value, field, json)
                    .isTrue();
            assertThat(json.get(field).asText())
                    .as("%s(%s) renders %s", m.getName(), value, field)
                    .isEqualTo(inUnitOf(field, value));
            rendered++;
        }
        assertThat(rendered).isGreaterThanOrEqualTo(12);
        for (Row row : table(JAVA_ONLY_HEADER)) {
            documented.addAll(methods(row.get("builder")));
        }
        Set<String> public_ = new TreeSet<>();
        for (Method m : VitessSourceBuilder.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic()) {
                public_.add(m.getName());
            }
        }
        public_.removeAll(Set.of("build", "deserializer", "nativeOption"));
        assertThat(documented).as("builder methods of docs/options.md").isSubsetOf(public_);
        assertThat(documented)
                .as("builder methods missing from docs/options.md")
                .containsAll(public_);
    }

    @Test
    void aBuilderLeftAloneSendsNoCoreKnobAndHasTheDocumentedJavaDefaults() throws Exception {
        VitessSourceConfig config = minimalBuilder().build().config();
        assertThat(nativeJson(config).fieldNames())
                .toIterable()
                .containsExactlyInAnyOrder("address", "keyspace", "shards", "start_mode");
        Map<String, List<Object>> actual = Map.of(
                "heartbeatWatermarks", List.of(config.heartbeatWatermarks()),
                "pollTimeout", List.of(config.pollTimeout()),
                "batchBufferBytes",
                        List.of(
                                MemorySize.parse(config.initialBufferBytes() + "b"),
                                MemorySize.parse(config.maxBufferBytes() + "b")));
        List<Row> rows = table(JAVA_ONLY_HEADER);
        assertThat(rows).hasSize(actual.size());
        for (Row row : rows) {
            String method = methods(row.get("builder")).get(0);
            List<Object> values = actual.get(method);
            assertThat(values)
                    .as("a Java-only setting this test does not know: %s", method)
                    .isNotNull();
            List<String> documented = codeSpans(row.get("default"));
            assertThat(documented).hasSize(values.size());
            for (int i = 0; i < values.size(); i++) {
                assertThat(parse(documented.get(i), values.get(i).getClass()))
                        .as("the default of %s (docs/options.md says %s)", method, documented.get(i))
                        .isEqualTo(values.get(i));
            }
        }
    }

    /**
     * SQL options with a JSON field whose default the Java side decides itself ({@code
     * VitessDefaults}): the factory needs their value at planning. Every other option with a JSON
     * field is a knob of the core.
     */
    private static final Set<String> JAVA_DECIDED =
            Set.of("scan.allow-tables-without-primary-key", "scan.startup.mode");

    private static boolean isCoreKnob(ConfigOption<?> option, Row row) {
        return option != null && defaultOf(row.get("JSON field")) != null && !JAVA_DECIDED.contains(option.key());
    }

    private static final Set<Class<?>> PARAMETER_TYPES =
            Set.of(Duration.class, MemorySize.class, int.class, boolean.class, String.class);

    private static VitessSourceBuilder<String> minimalBuilder() {
        return VitessSource.<String>builder()
                .address("127.0.0.1:1")
                .keyspace("ks")
                .deserializer(new JsonDebeziumDeserializationSchema());
    }

    private static JsonNode nativeJson(VitessSourceConfig config) throws IOException {
        return JSON.readTree(config.toNativeOptionsJson(List.of(), "initial"));
    }

    private static Method builderMethod(String name) {
        for (Method m : VitessSourceBuilder.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError("docs/options.md names the builder method " + name + ", which does not exist");
    }

    private static Map<String, ConfigOption<?>> factoryOptions() {
        VitessDynamicTableFactory factory = new VitessDynamicTableFactory();
        Map<String, ConfigOption<?>> options = new HashMap<>();
        factory.requiredOptions().forEach(o -> options.put(o.key(), o));
        factory.optionalOptions().forEach(o -> options.put(o.key(), o));
        return options;
    }

    /** A documented value as the given type: {@code 10 s}, {@code 200 ms}, {@code 17 MiB}, a number, a word. */
    private static Object parse(String value, Class<?> type) {
        Matcher q = QUANTITY.matcher(value);
        boolean quantity = q.matches();
        if (type == Duration.class) {
            assertThat(quantity && !q.group(2).equals("MiB"))
                    .as("%s is a duration", value)
                    .isTrue();
            long n = Long.parseLong(q.group(1));
            return q.group(2).equals("ms") ? Duration.ofMillis(n) : Duration.ofSeconds(n);
        }
        if (type == MemorySize.class) {
            assertThat(quantity && q.group(2).equals("MiB"))
                    .as("%s is a size", value)
                    .isTrue();
            return MemorySize.ofMebiBytes(Long.parseLong(q.group(1)));
        }
        assertThat(quantity).as("%s is a plain %s", value, type.getSimpleName()).isFalse();
        if (type == Integer.class || type == int.class) {
            return Integer.parseInt(value);
        }
        if (type == Boolean.class || type == boolean.class) {
            assertThat(value).isIn("true", "false");
            return Boolean.parseBoolean(value);
        }
        if (type == String.class) {
            assertThat(value).as("%s is a word", value).doesNotMatch("\\d+|true|false");
            return value;
        }
        throw new AssertionError("no documented form for " + type + ": " + value);
    }

    /** A documented value in the unit of a JSON field's name ({@code _ms}, {@code _secs}, {@code _bytes}). */
    private static String inUnitOf(String field, String value) {
        Matcher q = QUANTITY.matcher(value);
        if (!q.matches()) {
            return value;
        }
        long n = Long.parseLong(q.group(1));
        long millis = q.group(2).equals("ms") ? n : n * 1000;
        if (field.endsWith("_ms")) {
            return Long.toString(millis);
        }
        if (field.endsWith("_secs")) {
            assertThat(millis % 1000).as("%s is whole seconds", value).isZero();
            return Long.toString(millis / 1000);
        }
        assertThat(field).endsWith("_bytes");
        return Long.toString(MemorySize.ofMebiBytes(n).getBytes());
    }

    /** The builder methods of a cell: its leading code spans that are method names. */
    private static List<String> methods(String cell) {
        List<String> methods = new ArrayList<>();
        for (String span : leadingCodeSpans(cell)) {
            Matcher m = METHOD.matcher(span);
            if (m.matches()) {
                methods.add(m.group(1));
            }
        }
        return methods;
    }

    /** The documented default: the code span a cell starts with, or null (the cell starts with a word). */
    private static String defaultOf(String cell) {
        return cell.startsWith("`") ? codeSpans(cell).get(0) : null;
    }

    /** The code spans before the first ':' or '(' outside code spans (what follows are values, notes). */
    private static List<String> leadingCodeSpans(String cell) {
        boolean inCode = false;
        int end = cell.length();
        for (int i = 0; i < cell.length(); i++) {
            char c = cell.charAt(i);
            if (c == '`') {
                inCode = !inCode;
            } else if (!inCode && (c == ':' || c == '(')) {
                end = i;
                break;
            }
        }
        return codeSpans(cell.substring(0, end));
    }

    private static List<String> codeSpans(String cell) {
        List<String> spans = new ArrayList<>();
        String[] parts = cell.split("`", -1);
        for (int i = 1; i < parts.length; i += 2) {
            spans.add(parts[i]);
        }
        return spans;
    }

    private static List<Row> table(String header) throws IOException {
        return table(Paths.get("options.md"), header);
    }

    private static List<Row> table(Path doc, String header) throws IOException {
        List<String> lines = Files.readAllLines(docsDir().resolve(doc));
        int start = lines.indexOf(header);
        assertThat(start).as("docs/%s has the table %s", doc, header).isNotNegative();
        List<String> columns = cells(header);
        List<Row> rows = new ArrayList<>();
        for (int i = start + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            List<String> cells = cells(lines.get(i));
            assertThat(cells).as("a row of docs/%s: %s", doc, lines.get(i)).hasSameSizeAs(columns);
            Map<String, String> row = new HashMap<>();
            for (int c = 0; c < columns.size(); c++) {
                row.put(columns.get(c), cells.get(c));
            }
            rows.add(new Row(row));
        }
        assertThat(rows).isNotEmpty();
        return rows;
    }

    /** The cells of a markdown table row ({@code \|} is a literal bar). */
    private static List<String> cells(String line) {
        String inner = line.trim().replaceAll("^\\|", "").replaceAll("\\|$", "");
        List<String> cells = new ArrayList<>();
        for (String cell : inner.split("(?<!\\\\)\\|", -1)) {
            cells.add(cell.replace("\\|", "|").trim());
        }
        return cells;
    }

    private static Path docsDir() {
        Set<Path> tried = new HashSet<>();
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("docs").resolve("options.md");
            tried.add(candidate);
            if (Files.isRegularFile(candidate)) {
                return candidate.getParent();
            }
        }
        throw new AssertionError("docs/options.md not found; tried " + tried);
    }
}
