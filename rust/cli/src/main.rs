// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `vstream`: tail a Vitess keyspace as JSON lines, snapshot it, or print resumable positions.
//! Every option maps 1:1 to a field of `vitess_cdc_core::StreamOptions`.

mod json;
#[cfg(test)]
mod options_doc;

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::options::{defaults, TabletType, TlsOptions};
use vitess_cdc_core::position::binary;
use vitess_cdc_core::snapshot::{Capture, CaptureStream};
use vitess_cdc_core::SnapshotOptions;
use vitess_cdc_core::{
    Error, ErrorKind, Event, ShardPosition, StartMode, StreamOptions, StreamPosition,
};

#[derive(Parser)]
#[command(
    name = "vstream",
    version,
    about = "Stream changes of a Vitess keyspace (VStream) as JSON lines"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print one JSON line per row change (copy phase first unless --start says otherwise).
    Tail {
        #[command(flatten)]
        stream: StreamArgs,
        /// Also print a {"op":"mark"} line with the resumable position after every commit.
        #[arg(long)]
        positions: bool,
        /// Also print {"op":"schema"} lines when a table's shape is (re)announced.
        #[arg(long)]
        schemas: bool,
        /// Exit after this many row changes (an update counts once).
        #[arg(long)]
        max_changes: Option<u64>,
        /// Exit after this many seconds without a row change.
        #[arg(long)]
        idle_exit_secs: Option<u64>,
        /// Exit after this many seconds in total (after the batch being printed; SIGINT/SIGTERM
        /// stop the same way). The final position goes to stderr.
        #[arg(long)]
        duration: Option<u64>,
        /// Capture TABLE (or the rows of TABLE matching WHERE) in chunks beside the log, while
        /// every change keeps streaming; repeatable. Its rows print as {"op":"read"}. Needs
        /// --start latest or saved positions (which also resume a capture) [docs/snapshots.md]
        #[arg(long = "resnapshot", value_name = "TABLE[:WHERE]")]
        resnapshot: Vec<String>,
        #[command(flatten)]
        chunks: ChunkArgs,
    },
    /// Copy the selected tables (consistent snapshot), print the rows, then exit.
    Snapshot {
        #[command(flatten)]
        stream: StreamArgs,
        /// Also print {"op":"mark"} lines.
        #[arg(long)]
        positions: bool,
        /// Read the tables in chunks beside a log stream started now (instead of VStream's
        /// copy, one table after another): prints the rows ({"op":"read"}) and the changes
        /// made meanwhile, then exits when every chunk is merged [docs/snapshots.md]
        #[arg(long)]
        chunked: bool,
        #[command(flatten)]
        chunks: ChunkArgs,
    },
    /// Send a signal to the streams reading the keyspace: one row in the signal table of every
    /// shard (--shards: only those), so each shard's log carries it [docs/snapshots.md]
    Signal {
        #[command(flatten)]
        stream: StreamArgs,
        /// What to ask: capture --tables again (the rows matching --where, if given; stop-snapshot
        /// without --tables stops every capture), or pause / resume the captures
        #[arg(value_enum)]
        kind: SignalKind,
        /// The signal table
        #[arg(long, default_value = vitess_cdc_core::snapshot::signal::DEFAULT_SIGNAL_TABLE)]
        signal_table: String,
        /// The rows' id (unique in the table) [default: vstream-<time>]
        #[arg(long)]
        id: Option<String>,
    },
    /// Print the positions every shard reaches from --start (default: latest), as JSON, then exit.
    Positions {
        #[command(flatten)]
        stream: StreamArgs,
        /// Give up waiting for a mark of every shard after this many seconds.
        #[arg(long, default_value_t = 30)]
        wait_secs: u64,
        /// Also write the positions in the compact binary form to this file (`--start @file`
        /// reads either form).
        #[arg(long)]
        binary_out: Option<String>,
    },
}

/// The signal types, spelled as the signal table's `type` column takes them.
#[derive(Clone, Copy, ValueEnum)]
#[allow(clippy::enum_variant_names)]
enum SignalKind {
    ExecuteSnapshot,
    PauseSnapshot,
    ResumeSnapshot,
    StopSnapshot,
}

