// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Live measurements against the local VTGate: a count-only baseline consumer (raw tonic
//! VStream, counts row changes without decoding them) versus the full core (`BlockingStream` →
//! typed events → batch encoding), for the copy of a seeded table, for streaming while a writer
//! child process inserts, and for a streaming catch-up (replaying that binlog from a saved
//! position).

use crate::report::{median, Measurement, Meter};
use crate::Args;
use std::time::{Duration, Instant};
use vitess_cdc_core::batch::{BatchEncoder, EncodeError};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::client::VtgateClient;
use vitess_cdc_core::proto::binlogdata::{Filter, Rule, ShardGtid, VEventType, VGtid};
use vitess_cdc_core::proto::vtgate::{VStreamFlags, VStreamRequest};
use vitess_cdc_core::{Event, ShardPosition, StartMode, StreamOptions};

pub(crate) fn mysql_opts(args: &Args) -> mysql_async::Opts {
    mysql_async::OptsBuilder::default()
        .ip_or_hostname(args.mysql_host.clone())
        .tcp_port(args.mysql_port)
        .user(Some("root"))
        .db_name(Some(args.keyspace.clone()))
        .into()
}

pub(crate) async fn sql(args: &Args, statements: &[String]) -> Result<(), String> {
    use mysql_async::prelude::Queryable;
    let mut conn = mysql_async::Conn::new(mysql_opts(args))
        .await
        .map_err(|e| {
            format!(
                "cannot connect to VTGate's MySQL port {}:{}: {e}",
                args.mysql_host, args.mysql_port
            )
        })?;
    for s in statements {
        conn.query_drop(s)
            .await
            .map_err(|e| format!("{}: {e}", &s[..s.len().min(120)]))?;
    }
    conn.disconnect().await.ok();
    Ok(())
}

/// Rows of an earlier seeding (ids below the writer's), if the table exists.
async fn seeded_rows(args: &Args) -> Option<i64> {
    use mysql_async::prelude::Queryable;
    let mut conn = mysql_async::Conn::new(mysql_opts(args)).await.ok()?;
    let n: Option<i64> = conn
        .query_first(format!(
            "select count(*) from `{}` where customer_id < 1000000000",
            args.table
        ))
        .await
        .ok()
        .flatten();
    conn.disconnect().await.ok();
    n
}

fn insert_rows(table: &str, ids: std::ops::Range<i64>) -> String {
    let values: Vec<String> = ids
        .map(|id| {
            format!(
                "({id}, 'user{id}@example.com', 'user {id}', {}.{:02}, {}, '2026-11-29 12:00:00.{:06}')",
                id % 100_000,
                id % 100,
                id % 1000,
                id % 1_000_000
            )
        })
        .collect();
    format!(
        "insert into `{table}` (customer_id, email, name, balance, visits, updated_at) values {}",
        values.join(",")
    )
}

fn create_table(table: &str) -> String {
    format!(
        "create table if not exists `{table}` (
           customer_id BIGINT NOT NULL, email VARCHAR(128) NOT NULL, name VARCHAR(64),
           balance DECIMAL(12, 2) NOT NULL DEFAULT 0, visits INT NOT NULL DEFAULT 0,
           updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
           PRIMARY KEY (customer_id)) ENGINE = InnoDB"
    )
}

/// The writer child: inserts `stream_rows` rows from `first_id`, `writer_batch` per statement.
pub(crate) fn run_writer(args: &Args, first_id: i64) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        use mysql_async::prelude::Queryable;
        let mut conn = mysql_async::Conn::new(mysql_opts(args))
            .await
            .map_err(|e| e.to_string())?;
        let end = first_id + args.stream_rows as i64;
        let mut id = first_id;
        while id < end {
            let to = (id + args.writer_batch as i64).min(end);
            conn.query_drop(insert_rows(&args.table, id..to))
                .await
                .map_err(|e| e.to_string())?;
            id = to;
        }
        conn.disconnect().await.ok();
        Ok(())
    })
}

