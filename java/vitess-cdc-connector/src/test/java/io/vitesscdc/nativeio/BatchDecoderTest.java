/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.nativeio;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Decodes {@code batch/golden-v2.bin}, written by the Rust encoder's test
 * {@code batch::tests::golden_batch_matches_the_java_fixture}: the two sides of the format are
 * checked against the same bytes.
 */
class BatchDecoderTest {

    private static byte[] golden() throws IOException {
        try (InputStream in = BatchDecoderTest.class.getResourceAsStream("/batch/golden-v2.bin")) {
            assertThat(in).as("golden batch resource").isNotNull();
            return in.readAllBytes();
        }
    }

    private static ByteBuffer direct(byte[] bytes) {
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes.length + 64);
        buf.put(bytes).clear();
        return buf;
    }

    @Test
    void decodesEveryEntryKind() throws IOException {
        byte[] bytes = golden();
        Batch batch = new BatchDecoder().decode(direct(bytes), bytes.length);

        assertThat(batch.version()).isEqualTo(2);
        assertThat(batch.isEndOfStream()).isTrue();
        assertThat(batch.sizeInBytes()).isEqualTo(bytes.length);
        assertThat(batch.entries())
                .extracting(e -> e.getClass().getSimpleName())
                .containsExactly(
                        "TableDescriptor",
                        "VitessRecord",
                        "VitessRecord",
                        "PositionMark",
                        "Heartbeat",
                        "Ddl",
                        "ShardCopyCompleted",
                        "CopyCompleted",
                        "Journal",
                        "EndOfStream");

        TableDescriptor table = (TableDescriptor) batch.entries().get(0);
        assertThat(table.id()).isEqualTo(1);
        assertThat(table.keyspace()).isEqualTo("customer");
        assertThat(table.shard()).isEqualTo("-80");
        assertThat(table.table()).isEqualTo("customer");
        assertThat(table.columnCount()).isEqualTo(11);
        ColumnDescriptor id = table.columns().get(0);
        assertThat(id.name()).isEqualTo("customer_id");
        assertThat(id.type()).isEqualTo(ColumnType.INT);
        assertThat(id.primaryKey()).isTrue();
        assertThat(id.nullable()).isFalse();
        assertThat(id.mysqlType()).isEqualTo("bigint");
        assertThat(table.columns().get(2).type()).isEqualTo(ColumnType.DECIMAL);
        assertThat(table.columns().get(2).mysqlType()).isEqualTo("decimal(10,2)");
        assertThat(table.indexOf("email")).isEqualTo(1);
        assertThat(table.indexOf("nope")).isEqualTo(-1);

        BatchEntry.PositionMark mark = (BatchEntry.PositionMark) batch.entries().get(3);
        assertThat(mark.keyspace()).isEqualTo("customer");
        // the fact beside the bytes agrees with what the core reads from them
        assertThat(mark.copyCompleted())
                .isEqualTo(Position.of(mark.position().toBytes()).copyCompleted());
        assertThat(mark.shard()).isEqualTo("-80");
        assertThat(mark.position().toJson()).contains("\"gtid\":\"MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-42\"");
        // the transaction count the mark carries (the base of the order rank) is the core's count
        assertThat(mark.position().transactionCount()).isEqualTo(42);
        assertThat(Position.of(mark.position().toBytes()).transactionCount()).isEqualTo(42);

        assertThat(batch.entries().get(4)).isEqualTo(new BatchEntry.Heartbeat(1_700_000_000_999L));
        assertThat(batch.entries().get(5))
                .isEqualTo(new BatchEntry.Ddl(
                        "customer", "-80", 1_700_000_001_000L, "alter table customer add column note text"));
        assertThat(batch.entries().get(6)).isEqualTo(new BatchEntry.ShardCopyCompleted("customer", "-80"));
        BatchEntry.Journal journal = (BatchEntry.Journal) batch.entries().get(8);
        assertThat(journal.ended()).containsExactly(new BatchEntry.ShardRef("customer", "-80"));
        assertThat(journal.started()).containsExactly(mark);
        assertThat(journal.shard()).isEqualTo(new BatchEntry.ShardRef("customer", "-80"));
        assertThat(journal.id()).isEqualTo(1_234_567_890_123L);
    }

    @Test
    void recordValuesHaveTheirJavaTypes() throws IOException {
        byte[] bytes = golden();
        VitessRecord r = (VitessRecord)
                new BatchDecoder().decode(direct(bytes), bytes.length).entries().get(1);

        assertThat(r.kind()).isEqualTo(ChangeKind.INSERT);
        assertThat(r.isSnapshot()).isFalse();
        assertThat(r.commitTimestampMillis()).isEqualTo(1_700_000_000_123L);
        assertThat(r.arity()).isEqualTo(11);
        assertThat(r.table().table()).isEqualTo("customer");

        assertThat(r.getLong(0)).isEqualTo(1L);
        assertThat(r.getLong("customer_id")).isEqualTo(1L);
        assertThat(r.getString("email")).isEqualTo("alice@example.com");
        assertThat(r.getDecimal(2)).isEqualTo(new BigDecimal("-12.30"));
        assertThat(r.getDecimal(2).scale()).isEqualTo(2);
        assertThat(r.valueType(3)).isEqualTo(ValueType.UINT);
        assertThat(r.getUnsigned(3)).isEqualTo(new BigInteger("18446744073709551615"));
        assertThat(r.getLong(3)).isEqualTo(-1L);
        assertThat(r.getDouble(4)).isEqualTo(0.25);
        assertThat(r.getBytes(5)).containsExactly(0xde, 0xad, 0xbe, 0xef);
        assertThat(r.getDate(6)).isEqualTo(LocalDate.of(2024, 2, 29));
        assertThat(r.getDateTime(7)).isEqualTo(LocalDateTime.of(2025, 1, 2, 3, 4, 5, 678_901_000));
        assertThat(r.getTimeMicros(8)).isEqualTo(-((838L * 60 + 59) * 60 + 59) * 1_000_000L);
        assertThat(r.getObject(8))
                .isEqualTo(Duration.ofHours(-838).minusMinutes(59).minusSeconds(59));
        assertThat(r.isNull(9)).isTrue();
        assertThat(r.getObject("note")).isNull();
        assertThat(r.valueType(10)).isEqualTo(ValueType.DATE);
        assertThat(r.getDate(10)).as("zero date").isNull();
        assertThat(r.toString()).startsWith("+I customer/-80/customer{customer_id=1, email=alice@example.com");
    }

    @Test
    void nullsAbsentValuesAndUnicode() throws IOException {
        byte[] bytes = golden();
        VitessRecord r = (VitessRecord)
                new BatchDecoder().decode(direct(bytes), bytes.length).entries().get(2);
        assertThat(r.kind()).isEqualTo(ChangeKind.UPDATE_BEFORE);
        assertThat(r.isSnapshot()).isTrue();
        assertThat(r.getString(1)).isEqualTo("ünïcödé 😀");
        assertThat(r.isNull(2)).isTrue();
        assertThat(r.isAbsent(2)).isFalse();
        assertThat(r.isAbsent(3)).isTrue();
        assertThat(r.isNull(3)).isFalse();
        assertThat(r.valueType(3)).isNull();
        assertThat(r.getObject(3)).isNull();
        assertThat(r.toString()).contains("big=<absent>");
        assertThatThrownBy(() -> r.getLong(2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'balance'")
                .hasMessageContaining("NULL");
        assertThatThrownBy(() -> r.getLong(1))
                .isInstanceOf(ClassCastException.class)
                .hasMessageContaining("STRING");
        assertThatThrownBy(() -> r.getObject("nope"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no column 'nope'");
        assertThatThrownBy(() -> r.isNull(11)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void laterBatchesReferToTablesByIdOnly() throws IOException {
        byte[] bytes = golden();
        BatchDecoder decoder = new BatchDecoder();
        decoder.decode(direct(bytes), bytes.length);
        assertThat(decoder.table(1).table()).isEqualTo("customer");

        // A fresh decoder that never saw the descriptor refuses a batch whose records need it.
        byte[] recordsOnly = withoutFirstEntry(bytes);
        assertThatThrownBy(() -> new BatchDecoder().decode(direct(recordsOnly), recordsOnly.length))
                .isInstanceOf(FatalException.class)
                .hasMessageContaining("unknown table id 1");
        // The decoder that did see it reads the same batch.
        assertThat(decoder.decode(direct(recordsOnly), recordsOnly.length).entries())
                .hasSize(9);
    }

    @Test
    void readsAtIndexZeroWhateverThePositionOfTheBuffer() throws IOException {
        byte[] bytes = golden();
        ByteBuffer buf = direct(bytes);
        buf.position(17).limit(20);
        assertThat(new BatchDecoder().decode(buf, bytes.length).entries()).hasSize(10);
        assertThat(buf.position()).isEqualTo(17);
        ByteBuffer heap = ByteBuffer.wrap(bytes);
        assertThat(new BatchDecoder().decode(heap, bytes.length).entries()).hasSize(10);
    }

    @Test
    void rejectsCorruptBatches() throws IOException {
        byte[] bytes = golden();

        byte[] badMagic = bytes.clone();
        badMagic[0] = 'X';
        assertThatThrownBy(() -> new BatchDecoder().decode(direct(badMagic), badMagic.length))
                .isInstanceOf(FatalException.class)
                .hasMessageContaining("bad magic");

        byte[] newer = bytes.clone();
        newer[4] = 3;
        assertThatThrownBy(() -> new BatchDecoder().decode(direct(newer), newer.length))
                .isInstanceOf(FatalException.class)
                .hasMessageContaining("version 3")
                .hasMessageContaining("different builds");

        assertThatThrownBy(() -> new BatchDecoder().decode(direct(bytes), bytes.length - 3))
                .isInstanceOf(FatalException.class)
                .hasMessageContaining("corrupt batch");

        assertThatThrownBy(() -> new BatchDecoder().decode(direct(bytes), 8))
                .isInstanceOf(FatalException.class)
                .hasMessageContaining("corrupt batch");
    }

    @Test
    void skipsUnknownEntryKinds() throws IOException {
        byte[] bytes = golden();
        // Append an entry with tag 200 and a 3-byte payload, fixing count and body length.
        ByteBuffer buf = ByteBuffer.allocate(bytes.length + 8).order(ByteOrder.LITTLE_ENDIAN);
        buf.put(bytes).put((byte) 200).putInt(3).put(new byte[] {1, 2, 3});
        buf.putInt(8, buf.getInt(8) + 1).putInt(12, buf.getInt(12) + 8);
        List<BatchEntry> entries =
                new BatchDecoder().decode(buf, bytes.length + 8).entries();
        assertThat(entries.get(entries.size() - 1)).isEqualTo(new BatchEntry.Unknown(200, 3));
    }

    /** A JOURNAL entry from a library that predates the reporting shard and id still decodes. */
    @Test
    void journalWithoutTheAppendedFieldsDecodes() {
        ByteBuffer payload = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        payload.putShort((short) 1);
        for (String s : new String[] {"ks", "-80"}) {
            payload.putInt(s.length()).put(s.getBytes(StandardCharsets.UTF_8));
        }
        payload.putShort((short) 0);
        int len = payload.position();
        ByteBuffer buf = ByteBuffer.allocateDirect(16 + 5 + len).order(ByteOrder.LITTLE_ENDIAN);
        buf.put("VCDB".getBytes(StandardCharsets.US_ASCII)).putShort((short) 2).putShort((short) 0);
        buf.putInt(1).putInt(5 + len);
        buf.put((byte) BatchDecoder.TAG_JOURNAL).putInt(len).put(payload.array(), 0, len);
        List<BatchEntry> entries =
                new BatchDecoder().decode(buf, buf.capacity()).entries();
        assertThat(entries)
                .containsExactly(
                        new BatchEntry.Journal(List.of(new BatchEntry.ShardRef("ks", "-80")), List.of(), null, 0));
    }

    /**
     * Damaged bytes (a bug on the native side, never expected) must surface as FatalException
     * naming the batch as corrupt, at decode or at value access; never as a stray
     * IndexOutOfBoundsException, NegativeArraySizeException or a huge allocation.
     */
    @Test
    void damagedBatchesFailWithFatalExceptionOnly() throws IOException {
        byte[] golden = golden();
        Random random = new Random(42);
        for (int round = 0; round < 5000; round++) {
            byte[] bytes = golden.clone();
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                bytes[BatchDecoder.HEADER_LENGTH + random.nextInt(bytes.length - BatchDecoder.HEADER_LENGTH)] =
                        (byte) random.nextInt(256);
            }
            try {
                for (BatchEntry e : new BatchDecoder().decode(direct(bytes), bytes.length)) {
                    if (e instanceof VitessRecord r) {
                        r.toString();
                    }
                }
            } catch (FatalException expected) {
                assertThat(expected).hasMessageContaining("corrupt batch");
            } catch (ClassCastException | IllegalStateException typed) {
                // A damaged value tag can turn a value into another type or into NULL/absent:
                // the getters report that precisely; acceptable for damaged input.
            }
        }
    }

    /** The golden batch minus its table descriptor entry (header fixed up). */
    private static byte[] withoutFirstEntry(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int firstLen = 5 + in.getInt(BatchDecoder.HEADER_LENGTH + 1);
        byte[] out = new byte[bytes.length - firstLen];
        System.arraycopy(bytes, 0, out, 0, BatchDecoder.HEADER_LENGTH);
        System.arraycopy(
                bytes,
                BatchDecoder.HEADER_LENGTH + firstLen,
                out,
                BatchDecoder.HEADER_LENGTH,
                bytes.length - BatchDecoder.HEADER_LENGTH - firstLen);
        ByteBuffer o = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        o.putInt(8, in.getInt(8) - 1).putInt(12, out.length - BatchDecoder.HEADER_LENGTH);
        return out;
    }
}
