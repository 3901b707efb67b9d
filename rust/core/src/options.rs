// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Every knob of the core, with its default, in one place. Documented in docs/options.md.

use crate::position::ShardPosition;
use std::time::Duration;

/// The default of every knob, written once. `StreamOptions::new` applies them, the CLI's flags
/// show them (`vstream tail --help`), and docs/options.md's table is checked against them (the
/// CLI crate's `options_doc` test); the Java side's `VitessDefaults` is checked against the same
/// table, so a default changed in one place and not the others fails a test.
pub mod defaults {
    use std::time::Duration;

    /// VTGate's gRPC address of a local vttestserver; only the CLI defaults to it (Java and the
    /// native options require an address).
    pub const ADDRESS: &str = "127.0.0.1:15991";
    pub const ALLOW_TABLES_WITHOUT_PRIMARY_KEY: bool = false;
    /// Connecting to VTGate and its first response.
    pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
    /// At least VTGate's --grpc-max-message-size (16 MiB) plus framing.
    pub const MAX_MESSAGE_BYTES: usize = 17 * 1024 * 1024;
    /// VTGate refuses pings more often than every 10 s.
    pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(30);
    /// Seconds; 0 = off.
    pub const HEARTBEAT_INTERVAL_SECS: u32 = 5;
    /// Vitess v24+; 0 = off.
    pub const TRANSACTION_CHUNK_BYTES: i64 = 4 * 1024 * 1024;
    pub const INCLUDE_RESHARD_JOURNAL_EVENTS: bool = true;
    pub const STOP_ON_RESHARD: bool = false;
    pub const FOLLOW_RESHARD: bool = false;
    /// 16 MiB: a reader that falls behind the wire holds this much decoded data (its resident
    /// memory grows by about twice the budget); 16 MiB keeps a 1 GiB transaction's growth near
    /// 35 MiB at the throughput of 64 MiB (docs/benchmarks.md, "Huge transactions").
    pub const BUFFER_BYTES: usize = 16 * 1024 * 1024;
    pub const RETRY_INITIAL_BACKOFF: Duration = Duration::from_millis(200);
    pub const RETRY_MAX_BACKOFF: Duration = Duration::from_secs(10);
    pub const RETRY_MAX_ATTEMPTS: u32 = 10;
    pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    /// Chunked snapshots: rows one side stream reads before it is cut (the next chunk starts
    /// after its last key). Large enough that a chunk's fixed costs (tablet pick, table lock,
    /// snapshot, binlog position) stay small against its rows, small enough to buffer.
    pub const SNAPSHOT_CHUNK_ROWS: usize = 50_000;
    /// Chunked snapshots: bytes of decoded rows one chunk may buffer before it is cut.
    pub const SNAPSHOT_CHUNK_BYTES: usize = 16 * 1024 * 1024;
    /// Chunked snapshots: side streams reading at once (each holds a read view on its tablet);
    /// as many chunks again may wait, read, for the log to pass their snapshot.
    pub const SNAPSHOT_CHUNKS_IN_FLIGHT: usize = 4;
    /// Chunked snapshots: lanes a table's range on one shard is split into at most, so that its
    /// chunks read side by side (integer keys; fewer when the table fills fewer chunks, never
    /// more than chunks in flight). 1 reads a table's chunks on a shard one after another.
    pub const SNAPSHOT_LANES: usize = 4;
    /// Chunked snapshots: the tablet type the chunks read from (their brief `LOCK TABLES … READ`
    /// then blocks the replica's applier, not the application's writes).
    pub const SNAPSHOT_TABLET_TYPE: super::TabletType = super::TabletType::Replica;
    /// Chunked snapshots: the app name the tablet throttler is asked about (when a vtctld to ask
    /// is given, [`super::ThrottlerOptions`]); `UpdateThrottlerConfig --throttle-app vitess-cdc`
    /// holds the chunks back and leaves every other app alone.
    pub const THROTTLER_APP: &str = "vitess-cdc";
    /// The first snapshot is the in-stream VStream copy until the chunked one has proven itself.
    pub const INITIAL_SNAPSHOT: super::InitialSnapshot = super::InitialSnapshot::Copy;
    /// DDL that takes a selected table's rows away stops the stream: a consumer would otherwise
    /// keep rows the table no longer has, without a word.
    pub const DESTRUCTIVE_DDL: super::DestructiveDdl = super::DestructiveDdl::Fail;
    /// Vitess's own static auth: what a self-run VTGate with `--grpc_auth_mode static` checks.
    pub const AUTH_MODE: super::AuthMode = super::AuthMode::Static;
}

