// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! How far a capture is: chunks, rows, tables and signals per shard, and the estimate of what
//! remains (from the table statistics).

use super::CaptureStream;
use std::collections::BTreeMap;

/// Progress of a capture, per shard and in total.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CaptureProgress {
    pub shards: BTreeMap<String, ShardProgress>,
    /// The last signals read where they were written (not a shard's copy) that name tables this
    /// stream does not read, oldest first: a caller with several streams tells which tables none
    /// of them reads ([`crate::options::SnapshotOptions::signal_tables_checked_by_caller`]).
    pub signals_elsewhere: Vec<SignalElsewhere>,
}

/// A signal naming tables a stream does not read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SignalElsewhere {
    /// The signal's id.
    pub id: String,
    pub tables: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ShardProgress {
    /// Chunk side streams opened (read again after a failure: counted again). Never goes down, so
    /// a reading of 0 proves no chunk started before it (a paused capture).
    pub chunks_started: u64,
    /// Chunks merged and emitted.
    pub chunks_done: u64,
    /// Estimated chunks in all (done plus what the table statistics say remains; at least
    /// `chunks_done` plus the chunks still to read).
    pub chunks_planned: u64,
    /// Rows emitted as snapshot reads.
    pub rows: u64,
    /// Tables whose capture has not finished on this shard.
    pub tables_remaining: u64,
    /// Chunks read but dropped because their tablet was behind the log.
    pub chunks_discarded: u64,
    /// Chunk side streams that failed and were read again.
    pub chunks_failed: u64,
    /// Signals of the signal table acted on, and signals skipped as invalid (each logged with
    /// its reason).
    pub signals: u64,
    pub signals_rejected: u64,
    /// Milliseconds the tablet throttler held this shard's next chunks back (with a throttler
    /// check configured; the current hold included).
    pub throttled_ms: u64,
    /// The throttler holds this shard's next chunks back now.
    pub throttled: bool,
    /// Lanes the tables' ranges on this shard were split into (lanes.rs; a table read in one
    /// lane counts one). Never goes down.
    pub lanes: u64,
    /// The most chunks of one table read at once on this shard so far.
    pub peak_table_chunks: u64,
    /// Chunks started on a tablet directly (`SnapshotOptions::tablets_vtctld`), not through
    /// VTGate.
    pub chunks_from_tablets: u64,
}

impl CaptureProgress {
    pub fn total(&self) -> ShardProgress {
        let mut t = ShardProgress::default();
        for s in self.shards.values() {
            t.chunks_started += s.chunks_started;
            t.chunks_done += s.chunks_done;
            t.chunks_planned += s.chunks_planned;
            t.rows += s.rows;
            t.tables_remaining += s.tables_remaining;
            t.chunks_discarded += s.chunks_discarded;
            t.chunks_failed += s.chunks_failed;
            t.signals += s.signals;
            t.signals_rejected += s.signals_rejected;
            t.throttled_ms += s.throttled_ms;
            t.throttled |= s.throttled;
            t.lanes += s.lanes;
            t.chunks_from_tablets += s.chunks_from_tablets;
            t.peak_table_chunks = t.peak_table_chunks.max(s.peak_table_chunks);
        }
        t
    }
}

impl CaptureStream {
    pub fn progress(&self) -> CaptureProgress {
        CaptureProgress {
            shards: self
                .shards
                .iter()
                .map(|(k, s)| {
                    let mut p = s.progress.clone();
                    if let Some(since) = s.throttled_since {
                        p.throttled = true;
                        p.throttled_ms += since.elapsed().as_millis() as u64;
                    }
                    (k.clone(), p)
                })
                .collect(),
            signals_elsewhere: self.signals_elsewhere.iter().cloned().collect(),
        }
    }

    /// Recomputes what remains on `shard` (chunks and rows done are counted as they are emitted).
    pub(super) fn update_progress(&mut self, shard: &str) {
        let rows_per_chunk = self.snap.chunk_rows.max(1) as u64;
        let Some(s) = self.shards.get_mut(shard) else {
            return;
        };
        // Per remaining table at least one more chunk; more as its statistics suggest.
        let left: u64 = s
            .tables
            .values()
            .map(|t| {
                t.estimated_rows
                    .unwrap_or(0)
                    .saturating_sub(t.rows)
                    .div_ceil(rows_per_chunk)
                    .max(1)
            })
            .sum::<u64>()
            + s.queued.len() as u64;
        s.progress.tables_remaining = (s.tables.len() + s.queued.len()) as u64;
        s.progress.chunks_planned = s.progress.chunks_done + left;
    }
}
