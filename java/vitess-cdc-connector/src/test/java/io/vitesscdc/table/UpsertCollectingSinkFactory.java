/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.source.testutils.MaterializedTables;
import io.vitesscdc.source.testutils.TestSink;
import io.vitesscdc.source.testutils.Values;

import org.apache.flink.api.connector.sink2.InitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A test SQL sink ({@code 'connector' = 'upsert-collecting'}) that upserts rows by the declared
 * primary key into {@link MaterializedTables} {@code 'tables-id'}: the external database a CDC
 * pipeline keeps in sync.
 */
public final class UpsertCollectingSinkFactory implements DynamicTableSinkFactory {

    static final ConfigOption<String> TABLES_ID =
            ConfigOptions.key("tables-id").stringType().noDefaultValue();

    @Override
    public String factoryIdentifier() {
        return "upsert-collecting";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(TABLES_ID);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validate();
        ResolvedSchema schema = context.getCatalogTable().getResolvedSchema();
        List<String> key = schema.getPrimaryKey().orElseThrow().getColumns();
        return new UpsertSink(helper.getOptions().get(TABLES_ID), context.getPhysicalRowDataType(), key);
    }

    private static final class UpsertSink implements DynamicTableSink {
        private final String tablesId;
        private final DataType rowType;
        private final List<String> key;

        UpsertSink(String tablesId, DataType rowType, List<String> key) {
            this.tablesId = tablesId;
            this.rowType = rowType;
            this.key = key;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return ChangelogMode.upsert();
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            DataStructureConverter converter = context.createDataStructureConverter(rowType);
            List<String> names = DataType.getFieldNames(rowType);
            return SinkV2Provider.of(new RowSink(tablesId, converter, names, key), 1);
        }

        @Override
        public DynamicTableSink copy() {
            return new UpsertSink(tablesId, rowType, key);
        }

        @Override
        public String asSummaryString() {
            return "upsert-collecting";
        }
    }

    private static final class RowSink extends TestSink<RowData> {
        private static final long serialVersionUID = 1L;
        private final String tablesId;
        private final DynamicTableSink.DataStructureConverter converter;
        private final List<String> names;
        private final List<String> key;

        RowSink(
                String tablesId,
                DynamicTableSink.DataStructureConverter converter,
                List<String> names,
                List<String> key) {
            this.tablesId = tablesId;
            this.converter = converter;
            this.names = names;
            this.key = key;
        }

        @Override
        protected SinkWriter<RowData> newWriter(InitContext context) {
            converter.open(org.apache.flink.table.connector.RuntimeConverter.Context.create(
                    Thread.currentThread().getContextClassLoader()));
            MaterializedTables tables = MaterializedTables.get(tablesId);
            return new SinkWriter<>() {
                @Override
                public void write(RowData element, Context ctx) {
                    Row row = (Row) converter.toExternal(element);
                    Map<String, String> values = new LinkedHashMap<>();
                    for (int i = 0; i < names.size(); i++) {
                        values.put(names.get(i), Values.normalize(row.getField(i)));
                    }
                    StringBuilder k = new StringBuilder();
                    for (String column : key) {
                        k.append(k.length() == 0 ? "" : "|").append(values.get(column));
                    }
                    RowKind kind = element.getRowKind();
                    // Like Flink's upsert sinks into a database (JDBC's executor, for one): an
                    // UPDATE_BEFORE that reaches the sink deletes its key, and the UPDATE_AFTER
                    // that follows (if any) writes it again. The planner sends one when a filter
                    // sits before the sink: a row updated out of the filter arrives as a lone -U.
                    String op = kind == RowKind.DELETE || kind == RowKind.UPDATE_BEFORE ? "-D" : "+U";
                    tables.apply(op, k.toString(), values, null);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
