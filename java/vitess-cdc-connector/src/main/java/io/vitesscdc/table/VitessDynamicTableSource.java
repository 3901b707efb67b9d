/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.VitessSource;
import io.vitesscdc.source.config.VitessSourceConfig;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.Projection;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.SourceProvider;
import org.apache.flink.table.connector.source.abilities.SupportsFilterPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.connector.source.abilities.SupportsWatermarkPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The planner's view of a {@code vitess-cdc} table: a changelog scan backed by a {@link
 * VitessSource}, with projection and filters pushed into the VStream filter rule (see {@link
 * VitessFilters}) and metadata into the deserializer. Retract (+I, -U, +U, -D) or upsert (+I, +U,
 * -D), as {@link ChangelogModeResolver} decides.
 *
 * <p>A declared {@code WATERMARK} is pushed into the source, so that VTGate heartbeats move it
 * while the table is quiet ({@link WatermarkExpressionHeartbeats}): Flink's own watermark operator
 * after a scan sees records only, and a window would never close once the writes stop.
 *
 * <p>It is a {@link LookupTableSource} only to refuse lookups at planning with the way to do them
 * (Flink's JDBC connector on VTGate's MySQL port, docs/sql-connector.md): without it Flink's own
 * message for a processing-time join names neither the cause nor a fix.
 */
