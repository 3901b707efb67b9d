// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Chunks read from the tablets directly (`SnapshotOptions::tablets_vtctld`), on the
//! multi-process local Vitess (`bash tests/vitess/cluster/up.sh`, then `source
//! tests/vitess/cluster/env.sh`). Run with `cargo test -p vitess-cdc-core --features cluster
//! --test cluster_tablet_chunks`.
//!
//! A table on both shards of `customer` is captured while a writer updates, deletes and inserts
//! its rows: the chunks come from each shard's REPLICA, found through vtctld, in lanes read side
//! by side; the log comes through VTGate. Applied as upserts (a capture's rows are: the log's
//! changes of a key not captured yet come first), per-key versions must never go back, and the
//! result must equal `SELECT *`. With a vtctld that cannot be reached, the chunks go through
//! VTGate after three failures per shard, and the result is the same.
#![cfg(feature = "cluster")]

mod common;

use common::{cluster, timeouts};
use mysql_async::prelude::Queryable;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vitess_cdc_core::options::TabletType;
use vitess_cdc_core::snapshot::{Capture, CaptureStream, ShardProgress};
use vitess_cdc_core::{Event, RowKind, SnapshotOptions, StartMode, StreamOptions, Value};

const KEYSPACE: &str = "customer";
const TABLE: &str = "tablet_chunks";
const ROWS: i64 = 30_000;
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
        if let Err(e) = conn.query_drop(&statement).await {
            assert!(statement.contains("VSCHEMA"), "{statement}: {e}");
        }
    }
    for start in (1..=ROWS).step_by(2_000) {
        let values: Vec<String> = (start..start + 2_000)
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
    // The replicas learn a new table at their next schema reload: now, so that no chunk is
    // refused for not knowing it (a case live_snapshot.rs covers).
    cluster::ctl(&["ReloadSchemaKeyspace", KEYSPACE]);
}

/// The table and its vindex go: the cluster's reshards copy every table of the keyspace.
struct DropTable;

impl Drop for DropTable {
    fn drop(&mut self) {
        runtime().block_on(async {
            let mut conn = connect().await;
            conn.query_drop(format!("DROP TABLE IF EXISTS {TABLE}"))
                .await
                .ok();
            conn.query_drop(format!(
                "ALTER VSCHEMA ON {KEYSPACE}.{TABLE} DROP VINDEX hash"
            ))
            .await
            .ok();
            conn.disconnect().await.ok();
        });
    }
}

async fn table_rows() -> BTreeMap<i64, i64> {
    let mut conn = connect().await;
    // More rows than VTGate's OLTP limit (10 000).
    conn.query_drop("SET workload = 'olap'").await.unwrap();
    let rows: Vec<(i64, i64)> = conn
        .query(format!("SELECT id, version FROM {TABLE}"))
        .await
        .unwrap();
    conn.disconnect().await.ok();
    rows.into_iter().collect()
}

/// Writes until stopped: updates (a growing version), deletes and inserts, one at a time.
fn writer(stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        runtime().block_on(async move {
            let mut conn = connect().await;
            let mut rng = rand::rngs::StdRng::seed_from_u64(0x7461_626c);
            let mut version = 0i64;
            let mut next_id = ROWS + 1;
            let mut statements = 0u64;
            while !stop.load(Ordering::SeqCst) {
                version += 1;
                let id = rng.random_range(1..=ROWS);
                let sql = match rng.random_range(0..10) {
                    0 => format!("DELETE FROM {TABLE} WHERE id = {id}"),
                    1 => {
                        next_id += 1;
                        format!("INSERT INTO {TABLE} (id, version, payload) VALUES ({next_id}, {version}, 'new')")
                    }
                    _ => format!("UPDATE {TABLE} SET version = {version} WHERE id = {id}"),
                };
                conn.query_drop(&sql)
                    .await
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
                statements += 1;
            }
            conn.disconnect().await.ok();
            statements
        })
    })
}

