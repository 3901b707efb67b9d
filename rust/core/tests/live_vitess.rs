// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! End-to-end tests against the real local Vitess (`bash tests/vitess/up.sh`, then
//! `source tests/vitess/env.sh`). Run with
//! `cargo test -p vitess-cdc-core --features integration --test live_vitess`.
//!
//! Every test uses its own id range (time-based) and deletes its rows at the end, so tests can
//! run again and again, alone or together, while other writers (the load generator) are busy.
#![cfg(feature = "integration")]

mod common;

use common::live::{id_base, mysql_opts, sql, vtgate};
use common::timeouts;

use common::{assert_stream_fails, marks, poll_through, poll_until, Materialized};
use std::time::Duration;
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{
    ErrorCode, ErrorKind, Event, ShardPosition, StartMode, StreamOptions, Value,
};

fn query_ids(keyspace: &str, q: &str) -> Vec<i64> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use mysql_async::prelude::Queryable;
        let opts = mysql_opts(keyspace);
        let mut conn = mysql_async::Conn::new(opts).await.expect("connect");
        let mut ids: Vec<i64> = conn.query(q).await.expect(q);
        ids.sort();
        ids
    })
}

fn options(keyspace: &str, tables: &[&str], start: StartMode) -> StreamOptions {
    let mut o = StreamOptions::new(vtgate(), keyspace);
    o.tables = tables.iter().map(|t| t.to_string()).collect();
    o.start = start;
    o.heartbeat_interval_secs = 1;
    o.idle_timeout = Duration::from_secs(30);
    o
}

fn insert_customers(base: i64, range: std::ops::Range<i64>) -> String {
    let values: Vec<String> = range
        .map(|i| format!("({}, 'u{i}@example.com', 'user {i}', {i})", base + i))
        .collect();
    format!(
        "insert into customer (customer_id, email, name, visits) values {}",
        values.join(",")
    )
}

/// Deletes the orders of customers `base..base + customers` when dropped.
fn delete_orders_at_end(base: i64, customers: i64) -> Cleanup {
    // VTGate refuses DML touching more than 10 000 rows: delete in slices of 100 customers.
    Cleanup(
        (base..base + customers)
            .step_by(100)
            .map(|from| {
                (
                    "customer".to_string(),
                    format!(
                        "delete from corder where customer_id >= {from} and customer_id < {}",
                        (from + 100).min(base + customers)
                    ),
                )
            })
            .collect(),
    )
}

struct Cleanup(Vec<(String, String)>);
impl Drop for Cleanup {
    fn drop(&mut self) {
        for (ks, stmt) in &self.0 {
            sql(ks, std::slice::from_ref(stmt));
        }
    }
}

#[test]
fn configuration_errors_fail_fast_with_the_fix() {
    let cases = [
        (
            options("no_such_keyspace", &[], StartMode::Latest),
            "known keyspaces",
        ),
        (
            options("customer", &["no_such_table"], StartMode::Latest),
            "not found in keyspace",
        ),
        (
            options("customer", &["audit_log"], StartMode::Initial),
            "allow_tables_without_primary_key",
        ),
    ];
    for (o, expect) in cases {
        let started = std::time::Instant::now();
        let err = BlockingStream::open(o).err().expect("must fail");
        assert_eq!(err.kind, ErrorKind::Config, "{}", err.message);
        assert!(err.message.contains(expect), "{}", err.message);
        assert!(started.elapsed() < timeouts::REFUSED_WITHIN);
    }
}

#[test]
fn planning_a_start_checks_the_selection_and_never_answers_current() {
    let mut o = options("customer", &["customer"], StartMode::Latest);
    o.columns = vec!["customer_id".into(), "EMAIL".into()];
    let planned = vitess_cdc_core::blocking::plan_start(&o, None).expect("a valid selection plans");
    let mut shards: Vec<_> = planned.iter().map(|p| p.shard.as_str()).collect();
    shards.sort();
    assert_eq!(shards, ["-80", "80-"]);
    for p in &planned {
        assert!(
            p.gtid.starts_with("MySQL56/"),
            "a real GTID set, not 'current': {p:?}"
        );
        assert!(p.copy_completed, "a stream from now copies nothing: {p:?}");
    }

    o.columns = vec!["customer_id".into(), "no_such_col".into()];
    let started = std::time::Instant::now();
    let err = vitess_cdc_core::blocking::plan_start(&o, None).expect_err("an unknown column");
    assert_eq!(
        err.code,
        vitess_cdc_core::ErrorCode::UnknownColumn,
        "{}",
        err.message
    );
    assert_eq!(err.kind, ErrorKind::Config, "{}", err.message);
    for part in [
        "no_such_col",
        "customer.customer",
        "email",
        "remove it from the selection",
    ] {
        assert!(err.message.contains(part), "'{part}' in: {}", err.message);
    }
    assert!(started.elapsed() < timeouts::REFUSED_WITHIN);
}

