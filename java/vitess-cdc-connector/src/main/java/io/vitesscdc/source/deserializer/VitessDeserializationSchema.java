/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.deserializer;

import io.vitesscdc.nativeio.VitessRecord;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.util.Collector;

import java.io.Serializable;

/**
 * Turns Vitess change records into the source's output type.
 *
 * <p>{@link #deserialize} runs on the source's fetcher thread, right after the batch was read
 * from the native core: the {@link VitessRecord} is a view over the batch buffer and is valid
 * only during the call, so implementations must copy what they keep. Any number of values may be
 * collected per record (none filters the record out); the source's position bookkeeping counts
 * records, not values.
 *
 * @param <T> the output type
 */
@PublicEvolving
public interface VitessDeserializationSchema<T> extends Serializable, ResultTypeQueryable<T> {

    /** Called once per reader before the first record, on the fetcher thread. */
    default void open(DeserializationSchema.InitializationContext context) throws Exception {}

    /**
     * @param record the change (table, kind, commit time, values), valid during this call only
     * @param context facts about the record that are not part of the row (its shard position)
     * @param out where to put the converted values
     */
    void deserialize(VitessRecord record, RecordContext context, Collector<T> out) throws Exception;

    /**
     * Stream options, as a JSON object, that ask the native core to write the records' rows in
     * this deserializer's own form instead of values: {@code flink_rows} (Flink's binary row
     * layout) or {@code json_rows} (Debezium JSON objects), docs/batch-format.md. A record so
     * written has a row ({@link VitessRecord#hasFlinkRow}, {@link VitessRecord#hasJsonRow}) and
     * no values; records the core leaves to Java come with values as before. {@code null} (the
     * default): values only. Internal to the connector's own deserializers: the forms are the
     * core's and may change.
     */
    default String nativeOptionsJson() {
        return null;
    }

    /** Facts about a record the source knows besides the row itself. */
    @PublicEvolving
    interface RecordContext {

        /**
         * The position of the record's shard before the record's transaction (the last mark
         * before the record, in the core's JSON form): resuming from it replays the transaction.
         */
        String position();

        /**
         * The order epoch of the record's shard: 0 for the shards the job started with, one more
         * than the ended shards' highest for the new shards of each reshard (see {@link
         * io.vitesscdc.source.ChangeOrder}).
         */
        long epoch();

        /**
         * The record's order rank within its shard and epoch, increasing in binlog order: a key's
         * changes sorted by {@code (epoch(), rank())} are in their true order (see {@link
         * io.vitesscdc.source.ChangeOrder}).
         */
        long rank();
    }
}