/// Captures the table under the writer with chunks from the tablets `vtctld` lists; checks that
/// versions never go back and the result equals `SELECT *`; returns the capture's progress.
fn capture_under_writer(vtctld: String) -> ShardProgress {
    // One table for both tests: one at a time.
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rt = runtime();
    rt.block_on(fill_table());
    let _drop = DropTable;
    let mut o = StreamOptions::new(cluster::vtgate_plain(), KEYSPACE);
    o.tables = vec![TABLE.into()];
    o.start = StartMode::Latest;
    let snap = SnapshotOptions {
        chunk_rows: 2_000,
        chunks_in_flight: 4,
        lanes: 4,
        tablet_type: TabletType::Replica,
        tablets_vtctld: Some(vtctld),
        ..SnapshotOptions::default()
    };
    let capture = Capture {
        table: TABLE.into(),
        filter: None,
        shards: Vec::new(),
    };
    let mut stream = rt
        .block_on(CaptureStream::open(o, vec![capture], snap))
        .expect("open the capture");
    let stop = Arc::new(AtomicBool::new(false));
    let writing = writer(stop.clone());
    // The upserted view: id → version.
    let mut view: BTreeMap<i64, i64> = BTreeMap::new();
    // Per key, the version last seen: a snapshot row or a change must never carry an older one.
    let mut last: BTreeMap<i64, i64> = BTreeMap::new();
    let mut went_back = Vec::new();
    let mut snapshot_rows = 0u64;
    let mut schemas = 0usize;
    let mut apply = |events: &[Event], view: &mut BTreeMap<i64, i64>| {
        for e in events {
            if matches!(e, Event::Schema(_)) {
                schemas += 1;
            }
            let Event::Change(c) = e else { continue };
            let (Value::Int(id), Value::Int(v)) = (&c.values[0], &c.values[1]) else {
                panic!("unexpected values {:?}", c.values);
            };
            match c.kind {
                RowKind::UpdateBefore => continue,
                RowKind::Delete => {
                    view.remove(id);
                }
                kind => {
                    snapshot_rows += u64::from(kind == RowKind::SnapshotRead);
                    view.insert(*id, *v);
                }
            }
            if last.get(id).is_some_and(|prev| prev > v) && went_back.len() < 10 {
                went_back.push((*id, last[id], *v, c.kind));
            }
            last.insert(*id, *v);
        }
    };
    let deadline = Instant::now() + timeouts::copy();
    while !stream.capture_done() {
        assert!(
            Instant::now() < deadline,
            "the capture did not finish in time: {:?}",
            stream.progress().total()
        );
        let events = rt.block_on(stream.next_events()).expect("the capture");
        apply(&events, &mut view);
    }
    let progress = stream.progress().total();
    stop.store(true, Ordering::SeqCst);
    let statements = writing.join().expect("the writer");
    let wanted = rt.block_on(table_rows());
    let deadline = Instant::now() + timeouts::progress();
    while view != wanted && Instant::now() < deadline {
        let events = rt
            .block_on(async {
                tokio::time::timeout(Duration::from_millis(500), stream.next_events()).await
            })
            .unwrap_or(Ok(Vec::new()))
            .expect("the log");
        apply(&events, &mut view);
    }
    eprintln!(
        "capture: {progress:?}; {snapshot_rows} snapshot rows; writer: {statements} statements"
    );
    assert!(went_back.is_empty(), "versions went back: {went_back:?}");
    // The chunks' rows go out with the log's schema (their columns are the same): at most one
    // announcement per shard from each side, not one per chunk.
    assert!(
        schemas <= 4,
        "{schemas} schema events for {} chunks",
        progress.chunks_done
    );
    let got = view;
    let differing: Vec<_> = wanted
        .iter()
        .filter(|(id, v)| got.get(id) != Some(v))
        .take(5)
        .collect();
    assert!(
        got.len() == wanted.len() && differing.is_empty(),
        "the materialized rows differ from SELECT *: {} vs {} rows; e.g. {differing:?}",
        got.len(),
        wanted.len()
    );
    // The chunks carried most rows.
    assert!(
        snapshot_rows as i64 > ROWS / 2,
        "{snapshot_rows} snapshot rows"
    );
    assert!(statements > 0, "the writer wrote nothing");
    progress
}

#[test]
fn chunks_read_from_the_replicas_directly_under_a_writer_equal_the_table() {
    let progress = capture_under_writer(cluster::env("VT_CLUSTER_VTCTLD_ADDR"));
    // Every chunk came from a tablet directly, several of the table's at once per shard.
    assert_eq!(
        progress.chunks_from_tablets, progress.chunks_started,
        "{progress:?}"
    );
    assert_eq!(progress.chunks_failed, 0, "{progress:?}");
    assert!(progress.peak_table_chunks >= 2, "{progress:?}");
}

#[test]
fn tablets_that_cannot_be_reached_send_the_chunks_through_vtgate() {
    // Nothing listens there: no tablet can be found, as for a reader outside the cluster's
    // network. Three chunks in a row fail per shard, then the shard's chunks go through VTGate.
    let progress = capture_under_writer("127.0.0.1:1".into());
    assert!(progress.chunks_from_tablets >= 6, "{progress:?}");
    // Every direct attempt failed (later ones through VTGate may fail too: a replica that does
    // not know the new table yet sends its chunks to the primary).
    assert!(
        progress.chunks_failed >= progress.chunks_from_tablets,
        "{progress:?}"
    );
    assert!(
        progress.chunks_started > progress.chunks_from_tablets,
        "{progress:?}"
    );
}
