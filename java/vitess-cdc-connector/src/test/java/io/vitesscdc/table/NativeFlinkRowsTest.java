/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.SyntheticStreams;
import io.vitesscdc.source.testutils.ConvertedRecords;
import io.vitesscdc.source.testutils.ConvertedRecords.Converted;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.binary.BinarySegmentUtils;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

import static org.apache.flink.table.api.DataTypes.FIELD;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins the rows the native core writes in Flink's binary layout (docs/batch-format.md, "Flink
 * rows") to Flink's own {@code BinaryRowWriter}: the same seed gives the same records of every
 * type family and edge value (NULL and absent values, extreme integers, DECIMAL of 38 digits and
 * above 18, 4-byte UTF-8, empty strings and bytes, zero and invalid dates, negative and
 * beyond-a-day TIME, sub-millisecond timestamps), once with values and once as core-written
 * rows. Each core-written row must be, byte for byte, the row the Java reader writes from the
 * values; a record the Java reader refuses must reach it with values, and fail the same way.
 */
class NativeFlinkRowsTest {

    private static final int ROWS = 4_000;

    private static final List<VitessReadableMetadata> ALL_METADATA_BUT_POSITION = List.of(
            VitessReadableMetadata.KEYSPACE,
            VitessReadableMetadata.SHARD,
            VitessReadableMetadata.TABLE_NAME,
            VitessReadableMetadata.OP_TS,
            VitessReadableMetadata.ROW_KIND,
            VitessReadableMetadata.IS_SNAPSHOT,
            VitessReadableMetadata.EPOCH,
            VitessReadableMetadata.RANK);

    /** The type mapping's own suggestions (docs/sql-connector.md), every metadata column, retract. */
    private static final DataType SUGGESTED = DataTypes.ROW(
            FIELD("id", DataTypes.BIGINT()),
            FIELD("c_tinyint", DataTypes.TINYINT()),
            FIELD("c_smallint", DataTypes.SMALLINT()),
            FIELD("c_int", DataTypes.INT()),
            FIELD("c_bigint", DataTypes.BIGINT()),
            FIELD("c_bigint_u", DataTypes.DECIMAL(20, 0)),
            FIELD("c_bool", DataTypes.BOOLEAN()),
            FIELD("c_decimal", DataTypes.DECIMAL(38, 10)),
            FIELD("c_decimal0", DataTypes.DECIMAL(20, 0)),
            FIELD("c_float", DataTypes.FLOAT()),
            FIELD("c_double", DataTypes.DOUBLE()),
            FIELD("c_bit1", DataTypes.BOOLEAN()),
            FIELD("c_bit64", DataTypes.BIGINT()),
            FIELD("c_date", DataTypes.DATE()),
            FIELD("c_datetime", DataTypes.TIMESTAMP(0)),
            FIELD("c_datetime6", DataTypes.TIMESTAMP(6)),
            FIELD("c_timestamp", DataTypes.TIMESTAMP_LTZ(3)),
            FIELD("c_time", DataTypes.TIME(0)),
            FIELD("c_time6", DataTypes.STRING()),
            FIELD("c_year", DataTypes.INT()),
            FIELD("c_char", DataTypes.CHAR(10)),
            FIELD("c_varchar", DataTypes.STRING()),
            FIELD("c_varchar_bin", DataTypes.BYTES()),
            FIELD("c_text", DataTypes.STRING()),
            FIELD("c_binary", DataTypes.BINARY(16)),
            FIELD("c_varbinary", DataTypes.VARBINARY(255)),
            FIELD("c_blob", DataTypes.BYTES()),
            FIELD("c_enum", DataTypes.STRING()),
            FIELD("c_set", DataTypes.STRING()),
            FIELD("c_json", DataTypes.STRING()),
            FIELD("c_point", DataTypes.BYTES()));

    /** Other widths and precisions of the same columns, in another order, upsert. */
    private static final DataType RESHAPED = DataTypes.ROW(
            FIELD("C_DOUBLE", DataTypes.FLOAT()),
            FIELD("c_tinyint_u", DataTypes.SMALLINT()),
            FIELD("c_int_u", DataTypes.BIGINT()),
            FIELD("c_decimal", DataTypes.DECIMAL(38, 12)),
            FIELD("c_int", DataTypes.DECIMAL(12, 0)),
            FIELD("c_float", DataTypes.DOUBLE()),
            FIELD("c_mediumint", DataTypes.DECIMAL(18, 2)),
            FIELD("c_datetime6", DataTypes.TIMESTAMP(9)),
            FIELD("c_datetime", DataTypes.TIMESTAMP_LTZ(6)),
            FIELD("c_timestamp", DataTypes.TIMESTAMP(3)),
            FIELD("c_time6", DataTypes.TIME(3)),
            FIELD("c_bit64", DataTypes.BYTES()),
            FIELD("c_bigint", DataTypes.STRING()),
            FIELD("c_bigint_u", DataTypes.STRING()),
            FIELD("c_mediumint_u", DataTypes.VARCHAR(20)),
            FIELD("c_smallint", DataTypes.DOUBLE()),
            FIELD("c_year", DataTypes.SMALLINT()),
            FIELD("c_tinytext", DataTypes.BYTES()),
            FIELD("c_latin1", DataTypes.VARCHAR(32)),
            FIELD("id", DataTypes.DECIMAL(19, 0)));

