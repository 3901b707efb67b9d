/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.ChangeKind;
import io.vitesscdc.nativeio.ColumnDescriptor;
import io.vitesscdc.nativeio.ColumnType;
import io.vitesscdc.nativeio.TableDescriptor;
import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Change records as {@link RowData} for SQL: the declared (projected) physical columns, matched to
 * the Vitess table's columns by name, followed by the requested metadata columns; the row kind is
 * the record's (+I, -U, +U, -D; a chunked snapshot's read is +U). An upsert changelog has no UPDATE_BEFORE (Flink's upsert mode is
 * +I, +U, -D), so there {@code -U} records are left out: the core emits an update that changes the
 * primary key as the {@code -D} of the old key and the {@code +I} of the new one, so a {@code -U}
 * is always followed by the {@code +U} of the same key. Every {@code -D} carries the whole row.
 *
 * <p>Every column that cannot be read fails with an {@link UnreadableColumnException}, which Flink
 * does not restart: the same rows would fail again.
 *
 * <p>Only declared columns are read, so projection pushdown saves the conversion of the rest. The
 * name mapping is computed once per table shape (schema changes bring a new descriptor) and
 * fails with the missing column and the table's real columns when a declared column is absent.
 */
@Internal
public final class RowDataVitessDeserializationSchema implements VitessDeserializationSchema<RowData> {

    private static final long serialVersionUID = 1L;

    private final RowType physicalType;
    private final List<VitessReadableMetadata> metadata;
    private final TypeInformation<RowData> producedType;
    private final FieldConverters.FieldConverter[] converters;
    private final boolean upsert;

    /** Built on first use, in the reader: they hold a view of the reader's batch buffer. */
    private transient RowWriters writers;

    /** A retract changelog: every record, -U included. */
    public RowDataVitessDeserializationSchema(
            RowType physicalType, List<VitessReadableMetadata> metadata, TypeInformation<RowData> producedType) {
        this(physicalType, metadata, producedType, false);
    }

    /** @param upsert an upsert changelog: {@code -U} records are left out */
    public RowDataVitessDeserializationSchema(
            RowType physicalType,
            List<VitessReadableMetadata> metadata,
            TypeInformation<RowData> producedType,
            boolean upsert) {
        this.upsert = upsert;
        this.physicalType = physicalType;
        this.metadata = new ArrayList<>(metadata);
        this.producedType = producedType;
        this.converters = new FieldConverters.FieldConverter[physicalType.getFieldCount()];
        for (int i = 0; i < converters.length; i++) {
            LogicalType type = physicalType.getTypeAt(i);
            converters[i] = FieldConverters.create(type);
            if (converters[i] == null) {
                throw new IllegalArgumentException("column '"
                        + physicalType.getFieldNames().get(i) + "' is declared as "
                        + type.asSummaryString() + ", which the vitess-cdc connector cannot produce; see the type "
                        + "mapping in docs/sql-connector.md");
            }
        }
    }

    @Override
    public void deserialize(VitessRecord record, RecordContext context, Collector<RowData> out) {
        if (upsert && record.kind() == ChangeKind.UPDATE_BEFORE) {
            return;
        }
        if (writers == null) {
            writers = new RowWriters();
        }
        out.collect(record.hasFlinkRow() ? writers.point(record, context) : writers.write(record, context));
    }

    /** The core writes this table's rows itself where it converts them exactly as this class would. */
    @Override
    public String nativeOptionsJson() {
        String layout = FlinkRowLayout.json(physicalType, metadata, upsert);
        return layout == null ? null : "{\"flink_rows\":" + layout + "}";
    }

    /**
     * The writers of one reader's rows: one per reader, in its thread (they are not
     * serializable, and the field writers keep a view of the batch buffer between calls).
     */
    private final class RowWriters {
        private final Map<TableDescriptor, int[]> mappings = new IdentityHashMap<>();
        // The last table's mapping: rows come in runs of one table, and the map lookup was the
        // fetcher's hottest frame in a JFR profile (docs/benchmarks.md, "Profiling a run").
        private TableDescriptor lastTable;
        private int[] lastMapping;
        private final BinaryRowFields fields;
        private final LogicalType[] metadataTypes;
        private final BinaryRowFields.NullWriter[] metadataNulls;
        /**
         * The batch copy the last core-written row lay in, and a segment over it, as the array
         * rows point at: {@code pointTo(MemorySegment, …)} would make a new one-element array for
         * every row, and the rows of one copy can share one (nothing writes to the array).
         */
        private byte[] pointedBatch;

        private MemorySegment[] pointedSegments;

        RowWriters() {
            fields = new BinaryRowFields(physicalType.getChildren().toArray(new LogicalType[0]), converters);
            metadataTypes = new LogicalType[metadata.size()];
            metadataNulls = new BinaryRowFields.NullWriter[metadata.size()];
            for (int m = 0; m < metadata.size(); m++) {
                metadataTypes[m] = metadata.get(m).dataType().getLogicalType();
                metadataNulls[m] = BinaryRowFields.nullWriter(metadataTypes[m]);
            }
        }

        /**
         * A row the core wrote: a row over its bytes in the batch's heap copy (no copy, no field
         * work), with the metadata only the reader knows (epoch, rank) set in their slots.
         */
        BinaryRowData point(VitessRecord record, RecordContext context) {
            byte[] batch = record.rowBatch();
            if (batch != pointedBatch) {
                pointedSegments = new MemorySegment[] {MemorySegmentFactory.wrap(batch)};
                pointedBatch = batch;
            }
            int physical = physicalType.getFieldCount();
            BinaryRowData row = new BinaryRowData(physical + metadata.size());
            row.pointTo(pointedSegments, record.rowOffset(), record.rowLength());
            for (int m = 0; m < metadata.size(); m++) {
                VitessReadableMetadata key = metadata.get(m);
                if (key == VitessReadableMetadata.EPOCH) {
                    row.setLong(physical + m, context.epoch());
                } else if (key == VitessReadableMetadata.RANK) {
                    row.setLong(physical + m, context.rank());
                }
            }
            return row;
        }

