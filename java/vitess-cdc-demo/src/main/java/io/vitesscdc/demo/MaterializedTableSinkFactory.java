/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.demo;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.RuntimeConverter;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.connector.sink.SinkV2Provider;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * SQL sink {@code 'connector' = 'materialized', 'name' = '...'}: upserts and deletes rows by the
 * declared primary key into the in-memory {@link MaterializedTable} of that name.
 */
public final class MaterializedTableSinkFactory implements DynamicTableSinkFactory {

    static final ConfigOption<String> NAME = ConfigOptions.key("name")
            .stringType()
            .noDefaultValue()
            .withDescription("Name of the in-memory table to keep in sync.");

    @Override
    public String factoryIdentifier() {
        return "materialized";
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(NAME);
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
        List<String> names = schema.getColumnNames();
        List<String> keyColumns = schema.getPrimaryKey()
                .orElseThrow(() -> new IllegalArgumentException(
                        "the 'materialized' sink needs a PRIMARY KEY (...) NOT ENFORCED to upsert by"))
                .getColumns();
        int[] key = keyColumns.stream().mapToInt(names::indexOf).toArray();
        return new TableSink(helper.getOptions().get(NAME), context.getPhysicalRowDataType(), key);
    }

    private static final class TableSink implements DynamicTableSink {
        private final String name;
        private final DataType rowType;
        private final int[] key;

        TableSink(String name, DataType rowType, int[] key) {
            this.name = name;
            this.rowType = rowType;
            this.key = key;
        }

        @Override
        public ChangelogMode getChangelogMode(ChangelogMode requestedMode) {
            return ChangelogMode.upsert();
        }

        @Override
        public SinkRuntimeProvider getSinkRuntimeProvider(Context context) {
            return SinkV2Provider.of(new RowSink(name, context.createDataStructureConverter(rowType), key), 1);
        }

        @Override
        public DynamicTableSink copy() {
            return new TableSink(name, rowType, key);
        }

        @Override
        public String asSummaryString() {
            return "materialized(" + name + ")";
        }
    }

    private static final class RowSink implements Sink<RowData> {
        private static final long serialVersionUID = 1L;
        private final String name;
        private final DynamicTableSink.DataStructureConverter converter;
        private final int[] key;

        RowSink(String name, DynamicTableSink.DataStructureConverter converter, int[] key) {
            this.name = name;
            this.converter = converter;
            this.key = key;
        }

        @Override
        public SinkWriter<RowData> createWriter(WriterInitContext context) {
            converter.open(
                    RuntimeConverter.Context.create(Thread.currentThread().getContextClassLoader()));
            MaterializedTable table = MaterializedTable.named(name);
            return new SinkWriter<>() {
                @Override
                public void write(RowData element, Context ctx) {
                    Row row = (Row) converter.toExternal(element);
                    List<String> values = new ArrayList<>(row.getArity());
                    for (int i = 0; i < row.getArity(); i++) {
                        values.add(Values.text(row.getField(i)));
                    }
                    StringBuilder k = new StringBuilder();
                    for (int i : key) {
                        k.append(k.length() == 0 ? "" : "|").append(values.get(i));
                    }
                    if (element.getRowKind() == RowKind.DELETE) {
                        table.delete(k.toString());
                    } else if (element.getRowKind() != RowKind.UPDATE_BEFORE) {
                        table.upsert(k.toString(), values);
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }
}
