/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Debezium's Vitess connector through its embedded engine, as a user would run it: JSON change
 * events (schemas off) to a consumer that counts the bench table's records. Same VTGate,
 * keyspace, tablet type (PRIMARY) and table as the other consumers; offsets in memory.
 */
final class DebeziumConsumer {

    private DebeziumConsumer() {}

    static void start(BenchArgs a, Recorder rec) throws Exception {
        Properties p = new Properties();
        p.setProperty("name", "bench-debezium");
        p.setProperty("connector.class", "io.debezium.connector.vitess.VitessConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "60000");
        String[] hostPort = a.vtgate.split(":", 2);
        p.setProperty("database.hostname", hostPort[0]);
        p.setProperty("database.port", hostPort.length > 1 ? hostPort[1] : "15991");
        p.setProperty("vitess.keyspace", a.keyspace);
        p.setProperty("vitess.tablet.type", "MASTER"); // Debezium's name for PRIMARY
        p.setProperty("topic.prefix", "bench");
        p.setProperty("table.include.list", a.keyspace + "." + a.table);
        p.setProperty("converter.schemas.enable", "false");
        p.setProperty("key.converter.schemas.enable", "false");
        p.setProperty("value.converter.schemas.enable", "false");
        String positions = a.positionsJson();
        if (positions != null) {
            p.setProperty("snapshot.mode", "never");
            setVgtid(p, positions);
        } else {
            p.setProperty("snapshot.mode", a.start.equals("latest") ? "never" : "initial");
        }
        String topic = "bench." + a.keyspace + "." + a.table;
        rec.opened();
        DebeziumEngine<ChangeEvent<String, String>> engine = DebeziumEngine.create(Json.class)
                .using(p)
                .notifying(event -> {
                    if (!topic.equals(event.destination()) || event.value() == null) {
                        return; // heartbeats, tombstones
                    }
                    rec.record(1);
                    if (a.sampling(rec)) {
                        long us = Recorder.stampOf(event.value());
                        if (us > 0) {
                            rec.latency(us);
                        }
                    }
                })
                .using((success, message, error) -> {
                    if (!success) {
                        System.err.println("bench: the Debezium engine stopped: " + message);
                        if (error != null) {
                            error.printStackTrace();
                        }
                        Runtime.getRuntime().halt(3);
                    }
                })
                .build();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        executor.execute(engine);
    }

    /**
     * Our positions JSON ({@code vstream positions}: {@code {"shards":[{keyspace, shard, gtid,
     * ..}]}} or a bare list) as Debezium's {@code vitess.shard} and {@code vitess.vgtid}.
     */
    static void setVgtid(Properties p, String positionsJson) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        JsonNode root = mapper.readTree(positionsJson);
        JsonNode list = root.isArray() ? root : root.path("shards");
        if (!list.isArray() || list.isEmpty()) {
            throw new IllegalArgumentException("no shards in the start positions: " + positionsJson);
        }
        ArrayNode vgtid = mapper.createArrayNode();
        List<String> shards = new ArrayList<>();
        for (JsonNode s : list) {
            vgtid.addObject()
                    .put("keyspace", s.path("keyspace").asText())
                    .put("shard", s.path("shard").asText())
                    .put("gtid", s.path("gtid").asText());
            shards.add(s.path("shard").asText());
        }
        p.setProperty("vitess.shard", String.join(",", shards));
        p.setProperty("vitess.vgtid", mapper.writeValueAsString(vgtid));
    }
}