/// How `username` and `password` travel to VTGate, on every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMode {
    /// Vitess's static auth (`--grpc_auth_mode static`): `username` and `password` metadata.
    Static,
    /// HTTP Basic (`authorization: Basic base64(username:password)`), as PlanetScale's VTGates
    /// take it; over TLS only, since it carries the password.
    Basic,
}

impl AuthMode {
    /// `static` or `basic` (any case).
    pub fn parse(text: &str) -> Option<AuthMode> {
        match text.trim().to_ascii_lowercase().as_str() {
            "static" => Some(AuthMode::Static),
            "basic" => Some(AuthMode::Basic),
            _ => None,
        }
    }
}

/// What a stream does at DDL that changes what its consumer holds without a row event:
/// `TRUNCATE`, `DROP TABLE` or a `RENAME` away of a selected table, or a change of its primary
/// key (docs/reliability.md, "DDL that changes what downstream holds").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DestructiveDdl {
    /// Stop with a configuration error naming the table, the statement and the fix; a restore
    /// meets the DDL again, so the error is not retried.
    Fail,
    /// Log a warning naming the table and the statement, and go on: the consumer keeps the rows
    /// (a truncated or dropped table's, or a renamed table's under the old name).
    Continue,
}

/// How the first snapshot of a stream that starts [`StartMode::Initial`] is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitialSnapshot {
    /// VStream's in-stream copy: per shard, tables one after another, the log held back while
    /// a table is copied.
    Copy,
    /// A chunked snapshot of every selected table beside a log stream that starts now
    /// ([`crate::snapshot::CaptureStream`]): chunks in parallel, the log never waits. Its rows
    /// are snapshot reads ([`crate::RowKind::SnapshotRead`]), applied as upserts.
    Chunked,
}

/// Where the stream starts.
#[derive(Debug, Clone, PartialEq)]
pub enum StartMode {
    /// Copy the selected tables (consistent snapshot), then stream changes after the copy.
    Initial,
    /// Stream changes from the current position; no copy.
    Latest,
    /// Resume from saved positions (one per shard).
    Positions(Vec<ShardPosition>),
    /// Copy the selected tables, then end.
    SnapshotOnly,
}

/// VTGate tablet type to stream from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabletType {
    Primary,
    Replica,
    Rdonly,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct TlsOptions {
    /// PEM file of the CA that signed VTGate's certificate.
    pub ca_cert_path: Option<String>,
    /// PEM client certificate and key, for mTLS.
    pub client_cert_path: Option<String>,
    pub client_key_path: Option<String>,
    /// Server name to verify (defaults to the host of the address).
    pub server_name: Option<String>,
}

/// How a chunked snapshot ([`crate::snapshot`]) reads; every default is in [`defaults`].
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotOptions {
    /// Rows per chunk ([`defaults::SNAPSHOT_CHUNK_ROWS`]).
    pub chunk_rows: usize,
    /// Buffered bytes per chunk ([`defaults::SNAPSHOT_CHUNK_BYTES`]).
    pub chunk_bytes: usize,
    /// Side streams at once ([`defaults::SNAPSHOT_CHUNKS_IN_FLIGHT`]).
    pub chunks_in_flight: usize,
    /// Lanes per table and shard, at most ([`defaults::SNAPSHOT_LANES`]).
    pub lanes: usize,
    /// Read the chunks from the tablets directly, found through this vtctld (gRPC host:port);
    /// None = through VTGate ([`crate::snapshot::tablets`]).
    pub tablets_vtctld: Option<String>,
    /// Tablet type of the side streams ([`defaults::SNAPSHOT_TABLET_TYPE`]).
    pub tablet_type: TabletType,
    /// A table of the keyspace whose inserted rows are signals (execute, pause, resume, stop a
    /// capture; [`crate::snapshot::signal`]); read from the log, never emitted. None = off.
    pub signal_table: Option<String>,
    /// The caller checks the tables a signal names against all of its streams (a Flink job with
    /// a source per table): a signal that names no table of this stream is not a warning here,
    /// and [`crate::snapshot::CaptureProgress::signals_elsewhere`] lists what it named.
    pub signal_tables_checked_by_caller: bool,
    /// Ask the tablet throttler before each chunk (through vtctld); None = no check of ours
    /// (Vitess still throttles the chunks' rows and the log on a refusing tablet).
    pub throttler: Option<ThrottlerOptions>,
}