fn spawn_writer(args: &Args, first_id: i64) -> Result<std::process::Child, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    std::process::Command::new(exe)
        .args([
            "--writer",
            &first_id.to_string(),
            "--stream-rows",
            &args.stream_rows.to_string(),
            "--writer-batch",
            &args.writer_batch.to_string(),
            "--mysql-host",
            &args.mysql_host,
            "--mysql-port",
            &args.mysql_port.to_string(),
            "--keyspace",
            &args.keyspace,
            "--table",
            &args.table,
        ])
        .spawn()
        .map_err(|e| format!("cannot start the writer process: {e}"))
}

/// The raw VStream request of the count-only consumers (the floor): every column of `table`
/// from PRIMARY tablets at `shard_gtids`, VTGate heartbeats every second. `table` is one table
/// by name, or `/regex/` for every table it matches (VStream's own pattern rule).
pub(crate) fn raw_request(table: &str, shard_gtids: Vec<ShardGtid>) -> VStreamRequest {
    let filter = if table.len() > 2 && table.starts_with('/') && table.ends_with('/') {
        String::new()
    } else {
        format!("select * from `{table}`")
    };
    VStreamRequest {
        caller_id: None,
        tablet_type: 1, // PRIMARY
        vgtid: Some(VGtid { shard_gtids }),
        filter: Some(Filter {
            rules: vec![Rule {
                r#match: table.to_string(),
                filter,
            }],
            ..Default::default()
        }),
        flags: Some(VStreamFlags {
            heartbeat_interval: 1,
            ..Default::default()
        }),
    }
}

fn stream_options(args: &Args, start: StartMode) -> StreamOptions {
    let mut o = StreamOptions::new(args.address.clone(), args.keyspace.clone());
    o.tables = vec![args.table.clone()];
    o.start = start;
    o.heartbeat_interval_secs = 1;
    o
}

/// How a consumer run ends.
#[derive(Clone, Copy)]
enum Until {
    CopyCompleted,
    Rows(u64),
}

/// The count-only baseline: raw VStream responses, row changes of the bench table counted
/// from the protobuf without looking at the values.
fn baseline(
    args: &Args,
    positions: Vec<ShardPosition>,
    until: Until,
    writer_from: Option<i64>,
) -> Result<Measurement, String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        let meter = Meter::start();
        let options = stream_options(args, StartMode::Latest);
        let client = VtgateClient::connect(&options)
            .await
            .map_err(|e| e.full_message())?;
        let request = raw_request(
            &args.table,
            positions
                .iter()
                .map(|p| ShardGtid {
                    keyspace: p.keyspace.clone().into(),
                    shard: p.shard.clone().into(),
                    gtid: p.gtid.clone().into(),
                    table_p_ks: vec![],
                })
                .collect(),
        );
        // The writer starts before the stream (which resumes from a position taken before
        // it): VTGate answers the VStream call only with its first events.
        let mut writer = match writer_from {
            Some(first) => Some(spawn_writer(args, first)?),
            None => None,
        };
        let mut stream = client
            .vstream(request, Duration::from_secs(60))
            .await
            .map_err(|e| e.full_message())?;
        let mut rows = 0u64;
        let mut bytes = 0u64;
        'outer: loop {
            let Some(received) = stream
                .message()
                .await
                .map_err(|s| format!("baseline VStream: {s}"))?
            else {
                return Err("baseline VStream ended early".into());
            };
            bytes += received.encoded_len as u64;
            let response = received.response;
            for e in &response.events {
                match VEventType::try_from(e.r#type) {
                    Ok(VEventType::Row) => {
                        rows += e
                            .row_event
                            .as_ref()
                            .map_or(0, |r| r.row_changes.len() as u64);
                    }
                    Ok(VEventType::CopyCompleted)
                        if matches!(until, Until::CopyCompleted) && e.keyspace.is_empty() =>
                    {
                        break 'outer; // the stream-wide COPY_COMPLETED
                    }
                    _ => {}
                }
                if let Until::Rows(n) = until {
                    if rows >= n {
                        break 'outer;
                    }
                }
            }
        }
        let (wall, cpu) = meter.stop();
        if let Some(w) = writer.as_mut() {
            let _ = w.wait();
        }
        Ok(Measurement {
            name: String::new(),
            events: rows,
            bytes,
            wall_s: wall,
            cpu_s: cpu,
        })
    })
}

