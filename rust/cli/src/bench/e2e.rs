// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The Rust roles of the end-to-end benchmark (`scripts/bench-e2e.sh`, docs/benchmarks.md):
//!
//! * `load`: creates a bench table in the sharded keyspace (with its vindex) and inserts rows
//!   through VTGate, several statements in flight;
//! * `write`: the steady writer of the latency scenario, inserting rows at a fixed rate, each
//!   stamped with the wall-clock time (µs) just before its statement goes out;
//! * `floor`: the count-only consumer, the floor every VStream client pays: a raw tonic VStream
//!   whose row changes are counted from the protobuf without decoding values (only the stamp
//!   column is read, in the latency scenario).
//!
//! The consumer prints one JSON line in the shape every consumer of the benchmark prints (the
//! Java ones in `java/vitess-cdc-bench`): counts, first/last record times, CPU of this process
//! (`getrusage`), peak RSS, CPU per thread and latency percentiles.

use crate::live::{raw_request, sql};
use crate::Args;
use serde_json::{json, Value as Json};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use vitess_cdc_core::client::VtgateClient;
use vitess_cdc_core::proto::binlogdata::{ShardGtid, VEventType};
use vitess_cdc_core::StreamOptions;

/// The two table shapes: `narrow` (8 columns, shaped like `customer.customer` plus a note and
/// the stamp) and `wide` (one column of every type family). `stamp_us` is last in both.
pub(crate) fn create_table(shape: &str, table: &str) -> Result<String, String> {
    let columns = match shape {
        "narrow" => {
            "id BIGINT NOT NULL, email VARCHAR(128) NOT NULL, name VARCHAR(64),
             balance DECIMAL(12, 2) NOT NULL, visits INT NOT NULL, updated_at DATETIME(6) NOT NULL,
             note VARCHAR(64), stamp_us BIGINT NOT NULL"
        }
        "wide" => {
            "id BIGINT NOT NULL, c_tinyint TINYINT, c_smallint_u SMALLINT UNSIGNED,
             c_mediumint MEDIUMINT, c_int INT, c_bigint_u BIGINT UNSIGNED, c_bool BOOLEAN,
             c_decimal DECIMAL(30, 10), c_float FLOAT, c_double DOUBLE, c_bit64 BIT(64),
             c_date DATE, c_datetime6 DATETIME(6), c_timestamp TIMESTAMP(3) NULL DEFAULT NULL,
             c_time TIME, c_year YEAR, c_char CHAR(10), c_varchar VARCHAR(255), c_text TEXT,
             c_latin1 VARCHAR(32) CHARACTER SET latin1, c_binary BINARY(16),
             c_varbinary VARBINARY(255), c_blob BLOB, c_enum ENUM('small', 'medium', 'large'),
             c_set SET('a', 'b', 'c', 'd'), c_json JSON, stamp_us BIGINT NOT NULL"
        }
        other => return Err(format!("unknown table shape '{other}' (narrow or wide)")),
    };
    Ok(format!(
        "create table `{table}` ({columns}, PRIMARY KEY (id)) ENGINE = InnoDB"
    ))
}

fn now_us() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

/// The SQL literal tuple of row `id` in `shape`, stamped `stamp_us`.
fn row_values(shape: &str, id: i64, stamp_us: i64) -> String {
    if shape == "wide" {
        format!(
            "({id}, {}, {}, {}, {}, {}, {}, {}.{:010}, {}.5, {}.25, b'{:b}', '2026-{:02}-{:02}', \
             '2026-11-29 12:{:02}:{:02}.{:06}', '2026-11-29 13:00:00.{:03}', '{:02}:{:02}:{:02}', {}, \
             'c{}', 'varchar value {id} with some text', 'a text column of row {id}', 'café {}', \
             UNHEX(LPAD(HEX({id}), 32, '0')), UNHEX(HEX({id})), 'blob {id}', '{}', '{}', \
             '{{\"id\": {id}, \"tags\": [1, 2]}}', {stamp_us})",
            id % 128,
            id % 65_536,
            id % 8_000_000,
            id as i32,
            id as u64 * 7,
            id % 2,
            id % 1_000_000_000,
            id % 10_000_000_000,
            id % 1000,
            id,
            id,
            id % 12 + 1,
            id % 28 + 1,
            id % 60,
            id % 60,
            id % 1_000_000,
            id % 1000,
            id % 24,
            id % 60,
            id % 60,
            1901 + id % 255,
            id % 1000,
            id % 1000,
            ["small", "medium", "large"][(id % 3) as usize],
            ["a", "a,b", "b,c,d", ""][(id % 4) as usize],
        )
    } else {
        format!(
            "({id}, 'user{id}@example.com', 'user {id}', {}.{:02}, {}, \
             '2026-11-29 12:00:00.{:06}', 'note {}', {stamp_us})",
            id % 100_000,
            id % 100,
            id % 1000,
            id % 1_000_000,
            id % 977
        )
    }
}

