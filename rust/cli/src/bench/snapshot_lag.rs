// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `--snapshot-lag`: what a snapshot of one large table does to everything else, with today's
//! in-stream VStream copy and with the chunked snapshot, side by side in one run.
//!
//! A writer thread runs for the whole capture, at `--lag-rate` ticks per second; each tick
//! inserts a row into a small *ticker* table (the row carries the writer's clock) and updates a
//! row of the large table. Measured per method:
//! * the **ticker's lag**: when the consumer receives a ticker insert minus when the writer sent
//!   it, for every tick sent during the capture (the capture's end = the in-stream copy's
//!   `CopyCompleted`, the chunked capture's last table-shard done). The stream covers both
//!   tables; with the in-stream copy the ticker's changes wait behind the large table's copy.
//! * the **writes' latency** on the large table (the application's `UPDATE`s, through VTGate to
//!   the primary): a snapshot's table lock on the primary delays them; a chunk's lock on a
//!   replica does not.
//!
//! Consumer = `BlockingStream` over both tables: `initial` (the in-stream copy), or `latest`
//! with the large table captured in chunks. Nothing asserts; the figures are printed.

use super::e2e::percentile_ms;
use super::snapshots::{create, inserts, tablet_type};
use super::Args;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::snapshot::Capture;
use vitess_cdc_core::{Event, RowKind, SnapshotOptions, StartMode, StreamOptions, Value};

const BIG: &str = "bench_lag_big";
const TICKER: &str = "bench_lag_ticker";
/// How long the consumer waits, after the capture, for the last tick sent during it.
const DRAIN: Duration = Duration::from_secs(120);

fn now_us() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

/// What one method's run measured.
#[derive(Debug, Clone)]
pub(crate) struct LagRun {
    pub method: String,
    pub capture_secs: f64,
    pub captured_rows: u64,
    /// Ticker inserts sent during the capture and their lags (µs), sorted.
    pub ticker_lag_us: Vec<i64>,
    /// Latencies (µs), sorted, of the large table's updates sent during the capture.
    pub write_latency_us: Vec<i64>,
    /// Chunked only: chunk side streams that failed and were read again, or were discarded
    /// because their tablet was behind the log.
    pub chunks_failed: u64,
    pub chunks_discarded: u64,
}

/// For the printed table: a percentile, NaN when there were no samples.
fn ms(sorted_us: &[i64], p: f64) -> f64 {
    percentile_ms(sorted_us, p).unwrap_or(f64::NAN)
}

impl LagRun {
    pub(crate) fn to_json(&self) -> serde_json::Value {
        let stats = |v: &[i64]| {
            serde_json::json!({
                "samples": v.len(),
                "p50_ms": percentile_ms(v, 0.50),
                "p99_ms": percentile_ms(v, 0.99),
                "max_ms": percentile_ms(v, 1.0),
            })
        };
        serde_json::json!({
            "method": self.method, "capture_secs": self.capture_secs,
            "captured_rows": self.captured_rows,
            "chunks_failed": self.chunks_failed, "chunks_discarded": self.chunks_discarded,
            "ticker_lag": stats(&self.ticker_lag_us),
            "write_latency": stats(&self.write_latency_us),
        })
    }
}

/// One tick the writer sent: its id, when, and how long the large table's update took.
struct Tick {
    id: i64,
    sent_us: i64,
    update_latency_us: i64,
}

