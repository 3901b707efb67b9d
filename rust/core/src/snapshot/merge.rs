// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The merge of one shard's log stream with its snapshot chunks, as pure logic (no I/O).
//!
//! The log stream L delivers every change, each with its transaction's GTID `g`, and a position
//! P_L (a GTID set) after each transaction. A chunk c is read by a side stream at its own
//! snapshot G_c (the GTID set of the tablet when it took the snapshot). The rule (DBLog's
//! "remove the keys the log changed", decided by GTID membership instead of watermarks):
//!
//! 1. When c is requested, remember P_req = P_L, and from then on record the keys of c's range
//!    that the log changes, with their GTIDs.
//! 2. When G_c is known: if G_c ⊉ P_req the chunk's tablet was behind the log (some change the
//!    log already delivered is not in the chunk, and its key was not recorded), so c is
//!    discarded and requested again. Otherwise every recorded or later log change of a key with
//!    `g ∉ G_c` is newer than the chunk: the key is dropped from c (evicted).
//! 3. Once c is complete (its level is exhausted, or it was cut at its last key) and P_L ⊇ G_c,
//!    every transaction the chunk reflects has been delivered by the log, so the chunk's rows
//!    that were not evicted are emitted; they are exactly the state at G_c of keys the log did
//!    not change after G_c.
//!
//! Per key, nothing goes back in time: a chunk row is the state after every transaction of
//! G_c, all of which the log delivered before it; any later change evicted it. Deletes are the
//! log's and are never dropped. The log is never held back: a change passes through at once,
//! the merge only takes note. A change without GTID (`None`) counts as newer than every chunk:
//! eviction is always safe, because the log then carries the key's newer full row.
//!
//! Memory: a chunk's rows plus the keys recorded for it, counted in bytes
//! ([`ShardMerge::chunk_bytes`]); the side stream cuts a chunk that reaches its budget.

use super::key::{ChunkRange, TableKey};
use crate::error::{Error, Result};
use crate::event::{ChangeEvent, TableSchema};
use crate::gtid::{Gtid, GtidSet};
use crate::value::Value;
use std::cmp::Ordering;
use std::sync::Arc;

pub type ChunkId = u64;

/// A chunk the merge emits: the rows to hand out as snapshot reads, in key order.
#[derive(Debug, Clone)]
pub struct ReadyChunk {
    pub id: ChunkId,
    pub table: String,
    /// The table's lane the chunk read.
    pub lane: usize,
    /// What the chunk covered (with `through` set when it was cut).
    pub range: ChunkRange,
    /// Its snapshot position.
    pub snapshot: GtidSet,
    pub rows: Vec<ChangeEvent>,
    /// Rows the log overtook (changed after the snapshot), not emitted.
    pub evicted: usize,
}

/// Why a chunk was dropped instead of merged.
#[derive(Debug, Clone, PartialEq)]
pub struct Discarded {
    pub id: ChunkId,
    pub requested_at: GtidSet,
    pub snapshot: GtidSet,
}

struct Buffered {
    key: Vec<Value>,
    row: ChangeEvent,
    live: bool,
}

struct InFlight {
    id: ChunkId,
    table: String,
    /// The table's lane (key-range slice) the chunk reads; lanes are in key order.
    lane: usize,
    key: Arc<TableKey>,
    range: ChunkRange,
    requested_at: GtidSet,
    snapshot: Option<GtidSet>,
    /// Received rows, in key order.
    rows: Vec<Buffered>,
    /// Log changes of the range (key, GTID) seen before the snapshot position was known.
    recorded: Vec<(Vec<Value>, Option<Gtid>)>,
    /// Keys the log overtook that the chunk has not sent yet, sorted.
    evicted: Vec<Vec<Value>>,
    bytes: usize,
    complete: bool,
}

impl InFlight {
    fn last_key(&self) -> Option<&[Value]> {
        self.rows.last().map(|b| b.key.as_slice())
    }

    /// The log changed `key` after the chunk's snapshot.
    fn evict(&mut self, key: Vec<Value>) {
        let tk = self.key.clone();
        let cmp = |a: &[Value], b: &[Value]| tk.compare(a, b).unwrap_or(Ordering::Equal);
        if let Ok(i) = self.rows.binary_search_by(|b| cmp(&b.key, &key)) {
            self.rows[i].live = false;
            return;
        }
        let beyond = self
            .last_key()
            .is_none_or(|last| tk.compare(&key, last) != Some(Ordering::Less));
        if self.complete || !beyond {
            // Not in the chunk's snapshot: nothing to drop.
            return;
        }
        if let Err(i) = self.evicted.binary_search_by(|k| cmp(k, &key)) {
            self.bytes += key_bytes(&key);
            self.evicted.insert(i, key);
        }
    }
}

fn key_bytes(key: &[Value]) -> usize {
    24 + key.iter().map(Value::approx_bytes).sum::<usize>()
}