#[test]
fn snapshot_then_streaming_ends_equal_to_the_source() {
    let base = id_base();
    let range = base..base + 1_000_000;
    let _cleanup = Cleanup(vec![(
        "customer".into(),
        format!(
            "delete from customer where customer_id >= {} and customer_id < {}",
            range.start, range.end
        ),
    )]);
    sql("customer", &[insert_customers(base, 0..50)]);

    let stream =
        BlockingStream::open(options("customer", &["customer"], StartMode::Initial)).unwrap();
    let mut view = Materialized::default();
    poll_until(&stream, &mut view, timeouts::progress(), |e, _| {
        matches!(e, Event::CopyCompleted)
    });
    assert_eq!(
        view.ids("customer", range.clone()).len(),
        50,
        "snapshot must hold the 50 rows"
    );
    assert!(
        view.copied.values().all(|&n| n == 1),
        "a row was copied twice"
    );

    sql(
        "customer",
        &[
            insert_customers(base, 50..60),
            format!(
                "update customer set visits = visits + 100 where customer_id between {} and {}",
                base,
                base + 4
            ),
            format!(
                "delete from customer where customer_id between {} and {}",
                base + 5,
                base + 9
            ),
        ],
    );
    let expected = query_ids(
        "customer",
        &format!(
            "select customer_id from customer where customer_id >= {} and customer_id < {}",
            range.start, range.end
        ),
    );
    assert_eq!(expected.len(), 55);
    // The rows live on both shards, whose streams are not ordered with each other: the deletes
    // (or inserts) of one shard may arrive before the updates of the other, so the wait covers
    // every change, the updates' new values included.
    let visits_of = |v: &Materialized, id: i64| {
        v.rows.iter().find_map(|((t, _), row)| {
            (t == "customer" && row[0] == Value::Int(id)).then(|| row[4].clone())
        })
    };
    poll_until(&stream, &mut view, timeouts::progress(), |_, v| {
        v.ids("customer", range.clone()).len() == 55
            && v.ids("customer", base + 5..base + 10).is_empty()
            && (0..5).all(|i| visits_of(v, base + i) == Some(Value::Int(i + 100)))
    });
    let mut got = view.ids("customer", range.clone());
    got.sort();
    assert_eq!(got, expected);
    // the updates arrived with their new values (inserted with visits = i)
    for i in 0..5 {
        assert_eq!(
            visits_of(&view, base + i),
            Some(Value::Int(i + 100)),
            "customer {}",
            base + i
        );
    }
    stream.close();
}

#[test]
fn stop_mid_stream_and_resume_from_a_mark_gives_exactly_the_missing_records() {
    let base = id_base() + 500_000;
    let range = base..base + 1000;
    let _cleanup = Cleanup(vec![(
        "customer".into(),
        format!(
            "delete from customer where customer_id >= {} and customer_id < {}",
            range.start, range.end
        ),
    )]);
    let stream =
        BlockingStream::open(options("customer", &["customer"], StartMode::Latest)).unwrap();
    // wait until every shard has a real position
    let mut view = Materialized::default();
    let mut marked = std::collections::BTreeSet::new();
    poll_until(&stream, &mut view, timeouts::events(), |e, _| {
        if let Event::Mark(p) = e {
            marked.insert(p.shard.clone());
        }
        marked.len() == 2
    });
    let mut saved = stream.positions();
    // 20 single-row transactions
    let inserts: Vec<String> = (0..20).map(|i| insert_customers(base, i..i + 1)).collect();
    sql("customer", &inserts);
    // consume up to a mark after at least 8 of ours, as a consumer that then crashes
    let mut first = Materialized::default();
    let events = poll_until(&stream, &mut first, timeouts::events(), |e, v| {
        matches!(e, Event::Mark(_)) && v.ids("customer", range.clone()).len() >= 8
    });
    for (shard, p) in marks(&events) {
        let slot = saved.shards.iter_mut().find(|s| s.shard == shard).unwrap();
        *slot = p;
    }
    stream.close();
    let got_first = first.ids("customer", range.clone());
    assert!(got_first.len() >= 8 && got_first.len() < 20 || got_first.len() == 20);

    let resumed = BlockingStream::open(options(
        "customer",
        &["customer"],
        StartMode::Positions(saved.shards),
    ))
    .unwrap();
    let mut second = Materialized::default();
    poll_until(&resumed, &mut second, timeouts::events(), |_, v| {
        v.ids("customer", range.clone()).len() + got_first.len() >= 20
    });
    // A repeat would come on its shard before anything written after it: marker rows (ids past
    // the test's 20), one at a time until each shard has sent one, prove that none is left.
    let mut marker_shards = std::collections::BTreeSet::new();
    let mut marker = 500;
    while marker_shards.len() < 2 {
        sql("customer", &[insert_customers(base, marker..marker + 1)]);
        poll_through(&resumed, &mut second, timeouts::events(), |e, _| match e {
            Event::Change(c) if c.values.first() == Some(&Value::Int(base + marker)) => {
                marker_shards.insert(c.schema.shard.clone());
                true
            }
            _ => false,
        });
        marker += 1;
    }
    let got_second = second.ids("customer", base..base + 20);
    let mut all: Vec<i64> = got_first.iter().chain(got_second.iter()).copied().collect();
    all.sort();
    let expected: Vec<i64> = (0..20).map(|i| base + i).collect();
    assert_eq!(all, expected, "no gap and no repeat across the resume");
    resumed.close();
}