@Internal
public class VitessDynamicTableSource
        implements ScanTableSource,
                LookupTableSource,
                SupportsReadingMetadata,
                SupportsProjectionPushDown,
                SupportsWatermarkPushDown {

    private final VitessSourceConfig config;
    /** Shared by copies, so the key orders are read from VTGate once per planned table. */
    private final ChangelogModeResolver changelog;
    /** Declared physical columns, narrowed by projection pushdown. */
    private DataType physicalDataType;

    private List<String> metadataKeys = new ArrayList<>();

    /** The WHERE clause of the pushed-down filters, or null. */
    private String rowFilter;

    /** The table's WATERMARK, pushed down by the planner, or null. */
    private WatermarkStrategy<RowData> watermarkStrategy;

    /**
     * The source for a table: with filter push-down unless {@code scan.filter-push-down.enabled}
     * is off. Off means a source that does not offer {@link SupportsFilterPushDown} at all: the
     * planner adds a (possibly empty) filter spec to every scan of a source that offers it, after
     * the metadata columns, and it does not share such a scan between the queries of a statement
     * set.
     */
    public static VitessDynamicTableSource of(
            VitessSourceConfig config,
            DataType physicalDataType,
            ChangelogModeResolver changelog,
            boolean filterPushDown) {
        return filterPushDown
                ? new WithFilterPushDown(config, physicalDataType, changelog)
                : new VitessDynamicTableSource(config, physicalDataType, changelog);
    }

    public VitessDynamicTableSource(
            VitessSourceConfig config, DataType physicalDataType, ChangelogModeResolver changelog) {
        this.config = config;
        this.changelog = changelog;
        this.physicalDataType = physicalDataType;
    }

    /** {@link VitessDynamicTableSource} with {@link SupportsFilterPushDown}. */
    static final class WithFilterPushDown extends VitessDynamicTableSource implements SupportsFilterPushDown {
        WithFilterPushDown(VitessSourceConfig config, DataType physicalDataType, ChangelogModeResolver changelog) {
            super(config, physicalDataType, changelog);
        }

        @Override
        VitessDynamicTableSource emptyCopy() {
            return new WithFilterPushDown(config(), physicalDataType(), changelog());
        }
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return changelog.changelogMode();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        List<VitessReadableMetadata> metadata = new ArrayList<>();
        List<DataType> fields = new ArrayList<>(DataType.getFieldDataTypes(physicalDataType));
        List<String> names = new ArrayList<>(DataType.getFieldNames(physicalDataType));
        for (String key : metadataKeys) {
            VitessReadableMetadata m = VitessReadableMetadata.ofKey(key);
            metadata.add(m);
            fields.add(m.dataType());
            names.add("$metadata$" + key);
        }
        DataType produced = DataTypes.ROW(buildFields(names, fields));
        RowDataVitessDeserializationSchema deserializer = new RowDataVitessDeserializationSchema(
                (RowType) physicalDataType.getLogicalType(),
                metadata,
                context.createTypeInformation(produced),
                changelog.upsert());
        // Projection pushdown reaches VStream: for named tables the filter selects only the
        // declared (projected) columns, so the rest never leaves the tablet nor crosses JNI, and
        // columns added in Vitess later are not streamed at all.
        VitessSourceConfig streamConfig = config;
        List<String> physicalNames = DataType.getFieldNames(physicalDataType);
        if (namedTablesOnly()
                && !physicalNames.isEmpty()
                && !config.nativeOptions().containsKey("columns")) {
            streamConfig = streamConfig.withNativeOption("columns", new ArrayList<>(physicalNames));
        }
        if (rowFilter != null) {
            streamConfig = streamConfig.withNativeOption("row_filter", rowFilter);
        }
        if (watermarkStrategy == null) {
            return SourceProvider.of(VitessSource.create(streamConfig, deserializer));
        }
        int opTs = metadataKeys.indexOf(VitessReadableMetadata.OP_TS.key());
        VitessSource<RowData> source = opTs < 0
                ? VitessSource.create(streamConfig, deserializer)
                : VitessSource.create(
                        streamConfig,
                        deserializer,
                        new WatermarkExpressionHeartbeats(
                                config.keyspace() + "." + String.join(",", config.tables()),
                                watermarkStrategy,
                                names.size(),
                                names.size() - metadataKeys.size() + opTs));
        return new WatermarkedScan(source, watermarkStrategy);
    }

    /**
     * The source with the table's watermark strategy: Flink's {@code SourceProvider} path would
     * start it with no watermarks. The operator's uid is the one the planner gives a scan's source.
     */
    private static final class WatermarkedScan implements DataStreamScanProvider {
        private final VitessSource<RowData> source;
        private final WatermarkStrategy<RowData> watermarks;

        WatermarkedScan(VitessSource<RowData> source, WatermarkStrategy<RowData> watermarks) {
            this.source = source;
            this.watermarks = watermarks;
        }

        @Override
        public DataStream<RowData> produceDataStream(
                ProviderContext providerContext, StreamExecutionEnvironment execEnv) {
            DataStreamSource<RowData> stream = execEnv.fromSource(source, watermarks, "VitessSource");
            providerContext.generateUid("source").ifPresent(stream::uid);
            return stream;
        }

        @Override
        public boolean isBounded() {
            return source.getBoundedness() == org.apache.flink.api.connector.source.Boundedness.BOUNDED;
        }
    }

    @Override
    public void applyWatermark(WatermarkStrategy<RowData> watermarkStrategy) {
        this.watermarkStrategy = watermarkStrategy;
    }

    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        throw new ValidationException("vitess-cdc table " + config.keyspace() + "." + String.join(",", config.tables())
                + " is a change stream and does not serve lookups (a JOIN ... FOR SYSTEM_TIME AS OF a processing-time "
                + "attribute). To enrich a stream with a Vitess table, either look rows up through VTGate's MySQL port "
                + "with Flink's JDBC connector (the recipe in docs/sql-connector.md, \"Lookups\"), or join with this "
                + "table as the versioned side of an event-time temporal join (FOR SYSTEM_TIME AS OF the stream's "
                + "rowtime; this table with PRIMARY KEY and a WATERMARK on op_ts), or use a regular join.");
    }

    /** The VStream rule of named tables carries a column list and a WHERE clause; a pattern's none. */
    private boolean namedTablesOnly() {
        return !config.tables().isEmpty() && config.tablePatterns().isEmpty();
    }

    /**
     * Filter push-down: the predicates VStream evaluates go into the filter rule, so rows outside
     * them neither leave MySQL in the copy nor the tablet while streaming. Every predicate also stays
     * with Flink (see {@link VitessFilters}): the rule narrows what is sent, Flink's filter keeps the
     * result exact (an update leaving the range arrives with both images).
     */
    public SupportsFilterPushDown.Result applyFilters(List<ResolvedExpression> filters) {
        if (!namedTablesOnly() || config.nativeOptions().containsKey("row_filter")) {
            return SupportsFilterPushDown.Result.of(new ArrayList<>(), new ArrayList<>(filters));
        }
        VitessFilters.Translation t = VitessFilters.translate(filters);
        if (t.where() != null) {
            rowFilter = rowFilter == null ? t.where() : rowFilter + " and " + t.where();
        }
        return SupportsFilterPushDown.Result.of(t.accepted(), new ArrayList<>(filters));
    }

    private static DataTypes.Field[] buildFields(List<String> names, List<DataType> types) {
        DataTypes.Field[] out = new DataTypes.Field[names.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = DataTypes.FIELD(names.get(i), types.get(i));
        }
        return out;
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        Map<String, DataType> out = new LinkedHashMap<>();
        for (VitessReadableMetadata m : VitessReadableMetadata.values()) {
            out.put(m.key(), m.dataType());
        }
        return out;
    }

    @Override
    public void applyReadableMetadata(List<String> metadataKeys, DataType producedDataType) {
        this.metadataKeys = new ArrayList<>(metadataKeys);
    }

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        this.physicalDataType = Projection.of(projectedFields).project(physicalDataType);
    }

    /** A new source of the same kind and the same table, before any push-down. */
    VitessDynamicTableSource emptyCopy() {
        return new VitessDynamicTableSource(config, physicalDataType, changelog);
    }

    @Override
    public DynamicTableSource copy() {
        VitessDynamicTableSource copy = emptyCopy();
        copy.metadataKeys = new ArrayList<>(metadataKeys);
        copy.rowFilter = rowFilter;
        copy.watermarkStrategy = watermarkStrategy;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "Vitess CDC (" + config.keyspace() + (rowFilter == null ? "" : ", where " + rowFilter) + ")";
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || o.getClass() != getClass()) {
            return false;
        }
        VitessDynamicTableSource that = (VitessDynamicTableSource) o;
        return config.toString().equals(that.config.toString())
                && physicalDataType.equals(that.physicalDataType)
                && metadataKeys.equals(that.metadataKeys)
                && Objects.equals(rowFilter, that.rowFilter)
                && Objects.equals(watermarkStrategy, that.watermarkStrategy)
                && changelog.option() == that.changelog.option();
    }

    @Override
    public int hashCode() {
        return Objects.hash(config.toString(), physicalDataType, metadataKeys, rowFilter, changelog.option());
    }

    /** The config, for tests of the factory. */
    VitessSourceConfig config() {
        return config;
    }

    ChangelogModeResolver changelog() {
        return changelog;
    }

    DataType physicalDataType() {
        return physicalDataType;
    }

    String rowFilter() {
        return rowFilter;
    }
}
