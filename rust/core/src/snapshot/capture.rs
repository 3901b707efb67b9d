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

use super::chunk::{run_chunk, ChunkJob, ChunkMsg, ChunkReport};
use super::key::{decode_key, encode_key, ChunkRange, TableKey};
use super::merge::{ChunkId, ReadyChunk, ShardMerge};
use super::signal::{Signal, SignalError};
use crate::client::VtgateClient;
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::event::{Event, RowKind, TableSchema};
use crate::gtid::{Gtid, GtidSet};
use crate::keyorder::TableKeyOrders;
use crate::metrics::Metrics;
use crate::options::{InitialSnapshot, SnapshotOptions, StartMode, StreamOptions, TabletType};
use crate::position::{ShardPosition, StreamPosition, TableSnapshot};
use crate::stream::EventStream;
use crate::supervise::{self, Task};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Rows emitted between two marks: a consumer that holds a slice until its mark (as it holds a
/// copy batch) buffers at most this many.
const SLICE_ROWS: usize = 1024;
/// Chunk retries (a discarded or failed chunk) before the capture fails.
const MAX_RETRIES: u32 = 30;

/// A table to capture: all of it, or the rows matching `filter` (an AND of `column <op>
/// literal` terms, Vitess's filter grammar).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    pub table: String,
    pub filter: Option<String>,
    /// The shards to capture it on; empty = every shard of the stream (e.g. a table a Flink
    /// split has not seen yet, captured on that split's shard only).
    pub shards: Vec<String>,
}

impl Capture {
    /// `TABLE` or `TABLE:WHERE` (the CLI's `--resnapshot` form).
    pub fn parse(text: &str) -> Result<Capture> {
        let (table, filter) = match text.split_once(':') {
            Some((t, f)) => (
                t.trim(),
                Some(f.trim().to_string()).filter(|f| !f.is_empty()),
            ),
            None => (text.trim(), None),
        };
        if table.is_empty() {
            return Err(Error::config(format!(
                "'{text}' names no table — write TABLE or TABLE:WHERE, e.g. customer:`customer_id` > 100"
            ))
            .with_code(ErrorCode::InvalidOption));
        }
        Ok(Capture {
            table: table.to_string(),
            filter,
            shards: Vec::new(),
        })
    }

    /// Whether this capture runs on `shard`.
    pub fn applies_to(&self, shard: &str) -> bool {
        self.shards.is_empty() || self.shards.iter().any(|s| s == shard)
    }
}

/// Progress of a capture, per shard and in total.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct CaptureProgress {
    pub shards: BTreeMap<String, ShardProgress>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ShardProgress {
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
}

impl CaptureProgress {
    pub fn total(&self) -> ShardProgress {
        let mut t = ShardProgress::default();
        for s in self.shards.values() {
            t.chunks_done += s.chunks_done;
            t.chunks_planned += s.chunks_planned;
            t.rows += s.rows;
            t.tables_remaining += s.tables_remaining;
            t.chunks_discarded += s.chunks_discarded;
            t.chunks_failed += s.chunks_failed;
            t.signals += s.signals;
            t.signals_rejected += s.signals_rejected;
        }
        t
    }
}

struct TableState {
    filter: Option<String>,
    key: Arc<TableKey>,
    /// Where the part not yet emitted starts (`None`: all emitted, the table is done).
    emitted: Option<ChunkRange>,
    /// Where the next chunk to request starts (`None`: everything is requested).
    next: Option<ChunkRange>,
    /// The chunk being read (its side stream runs), with its range.
    reading: Option<(ChunkId, ChunkRange)>,
    /// Until when the chunk being read must report its snapshot: a tablet type the shard does
    /// not serve makes VTGate wait silently (for minutes), so the capture keeps its own deadline.
    snapshot_due: Option<Instant>,
    /// Chunks requested and not emitted yet (reading or waiting for the log).
    unmerged: usize,
    not_before: Option<Instant>,
    retries: u32,
    chunks: u64,
    rows: u64,
    estimated_rows: Option<u64>,
    /// No new chunk starts (`pause-snapshot`); saved in the positions.
    paused: bool,
}

