// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Copies cut by the server, on the multi-process local Vitess (`bash tests/vitess/cluster/up.sh`,
//! then `source tests/vitess/cluster/env.sh`). Run with
//! `cargo test -p vitess-cdc-core --features cluster --test cluster_copy_cuts`.
//!
//! vttablet bounds each copy query of a VStream by `--vreplication-copy-phase-duration` (an hour
//! by default); the query then ends with errno 3024 and the copy must go on from the last primary
//! key it sent, never from the top of the table. Here the shard's tablets run with a limit of one
//! second while a table that takes several seconds to stream is copied and a writer changes it,
//! so the copy is cut again and again. VTGate v24 resumes the shard's stream from its last
//! position itself; older VTGates pass the error on, and the core resumes (`tests/scripted.rs`,
//! `a_copy_cut_again_and_again_by_the_server_resumes_from_its_last_primary_key`, counts those in `copy_resumes`).
//! Either way every row must arrive once, the changelog must stay strict and the result must equal
//! the table.
#![cfg(feature = "cluster")]

mod common;

use common::{cluster, poll_through, timeouts, Materialized};
use mysql_async::prelude::Queryable;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{Event, StartMode, StreamOptions, Value};

const KEYSPACE: &str = "commerce";
const SHARD: &str = "commerce/0";
const TABLE: &str = "copy_cuts";
/// Rows copied: about 60 MB, several seconds of streaming on this machine's cluster.
const ROWS: i64 = 300_000;
/// The limit on each copy query of the shard's tablets.
const COPY_PHASE_LIMIT: &str = "--vreplication-copy-phase-duration=1s";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `tests/vitess/cluster/fault.sh ARGS`, which returns once the cluster serves again.
fn fault(args: &[&str]) {
    let status = Command::new("bash")
        .arg(repo().join("tests/vitess/cluster/fault.sh"))
        .args(args)
        .status()
        .expect("run tests/vitess/cluster/fault.sh");
    assert!(status.success(), "fault.sh {args:?} failed: {status}");
}

/// The shard's tablets with the copy-phase limit while it lives; their default flags after.
struct CopyPhaseLimit;

impl CopyPhaseLimit {
    fn set() -> CopyPhaseLimit {
        fault(&["tablet-flags", SHARD, COPY_PHASE_LIMIT]);
        CopyPhaseLimit
    }
}

impl Drop for CopyPhaseLimit {
    fn drop(&mut self) {
        fault(&["tablet-flags", SHARD]);
    }
}

/// Lines of the shard's vttablet logs (each begun anew when the tablet restarted with the limit)
/// that tell of a copy query cut by the limit.
fn cuts_in_tablet_logs() -> usize {
    let logs = PathBuf::from(cluster::env("VT_CLUSTER_RUN")).join("logs");
    let mut cuts = 0;
    for entry in std::fs::read_dir(&logs).expect("the cluster's logs") {
        let path = entry.expect("a log").path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name != "vttablet-100.log" && name != "vttablet-101.log" {
            continue; // commerce/0's tablets
        }
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).to_string();
        cuts += text
            .lines()
            .filter(|l| l.contains("execution time exceeded") || l.contains("errno 3024"))
            .count();
    }
    cuts
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

async fn connect() -> mysql_async::Conn {
    mysql_async::Conn::new(cluster::mysql_opts(KEYSPACE))
        .await
        .expect("connect to the cluster VTGate's MySQL port")
}