#[derive(Clone, Copy, ValueEnum)]
enum TabletTypeArg {
    Primary,
    Replica,
    Rdonly,
}

/// How chunked snapshots read; each maps to one `SnapshotOptions` field.
#[derive(Args)]
struct ChunkArgs {
    /// Rows per chunk before its side stream is cut [SnapshotOptions.chunk_rows]
    #[arg(long, default_value_t = defaults::SNAPSHOT_CHUNK_ROWS)]
    chunk_rows: usize,
    /// Bytes of rows one chunk may buffer before it is cut [chunk_bytes]
    #[arg(long, default_value_t = defaults::SNAPSHOT_CHUNK_BYTES)]
    chunk_bytes: usize,
    /// Chunk side streams reading at once [chunks_in_flight]
    #[arg(long, default_value_t = defaults::SNAPSHOT_CHUNKS_IN_FLIGHT)]
    chunks_in_flight: usize,
    /// Tablet type the chunks read from [tablet_type]
    #[arg(long, value_enum, default_value = "replica")]
    snapshot_tablet_type: TabletTypeArg,
    /// Act on the signals inserted into this table of the keyspace (execute-snapshot,
    /// pause-snapshot, resume-snapshot, stop-snapshot; `vstream signal` sends them) [signal_table]
    #[arg(long, value_name = "TABLE")]
    signal_table: Option<String>,
}

impl ChunkArgs {
    fn to_options(&self) -> SnapshotOptions {
        SnapshotOptions {
            chunk_rows: self.chunk_rows,
            chunk_bytes: self.chunk_bytes,
            chunks_in_flight: self.chunks_in_flight,
            tablet_type: self.snapshot_tablet_type.into(),
            signal_table: self.signal_table.clone(),
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
struct StreamArgs {
    /// VTGate gRPC address (host:port or http(s)://host:port) [StreamOptions.address]
    #[arg(long, env = "VTGATE_GRPC_ADDR", default_value = defaults::ADDRESS)]
    address: String,
    /// Keyspace to stream [keyspace]
    #[arg(long, short = 'k')]
    keyspace: String,
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
    /// Where to start: initial (copy, then stream), latest, a positions/VGTID JSON, or @file
    /// holding one [start]
    #[arg(long)]
    start: Option<String>,
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
    fn to_options(&self, default_start: StartMode) -> Result<StreamOptions, Error> {
        let mut o = StreamOptions::new(self.address.clone(), self.keyspace.clone());
        o.shards = self.shards.clone();
        o.tables = self.tables.clone();
        o.table_patterns = self.table_patterns.clone();
        o.row_filter = self.row_filter.clone();
        o.allow_tables_without_primary_key = self.allow_tables_without_primary_key;
        o.start = match &self.start {
            None => default_start,
            Some(s) => parse_start(s)?,
        };
        o.tablet_type = self.tablet_type.into();
        o.cells = self.cells.clone();
        o.username = self.username.clone();
        o.password = self.password.clone();
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

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VSTREAM_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.full_message());
            ExitCode::from(if e.kind == ErrorKind::Config { 2 } else { 1 })
        }
    }
}

fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Tail {
            stream,
            positions,
            schemas,
            max_changes,
            idle_exit_secs,
            duration,
            resnapshot,
            chunks,
        } => {
            let opts = stream.to_options(StartMode::Initial)?;
            let printer = json::Printer {
                marks: positions,
                schemas,
            };
            let limits = Limits {
                max_changes,
                idle_exit: idle_exit_secs.map(Duration::from_secs),
                duration: duration.map(Duration::from_secs),
                report_position: true,
            };
            let resumes_capture = matches!(&opts.start, StartMode::Positions(p) if p.iter().any(|s| !s.snapshots.is_empty()));
            if !resnapshot.is_empty() || resumes_capture || chunks.signal_table.is_some() {
                let captures = resnapshot
                    .iter()
                    .map(|c| Capture::parse(c))
                    .collect::<Result<Vec<_>, _>>()?;
                return capture(opts, captures, chunks.to_options(), printer, limits, false);
            }
            tail(
                opts,
                printer,
                Limits {
                    max_changes,
                    idle_exit: idle_exit_secs.map(Duration::from_secs),
                    duration: duration.map(Duration::from_secs),
                    report_position: true,
                },
            )
        }
        Command::Signal {
            stream,
            kind,
            signal_table,
            id,
        } => send_signal(&stream, kind, &signal_table, id),
        Command::Snapshot {
            stream,
            positions,
            chunked,
            chunks,
        } => {
            if chunked {
                let mut opts = stream.to_options(StartMode::Latest)?;
                if stream.start.is_none() {
                    opts.start = StartMode::Latest;
                }
                let captures = chunked_tables(&opts)?;
                return capture(
                    opts,
                    captures,
                    chunks.to_options(),
                    json::Printer {
                        marks: positions,
                        schemas: false,
                    },
                    Limits {
                        report_position: true,
                        ..Limits::default()
                    },
                    true,
                );
            }
            let mut opts = stream.to_options(StartMode::SnapshotOnly)?;
            if stream.start.is_none() || opts.start == StartMode::Initial {
                opts.start = StartMode::SnapshotOnly;
            }
            tail(
                opts,
                json::Printer {
                    marks: positions,
                    schemas: false,
                },
                Limits::default(),
            )
        }
        Command::Positions {
            stream,
            wait_secs,
            binary_out,
        } => {
            let opts = stream.to_options(StartMode::Latest)?;
            positions(opts, Duration::from_secs(wait_secs), binary_out.as_deref())
        }
    }
}

