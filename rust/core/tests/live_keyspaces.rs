// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! One stream over two keyspaces — `customer` (sharded: -80, 80-) and `commerce` (unsharded) —
//! against the real local Vitess (`bash tests/vitess/up.sh`, then `source tests/vitess/env.sh`):
//! the copy of both, the log of both, positions per keyspace that resume exactly, and a bounded
//! snapshot that ends once, after both. Run with
//! `cargo test -p vitess-cdc-core --features integration --test live_keyspaces`.
//!
//! Every test uses its own ids and deletes its rows at the end.
#![cfg(feature = "integration")]

mod common;

use common::live::{id_base, sql, vtgate};
use common::{poll_through, poll_until, timeouts, Materialized};
use std::collections::BTreeSet;
use std::time::Duration;
use vitess_cdc_core::blocking::{BlockingStream, KeyspacePart};
use vitess_cdc_core::keyspaces::{per_keyspace, select};
use vitess_cdc_core::{ErrorCode, Event, SnapshotOptions, StartMode, StreamOptions, Value};

/// `customer.customer` and `commerce.product`, named as a user names them.
fn two_keyspaces(start: StartMode) -> Vec<KeyspacePart> {
    let mut base = StreamOptions::new(vtgate(), "customer");
    base.start = start;
    base.heartbeat_interval_secs = 1;
    base.idle_timeout = Duration::from_secs(30);
    let selections = select(
        &["customer".into(), "commerce".into()],
        &["customer.customer".into(), "commerce.product".into()],
        &[],
    )
    .unwrap();
    per_keyspace(&base, &selections)
        .unwrap()
        .into_iter()
        .map(|options| KeyspacePart {
            options,
            captures: Vec::new(),
        })
        .collect()
}

fn open(start: StartMode) -> BlockingStream {
    BlockingStream::open_keyspaces(two_keyspaces(start), SnapshotOptions::default())
        .expect("open a stream of two keyspaces")
}

fn insert_customers(ids: impl Iterator<Item = i64>) -> String {
    let values: Vec<String> = ids
        .map(|id| format!("({id}, 'k{id}@example.com', 'keyspaces {id}', 0)"))
        .collect();
    format!(
        "insert into customer (customer_id, email, name, visits) values {}",
        values.join(",")
    )
}

fn insert_products(base: i64, range: std::ops::Range<i64>) -> String {
    let values: Vec<String> = range
        .map(|i| format!("('{}', 'keyspaces', {i})", sku(base, i)))
        .collect();
    format!(
        "insert into product (sku, description, price) values {}",
        values.join(",")
    )
}

fn sku(base: i64, i: i64) -> String {
    format!("ks-{base}-{i}")
}

/// Deletes the test's rows in both keyspaces when dropped.
struct Cleanup(i64);
impl Drop for Cleanup {
    fn drop(&mut self) {
        let base = self.0;
        sql(
            "customer",
            &[format!(
                "delete from customer where customer_id >= {base} and customer_id < {}",
                base + 1000
            )],
        );
        sql(
            "commerce",
            &[format!("delete from product where sku like 'ks-{base}-%'")],
        );
    }
}

/// The test's rows in the view: customer ids and product skus.
fn ours(view: &Materialized, base: i64) -> (BTreeSet<i64>, BTreeSet<String>) {
    let mut customers = BTreeSet::new();
    let mut products = BTreeSet::new();
    for ((table, _), values) in &view.rows {
        match (table.as_str(), values.first()) {
            ("customer", Some(Value::Int(id))) if (base..base + 1000).contains(id) => {
                customers.insert(*id);
            }
            ("product", Some(v)) => {
                let text = match v {
                    Value::String(s) => s.to_string(),
                    Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                    other => format!("{other:?}"),
                };
                if text.starts_with(&format!("ks-{base}-")) {
                    products.insert(text);
                }
            }
            _ => {}
        }
    }
    (customers, products)
}

/// The strict-changelog violations about this test's rows (other writers' rows that a resumed
/// stream never copied are retracted without an insert it saw: not this test's concern).
fn assert_strict_for(view: &Materialized, base: i64) {
    let prefix = (base / 1000).to_string();
    let ours: Vec<&String> = view
        .violations
        .iter()
        .filter(|v| v.contains(&prefix))
        .collect();
    assert!(ours.is_empty(), "not a strict changelog: {ours:#?}");
}

/// The tests of this file write the same tables; one at a time keeps each one's resumed stream
/// free of the other's rows.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn skus(base: i64, range: std::ops::Range<i64>) -> BTreeSet<String> {
    range.map(|i| sku(base, i)).collect()
}