/// One shard's merge state: the log position and the chunks in flight (in request order).
pub struct ShardMerge {
    log_position: GtidSet,
    chunks: Vec<InFlight>,
    /// Per table split into lanes: the first lane still to be read. A chunk of a later lane
    /// waits (even when first of its table in flight): the lanes before it have chunks to come.
    heads: std::collections::BTreeMap<String, usize>,
}

impl ShardMerge {
    pub fn new(log_position: GtidSet) -> ShardMerge {
        ShardMerge {
            log_position,
            chunks: Vec::new(),
            heads: Default::default(),
        }
    }

    pub fn log_position(&self) -> &GtidSet {
        &self.log_position
    }

    pub fn in_flight(&self) -> usize {
        self.chunks.len()
    }

    /// Starts recording for a chunk requested now (at the current log position). Chunks of one
    /// table must be requested in key order; they are emitted in that order.
    pub fn request(&mut self, id: ChunkId, table: &str, key: Arc<TableKey>, range: ChunkRange) {
        self.request_in_lane(id, table, key, range, 0);
    }

    /// [`Self::request`] for a table split into lanes: the chunks of one lane must be requested
    /// in key order, lanes are in key order, and the table's chunks are emitted in key order
    /// (a lane's chunks after every chunk of the lanes before it), whatever order they were
    /// requested in across lanes.
    pub fn request_in_lane(
        &mut self,
        id: ChunkId,
        table: &str,
        key: Arc<TableKey>,
        range: ChunkRange,
        lane: usize,
    ) {
        let at = self
            .chunks
            .iter()
            .position(|c| c.table == table && c.lane > lane)
            .unwrap_or(self.chunks.len());
        self.chunks.insert(
            at,
            InFlight {
                id,
                table: table.to_string(),
                lane,
                key,
                range,
                requested_at: self.log_position.clone(),
                snapshot: None,
                rows: Vec::new(),
                recorded: Vec::new(),
                evicted: Vec::new(),
                bytes: 0,
                complete: false,
            },
        );
    }

    /// The first lane of `table` still to be read: chunks of later lanes are not emitted yet.
    pub fn set_head_lane(&mut self, table: &str, lane: usize) {
        match self.heads.get_mut(table) {
            Some(h) => *h = lane,
            None => {
                self.heads.insert(table.to_string(), lane);
            }
        }
    }

    /// A change the log delivers (it is emitted as usual; the merge only takes note).
    pub fn on_log_change(
        &mut self,
        table: &str,
        schema: &TableSchema,
        values: &[Value],
        gtid: Option<&Gtid>,
    ) {
        for c in self.chunks.iter_mut().filter(|c| c.table == table) {
            let key = c.key.key_of(schema, values);
            if !c.range.contains(&c.key, &key) {
                continue;
            }
            match &c.snapshot {
                None => {
                    c.bytes += key_bytes(&key);
                    c.recorded.push((key, gtid.cloned()));
                }
                Some(g_c) => {
                    if !gtid.is_some_and(|g| g_c.contains_gtid(g)) {
                        c.evict(key);
                    }
                }
            }
        }
    }

    /// The log's position after a transaction. Positions only grow along a stream.
    pub fn on_log_position(&mut self, position: GtidSet) {
        self.log_position = position;
    }

    /// Rows of a chunk, in key order, as its side stream delivered them.
    pub fn on_chunk_rows(&mut self, id: ChunkId, rows: Vec<ChangeEvent>) -> Result<()> {
        let c = self.chunk_mut(id)?;
        for row in rows {
            let key = c.key.key_of(&row.schema, &row.values);
            if let Some(last) = c.last_key() {
                if c.key.compare(&key, last) != Some(Ordering::Greater) {
                    return Err(Error::fatal(format!(
                        "chunk {id} of table '{}' sent its rows out of primary-key order ({key:?} after {last:?}): \
                         the merge relies on MySQL's key order",
                        c.table
                    )));
                }
            }
            let tk = c.key.clone();
            // Evicted keys the chunk has passed are not in its snapshot.
            while c
                .evicted
                .first()
                .is_some_and(|k| tk.compare(k, &key) == Some(Ordering::Less))
            {
                let k = c.evicted.remove(0);
                c.bytes = c.bytes.saturating_sub(key_bytes(&k));
            }
            let overtaken = c
                .evicted
                .first()
                .is_some_and(|k| tk.compare(k, &key) == Some(Ordering::Equal));
            if overtaken {
                let k = c.evicted.remove(0);
                c.bytes = c.bytes.saturating_sub(key_bytes(&k));
            }
            c.bytes += 64 + row.values.iter().map(Value::approx_bytes).sum::<usize>();
            c.rows.push(Buffered {
                key,
                row,
                live: !overtaken,
            });
        }
        Ok(())
    }