/// When `tail` stops (besides the end of a snapshot).
#[derive(Default)]
struct Limits {
    /// After this many row changes (an update counts once).
    max_changes: Option<u64>,
    /// After this long without a row change.
    idle_exit: Option<Duration>,
    /// After this long in total.
    duration: Option<Duration>,
    /// Print the final position to stderr when stopping.
    report_position: bool,
}

/// Set by SIGINT/SIGTERM: `tail` finishes the batch it is printing, flushes and stops.
static STOP: AtomicBool = AtomicBool::new(false);

/// SIGINT/SIGTERM ask `tail` to stop after the current batch; a second signal exits at once.
fn install_signal_handler() {
    let result = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            eprintln!("interrupted again: exiting without waiting");
            std::process::exit(130);
        }
    });
    if let Err(e) = result {
        tracing::warn!("cannot install the Ctrl-C handler: {e}");
    }
}

/// Positions exactly as of the events printed so far (a mark applies once its line was
/// written), so the reported final position resumes right after the last printed commit.
struct PrintedPositions(BTreeMap<(String, String), ShardPosition>);

impl PrintedPositions {
    fn new(start: StreamPosition) -> Self {
        PrintedPositions(
            start
                .shards
                .into_iter()
                .map(|p| ((p.keyspace.clone(), p.shard.clone()), p))
                .collect(),
        )
    }

    fn apply(&mut self, event: &Event) {
        match event {
            Event::Mark(p) => {
                self.0
                    .insert((p.keyspace.clone(), p.shard.clone()), p.clone());
            }
            Event::Journal { ended, started, .. } => {
                for k in ended {
                    self.0.remove(k);
                }
                for p in started {
                    self.0
                        .insert((p.keyspace.clone(), p.shard.clone()), p.clone());
                }
            }
            _ => {}
        }
    }

    fn to_json(&self) -> String {
        StreamPosition {
            shards: self.0.values().cloned().collect(),
        }
        .to_json()
    }
}