/// The full core: BlockingStream → typed events → batch encoding (1 MiB batches).
fn core(
    args: &Args,
    start: StartMode,
    until: Until,
    writer_from: Option<i64>,
) -> Result<Measurement, String> {
    let meter = Meter::start();
    let mut writer = match writer_from {
        Some(first) => Some(spawn_writer(args, first)?),
        None => None,
    };
    let stream = BlockingStream::open(stream_options(args, start)).map_err(|e| e.full_message())?;
    let opened = meter.wall.elapsed().as_secs_f64();
    let mut first_change = None;
    let mut encoder = BatchEncoder::new();
    let limit = 1 << 20;
    encoder.begin(limit);
    let mut changes = 0u64;
    let mut out_bytes = 0u64;
    'outer: loop {
        let events = stream
            .poll(Duration::from_millis(200))
            .map_err(|e| e.full_message())?;
        for e in &events {
            match encoder.encode(e) {
                Ok(()) => {}
                Err(EncodeError::Full { .. }) => {
                    out_bytes += encoder.finish().len() as u64;
                    encoder.begin(limit);
                    encoder
                        .encode(e)
                        .map_err(|e| format!("event larger than a batch: {e:?}"))?;
                }
                Err(EncodeError::Unrepresentable(m)) => return Err(m),
            }
            match e {
                Event::Change(c) if c.schema.table == args.table => {
                    changes += 1;
                    first_change.get_or_insert_with(|| meter.wall.elapsed().as_secs_f64());
                }
                Event::CopyCompleted | Event::End if matches!(until, Until::CopyCompleted) => {
                    break 'outer;
                }
                _ => {}
            }
            if let Until::Rows(n) = until {
                if changes >= n {
                    break 'outer;
                }
            }
        }
    }
    out_bytes += encoder.finish().len() as u64;
    let (wall, cpu) = meter.stop();
    if std::env::var_os("BENCH_DEBUG").is_some() {
        eprintln!(
            "core: open {opened:.3}s, first change {:.3}s, end {wall:.3}s, metrics {:?}",
            first_change.unwrap_or(0.0),
            stream.metrics()
        );
    }
    stream.close();
    if let Some(w) = writer.as_mut() {
        let _ = w.wait();
    }
    Ok(Measurement {
        name: String::new(),
        events: changes,
        bytes: out_bytes,
        wall_s: wall,
        cpu_s: cpu,
    })
}

/// Every shard's current position (marks after starting from `latest`).
fn current_positions(args: &Args) -> Result<Vec<ShardPosition>, String> {
    let stream = BlockingStream::open(stream_options(args, StartMode::Latest))
        .map_err(|e| e.full_message())?;
    let shards = stream.positions().shards.len();
    let started = Instant::now();
    let mut marked = std::collections::BTreeSet::new();
    while marked.len() < shards {
        if started.elapsed() > Duration::from_secs(30) {
            return Err("no position from VTGate within 30 s".into());
        }
        for e in stream
            .poll(Duration::from_millis(200))
            .map_err(|e| e.full_message())?
        {
            if let Event::Mark(p) = e {
                marked.insert(p.shard);
            }
        }
    }
    let p = stream.positions().shards;
    stream.close();
    Ok(p)
}

struct DropTable<'a>(&'a Args);
impl Drop for DropTable<'_> {
    fn drop(&mut self) {
        if self.0.keep_table {
            return;
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        if let Err(e) = rt.block_on(sql(
            self.0,
            &[format!("drop table if exists `{}`", self.0.table)],
        )) {
            eprintln!("warning: could not drop the bench table: {e}");
        }
    }
}