#[test]
fn two_keyspaces_copy_and_stream_in_one_stream_and_each_resumes_from_its_own_positions() {
    let _serial = serial();
    let base = id_base();
    let _cleanup = Cleanup(base);
    sql("customer", &[insert_customers(base..base + 40)]);
    sql("commerce", &[insert_products(base, 0..30)]);

    // The copy of both keyspaces, then the log of both.
    let stream = open(StartMode::Initial);
    let mut view = Materialized::default();
    let mut copied = BTreeSet::new();
    poll_through(&stream, &mut view, timeouts::copy(), |e, _| {
        if let Event::ShardCopyCompleted { keyspace, shard } = e {
            copied.insert(format!("{keyspace}/{shard}"));
        }
        copied.len() == 3
    });
    assert_eq!(
        copied,
        ["commerce/0", "customer/-80", "customer/80-"]
            .map(String::from)
            .into(),
        "every shard of both keyspaces copied"
    );
    let (customers, products) = ours(&view, base);
    assert_eq!(customers, (base..base + 40).collect());
    assert_eq!(products, skus(base, 0..30));

    sql("customer", &[insert_customers(base + 40..base + 50)]);
    sql("commerce", &[insert_products(base, 30..35)]);
    // Until the rows are in and every shard's last change is followed by its mark (a consumer
    // saves positions at marks: a transaction's mark follows its rows; a quiet shard marks no
    // more and has nothing unmarked).
    let mut unmarked: BTreeSet<(String, String)> = BTreeSet::new();
    poll_until(&stream, &mut view, timeouts::events(), |e, v| {
        match e {
            Event::Change(c) => {
                unmarked.insert((c.schema.keyspace.clone(), c.schema.shard.clone()));
            }
            Event::Mark(m) => {
                unmarked.remove(&(m.keyspace.clone(), m.shard.clone()));
            }
            _ => {}
        }
        let (c, p) = ours(v, base);
        c.len() == 50 && p.len() == 35 && unmarked.is_empty()
    });
    view.assert_strict();
    assert!(view.copied.values().all(|n| *n == 1), "no row copied twice");

    // Positions name every shard of both keyspaces; each keyspace resumes from its own.
    let saved = stream.positions();
    let shards: BTreeSet<String> = saved
        .shards
        .iter()
        .map(|p| format!("{}/{}", p.keyspace, p.shard))
        .collect();
    assert_eq!(shards.len(), 3, "{shards:?}");
    stream.close();
    let (before_customers, before_products) = ours(&view, base);

    // Written while nothing reads: exactly these arrive after the resume, nothing before them.
    sql("customer", &[insert_customers(base + 50..base + 60)]);
    sql("commerce", &[insert_products(base, 35..45)]);
    let resumed = open(StartMode::Positions(saved.shards));
    let mut after = Materialized::default();
    poll_through(&resumed, &mut after, timeouts::events(), |_, v| {
        let (c, p) = ours(v, base);
        c.len() >= 10 && p.len() >= 10
    });
    // One marker row per keyspace, written after: once both arrive, a repeat of anything older
    // would already have come (each shard delivers in order).
    sql("customer", &[insert_customers(base + 900..base + 901)]);
    sql("commerce", &[insert_products(base, 900..901)]);
    poll_through(&resumed, &mut after, timeouts::events(), |_, v| {
        let (c, p) = ours(v, base);
        c.contains(&(base + 900)) && p.contains(&sku(base, 900))
    });
    assert_strict_for(&after, base);
    let (mut c, mut p) = ours(&after, base);
    c.remove(&(base + 900));
    p.remove(&sku(base, 900));
    assert_eq!(
        c,
        (base + 50..base + 60).collect(),
        "customer: the missed rows, once"
    );
    assert_eq!(p, skus(base, 35..45), "commerce: the missed rows, once");
    assert!(c.is_disjoint(&before_customers) && p.is_disjoint(&before_products));
    resumed.close();
}

#[test]
fn a_snapshot_of_two_keyspaces_ends_once_after_both() {
    let _serial = serial();
    let base = id_base() + 500_000;
    let _cleanup = Cleanup(base);
    sql("customer", &[insert_customers(base..base + 20)]);
    sql("commerce", &[insert_products(base, 0..20)]);
    let stream = open(StartMode::SnapshotOnly);
    let mut view = Materialized::default();
    let mut copied = BTreeSet::new();
    let events = poll_until(&stream, &mut view, timeouts::copy(), |e, _| {
        if let Event::ShardCopyCompleted { keyspace, shard } = e {
            copied.insert(format!("{keyspace}/{shard}"));
        }
        matches!(e, Event::End)
    });
    assert_eq!(
        copied.len(),
        3,
        "End came after every shard's copy: {copied:?}"
    );
    assert_eq!(
        events.iter().filter(|e| matches!(e, Event::End)).count(),
        1,
        "one End for the stream"
    );
    let (customers, products) = ours(&view, base);
    assert_eq!(customers, (base..base + 20).collect());
    assert_eq!(products, skus(base, 0..20));
    // Ended: later polls stay empty instead of waiting for a keyspace that already ended.
    assert!(stream.poll(Duration::from_millis(100)).unwrap().is_empty());
    stream.close();
}

#[test]
fn a_keyspace_vtgate_does_not_serve_fails_the_open_naming_it() {
    let mut parts = two_keyspaces(StartMode::Latest);
    parts[1].options.keyspace = "no_such_keyspace".into();
    parts[1].options.tables.clear();
    let e = BlockingStream::open_keyspaces(parts, SnapshotOptions::default())
        .err()
        .expect("refused");
    assert!(
        e.message.contains("no_such_keyspace"),
        "{:?}: {}",
        e.code,
        e.message
    );
    assert_ne!(e.code, ErrorCode::Internal, "{}", e.message);
}
