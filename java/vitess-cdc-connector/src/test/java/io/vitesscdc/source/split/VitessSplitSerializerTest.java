/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.split;

import io.vitesscdc.nativeio.Position;

import org.apache.flink.core.memory.DataOutputSerializer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VitessSplitSerializerTest {

    private static final String POSITION_JSON =
            "{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":\"MySQL56/a:1-5\",\"copy_completed\":true}";
    private static final Position POSITION = Position.fromSavedJson("customer", "-80", POSITION_JSON);

    /**
     * Bytes written by version 1. Never change them: a connector must read every version it ever
     * wrote. A new version gets its own constant and test next to this one.
     */
    private static final String V1_BYTES =
            "00000008637573746f6d6572000000032d3830000000527b226b65797370616365223a22637573746f6d6572222c2273"
                    + "68617264223a222d3830222c2267746964223a224d7953514c35362f613a312d35222c22636f70795f636f6d706c6574"
                    + "6564223a747275657d0000000000000007";

    private final VitessSplitSerializer serializer = VitessSplitSerializer.INSTANCE;

    @Test
    void roundTrip() throws IOException {
        VitessSplit split = new VitessSplit("customer", "-80", POSITION, 7);
        VitessSplit back = serializer.deserialize(serializer.getVersion(), serializer.serialize(split));
        assertThat(back).isEqualTo(split);
        assertThat(back.splitId()).isEqualTo("customer/-80");
    }

    @Test
    void largePositionsBeyondWriteUtfLimit() throws IOException {
        Position huge = Position.fromSavedJson("ks", "80-", "{\"gtid\":\"" + "x".repeat(200_000) + "\"}");
        VitessSplit split = new VitessSplit("ks", "80-", huge, 0);
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(split)))
                .isEqualTo(split);
    }

    @Test
    void version1StaysReadable() throws IOException {
        VitessSplit split = serializer.deserialize(
                VitessSplitSerializer.VERSION_1, HexFormat.of().parseHex(V1_BYTES));
        assertThat(split).isEqualTo(new VitessSplit("customer", "-80", POSITION, 7));
    }

    /** Version 2 (an ended split with its reshard journal); never change these either. */
    private static final String V2_BYTES =
            "00000008637573746f6d6572000000032d3830000000527b226b65797370616365223a22637573746f6d6572222c2273"
                    + "68617264223a222d3830222c2267746964223a224d7953514c35362f613a312d35222c22636f70795f636f6d706c6574"
                    + "6564223a747275657d000000000000000001000000000000000c00000001000000032d383000000001000000032d3430"
                    + "0000000c7b2267746964223a226e227d";

    private static final VitessSplit ENDED = new VitessSplit(
            "customer",
            "-80",
            POSITION,
            0,
            new ReshardJournal(
                    12,
                    "customer",
                    List.of("-80"),
                    Map.of("-40", Position.fromSavedJson("customer", "-40", "{\"gtid\":\"n\"}"))));

    @Test
    void version2StaysReadable() throws IOException {
        assertThat(serializer.deserialize(
                        VitessSplitSerializer.VERSION_2, HexFormat.of().parseHex(V2_BYTES)))
                .isEqualTo(ENDED);
    }

    /** The version-3 layout of {@link #ENDED} (positions as bytes, no epoch). */
    private static byte[] endedVersion3Bytes() throws IOException {
        DataOutputSerializer v3 = new DataOutputSerializer(64);
        VitessSplitSerializer.writeString(v3, "customer");
        VitessSplitSerializer.writeString(v3, "-80");
        v3.writeInt(POSITION.length());
        v3.write(POSITION.toBytes());
        v3.writeLong(0);
        v3.writeBoolean(true);
        v3.writeLong(12);
        v3.writeInt(1);
        VitessSplitSerializer.writeString(v3, "-80");
        v3.writeInt(1);
        VitessSplitSerializer.writeString(v3, "-40");
        Position started = ENDED.endedBy().started().get("-40");
        v3.writeInt(started.length());
        v3.write(started.toBytes());
        return v3.getCopyOfBuffer();
    }

    @Test
    void version3StaysReadableAsEpochZero() throws IOException {
        assertThat(serializer.deserialize(VitessSplitSerializer.VERSION_3, endedVersion3Bytes()))
                .isEqualTo(ENDED);
    }

    @Test
    void version4StaysReadableWithNoTablesSeen() throws IOException {
        VitessSplit inEpoch5 = new VitessSplit("customer", "-80", POSITION, 0, ENDED.endedBy(), 5);
        DataOutputSerializer v4 = new DataOutputSerializer(64);
        v4.write(endedVersion3Bytes());
        v4.writeLong(5);
        VitessSplit read = serializer.deserialize(VitessSplitSerializer.VERSION_4, v4.getCopyOfBuffer());
        assertThat(read).isEqualTo(inEpoch5);
        assertThat(read.tables()).isEmpty();
    }

    @Test
    void currentVersionWritesVersion5Bytes() throws IOException {
        // While CURRENT_VERSION is 5 the layout must be exactly this; bump the version when it changes.
        assertThat(serializer.getVersion()).isEqualTo(VitessSplitSerializer.VERSION_5);
        VitessSplit inEpoch5 =
                new VitessSplit("customer", "-80", POSITION, 0, ENDED.endedBy(), 5, List.of("customer", "corder"));
        DataOutputSerializer expected = new DataOutputSerializer(64);
        expected.write(endedVersion3Bytes());
        expected.writeLong(5);
        expected.writeInt(2);
        for (String t : List.of("customer", "corder")) {
            byte[] b = t.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            expected.writeInt(b.length);
            expected.write(b);
        }
        assertThat(serializer.serialize(inEpoch5)).isEqualTo(expected.getCopyOfBuffer());
        assertThat(serializer.deserialize(VitessSplitSerializer.VERSION_5, expected.getCopyOfBuffer()))
                .isEqualTo(inEpoch5);
        assertThat(inEpoch5.withTables(List.of()).equals(inEpoch5))
                .as("the tables are part of the split")
                .isFalse();
        // the positions inside are the core's binary form (magic "VCSP"), not JSON
        assertThat(new String(POSITION.toBytes(), 0, 4, java.nio.charset.StandardCharsets.US_ASCII))
                .isEqualTo("VCSP");
    }

    @Test
    void aNegativeEpochIsCorruptState() throws IOException {
        DataOutputSerializer bad = new DataOutputSerializer(64);
        bad.write(endedVersion3Bytes());
        bad.writeLong(-1);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> serializer.deserialize(VitessSplitSerializer.VERSION_4, bad.getCopyOfBuffer()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("corrupt Vitess split state: epoch -1");
    }

    // ---- golden state of the release before positions became bytes (src/test/resources/state) ----

    static final String COPYING = "{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":"
            + "\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000001:1-154\",\"table_p_ks\":[{\"table_name\":\"corder\","
            + "\"lastpk\":\"AAH/\"}],\"tables_to_copy\":[\"customer\"],\"copy_completed\":false}";
    static final String STREAMING = "{\"keyspace\":\"customer\",\"shard\":\"80-\",\"gtid\":"
            + "\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000002:1-77\",\"copy_completed\":true}";
    static final String NEW_40 = "{\"keyspace\":\"customer\",\"shard\":\"-40\",\"gtid\":"
            + "\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000003:1-9\",\"copy_completed\":true}";
    static final String NEW_4080 = "{\"keyspace\":\"customer\",\"shard\":\"40-80\",\"gtid\":"
            + "\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000004:1-11\",\"copy_completed\":true}";

    static byte[] golden(String name) throws IOException {
        try (InputStream in = VitessSplitSerializerTest.class.getResourceAsStream("/state/" + name)) {
            assertThat(in).as("test resource /state/%s", name).isNotNull();
            return in.readAllBytes();
        }
    }

    /** Journal 7001 of the golden state: -80 split into -40 and 40-80. */
    static ReshardJournal goldenJournal() {
        Map<String, Position> started = new LinkedHashMap<>();
        started.put("-40", Position.fromSavedJson("customer", "-40", NEW_40));
        started.put("40-80", Position.fromSavedJson("customer", "40-80", NEW_4080));
        return new ReshardJournal(7001, "customer", List.of("-80"), started);
    }

    @Test
    void goldenVersion2SplitsRestoreWithTheirPositionsAsBytes() throws IOException {
        VitessSplit copying = serializer.deserialize(VitessSplitSerializer.VERSION_2, golden("split-v2-copying.bin"));
        assertThat(copying)
                .isEqualTo(new VitessSplit("customer", "-80", Position.fromSavedJson("customer", "-80", COPYING), 3));
        // the same position the core renders back, with its facts
        assertThat(copying.position().toJson()).isEqualTo(COPYING);
        assertThat(copying.position().copyCompleted()).isFalse();

        VitessSplit streaming =
                serializer.deserialize(VitessSplitSerializer.VERSION_2, golden("split-v2-streaming.bin"));
        assertThat(streaming.position().toJson()).isEqualTo(STREAMING);
        assertThat(streaming.position().copyCompleted()).isTrue();
        assertThat(streaming.recordsSinceMark()).isZero();
        assertThat(streaming.isEnded()).isFalse();

        VitessSplit ended = serializer.deserialize(VitessSplitSerializer.VERSION_2, golden("split-v2-ended.bin"));
        assertThat(ended)
                .isEqualTo(new VitessSplit(
                        "customer", "-80", Position.fromSavedJson("customer", "-80", COPYING), 0, goldenJournal()));
        assertThat(List.copyOf(ended.endedBy().started().keySet())).containsExactly("-40", "40-80");
        assertThat(ended.endedBy().started().get("40-80").toJson()).isEqualTo(NEW_4080);

        // and they are written back in the current version, unchanged
        for (VitessSplit split : List.of(copying, streaming, ended)) {
            assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(split)))
                    .isEqualTo(split);
        }
    }

    @Test
    void aCorruptVersion2PositionFailsTheRestoreWithTheCoresMessage() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        VitessSplitSerializer.writeString(out, "customer");
        VitessSplitSerializer.writeString(out, "-80");
        VitessSplitSerializer.writeString(out, "{\"gtid\":");
        out.writeLong(0);
        out.writeBoolean(false);
        assertThatThrownBy(() -> serializer.deserialize(VitessSplitSerializer.VERSION_2, out.getCopyOfBuffer()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("customer/-80")
                .hasMessageContaining("corrupt saved position");
    }

    @Test
    void endedSplitsRoundTrip() throws IOException {
        VitessSplit merged = new VitessSplit(
                "ks",
                "80-",
                POSITION,
                3,
                new ReshardJournal(
                        -5,
                        "ks",
                        List.of("-80", "80-"),
                        Map.of("0", Position.fromSavedJson("ks", "0", "{\"gtid\":\"" + "x".repeat(100_000) + "\"}"))));
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(merged)))
                .isEqualTo(merged);
        VitessSplit reading = new VitessSplit("customer", "-80", POSITION, 7);
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(reading)))
                .isEqualTo(reading);
    }

    @Test
    void unknownVersionAndCorruptBytesFailClearly() {
        assertThatThrownBy(() -> serializer.deserialize(99, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 99");
        assertThatThrownBy(() -> serializer.deserialize(1, new byte[] {0, 0, 0, 50, 1}))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("corrupt");
    }
}
