/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;

import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The native bridge end to end against the real local Vitess (tests/vitess/up.sh), with the
 * native library loaded from the packaged connector jar, as Flink will load it.
 *
 * <p>Runs under maven-failsafe in {@code mvn verify}, which puts the built jar (not
 * target/classes) on the test class path. Fails with instructions when the cluster is down.
 */
@Timeout(180)
class NativeStreamITCase {

    /** A decoded record, copied out of the batch buffer (views die at the next poll). */
    record Row(
            String keyspace,
            String shard,
            String table,
            ChangeKind kind,
            boolean snapshot,
            Map<String, Object> values) {

        static Row of(VitessRecord r) {
            Map<String, Object> values = new LinkedHashMap<>();
            for (int i = 0; i < r.arity(); i++) {
                values.put(r.table().columns().get(i).name(), r.getObject(i));
            }
            TableDescriptor t = r.table();
            return new Row(t.keyspace(), t.shard(), t.table(), r.kind(), r.isSnapshot(), values);
        }
    }

    /** Everything a poll loop saw. */
    static final class Seen {
        final List<Row> rows = new ArrayList<>();
        final List<BatchEntry.PositionMark> marks = new ArrayList<>();
        /** For each mark, how many rows preceded it. */
        final List<Integer> rowsBeforeMark = new ArrayList<>();

        int batches;

        /** Marks that came after row {@code index}. */
        long marksAfterRow(int index) {
            return rowsBeforeMark.stream().filter(n -> n > index).count();
        }
    }

    @BeforeAll
    static void clusterIsUp() {
        VitessCluster.requireRunning();
    }

    private static String options(String keyspace, String... tables) {
        StringBuilder t = new StringBuilder();
        for (String table : tables) {
            t.append(t.length() == 0 ? "" : ",").append('"').append(table).append('"');
        }
        return "{\"address\":\"" + VitessCluster.grpcAddress() + "\",\"keyspace\":\"" + keyspace + "\",\"tables\":[" + t
                + "],\"connect_timeout_ms\":15000}";
    }

