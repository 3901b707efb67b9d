package io.vitesscdc.source.enumerator;

import io.vitesscdc.source.split.VitessSplit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
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
        assertThat(serializer.deserialize(1, serializer.serialize(empty))).isEqualTo(empty);
    }

    @Test
    void version1StaysReadable() throws IOException {
        assertThat(serializer.deserialize(VitessEnumeratorStateSerializer.VERSION_1, HexFormat.of().parseHex(V1_BYTES)))
                .isEqualTo(STATE);
    }

    @Test
    void currentVersionStillWritesVersion1Bytes() throws IOException {
        assertThat(serializer.getVersion()).isEqualTo(VitessEnumeratorStateSerializer.VERSION_1);
        assertThat(HexFormat.of().formatHex(serializer.serialize(STATE))).isEqualTo(V1_BYTES);
    }

    @Test
    void unknownVersionFailsClearly() {
        assertThatThrownBy(() -> serializer.deserialize(2, new byte[0])).hasMessageContaining("version 2");
    }
}
