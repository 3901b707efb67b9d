// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A keyspace's log stream with chunked snapshots of some of its tables beside it.
//!
//! [`CaptureStream`] runs the main log stream (every selected table, from `latest` or saved
//! positions) and, per shard and captured table, a sequence of chunk side streams
//! ([`super::chunk`]), at most `chunks_in_flight` at once. Per shard, a [`ShardMerge`] merges
//! them; the consumer sees one ordered sequence per shard: the log's events as they come (never
//! held back), and chunk rows ([`RowKind::SnapshotRead`](crate::RowKind)) once their chunk is
//! merged, each slice of them followed by a mark whose position carries the capture's cursor
//! ([`crate::position::TableSnapshot`]). Resuming from any mark re-reads only what was not
//! emitted.
//!
//! By concern:
//! - this file: the stream's state and its event loop (log batches and chunk reports in, events
//!   out);
//! - `plan`: what to capture and where each capture starts (fresh or from saved positions);
//! - `chunks`: the chunk scheduler, snapshot deadlines and retries;
//! - `lanes`: a table's range on a shard split in advance, so its chunks read side by side;
//! - `signals`: acting on signal-table requests (execute, stop, pause, resume);
//! - `relay`: a signal written once, relayed to the keyspace's other shards;
//! - `progress`: counters per shard and in total;
//! - `throttle`: the tablet throttler's verdict per shard, asked before chunks start;
//! - `positions`: handing out merged chunks in slices, and the positions their marks carry.

mod chunks;
mod lanes;
mod plan;
mod positions;
mod progress;
mod relay;
mod signals;
mod throttle;

pub use plan::Capture;
pub use progress::{CaptureProgress, ShardProgress, SignalElsewhere};

use super::chunk::ChunkReport;
use super::key::{ChunkRange, TableKey};
use super::merge::{ChunkId, ShardMerge};
use crate::client::VtgateClient;
use crate::error::{Error, Result};
use crate::event::{Event, TableSchema};
use crate::gtid::Gtid;
use crate::keyorder::TableKeyOrders;
use crate::options::{SnapshotOptions, StreamOptions};
use crate::position::ShardPosition;
use crate::stream::EventStream;
use positions::parse_position;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;

struct TableState {
    filter: Option<String>,
    key: Arc<TableKey>,
    /// Where the part not yet emitted starts (`None`: all emitted, the table is done).
    emitted: Option<ChunkRange>,
    /// The table's range on the shard, in key order: one lane until `lanes.rs` splits it, and
    /// again after a restore (the cursor is one key; the rest is split anew).
    lanes: Vec<Lane>,
    /// The lanes were planned (or the range cannot be split).
    planned: bool,
    /// Chunks requested and not emitted yet (reading or waiting for the log), in all lanes.
    unmerged: usize,
    chunks: u64,
    rows: u64,
    estimated_rows: Option<u64>,
    /// No new chunk starts (`pause-snapshot`); saved in the positions.
    paused: bool,
}

/// One slice of a table's range on a shard, read chunk after chunk; the lanes of a table read
/// side by side.
struct Lane {
    /// Where the next chunk to request starts (`None`: everything is requested).
    next: Option<ChunkRange>,
    /// The chunk being read (its side stream runs), with its range.
    reading: Option<(ChunkId, ChunkRange)>,
    /// Until when the chunk being read must report its snapshot: a tablet type the shard does
    /// not serve makes VTGate wait silently (for minutes), so the capture keeps its own deadline.
    snapshot_due: Option<Instant>,
    /// Chunks of this lane requested and not emitted yet.
    unmerged: usize,
    not_before: Option<Instant>,
    retries: u32,
}

impl Lane {
    fn new(range: ChunkRange) -> Lane {
        Lane {
            next: Some(range),
            reading: None,
            snapshot_due: None,
            unmerged: 0,
            not_before: None,
            retries: 0,
        }
    }

    /// Every chunk of the lane is requested and read (some may wait for the log).
    fn read(&self) -> bool {
        self.next.is_none() && self.reading.is_none()
    }
}

