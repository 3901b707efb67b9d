// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `--snapshots`: the in-stream VStream copy versus the chunked snapshot, side by side in one
//! run, for one large table and for many small tables holding the same rows in all.
//!
//! In-stream copy = `BlockingStream` in snapshot-only mode over the tables (VTGate copies the
//! tables of a shard one after another, each behind a catch-up that waits at least one tick).
//! Chunked = `CaptureStream` from `latest` with every table captured, until every chunk is
//! merged (side streams per chunk, `--snapshot-chunks-in-flight` at once), with one lane per
//! table and shard and with `--snapshot-lanes`, and — given `--snapshot-tablets-vtctld` — with
//! the chunks read from the tablets directly. Rows per second are
//! rows received by the consumer over the wall time from opening to the end. Nothing asserts.

use super::Args;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::options::TabletType;
use vitess_cdc_core::snapshot::{Capture, CaptureStream};
use vitess_cdc_core::{Event, SnapshotOptions, StartMode, StreamOptions};

const BIG: &str = "bench_snap_big";
const SMALL_PREFIX: &str = "bench_snap_s";

pub(crate) fn create(table: &str) -> String {
    format!(
        "create table if not exists `{table}` (id BIGINT NOT NULL, v BIGINT NOT NULL, \
         pad VARCHAR(48) NOT NULL, PRIMARY KEY (id)) ENGINE = InnoDB"
    )
}

pub(crate) fn inserts(table: &str, rows: usize) -> Vec<String> {
    (0..rows)
        .collect::<Vec<_>>()
        .chunks(2000)
        .map(|ids| {
            let values: Vec<String> = ids
                .iter()
                .map(|id| format!("({id}, {}, 'row {id} of {table}')", id * 7))
                .collect();
            format!(
                "insert into `{table}` (id, v, pad) values {}",
                values.join(",")
            )
        })
        .collect()
}

/// `--snapshot-tablet-type` (one of the three, clap checks): the chunks' tablet type.
pub(crate) fn tablet_type(args: &Args) -> TabletType {
    match args.snapshot_tablet_type.as_str() {
        "primary" => TabletType::Primary,
        "replica" => TabletType::Replica,
        _ => TabletType::Rdonly,
    }
}

fn small(i: usize) -> String {
    format!("{SMALL_PREFIX}{i:03}")
}

/// One measured run.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    pub scenario: String,
    pub method: String,
    pub tables: usize,
    pub rows: u64,
    pub secs: f64,
    pub rows_per_sec: f64,
}

impl Run {
    pub(crate) fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "scenario": self.scenario, "method": self.method, "tables": self.tables,
            "rows": self.rows, "secs": self.secs, "rows_per_sec": self.rows_per_sec,
        })
    }
}

fn options(args: &Args, tables: Vec<String>, start: StartMode) -> StreamOptions {
    let mut o = StreamOptions::new(args.address.clone(), args.keyspace.clone());
    o.tables = tables;
    o.start = start;
    o.shards = args.snapshot_shards.clone();
    o
}

fn in_stream_copy(args: &Args, tables: Vec<String>) -> Result<(u64, f64), String> {
    let started = Instant::now();
    let stream = BlockingStream::open(options(args, tables, StartMode::SnapshotOnly))
        .map_err(|e| e.to_string())?;
    let mut rows = 0u64;
    loop {
        let events = stream
            .poll(Duration::from_millis(200))
            .map_err(|e| e.to_string())?;
        let mut end = false;
        for e in &events {
            match e {
                Event::Change(_) => rows += 1,
                Event::End => end = true,
                _ => {}
            }
        }
        if end {
            break;
        }
    }
    stream.close();
    Ok((rows, started.elapsed().as_secs_f64()))
}

fn chunked(
    args: &Args,
    tables: Vec<String>,
    lanes: usize,
    tablets_vtctld: Option<String>,
) -> Result<(u64, f64), String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let captures = tables
        .iter()
        .map(|t| Capture {
            table: t.clone(),
            filter: None,
            shards: Vec::new(),
        })
        .collect();
    let snap = SnapshotOptions {
        chunks_in_flight: args.snapshot_chunks_in_flight,
        chunk_rows: args.snapshot_chunk_rows,
        lanes,
        tablets_vtctld,
        tablet_type: tablet_type(args),
        ..SnapshotOptions::default()
    };
    let mut stream = rt
        .block_on(CaptureStream::open(
            options(args, tables, StartMode::Latest),
            captures,
            snap,
        ))
        .map_err(|e| e.to_string())?;
    let mut rows = 0u64;
    while !stream.capture_done() {
        let events = rt
            .block_on(stream.next_events())
            .map_err(|e| e.to_string())?;
        rows += events
            .iter()
            .filter(|e| matches!(e, Event::Change(c) if c.kind == vitess_cdc_core::RowKind::SnapshotRead))
            .count() as u64;
    }
    Ok((rows, started.elapsed().as_secs_f64()))
}

