/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.enumerator;

import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.split.ReshardJournal;
import io.vitesscdc.source.split.VitessSplit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VitessEnumeratorStateSerializerTest {

    /** Written by version 1; must stay readable forever (see VitessSplitSerializerTest). */
    private static final String V1_BYTES =
            "0100000001000c637573746f6d65722f38302d00000001000000010000003100000008637573746f6d6572000000032d"
                    + "3830000000127b2267746964223a226d7953514c3536227d0000000000000003";

    private static final VitessEnumeratorState STATE = new VitessEnumeratorState(
            true,
            Set.of("customer/80-"),
            List.of(new VitessSplit("customer", "-80", pos("-80", "{\"gtid\":\"mySQL56\"}"), 3)));

    private static Position pos(String shard, String json) {
        return Position.fromSavedJson("customer", shard, json);
    }

    private final VitessEnumeratorStateSerializer serializer = new VitessEnumeratorStateSerializer();

    @Test
    void roundTrip() throws IOException {
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(STATE)))
                .isEqualTo(STATE);
        VitessEnumeratorState empty = new VitessEnumeratorState(false, Set.of(), List.of());
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(empty)))
                .isEqualTo(empty);
    }

    @Test
    void version1StaysReadable() throws IOException {
        assertThat(serializer.deserialize(
                        VitessEnumeratorStateSerializer.VERSION_1,
                        HexFormat.of().parseHex(V1_BYTES)))
                .isEqualTo(STATE);
    }

    /** Version 2 (resharding: owners, a journal in progress, a completed one); never change. */
    private static final String V2_BYTES =
            "0100000002000c637573746f6d65722f38302d00000001000c637573746f6d65722f63302dffffffff00000001000000"
                    + "020000003200000008637573746f6d6572000000032d3830000000127b2267746964223a226d7953514c3536227d0000"
                    + "000000000003000000000100000000000000090008637573746f6d65720000000200032d3830000338302d0000000100"
                    + "0130000000187b2267746964223a224d7953514c35362f6d3a312d33227d0000000100032d3830000000010000000000"
                    + "000004";

    private static final ReshardJournal MERGE = new ReshardJournal(
            9, "customer", List.of("-80", "80-"), Map.of("0", pos("0", "{\"gtid\":\"MySQL56/m:1-3\"}")));

    private static final VitessEnumeratorState STATE_V2 = new VitessEnumeratorState(
            true,
            Map.of("customer/80-", 1, "customer/c0-", VitessEnumeratorState.UNKNOWN_OWNER),
            List.of(new VitessSplit("customer", "-80", pos("-80", "{\"gtid\":\"mySQL56\"}"), 3)),
            List.of(new PendingJournal(MERGE, Set.of("-80"))),
            Set.of(4L));

    @Test
    void version2StaysReadable() throws IOException {
        assertThat(serializer.deserialize(
                        VitessEnumeratorStateSerializer.VERSION_2,
                        HexFormat.of().parseHex(V2_BYTES)))
                .isEqualTo(STATE_V2);
    }

    /**
     * Version 5 bytes of a state whose pending journals have no ended positions: version 6 less
     * each journal's empty position count (here one journal, followed by the completed-journal
     * count and {@code completed} longs).
     */
    private static byte[] asVersion5(byte[] v6, int completed) {
        int tail = 4 + 8 * completed;
        byte[] v5 = new byte[v6.length - 4];
        System.arraycopy(v6, 0, v5, 0, v6.length - tail - 4);
        System.arraycopy(v6, v6.length - tail, v5, v6.length - tail - 4, tail);
        return v5;
    }

    @Test
    void currentVersionIsVersion6AndRoundTripsTheVersion2State() throws IOException {
        assertThat(serializer.getVersion()).isEqualTo(VitessEnumeratorStateSerializer.VERSION_6);
        byte[] v6 = serializer.serialize(STATE_V2);
        assertThat(serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_6, v6))
                .isEqualTo(STATE_V2);
        assertThat(serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_5, asVersion5(v6, 1)))
                .isEqualTo(STATE_V2);
        assertThat(serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_4, asVersion5(v6, 1)))
                .isEqualTo(STATE_V2);
        // positions are bytes now: no JSON of them is left in the state
        assertThat(new String(v6, java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain("\"gtid\"");
    }

    @Test
    void version6KeepsTheFinalPositionsOfEndedParticipants() throws IOException {
        Position finalMinus80 = pos(
                "-80",
                "{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":\"MySQL56/m:1-2\",\"copy_completed\":true,"
                        + "\"snapshots\":[{\"table\":\"t\",\"after\":\"AQAAAAAAAAAF\",\"chunks\":2,\"rows\":9}]}");
        VitessEnumeratorState withPositions = new VitessEnumeratorState(
                true,
                Map.of(),
                List.of(),
                List.of(new PendingJournal(MERGE, Set.of("-80"), 6, Map.of("-80", finalMinus80))),
                Set.of());
        VitessEnumeratorState back =
                serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_6, serializer.serialize(withPositions));
        assertThat(back).isEqualTo(withPositions);
        assertThat(back.pendingJournals().get(0).endedPositions().get("-80").toJson())
                .contains("\"snapshots\"");
    }

    @Test
    void version4KeepsAPendingJournalsEpochAndVersion3ReadsAsEpochZero() throws IOException {
        VitessEnumeratorState withEpoch = new VitessEnumeratorState(
                true, Map.of(), List.of(), List.of(new PendingJournal(MERGE, Set.of("-80"), 6)), Set.of());
        byte[] v4 = asVersion5(serializer.serialize(withEpoch), 0);
        VitessEnumeratorState back = serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_4, v4);
        assertThat(back).isEqualTo(withEpoch);
        assertThat(back.pendingJournals().get(0).newShardsEpoch()).isEqualTo(7);
        // version 3 is version 4 without each pending journal's trailing epoch (the last 8 bytes
        // before the completed-journal count here)
        byte[] v3 = new byte[v4.length - 8];
        int epochAt = v4.length - 4 - 8;
        System.arraycopy(v4, 0, v3, 0, epochAt);
        System.arraycopy(v4, epochAt + 8, v3, epochAt, 4);
        assertThat(serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_3, v3))
                .isEqualTo(new VitessEnumeratorState(
                        true, Map.of(), List.of(), List.of(new PendingJournal(MERGE, Set.of("-80"))), Set.of()));
    }

    @Test
    void goldenVersion2StateRestoresWithItsPositionsAsBytes() throws IOException {
        byte[] golden;
        try (java.io.InputStream in = getClass().getResourceAsStream("/state/enumerator-v2.bin")) {
            assertThat(in).isNotNull();
            golden = in.readAllBytes();
        }
        Map<String, Position> started = new java.util.LinkedHashMap<>();
        started.put(
                "-40",
                pos(
                        "-40",
                        "{\"keyspace\":\"customer\",\"shard\":\"-40\",\"gtid\":"
                                + "\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000003:1-9\",\"copy_completed\":true}"));
        started.put(
                "40-80",
                pos(
                        "40-80",
                        "{\"keyspace\":\"customer\",\"shard\":\"40-80\",\"gtid\":"
                                + "\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000004:1-11\",\"copy_completed\":true}"));
        String copying = "{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":"
                + "\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000001:1-154\",\"table_p_ks\":[{\"table_name\":\"corder\","
                + "\"lastpk\":\"AAH/\"}],\"tables_to_copy\":[\"customer\"],\"copy_completed\":false}";
        VitessEnumeratorState expected = new VitessEnumeratorState(
                true,
                Map.of("customer/80-", 0),
                List.of(new VitessSplit("customer", "-80", pos("-80", copying), 3)),
                List.of(new PendingJournal(new ReshardJournal(7001, "customer", List.of("-80"), started), Set.of())),
                Set.of(4L));
        VitessEnumeratorState restored = serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_2, golden);
        assertThat(restored).isEqualTo(expected);
        assertThat(restored.unassignedSplits().get(0).position().toJson()).isEqualTo(copying);
        assertThat(List.copyOf(
                        restored.pendingJournals().get(0).journal().started().keySet()))
                .containsExactly("-40", "40-80");
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(restored)))
                .isEqualTo(restored);
    }

    @Test
    void aVersion1StateRestoresWithUnknownOwnersAndNoJournals() throws IOException {
        VitessEnumeratorState v1 = serializer.deserialize(
                VitessEnumeratorStateSerializer.VERSION_1, HexFormat.of().parseHex(V1_BYTES));
        assertThat(v1.assignedOwners()).isEqualTo(Map.of("customer/80-", VitessEnumeratorState.UNKNOWN_OWNER));
        assertThat(v1.pendingJournals()).isEmpty();
        assertThat(v1.completedJournals()).isEmpty();
        // and is written back as version 2
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(v1)))
                .isEqualTo(v1);
    }

    @Test
    void reshardingRoundTrip() throws IOException {
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(STATE_V2)))
                .isEqualTo(STATE_V2);
    }

    @Test
    void unknownVersionFailsClearly() {
        assertThatThrownBy(() -> serializer.deserialize(99, new byte[0])).hasMessageContaining("version 99");
    }
}
