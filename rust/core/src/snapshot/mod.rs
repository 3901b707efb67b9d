// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Chunked snapshots beside the log (docs/snapshots.md).
//!
//! The full state of a table (or a key range of it) is read in chunks by short side VStreams,
//! each at its own snapshot GTID set, while the shard's main log stream keeps flowing; the
//! chunks are merged into the log by GTID membership so that no key goes back in time and no
//! delete is lost.
//! - [`key`]: primary keys in MySQL's order, chunk ranges and their filter predicates.
//! - [`merge`]: the per-shard merge of log changes and chunk rows (pure logic).
//! - [`chunk`]: one chunk's side stream.
//! - [`signal`]: requests read from a signal table in the log.
//! - [`capture`]: the log stream with the chunks beside it, per shard merged, resumable.
//! - [`carry`]: what a new shard still has to capture after a reshard (pure logic).

pub mod capture;
pub mod carry;
pub mod chunk;
pub mod key;
pub mod merge;
pub mod signal;
pub mod tablets;

pub use capture::{Capture, CaptureProgress, CaptureStream, ShardProgress, SignalElsewhere};
