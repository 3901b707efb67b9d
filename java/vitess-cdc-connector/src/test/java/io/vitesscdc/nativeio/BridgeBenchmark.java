/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import io.vitesscdc.source.deserializer.VitessDeserializationSchema;
import io.vitesscdc.source.testutils.FixedRecordContext;
import io.vitesscdc.table.RowDataVitessDeserializationSchema;

import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.Collector;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Benchmark of the JNI bridge (a program, not a test: it prints figures and writes them as JSON,
 * and asserts nothing). Measured in one JVM, on whatever machine runs it:
 *
 * <ul>
 *   <li>baselines: a bare JNI call, a JNI call with the bridge's wrapper (panic catching, error
 *       policy), and a Java copy of the same bytes between two direct buffers;
 *   <li>the bridge's poll over a batch encoded once in native memory ({@code nativeBenchPoll}: the
 *       same handle lookup, buffer address and capacity, copy and result code as {@code nativePoll},
 *       without a stream behind it), raw and through the Java checks of {@link NativeStream#poll}:
 *       ns per poll (the fixed cost, from a one-row batch) and bytes/s at 4 KiB, 64 KiB, 1 MiB;
 *   <li>records/s of poll + {@link BatchDecoder} + the SQL connector's converter into Flink
 *       {@link RowData} (every column), for rows shaped like {@code customer.customer} and
 *       {@code customer.all_types}.
 * </ul>
 *
 * <p>Run (docs/benchmarks.md): {@code mvn -q -pl java/vitess-cdc-connector test-compile
 * exec:exec@bridge-bench} (release native library; JSON to {@code target/bridge-bench.json}, or
 * {@code -Dbridge.bench.json=...}). Arguments: {@code --json <file>}, {@code --quick}.
 */
public final class BridgeBenchmark {

    /** Keeps results alive so the JIT cannot drop the work. */
    static volatile long sink;

    /** One measured operation; returns a value folded into {@link #sink}. */
    @FunctionalInterface
    interface Op {
        long run(long iterations);
    }

    record Row(String group, String name, long bytesPerOp, double recordsPerOp, double medianNs, double minNs) {

        /** From the best sample (the machine's cost; the median includes other load). */
        double gbPerSecond() {
            return bytesPerOp == 0 ? 0 : bytesPerOp / minNs;
        }

        double recordsPerSecond() {
            return recordsPerOp == 0 ? 0 : recordsPerOp * 1e9 / minNs;
        }
    }

    private final double sampleSeconds;
    private final int samples;
    private final List<Row> rows = new ArrayList<>();

    private BridgeBenchmark(boolean quick) {
        // Many short samples: on a shared machine some land in quiet moments (the minimum is the
        // machine's cost; the median shows the load).
        this.sampleSeconds = quick ? 0.03 : 0.1;
        this.samples = quick ? 5 : 21;
    }

    /** Only the conversions into Flink (an A/B of the SQL converter: docs/benchmarks.md). */
    private static boolean rowDataOnly = Boolean.getBoolean("vitesscdc.bench.rowdata-only");

    public static void main(String[] args) throws Exception {
        Path json = Paths.get("target", "bridge-bench.json");
        boolean quick = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--json") && i + 1 < args.length) {
                json = Paths.get(args[++i]);
            } else if (args[i].equals("--quick")) {
                quick = true;
            } else if (args[i].equals("--rowdata-only")) {
                rowDataOnly = true;
            } else {
                System.err.println("usage: BridgeBenchmark [--json <file>] [--quick] [--rowdata-only]");
                System.exit(2);
            }
        }
        NativeLibrary.load();
        NativeLogs.configure(); // as after an open: the poll path reads the log counters
        BridgeBenchmark bench = new BridgeBenchmark(quick);
        bench.run();
        bench.print();
        bench.writeJson(json);
        System.out.println("JSON: " + json.toAbsolutePath());
    }

    private void run() {
        if (rowDataOnly) {
            // Twice, keeping the second pass: the first one's figures carry the JIT's work on
            // each new shape (code compiled for one table's types is recompiled for the next).
            for (int pass = 0; pass < 2; pass++) {
                rows.clear();
                System.out.println(pass == 0 ? "warm-up pass (discarded):" : "measured pass:");
                decode("customer", NativeDiagnostics.SHAPE_CUSTOMER, customerType());
                decode("all_types", NativeDiagnostics.SHAPE_ALL_TYPES, allTypesType());
            }
            return;
        }
        // ---- baselines ----
        measure("baseline", "JNI call, bare (nativeNoopRaw)", 0, 0, n -> {
            for (long i = 0; i < n; i++) {
                NativeDiagnostics.nativeNoopRaw();
            }
            return n;
        });
        measure("baseline", "JNI call, bridge wrapper (nativeNoop)", 0, 0, n -> {
            for (long i = 0; i < n; i++) {
                NativeDiagnostics.nativeNoop();
            }
            return n;
        });

        // ---- the poll: fixed cost and bandwidth ----
        int[] sizes = {0, 4 << 10, 64 << 10, 1 << 20};
        for (int size : sizes) {
            // 0 = the smallest batch there is: one customer row (~130 bytes).
            long handle = NativeDiagnostics.nativeBenchOpen(NativeDiagnostics.SHAPE_CUSTOMER, size == 0 ? 200 : size);
            try {
                ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(size, 4096));
                NativeDiagnostics.nativeBenchPoll(handle, buffer, 0); // the first batch carries the table
                int n = NativeDiagnostics.nativeBenchPoll(handle, buffer, 0);
                int rowsPerBatch = NativeDiagnostics.nativeBenchRows(handle);
                String label = size == 0 ? "1-row batch (" + n + " B)" : (size >> 10) + " KiB batch (" + n + " B)";

                ByteBuffer source = ByteBuffer.allocateDirect(n);
                source.put(0, buffer, 0, n);
                ByteBuffer target = ByteBuffer.allocateDirect(n);
                measure("copy", "Java copy direct->direct, " + label, n, 0, iterations -> {
                    long s = 0;
                    for (long i = 0; i < iterations; i++) {
                        target.put(0, source, 0, n);
                        s += target.get(n - 1);
                    }
                    return s;
                });
                measure("poll", "nativeBenchPoll, " + label, n, rowsPerBatch, iterations -> {
                    long s = 0;
                    for (long i = 0; i < iterations; i++) {
                        s += NativeDiagnostics.nativeBenchPoll(handle, buffer, 0);
                    }
                    return s;
                });
                measure("poll", "NativeStream.poll path, " + label, n, rowsPerBatch, iterations -> {
                    long s = 0;
                    for (long i = 0; i < iterations; i++) {
                        s += NativeDiagnostics.benchPoll(handle, buffer, 0);
                    }
                    return s;
                });
            } finally {
                NativeDiagnostics.nativeBenchClose(handle);
            }
        }

        // ---- into Flink RowData ----
        decode("customer", NativeDiagnostics.SHAPE_CUSTOMER, customerType());
        decode("all_types", NativeDiagnostics.SHAPE_ALL_TYPES, allTypesType());
    }

    /** Keeps the last row, so conversions cannot be optimized away. */
    static class LastRow implements Collector<RowData> {
        RowData last;
        long count;

        @Override
        public void collect(RowData row) {
            last = row;
            count++;
        }

        @Override
        public void close() {}
    }

    private void decode(String shapeName, int shape, RowType type) {
        int size = 1 << 20;
        long handle = NativeDiagnostics.nativeBenchOpen(shape, size);
        try {
            ByteBuffer buffer = ByteBuffer.allocateDirect(size);
            BatchDecoder decoder = new BatchDecoder();
            decoder.decode(buffer, NativeDiagnostics.benchPoll(handle, buffer, 0)); // registers the table
            int rowsPerBatch = NativeDiagnostics.nativeBenchRows(handle);
            int n = NativeDiagnostics.benchPoll(handle, buffer, 0);
            String label = shapeName + " (" + type.getFieldCount() + " columns), 1 MiB batches";

            measure("decode", "poll + BatchDecoder (lazy views), " + label, n, rowsPerBatch, iterations -> {
                long s = 0;
                for (long i = 0; i < iterations; i++) {
                    Batch batch = decoder.decode(buffer, NativeDiagnostics.benchPoll(handle, buffer, 0));
                    s += batch.size();
                }
                return s;
            });

            RowDataVitessDeserializationSchema schema = new RowDataVitessDeserializationSchema(type, List.of(), null);
            VitessDeserializationSchema.RecordContext context = new FixedRecordContext("{}", 0, 0);
            LastRow out = new LastRow();
            measure(
                    "rowdata",
                    "poll + decode + RowData (all columns), " + label,
                    n,
                    rowsPerBatch,
                    convertEveryRecord(decoder, buffer, handle, schema, context, out));

            // What the rows cost after the source: Flink copies each record into the chained
            // operator (object reuse is off by default), and serializes it at a shuffle (a keyed
            // exchange, e.g. an upsert sink's or ChangelogNormalize's) or into state.
            RowDataSerializer serializer = new RowDataSerializer(type);
            LastRow copied = new LastRow() {
                @Override
                public void collect(RowData row) {
                    super.collect(serializer.copy(row));
                }
            };
            measure(
                    "rowdata",
                    "... + Flink's copy into a chained operator, " + label,
                    n,
                    rowsPerBatch,
                    convertEveryRecord(decoder, buffer, handle, schema, context, copied));
            DataOutputSerializer wire = new DataOutputSerializer(4096);
            LastRow serialized = new LastRow() {
                @Override
                public void collect(RowData row) {
                    wire.clear();
                    try {
                        serializer.serialize(row, wire);
                    } catch (java.io.IOException ex) {
                        throw new java.io.UncheckedIOException(ex);
                    }
                    super.collect(row);
                    count += wire.length() & 1;
                }
            };
            measure(
                    "rowdata",
                    "... + Flink's serialization (a shuffle, state), " + label,
                    n,
                    rowsPerBatch,
                    convertEveryRecord(decoder, buffer, handle, schema, context, serialized));
        } finally {
            NativeDiagnostics.nativeBenchClose(handle);
        }
    }

    /** Polls and decodes a batch per iteration and converts its every record into {@code out}. */
    private static Op convertEveryRecord(
            BatchDecoder decoder,
            ByteBuffer buffer,
            long handle,
            RowDataVitessDeserializationSchema schema,
            VitessDeserializationSchema.RecordContext context,
            LastRow out) {
        return iterations -> {
            for (long i = 0; i < iterations; i++) {
                Batch batch = decoder.decode(buffer, NativeDiagnostics.benchPoll(handle, buffer, 0));
                for (BatchEntry e : batch) {
                    if (e instanceof VitessRecord r) {
                        schema.deserialize(r, context, out);
                    }
                }
            }
            return out.count + out.last.getArity();
        };
    }

    private static RowType customerType() {
        return RowType.of(
                new LogicalType[] {
                    new BigIntType(false),
                    new VarCharType(VarCharType.MAX_LENGTH),
                    new VarCharType(VarCharType.MAX_LENGTH),
                    new DecimalType(12, 2),
                    new IntType(),
                    new TimestampType(6)
                },
                new String[] {"customer_id", "email", "name", "balance", "visits", "updated_at"});
    }

    /** The declarations docs/sql-connector.md recommends for each column of customer.all_types. */
    private static RowType allTypesType() {
        List<String> names = new ArrayList<>();
        List<LogicalType> types = new ArrayList<>();
        Object[][] columns = {
            {"id", new BigIntType(false)},
            {"c_tinyint", new TinyIntType()},
            {"c_tinyint_u", new SmallIntType()},
            {"c_smallint", new SmallIntType()},
            {"c_smallint_u", new IntType()},
            {"c_mediumint", new IntType()},
            {"c_mediumint_u", new IntType()},
            {"c_int", new IntType()},
            {"c_int_u", new BigIntType()},
            {"c_bigint", new BigIntType()},
            {"c_bigint_u", new DecimalType(20, 0)},
            {"c_bool", new BooleanType()},
            {"c_decimal", new DecimalType(30, 10)},
            {"c_decimal0", new DecimalType(20, 0)},
            {"c_float", new FloatType()},
            {"c_double", new DoubleType()},
            {"c_bit1", new BooleanType()},
            {"c_bit64", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
            {"c_date", new DateType()},
            {"c_datetime", new TimestampType(0)},
            {"c_datetime6", new TimestampType(6)},
            {"c_timestamp", new LocalZonedTimestampType(3)},
            // MySQL TIME as docs/sql-connector.md recommends: STRING keeps its range and microseconds.
            {"c_time", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_time6", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_year", new IntType()},
            {"c_char", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_varchar", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_varchar_bin", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
            {"c_tinytext", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_text", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_mediumtext", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_longtext", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_latin1", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_binary", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
            {"c_varbinary", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
            {"c_tinyblob", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
            {"c_blob", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
            {"c_mediumblob", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
            {"c_longblob", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
            {"c_enum", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_set", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_json", new VarCharType(VarCharType.MAX_LENGTH)},
            {"c_geometry", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
            {"c_point", new VarBinaryType(VarBinaryType.MAX_LENGTH)},
        };
        for (Object[] c : columns) {
            names.add((String) c[0]);
            types.add((LogicalType) c[1]);
        }
        return RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0]));
    }

    // ---- measurement ----

    private void measure(String group, String name, long bytesPerOp, double recordsPerOp, Op op) {
        // Calibrate: iterations for one sample of about sampleSeconds.
        long iterations = 1;
        while (true) {
            long t = time(op, iterations);
            if (t > 20_000_000L || iterations > (1L << 40)) {
                iterations = Math.max(1, (long) (iterations * (sampleSeconds * 1e9) / t));
                break;
            }
            iterations *= 2;
        }
        // Warm-up: two samples' worth.
        time(op, iterations);
        time(op, iterations);
        double[] ns = new double[samples];
        for (int s = 0; s < samples; s++) {
            ns[s] = (double) time(op, iterations) / iterations;
        }
        Arrays.sort(ns);
        Row row = new Row(group, name, bytesPerOp, recordsPerOp, ns[samples / 2], ns[0]);
        rows.add(row);
        System.out.printf(Locale.ROOT, "  %-70s %12.1f ns (median %.1f)%n", name, row.minNs(), row.medianNs());
    }

    private static long time(Op op, long iterations) {
        long start = System.nanoTime();
        sink += op.run(iterations);
        return Math.max(1, System.nanoTime() - start);
    }

    // ---- output ----

    private void print() {
        System.out.println();
        System.out.println("JNI bridge benchmark: " + environment() + "; load average " + loadAverage());
        System.out.printf(
                Locale.ROOT,
                "%-72s %10s %12s %12s %10s %14s%n",
                "measurement",
                "bytes/op",
                "ns/op best",
                "ns/op median",
                "GB/s",
                "records/s");
        for (Row r : rows) {
            System.out.printf(
                    Locale.ROOT,
                    "%-72s %10s %12.1f %12.1f %10s %14s%n",
                    r.name(),
                    r.bytesPerOp() == 0 ? "-" : String.valueOf(r.bytesPerOp()),
                    r.minNs(),
                    r.medianNs(),
                    r.bytesPerOp() == 0 ? "-" : String.format(Locale.ROOT, "%.2f", r.gbPerSecond()),
                    r.recordsPerOp() == 0 ? "-" : String.format(Locale.ROOT, "%,.0f", r.recordsPerSecond()));
        }
        if (rowDataOnly) {
            return; // no poll figures to hold against the targets
        }
        Row fixed = find("nativeBenchPoll, 1-row");
        Row wrapperFixed = find("NativeStream.poll path, 1-row");
        Row big = find("nativeBenchPoll, 64 KiB");
        Row huge = find("nativeBenchPoll, 1024 KiB");
        System.out.println();
        System.out.printf(
                Locale.ROOT,
                "fixed cost per poll (best): %.0f ns (nativeBenchPoll), %.0f ns "
                        + "(NativeStream.poll path); target <= 1000 ns%n",
                fixed.minNs(),
                wrapperFixed.minNs());
        System.out.printf(
                Locale.ROOT,
                "bandwidth (best): %.1f GB/s at 64 KiB, %.1f GB/s at 1 MiB; target >= 1 GB/s%n",
                big.gbPerSecond(),
                huge.gbPerSecond());
    }

    private Row find(String prefix) {
        return rows.stream()
                .filter(r -> r.name().startsWith(prefix))
                .findFirst()
                .orElseThrow();
    }

    private static String environment() {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Paths.get("/proc/cpuinfo"), StandardCharsets.UTF_8).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse(cpu);
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return String.format(
                Locale.ROOT,
                "%s, %d CPUs, %s %s, JDK %s, native library %s (cargo profile %s)",
                cpu,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name"),
                System.getProperty("os.arch"),
                System.getProperty("java.version"),
                NativeLibrary.loadedFrom(),
                System.getProperty("vitesscdc.bench.cargo.profile", "unknown"));
    }

    private void writeJson(Path file) throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append("{\n  \"benchmark\": \"jni-bridge\",\n  \"time\": \"")
                .append(Instant.now())
                .append("\",\n")
                .append("  \"environment\": \"")
                .append(escape(environment()))
                .append("\",\n")
                .append("  \"load_average\": \"")
                .append(escape(loadAverage()))
                .append("\",\n")
                .append("  \"samples\": ")
                .append(samples)
                .append(",\n")
                .append("  \"note\": \"gb_per_s and records_per_s from the best sample\",\n  \"results\": [\n");
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            sb.append(String.format(
                    Locale.ROOT,
                    "    {\"group\": \"%s\", \"name\": \"%s\", \"bytes_per_op\": %d, \"records_per_op\": %.0f, "
                            + "\"ns_per_op_median\": %.2f, \"ns_per_op_min\": %.2f, \"gb_per_s\": %.3f, "
                            + "\"records_per_s\": %.0f}%s%n",
                    r.group(),
                    escape(r.name()),
                    r.bytesPerOp(),
                    r.recordsPerOp(),
                    r.medianNs(),
                    r.minNs(),
                    r.gbPerSecond(),
                    r.recordsPerSecond(),
                    i + 1 < rows.size() ? "," : ""));
        }
        sb.append("  ]\n}\n");
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, sb.toString());
    }

    private static String loadAverage() {
        try {
            return Files.readString(Paths.get("/proc/loadavg")).trim();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
