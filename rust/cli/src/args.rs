// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The options every subcommand shares: the stream's (`StreamOptions`, with `--start` read from
//! text, JSON or a positions file) and the chunked snapshots' (`SnapshotOptions`).

use clap::{Args, ValueEnum};
use std::time::Duration;
use vitess_cdc_core::options::{defaults, AuthMode, TabletType, ThrottlerOptions, TlsOptions};
use vitess_cdc_core::position::binary;
use vitess_cdc_core::SnapshotOptions;
use vitess_cdc_core::{
    DestructiveDdl, Error, ShardPosition, StartMode, StreamOptions, StreamPosition,
};

/// What a stream does at DDL that takes a selected table's rows away or changes its key.
#[derive(Clone, Copy, ValueEnum)]
enum DestructiveDdlArg {
    Fail,
    Continue,
}

/// How username and password travel to VTGate.
#[derive(Clone, Copy, ValueEnum)]
enum AuthModeArg {
    Static,
    Basic,
}

#[derive(Clone, Copy, ValueEnum)]
enum TabletTypeArg {
    Primary,
    Replica,
    Rdonly,
}

/// How chunked snapshots read; each maps to one `SnapshotOptions` field.
#[derive(Args)]
pub struct ChunkArgs {
    /// Rows per chunk before its side stream is cut [SnapshotOptions.chunk_rows]
    #[arg(long, default_value_t = defaults::SNAPSHOT_CHUNK_ROWS)]
    chunk_rows: usize,
    /// Bytes of rows one chunk may buffer before it is cut [chunk_bytes]
    #[arg(long, default_value_t = defaults::SNAPSHOT_CHUNK_BYTES)]
    chunk_bytes: usize,
    /// Chunk side streams reading at once [chunks_in_flight]
    #[arg(long, default_value_t = defaults::SNAPSHOT_CHUNKS_IN_FLIGHT)]
    chunks_in_flight: usize,
    /// Lanes a table's range on a shard is split into at most, read side by side (integer
    /// keys; 1 = one chunk of a table per shard at a time) [lanes]
    #[arg(long, default_value_t = defaults::SNAPSHOT_LANES)]
    lanes: usize,
    /// Read the chunks from the tablets directly, found through this vtctld (gRPC host:port),
    /// not through VTGate; the tablets' gRPC ports must be reachable [tablets_vtctld]
    #[arg(long, value_name = "HOST:PORT")]
    chunks_from_tablets: Option<String>,
    /// Tablet type the chunks read from [tablet_type]
    #[arg(long, value_enum, default_value = "replica")]
    snapshot_tablet_type: TabletTypeArg,
    /// Act on the signals inserted into this table of the keyspace (execute-snapshot,
    /// pause-snapshot, resume-snapshot, stop-snapshot; `vstream signal` sends them) [signal_table]
    #[arg(long, value_name = "TABLE")]
    pub signal_table: Option<String>,
    /// Ask the tablet throttler through this vtctld (gRPC host:port) before each chunk: none
    /// starts on a shard whose primary refuses the throttler app [throttler.vtctld]
    #[arg(long, value_name = "HOST:PORT")]
    throttler_vtctld: Option<String>,
    /// The app name the throttler is asked about [throttler.app]
    #[arg(long, value_name = "NAME", default_value = defaults::THROTTLER_APP, requires = "throttler_vtctld")]
    throttler_app: String,
}

impl ChunkArgs {
    pub fn to_options(&self) -> SnapshotOptions {
        SnapshotOptions {
            chunk_rows: self.chunk_rows,
            chunk_bytes: self.chunk_bytes,
            chunks_in_flight: self.chunks_in_flight,
            lanes: self.lanes,
            tablets_vtctld: self.chunks_from_tablets.clone(),
            tablet_type: self.snapshot_tablet_type.into(),
            signal_table: self.signal_table.clone(),
            // The CLI's one stream reads all it is given: a table a signal names that it does
            // not read is its own warning.
            signal_tables_checked_by_caller: false,
            throttler: self
                .throttler_vtctld
                .as_ref()
                .map(|vtctld| ThrottlerOptions {
                    vtctld: vtctld.clone(),
                    app: self.throttler_app.clone(),
                }),
        }
    }
}

