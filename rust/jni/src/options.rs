// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Stream options as JSON: what Java passes to `NativeStream.open`.
//!
//! Field names are the snake_case names of `vitess_cdc_core::StreamOptions`; durations carry a
//! unit suffix (`_ms`). Only `address` and `keyspace` are required; every other field defaults to
//! the core's default (`vitess_cdc_core::options::defaults`, tabled in docs/options.md; the values
//! below are examples). Unknown fields are an error, so a typo fails loudly.
//!
//! ```json
//! {
//!   "address": "127.0.0.1:15991",          "keyspace": "commerce",
//!   "shards": ["-80"],                      "tables": ["customer"],  "table_patterns": ["^corder_.*"],
//!   "columns": ["id", "name"],              (only for `tables`: the VStream filter's column list)
//!   "row_filter": "`id` >= 3",               (only for `tables`: the VStream filter's WHERE clause)
//!   "start_mode": "initial | latest | snapshot_only | positions",
//!   "start_positions": {"shards": [{"keyspace": "commerce", "shard": "0", "gtid": "MySQL56/..."}]},
//!   "tablet_type": "primary | replica | rdonly",   "cells": "zone1",
//!   "username": "u", "password": "p",   "auth_mode": "static | basic",   (basic: PlanetScale)
//!   "tls": {"ca_cert_path": "...", "client_cert_path": "...", "client_key_path": "...", "server_name": "..."},
//!   "connect_timeout_ms": 10000, "max_message_bytes": 1048576, "keepalive_interval_ms": 20000,
//!   "heartbeat_interval_secs": 1, "transaction_chunk_bytes": 0,
//!   "include_reshard_journal_events": true, "stop_on_reshard": false, "buffer_bytes": 8388608,
//!   "retry_initial_backoff_ms": 100, "retry_max_backoff_ms": 5000, "retry_max_attempts": 3,
//!   "idle_timeout_ms": 30000, "allow_tables_without_primary_key": false,
//!   "initial_snapshot": "copy | chunked",   (docs/snapshots.md)
//!   "destructive_ddl": "fail | continue",   (docs/reliability.md)
//!   "log_label": "Source: orders (1/2)",    (named in every log line of the stream)
//!   "captures": [{"table": "customer", "filter": "`customer_id` >= 100", "shards": ["-80"]}],
//!   "snapshot_chunk_rows": 50000, "snapshot_chunk_bytes": 16777216, "snapshot_chunks_in_flight": 4,
//!   "snapshot_lanes": 4,
//!   "snapshot_tablet_type": "replica",
//!   "signal_table": "vitess_cdc_signal",     (signals read from the log: docs/snapshots.md)
//!   "signal_tables_checked_by_job": true,    (a signal naming no table of this stream is the job's to report)
//!   "throttler_vtctld": "127.0.0.1:15999",   (ask the tablet throttler before each chunk: docs/snapshots.md)
//!   "snapshot_tablets_vtctld": "127.0.0.1:15999", (read chunks from the tablets directly)
//!   "throttler_app": "vitess-cdc",
//!   "flink_rows": {"fields": [{"name": "id", "type": {"root": "BIGINT"}},
//!                             {"name": "price", "type": {"root": "DECIMAL", "precision": 10, "scale": 2}}],
//!                  "metadata": ["table_name", "op_ts"], "upsert": false},
//!                                          (records as Flink rows: docs/batch-format.md, "Flink rows")
//!   "json_rows": true                      (or records with Debezium JSON rows: "JSON rows")
//! }
//! ```
//!
//! Several keyspaces in one stream (docs/positions.md, "Several keyspaces") replace `keyspace`,
//! `shards`, `tables` and `table_patterns` with one entry per keyspace; every other field applies
//! to each, start positions go to the keyspace they name, and each capture names its keyspace:
//!
//! ```json
//! { "address": "127.0.0.1:15991",
//!   "keyspaces": [{"keyspace": "customer", "shards": ["-80"], "tables": ["corder"]},
//!                 {"keyspace": "commerce", "tables": ["product"], "table_patterns": []}],
//!   "captures": [{"keyspace": "commerce", "table": "product"}] }
//! ```
//!
//! Where to resume comes in one of two ways. The Flink source passes `start_mode = positions`
//! without `start_positions` and hands the positions to `nativeOpen` as a second argument, one
//! `byte[]` per shard in the core's binary form (what its splits and checkpoints hold): nothing
//! between a checkpoint and the core re-encodes them. Tools and tests may instead give
//! `start_positions` as JSON, either the object `positionsJson()` returns or a bare array of
//! shard positions (the VGTID shape: `keyspace`, `shard`, `gtid`, `table_p_ks`); giving it
//! implies `start_mode = positions`. Both at once is an error.
//!
//! A stream opens with chunked snapshots beside its log (`snapshot::CaptureStream`) when it has
//! `captures` or a `signal_table`, when it starts `initial` with `initial_snapshot = chunked`, or when a start
//! position carries a capture's cursor (a checkpoint taken mid-capture): the batches are the same,
//! snapshot rows come as row kind 4 (SNAPSHOT_READ).

