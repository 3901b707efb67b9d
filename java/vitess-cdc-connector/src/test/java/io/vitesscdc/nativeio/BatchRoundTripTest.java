/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Property test of the whole bridge: random events of every column type, generated natively from
 * a seed (rust/jni/src/diagnostics/synth.rs: extreme integers, NaN and infinities, zero and invalid dates,
 * negative and &gt; 24 h times, 4-byte UTF-8, empty and large strings and bytes, NULL, absent
 * values, schema changes, every marker), are encoded by the real batch encoder, delivered by the
 * real {@code nativePoll} into buffers from 16 bytes up (so events are split across batches and
 * buffers must grow), decoded by {@link BatchDecoder}, and every value, record and marker must
 * equal the generator's. Both sides render the canonical text documented at
 * {@code synth::expected}. More seeds: {@code -Dvitesscdc.roundtrip.seeds=1000}.
 */
class BatchRoundTripTest {

    private static final int EVENTS_PER_SEED = 300;
    private static final int[] INITIAL_BUFFERS = {16, 100, 4096, 65536, 1 << 20};

    @BeforeAll
    static void load() {
        NativeLibrary.load();
    }

    @Test
    void everyValueOfEverySeedRoundTrips() {
        int seeds = Integer.getInteger("vitesscdc.roundtrip.seeds", 60);
        long records = 0;
        for (long seed = 0; seed < seeds; seed++) {
            records += roundTrip(seed, EVENTS_PER_SEED, INITIAL_BUFFERS[(int) (seed % INITIAL_BUFFERS.length)]);
        }
        assertThat(records).as("records checked").isGreaterThan(seeds * EVENTS_PER_SEED / 2L);
    }

    @Test
    void aLongStreamThroughOneSmallGrowingBuffer() {
        assertThat(roundTrip(0xBADC0FFEEL, 3000, 64)).isGreaterThan(2000);
    }

    @Test
    void eventsLargerThanTheDirectBufferMayGrowCrossThroughHeapArrays() {
        // A direct buffer that may not grow past 64 bytes: nearly every event, the spliced values
        // of 64 KiB and more among them, is polled into a heap array of its own size.
        long[] heapBatches = new long[1];
        long records = 0;
        for (long seed = 0; seed < 12; seed++) {
            records += roundTrip(seed, EVENTS_PER_SEED, 16, 64, heapBatches);
        }
        assertThat(records).isGreaterThan(12L * EVENTS_PER_SEED / 2);
        assertThat(heapBatches[0]).as("batches polled into heap arrays").isGreaterThan(records / 2);

        // Mixed: small events share the direct buffer's batches, the large ones go to the heap.
        long[] mixed = new long[1];
        assertThat(roundTrip(0xFEEDL, 2000, 4096, 16 << 10, mixed)).isGreaterThan(1000);
        assertThat(mixed[0]).as("heap batches of the mixed stream").isPositive();
    }

    /** Returns the number of records compared. */
    private static long roundTrip(long seed, int events, int initialBuffer) {
        return roundTrip(
                seed,
                events,
                initialBuffer,
                Math.max(initialBuffer, NativeStreamReader.DIRECT_LIMIT_BYTES),
                new long[1]);
    }

