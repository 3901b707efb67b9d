//! Every knob of the core, with its default, in one place. Documented in docs/options.md.

use crate::position::ShardPosition;
use std::time::Duration;

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
    /// Accept tables without a primary key (updates/deletes then cannot be keyed).
    pub allow_tables_without_primary_key: bool,
    pub start: StartMode,
    pub tablet_type: TabletType,
    pub cells: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub tls: Option<TlsOptions>,
    /// Default 10 s: connecting to VTGate and the first response.
    pub connect_timeout: Duration,
    /// Default 16 MiB + 1 MiB: at least VTGate's --grpc-max-message-size.
    pub max_message_bytes: usize,
    /// Default 30 s (VTGate refuses pings more often than every 10 s).
    pub keepalive_interval: Duration,
    /// VTGate heartbeat when nothing else was sent, seconds; default 5, 0 = off.
    pub heartbeat_interval_secs: u32,
    /// Stream transactions larger than this in chunks (v24+); default 4 MiB, 0 = off.
    pub transaction_chunk_bytes: i64,
    /// Ask VTGate to forward reshard journal events (v21+); default true. Only changes anything
    /// with `follow_reshard`: otherwise journals are always forwarded (see below).
    pub include_reshard_journal_events: bool,
    /// End the whole stream ([`crate::Event::End`]) at a reshard; positions then list the new
    /// shards. Default false.
    pub stop_on_reshard: bool,
    /// What happens to a shard that reaches a reshard journal. false (default, what a per-shard
    /// consumer such as the Flink source needs): the shard's stream stops at its journal
    /// ([`crate::Event::Journal`] then a final mark), the other shards go on, and the new shards
    /// are not read by this stream — the consumer opens them. true: VTGate's own transition is
    /// followed and the new shards' events arrive in this stream (one stream per keyspace, e.g.
    /// `vstream tail`). docs/positions.md "Resharding".
    pub follow_reshard: bool,
    /// Bytes of decoded events buffered between the gRPC reader and the consumer; default 64 MiB.
    pub buffer_bytes: usize,
    /// Reconnect policy.
    pub retry_initial_backoff: Duration,
    pub retry_max_backoff: Duration,
    /// Consecutive failed reconnects before giving up; default 10.
    pub retry_max_attempts: u32,
    /// No event (not even a heartbeat) for this long = dead stream; default 60 s.
    pub idle_timeout: Duration,
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
            allow_tables_without_primary_key: false,
            start: StartMode::Initial,
            tablet_type: TabletType::Primary,
            cells: None,
            username: None,
            password: None,
            tls: None,
            connect_timeout: Duration::from_secs(10),
            max_message_bytes: 17 * 1024 * 1024,
            keepalive_interval: Duration::from_secs(30),
            heartbeat_interval_secs: 5,
            transaction_chunk_bytes: 4 * 1024 * 1024,
            include_reshard_journal_events: true,
            stop_on_reshard: false,
            follow_reshard: false,
            buffer_bytes: 64 * 1024 * 1024,
            retry_initial_backoff: Duration::from_millis(200),
            retry_max_backoff: Duration::from_secs(10),
            retry_max_attempts: 10,
            idle_timeout: Duration::from_secs(60),
        }
    }
}