use serde::Deserialize;
use std::time::Duration;
use vitess_cdc_core::blocking::KeyspacePart;
use vitess_cdc_core::handoff::flink_row::RowLayout;
use vitess_cdc_core::keyspaces::{per_keyspace, KeyspaceSelection};
use vitess_cdc_core::options::{AuthMode, TabletType, ThrottlerOptions, TlsOptions};
use vitess_cdc_core::snapshot::Capture;
use vitess_cdc_core::{
    DestructiveDdl, Error, ErrorCode, InitialSnapshot, Result, ShardPosition, SnapshotOptions,
    StartMode, StreamOptions, StreamPosition,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionsJson {
    pub address: String,
    #[serde(default)]
    pub keyspace: String,
    /// Several keyspaces, each with its selection (instead of `keyspace`, `shards`, `tables`,
    /// `table_patterns`).
    #[serde(default)]
    pub keyspaces: Vec<KeyspaceJson>,
    #[serde(default)]
    pub shards: Vec<String>,
    #[serde(default)]
    pub tables: Vec<String>,
    #[serde(default)]
    pub table_patterns: Vec<String>,
    #[serde(default)]
    pub columns: Vec<String>,
    pub row_filter: Option<String>,
    pub allow_tables_without_primary_key: Option<bool>,
    pub start_mode: Option<String>,
    pub start_positions: Option<PositionsJson>,
    pub tablet_type: Option<String>,
    pub cells: Option<String>,
    pub username: Option<String>,
    pub auth_mode: Option<String>,
    pub password: Option<String>,
    pub tls: Option<TlsJson>,
    pub connect_timeout_ms: Option<u64>,
    pub max_message_bytes: Option<usize>,
    pub keepalive_interval_ms: Option<u64>,
    pub heartbeat_interval_secs: Option<u32>,
    pub transaction_chunk_bytes: Option<i64>,
    pub include_reshard_journal_events: Option<bool>,
    pub stop_on_reshard: Option<bool>,
    pub buffer_bytes: Option<usize>,
    pub retry_initial_backoff_ms: Option<u64>,
    pub retry_max_backoff_ms: Option<u64>,
    pub retry_max_attempts: Option<u32>,
    pub idle_timeout_ms: Option<u64>,
    /// `copy` (the in-stream VStream copy) or `chunked` (docs/snapshots.md).
    pub initial_snapshot: Option<String>,
    /// `fail` or `continue`: DDL that takes a selected table's rows away or changes its key.
    pub destructive_ddl: Option<String>,
    /// The consumer's name for the stream (a Flink operator and subtask), in its log lines.
    pub log_label: Option<String>,
    /// Tables to capture in chunks beside the log when the stream opens (besides those the start
    /// positions are capturing already).
    #[serde(default)]
    pub captures: Vec<CaptureJson>,
    pub snapshot_chunk_rows: Option<usize>,
    pub snapshot_chunk_bytes: Option<usize>,
    pub snapshot_chunks_in_flight: Option<usize>,
    pub snapshot_lanes: Option<usize>,
    /// vtctld's gRPC address: chunks are read from the tablets it lists, not through VTGate.
    pub snapshot_tablets_vtctld: Option<String>,
    pub snapshot_tablet_type: Option<String>,
    pub signal_table: Option<String>,
    /// The job checks the tables a signal names against all of its sources (the enumerators do):
    /// a stream leaves it to them.
    pub signal_tables_checked_by_job: Option<bool>,
    /// vtctld's gRPC address: no chunk starts on a shard whose throttler refuses `throttler_app`.
    pub throttler_vtctld: Option<String>,
    pub throttler_app: Option<String>,
    /// The SQL table's declared row: records come as rows in Flink's binary layout
    /// (docs/batch-format.md, "Flink rows").
    pub flink_rows: Option<RowLayout>,
    /// Records come with their rows as Debezium JSON objects (docs/batch-format.md, "JSON rows").
    pub json_rows: Option<bool>,
}

/// One keyspace of a stream of several, with what it reads there.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyspaceJson {
    pub keyspace: String,
    #[serde(default)]
    pub shards: Vec<String>,
    #[serde(default)]
    pub tables: Vec<String>,
    #[serde(default)]
    pub table_patterns: Vec<String>,
}

