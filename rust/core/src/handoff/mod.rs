// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! What leaves the core: the bounded, byte-budgeted hand-off of events to a synchronous consumer
//! (JNI, CLI), and the binary batch format that crosses JNI.
//! - [`blocking`]: the hand-off (a background runtime, a queue bounded in bytes, a watched task).
//! - [`budget`]: the bytes readers may read ahead of the consumer, given back as it is done.
//! - [`copy`]: the batch copied into the consumer's buffer at a speed that does not depend on its
//!   address.
//! - [`batch`]: events encoded into reusable batches with position marks between records.
//! - [`debezium_json`]: records' rows as the DataStream's Debezium JSON objects.
//! - [`flink_row`]: records as rows in Flink's binary layout, for a consumer that declared one.
//! - [`java_text`]: values as the Java reader prints them, for the rows the core writes for it.

pub mod batch;
pub mod blocking;
pub mod budget;
pub mod copy;
pub mod debezium_json;
pub mod flink_row;
pub mod java_text;
pub mod log_label;
pub mod supervise;
