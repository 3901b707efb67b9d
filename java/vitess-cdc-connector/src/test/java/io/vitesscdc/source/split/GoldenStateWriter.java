package io.vitesscdc.source.split;

import io.vitesscdc.source.enumerator.PendingJournal;
import io.vitesscdc.source.enumerator.VitessEnumeratorState;
import io.vitesscdc.source.enumerator.VitessEnumeratorStateSerializer;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One-off: writes the golden state of serializer versions 2 with realistic core positions. */
class GoldenStateWriter {

    static final String COPYING = "{\"keyspace\":\"customer\",\"shard\":\"-80\",\"gtid\":\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000001:1-154\","
            + "\"table_p_ks\":[{\"table_name\":\"corder\",\"lastpk\":\"AAH/\"}],\"tables_to_copy\":[\"customer\"],\"copy_completed\":false}";
    static final String STREAMING = "{\"keyspace\":\"customer\",\"shard\":\"80-\",\"gtid\":\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000002:1-77\",\"copy_completed\":true}";
    static final String NEW_40 = "{\"keyspace\":\"customer\",\"shard\":\"-40\",\"gtid\":\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000003:1-9\",\"copy_completed\":true}";
    static final String NEW_4080 = "{\"keyspace\":\"customer\",\"shard\":\"40-80\",\"gtid\":\"MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000004:1-11\",\"copy_completed\":true}";

    @Test
    void write() throws Exception {
        Path dir = Path.of(System.getenv("GOLDEN_DIR"));
        VitessSplitSerializer s = VitessSplitSerializer.INSTANCE;
        Map<String, String> started = new LinkedHashMap<>();
        started.put("-40", NEW_40);
        started.put("40-80", NEW_4080);
        ReshardJournal split = new ReshardJournal(7001, "customer", List.of("-80"), started);
        Files.write(dir.resolve("split-v2-copying.bin"), s.serialize(new VitessSplit("customer", "-80", COPYING, 3)));
        Files.write(dir.resolve("split-v2-streaming.bin"), s.serialize(new VitessSplit("customer", "80-", STREAMING, 0)));
        Files.write(dir.resolve("split-v2-ended.bin"), s.serialize(new VitessSplit("customer", "-80", COPYING, 0, split)));
        VitessEnumeratorState state = new VitessEnumeratorState(
                true,
                Map.of("customer/80-", 0),
                List.of(new VitessSplit("customer", "-80", COPYING, 3)),
                List.of(new PendingJournal(split, Set.of())),
                Set.of(4L));
        Files.write(dir.resolve("enumerator-v2.bin"), new VitessEnumeratorStateSerializer().serialize(state));
    }
}