impl TableState {
    /// A capture of `range` that has emitted nothing yet.
    fn new(filter: Option<String>, key: Arc<TableKey>, range: ChunkRange) -> TableState {
        TableState {
            filter,
            key,
            emitted: Some(range.clone()),
            lanes: vec![Lane::new(range)],
            planned: false,
            unmerged: 0,
            chunks: 0,
            rows: 0,
            estimated_rows: None,
            paused: false,
        }
    }

    /// The first lane still to be read: its chunks are emitted next, so it may always start
    /// one (a later lane's chunks wait for it, holding memory).
    fn head_lane(&self) -> usize {
        self.lanes
            .iter()
            .position(|l| !l.read())
            .unwrap_or(self.lanes.len())
    }

    /// Chunks of the table being read.
    fn reading(&self) -> usize {
        self.lanes.iter().filter(|l| l.reading.is_some()).count()
    }

    /// Chunks of the table left to request.
    fn has_next(&self) -> bool {
        self.lanes.iter().any(|l| l.next.is_some())
    }
}

struct ShardState {
    merge: ShardMerge,
    /// The log's last position (without capture cursors).
    log: ShardPosition,
    tables: BTreeMap<String, TableState>,
    /// Captures requested (by a signal) for a table whose capture was still running: each starts
    /// when the one before it ends. Saved in the positions after the running ones.
    queued: Vec<Capture>,
    progress: ShardProgress,
    /// No chunk starts on this shard: its throttler refuses, or has not answered yet (throttle.rs).
    throttle_held: bool,
    /// Since when the throttler refuses this shard's next chunks.
    throttled_since: Option<Instant>,
    /// The last throttler check of this shard failed (said once per episode).
    throttle_check_failed: bool,
    /// The shard reached a reshard journal: no chunk starts, its final mark ends it.
    ended: bool,
}

pub struct CaptureStream {
    options: StreamOptions,
    snap: SnapshotOptions,
    shards: BTreeMap<String, ShardState>,
    log_rx: mpsc::Receiver<Result<Vec<Event>>>,
    chunk_tx: mpsc::Sender<ChunkReport>,
    chunk_rx: mpsc::Receiver<ChunkReport>,
    /// The log's latest schema per (shard, table): chunk rows are handed out with it.
    schemas: BTreeMap<(String, String), Arc<TableSchema>>,
    next_id: ChunkId,
    reading: usize,
    log_task: tokio::task::JoinHandle<()>,
    /// Side streams by chunk; a chunk dropped early has its task aborted.
    chunk_tasks: BTreeMap<ChunkId, tokio::task::JoinHandle<()>>,
    /// (shard, table) whose chunks are read from the primary although the snapshot tablet type
    /// is another: that tablet refused them, not knowing the table (chunks.rs).
    primary_chunks: std::collections::BTreeSet<(String, String)>,
    /// Primary-key columns and their orders of the keyspace's tables, for captures a signal
    /// adds; refreshed when a signal names a table created after the stream opened.
    key_names: BTreeMap<String, Vec<String>>,
    key_orders: TableKeyOrders,
    client: VtgateClient,
    /// Tables the log stream selects (a signal can only capture these).
    selected: Vec<String>,
    /// Log events not processed yet: the rest of a batch whose signal waits for `key_names` to
    /// be refreshed.
    held: Vec<Event>,
    /// `key_names` was refreshed since the last log batch arrived (a table still unknown then
    /// does not exist).
    keys_refreshed: bool,
    /// The signal `held` waits to relay to the other shards first.
    relay_due: Option<relay::Relay>,
    /// The last signal relayed (its shard and id): it takes effect when the held batch goes on.
    relayed: Option<(String, String)>,
    /// The last signals that named tables this stream does not read (at most
    /// [`signals::ELSEWHERE_KEPT`]), for [`CaptureProgress::signals_elsewhere`].
    signals_elsewhere: std::collections::VecDeque<SignalElsewhere>,
    /// The tablet throttler check before chunks start (None: not asked for).
    throttle: Option<throttle::ThrottleWatch>,
    /// Characters the signal table's `id` holds (asked at the first relay; inner None: no limit).
    signal_id_chars: Option<Option<u64>>,
    /// Chunks are read from the tablets directly, found through vtctld (None: through VTGate).
    tablets: Option<Arc<crate::snapshot::tablets::TabletDirectory>>,
    /// Shards whose tablets (or vtctld) could not be reached for chunks in a row: their chunks
    /// go through VTGate from then on (chunks.rs).
    vtgate_chunks: std::collections::BTreeSet<String>,
    /// Per shard, chunks in a row that could not reach their tablet.
    unreached: BTreeMap<String, u32>,
}