/// A fresh table of `ROWS` rows, `version` 0 each.
async fn fill_table() {
    let mut conn = connect().await;
    conn.query_drop(format!("DROP TABLE IF EXISTS {TABLE}"))
        .await
        .unwrap();
    conn.query_drop(format!(
        "CREATE TABLE {TABLE} (id BIGINT NOT NULL PRIMARY KEY, version BIGINT NOT NULL, payload VARCHAR(200) NOT NULL)"
    ))
    .await
    .unwrap();
    let payload = "x".repeat(180);
    for start in (0..ROWS).step_by(5_000) {
        let values: Vec<String> = (start..(start + 5_000).min(ROWS))
            .map(|id| format!("({id},0,'{payload}')"))
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

/// Until `stop`: updates (version + 1) across the whole key range, deletes and inserts, so that
/// the copy meets changes to rows it sent and to rows it has yet to send.
async fn write_until(stop: Arc<AtomicBool>) -> u64 {
    let mut conn = connect().await;
    let mut writes = 0u64;
    let mut next_new = ROWS;
    let mut i = 0i64;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        let id = (i * 7_919) % ROWS;
        match i % 10 {
            0 => {
                conn.query_drop(format!("DELETE FROM {TABLE} WHERE id = {id}"))
                    .await
                    .unwrap();
            }
            1 => {
                conn.query_drop(format!(
                    "INSERT INTO {TABLE} (id, version, payload) VALUES ({next_new}, 0, 'new')"
                ))
                .await
                .unwrap();
                next_new += 1;
            }
            _ => {
                conn.query_drop(format!(
                    "UPDATE {TABLE} SET version = version + 1 WHERE id = {id}"
                ))
                .await
                .unwrap();
            }
        }
        writes += 1;
    }
    conn.disconnect().await.ok();
    writes
}

/// Every `(id, version)` of the table, read in pages (VTGate refuses results over 10 000 rows).
async fn table_rows() -> Vec<(i64, i64)> {
    let mut conn = connect().await;
    let mut rows: Vec<(i64, i64)> = Vec::new();
    loop {
        let after = rows.last().map_or(i64::MIN, |r| r.0);
        let page: Vec<(i64, i64)> = conn
            .query(format!(
                "SELECT id, version FROM {TABLE} WHERE id > {after} ORDER BY id LIMIT 5000"
            ))
            .await
            .unwrap();
        if page.is_empty() {
            break;
        }
        rows.extend(page);
    }
    conn.disconnect().await.ok();
    rows
}

#[test]
fn a_copy_cut_again_and_again_by_the_server_completes_exactly() {
    let rt = runtime();
    rt.block_on(fill_table());
    let limit = CopyPhaseLimit::set();

    let mut o = StreamOptions::new(cluster::vtgate_plain(), KEYSPACE);
    o.tables = vec![TABLE.into()];
    o.start = StartMode::Initial;
    let stream = BlockingStream::open(o).expect("open the stream");
    let stop = Arc::new(AtomicBool::new(false));
    let writer = rt.spawn(write_until(stop.clone()));

    let mut view = Materialized::default();
    poll_through(&stream, &mut view, timeouts::copy() * 3, |e, _| {
        matches!(e, Event::CopyCompleted)
    });
    stop.store(true, Ordering::Relaxed);
    let writes = rt.block_on(writer).expect("the writer");

    // The writer's last commit is followed by a marker row; once it arrived, so did every change.
    rt.block_on(async {
        connect()
            .await
            .query_drop(format!(
                "INSERT INTO {TABLE} (id, version, payload) VALUES (-1, 0, 'marker')"
            ))
            .await
            .unwrap()
    });
    poll_through(
        &stream,
        &mut view,
        timeouts::progress(),
        |e, _| matches!(e, Event::Change(c) if c.values.first() == Some(&Value::Int(-1))),
    );
    let metrics = stream.metrics();
    stream.close();
    let cuts = cuts_in_tablet_logs();
    drop(limit);

    eprintln!(
        "copy of {ROWS} rows under {COPY_PHASE_LIMIT}: {cuts} cuts in the tablets' logs, \
         {} resumed by the core (copy_resumes), {writes} writes during the copy",
        metrics.copy_resumes
    );
    assert!(
        cuts >= 2,
        "the copy was cut {cuts} times: the test needs a copy longer than the limit (grow ROWS)"
    );
    view.assert_strict();
    let twice: Vec<_> = view.copied.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "rows copied more than once: {twice:?}");
    let streamed: Vec<(i64, i64)> = view
        .rows
        .values()
        .map(|v| match (&v[0], &v[1]) {
            (Value::Int(id), Value::Int(version)) => (*id, *version),
            other => panic!("unexpected values {other:?}"),
        })
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_iter()
        .collect();
    let expected = rt.block_on(table_rows());
    if streamed != expected {
        let streamed: std::collections::BTreeMap<i64, i64> = streamed.into_iter().collect();
        let expected: std::collections::BTreeMap<i64, i64> = expected.into_iter().collect();
        let extra: Vec<_> = streamed
            .iter()
            .filter(|(id, v)| expected.get(id) != Some(v))
            .take(10)
            .collect();
        let missing: Vec<_> = expected
            .iter()
            .filter(|(id, v)| streamed.get(id) != Some(v))
            .take(10)
            .collect();
        panic!(
            "the stream's rows differ from the table's ({} vs {} rows): (id, version) streamed but not so in the table {extra:?}; in the table but not streamed so {missing:?}",
            streamed.len(),
            expected.len()
        );
    }
    rt.block_on(async {
        connect()
            .await
            .query_drop(format!("DROP TABLE {TABLE}"))
            .await
            .unwrap()
    });
}