    /** Every column as STRING: temporal and floating-point text is the Java reader's to write. */
    private static DataType everythingAsString() {
        String[] names = {
            "id", "c_tinyint", "c_bigint_u", "c_bool", "c_decimal", "c_decimal0", "c_float", "c_double",
            "c_bit1", "c_bit64", "c_date", "c_datetime", "c_datetime6", "c_timestamp", "c_time", "c_time6",
            "c_year", "c_char", "c_varchar_bin", "c_mediumtext", "c_binary", "c_enum", "c_json", "c_geometry"
        };
        return DataTypes.ROW(
                Arrays.stream(names).map(n -> FIELD(n, DataTypes.STRING())).toArray(DataTypes.Field[]::new));
    }

    static Stream<Arguments> declarations() {
        return Stream.of(
                Arguments.of(
                        "suggested types, all metadata, retract", SUGGESTED, ALL_METADATA_BUT_POSITION, false, 0.5),
                Arguments.of(
                        "reshaped types, upsert",
                        RESHAPED,
                        List.of(VitessReadableMetadata.ROW_KIND, VitessReadableMetadata.OP_TS),
                        true,
                        0.5),
                Arguments.of("everything as STRING", everythingAsString(), List.of(), true, 0.0));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("declarations")
    void coreRowsAreTheBytesFlinksWriterWrites(
            String name,
            DataType declared,
            List<VitessReadableMetadata> metadata,
            boolean upsert,
            double minCoreShare) {
        RowType type = (RowType) declared.getLogicalType();
        String layout = new RowDataVitessDeserializationSchema(type, metadata, InternalTypeInfo.of(type), upsert)
                .nativeOptionsJson();
        assertThat(layout).as("a layout the core can write").isNotNull();
        for (long seed : new long[] {1, 2, 3}) {
            List<Converted<byte[]>> fromValues = read(seed, null, type, metadata, upsert);
            List<Converted<byte[]>> fromCore = read(seed, layout, type, metadata, upsert);
            assertThat(fromCore).hasSameSizeAs(fromValues);
            int coreRows = 0;
            int javaConverted = 0;
            for (int i = 0; i < fromValues.size(); i++) {
                Converted<byte[]> java = fromValues.get(i);
                Converted<byte[]> core = fromCore.get(i);
                String where = name + ", seed " + seed + ", record " + i + " " + java.record();
                if (java.failure() == null) {
                    javaConverted++;
                }
                if (core.byCore()) {
                    coreRows++;
                    assertThat(java.failure())
                            .as(where + ": the core wrote a row the Java reader refuses")
                            .isNull();
                    assertThat(core.outputs()).as(where).hasSameSizeAs(java.outputs());
                    for (int r = 0; r < java.outputs().size(); r++) {
                        assertThat(hex(core.outputs().get(r)))
                                .as(where + " (" + type + ")")
                                .isEqualTo(hex(java.outputs().get(r)));
                    }
                } else {
                    assertThat(core.failure()).as(where).isEqualTo(java.failure());
                    assertThat(core.outputs().stream()
                                    .map(NativeFlinkRowsTest::hex)
                                    .toList())
                            .as(where)
                            .isEqualTo(java.outputs().stream()
                                    .map(NativeFlinkRowsTest::hex)
                                    .toList());
                }
            }
            assertThat(javaConverted)
                    .as(name + ": records the Java reader converts")
                    .isGreaterThan(ROWS / 10);
            assertThat(coreRows)
                    .as(name + ": records the core wrote, of " + javaConverted + " the Java reader converts")
                    .isGreaterThanOrEqualTo((int) (javaConverted * minCoreShare));
            if (minCoreShare > 0) {
                assertThat(coreRows).isPositive();
            }
        }
    }

    private static List<Converted<byte[]>> read(
            long seed, String layout, RowType type, List<VitessReadableMetadata> metadata, boolean upsert) {
        RowDataVitessDeserializationSchema schema =
                new RowDataVitessDeserializationSchema(type, metadata, InternalTypeInfo.of(type), upsert);
        return ConvertedRecords.read(SyntheticStreams.typedRows(seed, ROWS, layout), schema, "{}", 3, 1_000L, row -> {
            BinaryRowData binary = (BinaryRowData) row;
            return BinarySegmentUtils.copyToBytes(binary.getSegments(), binary.getOffset(), binary.getSizeInBytes());
        });
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
