/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source;

import io.vitesscdc.nativeio.KeyOrders;
import io.vitesscdc.nativeio.NativeStream;
import io.vitesscdc.nativeio.Position;
import io.vitesscdc.source.config.VitessSourceConfig;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;
import io.vitesscdc.source.enumerator.JobSignalTables;
import io.vitesscdc.source.enumerator.NativeShardDiscovery;
import io.vitesscdc.source.enumerator.ShardDiscovery;
import io.vitesscdc.source.enumerator.VitessEnumeratorState;
import io.vitesscdc.source.enumerator.VitessEnumeratorStateSerializer;
import io.vitesscdc.source.enumerator.VitessSourceEnumerator;
import io.vitesscdc.source.metrics.VitessSourceReaderMetrics;
import io.vitesscdc.source.reader.HeartbeatWatermarks;
import io.vitesscdc.source.reader.SignalsElsewhere;
import io.vitesscdc.source.reader.VitessRecordEmitter;
import io.vitesscdc.source.reader.VitessSourceReader;
import io.vitesscdc.source.reader.VitessSplitReader;
import io.vitesscdc.source.split.VitessSplit;
import io.vitesscdc.source.split.VitessSplitSerializer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;
import org.apache.flink.streaming.api.lineage.SourceLineageVertex;
import org.apache.flink.util.UserCodeClassLoader;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A FLIP-27 source of Vitess change data: one split per shard, an initial consistent snapshot
 * (VStream copy) followed by every later change, exactly once into Flink.
 *
 * <pre>{@code
 * VitessSource<String> source = VitessSource.<String>builder()
 *         .address("127.0.0.1:15991")
 *         .keyspace("customer")
 *         .tables("customer")
 *         .deserializer(new JsonDebeziumDeserializationSchema())
 *         .build();
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "vitess");
 * }</pre>
 *
 * <p>Unbounded, except with {@link StartupMode#SNAPSHOT}: then each split finishes when its
 * shard's copy completes. See docs/flink-source.md.
 *
 * @param <T> the output type, produced by the {@link VitessDeserializationSchema}
 */
@PublicEvolving
public final class VitessSource<T>
        implements Source<T, VitessSplit, VitessEnumeratorState>, ResultTypeQueryable<T>, LineageVertexProvider {

    private static final long serialVersionUID = 1L;

    private final VitessSourceConfig config;
    private final VitessDeserializationSchema<T> deserializer;
    private final HeartbeatWatermarks heartbeats;

    VitessSource(VitessSourceConfig config, VitessDeserializationSchema<T> deserializer) {
        this(config, deserializer, HeartbeatWatermarks.AT_HEARTBEAT);
    }

    private VitessSource(
            VitessSourceConfig config, VitessDeserializationSchema<T> deserializer, HeartbeatWatermarks heartbeats) {
        this.config = config;
        this.deserializer = deserializer;
        this.heartbeats = heartbeats;
    }

    /** A source for an already validated configuration (used by the SQL connector). */
    @Internal
    public static <T> VitessSource<T> create(VitessSourceConfig config, VitessDeserializationSchema<T> deserializer) {
        return new VitessSource<>(config, deserializer);
    }

    /**
     * A source whose heartbeats become watermarks through {@code heartbeats} (the SQL connector's
     * pushed-down WATERMARK expression) instead of at the heartbeat's own time.
     */
    @Internal
    public static <T> VitessSource<T> create(
            VitessSourceConfig config, VitessDeserializationSchema<T> deserializer, HeartbeatWatermarks heartbeats) {
        return new VitessSource<>(config, deserializer, heartbeats);
    }

    public static <T> VitessSourceBuilder<T> builder() {
        return new VitessSourceBuilder<>();
    }

    @Override
    public Boundedness getBoundedness() {
        return config.startupMode().isBounded() ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<T, VitessSplit> createReader(SourceReaderContext context) throws Exception {
        return createReader(context, NativeStream::open);
    }

    @VisibleForTesting
    SourceReader<T, VitessSplit> createReader(
            SourceReaderContext context, BiFunction<String, List<Position>, NativeStream> opener) throws Exception {
        deserializer.open(new InitContext(context));
        VitessSourceReaderMetrics metrics = new VitessSourceReaderMetrics(context.metricGroup());
        // Every log line of this reader's native streams names it: with several sources in one
        // job, the Java thread that forwards the core's lines says nothing of which one it is.
        VitessSourceConfig readerConfig = config.withNativeOption("log_label", logLabel(context));
        SignalsElsewhere signalsElsewhere = null;
        if (config.signalTable() != null) {
            // Which tables a signal names that no source of the job reads, the enumerators tell
            // (JobSignalTables): a stream alone would warn of every other source's table.
            readerConfig = readerConfig.withNativeOption("signal_tables_checked_by_job", true);
            signalsElsewhere = new SignalsElsewhere();
            metrics.reportSignalsElsewhereTo(signalsElsewhere);
        }
        VitessSourceConfig streamConfig = readerConfig;
        List<String> jobTables = jobTables(config, KeyOrders::read);
        return new VitessSourceReader<>(
                () -> new VitessSplitReader<>(streamConfig, jobTables, deserializer, metrics, opener),
                new VitessRecordEmitter<>(
                        config.heartbeatWatermarks(),
                        heartbeats,
                        context.metricGroup().getIOMetricGroup().getNumRecordsInCounter()),
                new Configuration(),
                context,
                jobTables,
                signalsElsewhere);
    }

    /**
     * The tables the job selects, as its marks record them (what a restore compares with to find
     * tables added since): the names it gives, or, when it selects by pattern or selects every
     * table, the tables of the keyspace those match now (read from VTGate through {@code
     * keyOrders}, the planning call that resolves a selection), so that a table that has come to
     * match since the checkpoint is captured on restore like one added by name.
     */
    @VisibleForTesting
    static List<String> jobTables(VitessSourceConfig config, Function<String, KeyOrders> keyOrders) {
        if (config.severalKeyspaces()) {
            // keyspace.table, each keyspace's selection resolved on its own
            List<String> all = new ArrayList<>();
            for (String keyspace : config.keyspaces()) {
                for (String table : jobTables(config.forKeyspace(keyspace), keyOrders)) {
                    all.add(keyspace + "." + table);
                }
            }
            return List.copyOf(all);
        }
        if (!config.tables().isEmpty() && config.tablePatterns().isEmpty()) {
            return config.tables();
        }
        return List.copyOf(keyOrders.apply(config.planningOptionsJson()).tables());
    }

    /** The reader as Flink names it: its operator and subtask, e.g. {@code Source: orders (1/2)}. */
    static String logLabel(SourceReaderContext context) {
        String operator = context.metricGroup().getAllVariables().get("<operator_name>");
        return (operator == null || operator.isEmpty() ? "VitessSource" : operator) + " ("
                + (context.getIndexOfSubtask() + 1) + "/" + context.currentParallelism() + ")";
    }

    @Override
    public SplitEnumerator<VitessSplit, VitessEnumeratorState> createEnumerator(
            SplitEnumeratorContext<VitessSplit> context) {
        return new VitessSourceEnumerator(
                context, discovery(), config.keyspace(), getBoundedness(), null, signalTables(context));
    }

    @Override
    public SplitEnumerator<VitessSplit, VitessEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<VitessSplit> context, VitessEnumeratorState checkpoint) {
        return new VitessSourceEnumerator(
                context, discovery(), config.keyspace(), getBoundedness(), checkpoint, signalTables(context));
    }

    /** This source's place among the job's sources that share its signal table (none without one). */
    private JobSignalTables.Member signalTables(SplitEnumeratorContext<VitessSplit> context) {
        if (config.signalTable() == null) {
            return null;
        }
        // The job's id, where the metric group names it (the JobManager's does); else the
        // sources of every job in this JobManager that share the signal table count together.
        String job = context.metricGroup() == null
                ? ""
                : context.metricGroup().getAllVariables().getOrDefault("<job_id>", "");
        return JobSignalTables.member(
                job,
                config.address(),
                config.keyspace(),
                config.signalTable(),
                config.tables(),
                config.tablePatterns());
    }

    private ShardDiscovery discovery() {
        return new NativeShardDiscovery(config);
    }

    @Override
    public SimpleVersionedSerializer<VitessSplit> getSplitSerializer() {
        return VitessSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<VitessEnumeratorState> getEnumeratorCheckpointSerializer() {
        return new VitessEnumeratorStateSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return deserializer.getProducedType();
    }

    /**
     * Lineage (FLIP-314): one dataset per table read, namespace {@code vitess://<vtgate host:port>},
     * name {@code <keyspace>.<table>}; see {@link VitessLineage}.
     */
    @Override
    public SourceLineageVertex getLineageVertex() {
        return VitessLineage.vertex(config, getBoundedness());
    }

    /** The configuration this source runs with. */
    public VitessSourceConfig config() {
        return config;
    }

    /** Hands the reader's metric group and class loader to the deserializer's {@code open}. */
    private static final class InitContext implements DeserializationSchema.InitializationContext {
        private final SourceReaderContext context;

        InitContext(SourceReaderContext context) {
            this.context = context;
        }

        @Override
        public MetricGroup getMetricGroup() {
            return context.metricGroup().addGroup("deserializer");
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return context.getUserCodeClassLoader();
        }
    }
}