fn tail(options: StreamOptions, printer: json::Printer, limits: Limits) -> Result<(), Error> {
    if limits.report_position {
        install_signal_handler();
    }
    let started = Instant::now();
    let stream = BlockingStream::open(options)?;
    let mut printed = PrintedPositions::new(stream.positions());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut changes = 0u64;
    let mut last_change = Instant::now();
    let mut pending_before = None;
    // With --stop-on-reshard the stream's End follows a reshard journal, not a snapshot.
    let mut journal_seen = false;
    let stop_reason = 'outer: loop {
        if STOP.load(Ordering::SeqCst) {
            break "interrupted";
        }
        let events = stream.poll(Duration::from_millis(200))?;
        let mut ended = false;
        for event in &events {
            if matches!(event, Event::Change(_)) {
                last_change = Instant::now();
            }
            ended |= matches!(event, Event::End);
            journal_seen |= matches!(event, Event::Journal { .. });
            if let Some(line) = printer.line(event, &mut pending_before, &mut changes) {
                if writeln!(out, "{line}").is_err() {
                    stream.close();
                    return Ok(()); // stdout closed (e.g. piped into `head`)
                }
            }
            printed.apply(event);
            if limits.max_changes.is_some_and(|m| changes >= m) {
                break 'outer "max changes reached";
            }
        }
        if out.flush().is_err() {
            stream.close();
            return Ok(());
        }
        if ended {
            break if journal_seen {
                "reshard journal reached (--stop-on-reshard); resume on the new shards from the journal's positions"
            } else {
                "end of snapshot"
            };
        }
        if limits.idle_exit.is_some_and(|d| last_change.elapsed() >= d) {
            break "idle";
        }
        if limits.duration.is_some_and(|d| started.elapsed() >= d) {
            break "duration reached";
        }
    };
    let _ = out.flush();
    drop(out);
    stream.close();
    if limits.report_position {
        eprintln!(
            "vstream: stopped ({stop_reason}) after {changes} changes; final position (resume with --start):\n{}",
            printed.to_json()
        );
    }
    Ok(())
}

/// The tables `snapshot --chunked` captures: those the options select.
fn chunked_tables(options: &StreamOptions) -> Result<Vec<Capture>, Error> {
    let rt = runtime()?;
    let estimates = rt.block_on(vitess_cdc_core::stream::copy_estimates(options))?;
    Ok(estimates
        .tables
        .into_iter()
        .map(|table| Capture {
            table,
            filter: None,
            shards: Vec::new(),
        })
        .collect())
}

/// `vstream signal`: the signal's row on every selected shard; prints one JSON line per shard.
fn send_signal(
    stream: &StreamArgs,
    kind: SignalKind,
    signal_table: &str,
    id: Option<String>,
) -> Result<(), Error> {
    use vitess_cdc_core::snapshot::signal::{write_signal, Signal};
    let options = stream.to_options(StartMode::Latest)?;
    let signal = match kind {
        SignalKind::ExecuteSnapshot => {
            if options.tables.is_empty() {
                return Err(Error::config(
                    "execute-snapshot needs the tables to capture: --tables TABLE[,TABLE…] (and --where for a key range)",
                ));
            }
            Signal::Execute(
                options
                    .tables
                    .iter()
                    .map(|t| Capture {
                        table: t.clone(),
                        filter: options.row_filter.clone(),
                        shards: Vec::new(),
                    })
                    .collect(),
            )
        }
        SignalKind::PauseSnapshot => Signal::Pause,
        SignalKind::ResumeSnapshot => Signal::Resume,
        SignalKind::StopSnapshot => Signal::Stop(options.tables.clone()),
    };
    let id = id.unwrap_or_else(|| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        format!("vstream-{}", now.as_nanos())
    });
    let rt = runtime()?;
    rt.block_on(async {
        let client = vitess_cdc_core::client::VtgateClient::connect(&options).await?;
        let shards = if options.shards.is_empty() {
            client.describe_keyspace(&options.keyspace).await?.shards
        } else {
            options.shards.clone()
        };
        write_signal(&client, &options.keyspace, signal_table, &shards, &id, &signal).await?;
        let (kind, data) = signal.to_row();
        for shard in &shards {
            println!(
                "{}",
                serde_json::json!({"keyspace": options.keyspace, "shard": shard, "table": signal_table,
                    "id": id, "type": kind, "data": data})
            );
        }
        Ok(())
    })
}

fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::fatal(format!("cannot start the async runtime: {e}")))
}