/// One table to capture: `{"table": "t"}` or `{"table": "t", "filter": "`id` >= 10"}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureJson {
    /// The table's keyspace: required when the stream reads several, else the stream's.
    pub keyspace: Option<String>,
    pub table: String,
    pub filter: Option<String>,
    /// Only on these shards (empty: every shard of the stream).
    #[serde(default)]
    pub shards: Vec<String>,
}

/// What `nativeOpen` opens: the stream of each keyspace (one, unless `keyspaces` lists several),
/// and the chunked snapshots beside them.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    pub parts: Vec<KeyspacePart>,
    pub snapshot: SnapshotOptions,
    /// Records as rows in Flink's binary layout, for the consumer's declared row.
    pub flink_rows: Option<RowLayout>,
    /// Records with their rows as Debezium JSON objects.
    pub json_rows: bool,
}

/// `{"shards": [...]}` (what `positionsJson()` returns) or a bare array of shard positions.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum PositionsJson {
    Stream(StreamPosition),
    Shards(Vec<ShardPosition>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsJson {
    pub ca_cert_path: Option<String>,
    pub client_cert_path: Option<String>,
    pub client_key_path: Option<String>,
    pub server_name: Option<String>,
}

/// Parses the JSON of one keyspace and applies it over the core's defaults (key orders, start
/// plans and estimates are asked per keyspace).
pub fn parse(json: &str) -> Result<StreamOptions> {
    let mut parts = parse_with_start(json, Vec::new())?.parts;
    if parts.len() != 1 {
        return Err(Error::config(format!(
            "these options name {} keyspaces; this call takes the options of one keyspace at a time",
            parts.len()
        ))
        .with_code(ErrorCode::InvalidOption));
    }
    Ok(parts.remove(0).options)
}

/// [`parse`], with start positions given apart from the JSON (`NativeStream.open`'s `byte[][]`,
/// decoded): a non-empty `positions` implies `start_mode = positions`, like `start_positions`,
/// and giving both is an error.
pub fn parse_with_start(json: &str, positions: Vec<ShardPosition>) -> Result<OpenOptions> {
    let o: OptionsJson = serde_json::from_str(json)
        .map_err(|e| {
            let field = field_before(json, e.line(), e.column())
                .map(|f| format!(" in field `{f}`"))
                .unwrap_or_default();
            Error::config(format!(
            "invalid stream options JSON{field}: {e} (see docs/native-bridge.md for the fields)"
        ))
        })
        .map_err(|e| e.with_code(ErrorCode::InvalidOption))?;
    o.into_open_options(positions)
        .map_err(|e| e.or_code(ErrorCode::InvalidOption))
}

fn capture(c: CaptureJson) -> Capture {
    Capture {
        table: c.table,
        filter: c.filter.filter(|f| !f.trim().is_empty()),
        shards: c.shards,
    }
}

fn tablet_type(field: &str, value: &str) -> Result<TabletType> {
    match value.to_ascii_lowercase().as_str() {
        "primary" | "master" => Ok(TabletType::Primary),
        "replica" => Ok(TabletType::Replica),
        "rdonly" => Ok(TabletType::Rdonly),
        other => Err(Error::config(format!(
            "stream option `{field}` is `{other}`: use primary, replica or rdonly"
        ))),
    }
}

/// The last object key that starts before `line:column` (1-based, as serde_json reports), so a
/// type error names the option it is about (serde_json's message gives only the position).
fn field_before(json: &str, line: usize, column: usize) -> Option<String> {
    let line_start: usize = json
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let end = (line_start + column).min(json.len());
    let head = json.get(..end)?;
    let colon = head.rfind(':')?;
    let key_end = head[..colon].trim_end().strip_suffix('"')?;
    let key_start = key_end.rfind('"')?;
    Some(key_end[key_start + 1..].to_string())
}

impl OptionsJson {
    /// The stream's options and its captures with their chunk settings.
    pub fn into_open_options(mut self, positions: Vec<ShardPosition>) -> Result<OpenOptions> {
        let flink_rows = self.flink_rows.take();
        let json_rows = self.json_rows.unwrap_or(false);
        if json_rows && flink_rows.is_some() {
            return Err(Error::config(
                "stream options `flink_rows` and `json_rows` both ask for the records' rows: \
                 give one",
            ));
        }
        let mut snapshot = SnapshotOptions::default();
        if let Some(v) = self.snapshot_chunk_rows {
            snapshot.chunk_rows = v;
        }
        if let Some(v) = self.snapshot_chunk_bytes {
            snapshot.chunk_bytes = v;
        }
        if let Some(v) = self.snapshot_chunks_in_flight {
            snapshot.chunks_in_flight = v;
        }
        if let Some(v) = self.snapshot_lanes {
            snapshot.lanes = v;
        }
        snapshot.tablets_vtctld = self
            .snapshot_tablets_vtctld
            .take()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        snapshot.signal_table = self.signal_table.take().filter(|t| !t.trim().is_empty());
        snapshot.signal_tables_checked_by_caller =
            self.signal_tables_checked_by_job.unwrap_or(false);
        if let Some(t) = self.snapshot_tablet_type.take() {
            snapshot.tablet_type = tablet_type("snapshot_tablet_type", &t)?;
        }
        let app = self.throttler_app.take();
        match self.throttler_vtctld.take().filter(|v| !v.trim().is_empty()) {
            Some(vtctld) => {
                let mut throttler = ThrottlerOptions::new(vtctld);
                if let Some(app) = app {
                    throttler.app = app;
                }
                snapshot.throttler = Some(throttler);
            }
            None if app.is_some() => {
                return Err(Error::config(
                    "throttler_app is set but throttler_vtctld is not: the throttler is asked through vtctld — \
                     give its gRPC address too",
                )
                .with_code(ErrorCode::InvalidOption))
            }
            None => {}
        }
        let captures = std::mem::take(&mut self.captures);
        let keyspaces = std::mem::take(&mut self.keyspaces);
        if keyspaces.is_empty() {
            let stream = self.into_options(positions)?;
            let mut part = KeyspacePart {
                options: stream,
                captures: Vec::new(),
            };
            for c in captures {
                if let Some(k) = c
                    .keyspace
                    .as_deref()
                    .filter(|k| *k != part.options.keyspace)
                {
                    return Err(Error::config(format!(
                        "capture of table `{}` names keyspace `{k}`, but the stream reads keyspace `{}`",
                        c.table, part.options.keyspace
                    )));
                }
                part.captures.push(capture(c));
            }
            return Ok(OpenOptions {
                parts: vec![part],
                snapshot,
                flink_rows,
                json_rows,
            });
        }
        if !self.keyspace.is_empty()
            || !self.shards.is_empty()
            || !self.tables.is_empty()
            || !self.table_patterns.is_empty()
        {
            return Err(Error::config(
                "stream options give `keyspaces` and also `keyspace`, `shards`, `tables` or `table_patterns`: \
                 with several keyspaces, each entry of `keyspaces` names its own",
            ));
        }
        let selections: Vec<KeyspaceSelection> = keyspaces
            .into_iter()
            .map(|k| KeyspaceSelection {
                keyspace: k.keyspace,
                shards: k.shards,
                tables: k.tables,
                table_patterns: k.table_patterns,
            })
            .collect();
        if let Some(first) = selections.first() {
            self.keyspace = first.keyspace.clone();
        }
        let names: Vec<String> = selections.iter().map(|s| s.keyspace.clone()).collect();
        // The names' own checks (empty, twice) before they are used.
        vitess_cdc_core::keyspaces::select(&names, &[], &[])?;
        let base = self.into_options(positions)?;
        let mut parts: Vec<KeyspacePart> = per_keyspace(&base, &selections)?
            .into_iter()
            .map(|options| KeyspacePart {
                options,
                captures: Vec::new(),
            })
            .collect();
        for c in captures {
            let Some(k) = c.keyspace.clone() else {
                return Err(Error::config(format!(
                    "capture of table `{}` names no keyspace: a stream of several keyspaces needs \
                     `keyspace` in each capture",
                    c.table
                )));
            };
            let Some(part) = parts.iter_mut().find(|p| p.options.keyspace == k) else {
                return Err(Error::config(format!(
                    "capture of table `{}` names keyspace `{k}`, which the stream does not read ({})",
                    c.table,
                    names.join(", ")
                )));
            };
            part.captures.push(capture(c));
        }
        Ok(OpenOptions {
            parts,
            snapshot,
            flink_rows,
            json_rows,
        })
    }

    pub fn into_options(self, positions: Vec<ShardPosition>) -> Result<StreamOptions> {
        if self.address.trim().is_empty() {
            return Err(Error::config(
                "stream option `address` is empty: set it to VTGate's gRPC address, e.g. 127.0.0.1:15991",
            ));
        }
        if self.keyspace.trim().is_empty() {
            return Err(Error::config(
                "stream option `keyspace` is empty: name the Vitess keyspace to stream (or several, in `keyspaces`)",
            ));
        }
        let mut opts = StreamOptions::new(self.address, self.keyspace);
        opts.shards = self.shards;
        opts.tables = self.tables;
        opts.table_patterns = self.table_patterns;
        opts.columns = self.columns;
        opts.row_filter = self.row_filter;
        if let Some(v) = self.allow_tables_without_primary_key {
            opts.allow_tables_without_primary_key = v;
        }
        if !positions.is_empty() && self.start_positions.is_some() {
            return Err(Error::config(
                "start positions are given twice, as bytes to open and as the stream option `start_positions`: \
                 drop one",
            ));
        }
        if let Some(m) = self
            .start_mode
            .as_deref()
            .filter(|m| !positions.is_empty() && !m.eq_ignore_ascii_case("positions"))
        {
            return Err(Error::config(format!(
                "stream option `start_mode` is `{m}` but start positions are given to open: use start_mode \
                 `positions` (or leave it out)"
            )));
        }
        let start_positions = if positions.is_empty() {
            self.start_positions
        } else {
            Some(PositionsJson::Shards(positions))
        };
        opts.start = start_mode(self.start_mode.as_deref(), start_positions)?;
        if let Some(t) = self.tablet_type {
            opts.tablet_type = tablet_type("tablet_type", &t)?;
        }
        if let Some(m) = self.initial_snapshot {
            opts.initial_snapshot = match m.to_ascii_lowercase().as_str() {
                "copy" => InitialSnapshot::Copy,
                "chunked" => InitialSnapshot::Chunked,
                other => {
                    return Err(Error::config(format!(
                        "stream option `initial_snapshot` is `{other}`: use copy or chunked"
                    )))
                }
            };
        }
        if let Some(d) = self.destructive_ddl {
            opts.destructive_ddl = match d.to_ascii_lowercase().as_str() {
                "fail" => DestructiveDdl::Fail,
                "continue" => DestructiveDdl::Continue,
                other => {
                    return Err(Error::config(format!(
                        "stream option `destructive_ddl` is `{other}`: use fail or continue"
                    ))
                    .with_code(ErrorCode::InvalidOption))
                }
            };
        }
        opts.log_label = self.log_label;
        opts.cells = self.cells;
        opts.username = self.username;
        if let Some(mode) = self.auth_mode {
            opts.auth_mode = AuthMode::parse(&mode).ok_or_else(|| {
                Error::config(format!(
                    "stream option `auth_mode` is `{mode}`: use static (Vitess's static auth) or basic (PlanetScale)"
                ))
                .with_code(ErrorCode::InvalidOption)
            })?;
        }
        opts.password = self.password;
        opts.tls = self.tls.map(|t| TlsOptions {
            ca_cert_path: t.ca_cert_path,
            client_cert_path: t.client_cert_path,
            client_key_path: t.client_key_path,
            server_name: t.server_name,
        });
        let ms = Duration::from_millis;
        if let Some(v) = self.connect_timeout_ms {
            opts.connect_timeout = ms(v);
        }
        if let Some(v) = self.max_message_bytes {
            opts.max_message_bytes = v;
        }
        if let Some(v) = self.keepalive_interval_ms {
            opts.keepalive_interval = ms(v);
        }
        if let Some(v) = self.heartbeat_interval_secs {
            opts.heartbeat_interval_secs = v;
        }
        if let Some(v) = self.transaction_chunk_bytes {
            opts.transaction_chunk_bytes = v;
        }
        if let Some(v) = self.include_reshard_journal_events {
            opts.include_reshard_journal_events = v;
        }
        if let Some(v) = self.stop_on_reshard {
            opts.stop_on_reshard = v;
        }
        if let Some(v) = self.buffer_bytes {
            opts.buffer_bytes = v;
        }
        if let Some(v) = self.retry_initial_backoff_ms {
            opts.retry_initial_backoff = ms(v);
        }
        if let Some(v) = self.retry_max_backoff_ms {
            opts.retry_max_backoff = ms(v);
        }
        if let Some(v) = self.retry_max_attempts {
            opts.retry_max_attempts = v;
        }
        if let Some(v) = self.idle_timeout_ms {
            opts.idle_timeout = ms(v);
        }
        Ok(opts)
    }
}

fn start_mode(mode: Option<&str>, positions: Option<PositionsJson>) -> Result<StartMode> {
    let positions = positions.map(|p| match p {
        PositionsJson::Stream(s) => s.shards,
        PositionsJson::Shards(v) => v,
    });
    let mode = mode.map(str::to_ascii_lowercase);
    match (mode.as_deref(), positions) {
        (None | Some("positions"), Some(p)) if !p.is_empty() => Ok(StartMode::Positions(p)),
        (Some("positions"), _) => Err(Error::config(
            "stream option `start_mode` is `positions` but `start_positions` is missing or empty: \
             pass the JSON that positionsJson() returned",
        )),
        (None | Some("initial"), _) => Ok(StartMode::Initial),
        (Some("latest"), None) => Ok(StartMode::Latest),
        (Some("snapshot_only" | "snapshot-only"), None) => Ok(StartMode::SnapshotOnly),
        (Some(m @ ("latest" | "snapshot_only" | "snapshot-only")), Some(_)) => Err(Error::config(
            format!("stream option `start_mode` is `{m}` but `start_positions` is also given: drop one"),
        )),
        (Some(other), _) => Err(Error::config(format!(
            "stream option `start_mode` is `{other}`: use initial, latest, snapshot_only or positions"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vitess_cdc_core::ErrorKind;

    #[test]
    fn minimal_options_take_core_defaults() {
        let o = parse(r#"{"address":"127.0.0.1:15991","keyspace":"commerce"}"#).unwrap();
        assert_eq!(o, StreamOptions::new("127.0.0.1:15991", "commerce"));
    }

    #[test]
    fn every_field_is_applied() {
        let o = parse(
            r#"{"address":"a:1","keyspace":"k","shards":["-80"],"tables":["t"],"table_patterns":["^x"],
                "start_mode":"latest","tablet_type":"REPLICA","cells":"zone1","username":"u","password":"p",
                "auth_mode":"Basic","tls":{"ca_cert_path":"/ca.pem"},"connect_timeout_ms":1500,"max_message_bytes":1024,
                "keepalive_interval_ms":2,"heartbeat_interval_secs":0,"transaction_chunk_bytes":0,
                "include_reshard_journal_events":false,"stop_on_reshard":true,"buffer_bytes":4096,
                "retry_initial_backoff_ms":3,"retry_max_backoff_ms":4,"retry_max_attempts":5,
                "idle_timeout_ms":6,"allow_tables_without_primary_key":true}"#,
        )
        .unwrap();
        assert_eq!(o.shards, vec!["-80"]);
        assert_eq!(o.start, StartMode::Latest);
        assert_eq!(o.tablet_type, TabletType::Replica);
        assert_eq!(o.auth_mode, AuthMode::Basic);
        assert_eq!(o.tls.unwrap().ca_cert_path.as_deref(), Some("/ca.pem"));
        assert_eq!(o.connect_timeout, Duration::from_millis(1500));
        assert_eq!(o.max_message_bytes, 1024);
        assert!(o.stop_on_reshard && !o.include_reshard_journal_events);
        assert!(o.allow_tables_without_primary_key);
        assert_eq!(o.retry_max_attempts, 5);
        assert_eq!(o.idle_timeout, Duration::from_millis(6));
    }

    #[test]
    fn positions_in_both_shapes() {
        let shard = r#"{"keyspace":"k","shard":"0","gtid":"MySQL56/x:1-2"}"#;
        for json in [
            format!(
                r#"{{"address":"a:1","keyspace":"k","start_positions":{{"shards":[{shard}]}}}}"#
            ),
            format!(r#"{{"address":"a:1","keyspace":"k","start_positions":[{shard}]}}"#),
        ] {
            match parse(&json).unwrap().start {
                StartMode::Positions(p) => assert_eq!(p[0].gtid, "MySQL56/x:1-2"),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn captures_and_chunk_settings() {
        let o = parse_with_start(
            r#"{"address":"a:1","keyspace":"k","initial_snapshot":"CHUNKED",
                "captures":[{"table":"t"},{"table":"u","filter":"`id` > 3"},{"table":"v","filter":" ","shards":["-80"]}],
                "snapshot_chunk_rows":10,"snapshot_chunk_bytes":2048,"snapshot_chunks_in_flight":2,
                "snapshot_lanes":3,"snapshot_tablets_vtctld":" v:15999 ",
                "snapshot_tablet_type":"rdonly","signal_table":"sig","signal_tables_checked_by_job":true,
                "throttler_vtctld":"v:15999","throttler_app":"cdc-orders"}"#,
            Vec::new(),
        )
        .unwrap();
        assert_eq!(
            o.parts[0].options.initial_snapshot,
            InitialSnapshot::Chunked
        );
        let captures: Vec<_> = o.parts[0]
            .captures
            .iter()
            .map(|c| (c.table.as_str(), c.filter.as_deref(), c.applies_to("80-")))
            .collect();
        assert_eq!(
            captures,
            vec![
                ("t", None, true),
                ("u", Some("`id` > 3"), true),
                ("v", None, false)
            ]
        );
        assert_eq!(
            o.snapshot,
            SnapshotOptions {
                chunk_rows: 10,
                chunk_bytes: 2048,
                chunks_in_flight: 2,
                lanes: 3,
                tablets_vtctld: Some("v:15999".into()),
                tablet_type: TabletType::Rdonly,
                signal_table: Some("sig".into()),
                signal_tables_checked_by_caller: true,
                throttler: Some(ThrottlerOptions {
                    vtctld: "v:15999".into(),
                    app: "cdc-orders".into(),
                }),
            }
        );
        let app_alone = parse_with_start(
            r#"{"address":"a:1","keyspace":"k","throttler_app":"x"}"#,
            Vec::new(),
        );
        assert!(
            app_alone.is_err_and(|e| e.message.contains("throttler_vtctld")),
            "an app without vtctld is refused"
        );
        let default_app = parse_with_start(
            r#"{"address":"a:1","keyspace":"k","throttler_vtctld":"v:1"}"#,
            Vec::new(),
        )
        .unwrap();
        assert_eq!(
            default_app.snapshot.throttler,
            Some(ThrottlerOptions::new("v:1"))
        );
        let plain = parse_with_start(r#"{"address":"a:1","keyspace":"k"}"#, Vec::new()).unwrap();
        assert_eq!(
            plain.parts[0].options.initial_snapshot,
            InitialSnapshot::Copy
        );
        assert!(plain.parts[0].captures.is_empty());
        assert_eq!(plain.snapshot, SnapshotOptions::default());
    }

    #[test]
    fn mistakes_are_configuration_errors_that_name_the_field() {
        for (json, needle) in [
            (r#"{"address":"a:1"}"#, "keyspace"),
            (r#"{"address":"a:1","keyspace":"k","adress":"x"}"#, "adress"),
            (r#"{"address":" ","keyspace":"k"}"#, "address"),
            (
                r#"{"address":"a:1","keyspace":"k","start_mode":"yesterday"}"#,
                "yesterday",
            ),
            (
                r#"{"address":"a:1","keyspace":"k","start_mode":"positions"}"#,
                "start_positions",
            ),
            (
                r#"{"address":"a:1","keyspace":"k","tablet_type":"leader"}"#,
                "leader",
            ),
            (
                r#"{"address":"a:1","keyspace":"k","auth_mode":"bearer"}"#,
                "auth_mode",
            ),
            (
                r#"{"address":"a:1","keyspace":"k","connect_timeout_ms":"10s"}"#,
                "connect_timeout_ms",
            ),
            (
                r#"{"address":"a:1","keyspace":"k","initial_snapshot":"lazy"}"#,
                "initial_snapshot",
            ),
            (
                r#"{"address":"a:1","keyspace":"k","snapshot_tablet_type":"leader"}"#,
                "snapshot_tablet_type",
            ),
            (
                r#"{"address":"a:1","keyspace":"k","captures":[{"tabel":"t"}]}"#,
                "tabel",
            ),
            ("not json", "invalid stream options JSON"),
        ] {
            let e = parse(json).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Config, "{json}");
            assert!(e.message.contains(needle), "{json}: {}", e.message);
        }
    }

    #[test]
    fn several_keyspaces_each_with_its_selection_positions_and_captures() {
        let json = r#"{"address":"a:1","heartbeat_interval_secs":2,
            "keyspaces":[{"keyspace":"customer","shards":["-80"],"tables":["corder"]},
                         {"keyspace":"commerce","tables":["product"]}],
            "captures":[{"keyspace":"commerce","table":"product"}]}"#;
        let shard = |keyspace: &str, shard: &str| ShardPosition {
            keyspace: keyspace.into(),
            shard: shard.into(),
            gtid: "MySQL56/u:1-3".into(),
            table_p_ks: Vec::new(),
            tables_to_copy: Vec::new(),
            copy_completed: true,
            snapshots: Vec::new(),
        };
        let o =
            parse_with_start(json, vec![shard("commerce", "0"), shard("customer", "-80")]).unwrap();
        assert_eq!(o.parts.len(), 2);
        let (customer, commerce) = (&o.parts[0], &o.parts[1]);
        assert_eq!(customer.options.keyspace, "customer");
        assert_eq!(customer.options.shards, vec!["-80"]);
        assert_eq!(customer.options.tables, vec!["corder"]);
        assert_eq!(customer.options.heartbeat_interval_secs, 2);
        assert!(customer.captures.is_empty());
        assert_eq!(commerce.options.keyspace, "commerce");
        assert_eq!(commerce.options.tables, vec!["product"]);
        assert_eq!(commerce.captures.len(), 1);
        match &commerce.options.start {
            StartMode::Positions(p) => assert_eq!(p.len(), 1, "{p:?}"),
            other => panic!("{other:?}"),
        }
        let e = parse(json).unwrap_err();
        assert!(
            e.message.contains("one keyspace at a time"),
            "{}",
            e.message
        );
    }

    #[test]
    fn several_keyspaces_refuse_a_mixed_form_and_captures_without_their_keyspace() {
        for (json, expected) in [
            (
                r#"{"address":"a:1","keyspace":"k","keyspaces":[{"keyspace":"customer"}]}"#,
                "also `keyspace`",
            ),
            (
                r#"{"address":"a:1","keyspaces":[{"keyspace":"a"},{"keyspace":"b"}],"captures":[{"table":"t"}]}"#,
                "names no keyspace",
            ),
            (
                r#"{"address":"a:1","keyspaces":[{"keyspace":"a"}],"captures":[{"keyspace":"c","table":"t"}]}"#,
                "does not read",
            ),
            (
                r#"{"address":"a:1","keyspaces":[{"keyspace":"a"},{"keyspace":"a"}]}"#,
                "named twice",
            ),
            (
                r#"{"address":"a:1","keyspace":"k","captures":[{"keyspace":"c","table":"t"}]}"#,
                "reads keyspace `k`",
            ),
        ] {
            let e = parse_with_start(json, Vec::new()).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidOption, "{json}");
            assert!(e.message.contains(expected), "{json}: {}", e.message);
        }
    }
}