/// The column names of `shape`, in [`create_table`]'s order (VTGate wants them in an INSERT).
fn column_names(shape: &str) -> &'static str {
    if shape == "wide" {
        "id, c_tinyint, c_smallint_u, c_mediumint, c_int, c_bigint_u, c_bool, c_decimal, c_float, \
         c_double, c_bit64, c_date, c_datetime6, c_timestamp, c_time, c_year, c_char, c_varchar, \
         c_text, c_latin1, c_binary, c_varbinary, c_blob, c_enum, c_set, c_json, stamp_us"
    } else {
        "id, email, name, balance, visits, updated_at, note, stamp_us"
    }
}

fn insert(shape: &str, table: &str, ids: std::ops::Range<i64>) -> String {
    let stamp = now_us();
    let values: Vec<String> = ids.map(|id| row_values(shape, id, stamp)).collect();
    format!(
        "insert into `{table}` ({}) values {}",
        column_names(shape),
        values.join(",")
    )
}

/// `load`: (re)creates the table unless `--e2e-append`, then inserts `--e2e-rows` rows from
/// `--e2e-first-id`, `--e2e-txn-rows` rows per statement (500 narrow, 200 wide by default), 4
/// statements in flight.
fn load(args: &Args) -> Result<(), String> {
    let rt = runtime()?;
    let shape = args.e2e_shape.as_str();
    let table = args.table.as_str();
    rt.block_on(async {
        if !args.e2e_append {
            sql(
                args,
                &[
                    format!("drop table if exists `{table}`"),
                    create_table(shape, table)?,
                ],
            )
            .await?;
            // A table of a sharded keyspace needs a vindex; a re-created table keeps its own.
            if let Err(e) = sql(
                args,
                &[format!(
                    "alter vschema on `{table}` add vindex hash(id) using hash"
                )],
            )
            .await
            {
                if !e.contains("already") {
                    return Err(e);
                }
            }
        }
        let t0 = Instant::now();
        let per = match args.e2e_txn_rows {
            0 if shape == "wide" => 200,
            0 => 500,
            n => n as i64,
        };
        // One connection per this many statements: ≈ 10 000 rows, however they are cut.
        let statements_per_connection = (10_000 / per).max(20) as usize;
        let first = args.e2e_first_id;
        let end = first + args.e2e_rows as i64;
        let lanes: i64 = 4;
        let mut tasks = Vec::new();
        for lane in 0..lanes {
            let args = args.clone();
            let shape = shape.to_string();
            tasks.push(tokio::spawn(async move {
                let mut statements = Vec::new();
                let mut id = first + lane * per;
                while id < end {
                    statements.push(insert(&shape, &args.table, id..(id + per).min(end)));
                    if statements.len() == statements_per_connection {
                        sql(&args, &statements).await?;
                        statements.clear();
                    }
                    id += per * lanes;
                }
                sql(&args, &statements).await
            }));
        }
        for t in tasks {
            t.await.map_err(|e| e.to_string())??;
        }
        eprintln!(
            "load: {} rows into {}.{table} in {:.1} s",
            args.e2e_rows,
            args.keyspace,
            t0.elapsed().as_secs_f64()
        );
        Ok(())
    })
}