fn insert_orders(base: i64, customers: i64, per_customer: i64) -> Vec<String> {
    let mut out = Vec::new();
    let mut values = Vec::new();
    let pad = "x".repeat(28);
    for c in 0..customers {
        for o in 0..per_customer {
            values.push(format!("({}, {o}, 'sku-{pad}', {o}, {o}.50)", base + c));
            if values.len() == 1000 {
                out.push(format!(
                    "insert into corder (customer_id, order_id, sku, quantity, price) values {}",
                    values.join(",")
                ));
                values.clear();
            }
        }
    }
    if !values.is_empty() {
        out.push(format!(
            "insert into corder (customer_id, order_id, sku, quantity, price) values {}",
            values.join(",")
        ));
    }
    out
}

/// Stops the first stream at the first mark that has copy progress, resumes from it, and
/// checks the copy ends complete with no row of the in-progress table copied twice.
#[test]
fn stop_mid_copy_and_resume_ends_equal_to_the_source() {
    let base = id_base() + 700_000;
    let range = base..base + 100_000;
    let _cleanup = delete_orders_at_end(base, 400);
    sql("customer", &insert_orders(base, 400, 60)); // 24 000 rows, several copy batches per shard
    let expected = 24_000usize;

    let first = BlockingStream::open(options("customer", &["corder"], StartMode::Initial)).unwrap();
    let mut view = Materialized::default();
    let events = poll_until(
        &first,
        &mut view,
        timeouts::copy(),
        |e, _| matches!(e, Event::Mark(p) if p.table_p_ks.iter().any(|t| t.table_name == "corder" && !t.lastpk.is_empty())),
    );
    first.close();
    let mut saved = first.positions();
    // positions() is as of the last poll; the consumer "crashed" at the mark: use marks up to it
    let seen = marks(&events);
    for s in saved.shards.iter_mut() {
        if let Some(p) = seen.get(&s.shard) {
            *s = p.clone();
        } else {
            // no mark yet for this shard: it restarts its copy from scratch
            s.gtid.clear();
            s.table_p_ks.clear();
            s.tables_to_copy = vec!["corder".into()];
        }
    }
    assert!(saved
        .shards
        .iter()
        .any(|p| p.needs_copy() && !p.table_p_ks.is_empty()));
    let before_resume = view.ids("corder", range.clone()).len();
    assert!(
        before_resume < expected,
        "the copy must be interrupted mid-way (got all {before_resume})"
    );

    let resumed = BlockingStream::open(options(
        "customer",
        &["corder"],
        StartMode::Positions(saved.shards),
    ))
    .unwrap();
    poll_until(&resumed, &mut view, timeouts::copy(), |e, _| {
        matches!(e, Event::CopyCompleted)
    });
    resumed.close();
    // every source row is there
    let rows_in_view = view
        .rows
        .iter()
        .filter(|((t, _), v)| t == "corder" && matches!(v[0], Value::Int(i) if range.contains(&i)))
        .count();
    assert_eq!(rows_in_view, expected);
    let twice = view
        .copied
        .iter()
        .filter(|((t, _), n)| t == "corder" && **n > 1)
        .count();
    assert_eq!(
        twice, 0,
        "rows copied before the mark must not be copied again"
    );
    view.assert_strict();
}