/// The writer thread: ticks until `stop`, then returns every tick it sent.
fn spawn_writer(
    args: &Args,
    big_rows: usize,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Result<Vec<Tick>, String>> {
    let opts = super::live::mysql_opts(args);
    let period = Duration::from_secs_f64(1.0 / args.lag_rate.max(1) as f64);
    std::thread::spawn(move || {
        use mysql_async::prelude::Queryable;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        rt.block_on(async move {
            let mut conn = mysql_async::Conn::new(opts)
                .await
                .map_err(|e| format!("writer: {e}"))?;
            let mut ticks = Vec::new();
            let mut next = tokio::time::Instant::now();
            let mut id = 0i64;
            while !stop.load(Ordering::Acquire) {
                id += 1;
                let sent_us = now_us();
                conn.query_drop(format!(
                    "insert into `{TICKER}` (id, sent_us) values ({id}, {sent_us})"
                ))
                .await
                .map_err(|e| format!("writer: {e}"))?;
                let key = (id * 7919) % big_rows.max(1) as i64;
                let update_started = Instant::now();
                conn.query_drop(format!("update `{BIG}` set v = v + 1 where id = {key}"))
                    .await
                    .map_err(|e| format!("writer: {e}"))?;
                ticks.push(Tick {
                    id,
                    sent_us,
                    update_latency_us: update_started.elapsed().as_micros() as i64,
                });
                next += period;
                tokio::time::sleep_until(next).await;
            }
            conn.disconnect().await.ok();
            Ok(ticks)
        })
    })
}

/// A ticker row's id and send time: an insert, or a row of the ticker's own in-stream copy
/// (a tick sent while the copy had not reached the ticker arrives as a copied row).
fn ticker_row(e: &Event) -> Option<(i64, i64)> {
    match e {
        Event::Change(c)
            if c.schema.table == TICKER && (c.kind == RowKind::Insert || c.is_snapshot) =>
        {
            match (c.values.first(), c.values.get(1)) {
                (Some(Value::Int(id)), Some(Value::Int(sent))) => Some((*id, *sent)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// One method: the stream opens while the writer ticks; ends after the capture once the
/// last tick sent during it arrived.
fn measure(args: &Args, method: &str, big_rows: usize) -> Result<LagRun, String> {
    let mut options = StreamOptions::new(args.address.clone(), args.keyspace.clone());
    options.tables = vec![BIG.to_string(), TICKER.to_string()];
    let chunked = method == "chunked";
    let (captures, snap) = if chunked {
        options.start = StartMode::Latest;
        let capture = Capture {
            table: BIG.to_string(),
            filter: None,
            shards: Vec::new(),
        };
        let snap = SnapshotOptions {
            chunks_in_flight: args.snapshot_chunks_in_flight,
            tablet_type: tablet_type(args),
            ..SnapshotOptions::default()
        };
        (vec![capture], snap)
    } else {
        options.start = StartMode::Initial;
        (Vec::new(), SnapshotOptions::default())
    };
    let stop = Arc::new(AtomicBool::new(false));
    let _stop_on_return = StopOnDrop(stop.clone());
    let mut writer = Some(spawn_writer(args, big_rows, stop.clone()));
    // The writer's first ticks land before the stream opens; ticks sent before `opened_us`
    // are not counted (the in-stream copy reads them as rows of the ticker's copy).
    std::thread::sleep(Duration::from_millis(500));
    let opened_us = now_us();
    let started = Instant::now();
    let stream =
        BlockingStream::open_capturing(options, captures, snap).map_err(|e| e.to_string())?;
    let mut captured_rows = 0u64;
    let mut received: Vec<(i64, i64, i64)> = Vec::new(); // (id, sent_us, lag_us)
    let mut capture_end: Option<(f64, i64)> = None; // (seconds from opening, wall µs)
    let mut last_tick: Option<i64> = None;
    let mut ticks: Vec<Tick> = Vec::new();
    let mut drain_deadline = None;
    loop {
        let events = stream
            .poll(Duration::from_millis(100))
            .map_err(|e| e.to_string())?;
        let received_us = now_us();
        let mut copy_completed = false;
        for e in &events {
            match e {
                Event::Change(c) if c.schema.table == BIG && c.is_snapshot => captured_rows += 1,
                Event::CopyCompleted => copy_completed = true,
                _ => {
                    if let Some((id, sent)) = ticker_row(e) {
                        received.push((id, sent, received_us - sent));
                    }
                }
            }
        }
        if capture_end.is_none() {
            let done = if chunked {
                // Not "every row arrived": a chunk's row of a key the log changed after the
                // chunk's snapshot is dropped (the log's is newer).
                capture_finished(&stream)
            } else {
                copy_completed
            };
            if done {
                capture_end = Some((started.elapsed().as_secs_f64(), now_us()));
                stop.store(true, Ordering::Release);
                ticks = writer
                    .take()
                    .expect("joined once, at the capture's end")
                    .join()
                    .map_err(|_| "the writer panicked".to_string())??;
                last_tick = ticks.last().map(|t| t.id);
                drain_deadline = Some(Instant::now() + DRAIN);
                eprintln!(
                    "{method}: capture done after {:.2} s ({captured_rows} rows); draining the ticker…",
                    started.elapsed().as_secs_f64()
                );
            }
        }
        if capture_end.is_some() && last_tick_arrived(&received, last_tick) {
            break;
        }
        if drain_deadline.is_some_and(|d| Instant::now() > d) {
            return Err(format!(
                "{method}: tick {last_tick:?} did not arrive within {DRAIN:?} of the capture's end"
            ));
        }
    }
    let progress = stream.capture_progress().unwrap_or_default().total();
    stream.close();
    let (capture_secs, end_us) = capture_end.expect("the loop ends after the capture");
    let during = |sent: i64| sent >= opened_us && sent <= end_us;
    let mut ticker_lag_us: Vec<i64> = received
        .iter()
        .filter(|(_, sent, _)| during(*sent))
        .map(|(_, _, lag)| *lag)
        .collect();
    ticker_lag_us.sort_unstable();
    let mut write_latency_us: Vec<i64> = ticks
        .iter()
        .filter(|t| during(t.sent_us))
        .map(|t| t.update_latency_us)
        .collect();
    write_latency_us.sort_unstable();
    Ok(LagRun {
        method: method.to_string(),
        capture_secs,
        captured_rows,
        ticker_lag_us,
        write_latency_us,
        chunks_failed: progress.chunks_failed,
        chunks_discarded: progress.chunks_discarded,
    })
}

/// Waits until the chunks' tablet can stream `BIG`: a table created moments ago is unknown to
/// a non-primary tablet until its schema reloads (up to a minute on vttestserver), and the
/// chunked run would measure those retries instead of the capture. A capture of no rows is
/// retried by the core until it succeeds.
fn wait_until_chunks_can_read(args: &Args) -> Result<(), String> {
    let mut options = StreamOptions::new(args.address.clone(), args.keyspace.clone());
    options.tables = vec![BIG.to_string()];
    options.start = StartMode::Latest;
    let capture = Capture::parse(&format!("{BIG}:`id` < 0")).map_err(|e| e.to_string())?;
    let snap = SnapshotOptions {
        tablet_type: tablet_type(args),
        ..SnapshotOptions::default()
    };
    let stream =
        BlockingStream::open_capturing(options, vec![capture], snap).map_err(|e| e.to_string())?;
    let started = Instant::now();
    while !capture_finished(&stream) {
        if started.elapsed() > DRAIN {
            return Err(format!(
                "the {} tablets did not know {BIG} within {DRAIN:?}",
                args.snapshot_tablet_type
            ));
        }
        stream
            .poll(Duration::from_millis(200))
            .map_err(|e| e.to_string())?;
    }
    stream.close();
    Ok(())
}

/// Whether every table-shard of the stream's chunked capture is done.
fn capture_finished(stream: &BlockingStream) -> bool {
    stream
        .capture_progress()
        .is_some_and(|p| p.shards.values().all(|s| s.tables_remaining == 0))
}

/// Stops the writer however `measure` returns (an error included).
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Whether the last tick the writer sent has arrived.
fn last_tick_arrived(received: &[(i64, i64, i64)], last_tick: Option<i64>) -> bool {
    match last_tick {
        Some(last) => received.iter().any(|(id, _, _)| *id == last),
        None => false,
    }
}

pub(crate) fn run(args: &Args) -> Result<Vec<LagRun>, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let rows = args.lag_rows;
    eprintln!("seeding {BIG} ({rows} rows)…");
    let mut statements = vec![format!("drop table if exists `{BIG}`"), create(BIG)];
    statements.extend(inserts(BIG, rows));
    rt.block_on(super::live::sql(args, &statements))?;
    let mut runs = Vec::new();
    for method in ["in-stream copy", "chunked"] {
        rt.block_on(super::live::sql(
            args,
            &[
                format!("drop table if exists `{TICKER}`"),
                format!(
                    "create table `{TICKER}` (id BIGINT NOT NULL, sent_us BIGINT NOT NULL, \
                     PRIMARY KEY (id)) ENGINE = InnoDB"
                ),
            ],
        ))?;
        if method == "chunked" {
            eprintln!(
                "waiting until the {} tablets know {BIG}…",
                args.snapshot_tablet_type
            );
            wait_until_chunks_can_read(args)?;
        }
        let run = measure(args, method, rows)?;
        eprintln!("{}", run.to_json());
        runs.push(run);
    }
    if !args.keep_table {
        rt.block_on(super::live::sql(
            args,
            &[
                format!("drop table if exists `{BIG}`"),
                format!("drop table if exists `{TICKER}`"),
            ],
        ))?;
    }
    println!();
    println!(
        "Snapshot of {BIG} ({rows} rows) while a writer ticks {} /s (a ticker insert and an \
         update of {BIG} per tick)",
        args.lag_rate
    );
    println!();
    println!("| method | capture: s | ticks during it | ticker lag p50 / p99 / max: ms | {BIG} update p50 / p99 / max: ms | chunks failed / discarded |");
    println!("|---|---:|---:|---:|---:|---:|");
    for r in &runs {
        let l = &r.ticker_lag_us;
        let w = &r.write_latency_us;
        println!(
            "| {} | {:.2} | {} | {:.0} / {:.0} / {:.0} | {:.1} / {:.1} / {:.1} | {} / {} |",
            r.method,
            r.capture_secs,
            l.len(),
            ms(l, 0.5),
            ms(l, 0.99),
            ms(l, 1.0),
            ms(w, 0.5),
            ms(w, 0.99),
            ms(w, 1.0),
            r.chunks_failed,
            r.chunks_discarded,
        );
    }
    Ok(runs)
}
