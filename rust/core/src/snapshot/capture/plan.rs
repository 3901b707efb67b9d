// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! What a capture stream captures and where each capture starts: the captures asked for, the
//! ones saved in positions (resumed at their cursor, or queued behind a running one), checked
//! against the tables the log selects and their primary keys.

use super::positions::parse_position;
use super::progress::ShardProgress;
use super::signals::select_signal_table;
use super::{run_log, CaptureStream, ShardState, TableState};
use crate::client::VtgateClient;
use crate::error::{Error, ErrorCode, Result};
use crate::keyorder::TableKeyOrders;
use crate::metrics::Metrics;
use crate::options::{InitialSnapshot, SnapshotOptions, StartMode, StreamOptions};
use crate::position::TableSnapshot;
use crate::snapshot::key::{decode_key, ChunkRange, TableKey};
use crate::snapshot::merge::ShardMerge;
use crate::stream::EventStream;
use crate::supervise::{self, Task};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::mpsc;

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
        if snap.chunk_rows == 0
            || snap.chunk_bytes == 0
            || snap.chunks_in_flight == 0
            || snap.lanes == 0
        {
            return Err(Error::config(
                "chunk rows, chunk bytes, chunks in flight and lanes must be at least 1",
            )
            .with_code(ErrorCode::InvalidOption));
        }
        if options.follow_reshard {
            // Each shard's merge belongs to that shard: a shard that reaches a reshard journal
            // ends with its captures' cursors in its final mark (mod.rs), and its consumer
            // starts the new shards with them (crate::snapshot::carry).
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
                            until: None,
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
                    throttle_held: false,
                    throttled_since: None,
                    throttle_check_failed: false,
                    ended: false,
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
        let throttle = match &snap.throttler {
            Some(t) => Some(super::throttle::ThrottleWatch::start(
                t,
                &options.keyspace,
                options.tls.as_ref(),
                options.connect_timeout,
            )?),
            None => None,
        };
        let tablets = match &snap.tablets_vtctld {
            Some(vtctld) => Some(Arc::new(crate::snapshot::tablets::TabletDirectory::new(
                super::throttle::vtctld_client(
                    vtctld,
                    options.tls.as_ref(),
                    options.connect_timeout,
                    "reading chunks from tablets",
                )?,
                vtctld,
                options.connect_timeout,
            ))),
            None => None,
        };
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
            primary_chunks: Default::default(),
            key_names: names,
            key_orders: orders,
            client,
            selected: matched,
            held: Vec::new(),
            keys_refreshed: false,
            relay_due: None,
            relayed: None,
            signals_elsewhere: Default::default(),
            throttle,
            signal_id_chars: None,
            tablets,
            vtgate_chunks: Default::default(),
            unreached: BTreeMap::new(),
        };
        for shard in stream.shards.keys().cloned().collect::<Vec<_>>() {
            stream.update_progress(&shard);
        }
        tracing::info!(tables = ?wanted.keys().collect::<Vec<_>>(), shards = ?shard_names, "chunked snapshot planned");
        Ok(stream)
    }
}

/// The capture key of `table`: its primary-key columns in MySQL's order.
pub(super) fn table_key(
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