    /// The chunk's snapshot position. Discards the chunk if its tablet was behind the log.
    pub fn on_chunk_snapshot(
        &mut self,
        id: ChunkId,
        snapshot: GtidSet,
    ) -> Result<std::result::Result<(), Discarded>> {
        let index = self.index(id)?;
        let c = &mut self.chunks[index];
        if let Some(known) = &c.snapshot {
            if *known != snapshot {
                return Err(Error::fatal(format!(
                    "chunk {id} of table '{}' changed its snapshot position from {known} to {snapshot}",
                    c.table
                )));
            }
            return Ok(Ok(()));
        }
        if !snapshot.is_superset(&c.requested_at) {
            let c = self.chunks.remove(index);
            return Ok(Err(Discarded {
                id,
                requested_at: c.requested_at,
                snapshot,
            }));
        }
        for (key, gtid) in std::mem::take(&mut c.recorded) {
            c.bytes = c.bytes.saturating_sub(key_bytes(&key));
            if !gtid.is_some_and(|g| snapshot.contains_gtid(&g)) {
                c.evict(key);
            }
        }
        c.snapshot = Some(snapshot);
        Ok(Ok(()))
    }

    /// Ends a chunk at its last received key (its budget is spent). Returns that key, the
    /// start of the next chunk; `None` if the chunk received no row (then it is not cut).
    pub fn cut(&mut self, id: ChunkId) -> Result<Option<Vec<Value>>> {
        let c = self.chunk_mut(id)?;
        let Some(last) = c.last_key().map(<[Value]>::to_vec) else {
            return Ok(None);
        };
        c.range.through = Some(last.clone());
        c.complete = true;
        c.bytes = c
            .bytes
            .saturating_sub(c.evicted.iter().map(|k| key_bytes(k)).sum());
        c.evicted.clear();
        Ok(Some(last))
    }

    /// The chunk's side stream read its whole range.
    pub fn complete(&mut self, id: ChunkId) -> Result<()> {
        let c = self.chunk_mut(id)?;
        if c.snapshot.is_none() {
            return Err(Error::fatal(format!(
                "chunk {id} of table '{}' completed without a snapshot position",
                c.table
            )));
        }
        c.complete = true;
        c.bytes = c
            .bytes
            .saturating_sub(c.evicted.iter().map(|k| key_bytes(k)).sum());
        c.evicted.clear();
        Ok(())
    }

    /// Forgets a chunk (its side stream failed or the capture stopped); nothing of it is emitted.
    pub fn abandon(&mut self, id: ChunkId) {
        self.chunks.retain(|c| c.id != id);
    }

    /// Drops every chunk of `table` (its capture was stopped); returns their ids.
    pub fn abandon_table(&mut self, table: &str) -> Vec<ChunkId> {
        let ids = self
            .chunks
            .iter()
            .filter(|c| c.table == table)
            .map(|c| c.id)
            .collect();
        self.chunks.retain(|c| c.table != table);
        self.heads.remove(table);
        ids
    }

    /// Bytes a chunk holds (rows and recorded keys): what its budget is checked against.
    pub fn chunk_bytes(&self, id: ChunkId) -> usize {
        self.chunks
            .iter()
            .find(|c| c.id == id)
            .map_or(0, |c| c.bytes)
    }

    /// Bytes all chunks in flight hold.
    pub fn bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.bytes).sum()
    }

    /// Chunks ready to emit, in order: complete, with a snapshot the log has passed, and first
    /// among the in-flight chunks of their table.
    pub fn take_ready(&mut self) -> Vec<ReadyChunk> {
        let mut ready = Vec::new();
        let mut i = 0;
        while i < self.chunks.len() {
            let c = &self.chunks[i];
            let first_of_table = !self.chunks[..i].iter().any(|o| o.table == c.table)
                && self.heads.get(&c.table).is_none_or(|head| c.lane <= *head);
            let passed = c
                .snapshot
                .as_ref()
                .is_some_and(|g| self.log_position.is_superset(g));
            if first_of_table && c.complete && passed {
                let c = self.chunks.remove(i);
                let evicted = c.rows.iter().filter(|b| !b.live).count();
                ready.push(ReadyChunk {
                    id: c.id,
                    table: c.table,
                    lane: c.lane,
                    range: c.range,
                    snapshot: c.snapshot.expect("checked above"),
                    rows: c
                        .rows
                        .into_iter()
                        .filter(|b| b.live)
                        .map(|b| b.row)
                        .collect(),
                    evicted,
                });
                // A later chunk of the same table may now be first: look again from the start.
                i = 0;
            } else {
                i += 1;
            }
        }
        ready
    }

    fn index(&self, id: ChunkId) -> Result<usize> {
        self.chunks
            .iter()
            .position(|c| c.id == id)
            .ok_or_else(|| Error::fatal(format!("chunk {id} is not in flight")))
    }

    fn chunk_mut(&mut self, id: ChunkId) -> Result<&mut InFlight> {
        let i = self.index(id)?;
        Ok(&mut self.chunks[i])
    }
}

#[cfg(test)]
mod tests;
