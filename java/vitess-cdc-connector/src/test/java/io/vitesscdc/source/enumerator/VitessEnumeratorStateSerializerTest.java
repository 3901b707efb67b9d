package io.vitesscdc.source.enumerator;

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
    private static final String V1_BYTES = "0100000001000c637573746f6d65722f38302d00000001000000010000003100000008637573746f6d6572000000032d"
            + "3830000000127b2267746964223a226d7953514c3536227d0000000000000003";

    private static final VitessEnumeratorState STATE = new VitessEnumeratorState(
            true, Set.of("customer/80-"), List.of(new VitessSplit("customer", "-80", "{\"gtid\":\"mySQL56\"}", 3)));

    private final VitessEnumeratorStateSerializer serializer = new VitessEnumeratorStateSerializer();

    @Test
    void roundTrip() throws IOException {
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(STATE))).isEqualTo(STATE);
        VitessEnumeratorState empty = new VitessEnumeratorState(false, Set.of(), List.of());
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(empty))).isEqualTo(empty);
    }

    @Test
    void version1StaysReadable() throws IOException {
        assertThat(serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_1, HexFormat.of().parseHex(V1_BYTES)))
                .isEqualTo(STATE);
    }

    /** Version 2 (resharding: owners, a journal in progress, a completed one); never change. */
    private static final String V2_BYTES = "0100000002000c637573746f6d65722f38302d00000001000c637573746f6d65722f63302dffffffff00000001000000"
            + "020000003200000008637573746f6d6572000000032d3830000000127b2267746964223a226d7953514c3536227d0000"
            + "000000000003000000000100000000000000090008637573746f6d65720000000200032d3830000338302d0000000100"
            + "0130000000187b2267746964223a224d7953514c35362f6d3a312d33227d0000000100032d3830000000010000000000"
            + "000004";

    private static final ReshardJournal MERGE = new ReshardJournal(
            9, "customer", List.of("-80", "80-"), Map.of("0", "{\"gtid\":\"MySQL56/m:1-3\"}"));

    private static final VitessEnumeratorState STATE_V2 = new VitessEnumeratorState(
            true,
            Map.of("customer/80-", 1, "customer/c0-", VitessEnumeratorState.UNKNOWN_OWNER),
            List.of(new VitessSplit("customer", "-80", "{\"gtid\":\"mySQL56\"}", 3)),
            List.of(new PendingJournal(MERGE, Set.of("-80"))),
            Set.of(4L));

    @Test
    void version2StaysReadable() throws IOException {
        assertThat(serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_2, HexFormat.of().parseHex(V2_BYTES)))
                .isEqualTo(STATE_V2);
    }

    @Test
    void currentVersionWritesVersion2Bytes() throws IOException {
        assertThat(serializer.getVersion()).isEqualTo(VitessEnumeratorStateSerializer.VERSION_2);
        assertThat(HexFormat.of().formatHex(serializer.serialize(STATE_V2))).isEqualTo(V2_BYTES);
    }

    @Test
    void aVersion1StateRestoresWithUnknownOwnersAndNoJournals() throws IOException {
        VitessEnumeratorState v1 = serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_1,
                HexFormat.of().parseHex(V1_BYTES));
        assertThat(v1.assignedOwners()).isEqualTo(Map.of("customer/80-", VitessEnumeratorState.UNKNOWN_OWNER));
        assertThat(v1.pendingJournals()).isEmpty();
        assertThat(v1.completedJournals()).isEmpty();
        // and is written back as version 2
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(v1))).isEqualTo(v1);
    }

    @Test
    void reshardingRoundTrip() throws IOException {
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(STATE_V2))).isEqualTo(STATE_V2);
    }

    @Test
    void unknownVersionFailsClearly() {
        assertThatThrownBy(() -> serializer.deserialize(3, new byte[0])).hasMessageContaining("version 3");
    }
}
