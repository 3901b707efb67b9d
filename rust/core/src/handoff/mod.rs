// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! What leaves the core: the bounded, byte-budgeted hand-off of events to a synchronous consumer
//! (JNI, CLI), and the binary batch format that crosses JNI.
//! - [`blocking`]: the hand-off (a background runtime, a queue bounded in bytes, a watched task).
//! - [`batch`]: events encoded into reusable batches with position marks between records.
//! - [`flink_row`]: records as rows in Flink's binary layout, for a consumer that declared one.

pub mod batch;
pub mod blocking;
pub mod flink_row;
pub mod log_label;
pub mod supervise;
