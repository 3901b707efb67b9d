/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.ValueType;
import io.vitesscdc.nativeio.VitessRecord;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.data.binary.BinaryStringData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.data.writer.BinaryWriter;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;

import java.nio.ByteBuffer;

/**
 * Writes a record's declared columns into Flink's binary row layout ({@code BinaryRowData}): the
 * layout Flink copies between chained operators with one {@code memcpy} (object reuse is off by
 * default, so every record is copied once per chained operator), where a {@code GenericRowData}
 * is copied field by field, each string re-allocated. Text and binary columns read as STRING are
 * copied from the native batch straight into the row, without a {@code byte[]} per value.
 *
 * <p>Every value is what {@link FieldConverters} reads for its declared type (the same checks,
 * the same errors); only where it is put differs. One instance per reader (it keeps a view of the
 * batch buffer between calls), never shared between threads.
 */
@Internal
final class BinaryRowFields {

    /** Writes value {@code column} of a record (present, not NULL) at field {@code pos}. */
    @FunctionalInterface
    private interface FieldWriter {
        void write(VitessRecord record, int column, BinaryRowWriter writer, int pos);
    }

    private final FieldWriter[] writers;
    private final NullWriter[] nulls;
    /** Bytes a row needs in its variable part beyond its text: DECIMAL(>18) and TIMESTAMP(>3). */
    private final int fixedVarBytes;

    /** The batch buffer the last record read, and a Flink view of it (rebuilt when it changes). */
    private ByteBuffer viewedBuffer;

    private MemorySegment[] viewedSegment;

    BinaryRowFields(LogicalType[] types, FieldConverters.FieldConverter[] converters) {
        writers = new FieldWriter[types.length];
        nulls = new NullWriter[types.length];
        int varBytes = 0;
        for (int f = 0; f < types.length; f++) {
            nulls[f] = nullWriter(types[f]);
            writers[f] = create(types[f], converters[f], nulls[f]);
            varBytes += variablePart(types[f]);
        }
        fixedVarBytes = varBytes;
    }

    /** Bytes to reserve beyond the fixed part for a row of {@code record}: enough for most rows. */
    int variablePartEstimate(VitessRecord record) {
        return ((record.valuesSize() + 7) & ~7) + fixedVarBytes;
    }

    /** Writes field {@code pos} from value {@code column} of {@code record}, NULL when it is NULL or absent. */
    void write(VitessRecord record, int column, BinaryRowWriter writer, int pos) {
        if (record.isNull(column) || record.isAbsent(column)) {
            nulls[pos].write(writer, pos);
        } else {
            writers[pos].write(record, column, writer, pos);
        }
    }

    /**
     * Writes field {@code pos} of {@code type} from an internal value ({@code null} = NULL), e.g. a
     * metadata column, with Flink's own writer for the type (no serializer: only RAW and nested
     * types need one, and no column reads as those).
     */
    static void writeValue(LogicalType type, NullWriter nullWriter, Object value, BinaryRowWriter writer, int pos) {
        if (value == null) {
            nullWriter.write(writer, pos);
        } else {
            BinaryWriter.write(writer, pos, value, type, null);
        }
    }

    private FieldWriter create(LogicalType type, FieldConverters.FieldConverter converter, NullWriter nullWriter) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return (r, c, w, pos) -> {
                    ValueType t = r.valueType(c);
                    if (t == ValueType.STRING || t == ValueType.BYTES) {
                        w.writeString(pos, textOf(r, c));
                    } else {
                        writeValue(type, BinaryRowWriter::setNullAt, converter.convert(r, c), w, pos);
                    }
                };
            case BIGINT:
                return (r, c, w, pos) -> w.writeLong(pos, FieldConverters.bigint(r, c));
            default: {
                // A converter answers null for values the type has no form of (a zero date).
                return (r, c, w, pos) -> writeValue(type, nullWriter, converter.convert(r, c), w, pos);
            }
        }
    }

    /** The text or binary value {@code column} as a string over the batch buffer (the writer copies it). */
    private BinaryStringData textOf(VitessRecord record, int column) {
        ByteBuffer buffer = record.buffer();
        if (buffer != viewedBuffer) {
            viewedSegment = new MemorySegment[] {
                buffer.isDirect()
                        ? MemorySegmentFactory.wrapOffHeapMemory(buffer)
                        : MemorySegmentFactory.wrap(buffer.array())
            };
            viewedBuffer = buffer;
        }
        int offset = record.bytesOffset(column) + (buffer.isDirect() ? 0 : buffer.arrayOffset());
        return BinaryStringData.fromAddress(viewedSegment, offset, record.bytesLength(column));
    }

    /** Sets a field NULL the way Flink's own writers do. */
    @FunctionalInterface
    interface NullWriter {
        void write(BinaryRowWriter writer, int pos);
    }

    /**
     * DECIMAL above precision 18 and TIMESTAMP above precision 3 keep their slot in the variable
     * part even when NULL (Flink writes them so, to allow updates in place); the rest is a bit.
     */
    static NullWriter nullWriter(LogicalType type) {
        switch (type.getTypeRoot()) {
            case DECIMAL: {
                int precision = ((DecimalType) type).getPrecision();
                if (!DecimalData.isCompact(precision)) {
                    return (w, pos) -> w.writeDecimal(pos, null, precision);
                }
                return BinaryRowWriter::setNullAt;
            }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                int precision = timestampPrecision(type);
                if (!TimestampData.isCompact(precision)) {
                    return (w, pos) -> w.writeTimestamp(pos, null, precision);
                }
                return BinaryRowWriter::setNullAt;
            }
            default:
                return BinaryRowWriter::setNullAt;
        }
    }

    /** Bytes a field of {@code type} always takes in the variable part (its text aside). */
    static int variablePart(LogicalType type) {
        switch (type.getTypeRoot()) {
            case DECIMAL:
                return DecimalData.isCompact(((DecimalType) type).getPrecision()) ? 0 : 16;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return TimestampData.isCompact(timestampPrecision(type)) ? 0 : 8;
            default:
                return 0;
        }
    }

    private static int timestampPrecision(LogicalType type) {
        return type instanceof TimestampType t ? t.getPrecision() : ((LocalZonedTimestampType) type).getPrecision();
    }
}
