/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testframe;

import io.vitesscdc.nativeio.ChangeKind;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.StartupMode;
import io.vitesscdc.source.VitessSource;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;
import io.vitesscdc.source.testutils.VitessCluster;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;
import org.apache.flink.util.Collector;

import java.net.URL;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * One test case of Flink's {@code SourceTestSuiteBase} against the local Vitess.
 *
 * <p>Mapping: the test case gets a table of its own, {@code customer.suite_<unique>} (sharded by
 * {@code hash(id)}), created on first use and dropped by {@link #close()}. Vitess's splits are the
 * keyspace's shards, so a "split" of the framework is a shard: the {@code n}-th split writer
 * writes rows only to shard {@code n mod shards} (its keys are chosen through VTGate's {@code hash}
 * vindex, asked which shard each candidate key lands on), with keys increasing in write order.
 * Within a shard the source delivers the copy in primary-key order and streamed changes in binlog
 * order, so each framework split's records arrive in the order they were written, as the
 * framework checks. When the framework makes more splits than there are shards, several splits
 * share a shard (their rows interleave by key; each one's order still holds).
 *
 * <p>A record is the row's {@code payload} text, unique within the test case; a bounded source is
 * {@link StartupMode#SNAPSHOT} (copy only), an unbounded one {@link StartupMode#INITIAL} (copy,
 * then the stream).
 */
public final class VitessSourceExternalContext implements DataStreamSourceExternalContext<String> {

    static final String KEYSPACE = "customer";

    /** Every suite table's name starts so ({@link LocalVitess} drops leftovers of a killed run). */
    static final String TABLE_PREFIX = "suite_";

    /** Rows per INSERT statement (one single-shard transaction each). */
    private static final int ROWS_PER_INSERT = 200;

    private final String testName;
    private final String table =
            "suite_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);

    private List<String> shards;
    private boolean created;
    private long nextCandidateKey = 1;
    private int writers;
    private int generatedSets;

    VitessSourceExternalContext(String testName) {
        this.testName = testName;
    }

    /** The table of this test case (created on first use). */
    public String table() {
        return table;
    }

    @Override
    public Source<String, ?, ?> createSource(TestingSourceSettings sourceSettings) {
        ensureTable();
        StartupMode mode =
                sourceSettings.getBoundedness() == Boundedness.BOUNDED ? StartupMode.SNAPSHOT : StartupMode.INITIAL;
        return VitessSource.<String>builder()
                .address(VitessCluster.grpcAddress())
                .keyspace(KEYSPACE)
                .tables(table)
                .startupMode(mode)
                .deserializer(new PayloadDeserializer())
                .build();
    }

    @Override
    public synchronized ExternalSystemSplitDataWriter<String> createSourceSplitDataWriter(
            TestingSourceSettings sourceSettings) {
        ensureTable();
        String shard = shards.get(writers++ % shards.size());
        return new ExternalSystemSplitDataWriter<>() {
            @Override
            public void writeRecords(List<String> records) {
                write(shard, records);
            }

            @Override
            public void close() {
                // Each write opens and closes its own connection.
            }
        };
    }

    /**
     * Records unique within the test case (a set number, the split and the record's index), with
     * a random part from {@code seed}; 50 to 149 of them.
     */
    @Override
    public synchronized List<String> generateTestData(TestingSourceSettings sourceSettings, int splitIndex, long seed) {
        Random random = new Random(seed);
        int set = generatedSets++;
        int count = 50 + random.nextInt(100);
        List<String> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            StringBuilder sb = new StringBuilder("set" + set + "-split" + splitIndex + "-" + i + "-");
            int len = 8 + random.nextInt(40);
            for (int c = 0; c < len; c++) {
                sb.append((char) ('a' + random.nextInt(26)));
            }
            records.add(sb.toString());
        }
        return records;
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        // The MiniCluster runs in this JVM: the connector is on the test classpath.
        return Collections.emptyList();
    }

    @Override
    public synchronized void close() throws Exception {
        if (!created) {
            return;
        }
        created = false;
        drop(table);
    }

    /** Drops a suite table and its VSchema entry. */
    static void drop(String table) throws SQLException {
        VitessCluster.execute(KEYSPACE, "DROP TABLE IF EXISTS " + table);
        try {
            VitessCluster.execute(KEYSPACE, "ALTER VSCHEMA ON " + KEYSPACE + "." + table + " DROP VINDEX hash");
        } catch (SQLException alreadyGoneWithTheTable) {
            // Dropping the table can drop its VSchema entry too.
        }
    }

    /** The suite tables that exist now (normally none: each test case drops its own). */
    static List<String> existingTables() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = VitessCluster.connect(KEYSPACE);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW TABLES LIKE '" + TABLE_PREFIX.replace("_", "\\_") + "%'")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "Vitess keyspace " + KEYSPACE + ", a table per test case";
    }

    private synchronized void ensureTable() {
        if (created) {
            return;
        }
        try {
            shards = shardsOf(KEYSPACE);
            VitessCluster.execute(
                    KEYSPACE,
                    "CREATE TABLE " + table + " (id BIGINT NOT NULL PRIMARY KEY, payload VARCHAR(255) NOT NULL)",
                    "ALTER VSCHEMA ON " + KEYSPACE + "." + table + " ADD VINDEX hash(id) USING hash");
            created = true;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create table " + KEYSPACE + "." + table + " for " + testName, e);
        }
    }

    private static List<String> shardsOf(String keyspace) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = VitessCluster.connect(keyspace);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW VITESS_SHARDS LIKE '" + keyspace + "/%'")) {
            while (rs.next()) {
                out.add(rs.getString(1).substring(keyspace.length() + 1));
            }
        }
        if (out.size() < 2) {
            throw new IllegalStateException("keyspace " + keyspace + " should have several shards, has " + out);
        }
        Collections.sort(out);
        return out;
    }

    private void write(String shard, List<String> records) {
        try (Connection c = VitessCluster.connect(KEYSPACE)) {
            List<Long> keys = keysOnShard(c, shard, records.size());
            for (int from = 0; from < records.size(); from += ROWS_PER_INSERT) {
                int to = Math.min(records.size(), from + ROWS_PER_INSERT);
                StringBuilder sql = new StringBuilder("INSERT INTO " + table + " (id, payload) VALUES ");
                for (int i = from; i < to; i++) {
                    sql.append(i == from ? "" : ", ").append("(?, ?)");
                }
                try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                    int p = 1;
                    for (int i = from; i < to; i++) {
                        ps.setLong(p++, keys.get(i));
                        ps.setString(p++, records.get(i));
                    }
                    ps.executeUpdate();
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot write " + records.size() + " rows to shard " + shard, e);
        }
    }

    /**
     * {@code n} new keys, increasing, that the {@code hash} vindex maps to {@code shard}: Vitess
     * itself says where each candidate lands (a vindex lookup through VTGate).
     */
    private List<Long> keysOnShard(Connection c, String shard, int n) throws SQLException {
        List<Long> keys = new ArrayList<>(n);
        while (keys.size() < n) {
            long first;
            int candidates = 2 * (n - keys.size()) + 16;
            synchronized (this) {
                first = nextCandidateKey;
                nextCandidateKey += candidates;
            }
            StringBuilder in = new StringBuilder();
            for (int i = 0; i < candidates; i++) {
                in.append(i == 0 ? "" : ",").append(first + i);
            }
            Map<Long, String> shardOf = new HashMap<>();
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id, shard FROM hash WHERE id IN (" + in + ")")) {
                while (rs.next()) {
                    shardOf.put(rs.getLong(1), rs.getString(2));
                }
            }
            if (shardOf.size() != candidates) {
                throw new IllegalStateException(
                        "the hash vindex placed " + shardOf.size() + " of " + candidates + " candidate keys");
            }
            for (int i = 0; i < candidates && keys.size() < n; i++) {
                if (shard.equals(shardOf.get(first + i))) {
                    keys.add(first + i);
                }
            }
        }
        return keys;
    }

    /**
     * A row's {@code payload}. The suite's tables only get inserts: any other change is a bug
     * (of the test or of the source) and fails the job.
     */
    static final class PayloadDeserializer implements VitessDeserializationSchema<String> {

        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(VitessRecord record, RecordContext context, Collector<String> out) {
            if (record.kind() != ChangeKind.INSERT) {
                throw new IllegalStateException("the suite's table " + record.table() + " only gets inserts, but the "
                        + "source delivered a " + record.kind() + " at " + context.position());
            }
            out.collect(record.getString(record.indexOf("payload")));
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }
}