impl From<TabletTypeArg> for TabletType {
    fn from(t: TabletTypeArg) -> TabletType {
        match t {
            TabletTypeArg::Primary => TabletType::Primary,
            TabletTypeArg::Replica => TabletType::Replica,
            TabletTypeArg::Rdonly => TabletType::Rdonly,
        }
    }
}

/// Options shared by every subcommand; each maps to one `StreamOptions` field.
#[derive(Args)]
pub struct StreamArgs {
    /// VTGate gRPC address (host:port or http(s)://host:port) [StreamOptions.address]
    #[arg(long, env = "VTGATE_GRPC_ADDR", default_value = defaults::ADDRESS)]
    address: String,
    /// Keyspace to stream; several, comma-separated, are read side by side in one stream
    /// (name tables then as keyspace.table; a bare name is read in each) [keyspace]
    #[arg(long, short = 'k', value_delimiter = ',', required = true)]
    keyspace: Vec<String>,
    /// Shards to stream, comma-separated; default all [shards]
    #[arg(long, value_delimiter = ',')]
    shards: Vec<String>,
    /// Tables by exact name, comma-separated; default all [tables]
    #[arg(long, short = 't', value_delimiter = ',', alias = "table")]
    tables: Vec<String>,
    /// Tables by regex matched against the whole name; repeatable [table_patterns]
    #[arg(long = "table-pattern")]
    table_patterns: Vec<String>,
    /// Row filter of the --tables: the WHERE clause of their VStream rule, e.g. "`id` > 5"
    /// (an AND of column-op-literal comparisons, IN lists, IS NOT NULL) [row_filter]
    #[arg(long = "where")]
    row_filter: Option<String>,
    /// Accept tables without a primary key [allow_tables_without_primary_key]
    #[arg(long)]
    allow_tables_without_primary_key: bool,
    /// DDL that takes a selected table's rows away (TRUNCATE, DROP TABLE, a RENAME away) or
    /// changes its primary key: stop with the fix, or log it and go on [destructive_ddl]
    #[arg(long, value_enum, default_value = "fail")]
    destructive_ddl: DestructiveDdlArg,
    /// Where to start: initial (copy, then stream), latest, a positions/VGTID JSON, or @file
    /// holding one [start]
    #[arg(long)]
    pub start: Option<String>,
    /// Tablet type to stream from [tablet_type]
    #[arg(long, value_enum, default_value = "primary")]
    tablet_type: TabletTypeArg,
    /// Cells to pick tablets from, comma-separated [cells]
    #[arg(long)]
    cells: Option<String>,
    /// VTGate static-auth user [username]
    #[arg(long, env = "VTGATE_USERNAME")]
    username: Option<String>,
    /// VTGate static-auth password [password]
    #[arg(long, env = "VTGATE_PASSWORD", hide_env_values = true)]
    password: Option<String>,
    /// How username and password travel: static (Vitess's static auth) or basic (HTTP Basic,
    /// PlanetScale; needs --tls) [auth_mode]
    #[arg(long, value_enum, default_value = "static")]
    auth_mode: AuthModeArg,
    /// Use TLS (with the system's web PKI roots unless --tls-ca is given) [tls]
    #[arg(long)]
    tls: bool,
    /// PEM CA certificate for VTGate's certificate (implies --tls) [tls.ca_cert_path]
    #[arg(long)]
    tls_ca: Option<String>,
    /// PEM client certificate for mTLS (implies --tls) [tls.client_cert_path]
    #[arg(long)]
    tls_cert: Option<String>,
    /// PEM client key for mTLS [tls.client_key_path]
    #[arg(long)]
    tls_key: Option<String>,
    /// Server name to verify, default the address's host [tls.server_name]
    #[arg(long)]
    tls_server_name: Option<String>,
    /// Seconds to connect and validate [connect_timeout]
    #[arg(long, default_value_t = defaults::CONNECT_TIMEOUT.as_secs())]
    connect_timeout_secs: u64,
    /// Largest gRPC message accepted, bytes; >= VTGate's --grpc-max-message-size [max_message_bytes]
    #[arg(long, default_value_t = defaults::MAX_MESSAGE_BYTES)]
    max_message_bytes: usize,
    /// HTTP/2 keepalive ping interval, seconds (at least 10) [keepalive_interval]
    #[arg(long, default_value_t = defaults::KEEPALIVE_INTERVAL.as_secs())]
    keepalive_secs: u64,
    /// Ask VTGate for a heartbeat after this many idle seconds; 0 = off [heartbeat_interval_secs]
    #[arg(long, default_value_t = defaults::HEARTBEAT_INTERVAL_SECS)]
    heartbeat_secs: u32,
    /// Stream transactions larger than this in chunks (Vitess v24+); 0 = off [transaction_chunk_bytes]
    #[arg(long, default_value_t = defaults::TRANSACTION_CHUNK_BYTES)]
    transaction_chunk_bytes: i64,
    /// Forward reshard journal events (Vitess v21+) [include_reshard_journal_events]
    #[arg(long, default_value_t = defaults::INCLUDE_RESHARD_JOURNAL_EVENTS, action = clap::ArgAction::Set)]
    include_reshard_journal_events: bool,
    /// End the stream at a reshard [stop_on_reshard]
    #[arg(long)]
    stop_on_reshard: bool,
    /// Bytes of decoded events buffered ahead of the consumer [buffer_bytes]
    #[arg(long, default_value_t = defaults::BUFFER_BYTES)]
    buffer_bytes: usize,
    /// First reconnect delay, milliseconds [retry_initial_backoff]
    #[arg(long, default_value_t = defaults::RETRY_INITIAL_BACKOFF.as_millis() as u64)]
    retry_initial_backoff_ms: u64,
    /// Longest reconnect delay, milliseconds [retry_max_backoff]
    #[arg(long, default_value_t = defaults::RETRY_MAX_BACKOFF.as_millis() as u64)]
    retry_max_backoff_ms: u64,
    /// Consecutive failed reconnects before giving up [retry_max_attempts]
    #[arg(long, default_value_t = defaults::RETRY_MAX_ATTEMPTS)]
    retry_max_attempts: u32,
    /// Seconds without any event (heartbeats included) before reconnecting [idle_timeout]
    #[arg(long, default_value_t = defaults::IDLE_TIMEOUT.as_secs())]
    idle_timeout_secs: u64,
}

