// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Chunked snapshots under the tablet throttler, on the multi-process local Vitess (`bash
//! tests/vitess/cluster/up.sh`, then `source tests/vitess/cluster/env.sh`). Run with
//! `cargo test -p vitess-cdc-core --features cluster --test cluster_throttler`.
//!
//! The throttler of keyspace `customer` is enabled with a threshold of 2 s of replication lag,
//! and the capture asks it, through vtctld, before each chunk (`SnapshotOptions::throttler`).
//! - A replica that lags: shard -80's replica stops replicating. No chunk starts on -80 while
//!   its throttler refuses, and the time is counted; 80-, whose replica is healthy, captures its
//!   part meanwhile and its log goes on. Once the replica replicates again, -80's chunks start.
//! - Our app throttled by name (`UpdateThrottlerConfig --throttle-app vitess-cdc`): no chunk
//!   starts on any shard, while the log of both shards goes on. Once unthrottled, the capture
//!   completes.
//!
//! Every time the stream must be a strict changelog and end equal to the table. The throttler is
//! disabled again and the replica replicates again at the end, whatever happened.
#![cfg(feature = "cluster")]

mod common;

use common::cluster::{self, ctl};
use common::{timeouts, Materialized};
use mysql_async::prelude::Queryable;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use vitess_cdc_core::options::ThrottlerOptions;
use vitess_cdc_core::snapshot::{Capture, CaptureStream, ShardProgress};
use vitess_cdc_core::{Event, SnapshotOptions, StartMode, StreamOptions, Value};

const KEYSPACE: &str = "customer";
const TABLE: &str = "throttled_capture";
const ROWS: i64 = 4_000;
const LAGGING: &str = "-80";
const HEALTHY: &str = "80-";
/// Seconds of replication lag the throttler allows (Vitess's default is 5).
const THRESHOLD: &str = "2";

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn alias(v: &serde_json::Value) -> String {
    format!(
        "{}-{:010}",
        v["cell"].as_str().expect("cell"),
        v["uid"].as_u64().expect("uid")
    )
}

fn primary_of(shard: &str) -> String {
    alias(&json(&ctl(&["GetShard", &format!("{KEYSPACE}/{shard}")]))["shard"]["primary_alias"])
}

fn replica_of(shard: &str) -> String {
    let out = ctl(&[
        "GetTablets",
        "--keyspace",
        KEYSPACE,
        "--shard",
        shard,
        "--tablet-type",
        "replica",
    ]);
    out.split_whitespace()
        .next()
        .unwrap_or_else(|| panic!("shard {shard} has no replica: {out}"))
        .to_string()
}

/// The throttler's answer to our app on `shard`'s primary (renewing the heartbeat lease, as the
/// capture's checks do).
fn check(shard: &str) -> String {
    let out = ctl(&[
        "CheckThrottler",
        "--app-name",
        "vitess-cdc",
        "--request-heartbeats",
        &primary_of(shard),
    ]);
    json(&out)["Check"]["response_code"]
        .as_str()
        .unwrap_or("UNDEFINED")
        .to_string()
}

