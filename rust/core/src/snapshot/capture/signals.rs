// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Acting on the requests of the signal table ([`crate::snapshot::signal`] reads them): start,
//! queue or stop captures, pause and resume them (also callable directly), each before anything
//! after the signal in the log is handed out.

use super::plan::{table_key, Capture};
use super::{CaptureStream, SignalElsewhere, TableState};
use crate::client::VtgateClient;
use crate::error::{Error, ErrorCode, Result};
use crate::event::{Event, RowKind};
use crate::options::StreamOptions;
use crate::snapshot::key::ChunkRange;
use crate::snapshot::signal::{is_shard_row, signal_id, Signal, SignalError};
use std::sync::Arc;

impl CaptureStream {
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
    pub(super) fn set_paused(&mut self, shard: &str, paused: bool) {
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

    pub(super) fn is_signal_table(&self, table: &str) -> bool {
        self.snap.signal_table.as_deref() == Some(table)
    }

    /// The signal `event` carries, with its shard and its row's id: an insert into the signal
    /// table read from the log (rows the in-stream copy reads are old signals, not requests).
    pub(super) fn signal_in(&self, event: &Event) -> Option<SignalRow> {
        let Event::Change(c) = event else {
            return None;
        };
        if !self.is_signal_table(&c.schema.table) {
            return None;
        }
        let signal = if c.kind != RowKind::Insert || c.is_snapshot {
            // Not a request; still never handed out (the table is not one of the data tables).
            Ok(Signal::Ignored)
        } else {
            Signal::from_row(&self.options.keyspace, &c.schema, &c.values)
        };
        Some(SignalRow {
            shard: c.schema.shard.clone(),
            id: Signal::row_id(&c.schema, &c.values),
            signal,
        })
    }

    /// Whether `signal` names a table whose primary key this stream has not read.
    pub(super) fn needs_keys(&self, signal: &std::result::Result<Signal, SignalError>) -> bool {
        match signal {
            Ok(Signal::Execute(captures)) => captures
                .iter()
                .any(|c| !self.key_names.contains_key(&c.table)),
            _ => false,
        }
    }

    pub(super) async fn refresh_keys(&mut self) -> Result<()> {
        self.key_names = self
            .client
            .primary_key_columns(&self.options.keyspace)
            .await?;
        self.key_orders = self.client.key_orders(&self.options.keyspace).await?;
        self.keys_refreshed = true;
        Ok(())
    }

    /// Acts on a signal read from its shard's log, before anything after it is handed out.
    pub(super) fn apply_signal(&mut self, row: SignalRow) {
        let SignalRow { shard, id, signal } = row;
        let shard = shard.as_str();
        if !self.shards.contains_key(shard) {
            return;
        }
        let written_here = !is_shard_row(&id, shard);
        let id = signal_id(&id, shard);
        let outcome = match signal {
            Ok(Signal::Ignored) => return,
            Ok(Signal::Execute(captures)) => self.execute_signal(shard, id, written_here, captures),
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
            Err(e) => Err(Refusal::Invalid(e.to_string())),
        };
        let progress = &mut self.shards.get_mut(shard).expect("shard").progress;
        match outcome {
            Ok(()) => progress.signals += 1,
            Err(Refusal::NothingRead(reason))
                if !written_here || self.snap.signal_tables_checked_by_caller =>
            {
                // Reported once by the stream that read the signal where it was written (a copy
                // of it on every shard would say the same many times over), or by the caller,
                // which knows the tables of all its streams.
                tracing::info!(shard = %shard, signal = %id, "{reason}");
            }
            Err(Refusal::NothingRead(reason) | Refusal::Invalid(reason)) => {
                progress.signals_rejected += 1;
                tracing::warn!(shard = %shard, signal = %id, signal_table = ?self.snap.signal_table, "{reason}");
            }
        }
        self.update_progress(shard);
    }

    /// Starts (or queues behind a running one) a capture of each table of the signal this
    /// stream reads; the others are left to the streams that read them (a Flink job has a
    /// stream per SQL table). Every table this stream reads is checked first, so a signal with a
    /// table it cannot capture changes nothing; one naming no table it reads is refused.
    pub(super) fn execute_signal(
        &mut self,
        shard: &str,
        id: &str,
        written_here: bool,
        captures: Vec<Capture>,
    ) -> std::result::Result<(), Refusal> {
        let mut planned = Vec::with_capacity(captures.len());
        let mut elsewhere = Vec::new();
        for c in captures {
            let selected = self.selected.contains(&c.table)
                || self
                    .schemas
                    .contains_key(&(shard.to_string(), c.table.clone()));
            if !selected || self.is_signal_table(&c.table) {
                elsewhere.push(c.table);
                continue;
            }
            let key = table_key(
                &self.options.keyspace,
                &c.table,
                &self.key_names,
                &self.key_orders,
            )
            .map_err(|e| {
                Refusal::Invalid(format!(
                    "table '{}' cannot be captured: {}",
                    c.table, e.message
                ))
            })?;
            planned.push((c, Arc::new(key)));
        }
        if written_here && !elsewhere.is_empty() {
            if self.signals_elsewhere.len() == ELSEWHERE_KEPT {
                self.signals_elsewhere.pop_front();
            }
            self.signals_elsewhere.push_back(SignalElsewhere {
                id: id.to_string(),
                tables: elsewhere.clone(),
            });
        }
        if planned.is_empty() {
            return Err(Refusal::NothingRead(format!(
                "signal '{id}': execute-snapshot names {}, which this stream does not read (it reads: {}) — \
                 name the tables of the job's sources (a table no source reads is a typo or another keyspace's)",
                quoted(&elsewhere),
                self.selected.join(", ")
            )));
        }
        if !elsewhere.is_empty() {
            tracing::info!(shard = %shard, signal = %id, "signal also names {}, which this stream does not read: \
                           the job's other sources capture them", quoted(&elsewhere));
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
    pub(super) fn stop_captures(&mut self, shard: &str, tables: &[String]) {
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
            self.reading -= st.reading();
            tracing::info!(table = %table, shard = %shard, rows = st.rows, "capture stopped by a signal");
        }
    }

    /// The capture queued next for `table` on `shard`, if any, starts.
    pub(super) fn start_queued(&mut self, shard: &str, table: &str) {
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
}

/// How many of the last signals naming tables the stream does not read its progress keeps.
pub(super) const ELSEWHERE_KEPT: usize = 32;

/// Why a signal changed nothing.
pub(super) enum Refusal {
    /// It names no table this stream reads (maybe one another source of the job reads).
    NothingRead(String),
    /// It cannot be carried out (unparsable, or a table without a usable key).
    Invalid(String),
}

/// A row of the signal table read from the log: its shard, its id and what it asks.
pub(super) struct SignalRow {
    pub shard: String,
    pub id: String,
    pub signal: std::result::Result<Signal, SignalError>,
}

fn quoted(tables: &[String]) -> String {
    tables
        .iter()
        .map(|t| format!("'{t}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Makes the log stream read the signal table (it is never handed out), after checking it exists.
pub(super) async fn select_signal_table(
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
