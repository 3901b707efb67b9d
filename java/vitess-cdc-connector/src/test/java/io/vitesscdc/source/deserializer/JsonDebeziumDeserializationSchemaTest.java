/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.deserializer;

import io.vitesscdc.nativeio.Batch;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.testutils.FixedRecordContext;
import io.vitesscdc.source.testutils.NativeBatches;
import io.vitesscdc.source.testutils.NativeBatches.Col;

import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class JsonDebeziumDeserializationSchemaTest {

    private static final Col[] COLUMNS = {
        new Col("id", 1, "bigint", 20, 0),
        new Col("amount", 5, "decimal(7,2)", 7, 2),
        new Col("big", 2, "bigint unsigned", 20, 0),
        new Col("ratio", 4, "double", 22, 31),
        new Col("t", 11, "time(3)", 0, 3),
        new Col("ts", 10, "timestamp(3)", 0, 3),
        new Col("name", 6, "varchar(10)", 10, 0),
        new Col("raw", 7, "varbinary(4)", 4, 0),
        new Col("d", 8, "date", 0, 0),
    };

    private static final int INSERT = 0;
    private static final int UPDATE_BEFORE = 1;
    private static final int UPDATE_AFTER = 2;
    private static final int DELETE = 3;

    /** Every record of one batch through one deserializer, its output with the wall-clock ts_ms fixed. */
    private static List<String> convert(NativeBatches batches) throws Exception {
        Batch batch = batches.build();
        JsonDebeziumDeserializationSchema schema = new JsonDebeziumDeserializationSchema();
        List<String> out = new ArrayList<>();
        Collector<String> collector = new ListCollector<>(out);
        for (Object entry : batch.entries()) {
            if (entry instanceof VitessRecord r) {
                schema.deserialize(r, new FixedRecordContext("{\"gtid\":\"g\"}", 3, 42), collector);
            }
        }
        out.replaceAll(record -> record.replaceFirst("\"op\":\"(.)\",\"ts_ms\":\\d+,", "\"op\":\"$1\",\"ts_ms\":0,"));
        return out;
    }

    private static Object[] row(long id, String amount, String name) {
        return new Object[] {
            id,
            new BigDecimal(amount),
            new BigInteger("18446744073709551615"),
            0.1 * id,
            Duration.ofMillis(-3_723_456),
            LocalDateTime.of(2024, 2, 29, 13, 14, 15, 123_000_000),
            name,
            new byte[] {0, 1, (byte) 0xfe},
            LocalDate.of(2024, 2, 29)
        };
    }

    @Test
    void everyKindAndValueInDebeziumsShape() throws Exception {
        List<String> out = convert(new NativeBatches()
                .table(1, "-80", "things", COLUMNS)
                .row(1, INSERT, true, 0, row(1, "100.00", "copied"))
                .row(1, INSERT, false, 1_700_000_000_123L, row(2, "-0.50", "h\u00e9llo \"q\"\n"))
                .row(1, UPDATE_BEFORE, false, 1_700_000_000_124L, row(2, "-0.50", "before"))
                .row(1, UPDATE_AFTER, false, 1_700_000_000_124L, row(2, "12345.67", "after"))
                .row(1, DELETE, false, 1_700_000_000_125L, 3L, null, null, Double.NaN, null, null, null, null, null));
        // The exact text: numbers as MySQL holds them (DECIMAL with its scale, UNSIGNED BIGINT
        // beyond a long), NaN as a string, TIME past midnight's sign, binary as base64, text
        // escaped, the update's before image from the record before it.
        assertThat(out)
                .containsExactly(
                        "{\"before\":null,\"after\":{\"id\":1,\"amount\":100.00,\"big\":18446744073709551615,\"ratio\":0.1,\"t\":\"-01:02:03.456000\",\"ts\":\"2024-02-29T13:14:15.123\",\"name\":\"copied\",\"raw\":\"AAH+\",\"d\":\"2024-02-29\"},\"op\":\"r\",\"ts_ms\":0,\"source\":{\"connector\":\"vitess\",\"keyspace\":\"ks\",\"shard\":\"-80\",\"table\":\"things\",\"ts_ms\":0,\"snapshot\":true,\"position\":\"{\\\"gtid\\\":\\\"g\\\"}\",\"epoch\":3,\"rank\":42}}",
                        "{\"before\":null,\"after\":{\"id\":2,\"amount\":-0.50,\"big\":18446744073709551615,\"ratio\":0.2,\"t\":\"-01:02:03.456000\",\"ts\":\"2024-02-29T13:14:15.123\",\"name\":\"h\u00e9llo \\\"q\\\"\\n\",\"raw\":\"AAH+\",\"d\":\"2024-02-29\"},\"op\":\"c\",\"ts_ms\":0,\"source\":{\"connector\":\"vitess\",\"keyspace\":\"ks\",\"shard\":\"-80\",\"table\":\"things\",\"ts_ms\":1700000000123,\"snapshot\":false,\"position\":\"{\\\"gtid\\\":\\\"g\\\"}\",\"epoch\":3,\"rank\":42}}",
                        "{\"before\":{\"id\":2,\"amount\":-0.50,\"big\":18446744073709551615,\"ratio\":0.2,\"t\":\"-01:02:03.456000\",\"ts\":\"2024-02-29T13:14:15.123\",\"name\":\"before\",\"raw\":\"AAH+\",\"d\":\"2024-02-29\"},\"after\":{\"id\":2,\"amount\":12345.67,\"big\":18446744073709551615,\"ratio\":0.2,\"t\":\"-01:02:03.456000\",\"ts\":\"2024-02-29T13:14:15.123\",\"name\":\"after\",\"raw\":\"AAH+\",\"d\":\"2024-02-29\"},\"op\":\"u\",\"ts_ms\":0,\"source\":{\"connector\":\"vitess\",\"keyspace\":\"ks\",\"shard\":\"-80\",\"table\":\"things\",\"ts_ms\":1700000000124,\"snapshot\":false,\"position\":\"{\\\"gtid\\\":\\\"g\\\"}\",\"epoch\":3,\"rank\":42}}",
                        "{\"before\":{\"id\":3,\"amount\":null,\"big\":null,\"ratio\":\"NaN\",\"t\":null,\"ts\":null,\"name\":null,\"raw\":null,\"d\":null},\"after\":null,\"op\":\"d\",\"ts_ms\":0,\"source\":{\"connector\":\"vitess\",\"keyspace\":\"ks\",\"shard\":\"-80\",\"table\":\"things\",\"ts_ms\":1700000000125,\"snapshot\":false,\"position\":\"{\\\"gtid\\\":\\\"g\\\"}\",\"epoch\":3,\"rank\":42}}");
    }

    @Test
    void aChunkedSnapshotsRowIsAnIncrementalReadToApplyAsAnUpsert() throws Exception {
        List<String> out = convert(new NativeBatches()
                .table(1, "-80", "things", COLUMNS)
                .row(1, 4 /* SNAPSHOT_READ */, true, 0, row(5, "1.00", "captured"))
                .row(1, INSERT, true, 0, row(6, "1.00", "copied")));
        assertThat(out.get(0)).contains("\"op\":\"r\"").contains("\"snapshot\":true,\"incremental\":true,\"position\"");
        assertThat(out.get(1)).contains("\"op\":\"r\"").doesNotContain("incremental");
    }

    @Test
    void anAfterImageWithoutItsBeforeImageAndARecordWithoutPositionStillConvert() throws Exception {
        Batch batch = new NativeBatches()
                .table(1, "-80", "things", COLUMNS)
                .row(1, UPDATE_AFTER, false, 5L, row(7, "1.00", "x"))
                .build();
        JsonDebeziumDeserializationSchema schema = new JsonDebeziumDeserializationSchema();
        List<String> out = new ArrayList<>();
        for (Object entry : batch.entries()) {
            if (entry instanceof VitessRecord r) {
                schema.deserialize(r, new FixedRecordContext(null, 0, 0), new ListCollector<>(out));
            }
        }
        assertThat(out).hasSize(1);
        assertThat(out.get(0))
                .startsWith("{\"before\":null,\"after\":{\"id\":7,")
                .contains("\"op\":\"u\"")
                .contains("\"position\":null,\"epoch\":0,\"rank\":0}}");
    }
}