        BinaryRowData write(VitessRecord record, RecordContext context) {
            int[] mapping = mapping(record.table());
            int physical = mapping.length;
            BinaryRowData row = new BinaryRowData(physical + metadata.size());
            BinaryRowWriter writer = new BinaryRowWriter(row, fields.variablePartEstimate(record));
            writer.writeRowKind(rowKind(record.kind()));
            for (int f = 0; f < physical; f++) {
                try {
                    fields.write(record, mapping[f], writer, f);
                } catch (IllegalArgumentException | ClassCastException e) {
                    String fix = e instanceof FieldConverters.ValueMismatchException
                            ? ""
                            : "; declare it as "
                                    + FlinkTypes.suggest(
                                            record.table().columns().get(mapping[f]));
                    throw UnreadableColumnException.badValue(
                            "cannot read column '"
                                    + physicalType.getFieldNames().get(f) + "' declared as "
                                    + FlinkTypes.declared(physicalType.getTypeAt(f)) + ": " + e.getMessage() + fix,
                            e);
                }
            }
            for (int m = 0; m < metadata.size(); m++) {
                BinaryRowFields.writeValue(
                        metadataTypes[m],
                        metadataNulls[m],
                        metadata.get(m).read(record, context),
                        writer,
                        physical + m);
            }
            writer.complete();
            return row;
        }

        private int[] mapping(TableDescriptor table) {
            if (table == lastTable) {
                return lastMapping;
            }
            int[] mapping = mappings.get(table);
            if (mapping == null) {
                mapping = computeMapping(table);
                if (mappings.size() > 1024) {
                    mappings.clear();
                }
                mappings.put(table, mapping);
            }
            lastTable = table;
            lastMapping = mapping;
            return mapping;
        }
    }

    /**
     * Flink's kind of a record: the same byte for the four change kinds; a chunked snapshot's read
     * is an upsert ({@code +U}: its key may exist downstream already, e.g. a re-snapshot), which
     * only an upsert changelog can carry: as a {@code +I} a retract changelog would get a second
     * live row for a key it has, and the snapshot could not retract the row it replaces.
     */
    private RowKind rowKind(ChangeKind kind) {
        if (kind != ChangeKind.SNAPSHOT_READ) {
            return RowKind.fromByteValue(kind.toByteValue());
        }
        if (!upsert) {
            throw new IllegalStateException("a chunked snapshot's row (a snapshot read) reached a retract "
                    + "changelog; a table that reads chunked snapshots declares an upsert changelog "
                    + "(docs/snapshots.md, Flink)");
        }
        return RowKind.UPDATE_AFTER;
    }

    private int[] computeMapping(TableDescriptor table) {
        List<String> names = physicalType.getFieldNames();
        int[] mapping = new int[names.size()];
        for (int f = 0; f < names.size(); f++) {
            int column = table.indexOf(names.get(f));
            if (column < 0) {
                for (int c = 0; c < table.columnCount(); c++) {
                    if (table.columns().get(c).name().equalsIgnoreCase(names.get(f))) {
                        column = c;
                        break;
                    }
                }
            }
            if (column < 0) {
                throw new UnreadableColumnException("column '" + names.get(f) + "' is declared in the Flink table but "
                        + "Vitess table " + table.keyspace() + "." + table.table() + " (shard " + table.shard()
                        + ") has no such column; its columns are " + table.columns()
                        + ". Remove the column from the DDL or fix its name.");
            }
            ColumnDescriptor described = table.columns().get(column);
            if (!compatible(physicalType.getTypeAt(f), described.type())) {
                throw new UnreadableColumnException("column '" + names.get(f) + "' is declared as "
                        + FlinkTypes.declared(physicalType.getTypeAt(f)) + " but Vitess column " + table.keyspace()
                        + "."
                        + table.table() + "." + described.name() + " is " + described.mysqlType() + " ("
                        + described.type() + "); declare it as " + FlinkTypes.suggest(described));
            }
            mapping[f] = column;
        }
        return mapping;
    }

    /**
     * Declared types that can never read a column of this kind, checked once per table shape so a
     * mismatch fails at the first record whatever its values (NULLs included). Conservative:
     * STRING and BYTES read every kind; numbers read numeric, BIT and YEAR columns.
     */
    static boolean compatible(LogicalType declared, ColumnType column) {
        if (column == ColumnType.UNKNOWN) {
            return true;
        }
        switch (declared.getTypeRoot()) {
            case BOOLEAN:
            case TINYINT:
            case SMALLINT:
            case INTEGER:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
            case DECIMAL:
                return column == ColumnType.INT
                        || column == ColumnType.UINT
                        || column == ColumnType.FLOAT
                        || column == ColumnType.DOUBLE
                        || column == ColumnType.DECIMAL
                        || column == ColumnType.BIT
                        || column == ColumnType.YEAR;
            case DATE:
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return column == ColumnType.DATE || column == ColumnType.DATETIME || column == ColumnType.TIMESTAMP;
            case TIME_WITHOUT_TIME_ZONE:
                return column == ColumnType.TIME;
            default:
                return true;
        }
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