pub(crate) fn run(args: &Args) -> Result<Vec<Scenario>, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let _drop = DropTable(args);
    eprintln!(
        "seeding {}.{} with {} rows…",
        args.keyspace, args.table, args.copy_rows
    );
    let seed_started = Instant::now();
    rt.block_on(async {
        if args.keep_table && seeded_rows(args).await == Some(args.copy_rows as i64) {
            // reuse: only forget earlier writer runs (VTGate caps a DML at 10 000 rows)
            use mysql_async::prelude::Queryable;
            let mut conn = mysql_async::Conn::new(mysql_opts(args))
                .await
                .map_err(|e| e.to_string())?;
            loop {
                conn.query_drop(format!(
                    "delete from `{}` where customer_id >= 1000000000 limit 5000",
                    args.table
                ))
                .await
                .map_err(|e| e.to_string())?;
                if conn.affected_rows() == 0 {
                    break;
                }
            }
            conn.disconnect().await.ok();
            return Ok(());
        }
        sql(
            args,
            &[
                format!("drop table if exists `{}`", args.table),
                create_table(&args.table),
            ],
        )
        .await?;
        let chunk = 2000i64;
        let mut statements = Vec::new();
        let mut id = 0i64;
        while id < args.copy_rows as i64 {
            let to = (id + chunk).min(args.copy_rows as i64);
            statements.push(insert_rows(&args.table, id..to));
            id = to;
        }
        sql(args, &statements).await
    })?;
    eprintln!("seeded in {:.1} s", seed_started.elapsed().as_secs_f64());
    // let the tablet's schema engine see the new table
    std::thread::sleep(Duration::from_secs(2));

    let copy_from_scratch = |shards: &[ShardPosition]| -> Vec<ShardPosition> {
        shards
            .iter()
            .map(|p| ShardPosition {
                gtid: String::new(),
                table_p_ks: vec![],
                tables_to_copy: vec![],
                copy_completed: false,
                snapshots: Vec::new(),
                ..p.clone()
            })
            .collect()
    };
    let now = current_positions(args)?;
    let rows = args.stream_rows as u64;
    let mut results = Vec::new();
    let mut copy = (Vec::new(), Vec::new());
    for r in 1..=args.repeat {
        eprintln!("copy {r}/{}: baseline, core…", args.repeat);
        copy.0.push(baseline(
            args,
            copy_from_scratch(&now),
            Until::CopyCompleted,
            None,
        )?);
        copy.1.push(core(
            args,
            StartMode::SnapshotOnly,
            Until::CopyCompleted,
            None,
        )?);
    }
    results.push(scenario(format!("copy of {} rows", args.copy_rows), copy));

    // streaming while a writer process inserts; every run gets its own writer run of the same
    // shape (fresh ids), baseline and core alternating
    let before_load = current_positions(args)?;
    let mut live = (Vec::new(), Vec::new());
    for r in 0..args.repeat {
        eprintln!(
            "streaming {}/{}: baseline, core (with writer)…",
            r + 1,
            args.repeat
        );
        let first_id = 1_000_000_000i64 + (2 * r) as i64 * args.stream_rows as i64;
        let start = current_positions(args)?;
        live.0
            .push(baseline(args, start, Until::Rows(rows), Some(first_id))?);
        let start = current_positions(args)?;
        live.1.push(core(
            args,
            StartMode::Positions(start),
            Until::Rows(rows),
            Some(first_id + args.stream_rows as i64),
        )?);
    }
    results.push(scenario(
        format!(
            "streaming {} rows written concurrently ({} rows/txn)",
            args.stream_rows, args.writer_batch
        ),
        live,
    ));

    // catch-up: replay the first writer run's binlog from the saved position, as fast as possible
    let mut replay = (Vec::new(), Vec::new());
    for r in 1..=args.repeat {
        eprintln!("catch-up {r}/{}: baseline, core…", args.repeat);
        replay.0.push(baseline(
            args,
            before_load.clone(),
            Until::Rows(rows),
            None,
        )?);
        replay.1.push(core(
            args,
            StartMode::Positions(before_load.clone()),
            Until::Rows(rows),
            None,
        )?);
    }
    results.push(scenario(
        format!(
            "streaming catch-up of {} rows (binlog replay)",
            args.stream_rows
        ),
        replay,
    ));
    Ok(results)
}

/// One live scenario: the median run (by wall time) of each consumer, plus every run.
pub(crate) struct Scenario {
    pub(crate) name: String,
    pub(crate) baseline: Measurement,
    pub(crate) core: Measurement,
    pub(crate) runs: (Vec<Measurement>, Vec<Measurement>),
}

fn scenario(name: String, runs: (Vec<Measurement>, Vec<Measurement>)) -> Scenario {
    Scenario {
        baseline: median(&runs.0, "baseline (raw VStream, count only)"),
        core: median(&runs.1, "core (BlockingStream + batch encode)"),
        name,
        runs,
    }
}