impl Drop for CaptureStream {
    fn drop(&mut self) {
        self.log_task.abort();
        for t in self.chunk_tasks.values() {
            t.abort();
        }
    }
}

impl CaptureStream {
    /// Whether every capture finished on every shard (the log stream goes on).
    pub fn capture_done(&self) -> bool {
        self.shards
            .values()
            .all(|s| s.tables.is_empty() && s.queued.is_empty())
    }

    /// The next events (log events and merged chunk rows, per shard in order). Waits for at
    /// least one event; fails when the log fails or a capture cannot go on.
    pub async fn next_events(&mut self) -> Result<Vec<Event>> {
        loop {
            if !self.held.is_empty() {
                if let Some(relay) = self.relay_due.take() {
                    if let Err(e) = self.relay(&relay).await {
                        // Still due: the signal must not take effect unrelayed on a later call.
                        self.relay_due = Some(relay);
                        return Err(e);
                    }
                } else if !self.keys_refreshed {
                    self.refresh_keys().await?;
                }
                let held = std::mem::take(&mut self.held);
                let out = self.on_log(held)?;
                if !out.is_empty() {
                    return Ok(out);
                }
                continue;
            }
            self.plan_lanes().await;
            self.schedule();
            self.check_snapshot_deadlines()?;
            let wake = self
                .shards
                .values()
                .flat_map(|s| s.tables.values())
                .flat_map(|t| t.lanes.iter())
                .flat_map(|l| [l.not_before, l.snapshot_due])
                .flatten()
                .min();
            tokio::select! {
                log = self.log_rx.recv() => {
                    let events = log.ok_or_else(|| Error::fatal("the log stream ended"))??;
                    self.keys_refreshed = false;
                    let out = self.on_log(events)?;
                    if !out.is_empty() {
                        return Ok(out);
                    }
                }
                Some(report) = self.chunk_rx.recv() => {
                    let out = self.on_chunk(report)?;
                    if !out.is_empty() {
                        return Ok(out);
                    }
                }
                _ = throttle_changed(&mut self.throttle) => {}
                _ = sleep_until(wake) => {}
            }
        }
    }

    /// Stops the chunks of a shard that reached a reshard journal. What they read is dropped
    /// (not emitted), so the cursors stay at what was emitted: the new shards read the rest.
    fn end_shard(&mut self, shard: &str) {
        let Some(s) = self.shards.get_mut(shard) else {
            return;
        };
        s.ended = true;
        s.throttle_held = false;
        s.throttled_since = None;
        let mut stopped = 0;
        for (table, t) in s.tables.iter_mut() {
            for lane in &mut t.lanes {
                if let Some((id, _)) = lane.reading.take() {
                    if let Some(task) = self.chunk_tasks.remove(&id) {
                        task.abort();
                    }
                    stopped += 1;
                }
                lane.unmerged = 0;
                lane.snapshot_due = None;
                lane.next = None;
            }
            s.merge.abandon_table(table);
            t.unmerged = 0;
        }
        self.reading -= stopped;
        if !s.tables.is_empty() || !s.queued.is_empty() {
            tracing::info!(
                shard = %shard,
                tables = ?s.tables.keys().chain(s.queued.iter().map(|c| &c.table)).collect::<Vec<_>>(),
                "the shard reached a reshard journal during a chunked snapshot: its captures go on on the new shards \
                 from the cursors its final mark carries"
            );
        }
    }

    fn table_mut(&mut self, shard: &str, table: &str) -> &mut TableState {
        self.shards
            .get_mut(shard)
            .and_then(|s| s.tables.get_mut(table))
            .expect("a planned table")
    }

    /// The table of shard `shard` and its lane that read chunk `id`.
    fn reader_of(&self, shard: &str, id: ChunkId) -> Option<(String, usize)> {
        self.shards.get(shard)?.tables.iter().find_map(|(t, st)| {
            st.lanes
                .iter()
                .position(|l| l.reading.as_ref().is_some_and(|(r, _)| *r == id))
                .map(|lane| (t.clone(), lane))
        })
    }