impl StreamArgs {
    /// The options of a command that reads one keyspace.
    pub fn to_options(&self, default_start: StartMode) -> Result<StreamOptions, Error> {
        if self.keyspace.len() > 1 {
            return Err(Error::config(format!(
                "this command reads one keyspace; --keyspace names {} ({}): run it once per keyspace \
                 (vstream tail reads several)",
                self.keyspace.len(),
                self.keyspace.join(", ")
            )));
        }
        self.options(default_start)
    }

    /// The options of each keyspace `--keyspace` names (docs/positions.md, "Several keyspaces"),
    /// from `base` ([`Self::options`]); saved start positions go to the keyspace they name.
    pub fn split_keyspaces(&self, base: &StreamOptions) -> Result<Vec<StreamOptions>, Error> {
        let selections =
            vitess_cdc_core::keyspaces::select(&self.keyspace, &self.tables, &self.table_patterns)?;
        vitess_cdc_core::keyspaces::per_keyspace(base, &selections)
    }

    /// The options with the first keyspace (a command that reads several splits them with
    /// [`Self::split_keyspaces`]).
    pub fn options(&self, default_start: StartMode) -> Result<StreamOptions, Error> {
        let mut o = StreamOptions::new(self.address.clone(), self.keyspace[0].clone());
        o.shards = self.shards.clone();
        o.tables = self.tables.clone();
        o.table_patterns = self.table_patterns.clone();
        o.row_filter = self.row_filter.clone();
        o.allow_tables_without_primary_key = self.allow_tables_without_primary_key;
        o.destructive_ddl = match self.destructive_ddl {
            DestructiveDdlArg::Fail => DestructiveDdl::Fail,
            DestructiveDdlArg::Continue => DestructiveDdl::Continue,
        };
        o.start = match &self.start {
            None => default_start,
            Some(s) => parse_start(s)?,
        };
        o.tablet_type = self.tablet_type.into();
        o.cells = self.cells.clone();
        o.username = self.username.clone();
        o.password = self.password.clone();
        o.auth_mode = match self.auth_mode {
            AuthModeArg::Static => AuthMode::Static,
            AuthModeArg::Basic => AuthMode::Basic,
        };
        if self.tls || self.tls_ca.is_some() || self.tls_cert.is_some() {
            o.tls = Some(TlsOptions {
                ca_cert_path: self.tls_ca.clone(),
                client_cert_path: self.tls_cert.clone(),
                client_key_path: self.tls_key.clone(),
                server_name: self.tls_server_name.clone(),
            });
        }
        o.connect_timeout = Duration::from_secs(self.connect_timeout_secs);
        o.max_message_bytes = self.max_message_bytes;
        o.keepalive_interval = Duration::from_secs(self.keepalive_secs);
        o.heartbeat_interval_secs = self.heartbeat_secs;
        o.transaction_chunk_bytes = self.transaction_chunk_bytes;
        o.include_reshard_journal_events = self.include_reshard_journal_events;
        o.stop_on_reshard = self.stop_on_reshard;
        // One stream for the keyspace: follow VTGate onto the new shards of a reshard.
        o.follow_reshard = true;
        o.buffer_bytes = self.buffer_bytes;
        o.retry_initial_backoff = Duration::from_millis(self.retry_initial_backoff_ms);
        o.retry_max_backoff = Duration::from_millis(self.retry_max_backoff_ms);
        o.retry_max_attempts = self.retry_max_attempts;
        o.idle_timeout = Duration::from_secs(self.idle_timeout_secs);
        Ok(o)
    }
}