/// The tablet throttler check of chunked snapshots (docs/snapshots.md, "The tablet throttler"):
/// no chunk starts on a shard whose primary's throttler refuses `app`.
#[derive(Debug, Clone, PartialEq)]
pub struct ThrottlerOptions {
    /// vtctld's gRPC address, `host:port` or `http(s)://host:port`.
    pub vtctld: String,
    /// The app name checked ([`defaults::THROTTLER_APP`]).
    pub app: String,
}

impl ThrottlerOptions {
    /// A check through `vtctld` as the default app.
    pub fn new(vtctld: impl Into<String>) -> ThrottlerOptions {
        ThrottlerOptions {
            vtctld: vtctld.into(),
            app: defaults::THROTTLER_APP.to_string(),
        }
    }
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            chunk_rows: defaults::SNAPSHOT_CHUNK_ROWS,
            chunk_bytes: defaults::SNAPSHOT_CHUNK_BYTES,
            chunks_in_flight: defaults::SNAPSHOT_CHUNKS_IN_FLIGHT,
            lanes: defaults::SNAPSHOT_LANES,
            tablets_vtctld: None,
            tablet_type: defaults::SNAPSHOT_TABLET_TYPE,
            signal_table: None,
            signal_tables_checked_by_caller: false,
            throttler: None,
        }
    }
}

