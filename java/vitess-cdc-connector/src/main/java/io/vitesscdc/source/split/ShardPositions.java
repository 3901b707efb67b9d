package io.vitesscdc.source.split;

import org.apache.flink.annotation.Internal;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the few facts the Java side needs from a shard position JSON (the native core's mark
 * format, {@code {"keyspace","shard","gtid","table_p_ks","tables_to_copy","copy_completed"}}) and
 * parses user-given VGTIDs. Positions are otherwise opaque: Java never builds a resume position
 * itself, it only stores what the core wrote (DESIGN invariant 6).
 */
@Internal
public final class ShardPositions {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ShardPositions() {}

    /** The position that starts a shard at {@code gtid} ("" = copy first, "current" = now). */
    public static String start(String keyspace, String shard, String gtid) {
        ObjectNode o = JSON.createObjectNode();
        o.put("keyspace", keyspace);
        o.put("shard", shard);
        o.put("gtid", gtid);
        return o.toString();
    }

    /** True once the shard's copy phase finished (or it never needed one). */
    public static boolean isCopyCompleted(String positionJson) {
        // Cheap path for the core's compact serde output; marks arrive once per transaction.
        if (positionJson.contains("\"copy_completed\":true")) {
            return true;
        }
        if (positionJson.contains("\"copy_completed\":false")) {
            return false;
        }
        JsonNode node = parse(positionJson);
        return node.path("copy_completed").asBoolean(false);
    }

    /** Whether resuming from this position still copies tables (mirrors the core's rule). */
    public static boolean needsCopy(String positionJson) {
        JsonNode node = parse(positionJson);
        if (node.path("copy_completed").asBoolean(false)) {
            return false;
        }
        return node.path("gtid").asText("").isEmpty()
                || node.path("table_p_ks").size() > 0
                || node.path("tables_to_copy").size() > 0;
    }

    public static String gtid(String positionJson) {
        return parse(positionJson).path("gtid").asText("");
    }

    /**
     * Splits user-given positions into one position JSON per shard. Accepts the core's own form
     * ({@code {"shards":[..]}}), a VGTID ({@code {"shard_gtids":[..]}} or {@code shardGtids}), or a
     * bare array; each entry needs {@code shard} and {@code gtid}; {@code keyspace}, when present,
     * must be the source's keyspace.
     *
     * @throws IllegalArgumentException naming what is wrong and how to fix it
     */
    public static Map<String, String> parseSpecificOffsets(String keyspace, String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException("the specific offsets are not valid JSON (" + e.getMessage()
                    + "): give a VGTID such as {\"shard_gtids\":[{\"keyspace\":\"" + keyspace
                    + "\",\"shard\":\"-80\",\"gtid\":\"MySQL56/...\"}]}");
        }
        JsonNode list = root;
        if (root != null && root.isObject()) {
            list = root.has("shards") ? root.get("shards")
                    : root.has("shard_gtids") ? root.get("shard_gtids") : root.get("shardGtids");
        }
        if (list == null || !list.isArray() || list.isEmpty()) {
            throw new IllegalArgumentException("the specific offsets list no shard: give a VGTID "
                    + "{\"shard_gtids\":[{\"keyspace\":..,\"shard\":..,\"gtid\":..}]} or the positions a "
                    + "checkpoint/positionsJson() showed");
        }
        Map<String, String> byShard = new LinkedHashMap<>();
        for (JsonNode entry : list) {
            if (!entry.isObject() || !entry.path("shard").isTextual() || !entry.path("gtid").isTextual()) {
                throw new IllegalArgumentException("every entry of the specific offsets needs string fields "
                        + "\"shard\" and \"gtid\", got " + entry);
            }
            ObjectNode o = ((ObjectNode) entry).deepCopy();
            String ks = o.path("keyspace").asText("");
            if (ks.isEmpty()) {
                o.put("keyspace", keyspace);
            } else if (!ks.equals(keyspace)) {
                throw new IllegalArgumentException("the specific offsets contain keyspace '" + ks
                        + "' but the source reads keyspace '" + keyspace + "': drop that entry or fix the keyspace");
            }
            String shard = o.get("shard").asText();
            if (byShard.put(shard, o.toString()) != null) {
                throw new IllegalArgumentException("the specific offsets list shard '" + shard + "' twice");
            }
        }
        return byShard;
    }

    private static JsonNode parse(String positionJson) {
        try {
            return JSON.readTree(positionJson);
        } catch (Exception e) {
            throw new IllegalArgumentException("corrupt shard position: " + positionJson, e);
        }
    }
}
