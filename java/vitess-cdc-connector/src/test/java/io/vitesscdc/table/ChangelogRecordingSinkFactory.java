package io.vitesscdc.table;

import io.vitesscdc.source.testutils.ChangelogRecorder;
import io.vitesscdc.source.testutils.ChangelogRecorder.Change;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DataStreamSinkProvider;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A test SQL sink ({@code 'connector' = 'changelog-recording'}) that takes the raw changelog (+I,
 * -U, +U, -D as they come) and records it with a {@link ChangelogRecorder} into the {@link
 * io.vitesscdc.source.testutils.StrictChangelog} {@code 'name'}. {@code 'key'} lists the key
 * columns (comma-separated), {@code 'shard-column'} names the column holding the source shard (the
 * {@code shard} metadata); the row is every other column. The table declares no primary key, so
 * the planner passes the source's changelog through unchanged (no upsert materializer).
 */
public final class ChangelogRecordingSinkFactory implements DynamicTableSinkFactory {

    static final ConfigOption<String> NAME = ConfigOptions.key("name").stringType().noDefaultValue();
    static final ConfigOption<String> KEY = ConfigOptions.key("key").stringType().noDefaultValue();
    static final ConfigOption<String> SHARD_COLUMN = ConfigOptions.key("shard-column").stringType().noDefaultValue();

    @Override
    public String factoryIdentifier() {
        return "changelog-recording";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(NAME, KEY);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(SHARD_COLUMN);
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        DataType rowType = context.getPhysicalRowDataType();
        List<String> names = DataType.getFieldNames(rowType);
        List<LogicalType> types = new ArrayList<>();
        DataType.getFieldDataTypes(rowType).forEach(t -> types.add(t.getLogicalType()));
        List<Integer> key = new ArrayList<>();
        for (String column : helper.getOptions().get(KEY).split(",")) {
            int i = names.indexOf(column.trim());
            if (i < 0) {
                throw new IllegalArgumentException("key column '" + column.trim() + "' not in " + names);
            }
            key.add(i);
        }
        int shard = helper.getOptions().getOptional(SHARD_COLUMN).map(names::indexOf).orElse(-1);
        return new RecordingSink(helper.getOptions().get(NAME), new RowDataChanges(types, key, shard));
    }

    private static final class RecordingSink implements DynamicTableSink {
        private final String name;
        private final RowDataChanges changes;

        RecordingSink(String name, RowDataChanges changes) {
            this.name = name;
            this.changes = changes;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return ChangelogMode.all();
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return (DataStreamSinkProvider) (providerContext, stream) -> ChangelogRecorder.record(stream, name,
                            providerContext.generateUid("strict-changelog").orElse("strict-changelog"), changes)
                    .sinkTo(new DiscardingSink<>())
                    .setParallelism(1);
        }

        @Override
        public DynamicTableSink copy() {
            return new RecordingSink(name, changes);
        }

        @Override
        public String asSummaryString() {
            return "changelog-recording";
        }
    }

    /** RowData → one change: its row kind, key columns, other columns as Java values, shard column. */
    private static final class RowDataChanges implements ChangelogRecorder.Extractor<RowData> {
        private static final long serialVersionUID = 1L;
        private final RowData.FieldGetter[] getters;
        private final List<Integer> key;
        private final int shard;

        RowDataChanges(List<LogicalType> types, List<Integer> key, int shard) {
            this.getters = new RowData.FieldGetter[types.size()];
            for (int i = 0; i < types.size(); i++) {
                getters[i] = RowData.createFieldGetter(types.get(i), i);
            }
            this.key = key;
            this.shard = shard;
        }

        @Override
        public List<Change> changes(RowData element) {
            List<Object> keyValues = new ArrayList<>(key.size());
            for (int i : key) {
                keyValues.add(java(getters[i].getFieldOrNull(element)));
            }
            List<Object> row = new ArrayList<>(getters.length);
            for (int i = 0; i < getters.length; i++) {
                if (i != shard) {
                    row.add(java(getters[i].getFieldOrNull(element)));
                }
            }
            String shardName = shard < 0 ? null : Objects.toString(getters[shard].getFieldOrNull(element), null);
            return List.of(new Change(element.getRowKind(), keyValues, row, shardName));
        }

        /** Internal values as serializable Java values that compare with equals. */
        private static Object java(Object v) {
            if (v instanceof StringData) {
                return v.toString();
            } else if (v instanceof DecimalData) {
                return ((DecimalData) v).toBigDecimal();
            } else if (v instanceof TimestampData) {
                return ((TimestampData) v).toLocalDateTime();
            }
            return v;
        }
    }
}
