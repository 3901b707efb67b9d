package io.vitesscdc.source.split;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VitessSplitSerializerTest {

    private static final String POSITION =
            "{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":\"MySQL56/a:1-5\",\"copy_completed\":true}";

    /**
     * Bytes written by version 1. Never change them: a connector must read every version it ever
     * wrote. A new version gets its own constant and test next to this one.
     */
    private static final String V1_BYTES = "00000008637573746f6d6572000000032d3830000000527b226b65797370616365223a22637573746f6d6572222c2273"
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
        String huge = "{\"gtid\":\"" + "x".repeat(200_000) + "\"}";
        VitessSplit split = new VitessSplit("ks", "80-", huge, 0);
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(split))).isEqualTo(split);
    }

    @Test
    void version1StaysReadable() throws IOException {
        VitessSplit split = serializer.deserialize(VitessSplitSerializer.VERSION_1, HexFormat.of().parseHex(V1_BYTES));
        assertThat(split).isEqualTo(new VitessSplit("customer", "-80", POSITION, 7));
    }

    /** Version 2 (an ended split with its reshard journal); never change these either. */
    private static final String V2_BYTES = "00000008637573746f6d6572000000032d3830000000527b226b65797370616365223a22637573746f6d6572222c2273"
            + "68617264223a222d3830222c2267746964223a224d7953514c35362f613a312d35222c22636f70795f636f6d706c6574"
            + "6564223a747275657d000000000000000001000000000000000c00000001000000032d383000000001000000032d3430"
            + "0000000c7b2267746964223a226e227d";

    private static final VitessSplit ENDED = new VitessSplit("customer", "-80", POSITION, 0, new ReshardJournal(
            12, "customer", List.of("-80"), Map.of("-40", "{\"gtid\":\"n\"}")));

    @Test
    void version2StaysReadable() throws IOException {
        assertThat(serializer.deserialize(VitessSplitSerializer.VERSION_2, HexFormat.of().parseHex(V2_BYTES)))
                .isEqualTo(ENDED);
    }

    @Test
    void currentVersionWritesVersion2Bytes() throws IOException {
        // While CURRENT_VERSION is 2 the bytes must be identical; bump the version when they change.
        assertThat(serializer.getVersion()).isEqualTo(VitessSplitSerializer.VERSION_2);
        assertThat(HexFormat.of().formatHex(serializer.serialize(ENDED))).isEqualTo(V2_BYTES);
    }

    @Test
    void endedSplitsRoundTrip() throws IOException {
        VitessSplit merged = new VitessSplit("ks", "80-", POSITION, 3, new ReshardJournal(
                -5, "ks", List.of("-80", "80-"), Map.of("0", "x".repeat(100_000))));
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(merged))).isEqualTo(merged);
        VitessSplit reading = new VitessSplit("customer", "-80", POSITION, 7);
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(reading))).isEqualTo(reading);
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