    /** Returns the number of records compared; adds the reader's heap batches to {@code heapBatches[0]}. */
    private static long roundTrip(long seed, int events, int initialBuffer, int directLimit, long[] heapBatches) {
        Map<String, String> schemas = new HashMap<>();
        List<String> expected = new ArrayList<>();
        for (String line :
                NativeDiagnostics.nativeSyntheticExpected(seed, events).split("\n")) {
            if (line.startsWith("SCHEMA ")) {
                String descriptor = line.substring("SCHEMA ".length());
                schemas.put(descriptor.substring(0, descriptor.indexOf(' ')), descriptor);
            } else {
                expected.add(line);
            }
        }

        List<String> actual = new ArrayList<>();
        long records = 0;
        int batches = 0;
        try (NativeStreamReader reader = new NativeStreamReader(
                NativeDiagnostics.openSynthetic(seed, events), initialBuffer, directLimit, 64 << 20)) {
            Batch batch;
            do {
                batch = reader.poll(0);
                if (batch == null) {
                    fail("seed " + seed + ": the synthetic stream stalled after " + actual.size() + " entries");
                }
                batches++;
                for (BatchEntry entry : batch) {
                    String line = render(entry);
                    if (line == null) {
                        continue;
                    }
                    int at = actual.size();
                    actual.add(line);
                    if (at >= expected.size() || !expected.get(at).equals(line)) {
                        fail("seed " + seed + " (initial buffer " + initialBuffer + "), entry " + at + ":\nexpected "
                                + (at < expected.size() ? expected.get(at) : "<nothing>") + "\nactual   " + line);
                    }
                    if (entry instanceof VitessRecord r) {
                        records++;
                        String key = key(r.table());
                        assertThat(render(r.table()))
                                .as("seed %d: descriptor of %s", seed, key)
                                .isEqualTo(schemas.get(key));
                        checkAccessors(r);
                    }
                }
            } while (!batch.isEndOfStream());
            assertThat(reader.bufferCapacity()).as("the direct buffer").isLessThanOrEqualTo(directLimit);
            heapBatches[0] += reader.heapBatches();
        }
        assertThat(actual).as("seed %d: every entry, in order", seed).containsExactlyElementsOf(expected);
        assertThat(batches).isPositive();
        return records;
    }

    /** The canonical line of an entry; null for table descriptors (records name their table). */
    static String render(BatchEntry entry) {
        if (entry instanceof TableDescriptor) {
            return null;
        }
        if (entry instanceof VitessRecord r) {
            StringBuilder sb = new StringBuilder("REC ")
                    .append(key(r.table()))
                    .append(' ')
                    .append(r.kind().toByteValue())
                    .append(' ')
                    .append(r.isSnapshot() ? 1 : 0)
                    .append(' ')
                    .append(r.commitTimestampMillis())
                    .append(' ');
            for (int i = 0; i < r.arity(); i++) {
                sb.append(i == 0 ? "" : "|").append(value(r, i));
            }
            return sb.toString();
        }
        if (entry instanceof BatchEntry.PositionMark p) {
            return "POS " + p.keyspace() + " " + p.shard() + " " + (p.copyCompleted() ? 1 : 0) + " "
                    + hex(p.position().toBytes());
        }
        if (entry instanceof BatchEntry.Heartbeat h) {
            return "HB " + h.timestampMillis();
        }
        if (entry instanceof BatchEntry.Ddl d) {
            return "DDL " + d.keyspace() + " " + d.shard() + " " + d.commitTimestampMillis() + " "
                    + hex(d.statement().getBytes(StandardCharsets.UTF_8));
        }
        if (entry instanceof BatchEntry.ShardCopyCompleted s) {
            return "SCC " + s.keyspace() + " " + s.shard();
        }
        if (entry instanceof BatchEntry.CopyCompleted) {
            return "CC";
        }
        if (entry instanceof BatchEntry.EndOfStream) {
            return "END";
        }
        return "UNEXPECTED " + entry;
    }

    static String key(TableDescriptor t) {
        return t.keyspace() + "/" + t.shard() + "/" + t.table() + "@" + t.version();
    }

    static String render(TableDescriptor t) {
        StringBuilder sb = new StringBuilder(key(t)).append(' ').append(t.columnCount());
        for (ColumnDescriptor c : t.columns()) {
            int flags = (c.primaryKey() ? 1 : 0) | (c.nullable() ? 2 : 0);
            sb.append(' ')
                    .append(hex(c.name().getBytes(StandardCharsets.UTF_8)))
                    .append(':')
                    .append(c.type().code())
                    .append(':')
                    .append(flags)
                    .append(':')
                    .append(c.vitessType())
                    .append(':')
                    .append(Integer.toUnsignedString(c.charset()))
                    .append(':')
                    .append(c.length())
                    .append(':')
                    .append(c.decimals())
                    .append(':')
                    .append(hex(c.mysqlType().getBytes(StandardCharsets.UTF_8)));
        }
        return sb.toString();
    }

