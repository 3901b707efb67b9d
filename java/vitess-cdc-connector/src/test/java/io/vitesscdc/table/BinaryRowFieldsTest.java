/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.BatchEntry;
import io.vitesscdc.nativeio.ChangeKind;
import io.vitesscdc.nativeio.ColumnDescriptor;
import io.vitesscdc.nativeio.NativeLibrary;
import io.vitesscdc.nativeio.NativeStreamReader;
import io.vitesscdc.nativeio.SyntheticStreams;
import io.vitesscdc.nativeio.TableDescriptor;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.testutils.FixedRecordContext;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * SQL rows are written in Flink's binary layout; every field must hold exactly what the field
 * converters read, for every value the synthetic streams produce (extreme integers, NaN,
 * zero and invalid dates, long and empty text, NULLs, absent columns), read from the direct
 * buffers a native poll fills. Each table is declared three ways: as {@link FlinkTypes#suggest}
 * would declare it, all STRING, all BYTES. A record a converter refuses must be refused whole.
 */
class BinaryRowFieldsTest {

    private static final int SEEDS = 40;
    private static final int EVENTS_PER_SEED = 300;

    @BeforeAll
    static void load() {
        NativeLibrary.load();
    }

    @Test
    void everyFieldHoldsWhatItsConverterReads() {
        long fields = 0;
        long refused = 0;
        for (long seed = 0; seed < SEEDS; seed++) {
            Map<TableDescriptor, List<Declared>> declarations = new HashMap<>();
            try (NativeStreamReader reader = SyntheticStreams.open(seed, EVENTS_PER_SEED, 4096)) {
                Batch batch;
                do {
                    batch = reader.poll(0);
                    if (batch == null) {
                        fail("seed " + seed + ": the synthetic stream stalled");
                    }
                    for (BatchEntry entry : batch) {
                        if (!(entry instanceof VitessRecord r)) {
                            continue;
                        }
                        for (Declared d : declarations.computeIfAbsent(r.table(), BinaryRowFieldsTest::declare)) {
                            long checked = d.check(seed, r);
                            fields += Math.max(checked, 0);
                            refused += checked < 0 ? 1 : 0;
                        }
                    }
                } while (!batch.isEndOfStream());
            }
        }
        assertThat(fields).as("fields compared").isGreaterThan(SEEDS * EVENTS_PER_SEED);
        assertThat(refused)
                .as("records refused by a converter (the error path is compared too)")
                .isPositive();
    }

    /** The declarations of a table's columns: as suggested (each alternative), all STRING, all BYTES. */
    private static List<Declared> declare(TableDescriptor table) {
        List<Declared> all = new ArrayList<>();
        all.add(new Declared(table, c -> suggested(c)[0]));
        all.add(new Declared(table, c -> suggested(c)[suggested(c).length - 1]));
        all.add(new Declared(table, c -> "STRING"));
        all.add(new Declared(table, c -> "BYTES"));
        return all;
    }

    /**
     * The types {@link FlinkTypes#suggest} names: one ("INT"), two ("TIMESTAMP(6) or
     * TIMESTAMP_LTZ(6)"), or one with why ("STRING (exact: …)").
     */
    private static String[] suggested(ColumnDescriptor column) {
        return FlinkTypes.suggest(column).split(" \\(", 2)[0].split(" or ");
    }

    /** One declared Flink table over a Vitess table: the schema under test and its converters. */
    private static final class Declared {
        final RowType type;
        final FieldConverters.FieldConverter[] converters;
        final RowDataVitessDeserializationSchema retract;
        final RowDataVitessDeserializationSchema upsert;
        final RowDataSerializer serializer;

        Declared(TableDescriptor table, java.util.function.Function<ColumnDescriptor, String> declare) {
            List<RowType.RowField> fields = new ArrayList<>();
            for (ColumnDescriptor c : table.columns()) {
                fields.add(new RowType.RowField(
                        c.name(),
                        LogicalTypeParser.parse(declare.apply(c), BinaryRowFieldsTest.class.getClassLoader())));
            }
            type = new RowType(fields);
            converters = new FieldConverters.FieldConverter[fields.size()];
            for (int f = 0; f < converters.length; f++) {
                converters[f] = FieldConverters.create(type.getTypeAt(f));
            }
            retract = new RowDataVitessDeserializationSchema(type, List.of(), InternalTypeInfo.of(type), false);
            upsert = new RowDataVitessDeserializationSchema(type, List.of(), InternalTypeInfo.of(type), true);
            serializer = new RowDataSerializer(type);
        }

        /** Fields compared, or -1 when a converter refused the record (and the schema did too). */
        long check(long seed, VitessRecord r) {
            Object[] expected = new Object[type.getFieldCount()];
            RuntimeException refusal = null;
            for (int f = 0; f < expected.length; f++) {
                if (r.isNull(f) || r.isAbsent(f)) {
                    continue;
                }
                try {
                    expected[f] = converters[f].convert(r, f);
                } catch (IllegalArgumentException | ClassCastException e) {
                    refusal = e;
                }
            }
            if (refusal != null) {
                assertThatThrownBy(() -> deserialize(r))
                        .as("seed %d: %s refused by a converter (%s)", seed, r, refusal.getMessage())
                        .isInstanceOf(UnreadableColumnException.class);
                return -1;
            }
            RowData row = deserialize(r);
            assertThat(row).isInstanceOf(BinaryRowData.class);
            // Flink copies the row between chained operators; the copy must read the same.
            RowData copy = serializer.copy(row);
            for (RowData read : List.of(row, copy)) {
                assertThat(read.getRowKind())
                        .isEqualTo(
                                r.kind() == ChangeKind.SNAPSHOT_READ
                                        ? RowKind.UPDATE_AFTER
                                        : RowKind.fromByteValue(r.kind().toByteValue()));
                for (int f = 0; f < expected.length; f++) {
                    LogicalType t = type.getTypeAt(f);
                    Object actual = RowData.createFieldGetter(t, f).getFieldOrNull(read);
                    if (!same(expected[f], actual)) {
                        fail("seed " + seed + ", " + r + ": field '"
                                + type.getFieldNames().get(f) + "' declared " + t + " holds " + render(actual)
                                + ", its converter reads " + render(expected[f]));
                    }
                }
            }
            return expected.length;
        }

        /** The record's row: an upsert changelog for a snapshot read, a retract one for the rest (-U too). */
        RowData deserialize(VitessRecord r) {
            List<RowData> out = new ArrayList<>();
            (r.kind() == ChangeKind.SNAPSHOT_READ ? upsert : retract)
                    .deserialize(r, new FixedRecordContext("{}", 0, 0), new Collector<>() {
                        @Override
                        public void collect(RowData record) {
                            out.add(record);
                        }

                        @Override
                        public void close() {}
                    });
            assertThat(out).hasSize(1);
            return out.get(0);
        }
    }

    private static boolean same(Object expected, Object actual) {
        if (expected instanceof byte[] e && actual instanceof byte[] a) {
            return Arrays.equals(e, a);
        }
        return Objects.equals(expected, actual);
    }

    private static String render(Object v) {
        return v instanceof byte[] b ? Arrays.toString(b) : String.valueOf(v);
    }
}
