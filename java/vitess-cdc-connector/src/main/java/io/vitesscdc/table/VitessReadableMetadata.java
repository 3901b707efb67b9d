/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import io.vitesscdc.nativeio.VitessRecord;
import io.vitesscdc.source.deserializer.VitessDeserializationSchema;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;

import java.io.Serializable;

/**
 * Metadata columns ({@code col TYPE METADATA [FROM 'key'] VIRTUAL}) of the SQL connector, in the
 * order {@code listReadableMetadata} reports them.
 */
@Internal
public enum VitessReadableMetadata {
    KEYSPACE(
            "keyspace",
            DataTypes.STRING().notNull(),
            (r, c) -> StringData.fromString(r.table().keyspace())),
    SHARD(
            "shard",
            DataTypes.STRING().notNull(),
            (r, c) -> StringData.fromString(r.table().shard())),
    TABLE_NAME(
            "table_name",
            DataTypes.STRING().notNull(),
            (r, c) -> StringData.fromString(r.table().table())),
    /** Binlog commit time; epoch 0 for rows read by the snapshot (copy) phase. */
    OP_TS(
            "op_ts",
            DataTypes.TIMESTAMP_LTZ(3).notNull(),
            (r, c) -> TimestampData.fromEpochMillis(r.commitTimestampMillis())),
    ROW_KIND(
            "row_kind",
            DataTypes.STRING().notNull(),
            (r, c) -> StringData.fromString(r.kind().shortString())),
    /** The shard position before the record's transaction, as JSON (resuming from it replays it). */
    POSITION("position", DataTypes.STRING().nullable(), (r, c) -> StringData.fromString(c.position())),
    IS_SNAPSHOT("is_snapshot", DataTypes.BOOLEAN().notNull(), (r, c) -> r.isSnapshot()),
    /** The order epoch of the record's shard (raised at each reshard; see ChangeOrder). */
    EPOCH("epoch", DataTypes.BIGINT().notNull(), (r, c) -> c.epoch()),
    /** The record's order rank within its shard and epoch (see ChangeOrder). */
    RANK("rank", DataTypes.BIGINT().notNull(), (r, c) -> c.rank());

    private final String key;
    private final DataType dataType;
    private final Converter converter;

    VitessReadableMetadata(String key, DataType dataType, Converter converter) {
        this.key = key;
        this.dataType = dataType;
        this.converter = converter;
    }

    public String key() {
        return key;
    }

    public DataType dataType() {
        return dataType;
    }

    public Object read(VitessRecord record, VitessDeserializationSchema.RecordContext context) {
        return converter.read(record, context);
    }

    public static VitessReadableMetadata ofKey(String key) {
        for (VitessReadableMetadata m : values()) {
            if (m.key.equals(key)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown metadata key '" + key + "'");
    }

    /** Reads one metadata value in Flink's internal representation. */
    @FunctionalInterface
    interface Converter extends Serializable {
        Object read(VitessRecord record, VitessDeserializationSchema.RecordContext context);
    }
}