/// Every field's default is in [`defaults`].
#[derive(Debug, Clone, PartialEq)]
pub struct StreamOptions {
    /// VTGate gRPC address, `host:port` or `http(s)://host:port`.
    pub address: String,
    pub keyspace: String,
    /// Shards to stream; empty = all shards of the keyspace.
    pub shards: Vec<String>,
    /// Tables by exact name; empty together with `table_patterns` = all tables.
    pub tables: Vec<String>,
    /// Tables by regex (matched against the whole table name).
    pub table_patterns: Vec<String>,
    /// Columns to stream of the tables named in `tables` (a projection pushed into VStream's
    /// filter, so unselected columns never leave the tablet); empty = all columns. Not applied
    /// to `table_patterns`.
    pub columns: Vec<String>,
    /// A row filter of the tables named in `tables`: the WHERE clause of their VStream filter
    /// rule (`select … from t where <row_filter>`), evaluated by MySQL for the copy and by the
    /// tablet on each row image while streaming. Vitess accepts only an AND of `column <op>
    /// literal` comparisons (`=`, `!=`, `<`, `<=`, `>`, `>=`), `column in (literals)`, `column is
    /// not null` and `in_keyrange(…)`; the SQL connector renders the predicates it pushes down.
    /// None = every row. Not applied to `table_patterns`.
    pub row_filter: Option<String>,
    /// Accept tables without a primary key (updates/deletes then cannot be keyed).
    pub allow_tables_without_primary_key: bool,
    /// DDL that takes a selected table's rows away or changes its key ([`defaults::DESTRUCTIVE_DDL`]).
    pub destructive_ddl: DestructiveDdl,
    pub start: StartMode,
    /// How [`StartMode::Initial`] takes its snapshot ([`defaults::INITIAL_SNAPSHOT`]).
    pub initial_snapshot: InitialSnapshot,
    pub tablet_type: TabletType,
    pub cells: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    /// How the credentials travel ([`defaults::AUTH_MODE`]).
    pub auth_mode: AuthMode,
    pub tls: Option<TlsOptions>,
    /// Connecting to VTGate and the first response ([`defaults::CONNECT_TIMEOUT`]).
    pub connect_timeout: Duration,
    /// At least VTGate's --grpc-max-message-size ([`defaults::MAX_MESSAGE_BYTES`]).
    pub max_message_bytes: usize,
    /// HTTP/2 keepalive; VTGate refuses pings more often than every 10 s.
    pub keepalive_interval: Duration,
    /// VTGate heartbeat when nothing else was sent, seconds; 0 = off.
    pub heartbeat_interval_secs: u32,
    /// Stream transactions larger than this in chunks (v24+); 0 = off.
    pub transaction_chunk_bytes: i64,
    /// Ask VTGate to forward reshard journal events (v21+). Only changes anything
    /// with `follow_reshard`: otherwise journals are always forwarded (see below).
    pub include_reshard_journal_events: bool,
    /// End the whole stream ([`crate::Event::End`]) at a reshard; positions then list the new
    /// shards.
    pub stop_on_reshard: bool,
    /// What happens to a shard that reaches a reshard journal. false (the default, what a per-shard
    /// consumer such as the Flink source needs): the shard's stream stops at its journal
    /// ([`crate::Event::Journal`] then a final mark), the other shards go on, and the new shards
    /// are not read by this stream — the consumer opens them. true: VTGate's own transition is
    /// followed and the new shards' events arrive in this stream (one stream per keyspace, e.g.
    /// `vstream tail`). docs/positions.md "Resharding".
    pub follow_reshard: bool,
    /// Bytes of decoded events buffered between the gRPC reader and the consumer.
    pub buffer_bytes: usize,
    /// Reconnect policy.
    pub retry_initial_backoff: Duration,
    pub retry_max_backoff: Duration,
    /// Consecutive failed reconnects before giving up.
    pub retry_max_attempts: u32,
    /// No event (not even a heartbeat) for this long = dead stream.
    pub idle_timeout: Duration,
    /// The consumer's name for this stream (a Flink operator and subtask), put before what the
    /// stream reads in every log line about it ([`crate::handoff::log_label`]).
    pub log_label: Option<String>,
}

impl StreamOptions {
    pub fn new(address: impl Into<String>, keyspace: impl Into<String>) -> Self {
        StreamOptions {
            address: address.into(),
            keyspace: keyspace.into(),
            shards: Vec::new(),
            tables: Vec::new(),
            table_patterns: Vec::new(),
            columns: Vec::new(),
            row_filter: None,
            allow_tables_without_primary_key: defaults::ALLOW_TABLES_WITHOUT_PRIMARY_KEY,
            destructive_ddl: defaults::DESTRUCTIVE_DDL,
            start: StartMode::Initial,
            initial_snapshot: defaults::INITIAL_SNAPSHOT,
            tablet_type: TabletType::Primary,
            cells: None,
            username: None,
            password: None,
            auth_mode: defaults::AUTH_MODE,
            tls: None,
            connect_timeout: defaults::CONNECT_TIMEOUT,
            max_message_bytes: defaults::MAX_MESSAGE_BYTES,
            keepalive_interval: defaults::KEEPALIVE_INTERVAL,
            heartbeat_interval_secs: defaults::HEARTBEAT_INTERVAL_SECS,
            transaction_chunk_bytes: defaults::TRANSACTION_CHUNK_BYTES,
            include_reshard_journal_events: defaults::INCLUDE_RESHARD_JOURNAL_EVENTS,
            stop_on_reshard: defaults::STOP_ON_RESHARD,
            follow_reshard: defaults::FOLLOW_RESHARD,
            buffer_bytes: defaults::BUFFER_BYTES,
            retry_initial_backoff: defaults::RETRY_INITIAL_BACKOFF,
            retry_max_backoff: defaults::RETRY_MAX_BACKOFF,
            retry_max_attempts: defaults::RETRY_MAX_ATTEMPTS,
            idle_timeout: defaults::IDLE_TIMEOUT,
            log_label: None,
        }
    }
}
