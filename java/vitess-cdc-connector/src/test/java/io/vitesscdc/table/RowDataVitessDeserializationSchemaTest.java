/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.testutils.FixedRecordContext;
import io.vitesscdc.source.testutils.NativeBatches;
import io.vitesscdc.source.testutils.NativeBatches.Col;

import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RowDataVitessDeserializationSchemaTest {

    private static final Col[] COLUMNS = {
        new Col("id", 1, "bigint", 20, 0),
        new Col("amount", 5, "decimal(5,2)", 5, 2),
        new Col("big", 2, "bigint unsigned", 20, 0),
        new Col("t", 11, "time(3)", 0, 3),
        new Col("ts", 10, "timestamp(3)", 0, 3),
        new Col("name", 6, "varchar(10)", 10, 0),
        new Col("flag", 16, "bit(1)", 1, 0),
        new Col("d", 8, "date", 0, 0),
    };

    private static VitessRecord record(long commitTs, int kind, Object... values) {
        Batch batch = new NativeBatches()
                .table(1, "-80", "things", COLUMNS)
                .row(1, kind, commitTs == 0, commitTs, values)
                .build();
        return (VitessRecord) batch.entries().get(1);
    }

    private static VitessRecord sample(int kind) {
        return record(
                1_700_000_000_123L,
                kind,
                7L,
                new BigDecimal("123.45"),
                new BigInteger("18446744073709551615"),
                Duration.ofMillis(3_723_456),
                LocalDateTime.of(2024, 2, 29, 13, 14, 15, 123_000_000),
                "héllo",
                new byte[] {1},
                LocalDate.of(2024, 2, 29));
    }

    private static List<RowData> deserialize(DataType physical, List<VitessReadableMetadata> metadata, VitessRecord r) {
        return deserialize(physical, metadata, r, false);
    }

    private static List<RowData> deserialize(
            DataType physical, List<VitessReadableMetadata> metadata, VitessRecord r, boolean upsert) {
        RowType type = (RowType) physical.getLogicalType();
        RowDataVitessDeserializationSchema schema =
                new RowDataVitessDeserializationSchema(type, metadata, InternalTypeInfo.of(type), upsert);
        List<RowData> out = new ArrayList<>();
        schema.deserialize(r, new FixedRecordContext("{\"gtid\":\"g\"}", 3, 42), collectInto(out));
        return out;
    }

    private static Collector<RowData> collectInto(List<RowData> out) {
        return new Collector<>() {
            @Override
            public void collect(RowData record) {
                out.add(record);
            }

            @Override
            public void close() {}
        };
    }

    @Test
    void everyDeclaredTypeAndMetadata() {
        DataType physical = DataTypes.ROW(
                DataTypes.FIELD("name", DataTypes.STRING()),
                DataTypes.FIELD("id", DataTypes.BIGINT()),
                DataTypes.FIELD("amount", DataTypes.DECIMAL(5, 2)),
                DataTypes.FIELD("big", DataTypes.DECIMAL(20, 0)),
                DataTypes.FIELD("t", DataTypes.TIME(3)),
                DataTypes.FIELD("ts", DataTypes.TIMESTAMP_LTZ(3)),
                DataTypes.FIELD("flag", DataTypes.BOOLEAN()),
                DataTypes.FIELD("D", DataTypes.DATE()));
        List<RowData> rows = deserialize(
                physical,
                List.of(
                        VitessReadableMetadata.SHARD,
                        VitessReadableMetadata.OP_TS,
                        VitessReadableMetadata.ROW_KIND,
                        VitessReadableMetadata.POSITION,
                        VitessReadableMetadata.IS_SNAPSHOT,
                        VitessReadableMetadata.TABLE_NAME,
                        VitessReadableMetadata.EPOCH,
                        VitessReadableMetadata.RANK),
                sample(2));
        assertThat(rows).hasSize(1);
        RowData row = rows.get(0);
        assertThat(row.getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
        assertThat(row.getString(0)).isEqualTo(StringData.fromString("héllo"));
        assertThat(row.getLong(1)).isEqualTo(7L);
        assertThat(row.getDecimal(2, 5, 2)).isEqualTo(DecimalData.fromBigDecimal(new BigDecimal("123.45"), 5, 2));
        assertThat(row.getDecimal(3, 20, 0).toBigDecimal()).isEqualTo(new BigDecimal("18446744073709551615"));
        assertThat(row.getInt(4)).isEqualTo(3_723_456);
        assertThat(row.getTimestamp(5, 3))
                .isEqualTo(TimestampData.fromInstant(Instant.parse("2024-02-29T13:14:15.123Z")));
        assertThat(row.getBoolean(6)).isTrue();
        assertThat(row.getInt(7)).isEqualTo((int) LocalDate.of(2024, 2, 29).toEpochDay());
        assertThat(row.getString(8)).isEqualTo(StringData.fromString("-80"));
        assertThat(row.getTimestamp(9, 3)).isEqualTo(TimestampData.fromEpochMillis(1_700_000_000_123L));
        assertThat(row.getString(10)).isEqualTo(StringData.fromString("+U"));
        assertThat(row.getString(11)).isEqualTo(StringData.fromString("{\"gtid\":\"g\"}"));
        assertThat(row.getBoolean(12)).isFalse();
        assertThat(row.getString(13)).isEqualTo(StringData.fromString("things"));
        assertThat(row.getLong(14)).isEqualTo(3L);
        assertThat(row.getLong(15)).isEqualTo(42L);
    }

    @Test
    void anUpsertChangelogHasNoUpdateBeforeAndKeepsWholeRowsInDeletes() {
        DataType physical =
                DataTypes.ROW(DataTypes.FIELD("id", DataTypes.BIGINT()), DataTypes.FIELD("name", DataTypes.STRING()));
        // Wire kinds: 0 +I, 1 -U, 2 +U, 3 -D.
        RowKind[] retract = {RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE};
        // -U is left out: the core sends a key change as -D + +I, so -U is followed by +U of its key.
        RowKind[] upsert = {RowKind.INSERT, null, RowKind.UPDATE_AFTER, RowKind.DELETE};
        for (int kind = 0; kind < 4; kind++) {
            assertThat(deserialize(physical, List.of(), sample(kind), false)
                            .get(0)
                            .getRowKind())
                    .isEqualTo(retract[kind]);
            List<RowData> rows = deserialize(physical, List.of(VitessReadableMetadata.ROW_KIND), sample(kind), true);
            if (upsert[kind] == null) {
                assertThat(rows).as("upsert, wire kind %d", kind).isEmpty();
                continue;
            }
            assertThat(rows).hasSize(1);
            assertThat(rows.get(0).getRowKind())
                    .as("upsert, wire kind %d", kind)
                    .isEqualTo(upsert[kind]);
            assertThat(rows.get(0).getString(1))
                    .as("the whole row, also in -D")
                    .isEqualTo(StringData.fromString("héllo"));
            assertThat(rows.get(0).getString(2).toString())
                    .as("row_kind metadata: Vitess's change")
                    .isEqualTo(retract[kind].shortString());
        }
    }

    @Test
    void aSnapshotReadIsAnUpsertAndNeverReachesARetractChangelog() {
        DataType physical =
                DataTypes.ROW(DataTypes.FIELD("id", DataTypes.BIGINT()), DataTypes.FIELD("name", DataTypes.STRING()));
        // Wire kind 4: a chunked snapshot's row.
        List<RowData> rows = deserialize(physical, List.of(VitessReadableMetadata.ROW_KIND), sample(4), true);
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).getRowKind()).isEqualTo(RowKind.UPDATE_AFTER);
        assertThat(rows.get(0).getString(1)).isEqualTo(StringData.fromString("héllo"));
        assertThat(rows.get(0).getString(2).toString()).as("row_kind metadata").isEqualTo("=R");
        assertThatThrownBy(() -> deserialize(physical, List.of(), sample(4), false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("upsert changelog");
    }

    @Test
    void nullsStayNull() {
        VitessRecord r = record(0, 0, 1L, null, null, null, null, null, null, null);
        List<RowData> rows = deserialize(
                DataTypes.ROW(
                        DataTypes.FIELD("amount", DataTypes.DECIMAL(5, 2)),
                        DataTypes.FIELD("name", DataTypes.STRING())),
                List.of(VitessReadableMetadata.IS_SNAPSHOT),
                r);
        assertThat(rows.get(0).isNullAt(0)).isTrue();
        assertThat(rows.get(0).isNullAt(1)).isTrue();
        assertThat(rows.get(0).getBoolean(2)).isTrue();
        assertThat(rows.get(0).getRowKind()).isEqualTo(RowKind.INSERT);
    }

    @Test
    void rowsOfTablesInTurnEachReadTheirOwnColumnOrder() {
        // Two tables (a regex table list) with the declared columns in other positions: each row
        // must map through its own table's columns, however the rows of both interleave.
        Col id = new Col("id", 1, "bigint", 20, 0);
        Col name = new Col("name", 6, "varchar(10)", 10, 0);
        Batch batch = new NativeBatches()
                .table(1, "-80", "a", id, name)
                .table(2, "-80", "b", name, id)
                .row(1, 0, false, 1L, 1L, "a1")
                .row(2, 0, false, 1L, "b2", 2L)
                .row(2, 0, false, 1L, "b3", 3L)
                .row(1, 0, false, 1L, 4L, "a4")
                .build();
        RowType type = (RowType)
                DataTypes.ROW(DataTypes.FIELD("id", DataTypes.BIGINT()), DataTypes.FIELD("name", DataTypes.STRING()))
                        .getLogicalType();
        RowDataVitessDeserializationSchema schema =
                new RowDataVitessDeserializationSchema(type, List.of(), InternalTypeInfo.of(type), false);
        List<RowData> out = new ArrayList<>();
        for (Object entry : batch.entries()) {
            if (entry instanceof VitessRecord r) {
                schema.deserialize(r, new FixedRecordContext("{}", 0, 0), collectInto(out));
            }
        }
        assertThat(out)
                .extracting(r -> r.getLong(0) + ":" + r.getString(1))
                .containsExactly("1:a1", "2:b2", "3:b3", "4:a4");
    }

    @Test
    void mistakesNameTheColumnAndTheDeclarationThatWorks() {
        assertThatThrownBy(() -> deserialize(
                        DataTypes.ROW(DataTypes.FIELD("amount", DataTypes.DECIMAL(3, 2))), List.of(), sample(0)))
                .hasMessageContaining("'amount'")
                .hasMessageContaining("does not fit DECIMAL(3, 2)")
                .hasMessageContaining("declare it as DECIMAL(5, 2)");
        assertThatThrownBy(() ->
                        deserialize(DataTypes.ROW(DataTypes.FIELD("big", DataTypes.BIGINT())), List.of(), sample(0)))
                .hasMessageContaining("declare the column as DECIMAL(20, 0)");
        assertThatThrownBy(() ->
                        deserialize(DataTypes.ROW(DataTypes.FIELD("nope", DataTypes.INT())), List.of(), sample(0)))
                .hasMessageContaining("'nope'")
                .hasMessageContaining("has no such column")
                .hasMessageContaining("ks.things");
        VitessRecord longTime = record(5, 0, 1L, null, null, Duration.ofHours(-838), null, null, null, null);
        assertThatThrownBy(
                        () -> deserialize(DataTypes.ROW(DataTypes.FIELD("t", DataTypes.TIME(0))), List.of(), longTime))
                .hasMessageContaining("-838:00:00.000000")
                .hasMessageContaining("STRING");
        assertThat(deserialize(DataTypes.ROW(DataTypes.FIELD("t", DataTypes.STRING())), List.of(), longTime)
                        .get(0)
                        .getString(0))
                .isEqualTo(StringData.fromString("-838:00:00.000000"));
        // 13:14:15.123 in a TIMESTAMP(0) or TIMESTAMP_LTZ(2) would lose digits: refused, naming the fix.
        for (DataType cut : List.of(DataTypes.TIMESTAMP(0), DataTypes.TIMESTAMP_LTZ(2))) {
            assertThatThrownBy(() -> deserialize(DataTypes.ROW(DataTypes.FIELD("ts", cut)), List.of(), sample(0)))
                    .hasMessageContaining("'ts'")
                    .hasMessageContaining("2024-02-29T13:14:15.123")
                    .hasMessageContaining("more fractional digits than "
                            + cut.getLogicalType().asSummaryString())
                    .hasMessageContaining("declare it as TIMESTAMP(3) or TIMESTAMP_LTZ(3)");
        }
        assertThat(deserialize(DataTypes.ROW(DataTypes.FIELD("ts", DataTypes.TIMESTAMP(6))), List.of(), sample(0))
                        .get(0)
                        .getTimestamp(0, 6)
                        .toLocalDateTime())
                .isEqualTo(LocalDateTime.of(2024, 2, 29, 13, 14, 15, 123_000_000));
        assertThatThrownBy(() ->
                        deserialize(DataTypes.ROW(DataTypes.FIELD("name", DataTypes.INT())), List.of(), sample(0)))
                .hasMessageContaining("'name'")
                .hasMessageContaining("declare it as STRING");
    }
}