/// The table-switch window (docs/architecture.md, protocol P3): a position taken after table 1 is
/// done and before table 2 starts must still copy table 2 on resume.
#[test]
fn resume_between_two_tables_still_copies_the_second() {
    let base = id_base() + 850_000;
    let range = base..base + 100_000;
    let _cleanup = Cleanup(vec![
        (
            "customer".into(),
            format!(
                "delete from corder where customer_id >= {} and customer_id < {}",
                range.start, range.end
            ),
        ),
        (
            "customer".into(),
            format!(
                "delete from customer where customer_id >= {} and customer_id < {}",
                range.start, range.end
            ),
        ),
    ]);
    let mut stmts = insert_orders(base, 20, 5);
    stmts.push(insert_customers(base, 0..40));
    sql("customer", &stmts);

    let tables = ["corder", "customer"];
    let first = BlockingStream::open(options("customer", &tables, StartMode::Initial)).unwrap();
    let mut view = Materialized::default();
    // Stop as soon as the copy of `customer` begins on a shard, keeping only marks before it.
    let mut window_shard = None;
    let events = poll_until(&first, &mut view, timeouts::copy(), |e, _| {
        if let Event::Schema(s) = e {
            if s.table == "customer" {
                window_shard = Some(s.shard.clone());
                return true;
            }
        }
        false
    });
    first.close();
    let shard = window_shard.unwrap();
    let seen = marks(&events);
    let mut saved = first.positions();
    for s in saved.shards.iter_mut() {
        match seen.get(&s.shard) {
            Some(p) => *s = p.clone(),
            None => {
                s.gtid.clear();
                s.table_p_ks.clear();
                s.tables_to_copy = tables.iter().map(|t| t.to_string()).collect();
            }
        }
    }
    let window = saved
        .shards
        .iter()
        .find(|p| p.shard == shard)
        .unwrap()
        .clone();
    assert!(
        window.needs_copy(),
        "a mark in the table-switch window must not resume as stream-only: {window:?}"
    );
    assert_eq!(window.tables_to_copy, vec!["customer"]);
    // forget what the first run saw of `customer` (the crash lost it)
    view.rows.retain(|(t, _), _| t != "customer");
    view.copied.retain(|(t, _), _| t != "customer");

    let resumed = BlockingStream::open(options(
        "customer",
        &tables,
        StartMode::Positions(saved.shards),
    ))
    .unwrap();
    poll_until(&resumed, &mut view, timeouts::copy(), |e, _| {
        matches!(e, Event::CopyCompleted)
    });
    resumed.close();
    assert_eq!(
        view.ids("customer", range.clone()).len(),
        40,
        "table 2 copied after the resume"
    );
    let orders = view
        .rows
        .iter()
        .filter(|((t, _), v)| t == "corder" && matches!(v[0], Value::Int(i) if range.contains(&i)))
        .count();
    assert_eq!(orders, 100);
    view.assert_strict();
}

#[test]
fn latest_start_positions_right_after_open_are_real_and_resume_exactly() {
    let base = id_base() + 700_000;
    let _cleanup = Cleanup(vec![(
        "customer".into(),
        format!(
            "delete from customer where customer_id >= {base} and customer_id < {}",
            base + 100
        ),
    )]);
    let stream =
        BlockingStream::open(options("customer", &["customer"], StartMode::Latest)).unwrap();
    // What a checkpoint taken right after open stores: real GTID sets, never `current`.
    let saved = stream.positions();
    assert_eq!(saved.shards.len(), 2, "{saved:?}");
    for p in &saved.shards {
        assert!(
            p.gtid.starts_with("MySQL56/"),
            "shard {} right after open: {:?}",
            p.shard,
            p.gtid
        );
    }
    // Each shard's first event is the mark of its real position, before any change.
    let mut first: std::collections::BTreeMap<String, String> = Default::default();
    let mut view = Materialized::default();
    poll_until(&stream, &mut view, timeouts::events(), |e, _| {
        let (shard, what) = match e {
            Event::Mark(p) => (p.shard.clone(), format!("mark {}", p.gtid)),
            Event::Change(c) => (c.schema.shard.clone(), "change".to_string()),
            _ => return false,
        };
        first.entry(shard).or_insert(what);
        first.len() == 2
    });
    for (shard, what) in &first {
        assert!(what.starts_with("mark MySQL56/"), "shard {shard}: {what}");
    }
    stream.close();

    // The job "fails" here; rows are written before it restores from the saved positions.
    sql("customer", &[insert_customers(base, 0..10)]);
    let resumed = BlockingStream::open(options(
        "customer",
        &["customer"],
        StartMode::Positions(saved.shards),
    ))
    .unwrap();
    let mut view = Materialized::default();
    poll_until(&resumed, &mut view, timeouts::events(), |_, v| {
        v.ids("customer", base..base + 100).len() == 10
    });
    resumed.close();
}