    /** One value in the canonical text (see synth::expected). */
    static String value(VitessRecord r, int i) {
        if (r.isAbsent(i)) {
            return "A";
        }
        if (r.isNull(i)) {
            return "N";
        }
        switch (r.valueType(i)) {
            case INT:
                return "I" + r.getLong(i);
            case UINT:
                return "U" + r.getUnsigned(i);
            case FLOAT:
                return "F" + String.format("%016x", Double.doubleToRawLongBits(r.getDouble(i)));
            case DECIMAL:
                return "D" + r.getString(i);
            case STRING:
                return "S" + hex(r.getString(i).getBytes(StandardCharsets.UTF_8));
            case BYTES:
                return "B" + hex(r.getBytes(i));
            case DATE: {
                LocalDate d = r.getDate(i);
                return d == null
                        ? "Y!"
                        : String.format("Y%04d-%02d-%02d", d.getYear(), d.getMonthValue(), d.getDayOfMonth());
            }
            case DATETIME: {
                LocalDateTime t = r.getDateTime(i);
                return t == null
                        ? "W!"
                        : String.format(
                                "W%04d-%02d-%02dT%02d:%02d:%02d.%06d",
                                t.getYear(),
                                t.getMonthValue(),
                                t.getDayOfMonth(),
                                t.getHour(),
                                t.getMinute(),
                                t.getSecond(),
                                t.getNano() / 1000);
            }
            case TIME:
                return "M" + r.getTimeMicros(i);
            default:
                throw new AssertionError(r.valueType(i));
        }
    }

    /** The other accessors agree with the canonical ones. */
    private static void checkAccessors(VitessRecord r) {
        for (int i = 0; i < r.arity(); i++) {
            Object o = r.getObject(i);
            if (r.isNull(i) || r.isAbsent(i)) {
                assertThat(o).isNull();
                continue;
            }
            switch (r.valueType(i)) {
                case DECIMAL:
                    assertThat(r.getDecimal(i)).isEqualByComparingTo(new BigDecimal(r.getString(i)));
                    checkDecimalUnscaled(r, i);
                    break;
                case DATE:
                case DATETIME:
                    checkEpochMillis(r, i);
                    break;
                case STRING:
                    assertThat(r.getBytes(i)).isEqualTo(r.getString(i).getBytes(StandardCharsets.UTF_8));
                    break;
                case INT:
                case UINT:
                    assertThat(r.getDecimal(i)).isEqualByComparingTo(new BigDecimal(r.getUnsigned(i)));
                    break;
                default:
                    break;
            }
        }
    }

    /**
     * The allocation-free DECIMAL reader (the SQL converter's fast path) agrees with the exact
     * {@code BigDecimal} at every scale: the same unscaled value, or {@code Long.MIN_VALUE} (then
     * the exact path decides) only where it must decline.
     */
    private static void checkDecimalUnscaled(VitessRecord r, int i) {
        BigDecimal exact = r.getDecimal(i);
        for (int scale = 0; scale <= 18; scale++) {
            long fast = r.getDecimalUnscaled(i, scale);
            boolean representable = exact.scale() <= scale && exact.precision() - exact.scale() + scale <= 18;
            if (fast == Long.MIN_VALUE) {
                assertThat(representable
                                && r.getString(i)
                                                .replace("-", "")
                                                .replace(".", "")
                                                .length()
                                        <= 18)
                        .as("%s declined at scale %d", r.getString(i), scale)
                        .isFalse();
            } else {
                assertThat(BigDecimal.valueOf(fast, scale))
                        .as("%s at scale %d", r.getString(i), scale)
                        .isEqualTo(exact.setScale(scale));
            }
        }
    }

    /** The allocation-free date-time reader agrees with {@code getDateTime} (zero dates included). */
    private static void checkEpochMillis(VitessRecord r, int i) {
        LocalDateTime dt = r.getDateTime(i);
        long millis = r.getEpochMillis(i);
        if (dt == null) {
            assertThat(millis).as("zero or invalid date-time").isEqualTo(VitessRecord.NO_DATE_TIME);
            return;
        }
        long expectedMillis =
                dt.toLocalDate().toEpochDay() * 86_400_000L + dt.toLocalTime().toNanoOfDay() / 1_000_000;
        assertThat(millis).as("%s", dt).isEqualTo(expectedMillis);
        assertThat(r.getNanoOfMillisecond(i)).isEqualTo((int) (dt.toLocalTime().toNanoOfDay() % 1_000_000));
    }

    static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return sb.toString();
    }
}