fn parse_start(s: &str) -> Result<StartMode, Error> {
    match s {
        "initial" => Ok(StartMode::Initial),
        "latest" => Ok(StartMode::Latest),
        "snapshot" => Ok(StartMode::SnapshotOnly),
        _ => {
            let text = match s.strip_prefix('@') {
                Some(path) => {
                    let bytes = std::fs::read(path).map_err(|e| {
                        Error::config(format!(
                            "cannot read the start positions file '{path}': {e}"
                        ))
                    })?;
                    // the compact binary form (`positions --binary-out`) or JSON
                    if bytes.starts_with(&binary::STREAM_MAGIC) {
                        return Ok(StartMode::Positions(
                            StreamPosition::from_bytes(&bytes)?.shards,
                        ));
                    }
                    if bytes.starts_with(&binary::SHARD_MAGIC) {
                        return Ok(StartMode::Positions(vec![ShardPosition::from_bytes(
                            &bytes,
                        )?]));
                    }
                    String::from_utf8(bytes).map_err(|_| {
                        Error::config(format!(
                            "the start positions file '{path}' is neither positions JSON nor vitess-cdc binary positions"
                        ))
                    })?
                }
                None => s.to_string(),
            };
            if !text.trim_start().starts_with(['{', '[']) {
                return Err(Error::config(format!(
                    "--start must be initial, latest, a positions JSON or @file with JSON or binary positions (got '{s}')"
                )));
            }
            Ok(StartMode::Positions(
                StreamPosition::from_json(&text)?.shards,
            ))
        }
    }
}
