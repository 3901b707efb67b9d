// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `vitess-cdc-bench`: throughput and CPU cost of the Rust core. Prints a table and writes the
//! figures as JSON. Not a test: nothing here asserts a speed.
//!
//! * offline: decode (`query.Row` text → typed `Value`s) and batch encode (the bytes that cross
//!   JNI) on synthetic rows shaped like `customer.customer` and `customer.all_types`;
//! * live, against the local VTGate: a count-only baseline consumer (raw tonic VStream, counts
//!   row changes without decoding them) versus the full core (`BlockingStream` → typed events →
//!   batch encoding), for the copy of a seeded table, for streaming while a writer process
//!   inserts, and for a streaming catch-up (replaying that binlog from a saved position).
//!
//! CPU is this process's user + system time (`getrusage`), so the writer runs as a child
//! process and is not counted; VTGate, vttablet and MySQL share the same 2 cores.
//!
//! Parts: `offline` and `live` run the measurements, `report` measures (CPU, wall time) and
//! prints and writes what they found.

mod e2e;
mod live;
mod offline;
mod report;
mod snapshot_lag;
mod snapshots;

use clap::Parser;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "vitess-cdc-bench",
    about = "Throughput and CPU cost of the vitess-cdc Rust core (offline and against a live VTGate)"
)]
struct Args {
    /// Synthetic rows per offline measurement
    #[arg(long, default_value_t = 500_000)]
    offline_rows: usize,
    /// Rows seeded into the bench table and copied by each consumer
    #[arg(long, default_value_t = 200_000)]
    copy_rows: usize,
    /// Rows the writer inserts during each streaming measurement
    #[arg(long, default_value_t = 50_000)]
    stream_rows: usize,
    /// Rows per INSERT statement (= per transaction) of the streaming writer
    #[arg(long, default_value_t = 50)]
    writer_batch: usize,
    /// Only the offline measurements
    #[arg(long)]
    offline_only: bool,
    /// Shards of the offline streaming path's stream: every transaction (on one of them) carries
    /// a VGTID listing them all, as VTGate sends to a stream of that many shards
    #[arg(long, default_value_t = 1)]
    offline_shards: usize,
    /// Rows per copy batch of the offline copy path (one ROW event each, then the batch's
    /// VGTID): the tablet sends a batch per packet of its copy query's rows
    #[arg(long, default_value_t = 1000)]
    copy_batch_rows: usize,
    /// VTGate gRPC address
    #[arg(long, env = "VTGATE_GRPC_ADDR", default_value = "127.0.0.1:15991")]
    address: String,
    /// VTGate MySQL host and port (for seeding and writing)
    #[arg(long, env = "VTGATE_MYSQL_HOST", default_value = "127.0.0.1")]
    mysql_host: String,
    #[arg(long, env = "VTGATE_MYSQL_PORT", default_value_t = 15993)]
    mysql_port: u16,
    /// Unsharded keyspace that holds the (temporary) bench table
    #[arg(long, default_value = "commerce")]
    keyspace: String,
    /// The bench table: created, seeded, and dropped at the end
    #[arg(long, default_value = "bench_events")]
    table: String,
    /// Where to write the results as JSON
    #[arg(long, default_value = "target/vitess-cdc-bench.json")]
    json: String,
    /// Runs of every live scenario per consumer; the median (by wall time) is reported
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Keep the bench table afterwards, and reuse it when it already holds --copy-rows rows
    #[arg(long)]
    keep_table: bool,
    /// Only the snapshot comparison: in-stream VStream copy vs chunked snapshot, for one large
    /// table and for --snapshot-tables small ones holding the same rows (docs/benchmarks.md)
    #[arg(long)]
    snapshots: bool,
    /// Rows in all of the snapshot comparison (one table, or split over the small tables)
    #[arg(long, default_value_t = 200_000)]
    snapshot_rows: usize,
    /// Small tables of the snapshot comparison
    #[arg(long, default_value_t = 200)]
    snapshot_tables: usize,
    /// Chunk side streams at once in the snapshot comparison
    #[arg(long, default_value_t = vitess_cdc_core::options::defaults::SNAPSHOT_CHUNKS_IN_FLIGHT)]
    snapshot_chunks_in_flight: usize,
    /// Lanes per table and shard of the chunked snapshot (a run with one lane is measured beside
    /// it when this is more)
    #[arg(long, default_value_t = vitess_cdc_core::options::defaults::SNAPSHOT_LANES)]
    snapshot_lanes: usize,
    /// Rows per chunk in the snapshot comparison
    #[arg(long, default_value_t = vitess_cdc_core::options::defaults::SNAPSHOT_CHUNK_ROWS)]
    snapshot_chunk_rows: usize,
    /// Shards the snapshot comparison reads (comma-separated; none = every shard): one shard of
    /// two leaves the machine room to read one table with several streams
    #[arg(long, value_delimiter = ',')]
    snapshot_shards: Vec<String>,
    /// Read the chunked snapshot's chunks from the tablets directly, found through this vtctld
    /// (gRPC host:port); a run through VTGate is measured beside it
    #[arg(long, value_name = "HOST:PORT")]
    snapshot_tablets_vtctld: Option<String>,
    /// Seed the snapshot comparison's tables only when they do not hold the rows already (a
    /// table of millions takes minutes to write)
    #[arg(long)]
    snapshot_reuse: bool,
    /// Tablet type of the chunks in the snapshot comparison (vttestserver: rdonly)
    #[arg(long, default_value = "rdonly", value_parser = ["primary", "replica", "rdonly"])]
    snapshot_tablet_type: String,
    /// Only the snapshot's effect on the rest: another table's lag and the writes' latency while
    /// one large table is snapshotted, in-stream copy vs chunked (docs/benchmarks.md)
    #[arg(long)]
    snapshot_lag: bool,
    /// Rows of the large table of --snapshot-lag
    #[arg(long, default_value_t = 1_000_000)]
    lag_rows: usize,
    /// Ticks per second of the --snapshot-lag writer (each: a ticker insert, an update)
    #[arg(long, default_value_t = 100)]
    lag_rate: u64,
    /// End-to-end benchmark role (scripts/bench-e2e.sh): `load` a table, `write` at a steady
    /// rate, or consume as the count-only `floor`; uses --keyspace, --table, --e2e-*
    #[arg(long)]
    e2e: Option<String>,
    /// Table shape of `load`/`write`: narrow (8 columns) or wide (every type family)
    #[arg(long, default_value = "narrow")]
    e2e_shape: String,
    /// Rows to load; events the floor consumes before it ends
    #[arg(long, default_value_t = 0)]
    e2e_rows: usize,
    /// First id that `load`/`write` inserts
    #[arg(long, default_value_t = 1)]
    e2e_first_id: i64,
    /// `load` into the existing table (no drop/create)
    #[arg(long)]
    e2e_append: bool,
    /// Rows per INSERT of `load`, each its own transaction (0: 500 narrow, 200 wide); 1 gives
    /// the single-row transactions of an OLTP application
    #[arg(long, default_value_t = 0)]
    e2e_txn_rows: usize,
    /// Where the floor starts: initial (copy), latest, positions JSON, or @file
    #[arg(long, default_value = "initial")]
    e2e_start: String,
    /// Scenario name the floor puts into its result
    #[arg(long, default_value = "")]
    e2e_scenario: String,
    /// Rows per second of `write`
    #[arg(long, default_value_t = 2000)]
    e2e_rate: u64,
    /// Seconds `write` runs
    #[arg(long, default_value_t = 60.0)]
    e2e_seconds: f64,
    /// Latency: seconds after the first record before sampling (the floor then ends after
    /// --e2e-window seconds of samples instead of after --e2e-rows)
    #[arg(long, default_value_t = 3.0)]
    e2e_warmup: f64,
    #[arg(long, default_value_t = 0.0)]
    e2e_window: f64,
    /// Internal: run as the streaming writer child process (`--writer FIRST_ID`)
    #[arg(long, hide = true)]
    writer: Option<i64>,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    if let Some(role) = &args.e2e {
        return match e2e::run(&args, role) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vitess-cdc-bench --e2e {role}: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    if let Some(first) = args.writer {
        return match live::run_writer(&args, first) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("writer: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    if cfg!(debug_assertions) {
        eprintln!("warning: this is a debug build; build with --release for meaningful figures");
    }
    let machine = report::machine();
    println!(
        "vitess-cdc-bench — {} CPUs ({}), {}",
        machine["cpus"],
        machine["cpu_model"].as_str().unwrap_or(""),
        env!("CARGO_PKG_VERSION")
    );

    if args.snapshots {
        let runs = snapshots::run(&args)
            .map(|runs| runs.iter().map(snapshots::Run::to_json).collect::<Vec<_>>());
        return write_runs(&args, machine, "snapshots", runs);
    }
    if args.snapshot_lag {
        let runs = snapshot_lag::run(&args).map(|runs| {
            runs.iter()
                .map(snapshot_lag::LagRun::to_json)
                .collect::<Vec<_>>()
        });
        return write_runs(&args, machine, "snapshot_lag", runs);
    }

    let offline = offline::run(&args);

    let mut live_json = Vec::new();
    let mut failed = None;
    if !args.offline_only {
        match live::run(&args) {
            Ok(results) => live_json = report::live_scenarios(&args, &results),
            Err(e) => {
                eprintln!("live benchmark failed: {e}");
                failed = Some(e);
            }
        }
    }

    report::write(&args, machine, &offline, live_json, &failed);
    if failed.is_some() {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}

/// Writes one comparison's runs as `{"machine": …, KEY: runs}` to `--json`.
fn write_runs(
    args: &Args,
    machine: serde_json::Value,
    key: &str,
    runs: Result<Vec<serde_json::Value>, String>,
) -> std::process::ExitCode {
    match runs {
        Ok(runs) => {
            let json = serde_json::json!({ "machine": machine, key: runs });
            if let Err(e) = std::fs::write(&args.json, serde_json::to_string_pretty(&json).unwrap())
            {
                eprintln!("cannot write {}: {e}", args.json);
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{key} benchmark failed: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
