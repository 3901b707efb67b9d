/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * The declared row a SQL table asks the native core to write its records as (the stream option
 * {@code flink_rows}, docs/batch-format.md "Flink rows"): each physical field's name and type
 * root (with the precision its layout depends on), the metadata keys after them, and whether the
 * changelog is an upsert one. The core matches names and checks types per table shape as the
 * Java reader does, and leaves to Java every record it does not convert exactly as Java would.
 */
@Internal
final class FlinkRowLayout {

    private static final ObjectMapper JSON = new ObjectMapper();

    private FlinkRowLayout() {}

    /**
     * The option's JSON, or {@code null} when the core cannot write this row: a metadata column
     * it does not know (the position's JSON is the reader's), so every record keeps its values.
     */
    static String json(RowType physical, List<VitessReadableMetadata> metadata, boolean upsert) {
        ObjectNode o = JSON.createObjectNode();
        ArrayNode fields = o.putArray("fields");
        for (RowType.RowField f : physical.getFields()) {
            ObjectNode field = fields.addObject();
            field.put("name", f.getName());
            type(field.putObject("type"), f.getType());
        }
        ArrayNode keys = o.putArray("metadata");
        for (VitessReadableMetadata m : metadata) {
            if (m == VitessReadableMetadata.POSITION) {
                return null;
            }
            keys.add(m.key());
        }
        o.put("upsert", upsert);
        return o.toString();
    }

    private static void type(ObjectNode node, LogicalType type) {
        node.put("root", type.getTypeRoot().name());
        switch (type.getTypeRoot()) {
            case DECIMAL:
                node.put("precision", ((DecimalType) type).getPrecision());
                node.put("scale", ((DecimalType) type).getScale());
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                node.put("precision", LogicalTypeChecks.getPrecision(type));
                break;
            default:
                break;
        }
    }
}