/// Waits until each shard's check answers as wanted.
fn wait_for_checks(wanted: &[(&str, &str)]) {
    let deadline = Instant::now() + timeouts::progress();
    loop {
        let answers: Vec<(String, String)> = wanted
            .iter()
            .map(|(shard, _)| (shard.to_string(), check(shard)))
            .collect();
        if wanted
            .iter()
            .zip(&answers)
            .all(|((_, want), (_, got))| want == got)
        {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the throttler did not answer {wanted:?} in time: {answers:?}"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// The throttler of the keyspace enabled while it lives; disabled after, with the replica
/// stopped here replicating again and our app's rule removed.
struct ThrottlerOn {
    stopped_replica: Option<String>,
}

impl ThrottlerOn {
    fn enable() -> ThrottlerOn {
        ctl(&[
            "UpdateThrottlerConfig",
            "--enable",
            "--threshold",
            THRESHOLD,
            KEYSPACE,
        ]);
        ThrottlerOn {
            stopped_replica: None,
        }
    }

    fn stop_replication(&mut self, shard: &str) {
        let replica = replica_of(shard);
        ctl(&["StopReplication", &replica]);
        self.stopped_replica = Some(replica);
    }

    fn start_replication(&mut self) {
        if let Some(replica) = self.stopped_replica.take() {
            ctl(&["StartReplication", &replica]);
        }
    }
}

impl Drop for ThrottlerOn {
    fn drop(&mut self) {
        self.start_replication();
        ctl(&[
            "UpdateThrottlerConfig",
            "--unthrottle-app",
            "vitess-cdc",
            KEYSPACE,
        ]);
        // Disabled, with Vitess's default threshold back.
        ctl(&[
            "UpdateThrottlerConfig",
            "--disable",
            "--threshold",
            "5",
            KEYSPACE,
        ]);
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

async fn connect() -> mysql_async::Conn {
    mysql_async::Conn::new(cluster::mysql_opts(KEYSPACE))
        .await
        .expect("connect to the cluster VTGate's MySQL port")
}

/// A fresh table of `ROWS` rows (`version` 0), sharded by `id`.
async fn fill_table() {
    let mut conn = connect().await;
    for statement in [
        format!("DROP TABLE IF EXISTS {TABLE}"),
        format!(
            "CREATE TABLE {TABLE} (id BIGINT NOT NULL PRIMARY KEY, version BIGINT NOT NULL, payload VARCHAR(100) NOT NULL)"
        ),
        format!("ALTER VSCHEMA ON {KEYSPACE}.{TABLE} ADD VINDEX hash(id) USING hash"),
    ] {
        // The vindex may be left from an earlier run.
        let r = conn.query_drop(&statement).await;
        if let Err(e) = r {
            assert!(statement.contains("VSCHEMA"), "{statement}: {e}");
        }
    }
    for start in (0..ROWS).step_by(1_000) {
        let values: Vec<String> = (start..start + 1_000)
            .map(|id| format!("({id},0,'row {id}')"))
            .collect();
        conn.query_drop(format!(
            "INSERT INTO {TABLE} (id, version, payload) VALUES {}",
            values.join(",")
        ))
        .await
        .unwrap();
    }
    conn.disconnect().await.ok();
}

/// The table and its vindex go: the cluster's reshards copy every table of the keyspace.
async fn drop_table() {
    let mut conn = connect().await;
    conn.query_drop(format!("DROP TABLE IF EXISTS {TABLE}"))
        .await
        .unwrap();
    conn.query_drop(format!(
        "ALTER VSCHEMA ON {KEYSPACE}.{TABLE} DROP VINDEX hash"
    ))
    .await
    .unwrap();
    conn.disconnect().await.ok();
}

/// The ids of the table on `shard`.
async fn ids_on(shard: &str) -> Vec<i64> {
    let mut conn = connect().await;
    conn.query_drop(format!("USE `{KEYSPACE}:{shard}`"))
        .await
        .unwrap();
    let ids: Vec<i64> = conn
        .query(format!("SELECT id FROM {TABLE} ORDER BY id"))
        .await
        .unwrap();
    conn.disconnect().await.ok();
    ids
}

/// Runs each statement, one at a time, through VTGate.
async fn run_all(statements: impl IntoIterator<Item = String>) {
    let mut conn = connect().await;
    for sql in statements {
        conn.query_drop(&sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    conn.disconnect().await.ok();
}

/// Every `(id, version)` of the table.
async fn table_rows() -> BTreeMap<i64, i64> {
    let mut conn = connect().await;
    let rows: Vec<(i64, i64)> = conn
        .query(format!("SELECT id, version FROM {TABLE} ORDER BY id"))
        .await
        .unwrap();
    conn.disconnect().await.ok();
    rows.into_iter().collect()
}

fn versions(view: &Materialized) -> BTreeMap<i64, i64> {
    view.rows
        .iter()
        .filter(|((t, _), _)| t == TABLE)
        .map(|(_, v)| match (&v[0], &v[1]) {
            (Value::Int(id), Value::Int(version)) => (*id, *version),
            other => panic!("unexpected values {other:?}"),
        })
        .collect()
}

fn open_capture(rt: &tokio::runtime::Runtime) -> CaptureStream {
    let mut o = StreamOptions::new(cluster::vtgate_plain(), KEYSPACE);
    o.tables = vec![TABLE.into()];
    o.start = StartMode::Latest;
    let snap = SnapshotOptions {
        chunk_rows: 400,
        chunks_in_flight: 2,
        throttler: Some(ThrottlerOptions::new(cluster::env(
            "VT_CLUSTER_VTCTLD_ADDR",
        ))),
        ..SnapshotOptions::default()
    };
    let capture = Capture {
        table: TABLE.into(),
        filter: None,
        shards: Vec::new(),
    };
    rt.block_on(CaptureStream::open(o, vec![capture], snap))
        .expect("open the capture")
}

/// Reads until `done` says so (given the shards' progress and the view), failing after the
/// capture deadline.
fn read_until(
    rt: &tokio::runtime::Runtime,
    stream: &mut CaptureStream,
    view: &mut Materialized,
    what: &str,
    mut done: impl FnMut(&BTreeMap<String, ShardProgress>, &Materialized) -> bool,
) {
    let deadline = Instant::now() + timeouts::copy();
    while !done(&stream.progress().shards, view) {
        assert!(
            Instant::now() < deadline,
            "{what}: not in time; progress {:#?}",
            stream.progress().shards
        );
        // Returns at least at every VTGate heartbeat (5 s), so `done` is asked again.
        let events = rt
            .block_on(stream.next_events())
            .expect("the capture stream");
        for e in &events {
            if let Event::Change(c) = e {
                view.apply(c);
            }
        }
    }
}

fn shard<'a>(p: &'a BTreeMap<String, ShardProgress>, name: &str) -> &'a ShardProgress {
    p.get(name)
        .unwrap_or_else(|| panic!("no progress of shard {name}: {p:?}"))
}

#[test]
fn chunks_wait_for_the_tablet_throttler_and_the_log_goes_on() {
    // The capture's own account (held, going on, failed checks) goes with a failure's output.
    let _ = tracing_subscriber::fmt()
        .with_env_filter("vitess_cdc_core::snapshot=info")
        .with_test_writer()
        .try_init();
    let rt = runtime();
    rt.block_on(fill_table());
    // The replicas learn the new table now, so its chunks read from them, as in production.
    ctl(&["ReloadSchemaKeyspace", "--include-primary", KEYSPACE]);
    let healthy_ids = rt.block_on(ids_on(HEALTHY));
    let lagging_ids = rt.block_on(ids_on(LAGGING));
    assert!(
        healthy_ids.len() > 1_000 && lagging_ids.len() > 1_000,
        "rows on both shards"
    );
    let mut throttler = ThrottlerOn::enable();

    // 1. A lagging replica: -80 refused, 80- allowed.
    throttler.stop_replication(LAGGING);
    wait_for_checks(&[(LAGGING, "THRESHOLD_EXCEEDED"), (HEALTHY, "OK")]);
    let mut stream = open_capture(&rt);
    let mut view = Materialized::default();
    let mut bumped = false;
    read_until(
        &rt,
        &mut stream,
        &mut view,
        "80- captured while -80 is held",
        |p, view| {
            let (healthy, lagging) = (shard(p, HEALTHY), shard(p, LAGGING));
            if !bumped && healthy.chunks_done >= 1 {
                // The log of the allowed shard goes on beside its chunks.
                bumped = true;
                rt.block_on(run_all(healthy_ids[..3].iter().map(|id| {
                    format!("UPDATE {TABLE} SET version = version + 1 WHERE id = {id}")
                })));
            }
            let bumps_seen = healthy_ids[..3]
                .iter()
                .all(|id| versions(view).get(id) == Some(&1));
            healthy.tables_remaining == 0
                && bumps_seen
                && lagging.throttled
                && lagging.throttled_ms >= 3_000
        },
    );
    let p = stream.progress().shards;
    assert_eq!(
        shard(&p, LAGGING).chunks_started,
        0,
        "no chunk starts on a shard the throttler refuses: {p:#?}"
    );
    assert!(!shard(&p, HEALTHY).throttled, "{p:#?}");
    eprintln!("-80 held while 80- was captured: {p:#?}");

    // The replica replicates again: -80's chunks start and the capture completes.
    throttler.start_replication();
    read_until(
        &rt,
        &mut stream,
        &mut view,
        "the capture completes",
        |p, _| p.values().all(|s| s.tables_remaining == 0),
    );
    let p = stream.progress().shards;
    let lagging = shard(&p, LAGGING);
    assert!(
        !lagging.throttled && lagging.chunks_started > 0 && lagging.throttled_ms >= 3_000,
        "-80 went on after the hold, which stays counted: {lagging:?}"
    );
    let expected = rt.block_on(table_rows());
    read_until(
        &rt,
        &mut stream,
        &mut view,
        "the log caught up",
        |_, view| versions(view) == expected,
    );
    view.assert_strict();
    drop(stream);

    // 2. Our app throttled by name: no chunk starts anywhere, the log of every shard goes on.
    ctl(&[
        "UpdateThrottlerConfig",
        "--throttle-app",
        "vitess-cdc",
        "--throttle-app-duration",
        "10m",
        KEYSPACE,
    ]);
    wait_for_checks(&[(LAGGING, "APP_DENIED"), (HEALTHY, "APP_DENIED")]);
    let mut stream = open_capture(&rt);
    let mut view = Materialized::default();
    let mut inserted = false;
    // New rows, spread over both shards by the hash vindex: inserts are new keys, so the
    // changelog stays strict although the capture has not emitted the table yet.
    let new_ids: Vec<i64> = (ROWS..ROWS + 20).collect();
    read_until(
        &rt,
        &mut stream,
        &mut view,
        "the log goes on while every shard is held",
        |p, view| {
            if !inserted && p.len() == 2 && p.values().all(|s| s.throttled) {
                inserted = true;
                rt.block_on(run_all(new_ids.iter().map(|id| {
                    format!("INSERT INTO {TABLE} (id, version, payload) VALUES ({id}, 0, 'new')")
                })));
            }
            let log_seen = !view.ids(TABLE, ROWS..ROWS + 20).is_empty()
                && view.ids(TABLE, ROWS..ROWS + 20).len() == new_ids.len();
            log_seen && p.values().all(|s| s.throttled && s.throttled_ms >= 2_000)
        },
    );
    let on_lagging = rt.block_on(ids_on(LAGGING));
    assert!(
        new_ids.iter().any(|id| on_lagging.contains(id))
            && new_ids.iter().any(|id| !on_lagging.contains(id)),
        "the new rows went to both shards, so both logs delivered while held"
    );
    let p = stream.progress().shards;
    assert!(
        p.values().all(|s| s.chunks_started == 0),
        "no chunk starts while our app is throttled: {p:#?}"
    );
    ctl(&[
        "UpdateThrottlerConfig",
        "--unthrottle-app",
        "vitess-cdc",
        KEYSPACE,
    ]);
    read_until(
        &rt,
        &mut stream,
        &mut view,
        "the capture completes",
        |p, _| p.values().all(|s| s.tables_remaining == 0 && !s.throttled),
    );
    let expected = rt.block_on(table_rows());
    read_until(
        &rt,
        &mut stream,
        &mut view,
        "the log caught up",
        |_, view| versions(view) == expected,
    );
    view.assert_strict();
    drop(stream);
    drop(throttler);
    rt.block_on(drop_table());
}