/// Random writes to `corder` rows of customers `base..base + customers` (quantity updates,
/// deletes, new orders, primary-key moves) until stopped; one connection, bounded rate.
struct OrderWriter {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<u64>>,
}

impl OrderWriter {
    fn start(base: i64, customers: i64, per_customer: i64, seed: u64) -> OrderWriter {
        use rand::{Rng, SeedableRng};
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                use mysql_async::prelude::Queryable;
                let opts = mysql_opts("customer");
                let mut conn = mysql_async::Conn::new(opts).await.expect("connect");
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                let mut next_order = 1_000_000i64;
                let mut done = 0u64;
                while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                    let c = base + rng.random_range(0..customers);
                    let o = rng.random_range(0..per_customer);
                    next_order += 1;
                    let stmt = match rng.random_range(0..10) {
                        0..=4 => format!(
                            "update corder set quantity = quantity + 1 where customer_id = {c} and order_id = {o}"
                        ),
                        5 => format!("delete from corder where customer_id = {c} and order_id = {o}"),
                        6 | 7 => format!(
                            "insert into corder (customer_id, order_id, sku, quantity, price) values ({c}, {o}, 'w', 1, 1.00) \
                             on duplicate key update quantity = quantity + 100"
                        ),
                        // A primary-key move: to the end of the key space (beyond any copy
                        // position), or back to the start (below it).
                        8 => format!(
                            "update corder set order_id = {next_order} where customer_id = {c} and order_id = {o}"
                        ),
                        _ => format!(
                            "update corder set order_id = {o} where customer_id = {c} and order_id = \
                             (select max(order_id) from (select order_id from corder where customer_id = {c}) t) \
                             and order_id >= 1000000"
                        ),
                    };
                    // A duplicate key from a move back is fine: the statement changes nothing.
                    if conn.query_drop(&stmt).await.is_ok() {
                        done += 1;
                    }
                    tokio::time::sleep(Duration::from_millis(4)).await;
                }
                conn.disconnect().await.ok();
                done
            })
        });
        OrderWriter {
            stop,
            thread: Some(thread),
        }
    }

    fn stop(&mut self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.take().map(|t| t.join().unwrap()).unwrap_or(0)
    }
}

impl Drop for OrderWriter {
    fn drop(&mut self) {
        self.stop();
    }
}

fn query_orders(base: i64, customers: i64) -> Vec<(i64, i64, i64)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use mysql_async::prelude::Queryable;
        let opts = mysql_opts("customer");
        let mut conn = mysql_async::Conn::new(opts).await.expect("connect");
        // VTGate refuses results above 10 000 rows: read in slices of 100 customers.
        let mut rows: Vec<(i64, i64, i64)> = Vec::new();
        for from in (base..base + customers).step_by(100) {
            let q = format!(
                "select customer_id, order_id, quantity from corder where customer_id >= {from} and customer_id < {}",
                (from + 100).min(base + customers)
            );
            rows.extend(conn.query::<(i64, i64, i64), _>(&q).await.expect("select orders"));
        }
        rows.sort();
        rows
    })
}

fn view_orders(view: &Materialized, base: i64, customers: i64) -> Vec<(i64, i64, i64)> {
    let mut rows: Vec<(i64, i64, i64)> = view
        .rows
        .iter()
        .filter(|((t, _), _)| t == "corder")
        .filter_map(|(_, v)| match (&v[0], &v[1], &v[3]) {
            (Value::Int(c), Value::Int(o), Value::Int(q))
                if (base..base + customers).contains(c) =>
            {
                Some((*c, *o, *q))
            }
            _ => None,
        })
        .collect();
    rows.sort();
    rows
}