pub(crate) fn run(args: &Args) -> Result<Vec<Run>, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let total = args.snapshot_rows;
    let n_small = args.snapshot_tables;
    let small_tables: Vec<String> = (0..n_small).map(small).collect();
    let mut seeded = Vec::new();
    if !(args.snapshot_reuse && rt.block_on(holds_rows(args, BIG, total))?) {
        eprintln!("seeding {BIG} ({total} rows)…");
        seeded.push((BIG.to_string(), total));
    }
    if let Some(per_table) = total.checked_div(n_small) {
        eprintln!("seeding {n_small} tables of {per_table} rows…");
    }
    seeded.extend(small_tables.iter().map(|t| (t.clone(), total / n_small)));
    for (table, rows) in &seeded {
        rt.block_on(super::live::sql(
            args,
            &[format!("drop table if exists `{table}`"), create(table)],
        ))?;
        // A sharded keyspace's table needs a vindex (an unsharded keyspace refuses one: fine).
        let vindex = format!("alter vschema on `{table}` add vindex hash(id) using hash");
        if let Err(e) = rt.block_on(super::live::sql(args, &[vindex])) {
            if !e.contains("already") {
                eprintln!("(no vindex for {table}: {e})");
            }
        }
        rt.block_on(super::live::sql(args, &inserts(table, *rows)))?;
    }
    let mut scenarios = vec![("one large table", vec![BIG.to_string()])];
    if n_small > 0 {
        scenarios.push(("many small tables", small_tables.clone()));
    }
    // The chunked snapshot with its lanes, and with one lane (each table's chunks on a shard one
    // after another) when more are asked for.
    let lanes = args.snapshot_lanes;
    let mut methods = vec![("in-stream copy".to_string(), 0, None)];
    if lanes > 1 {
        methods.push(("chunked, 1 lane".to_string(), 1, None));
    }
    methods.push((format!("chunked, {lanes} lanes"), lanes, None));
    if let Some(vtctld) = &args.snapshot_tablets_vtctld {
        if lanes > 1 {
            methods.push((
                "chunked from tablets, 1 lane".to_string(),
                1,
                Some(vtctld.clone()),
            ));
        }
        methods.push((
            format!("chunked from tablets, {lanes} lanes"),
            lanes,
            Some(vtctld.clone()),
        ));
    }
    // Every in-stream copy first: a table created moments ago is unknown to a non-primary
    // tablet until its schema reloads, and the chunks read from one (their first attempts
    // would fail and be retried, which is not what this measures).
    let mut runs = Vec::new();
    for (method, lanes, vtctld) in &methods {
        for (name, tables) in &scenarios {
            let (rows, secs) = if *lanes == 0 {
                in_stream_copy(args, tables.clone())?
            } else {
                chunked(args, tables.clone(), *lanes, vtctld.clone())?
            };
            let run = Run {
                scenario: name.to_string(),
                method: method.clone(),
                tables: tables.len(),
                rows,
                secs,
                rows_per_sec: rows as f64 / secs.max(1e-9),
            };
            eprintln!("{run:?}");
            runs.push(run);
        }
    }
    // Side by side: every method per scenario.
    let n = scenarios.len();
    let runs: Vec<Run> = (0..n)
        .flat_map(|i| {
            (0..methods.len())
                .map(|m| runs[m * n + i].clone())
                .collect::<Vec<_>>()
        })
        .collect();
    if !args.keep_table {
        let mut drops = vec![format!("drop table if exists `{BIG}`")];
        drops.extend(
            small_tables
                .iter()
                .map(|t| format!("drop table if exists `{t}`")),
        );
        rt.block_on(super::live::sql(args, &drops))?;
    }
    println!();
    let header: Vec<String> = methods
        .iter()
        .map(|(m, _, _)| format!("{m}: s | rows/s"))
        .collect();
    println!(
        "| scenario | tables | rows | {} | copy ÷ chunked |",
        header.join(" | ")
    );
    println!("|---|---:|---:|{}---:|", "---:|---:|".repeat(methods.len()));
    for row in runs.chunks(methods.len()) {
        let cells: Vec<String> = row
            .iter()
            .map(|r| format!("{:.2} | {:.0}", r.secs, r.rows_per_sec))
            .collect();
        let last = row.last().expect("a method");
        println!(
            "| {} | {} | {} | {} | {:.2}× |",
            row[0].scenario,
            row[0].tables,
            row[0].rows,
            cells.join(" | "),
            row[0].secs / last.secs.max(1e-9)
        );
    }
    Ok(runs)
}

/// Whether `table` exists with `rows` rows (`--snapshot-reuse`).
async fn holds_rows(args: &Args, table: &str, rows: usize) -> Result<bool, String> {
    use mysql_async::prelude::Queryable;
    let Ok(mut conn) = mysql_async::Conn::new(super::live::mysql_opts(args)).await else {
        return Ok(false);
    };
    let n: Option<u64> = conn
        .query_first(format!("select count(*) from `{table}`"))
        .await
        .ok()
        .flatten();
    conn.disconnect().await.ok();
    Ok(n == Some(rows as u64))
}