impl TableState {
    /// A capture of `range` that has emitted nothing yet.
    fn new(filter: Option<String>, key: Arc<TableKey>, range: ChunkRange) -> TableState {
        TableState {
            filter,
            key,
            emitted: Some(range.clone()),
            next: Some(range),
            reading: None,
            snapshot_due: None,
            unmerged: 0,
            not_before: None,
            retries: 0,
            chunks: 0,
            rows: 0,
            estimated_rows: None,
            paused: false,
        }
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
    /// Opens the log stream and plans the captures. `options.start` must be `Latest` or
    /// saved positions: the log runs beside the chunks, it does not copy. Captures saved in the
    /// positions resume where they were; `captures` adds tables not being captured already.
    pub async fn open(
        options: StreamOptions,
        captures: Vec<Capture>,
        snap: SnapshotOptions,
    ) -> Result<CaptureStream> {
        Self::open_with_metrics(options, captures, snap, Arc::new(Metrics::default())).await
    }

    /// [`Self::open`], the log stream counting into `metrics`. A stream that starts
    /// [`StartMode::Initial`] with [`InitialSnapshot::Chunked`] starts its log at `latest` and
    /// captures every table it selects.
    pub async fn open_with_metrics(
        mut options: StreamOptions,
        mut captures: Vec<Capture>,
        snap: SnapshotOptions,
        metrics: Arc<Metrics>,
    ) -> Result<CaptureStream> {
        if snap.chunk_rows == 0 || snap.chunk_bytes == 0 || snap.chunks_in_flight == 0 {
            return Err(Error::config(
                "chunk rows, chunk bytes and chunks in flight must be at least 1",
            )
            .with_code(ErrorCode::InvalidOption));
        }
        if options.follow_reshard {
            // Each shard's merge belongs to that shard; a reshard ends the capture (below).
            options.follow_reshard = false;
        }
        let mut saved: BTreeMap<String, Vec<TableSnapshot>> = BTreeMap::new();
        let mut capture_all = false;
        match &mut options.start {
            StartMode::Initial if options.initial_snapshot == InitialSnapshot::Chunked => {
                options.start = StartMode::Latest;
                capture_all = true;
            }
            StartMode::Latest => {}
            StartMode::Positions(positions) => {
                for p in positions.iter_mut() {
                    saved.insert(p.shard.clone(), std::mem::take(&mut p.snapshots));
                }
            }
            // The in-stream copy runs first; a shard's captures start once its copy completed.
            StartMode::Initial => {}
            StartMode::SnapshotOnly => {
                return Err(Error::config(
                    "a chunked snapshot runs beside a log stream, and a snapshot-only stream ends after its copy — \
                     start latest, initial or from saved positions",
                )
                .with_code(ErrorCode::InvalidOption))
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for c in &captures {
            if !seen.insert(c.table.clone()) {
                return Err(Error::config(format!(
                    "table '{}' is captured twice — one capture per table (join the conditions with AND)",
                    c.table
                ))
                .with_code(ErrorCode::InvalidOption));
            }
        }
        let client = VtgateClient::connect(&options).await?;
        if let Some(signal) = &snap.signal_table {
            select_signal_table(&client, &mut options, signal).await?;
        }
        let log = EventStream::open_with_metrics(options.clone(), metrics).await?;
        let matched: Vec<String> = log
            .plan()
            .matched_tables
            .iter()
            .filter(|t| Some(*t) != snap.signal_table.as_ref())
            .cloned()
            .collect();
        if capture_all {
            for table in &matched {
                if !captures.iter().any(|c| &c.table == table) {
                    captures.push(Capture {
                        table: table.clone(),
                        filter: None,
                        shards: Vec::new(),
                    });
                }
            }
        }
        let shard_names = log.plan().shards.clone();
        let start_positions = log.positions();
        let names = client.primary_key_columns(&options.keyspace).await?;
        let orders = client.key_orders(&options.keyspace).await?;
        let mut keys: BTreeMap<String, Arc<TableKey>> = BTreeMap::new();
        let mut wanted: BTreeMap<String, Option<String>> = BTreeMap::new();
        for snaps in saved.values() {
            for t in snaps {
                wanted.entry(t.table.clone()).or_insert(t.filter.clone());
            }
        }
        for c in &captures {
            wanted.entry(c.table.clone()).or_insert(c.filter.clone());
        }
        for table in wanted.keys() {
            if !matched.contains(table) {
                return Err(Error::config(format!(
                    "table '{table}' is captured but the log stream does not select it (it selects: {}) — \
                     the log must carry a captured table's changes: add it to the tables",
                    matched.join(", ")
                ))
                .with_code(ErrorCode::UnknownTable));
            }
            let key = table_key(&options.keyspace, table, &names, &orders)?;
            keys.insert(table.clone(), Arc::new(key));
        }
        let mut shards = BTreeMap::new();
        for shard in &shard_names {
            let log_pos = start_positions
                .get(&options.keyspace, shard)
                .cloned()
                .ok_or_else(|| Error::fatal(format!("no start position for shard {shard}")))?;
            let estimates = client
                .table_rows(&options.keyspace, shard)
                .await
                .unwrap_or_default();
            let mut tables = BTreeMap::new();
            let saved_here = saved.get(shard).cloned().unwrap_or_default();
            // A table listed again is a capture queued behind the running one.
            let mut queued = Vec::new();
            for (i, t) in saved_here.iter().enumerate() {
                if saved_here[..i].iter().any(|u| u.table == t.table) {
                    queued.push(Capture {
                        table: t.table.clone(),
                        filter: t.filter.clone(),
                        shards: Vec::new(),
                    });
                }
            }
            for (table, filter) in &wanted {
                let resumed = saved_here.iter().find(|t| &t.table == table);
                // A table whose capture was saved elsewhere but not here is done on this shard; a
                // capture limited to other shards does not run here.
                let requested = captures
                    .iter()
                    .any(|c| &c.table == table && c.applies_to(shard));
                if resumed.is_none() && !requested {
                    continue;
                }
                let range = match resumed {
                    Some(t) if !t.after.is_empty() => {
                        let after = decode_key(&t.after)?;
                        ChunkRange {
                            level: (t.level as usize).min(after.len().saturating_sub(1)),
                            after: Some(after),
                            through: None,
                        }
                    }
                    _ => ChunkRange::all(),
                };
                let mut state = TableState::new(
                    resumed.map(|t| t.filter.clone()).unwrap_or(filter.clone()),
                    keys[table].clone(),
                    range,
                );
                state.chunks = resumed.map_or(0, |t| t.chunks);
                state.rows = resumed.map_or(0, |t| t.rows);
                state.estimated_rows = estimates.get(table).copied().flatten();
                state.paused = resumed.is_some_and(|t| t.paused);
                tables.insert(table.clone(), state);
            }
            let merge = ShardMerge::new(parse_position(&log_pos)?);
            let progress = ShardProgress {
                chunks_done: tables.values().map(|t| t.chunks).sum(),
                rows: tables.values().map(|t| t.rows).sum(),
                ..ShardProgress::default()
            };
            shards.insert(
                shard.clone(),
                ShardState {
                    merge,
                    log: log_pos,
                    tables,
                    queued,
                    progress,
                },
            );
        }
        let (log_tx, log_rx) = mpsc::channel(4);
        let log_task = tokio::spawn(supervise::reporting(
            Task::CaptureLog,
            run_log(log, log_tx.clone()),
            log_tx,
            Err,
        ));
        let (chunk_tx, chunk_rx) = mpsc::channel(32);
        let mut stream = CaptureStream {
            options,
            snap,
            shards,
            log_rx,
            chunk_tx,
            chunk_rx,
            schemas: BTreeMap::new(),
            next_id: 1,
            reading: 0,
            log_task,
            chunk_tasks: BTreeMap::new(),
            key_names: names,
            key_orders: orders,
            client,
            selected: matched,
            held: Vec::new(),
            keys_refreshed: false,
        };
        for shard in stream.shards.keys().cloned().collect::<Vec<_>>() {
            stream.update_progress(&shard);
        }
        tracing::info!(tables = ?wanted.keys().collect::<Vec<_>>(), shards = ?shard_names, "chunked snapshot planned");
        Ok(stream)
    }

    /// Starts no new chunk until [`Self::resume`]: the log keeps flowing, the chunks already
    /// reading finish and are merged, the cursors stay where they are (so positions saved while
    /// paused resume the capture). The `pause-snapshot` of DBLog.
    pub fn pause(&mut self) {
        for shard in self.shards.keys().cloned().collect::<Vec<_>>() {
            self.set_paused(&shard, true);
        }
    }

    /// Starts chunks again after [`Self::pause`].
    pub fn resume(&mut self) {
        for shard in self.shards.keys().cloned().collect::<Vec<_>>() {
            self.set_paused(&shard, false);
        }
    }

    /// Whether a capture is in progress and every one is paused.
    pub fn is_paused(&self) -> bool {
        let mut tables = self.shards.values().flat_map(|s| s.tables.values());
        let mut any = false;
        tables.all(|t| {
            any = true;
            t.paused
        }) && any
    }

    /// Pauses or resumes the captures of `shard` (the running ones; a capture that starts later,
    /// queued or newly requested, starts unpaused).
    fn set_paused(&mut self, shard: &str, paused: bool) {
        let Some(s) = self.shards.get_mut(shard) else {
            return;
        };
        let changed = s.tables.values().filter(|t| t.paused != paused).count();
        for t in s.tables.values_mut() {
            t.paused = paused;
        }
        if changed > 0 {
            tracing::info!(shard = %shard, tables = changed, "chunked snapshot {}", if paused { "paused" } else { "resumed" });
        }
    }

    /// Whether every capture finished on every shard (the log stream goes on).
    pub fn capture_done(&self) -> bool {
        self.shards
            .values()
            .all(|s| s.tables.is_empty() && s.queued.is_empty())
    }

    pub fn progress(&self) -> CaptureProgress {
        CaptureProgress {
            shards: self
                .shards
                .iter()
                .map(|(k, s)| (k.clone(), s.progress.clone()))
                .collect(),
        }
    }

    /// Every shard's position as of the last mark handed out (log position and cursors).
    pub fn positions(&self) -> StreamPosition {
        StreamPosition {
            shards: self.shards.keys().map(|s| self.position(s)).collect(),
        }
    }

    /// The next events (log events and merged chunk rows, per shard in order). Waits for at
    /// least one event; fails when the log fails or a capture cannot go on.
    pub async fn next_events(&mut self) -> Result<Vec<Event>> {
        loop {
            if !self.held.is_empty() {
                if !self.keys_refreshed {
                    self.refresh_keys().await?;
                }
                let held = std::mem::take(&mut self.held);
                let out = self.on_log(held)?;
                if !out.is_empty() {
                    return Ok(out);
                }
                continue;
            }
            self.schedule();
            self.check_snapshot_deadlines()?;
            let wake = self
                .shards
                .values()
                .flat_map(|s| s.tables.values())
                .flat_map(|t| [t.not_before, t.snapshot_due])
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
                _ = sleep_until(wake) => {}
            }
        }
    }

    /// Starts chunks while fewer than `chunks_in_flight` are read and fewer than twice that
    /// are unmerged (read chunks waiting for the log hold their rows).
    fn schedule(&mut self) {
        let now = Instant::now();
        let limit = self.snap.chunks_in_flight;
        self.chunk_tasks.retain(|_, t| !t.is_finished());
        // Round robin: the shard and table with the fewest chunks go first.
        loop {
            if self.reading >= limit {
                return;
            }
            let unmerged: usize = self
                .shards
                .values()
                .flat_map(|s| s.tables.values())
                .map(|t| t.unmerged)
                .sum();
            if unmerged >= 2 * limit {
                return;
            }
            let pick = self
                .shards
                .iter()
                // A shard still in its in-stream copy has no log position to merge against yet.
                .filter(|(_, s)| s.log.copy_completed)
                .flat_map(|(shard, s)| s.tables.iter().map(move |(t, st)| (shard, t, st)))
                .filter(|(_, _, t)| {
                    !t.paused
                        && t.reading.is_none()
                        && t.next.is_some()
                        && t.unmerged < 2
                        && t.not_before.is_none_or(|at| at <= now)
                })
                .min_by_key(|(_, _, t)| t.chunks + t.unmerged as u64)
                .map(|(s, t, _)| (s.clone(), t.clone()));
            let Some((shard, table)) = pick else {
                return;
            };
            if let Err(e) = self.start_chunk(&shard, &table) {
                // A cursor whose key cannot be written as a filter: the capture of this table
                // cannot go on; report it through the chunk channel like a failed chunk.
                tracing::error!(error = %e.message, "cannot start a chunk");
                let st = self.table_mut(&shard, &table);
                st.next = None;
                st.emitted = None;
            }
        }
    }

    fn start_chunk(&mut self, shard: &str, table: &str) -> Result<()> {
        let id = self.next_id;
        self.next_id += 1;
        let base_filter = self.options.row_filter.clone();
        let due = Instant::now() + self.options.connect_timeout.max(Duration::from_secs(1));
        let st = self.table_mut(shard, table);
        let range = st.next.clone().expect("picked with a next range");
        let mut terms: Vec<String> = Vec::new();
        if let Some(f) = base_filter {
            terms.push(format!("({f})"));
        }
        if let Some(f) = &st.filter {
            terms.push(format!("({f})"));
        }
        terms.extend(range.predicate(&st.key)?);
        st.not_before = None;
        st.snapshot_due = Some(due);
        st.reading = Some((id, range.clone()));
        st.unmerged += 1;
        let key = st.key.clone();
        self.shards
            .get_mut(shard)
            .expect("shard")
            .merge
            .request(id, table, key, range);
        self.reading += 1;
        let job = ChunkJob {
            id,
            shard: shard.to_string(),
            table: table.to_string(),
            terms,
            delay: Duration::ZERO,
        };
        tracing::debug!(?job, "chunk started");
        let task = tokio::spawn(run_chunk(
            self.options.clone(),
            self.snap.clone(),
            job,
            self.chunk_tx.clone(),
        ));
        self.chunk_tasks.insert(id, task);
        Ok(())
    }

    /// Chunks whose side stream did not report a snapshot in time are read again.
    fn check_snapshot_deadlines(&mut self) -> Result<()> {
        let now = Instant::now();
        let late: Vec<(String, String, ChunkId)> = self
            .shards
            .iter()
            .flat_map(|(shard, s)| {
                s.tables.iter().filter_map(move |(table, t)| {
                    let (id, _) = t.reading.as_ref()?;
                    t.snapshot_due
                        .is_some_and(|due| due <= now)
                        .then(|| (shard.clone(), table.clone(), *id))
                })
            })
            .collect();
        for (shard, table, id) in late {
            let tablet = format!("{:?}", self.snap.tablet_type).to_lowercase();
            let e = Error::retryable(format!(
                "the chunk stream of table '{table}' on shard {}/{shard} got no snapshot from a {tablet} tablet within {:?} \
                 (connect timeout) — is a {tablet} tablet of the shard serving? Set the snapshot tablet type (e.g. primary, \
                 or rdonly on vttestserver) to one the shard has",
                self.options.keyspace, self.options.connect_timeout
            ))
            .with_code(ErrorCode::Unreachable);
            tracing::warn!(error = %e.message, "chunk timed out");
            if self.table_mut(&shard, &table).retries >= 2 {
                // Three silent chunks in a row: the tablet type is missing, not slow.
                return Err(e);
            }
            self.shards
                .get_mut(&shard)
                .expect("shard")
                .progress
                .chunks_failed += 1;
            self.retry(&shard, &table, id, Some(e))?;
        }
        Ok(())
    }

    fn table_mut(&mut self, shard: &str, table: &str) -> &mut TableState {
        self.shards
            .get_mut(shard)
            .and_then(|s| s.tables.get_mut(table))
            .expect("a planned table")
    }

    /// The table of shard `shard` that reads chunk `id`.
    fn reader_of(&self, shard: &str, id: ChunkId) -> Option<String> {
        self.shards.get(shard)?.tables.iter().find_map(|(t, st)| {
            st.reading
                .as_ref()
                .is_some_and(|(r, _)| *r == id)
                .then(|| t.clone())
        })
    }

    fn on_chunk(&mut self, report: ChunkReport) -> Result<Vec<Event>> {
        let ChunkReport { shard, id, msg } = report;
        let Some(table) = self.reader_of(&shard, id) else {
            return Ok(Vec::new()); // a chunk abandoned earlier
        };
        let mut out = Vec::new();
        match msg {
            ChunkMsg::Rows(rows) => {
                let mut mapped = Vec::with_capacity(rows.len());
                for mut row in rows {
                    row.schema = self.schema_for(&shard, &row.schema, &mut out);
                    mapped.push(row);
                }
                self.shards
                    .get_mut(&shard)
                    .expect("shard")
                    .merge
                    .on_chunk_rows(id, mapped)?;
            }
            ChunkMsg::Snapshot(g) => {
                self.table_mut(&shard, &table).snapshot_due = None;
                let merge = &mut self.shards.get_mut(&shard).expect("shard").merge;
                if let Err(d) = merge.on_chunk_snapshot(id, g)? {
                    tracing::info!(table = %table, shard = %shard, requested_at = %d.requested_at, snapshot = %d.snapshot,
                        "chunk discarded: its tablet was behind the log; reading it again later");
                    self.shards
                        .get_mut(&shard)
                        .expect("shard")
                        .progress
                        .chunks_discarded += 1;
                    self.retry(&shard, &table, id, None)?;
                }
            }
            ChunkMsg::Cut => {
                let through = self.shards.get_mut(&shard).expect("shard").merge.cut(id)?;
                match through {
                    Some(k) => self.finish_reading(&shard, &table, Some(ChunkRange::after(k))),
                    // No row read at the snapshot: read the same range again.
                    None => self.retry(&shard, &table, id, None)?,
                }
            }
            ChunkMsg::Complete => {
                self.shards
                    .get_mut(&shard)
                    .expect("shard")
                    .merge
                    .complete(id)?;
                let next = self
                    .table_mut(&shard, &table)
                    .reading
                    .as_ref()
                    .and_then(|(_, r)| r.next_level());
                self.finish_reading(&shard, &table, next);
            }
            ChunkMsg::Failed(e) => {
                if e.kind == ErrorKind::Config || e.code == ErrorCode::Internal {
                    return Err(e);
                }
                let hint = unknown_table_hint(&e, &self.options.keyspace, self.snap.tablet_type);
                tracing::warn!(table = %table, shard = %shard, error = %e.message, hint = hint.as_deref().unwrap_or(""), "chunk failed; reading it again");
                self.shards
                    .get_mut(&shard)
                    .expect("shard")
                    .progress
                    .chunks_failed += 1;
                self.retry(&shard, &table, id, Some(e))?;
            }
        }
        self.emit_ready(&shard, &mut out)?;
        Ok(out)
    }

    /// The chunk's side stream is done; the next chunk starts at `next`.
    fn finish_reading(&mut self, shard: &str, table: &str, next: Option<ChunkRange>) {
        let st = self.table_mut(shard, table);
        st.reading = None;
        st.snapshot_due = None;
        st.retries = 0;
        st.next = next;
        self.reading -= 1;
    }

    /// Drops chunk `id` and reads its range again after a growing delay.
    fn retry(&mut self, shard: &str, table: &str, id: ChunkId, cause: Option<Error>) -> Result<()> {
        if let Some(task) = self.chunk_tasks.remove(&id) {
            task.abort();
        }
        self.shards.get_mut(shard).expect("shard").merge.abandon(id);
        let keyspace = self.options.keyspace.clone();
        let tablet_type = self.snap.tablet_type;
        let tablet = format!("{tablet_type:?}").to_lowercase();
        let st = self.table_mut(shard, table);
        st.reading = None;
        st.snapshot_due = None;
        st.unmerged -= 1;
        st.retries += 1;
        if st.retries > MAX_RETRIES {
            let why = cause.map_or_else(
                || format!("each chunk's {tablet} tablet stayed behind the log stream"),
                |e| match unknown_table_hint(&e, &keyspace, tablet_type) {
                    Some(hint) => format!("{} ({hint})", e.message),
                    None => e.message,
                },
            );
            return Err(Error::retryable(format!(
                "the chunked snapshot of {keyspace}.{table} on shard {shard} gave up after {MAX_RETRIES} attempts: {why} — \
                 read the chunks from the log's tablet type (snapshot tablet type), or let the replicas catch up"
            )));
        }
        let delay = Duration::from_millis(50u64 << st.retries.min(8));
        st.not_before = Some(Instant::now() + delay);
        self.reading -= 1;
        Ok(())
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
            Some(log) if log.columns == side.columns => log.clone(),
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
            if let Some((shard, signal)) = self.signal_in(&event) {
                if self.needs_keys(&signal) && !self.keys_refreshed {
                    // A table this stream has not seen the key of: hold the rest of the batch
                    // (nothing after the signal is handed out before it takes effect).
                    self.held = std::iter::once(event).chain(events).collect();
                    return Ok(out);
                }
                self.apply_signal(&shard, signal);
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
                        self.emit_ready(&shard, &mut out)?;
                        continue;
                    }
                }
                Event::Journal { shard, .. }
                    if self
                        .shards
                        .get(&shard.1)
                        .is_some_and(|s| !s.tables.is_empty() || !s.queued.is_empty()) =>
                {
                    return Err(Error::fatal(format!(
                        "shard {}/{} was resharded during a chunked snapshot — start the capture again on the new shards",
                        shard.0, shard.1
                    )));
                }
                _ => {}
            }
            out.push(event);
        }
        Ok(out)
    }

    fn is_signal_table(&self, table: &str) -> bool {
        self.snap.signal_table.as_deref() == Some(table)
    }

    /// The signal `event` carries: an insert into the signal table read from the log (rows the
    /// in-stream copy reads are old signals, not requests).
    fn signal_in(
        &self,
        event: &Event,
    ) -> Option<(String, std::result::Result<Signal, SignalError>)> {
        let Event::Change(c) = event else {
            return None;
        };
        if !self.is_signal_table(&c.schema.table) {
            return None;
        }
        if c.kind != RowKind::Insert || c.is_snapshot {
            // Not a request; still never handed out (the table is not one of the data tables).
            return Some((c.schema.shard.clone(), Ok(Signal::Ignored)));
        }
        Some((
            c.schema.shard.clone(),
            Signal::from_row(&self.options.keyspace, &c.schema, &c.values),
        ))
    }

    /// Whether `signal` names a table whose primary key this stream has not read.
    fn needs_keys(&self, signal: &std::result::Result<Signal, SignalError>) -> bool {
        match signal {
            Ok(Signal::Execute(captures)) => captures
                .iter()
                .any(|c| !self.key_names.contains_key(&c.table)),
            _ => false,
        }
    }

    async fn refresh_keys(&mut self) -> Result<()> {
        self.key_names = self
            .client
            .primary_key_columns(&self.options.keyspace)
            .await?;
        self.key_orders = self.client.key_orders(&self.options.keyspace).await?;
        self.keys_refreshed = true;
        Ok(())
    }

    /// Acts on a signal read from `shard`'s log, before anything after it is handed out.
    fn apply_signal(&mut self, shard: &str, signal: std::result::Result<Signal, SignalError>) {
        if !self.shards.contains_key(shard) {
            return;
        }
        let outcome = match signal {
            Ok(Signal::Ignored) => return,
            Ok(Signal::Execute(captures)) => self.execute_signal(shard, captures),
            Ok(Signal::Pause) => {
                self.set_paused(shard, true);
                Ok(())
            }
            Ok(Signal::Resume) => {
                self.set_paused(shard, false);
                Ok(())
            }
            Ok(Signal::Stop(tables)) => {
                self.stop_captures(shard, &tables);
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        };
        let progress = &mut self.shards.get_mut(shard).expect("shard").progress;
        match outcome {
            Ok(()) => progress.signals += 1,
            Err(reason) => {
                progress.signals_rejected += 1;
                tracing::warn!(shard = %shard, signal_table = ?self.snap.signal_table, "{reason}");
            }
        }
        self.update_progress(shard);
    }

    /// Starts (or queues behind a running one) a capture per table; every table is checked
    /// first, so a signal with a wrong table changes nothing.
    fn execute_signal(
        &mut self,
        shard: &str,
        captures: Vec<Capture>,
    ) -> std::result::Result<(), String> {
        let mut planned = Vec::with_capacity(captures.len());
        for c in captures {
            let selected = self.selected.contains(&c.table)
                || self
                    .schemas
                    .contains_key(&(shard.to_string(), c.table.clone()));
            if !selected || self.is_signal_table(&c.table) {
                return Err(format!(
                    "execute-snapshot names table '{}', which this stream does not read (it reads: {}) — \
                     capture one of the stream's tables",
                    c.table,
                    self.selected.join(", ")
                ));
            }
            let key = table_key(
                &self.options.keyspace,
                &c.table,
                &self.key_names,
                &self.key_orders,
            )
            .map_err(|e| format!("table '{}' cannot be captured: {}", c.table, e.message))?;
            planned.push((c, Arc::new(key)));
        }
        let s = self.shards.get_mut(shard).expect("shard");
        for (c, key) in planned {
            if s.tables.contains_key(&c.table) {
                tracing::info!(table = %c.table, shard = %shard, filter = ?c.filter, "capture queued behind the running one");
                s.queued.push(c);
            } else {
                tracing::info!(table = %c.table, shard = %shard, filter = ?c.filter, "capture requested by a signal");
                s.tables.insert(
                    c.table.clone(),
                    TableState::new(c.filter, key, ChunkRange::all()),
                );
            }
        }
        Ok(())
    }

    /// Ends the captures of `tables` on `shard` (all when empty), running and queued; what they
    /// emitted stays emitted.
    fn stop_captures(&mut self, shard: &str, tables: &[String]) {
        let s = self.shards.get_mut(shard).expect("shard");
        let stopped: Vec<String> = s
            .tables
            .keys()
            .filter(|t| tables.is_empty() || tables.contains(t))
            .cloned()
            .collect();
        s.queued
            .retain(|c| !(tables.is_empty() || tables.contains(&c.table)));
        for table in stopped {
            let s = self.shards.get_mut(shard).expect("shard");
            let st = s.tables.remove(&table).expect("listed");
            for id in s.merge.abandon_table(&table) {
                if let Some(task) = self.chunk_tasks.remove(&id) {
                    task.abort();
                }
            }
            if st.reading.is_some() {
                self.reading -= 1;
            }
            tracing::info!(table = %table, shard = %shard, rows = st.rows, "capture stopped by a signal");
        }
    }

    /// The capture queued next for `table` on `shard`, if any, starts.
    fn start_queued(&mut self, shard: &str, table: &str) {
        let Some(s) = self.shards.get_mut(shard) else {
            return;
        };
        let Some(i) = s.queued.iter().position(|c| c.table == table) else {
            return;
        };
        let c = s.queued.remove(i);
        match table_key(
            &self.options.keyspace,
            table,
            &self.key_names,
            &self.key_orders,
        ) {
            Ok(key) => {
                tracing::info!(table = %table, shard = %shard, filter = ?c.filter, "queued capture started");
                s.tables.insert(
                    c.table,
                    TableState::new(c.filter, Arc::new(key), ChunkRange::all()),
                );
            }
            Err(e) => {
                tracing::warn!(table = %table, shard = %shard, "queued capture dropped: {}", e.message)
            }
        }
    }

    /// Hands out the merged chunks of `shard`, in slices, each followed by a mark.
    fn emit_ready(&mut self, shard: &str, out: &mut Vec<Event>) -> Result<()> {
        let ready: Vec<ReadyChunk> = match self.shards.get_mut(shard) {
            Some(s) => s.merge.take_ready(),
            None => return Ok(()),
        };
        for chunk in ready {
            let table = chunk.table.clone();
            let st = self.table_mut(shard, &table);
            st.unmerged -= 1;
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
            st.emitted = match chunk.range.through.clone() {
                Some(k) => Some(ChunkRange::after(k)),
                None => chunk.range.next_level(),
            };
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

    /// Recomputes what remains on `shard` (chunks and rows done are counted as they are emitted).
    fn update_progress(&mut self, shard: &str) {
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

    fn position(&self, shard: &str) -> ShardPosition {
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

/// The capture key of `table`: its primary-key columns in MySQL's order.
fn table_key(
    keyspace: &str,
    table: &str,
    names: &BTreeMap<String, Vec<String>>,
    orders: &TableKeyOrders,
) -> Result<TableKey> {
    let order = orders.get(table).cloned().unwrap_or_else(|| {
        Err(crate::keyorder::Inexact {
            column: String::new(),
            reason: "the table has no primary key".into(),
        })
    });
    TableKey::new(
        &format!("{keyspace}.{table}"),
        names.get(table).cloned().unwrap_or_default(),
        order,
    )
}

/// Makes the log stream read the signal table (it is never handed out), after checking it exists.
async fn select_signal_table(
    client: &VtgateClient,
    options: &mut StreamOptions,
    signal: &str,
) -> Result<()> {
    let ks = &options.keyspace;
    let info = client.describe_keyspace(ks).await?;
    if !info.tables.iter().any(|(t, _)| t == signal) {
        return Err(Error::config(format!(
            "the signal table '{ks}.{signal}' does not exist — create it: CREATE TABLE {signal} (id VARCHAR(64) NOT NULL PRIMARY KEY, \
             type VARCHAR(32) NOT NULL, data TEXT) (and a vindex for it in a sharded keyspace; docs/snapshots.md, \"Signals\")"
        ))
        .with_code(ErrorCode::UnknownTable));
    }
    if options.tables.iter().any(|t| t == signal) {
        return Err(Error::config(format!(
            "the signal table '{signal}' is also listed among the tables — it carries requests, not data: remove it from the tables"
        ))
        .with_code(ErrorCode::InvalidOption));
    }
    if !options.tables.is_empty() || !options.table_patterns.is_empty() {
        options.table_patterns.push(regex::escape(signal));
    }
    Ok(())
}

/// For a chunk refused because its tablet does not know the table: the fix. A non-primary
/// vttablet learns a new table at its next schema reload (every 30 minutes by default), so a
/// table created moments ago fails there until then.
fn unknown_table_hint(e: &Error, keyspace: &str, tablet_type: TabletType) -> Option<String> {
    (tablet_type != TabletType::Primary && e.message.contains("not present in the database")).then(
        || {
            format!(
                "a new table is unknown to a non-primary tablet until its schema reloads: run \
                 `vtctldclient ReloadSchemaKeyspace {keyspace}`, or wait for the tablets' \
                 --queryserver-config-schema-reload-time"
            )
        },
    )
}

fn parse_position(p: &ShardPosition) -> Result<GtidSet> {
    GtidSet::parse(&p.gtid).map_err(|e| Error::from(e).with_code(ErrorCode::InvalidPosition))
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

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod hint_tests {
    use super::*;

    #[test]
    fn a_table_unknown_to_a_replica_names_the_reload() {
        let refused = Error::retryable(
            "target: commerce.0.replica: vttablet: rpc error: code = Unknown desc = table t is not present in the database",
        );
        let hint = unknown_table_hint(&refused, "commerce", TabletType::Replica).expect("a hint");
        assert!(
            hint.contains("vtctldclient ReloadSchemaKeyspace commerce"),
            "{hint}"
        );
        assert_eq!(
            unknown_table_hint(&refused, "commerce", TabletType::Primary),
            None
        );
        let other = Error::retryable("connection reset");
        assert_eq!(
            unknown_table_hint(&other, "commerce", TabletType::Rdonly),
            None
        );
    }
}