    /** Polls until {@code done} holds for what was seen, or fails after {@code timeout}. */
    private static Seen pollUntil(NativeStreamReader reader, Seen seen, Predicate<Seen> done, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.test(seen)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + "; saw " + seen.rows.size() + " rows: "
                        + seen.rows + ", marks: " + seen.marks.size());
            }
            Batch batch = reader.poll(500);
            if (batch == null) {
                continue;
            }
            seen.batches++;
            for (BatchEntry e : batch) {
                if (e instanceof VitessRecord r) {
                    seen.rows.add(Row.of(r));
                } else if (e instanceof BatchEntry.PositionMark m) {
                    seen.marks.add(m);
                    seen.rowsBeforeMark.add(seen.rows.size());
                }
            }
            assertThat(batch.isEndOfStream())
                    .as("a replicating stream does not end")
                    .isFalse();
        }
        return seen;
    }

    private static Predicate<Seen> hasRow(String table, ChangeKind kind, String column, Object value) {
        return s -> s.rows.stream()
                .anyMatch(r -> r.table().equals(table)
                        && r.kind() == kind
                        && value.equals(r.values().get(column)));
    }

    @Test
    void nativeLibraryComesFromThePackagedJar() {
        assertThat(NativeStream.nativeVersion()).startsWith("vitess-cdc-jni ");
        String classes = NativeStream.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toString();
        assertThat(classes).as("connector classes come from the built jar").endsWith(".jar");
        String expected = System.getProperty("vitesscdc.expected.platform", Platform.current());
        assertThat(NativeLibrary.loadedFrom())
                .as("native library loaded from the jar's bundled resource")
                .startsWith("jar:file:")
                .contains(".jar!/native/" + expected + "/" + System.mapLibraryName(NativeLibrary.LIBRARY_NAME));
    }

    @Test
    void receivesRowChangesWrittenThroughVtgateWithTheirValues() throws Exception {
        String sku = "it-" + UUID.randomUUID().toString().substring(0, 8);
        try (NativeStreamReader reader =
                new NativeStreamReader(NativeStream.open(options("commerce", "product")), 4096, 64 << 20)) {
            VitessCluster.execute(
                    "commerce", "insert into product (sku, description, price) values ('" + sku + "', 'café ☕', 42)");
            Seen seen = pollUntil(
                    reader,
                    new Seen(),
                    hasRow("product", ChangeKind.INSERT, "sku", sku),
                    TestTimeouts.NATIVE_STREAM_ROW);

            Row inserted = seen.rows.stream()
                    .filter(r -> sku.equals(r.values().get("sku")))
                    .findFirst()
                    .orElseThrow();
            assertThat(inserted.keyspace()).isEqualTo("commerce");
            assertThat(inserted.shard()).isEqualTo("0");
            assertThat(inserted.values())
                    .containsEntry("sku", sku)
                    .containsEntry("description", "café ☕")
                    .containsEntry("price", 42L);

            // After the insert arrived, an update and a delete follow in binlog order.
            VitessCluster.execute(
                    "commerce",
                    "update product set price = 43 where sku = '" + sku + "'",
                    "delete from product where sku = '" + sku + "'");
            pollUntil(reader, seen, hasRow("product", ChangeKind.DELETE, "sku", sku), TestTimeouts.PROGRESS);
            List<String> changes = new ArrayList<>();
            for (Row r : seen.rows) {
                if (sku.equals(r.values().get("sku"))) {
                    changes.add(r.kind().shortString() + " " + r.values().get("price"));
                }
            }
            assertThat(changes).containsExactly("+I 42", "-U 42", "+U 43", "-D 43");

            assertThat(seen.marks).as("position marks between records").isNotEmpty();
            assertThat(seen.marks.get(seen.marks.size() - 1).position().toJson())
                    .contains("\"gtid\":\"MySQL56/");
            assertThat(reader.stream().positionsJson())
                    .contains("\"keyspace\":\"commerce\"")
                    .contains("\"shard\":\"0\"");
            assertThat(reader.stream().metricsJson()).contains("\"events\":");
            assertThat(reader.bufferCapacity())
                    .as("grew from 4 KiB only if a single event needed it")
                    .isGreaterThanOrEqualTo(4096);
        } finally {
            VitessCluster.execute("commerce", "delete from product where sku = '" + sku + "'");
        }
    }

    @Test
    void streamsBothShardsOfAShardedKeyspace() throws Exception {
        // Under the `hash` vindex customer_id 1..3 land in -80 and 4 in 80- (keyspace ids 0x166b..,
        // 0x06e7.., 0x4eb1.., 0xd2fd..).
        long orderId = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        try (NativeStreamReader reader = new NativeStreamReader(NativeStream.open(options("customer", "corder")))) {
            String[] inserts = new String[4];
            for (int c = 1; c <= 4; c++) {
                inserts[c - 1] = "insert into corder (customer_id, order_id, sku, quantity, price) values (" + c + ", "
                        + orderId + ", 's" + c + "', " + c + ", " + c + ".01)";
            }
            VitessCluster.execute("customer", inserts);
            Seen seen = pollUntil(
                    reader,
                    new Seen(),
                    s -> s.rows.stream()
                                    .filter(r -> Long.valueOf(orderId)
                                            .equals(r.values().get("order_id")))
                                    .count()
                            == 4,
                    TestTimeouts.NATIVE_STREAM_ROW);
            List<Row> ours = seen.rows.stream()
                    .filter(r -> Long.valueOf(orderId).equals(r.values().get("order_id")))
                    .toList();
            assertThat(ours).extracting(Row::shard).containsExactlyInAnyOrder("-80", "-80", "-80", "80-");
            assertThat(ours).allMatch(r -> r.kind() == ChangeKind.INSERT);
            assertThat(ours)
                    .extracting(r ->
                            r.values().get("customer_id") + ":" + r.values().get("price"))
                    .containsExactlyInAnyOrder("1:1.01", "2:2.01", "3:3.01", "4:4.01");
            assertThat(reader.stream().positionsJson())
                    .contains("\"shard\":\"-80\"")
                    .contains("\"shard\":\"80-\"");
        } finally {
            VitessCluster.execute("customer", "delete from corder where order_id = " + orderId);
        }
    }

    @Test
    void typedValuesOfEveryFamilyAndABufferThatMustGrow() throws Exception {
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        // Starts with a 1 KiB buffer: the 100 KB blob forces NativeStreamReader to grow it.
        try (NativeStreamReader reader =
                new NativeStreamReader(NativeStream.open(options("customer", "all_types")), 1024, 8 << 20)) {
            VitessCluster.execute(
                    "customer",
                    "insert into all_types (id, c_tinyint, c_tinyint_u, c_int, c_bigint, c_bigint_u, c_decimal,"
                            + " c_float, c_double, c_bit64, c_date, c_datetime6, c_time, c_year, c_varchar,"
                            + " c_varbinary, c_enum, c_set, c_json, c_longblob, c_timestamp) values ("
                            + id + ", -5, 250, -2147483648, -9223372036854775808, 18446744073709551615,"
                            + " '12345678901234567890.0123456789', 1.5, -2.25, b'101', '2024-02-29',"
                            + " '2025-01-02 03:04:05.678901', '-838:59:59', 2024, 'héllo ☕', x'00ff10', 'medium',"
                            + " 'a,c', '{\"k\": [1, 2]}', repeat('ab', 50000), null)");
            Seen seen = pollUntil(
                    reader,
                    new Seen(),
                    hasRow("all_types", ChangeKind.INSERT, "id", id),
                    TestTimeouts.NATIVE_STREAM_ROW);
            Map<String, Object> v = seen.rows.stream()
                    .filter(r -> Long.valueOf(id).equals(r.values().get("id")))
                    .findFirst()
                    .orElseThrow()
                    .values();

            assertThat(String.valueOf(v.get("c_tinyint"))).isEqualTo("-5");
            assertThat(String.valueOf(v.get("c_tinyint_u"))).isEqualTo("250");
            assertThat(v.get("c_int")).isEqualTo(-2147483648L);
            assertThat(v.get("c_bigint")).isEqualTo(Long.MIN_VALUE);
            assertThat(v.get("c_bigint_u")).isEqualTo(new BigInteger("18446744073709551615"));
            assertThat(v.get("c_decimal")).isEqualTo(new BigDecimal("12345678901234567890.0123456789"));
            assertThat(v.get("c_float")).isEqualTo(1.5);
            assertThat(v.get("c_double")).isEqualTo(-2.25);
            assertThat((byte[]) v.get("c_bit64")).endsWith(5);
            assertThat(v.get("c_date")).isEqualTo(LocalDate.of(2024, 2, 29));
            assertThat(v.get("c_datetime6")).isEqualTo(LocalDateTime.of(2025, 1, 2, 3, 4, 5, 678_901_000));
            assertThat(v.get("c_time"))
                    .isEqualTo(Duration.ofHours(-838).minusMinutes(59).minusSeconds(59));
            assertThat(String.valueOf(v.get("c_year"))).isEqualTo("2024");
            assertThat(v.get("c_varchar")).isEqualTo("héllo ☕");
            assertThat((byte[]) v.get("c_varbinary")).containsExactly(0x00, 0xff, 0x10);
            assertThat(v.get("c_enum")).isEqualTo("medium");
            assertThat(v.get("c_set")).isEqualTo("a,c");
            assertThat(String.valueOf(v.get("c_json")).replace(" ", "")).isEqualTo("{\"k\":[1,2]}");
            assertThat((byte[]) v.get("c_longblob")).hasSize(100_000).startsWith('a', 'b', 'a');
            assertThat(v.get("c_timestamp")).isNull();
            assertThat(v).containsKey("c_text").containsEntry("c_text", null);
            assertThat(reader.bufferCapacity()).as("buffer grew for the blob").isGreaterThan(100_000);
        } finally {
            VitessCluster.execute("customer", "delete from all_types where id = " + id);
        }
    }

    @Test
    void anEventLargerThanTheDirectBufferMayGrowCrossesThroughAHeapArray() throws Exception {
        long id = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        int blobBytes = 6_000_000; // above NativeStreamReader.DIRECT_LIMIT_BYTES (4 MiB)
        try (NativeStreamReader reader =
                new NativeStreamReader(NativeStream.open(options("customer", "all_types")), 1024, 64 << 20)) {
            VitessCluster.execute(
                    "customer",
                    "insert into all_types (id, c_longblob) values (" + id + ", repeat('abc', " + blobBytes / 3 + "))");
            Seen seen = pollUntil(
                    reader,
                    new Seen(),
                    hasRow("all_types", ChangeKind.INSERT, "id", id),
                    TestTimeouts.NATIVE_STREAM_ROW);
            byte[] blob = (byte[]) seen.rows.stream()
                    .filter(r -> Long.valueOf(id).equals(r.values().get("id")))
                    .findFirst()
                    .orElseThrow()
                    .values()
                    .get("c_longblob");
            assertThat(blob).hasSize(blobBytes);
            for (int i = 0; i < blobBytes; i++) {
                if (blob[i] != "abc".charAt(i % 3)) {
                    throw new AssertionError("byte " + i + " of the blob is " + blob[i]);
                }
            }
            assertThat(reader.heapBatches()).as("batches read into heap arrays").isPositive();
            assertThat(reader.bufferCapacity())
                    .as("the direct buffer did not grow for the blob")
                    .isLessThanOrEqualTo(NativeStreamReader.DIRECT_LIMIT_BYTES);
        } finally {
            VitessCluster.execute("customer", "delete from all_types where id = " + id);
        }
    }

    /** Native threads of the core's runtimes (named vitess-cdc-worker; Linux shows 15 chars). */
    private static long coreThreads() throws IOException {
        Path tasks = Paths.get("/proc/self/task");
        assertThat(tasks)
                .as("thread names come from /proc; the connector ships for Linux only")
                .isDirectory();
        try (Stream<Path> all = Files.list(tasks)) {
            return all.filter(t -> {
                        try {
                            return new String(Files.readAllBytes(t.resolve("comm")), StandardCharsets.UTF_8)
                                    .startsWith("vitess-cdc-wor");
                        } catch (IOException gone) {
                            return false;
                        }
                    })
                    .count();
        }
    }

    private static void awaitCoreThreads(long expected) throws Exception {
        long deadline = System.nanoTime() + TestTimeouts.NATIVE_THREADS_EXIT.toNanos();
        while (coreThreads() != expected && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(coreThreads()).as("native runtime threads").isEqualTo(expected);
    }

    @Test
    void closeEndsTheStreamsRuntimeAndThreads() throws Exception {
        long baseline = coreThreads();
        int openBefore = NativeStream.openStreamCount();
        NativeStream stream = NativeStream.open(options("commerce", "product"));
        assertThat(NativeStream.openStreamCount()).isEqualTo(openBefore + 1);
        assertThat(coreThreads()).as("the stream runs its own runtime").isGreaterThan(baseline);
        stream.close();
        assertThat(NativeStream.openStreamCount()).isEqualTo(openBefore);
        awaitCoreThreads(baseline);

        // A failed open leaves nothing behind either.
        catchThrowable(() -> NativeStream.open(options("no_such_keyspace_for_leak_check")));
        assertThat(NativeStream.openStreamCount()).isEqualTo(openBefore);
        awaitCoreThreads(baseline);
    }

    @Test
    void snapshotOnlyStreamCopiesThenEnds() throws Exception {
        String sku = "it-snap-" + UUID.randomUUID().toString().substring(0, 8);
        VitessCluster.execute(
                "commerce", "insert into product (sku, description, price) values ('" + sku + "', 'x', 7)");
        String opts = options("commerce", "product").replaceFirst("}$", ",\"start_mode\":\"snapshot_only\"}");
        try (NativeStreamReader reader = new NativeStreamReader(NativeStream.open(opts))) {
            List<BatchEntry> entries = new ArrayList<>();
            List<Row> rows = new ArrayList<>();
            long deadline = System.nanoTime() + TestTimeouts.NATIVE_STREAM_ROW.toNanos();
            Batch batch;
            do {
                assertThat(System.nanoTime()).as("stream ended in time").isLessThan(deadline);
                batch = reader.poll(500);
                if (batch != null) {
                    for (BatchEntry e : batch) {
                        entries.add(e);
                        if (e instanceof VitessRecord r) {
                            rows.add(Row.of(r));
                        }
                    }
                }
            } while (batch == null || !batch.isEndOfStream());

            assertThat(rows)
                    .anyMatch(r -> sku.equals(r.values().get("sku"))
                            && r.snapshot()
                            && r.kind() == ChangeKind.INSERT
                            && Long.valueOf(7).equals(r.values().get("price")));
            assertThat(entries).anyMatch(e -> e instanceof BatchEntry.CopyCompleted);
            assertThat(entries.get(entries.size() - 1)).isInstanceOf(BatchEntry.EndOfStream.class);
            // After the end: the reader keeps answering "ended", the raw stream says -1.
            assertThat(reader.poll(0).isEndOfStream()).isTrue();
            assertThat(reader.stream().poll(ByteBuffer.allocateDirect(1024), 0)).isEqualTo(NativeStream.END_OF_STREAM);
        } finally {
            VitessCluster.execute("commerce", "delete from product where sku = '" + sku + "'");
        }
    }

    @Test
    void resumingFromAMarkDeliversExactlyWhatFollowsIt() throws Exception {
        String id = UUID.randomUUID().toString().substring(0, 8);
        String first = "it-resume-a-" + id;
        String second = "it-resume-b-" + id;
        try {
            BatchEntry.PositionMark resumeFrom;
            try (NativeStreamReader reader =
                    new NativeStreamReader(NativeStream.open(options("commerce", "product")))) {
                VitessCluster.execute(
                        "commerce", "insert into product (sku, description, price) values ('" + first + "', 'a', 1)");
                // Read past the first row's insert up to the position mark that follows it.
                Seen seen = pollUntil(
                        reader,
                        new Seen(),
                        s -> {
                            int at = -1;
                            for (int i = 0; i < s.rows.size(); i++) {
                                if (first.equals(s.rows.get(i).values().get("sku"))) {
                                    at = i;
                                }
                            }
                            return at >= 0 && s.marksAfterRow(at) > 0;
                        },
                        TestTimeouts.NATIVE_STREAM_ROW);
                resumeFrom = seen.marks.get(seen.marks.size() - 1);
            }
            assertThat(resumeFrom.shard()).isEqualTo("0");

            VitessCluster.execute(
                    "commerce", "insert into product (sku, description, price) values ('" + second + "', 'b', 2)");
            String opts = options("commerce", "product");
            try (NativeStreamReader reader =
                    new NativeStreamReader(NativeStream.open(opts, List.of(resumeFrom.position())))) {
                Seen seen = pollUntil(
                        reader,
                        new Seen(),
                        hasRow("product", ChangeKind.INSERT, "sku", second),
                        TestTimeouts.NATIVE_STREAM_ROW);
                assertThat(seen.rows)
                        .as("nothing at or before the mark comes again")
                        .noneMatch(r -> first.equals(r.values().get("sku")));
            }
        } finally {
            VitessCluster.execute("commerce", "delete from product where sku in ('" + first + "', '" + second + "')");
        }
    }

    /**
     * A job that never closes its stream, then goes away: when its class loader is collected the
     * JVM unloads that library copy, and JNI_OnUnload must stop the stream's threads first (code
     * running in an unmapped library would crash the JVM).
     */
    @Test
    void streamsLeakedByACollectedClassLoaderAreClosedBeforeTheLibraryUnloads() throws Exception {
        long baseline = coreThreads();
        WeakReference<ClassLoader> loader = openAndLeakAStreamInAThrowawayClassLoader();
        assertThat(coreThreads()).as("the leaked stream runs").isGreaterThan(baseline);
        long deadline = System.nanoTime() + TestTimeouts.CLASS_LOADER_COLLECTED.toNanos();
        while (loader.get() != null && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(100);
        }
        assertThat(loader.get()).as("the job's class loader was collected").isNull();
        awaitCoreThreads(baseline);
        assertThat(NativeStream.nativeVersion()).as("and this JVM lives on").startsWith("vitess-cdc-jni ");
    }

    private static WeakReference<ClassLoader> openAndLeakAStreamInAThrowawayClassLoader() throws Exception {
        URL jar = NativeStream.class.getProtectionDomain().getCodeSource().getLocation();
        URLClassLoader loader = new URLClassLoader("leaky-job", new URL[] {jar}, ClassLoader.getPlatformClassLoader());
        Class<?> stream = Class.forName(NativeStream.class.getName(), true, loader);
        Object leaked = stream.getMethod("open", String.class).invoke(null, options("commerce", "product"));
        assertThat(leaked).isNotNull();
        loader.close();
        return new WeakReference<>(loader);
    }

    @Test
    void coreLogsReachSlf4jWithLevelAndTarget() {
        try (CapturedLogs logs = CapturedLogs.capture(NativeLogs.LOGGER_PREFIX, Level.INFO)) {
            try (NativeStream stream = NativeStream.open(options("commerce", "product"))) {
                // Drained on open: the connect happened on this thread inside open.
                assertThat(logs.events())
                        .anySatisfy(e -> {
                            assertThat(e.logger()).isEqualTo("vitesscdc.native.vitess_cdc_core.stream");
                            assertThat(e.level()).isEqualTo(Level.INFO);
                            assertThat(e.message()).contains("VTGate version").contains("major=");
                        })
                        .anySatisfy(e ->
                                assertThat(e.message()).contains("stream plan").contains("product"));
                stream.poll(ByteBuffer.allocateDirect(1 << 20), 100);
            }
            assertThat(logs.events())
                    .as("nothing below INFO was formatted natively")
                    .noneMatch(e -> e.level().isLessSpecificThan(Level.DEBUG));
        }
    }

    /**
     * With several streams in one JVM (a source per table, a reader per subtask), each core log
     * line names the stream it is about — the consumer's label, then keyspace, shards and tables —
     * not only the thread that forwarded it.
     */
    @Test
    void coreLogLinesNameTheirStream() {
        try (CapturedLogs logs = CapturedLogs.capture(NativeLogs.LOGGER_PREFIX, Level.INFO)) {
            String products = options("commerce", "product").replace("}", ",\"log_label\":\"Source: products (1/2)\"}");
            String customers =
                    options("customer", "customer").replace("}", ",\"log_label\":\"Source: customers (2/2)\"}");
            try (NativeStream a = NativeStream.open(products);
                    NativeStream b = NativeStream.open(customers)) {
                a.poll(ByteBuffer.allocateDirect(1 << 20), 100);
                b.poll(ByteBuffer.allocateDirect(1 << 20), 100);
            }
            assertThat(logs.events())
                    .filteredOn(e -> e.message().contains("stream plan"))
                    .anySatisfy(e -> assertThat(e.message())
                            .contains("[Source: products (1/2) commerce/* product]")
                            .contains("product"))
                    .anySatisfy(e -> assertThat(e.message()).contains("[Source: customers (2/2) customer/* customer]"))
                    .allSatisfy(e -> assertThat(e.message()).contains("[Source: "));
        }
    }

    @Test
    void unreachableVtgateFailsFastNamingTheAddress() {
        String address = "127.0.0.1:1";
        long start = System.nanoTime();
        Throwable t = catchThrowable(() -> NativeStream.open(
                "{\"address\":\"" + address + "\",\"keyspace\":\"commerce\",\"connect_timeout_ms\":3000}"));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(t)
                .isInstanceOfAny(RetryableException.class, ConfigurationException.class)
                .hasMessageContaining(address);
        assertThat(ErrorCode.of(t)).isEqualTo(ErrorCode.UNREACHABLE);
        assertThat(took)
                .as("fails within the connect timeout, not a retry budget")
                .isLessThan(TestTimeouts.UNREACHABLE_FAILS_WITHIN);
    }

    @Test
    void unknownKeyspaceFailsNamingTheKeyspace() {
        String keyspace = "no_such_keyspace_" + ThreadLocalRandom.current().nextInt(1_000_000);
        assertThatThrownBy(() -> NativeStream.open(options(keyspace)))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(keyspace)
                .extracting(ErrorCode::of)
                .isEqualTo(ErrorCode.UNKNOWN_KEYSPACE);
    }

    @Test
    void useAfterCloseThrowsAndDoubleCloseIsANoOp() {
        NativeStream stream = NativeStream.open(options("commerce", "product"));
        stream.close();
        assertThat(stream.isClosed()).isTrue();
        assertThatCode(stream::close).doesNotThrowAnyException();
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        assertThatThrownBy(() -> stream.poll(buf, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(stream::positionsJson).isInstanceOf(IllegalStateException.class);
        assertThatCode(stream::wake).doesNotThrowAnyException();
        assertThatThrownBy(() -> stream.poll(ByteBuffer.allocate(16), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> stream.poll(buf.asReadOnlyBuffer(), 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void closeWhileAnotherThreadPollsEndsThatPoll() throws Exception {
        NativeStream stream = NativeStream.open(options("commerce", "product"));
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread poller = new Thread(() -> {
            try {
                // Drain the copy phase, then block in a long poll.
                while (!stream.isClosed()) {
                    stream.poll(buf, 30_000);
                }
                outcome.set("returned");
            } catch (IllegalStateException closed) {
                outcome.set("closed");
            } catch (Throwable other) {
                outcome.set(other);
            }
        });
        poller.start();
        Thread.sleep(TestTimeouts.POLLER_BLOCKED.toMillis());
        long start = System.nanoTime();
        stream.close();
        poller.join(TestTimeouts.CLOSE_ENDS_POLL_WITHIN.toMillis());
        assertThat(poller.isAlive()).as("poll returned after close").isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(TestTimeouts.CLOSE_ENDS_POLL_WITHIN);
        assertThat(outcome.get()).isIn("returned", "closed");
    }

    @Test
    void wakeEndsAPollEarly() throws Exception {
        // Heartbeats off, so only the wake (or real traffic from elsewhere) ends the 30 s poll.
        String opts = options("commerce", "product").replaceFirst("}$", ",\"heartbeat_interval_secs\":0}");
        try (NativeStream stream = NativeStream.open(opts)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
            // A shared cluster may carry other writes; an attempt that got data proves nothing
            // about wake, so drain and try again.
            List<String> attempts = new ArrayList<>();
            for (int attempt = 0; attempt < 5; attempt++) {
                long quietSince = System.nanoTime();
                while (System.nanoTime() - quietSince < TestTimeouts.STREAM_QUIET.toNanos()) {
                    if (stream.poll(buf, 200) != 0) {
                        quietSince = System.nanoTime();
                    }
                }
                Thread waker = new Thread(() -> {
                    try {
                        Thread.sleep(500);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    stream.wake();
                });
                waker.start();
                long start = System.nanoTime();
                int n = stream.poll(buf, 30_000);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                waker.join();
                if (n == 0) {
                    assertThat(took).as("woken after ~0.5 s").isLessThan(TestTimeouts.WAKE_ENDS_POLL_WITHIN);
                    return;
                }
                attempts.add(n + " bytes after " + took);
            }
            throw new AssertionError("every attempt received data instead of being woken: " + attempts);
        }
    }
}
