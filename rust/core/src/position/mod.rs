// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Exact, resumable positions.
//!
//! A [`ShardPosition`] is everything needed to restart one shard's stream right after the last
//! committed transaction or copy batch: the GTID set, copy progress (`table_p_ks`), the tables
//! still to copy (so a resume never degrades to "stream only" in the table-switch window, see
//! docs/positions.md), and whether the shard's copy is done.
//!
//! Forms: JSON (readable, the VGTID shape users know: `{keyspace, shard, gtid, table_p_ks}` plus
//! our fields) and a versioned compact binary form. Both round-trip.
//!
//! - this file: the model (what a position holds) and its copy facts;
//! - `json`: the JSON form (our own, VGTID shapes, older saved text);
//! - `offsets`: the start positions a user gives (`specific-offset`);
//! - [`binary`]: the compact versioned binary form a checkpoint stores;
//! - `transactions`: a position's transaction count (the base of order ranks).

mod json;
mod offsets;
mod transactions;

pub mod binary;
pub mod gtid;
pub(crate) use json::base64_bytes;
pub use offsets::parse_specific_offsets;

use serde::{Deserialize, Serialize};

/// Copy progress of one table: the last primary key copied, as a serialized
/// `query.QueryResult` (fields + one row), exactly as VTGate sent it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLastPk {
    pub table_name: String,
    /// Serialized `query.QueryResult` protobuf; empty = copy this table from its start.
    #[serde(with = "crate::position::base64_bytes", default)]
    pub lastpk: Vec<u8>,
}

/// One shard's resumable position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardPosition {
    pub keyspace: String,
    pub shard: String,
    /// Flavor-prefixed GTID set (`MySQL56/uuid:1-123`), `""` = copy from scratch, `current` = now.
    pub gtid: String,
    /// Tables whose copy is in progress, with their last copied primary key. While the shard's
    /// copy is unfinished, tables already copied stay listed with their final primary key, so a
    /// resume re-reads only rows added since instead of copying them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub table_p_ks: Vec<TableLastPk>,
    /// Tables not yet started by the copy phase (not including those in `table_p_ks`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables_to_copy: Vec<String>,
    /// True once this shard sent its COPY_COMPLETED (or never needed a copy).
    #[serde(default)]
    pub copy_completed: bool,
    /// Chunked snapshots in progress on this shard ([`crate::snapshot`]): what each capture has
    /// emitted so far. Empty for plain streams (whose binary form then stays version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<TableSnapshot>,
}

/// The cursor of one table's chunked snapshot on one shard: every key up to `after` (in the
/// range of `level`, see [`crate::snapshot::key::ChunkRange`]) has been emitted; the rest is
/// read again on resume. Chunks read but not emitted are not stored: they are read again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSnapshot {
    pub table: String,
    /// The capture's own row condition (an AND of `column <op> literal` terms), `None` = the
    /// whole table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// The last key emitted ([`crate::snapshot::key::encode_key`]); empty = nothing emitted yet.
    #[serde(with = "crate::position::base64_bytes", default)]
    pub after: Vec<u8>,
    /// How many leading key columns the remaining range fixes to `after`'s values.
    #[serde(default)]
    pub level: u32,
    /// Progress so far: chunks emitted and rows emitted.
    #[serde(default)]
    pub chunks: u64,
    #[serde(default)]
    pub rows: u64,
    /// Paused by a `pause-snapshot` signal: no chunk starts until `resume-snapshot`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
}

impl TableSnapshot {
    /// A capture of all of `table` that has not emitted anything yet.
    pub fn whole(table: &str) -> TableSnapshot {
        TableSnapshot {
            table: table.to_string(),
            filter: None,
            after: Vec::new(),
            level: 0,
            chunks: 0,
            rows: 0,
            paused: false,
        }
    }
}

/// Positions of every shard of a stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StreamPosition {
    pub shards: Vec<ShardPosition>,
}

impl ShardPosition {
    /// Whether resuming from this position still has to copy tables (a mid-copy position).
    pub fn needs_copy(&self) -> bool {
        !self.copy_completed
            && (self.gtid.is_empty()
                || !self.table_p_ks.is_empty()
                || !self.tables_to_copy.is_empty())
    }
}

impl ShardPosition {
    /// Copy progress for metrics: `(started, not_started)`, the tables the copy has started
    /// (`table_p_ks`: in progress or already copied, while the shard's copy is unfinished) and
    /// those it has not (`tables_to_copy`). Both empty once the copy is done; both empty with an
    /// empty GTID set means "copy every selected table" (none started).
    pub fn copy_tables(&self) -> (Vec<&str>, Vec<&str>) {
        if self.copy_completed {
            return (Vec::new(), Vec::new());
        }
        (
            self.table_p_ks
                .iter()
                .map(|t| t.table_name.as_str())
                .collect(),
            self.tables_to_copy.iter().map(String::as_str).collect(),
        )
    }
}

impl StreamPosition {
    pub fn get(&self, keyspace: &str, shard: &str) -> Option<&ShardPosition> {
        self.shards
            .iter()
            .find(|p| p.keyspace == keyspace && p.shard == shard)
    }
}

/// Facts about a position that a consumer acts on without reading the position itself: written
/// next to the position bytes in every batch mark (docs/batch-format.md) and answered for any
/// position by `facts` (the JNI bridge), so Java never parses a position.
pub mod facts {
    use super::ShardPosition;

    /// The shard's copy phase finished (or it never needed one).
    pub const COPY_COMPLETED: u8 = 1;

    /// The fact bits of `p`.
    pub fn of(p: &ShardPosition) -> u8 {
        if p.copy_completed {
            COPY_COMPLETED
        } else {
            0
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(crate) fn pos(gtid: &str) -> ShardPosition {
        ShardPosition {
            keyspace: "ks".into(),
            shard: "-80".into(),
            gtid: gtid.into(),
            table_p_ks: vec![],
            tables_to_copy: vec![],
            copy_completed: false,
            snapshots: Vec::new(),
        }
    }

    #[test]
    fn copy_need() {
        assert!(pos("").needs_copy());
        assert!(!pos("MySQL56/u:1").needs_copy());
        let mut p = pos("MySQL56/u:1");
        p.tables_to_copy.push("t".into());
        assert!(p.needs_copy());
        p.copy_completed = true;
        assert!(!p.needs_copy());
    }
}
