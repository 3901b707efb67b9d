/*
 * Copyright 2026 The vitess-cdc Authors
 * SPDX-License-Identifier: Apache-2.0
 */

package io.vitesscdc.source.deserializer;

import org.apache.flink.annotation.PublicEvolving;

/**
 * An exception of a {@link VitessDeserializationSchema} that may fail every record of a table
 * shape rather than one record (a declared column the table lacks): such a failure always stops
 * the job, whatever 'scan.bad-record.handling' says, or a job that skips every record would look
 * healthy while reading nothing.
 */
@PublicEvolving
public interface ShapeFailure {

    /** Whether every record of the table's current shape fails this way, not this record alone. */
    boolean failsEveryRecord();
}