/// The defect users met: every resume inside a copy replays changes of rows the copy had not
/// reached, which the copy then sends again. With writes (updates, deletes, inserts and
/// primary-key moves across the copy position) running through three interruptions of the
/// copy, the whole changelog must stay strict and end equal to the source.
#[test]
fn writes_through_interrupted_copies_give_a_strict_changelog() {
    use vitess_cdc_core::copyfilter::{table_copy, TableCopy};
    let base = id_base() + 900_000;
    let (customers, per_customer) = (400i64, 60i64);
    let _cleanup = delete_orders_at_end(base, customers);
    sql("customer", &insert_orders(base, customers, per_customer));
    let mut writer = OrderWriter::start(base, customers, per_customer, base as u64);

    let mut view = Materialized::default();
    let mut start = StartMode::Initial;
    let mut saved = std::collections::BTreeMap::new();
    let mut interruptions = 0;
    let stream = loop {
        let stream = BlockingStream::open(options("customer", &["corder"], start.clone())).unwrap();
        if interruptions == 3 {
            break stream;
        }
        let mut batches = 0;
        let events = poll_until(&stream, &mut view, timeouts::copy(), |e, _| match e {
            Event::Mark(p) if matches!(table_copy(p, "corder"), TableCopy::InProgress(_)) => {
                batches += 1;
                batches >= 2
            }
            Event::CopyCompleted => true,
            _ => false,
        });
        if matches!(events.last(), Some(Event::CopyCompleted)) {
            break stream;
        }
        stream.close();
        interruptions += 1;
        // The consumer "crashed" at that mark: every shard resumes from its last mark, or from
        // where this run started it when it has none in this run.
        for (shard, p) in marks(&events) {
            saved.insert(shard, p);
        }
        let positions = stream
            .positions()
            .shards
            .into_iter()
            .map(|s| {
                saved.get(&s.shard).cloned().unwrap_or(ShardPosition {
                    gtid: String::new(),
                    table_p_ks: vec![],
                    tables_to_copy: vec!["corder".into()],
                    copy_completed: false,
                    snapshots: Vec::new(),
                    ..s
                })
            })
            .collect();
        // Writes pile up while the job is down: the resumed copy catches up through them.
        std::thread::sleep(Duration::from_millis(500));
        start = StartMode::Positions(positions);
    };
    assert!(
        interruptions >= 1,
        "the copy must be interrupted at least once"
    );
    let writes = writer.stop();
    assert!(writes > 50, "the writer ran ({writes} statements)");
    let expected = query_orders(base, customers);
    let started = std::time::Instant::now();
    while view_orders(&view, base, customers) != expected {
        if started.elapsed() > timeouts::progress() {
            let got = view_orders(&view, base, customers);
            let extra: Vec<_> = got
                .iter()
                .filter(|r| !expected.contains(r))
                .take(10)
                .collect();
            let missing: Vec<_> = expected
                .iter()
                .filter(|r| !got.contains(r))
                .take(10)
                .collect();
            panic!(
                "the stream did not converge to the source: {} rows vs {}; in the stream only: {extra:?}; \
                 in the source only: {missing:?}; violations: {:#?}",
                got.len(),
                expected.len(),
                view.violations
            );
        }
        for e in stream.poll(Duration::from_millis(200)).expect("poll") {
            if let Event::Change(c) = &e {
                view.apply(c);
            }
        }
    }
    stream.close();
    view.assert_strict();
}

/// Found by the chaos soak: a job restored from a checkpoint taken before a merge's journal, after
/// the operator completed the merge (the old shards deleted). VTGate refuses the deleted shard,
/// and no retry can pass: the stream must fail once as a configuration error naming the cause and
/// the fix, not retry forever (a Flink job restarted in a loop). A shard the keyspace never had
/// is what the topology shows after `Reshard complete`, so the test needs no reshard.
#[test]
fn a_saved_shard_a_completed_reshard_deleted_fails_once_naming_the_fix() {
    let stream =
        BlockingStream::open(options("customer", &["customer"], StartMode::Latest)).unwrap();
    let saved = stream.positions();
    stream.close();
    let deleted = ShardPosition {
        shard: "c0-".into(),
        ..saved.shards[0].clone()
    };
    let mut o = options(
        "customer",
        &["customer"],
        StartMode::Positions(vec![deleted]),
    );
    o.shards = vec!["c0-".into()];
    let err = assert_stream_fails(o, &["c0-", "completed reshard", "fresh snapshot"]);
    assert_eq!(err.kind, ErrorKind::Config, "{}", err.message);
    assert_eq!(err.code, ErrorCode::UnknownShard, "{}", err.message);
}