    /// The schema a chunk row is handed out with: the log's, when it has the same columns (so a
    /// consumer sees one shape); else the chunk's, announced first.
    fn schema_for(
        &mut self,
        shard: &str,
        side: &Arc<TableSchema>,
        out: &mut Vec<Event>,
    ) -> Arc<TableSchema> {
        let key = (shard.to_string(), side.table.clone());
        match self.schemas.get(&key) {
            Some(log) if same_shape(&log.columns, &side.columns) => log.clone(),
            known => {
                let version = known.map_or(side.version, |s| s.version + 1);
                let schema = Arc::new(TableSchema {
                    version,
                    ..(**side).clone()
                });
                self.schemas.insert(key, schema.clone());
                out.push(Event::Schema(schema.clone()));
                schema
            }
        }
    }

    fn on_log(&mut self, events: Vec<Event>) -> Result<Vec<Event>> {
        let mut out = Vec::with_capacity(events.len());
        let mut events = events.into_iter();
        while let Some(event) = events.next() {
            if let Some(row) = self.signal_in(&event) {
                if self.needs_keys(&row.signal) && !self.keys_refreshed {
                    // A table this stream has not seen the key of: hold the rest of the batch
                    // (nothing after the signal is handed out before it takes effect).
                    self.held = std::iter::once(event).chain(events).collect();
                    return Ok(out);
                }
                if let Some(relay) = self.relay_due(&row) {
                    // Written once: the other shards get it before anything after it is handed
                    // out (relay.rs).
                    self.relay_due = Some(relay);
                    self.held = std::iter::once(event).chain(events).collect();
                    return Ok(out);
                }
                self.apply_signal(row);
                continue;
            }
            match &event {
                Event::Schema(s) => {
                    self.schemas
                        .insert((s.shard.clone(), s.table.clone()), s.clone());
                    if self.is_signal_table(&s.table) {
                        continue;
                    }
                }
                Event::Change(c) => {
                    if let Some(state) = self.shards.get_mut(&c.schema.shard) {
                        if state.tables.contains_key(&c.schema.table) {
                            let gtid = c.gtid.as_deref().and_then(|g| Gtid::parse(g).ok());
                            state.merge.on_log_change(
                                &c.schema.table,
                                &c.schema,
                                &c.values,
                                gtid.as_ref(),
                            );
                        }
                    }
                }
                Event::Mark(p) => {
                    let shard = p.shard.clone();
                    if let Some(state) = self.shards.get_mut(&shard) {
                        state.log = p.clone();
                        state.merge.on_log_position(parse_position(p)?);
                        out.push(Event::Mark(self.position(&shard)));
                        if self.shards[&shard].ended {
                            // Its final mark, after its journal: nothing of it follows.
                            self.shards.remove(&shard);
                        } else {
                            self.emit_ready(&shard, &mut out)?;
                        }
                        continue;
                    }
                }
                Event::Journal { shard, .. } => {
                    // The shard ends at a reshard: its chunks stop, and its final mark (next)
                    // carries each capture's cursor, from which the new shards go on
                    // (crate::snapshot::carry; the Flink enumerator carries them over).
                    self.end_shard(&shard.1);
                }
                _ => {}
            }
            out.push(event);
        }
        Ok(out)
    }
}

/// Whether a chunk's columns are the log's: the same names, types and character sets (a chunk
/// read from a tablet directly describes its columns in the row streamer's words, VTGate's
/// FIELD events in the binlog's; the values decode alike).
fn same_shape(log: &[crate::event::Column], chunk: &[crate::event::Column]) -> bool {
    log.len() == chunk.len()
        && log.iter().zip(chunk).all(|(a, b)| {
            a.name.eq_ignore_ascii_case(&b.name)
                && a.column_type == b.column_type
                && a.charset == b.charset
                && a.mysql_type.eq_ignore_ascii_case(&b.mysql_type)
        })
}

async fn run_log(mut log: EventStream, tx: mpsc::Sender<Result<Vec<Event>>>) {
    loop {
        let r = log.next_events().await;
        let failed = r.is_err();
        if tx.send(r).await.is_err() || failed {
            return;
        }
    }
}

async fn throttle_changed(watch: &mut Option<throttle::ThrottleWatch>) {
    match watch {
        Some(w) => w.changed().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}
