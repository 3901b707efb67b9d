/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.bench;

import io.vitesscdc.source.StartupMode;
import io.vitesscdc.source.VitessSource;
import io.vitesscdc.source.VitessSourceBuilder;
import io.vitesscdc.source.deserializer.JsonDebeziumDeserializationSchema;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

import java.util.function.ToLongFunction;

/**
 * The connector as users run it, in a local MiniCluster (parallelism 2, one split per shard):
 * SQL {@code INSERT INTO blackhole SELECT * FROM vitess-cdc}, and a DataStream {@code VitessSource}
 * with the JSON deserializer into a discarding sink. Records are counted by {@link
 * SourceRecordCounter} outside the pipeline; in the latency scenario the sink reads each record's
 * stamp instead of discarding it.
 */
final class FlinkConsumers {

    private FlinkConsumers() {}

    private static StreamExecutionEnvironment environment(BenchArgs a) {
        Configuration conf = new Configuration();
        SourceRecordCounter.register(conf);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(a.parallelism);
        return env;
    }

    static void startSql(BenchArgs a, Recorder rec) throws Exception {
        StreamExecutionEnvironment env = environment(a);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        String positions = a.positionsJson();
        String startup = positions != null
                ? "'scan.startup.mode' = 'specific-offset', 'scan.startup.specific-offset' = '"
                        + positions.replace("'", "''") + "'"
                : "'scan.startup.mode' = '" + (a.start.equals("latest") ? "latest-offset" : "initial") + "'";
        String columns = BenchTables.columns(a.shape);
        rec.opened();
        tEnv.executeSql("CREATE TABLE src (" + columns + ", PRIMARY KEY (id) NOT ENFORCED) WITH ("
                + "'connector' = 'vitess-cdc', 'vtgate.address' = '" + a.vtgate + "', 'keyspace' = '"
                + a.keyspace + "', 'table-name' = '" + a.tableOrPattern() + "', " + startup + ")");
        if (!a.latencyMode()) {
            tEnv.executeSql("CREATE TABLE snk (" + columns + ") WITH ('connector' = 'blackhole')");
            tEnv.executeSql("INSERT INTO snk SELECT * FROM src");
            return;
        }
        Table src = tEnv.from("src");
        int stamp = src.getResolvedSchema().getColumnCount() - 1;
        DataStream<Row> rows = tEnv.toChangelogStream(src);
        rows.sinkTo(new LatencySink<>(row -> (Long) row.getField(stamp))).name("latency");
        env.executeAsync("bench-sql-latency");
    }

    /**
     * Flink's own share of the time to the first record: {@link #startSql}'s job with Flink's
     * {@code datagen} source in place of vitess-cdc (same columns, same sink, same MiniCluster and
     * JVM). Its span from the source's set-up to the first record is Flink's own reader start and
     * split assignment, to read next to the SQL consumer's same span (the connector's share: the
     * native stream opened, the shards found, the VStream's first rows).
     */
    static void startSqlDatagen(BenchArgs a, Recorder rec) throws Exception {
        StreamExecutionEnvironment env = environment(a);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        String columns = BenchTables.columns(a.shape);
        rec.opened();
        tEnv.executeSql("CREATE TABLE src (" + columns + ") WITH ('connector' = 'datagen', 'number-of-rows' = '"
                + a.events + "', 'rows-per-second' = '1000000000')");
        tEnv.executeSql("CREATE TABLE snk (" + columns + ") WITH ('connector' = 'blackhole')");
        tEnv.executeSql("INSERT INTO snk SELECT * FROM src");
    }

    static void startDataStream(BenchArgs a, Recorder rec) throws Exception {
        StreamExecutionEnvironment env = environment(a);
        VitessSourceBuilder<String> builder = VitessSource.<String>builder()
                .address(a.vtgate)
                .keyspace(a.keyspace)
                .deserializer(new JsonDebeziumDeserializationSchema());
        if (a.tablePattern() != null) {
            builder.tablePatterns(a.tablePattern());
        } else {
            builder.tables(a.table);
        }
        String positions = a.positionsJson();
        if (positions != null) {
            builder.startupMode(StartupMode.SPECIFIC_OFFSETS).specificOffsets(positions);
        } else {
            builder.startupMode(a.start.equals("latest") ? StartupMode.LATEST_OFFSET : StartupMode.INITIAL);
        }
        rec.opened();
        DataStream<String> json = env.fromSource(builder.build(), WatermarkStrategy.noWatermarks(), "vitess");
        if (a.latencyMode()) {
            json.sinkTo(new LatencySink<>(Recorder::stampOf)).name("latency");
        } else {
            json.sinkTo(new DiscardingSink<>()).name("discard");
        }
        env.executeAsync("bench-datastream");
    }

    /** Records each record's commit → here latency (after the warm-up) into the JVM's recorder. */
    static final class LatencySink<T> extends PerRecordSink<T> {
        private static final long serialVersionUID = 1L;

        LatencySink(SerializableStamp<T> stamp) {
            super(element -> {
                Recorder rec = BenchMain.recorder;
                if (BenchMain.args.sampling(rec)) {
                    long us = stamp.applyAsLong(element);
                    if (us > 0) {
                        rec.latency(us);
                    }
                }
            });
        }
    }

    /** A sink that hands every record to a function of this JVM's benchmark, nothing else. */
    static class PerRecordSink<T> implements Sink<T> {
        private static final long serialVersionUID = 1L;
        private final SerializableConsumer<T> onRecord;

        PerRecordSink(SerializableConsumer<T> onRecord) {
            this.onRecord = onRecord;
        }

        @Override
        public SinkWriter<T> createWriter(WriterInitContext context) {
            return new SinkWriter<T>() {
                @Override
                public void write(T element, Context ctx) {
                    onRecord.accept(element);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    /** What a {@link PerRecordSink} does with a record. */
    interface SerializableConsumer<T> extends java.util.function.Consumer<T>, java.io.Serializable {}

    /** How a sink finds the writer's stamp in a record. */
    interface SerializableStamp<T> extends ToLongFunction<T>, java.io.Serializable {}
}