/// `write`: `--e2e-rate` rows per second, `--writer-batch` rows per statement (one
/// transaction), for `--e2e-seconds`, ids from `--e2e-first-id`.
fn write(args: &Args) -> Result<(), String> {
    use mysql_async::prelude::Queryable;
    let rt = runtime()?;
    rt.block_on(async {
        let opts = crate::live::mysql_opts(args);
        let mut conn = mysql_async::Conn::new(opts)
            .await
            .map_err(|e| e.to_string())?;
        let batch = args.writer_batch.max(1) as i64;
        let interval = Duration::from_secs_f64(batch as f64 / args.e2e_rate.max(1) as f64);
        let deadline = Instant::now() + Duration::from_secs_f64(args.e2e_seconds);
        let mut next = Instant::now();
        let mut id = args.e2e_first_id;
        while Instant::now() < deadline {
            conn.query_drop(insert(&args.e2e_shape, &args.table, id..id + batch))
                .await
                .map_err(|e| e.to_string())?;
            id += batch;
            next += interval;
            tokio::time::sleep_until(next.into()).await;
        }
        conn.disconnect().await.ok();
        Ok(())
    })
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

/// When a consumer run ends.
enum End {
    /// After this many row changes.
    Events(u64),
    /// Latency: records seen after `warmup` from the first record are sampled for `window`.
    Window { warmup: Duration, window: Duration },
}

/// The first/last record times, the count and the latency samples of one consumer run.
struct Recorder {
    opened: Instant,
    first: Option<(Instant, f64, f64, f64)>, // (when, process age s, CPU s, machine CPU s)
    last: Option<Instant>,
    events: u64,
    latencies_us: Vec<i64>,
}

impl Recorder {
    fn record(&mut self, n: u64) {
        if self.first.is_none() {
            self.first = Some((
                Instant::now(),
                process_age_s(),
                crate::report::cpu_seconds(),
                crate::report::machine_busy_cpu_seconds(),
            ));
        }
        self.events += n;
        self.last = Some(Instant::now());
    }
}

/// `floor`: the count-only consumer; prints its result as one JSON line.
fn floor(args: &Args) -> Result<(), String> {
    let rt = runtime()?;
    let end = if args.e2e_window > 0.0 {
        End::Window {
            warmup: Duration::from_secs_f64(args.e2e_warmup),
            window: Duration::from_secs_f64(args.e2e_window),
        }
    } else {
        End::Events(args.e2e_rows as u64)
    };
    let mut rec = Recorder {
        opened: Instant::now(),
        first: None,
        last: None,
        events: 0,
        latencies_us: Vec::new(),
    };
    rt.block_on(consume(args, &end, &mut rec))?;
    let threads = thread_cpu();
    let cpu_end = crate::report::cpu_seconds();
    let machine_cpu_end = crate::report::machine_busy_cpu_seconds();
    println!(
        "{}",
        result_json(args, &rec, (cpu_end, machine_cpu_end), threads)
    );
    Ok(())
}

async fn consume(args: &Args, end: &End, rec: &mut Recorder) -> Result<(), String> {
    let mut options = StreamOptions::new(args.address.clone(), args.keyspace.clone());
    options.tables = vec![args.table.clone()];
    let client = VtgateClient::connect(&options)
        .await
        .map_err(|e| e.full_message())?;
    let shard_gtids = start_gtids(args, &client).await?;
    // PRIMARY, as every consumer of the benchmark.
    let request = raw_request(&args.table, shard_gtids);
    let mut stream = client
        .vstream(request, Duration::from_secs(120))
        .await
        .map_err(|e| e.full_message())?;
    loop {
        let Some(response) = stream
            .message()
            .await
            .map_err(|s| format!("floor VStream: {s}"))?
            .map(|received| received.response)
        else {
            return Err("the VStream ended early".into());
        };
        for e in &response.events {
            if VEventType::try_from(e.r#type) != Ok(VEventType::Row) {
                continue;
            }
            let Some(row_event) = e.row_event.as_ref() else {
                continue;
            };
            rec.record(row_event.row_changes.len() as u64);
            if let End::Window { warmup, .. } = end {
                let (first, ..) = rec.first.expect("recorded");
                if first.elapsed() >= *warmup {
                    let now = now_us();
                    for change in &row_event.row_changes {
                        if let Some(stamp) = change.after.as_ref().and_then(last_column_i64) {
                            rec.latencies_us.push(now - stamp);
                        }
                    }
                }
            }
        }
        let done = match end {
            End::Events(n) => rec.events >= *n,
            End::Window { warmup, window } => rec
                .first
                .is_some_and(|(first, ..)| first.elapsed() >= *warmup + *window),
        };
        if done {
            return Ok(());
        }
    }
}

/// Every shard from `--e2e-start`: `initial` (copy), `latest`, or positions JSON / `@file`.
async fn start_gtids(args: &Args, client: &VtgateClient) -> Result<Vec<ShardGtid>, String> {
    let start = match args.e2e_start.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?,
        None => args.e2e_start.clone(),
    };
    let gtid_for_all = match start.trim() {
        "initial" => Some(""),
        "latest" => Some("current"),
        _ => None,
    };
    if let Some(gtid) = gtid_for_all {
        let info = client
            .describe_keyspace(&args.keyspace)
            .await
            .map_err(|e| e.full_message())?;
        return Ok(info
            .shards
            .into_iter()
            .map(|shard| ShardGtid {
                keyspace: args.keyspace.clone().into(),
                shard: shard.into(),
                gtid: gtid.to_string().into(),
                table_p_ks: vec![],
            })
            .collect());
    }
    let positions = vitess_cdc_core::position::parse_specific_offsets(&args.keyspace, &start)
        .map_err(|e| e.full_message())?;
    Ok(positions
        .into_iter()
        .map(|p| ShardGtid {
            keyspace: p.keyspace.into(),
            shard: p.shard.into(),
            gtid: p.gtid.into(),
            table_p_ks: vec![],
        })
        .collect())
}

