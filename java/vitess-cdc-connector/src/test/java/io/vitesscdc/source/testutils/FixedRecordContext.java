/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.testutils;

import io.vitesscdc.source.deserializer.VitessDeserializationSchema;

/** A record context with fixed answers, for deserializers tested without a source. */
public record FixedRecordContext(String position, long epoch, long rank)
        implements VitessDeserializationSchema.RecordContext {}
