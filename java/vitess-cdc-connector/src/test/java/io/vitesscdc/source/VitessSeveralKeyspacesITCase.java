/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;
import io.vitesscdc.source.testutils.ChangelogRecorder;
import io.vitesscdc.source.testutils.CustomerRangeITBase;
import io.vitesscdc.source.testutils.DebeziumJson;
import io.vitesscdc.source.testutils.DebeziumJsonMaterializingSink;
import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.TestTimeouts;
import io.vitesscdc.source.testutils.VitessCluster;
import io.vitesscdc.source.testutils.VitessITBase;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One source over two keyspaces (docs/flink-source.md, "Several keyspaces"): {@code
 * customer.customer} (sharded: -80, 80-) and {@code commerce.product} (unsharded), on a real
 * MiniCluster at parallelism 2 against the local Vitess. The copy of both, a writer on each while
 * the job runs, a stop-with-savepoint, writes while nothing reads, and a restore at parallelism 3:
 * each table's materialized rows equal Vitess's, no streamed event arrives twice, every record
 * names its own keyspace, and the changelog of each table is strict.
 */
@Timeout(value = TestTimeouts.LONG_IT_CASE_MINUTES, unit = TimeUnit.MINUTES)
class VitessSeveralKeyspacesITCase extends CustomerRangeITBase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = miniCluster(4);

    private final String skuPrefix = "mk-" + Long.toString(System.nanoTime(), 36) + "-";

    VitessSeveralKeyspacesITCase() {
        super("keyspaces");
    }

    private String products() {
        return runId + "-product";
    }

    @AfterEach
    void deleteProducts() throws Exception {
        VitessCluster.execute("commerce", "DELETE FROM product WHERE sku LIKE '" + skuPrefix + "%'");
        MaterializedTables.drop(products());
        ChangelogRecorder.drop(products());
    }

    @Test
    void twoKeyspacesInOneSourceCopyStreamAndResumeFromASavepointAtAnotherParallelism(@TempDir Path savepoints)
            throws Exception {
        writer.insertRows(200);
        insertProducts(0, 60);

        JobClient job = buildJob(2).executeAsync("vitess-two-keyspaces");
        writer.start(50);
        long opsAtStart = writer.ops();
        waitUntil(TestTimeouts.CONVERGE, () -> writer.ops() >= opsAtStart + 80, "customer writes while streaming");
        writeProducts(60, 80);
        writer.stop();
        awaitEqualToVitess(TestTimeouts.CONVERGE);
        awaitProductsEqualToVitess();
        String savepoint = stopWithSavepoint(job, savepoints);

        // Written while nothing reads: the restored job reads them from each keyspace's positions.
        writer.insertRows(50);
        writeProducts(80, 100);
        JobClient restored = executeRestored(buildJob(3), savepoint, "vitess-two-keyspaces-restored");
        try {
            awaitEqualToVitess(TestTimeouts.CONVERGE_AFTER_RESTORE);
            awaitProductsEqualToVitess();
            ChangelogRecorder.awaitCheckpointed(runId, TestTimeouts.CHECKPOINT);
            ChangelogRecorder.awaitCheckpointed(products(), TestTimeouts.CHECKPOINT);
        } finally {
            VitessITBase.cancel(restored);
        }
        assertNoDuplicateStreamedEvents(runId);
        assertNoDuplicateStreamedEvents(products());
        ChangelogRecorder.assertStrict(runId);
        ChangelogRecorder.assertStrict(products());
    }

    /** The source's records routed by table, each checked for its keyspace, then materialized. */
    private StreamExecutionEnvironment buildJob(int parallelism) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(500);
        VitessSource<String> source = VitessSource.<String>builder()
                .address(VitessCluster.grpcAddress())
                .keyspaces("customer", "commerce")
                .tables("customer.customer", "commerce.product")
                .deserializer(new JsonDebeziumDeserializationSchema())
                .build();
        DataStream<String> events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess")
                .uid("vitess-source");
        DataStream<String> customers =
                events.filter(new OfTable("customer", "customer")).uid("customers");
        recordAndMaterialize(customers, DebeziumJson.changes("customer_id"));
        DataStream<String> productEvents =
                events.filter(new OfTable("commerce", "product")).uid("products");
        ChangelogRecorder.record(productEvents, products(), "strict-products", DebeziumJson.changes("sku"))
                .sinkTo(new DebeziumJsonMaterializingSink(products(), "sku"))
                .uid("product-sink")
                .setParallelism(1);
        return env;
    }

    /**
     * The records of one table; a record of that table naming another keyspace fails the job (the
     * keyspace metadata must be each record's own).
     */
    private static final class OfTable implements FilterFunction<String> {
        private final String keyspace;
        private final String table;

        OfTable(String keyspace, String table) {
            this.keyspace = keyspace;
            this.table = table;
        }

        @Override
        public boolean filter(String event) throws Exception {
            var source = DebeziumJson.parse(event).path("source");
            if (!source.path("table").asText().equals(table)) {
                return false;
            }
            if (!source.path("keyspace").asText().equals(keyspace)) {
                throw new IllegalStateException("a record of table " + table + " names keyspace "
                        + source.path("keyspace").asText() + ", not " + keyspace + ": " + event);
            }
            return true;
        }
    }

    private void insertProducts(int from, int to) throws Exception {
        List<String> values = new ArrayList<>();
        for (int i = from; i < to; i++) {
            values.add("('" + skuPrefix + i + "', 'two keyspaces', " + i + ")");
        }
        VitessCluster.execute(
                "commerce", "INSERT INTO product (sku, description, price) VALUES " + String.join(",", values));
    }

    /** Inserts {@code from..to}, then updates and deletes some of the earlier products. */
    private void writeProducts(int from, int to) throws Exception {
        insertProducts(from, to);
        for (int i = from / 2; i < from / 2 + 10; i++) {
            VitessCluster.execute(
                    "commerce", "UPDATE product SET price = price + 1000 WHERE sku = '" + skuPrefix + i + "'");
        }
        VitessCluster.execute(
                "commerce",
                "DELETE FROM product WHERE sku IN ('" + skuPrefix + (from - 1) + "', '" + skuPrefix + (from - 2)
                        + "')");
    }

    private void awaitProductsEqualToVitess() throws Exception {
        Map<String, Map<String, String>> expected =
                VitessCluster.query("commerce", "SELECT * FROM product WHERE sku LIKE '" + skuPrefix + "%'", "sku");
        awaitEqual(
                expected,
                () -> MaterializedTables.get(products()).rowsWithKeyPrefix(skuPrefix),
                TestTimeouts.CONVERGE_AFTER_RESTORE,
                "commerce.product materialized vs SELECT * through VTGate");
    }

    private static void assertNoDuplicateStreamedEvents(String tables) {
        List<String> events = MaterializedTables.get(tables).events();
        Set<String> seen = new HashSet<>();
        List<String> duplicates = new ArrayList<>();
        for (String e : events) {
            if (!seen.add(e)) {
                duplicates.add(e);
            }
        }
        assertThat(events).as("streamed events of " + tables).isNotEmpty();
        assertThat(duplicates).as("streamed events delivered twice").isEmpty();
    }
}
