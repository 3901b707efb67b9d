// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Where each capture stands: merged chunks handed out in slices with a mark after each, and the
//! positions those marks carry (the log's position plus every capture's cursor), from which a
//! resume re-reads only what was not emitted.

use super::CaptureStream;
use crate::error::{Error, ErrorCode, Result};
use crate::event::Event;
use crate::gtid::GtidSet;
use crate::position::{ShardPosition, StreamPosition, TableSnapshot};
use crate::snapshot::key::{encode_key, ChunkRange};
use crate::snapshot::merge::ReadyChunk;

/// Rows emitted between two marks: a consumer that holds a slice until its mark (as it holds a
/// copy batch) buffers at most this many.
const SLICE_ROWS: usize = 1024;

impl CaptureStream {
    /// Every shard's position as of the last mark handed out (log position and cursors).
    pub fn positions(&self) -> StreamPosition {
        StreamPosition {
            shards: self.shards.keys().map(|s| self.position(s)).collect(),
        }
    }

    /// Hands out the merged chunks of `shard`, in slices, each followed by a mark.
    pub(super) fn emit_ready(&mut self, shard: &str, out: &mut Vec<Event>) -> Result<()> {
        let ready: Vec<ReadyChunk> = match self.shards.get_mut(shard) {
            Some(s) => {
                for (table, t) in &s.tables {
                    if t.lanes.len() > 1 {
                        s.merge.set_head_lane(table, t.head_lane());
                    }
                }
                s.merge.take_ready()
            }
            None => return Ok(()),
        };
        for chunk in ready {
            let table = chunk.table.clone();
            let st = self.table_mut(shard, &table);
            st.unmerged -= 1;
            st.lanes[chunk.lane].unmerged -= 1;
            let key = st.key.clone();
            let n = chunk.rows.len();
            let mut rows = chunk.rows.into_iter().peekable();
            while rows.peek().is_some() {
                let slice: Vec<_> = rows.by_ref().take(SLICE_ROWS).collect();
                let last = slice.last().map(|r| key.key_of(&r.schema, &r.values));
                let count = slice.len() as u64;
                out.extend(slice.into_iter().map(Event::Change));
                let st = self.table_mut(shard, &table);
                st.rows += count;
                if rows.peek().is_some() {
                    st.emitted = last.map(ChunkRange::after);
                    out.push(Event::Mark(self.position(shard)));
                }
            }
            let st = self.table_mut(shard, &table);
            st.chunks += 1;
            let progress = &mut self.shards.get_mut(shard).expect("shard").progress;
            progress.chunks_done += 1;
            progress.rows += n as u64;
            let st = self.table_mut(shard, &table);
            st.emitted = chunk.range.remaining_after();
            tracing::debug!(table = %table, shard = %shard, rows = n, evicted = chunk.evicted, "chunk merged");
            let done = st.emitted.is_none();
            if done {
                if let Some(s) = self.shards.get_mut(shard) {
                    s.tables.remove(&table);
                }
                tracing::info!(table = %table, shard = %shard, "chunked snapshot of the table done on the shard");
                self.start_queued(shard, &table);
            }
            self.update_progress(shard);
            out.push(Event::Mark(self.position(shard)));
        }
        Ok(())
    }

    pub(super) fn position(&self, shard: &str) -> ShardPosition {
        let s = &self.shards[shard];
        let mut p = s.log.clone();
        p.snapshots = s
            .tables
            .iter()
            .filter_map(|(table, t)| {
                let range = t.emitted.as_ref()?;
                Some(TableSnapshot {
                    table: table.clone(),
                    filter: t.filter.clone(),
                    after: range.after.as_deref().map(encode_key).unwrap_or_default(),
                    level: range.level as u32,
                    chunks: t.chunks,
                    rows: t.rows,
                    paused: t.paused,
                })
            })
            .chain(s.queued.iter().map(|c| TableSnapshot {
                filter: c.filter.clone(),
                ..TableSnapshot::whole(&c.table)
            }))
            .collect();
        p
    }
}

pub(super) fn parse_position(p: &ShardPosition) -> Result<GtidSet> {
    GtidSet::parse(&p.gtid).map_err(|e| Error::from(e).with_code(ErrorCode::InvalidPosition))
}
