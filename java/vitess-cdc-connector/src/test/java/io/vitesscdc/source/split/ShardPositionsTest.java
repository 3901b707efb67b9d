package io.vitesscdc.source.split;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShardPositionsTest {

    @Test
    void copyFacts() {
        assertThat(ShardPositions.isCopyCompleted("{\"gtid\":\"x\",\"copy_completed\":true}")).isTrue();
        assertThat(ShardPositions.isCopyCompleted("{\"gtid\":\"x\", \"copy_completed\" : true}")).isTrue();
        assertThat(ShardPositions.isCopyCompleted("{\"gtid\":\"\"}")).isFalse();
        assertThat(ShardPositions.needsCopy(ShardPositions.start("ks", "-80", ""))).isTrue();
        assertThat(ShardPositions.needsCopy(ShardPositions.start("ks", "-80", "current"))).isFalse();
        assertThat(ShardPositions.needsCopy("{\"gtid\":\"g\",\"tables_to_copy\":[\"t\"]}")).isTrue();
        assertThat(ShardPositions.gtid("{\"gtid\":\"MySQL56/a:1\"}")).isEqualTo("MySQL56/a:1");
    }

    @Test
    void specificOffsetsInEveryAcceptedShape() {
        for (String json : new String[] {
            "{\"shard_gtids\":[{\"keyspace\":\"ks\",\"shard\":\"-80\",\"gtid\":\"g1\"},{\"shard\":\"80-\",\"gtid\":\"current\"}]}",
            "{\"shards\":[{\"keyspace\":\"ks\",\"shard\":\"-80\",\"gtid\":\"g1\"},{\"shard\":\"80-\",\"gtid\":\"current\"}]}",
            "[{\"keyspace\":\"ks\",\"shard\":\"-80\",\"gtid\":\"g1\"},{\"shard\":\"80-\",\"gtid\":\"current\"}]",
        }) {
            Map<String, String> byShard = ShardPositions.parseSpecificOffsets("ks", json);
            assertThat(byShard).containsOnlyKeys("-80", "80-");
            assertThat(ShardPositions.gtid(byShard.get("-80"))).isEqualTo("g1");
            assertThat(byShard.get("80-")).contains("\"keyspace\":\"ks\"");
        }
    }

    @Test
    void badSpecificOffsetsNameTheFix() {
        assertThatThrownBy(() -> ShardPositions.parseSpecificOffsets("ks", "nope"))
                .hasMessageContaining("not valid JSON").hasMessageContaining("shard_gtids");
        assertThatThrownBy(() -> ShardPositions.parseSpecificOffsets("ks", "{\"shard_gtids\":[]}"))
                .hasMessageContaining("list no shard");
        assertThatThrownBy(() -> ShardPositions.parseSpecificOffsets("ks", "[{\"shard\":\"-80\"}]"))
                .hasMessageContaining("\"gtid\"");
        assertThatThrownBy(() -> ShardPositions.parseSpecificOffsets("ks",
                        "[{\"keyspace\":\"other\",\"shard\":\"-80\",\"gtid\":\"\"}]"))
                .hasMessageContaining("keyspace 'other'");
        assertThatThrownBy(() -> ShardPositions.parseSpecificOffsets("ks",
                        "[{\"shard\":\"-80\",\"gtid\":\"\"},{\"shard\":\"-80\",\"gtid\":\"\"}]"))
                .hasMessageContaining("twice");
    }
}