/// `tail --resnapshot` and `snapshot --chunked`: the log with chunked snapshots beside it.
/// Progress goes to stderr every few seconds and at the end.
fn capture(
    options: StreamOptions,
    captures: Vec<Capture>,
    snap: SnapshotOptions,
    printer: json::Printer,
    limits: Limits,
    exit_when_captured: bool,
) -> Result<(), Error> {
    install_signal_handler();
    let rt = runtime()?;
    let started = Instant::now();
    let mut stream = rt.block_on(CaptureStream::open(options, captures, snap))?;
    let mut printed = PrintedPositions::new(stream.positions());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut changes = 0u64;
    let mut last_change = Instant::now();
    let mut last_report = Instant::now();
    let mut pending_before = None;
    let mut captured_after = None;
    let report = |stream: &CaptureStream, what: &str| {
        let t = stream.progress().total();
        eprintln!(
            "vstream: {what}: {} of ~{} chunks, {} rows captured, {} table-shards remaining, {} chunks discarded, {} failed ({:.1} s)",
            t.chunks_done, t.chunks_planned, t.rows, t.tables_remaining, t.chunks_discarded, t.chunks_failed,
            started.elapsed().as_secs_f64()
        );
    };
    let stop_reason = 'outer: loop {
        if STOP.load(Ordering::SeqCst) {
            break "interrupted";
        }
        let events = match rt.block_on(async {
            tokio::time::timeout(Duration::from_millis(200), stream.next_events()).await
        }) {
            Ok(events) => events?,
            Err(_) => Vec::new(),
        };
        for event in &events {
            if matches!(event, Event::Change(_)) {
                last_change = Instant::now();
            }
            if let Some(line) = printer.line(event, &mut pending_before, &mut changes) {
                if writeln!(out, "{line}").is_err() {
                    return Ok(());
                }
            }
            printed.apply(event);
            if limits.max_changes.is_some_and(|m| changes >= m) {
                break 'outer "max changes reached";
            }
        }
        if out.flush().is_err() {
            return Ok(());
        }
        if captured_after.is_none() && stream.capture_done() {
            captured_after = Some(started.elapsed());
            report(&stream, "capture done");
            if exit_when_captured {
                break "capture done";
            }
        } else if captured_after.is_some() && !stream.capture_done() {
            // A signal started another capture.
            captured_after = None;
        }
        if last_report.elapsed() >= Duration::from_secs(5) && captured_after.is_none() {
            report(&stream, "capturing");
            last_report = Instant::now();
        }
        if limits.idle_exit.is_some_and(|d| last_change.elapsed() >= d) {
            break "idle";
        }
        if limits.duration.is_some_and(|d| started.elapsed() >= d) {
            break "duration reached";
        }
    };
    let _ = out.flush();
    drop(out);
    if captured_after.is_none() {
        report(&stream, "stopped while capturing");
    }
    if limits.report_position {
        eprintln!(
            "vstream: stopped ({stop_reason}) after {changes} changes; final position (resume with --start):\n{}",
            printed.to_json()
        );
    }
    Ok(())
}

fn positions(
    options: StreamOptions,
    wait: Duration,
    binary_out: Option<&str>,
) -> Result<(), Error> {
    let stream = BlockingStream::open(options)?;
    let started = Instant::now();
    let mut marked = std::collections::BTreeSet::new();
    let shards = stream.positions().shards.len();
    while marked.len() < shards {
        if started.elapsed() > wait {
            return Err(Error::retryable(format!(
                "only {} of {shards} shards reported a position within {wait:?}",
                marked.len()
            )));
        }
        for e in stream.poll(Duration::from_millis(500))? {
            if let Event::Mark(p) = e {
                marked.insert((p.keyspace, p.shard));
            }
        }
    }
    let reached = stream.positions();
    stream.close();
    if let Some(path) = binary_out {
        std::fs::write(path, reached.to_bytes()).map_err(|e| {
            Error::config(format!(
                "cannot write the binary positions file '{path}': {e}"
            ))
        })?;
    }
    println!("{}", reached.to_json());
    Ok(())
}