/// The last column of a row (the stamp), read from its length-prefixed text without decoding
/// the others.
fn last_column_i64(row: &vitess_cdc_core::proto::query::Row) -> Option<i64> {
    let len = row.cell_lengths().last()?.ok()?;
    if len < 0 {
        return None;
    }
    let text = row.values.get(row.values.len() - len as usize..)?;
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// Seconds since this process started (`/proc/self/stat` start time against `/proc/uptime`).
fn process_age_s() -> f64 {
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_comm = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    // Fields after the comm start at field 3 (state); starttime is field 22.
    let start = after_comm
        .split_whitespace()
        .nth(19)
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(0.0);
    let uptime = std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    uptime - start / ticks
}

/// CPU seconds per thread of this process, grouped by thread name without its digits.
fn thread_cpu() -> Json {
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let mut by_name = std::collections::BTreeMap::<String, f64>::new();
    for entry in std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten()
    {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name: String = stat[open + 1..close]
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .collect();
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let cpu = fields.get(11..13).map_or(0.0, |f| {
            f.iter().filter_map(|v| v.parse::<f64>().ok()).sum()
        });
        *by_name.entry(name.trim().to_string()).or_default() += cpu / ticks;
    }
    json!(by_name)
}

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The nearest-rank percentile `p` (0–1] of sorted microseconds, in milliseconds.
pub(crate) fn percentile_ms(sorted_us: &[i64], p: f64) -> Option<f64> {
    if sorted_us.is_empty() {
        return None;
    }
    let i = ((sorted_us.len() as f64 * p).ceil() as usize).clamp(1, sorted_us.len()) - 1;
    Some(sorted_us[i] as f64 / 1000.0)
}

/// `cpu_end`: this process's and the machine's CPU seconds now.
fn result_json(args: &Args, rec: &Recorder, cpu_end: (f64, f64), threads: Json) -> Json {
    let (first, age_at_first, cpu_at_first, machine_cpu_at_first) =
        rec.first.expect("a finished run saw a record");
    let (cpu_end, machine_cpu_end) = cpu_end;
    let last = rec.last.unwrap_or(first);
    let span = last.duration_since(first).as_secs_f64();
    let mut lat = rec.latencies_us.clone();
    lat.sort_unstable();
    json!({
        "consumer": "floor",
        "scenario": args.e2e_scenario,
        "table": args.table,
        "events": rec.events,
        "process_to_first_s": age_at_first,
        "open_to_first_s": first.duration_since(rec.opened).as_secs_f64(),
        "first_to_last_s": span,
        "events_per_s": if span > 0.0 { rec.events as f64 / span } else { 0.0 },
        "cpu_s": cpu_end,
        "cpu_s_first_to_last": cpu_end - cpu_at_first,
        "machine_cpu_s_first_to_last": machine_cpu_end - machine_cpu_at_first,
        "peak_rss_mb": peak_rss_mb(),
        "latency_samples": lat.len(),
        "latency_p50_ms": percentile_ms(&lat, 0.50),
        "latency_p99_ms": percentile_ms(&lat, 0.99),
        "threads_cpu_s": threads,
    })
}

/// Runs the role `--e2e ROLE`.
pub(crate) fn run(args: &Args, role: &str) -> Result<(), String> {
    match role {
        "load" => load(args),
        "write" => write(args),
        "floor" => floor(args),
        other => Err(format!(
            "unknown --e2e role '{other}' (load, write or floor)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stamp_is_read_from_the_last_column() {
        let row = vitess_cdc_core::proto::query::Row::with_lengths(
            [2, -1, 16],
            b"421764000000123456".to_vec(),
        );
        assert_eq!(last_column_i64(&row), Some(1_764_000_000_123_456));
        let null_stamp = vitess_cdc_core::proto::query::Row::with_lengths([2, -1], b"42".to_vec());
        assert_eq!(last_column_i64(&null_stamp), None);
    }

    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let us: Vec<i64> = (1..=100).map(|i| i * 1000).collect();
        assert_eq!(percentile_ms(&us, 0.50), Some(50.0));
        assert_eq!(percentile_ms(&us, 0.99), Some(99.0));
        assert_eq!(percentile_ms(&[], 0.5), None);
    }

    #[test]
    fn both_shapes_end_with_the_stamp() {
        for shape in ["narrow", "wide"] {
            let ddl = create_table(shape, "t").unwrap();
            assert!(
                ddl.contains("stamp_us BIGINT NOT NULL, PRIMARY KEY"),
                "{ddl}"
            );
            assert!(row_values(shape, 7, 99).ends_with(", 99)"));
            for name in column_names(shape).split(',').map(str::trim) {
                assert!(ddl.contains(&format!("{name} ")), "{name} not in {ddl}");
            }
        }
        assert!(create_table("round", "t").is_err());
    }
}
