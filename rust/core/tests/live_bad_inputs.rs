// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The bad-input catalogue's cases against the real local Vitess (docs/reliability.md,
//! "Bad-input catalogue"): a port that is not VTGate's gRPC port, an unknown table, a table
//! without a primary key, and a table dropped (and created again) while a stream reads it. Each
//! fails with a message naming the cause and the fix, within the connect timeout, or carries on
//! exactly.
//!
//! Needs the local Vitess (`bash tests/vitess/up.sh && source tests/vitess/env.sh`); run with
//! `cargo test -p vitess-cdc-core --features integration --test live_bad_inputs`.
#![cfg(feature = "integration")]

mod common;

use common::live::{mysql_opts, mysql_port, vtgate};
use common::{poll_until, timeouts, Materialized};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{ErrorCode, ErrorKind, Event, StartMode, StreamOptions};

fn sql(statements: &[String]) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use mysql_async::prelude::Queryable;
        let mut conn = mysql_async::Conn::new(mysql_opts("customer"))
            .await
            .expect("connect to VTGate's MySQL port");
        for s in statements {
            conn.query_drop(s)
                .await
                .unwrap_or_else(|e| panic!("{s}: {e:.300}"));
        }
        conn.disconnect().await.ok();
    });
}

fn options(tables: &[&str]) -> StreamOptions {
    let mut o = StreamOptions::new(vtgate(), "customer");
    o.tables = tables.iter().map(|t| t.to_string()).collect();
    o.connect_timeout = Duration::from_secs(5);
    o.retry_max_attempts = 1;
    o
}

/// Opens (and polls) a stream that must fail within `limit`; returns the error.
fn failure(o: StreamOptions, limit: Duration) -> vitess_cdc_core::Error {
    let started = Instant::now();
    let err = match BlockingStream::open(o) {
        Err(e) => e,
        Ok(stream) => loop {
            match stream.poll(Duration::from_millis(200)) {
                Ok(events) => assert!(
                    events.iter().all(|e| !matches!(e, Event::Mark(_))),
                    "a failing stream emitted a position: {events:?}"
                ),
                Err(e) => break e,
            }
            assert!(started.elapsed() < limit, "no error within {limit:?}");
        },
    };
    assert!(
        started.elapsed() < limit,
        "failed only after {:?}",
        started.elapsed()
    );
    err
}

#[test]
fn refused_inputs_name_the_cause_and_the_fix() {
    // VTGate's MySQL port instead of its gRPC port: the likeliest wrong port.
    let mut o = options(&["customer"]);
    o.address = format!("127.0.0.1:{}", mysql_port());
    let e = failure(o, timeouts::REFUSED_WITHIN);
    println!(
        "MySQL port as VTGate: [{} {}] {}",
        e.kind,
        e.code.as_str(),
        e.full_message()
    );
    assert!(
        e.full_message()
            .contains("check that the address is VTGate's gRPC port"),
        "{}",
        e.full_message()
    );

    let e = failure(options(&["no_such_table"]), timeouts::REFUSED_WITHIN);
    println!(
        "unknown table: [{} {}] {}",
        e.kind,
        e.code.as_str(),
        e.full_message()
    );
    assert_eq!(e.kind, ErrorKind::Config);
    assert_eq!(e.code, ErrorCode::UnknownTable);
    assert!(e.message.contains("no_such_table") && e.message.contains("customer"));

    let e = failure(options(&["audit_log"]), timeouts::REFUSED_WITHIN);
    println!(
        "table without primary key: [{} {}] {}",
        e.kind,
        e.code.as_str(),
        e.full_message()
    );
    assert_eq!(e.code, ErrorCode::NoPrimaryKey);
    assert!(e.message.contains("allow_tables_without_primary_key"));
}

/// A table dropped while it is streamed, right after a change to it: either the change, the DDL
/// of each shard arrive and the stream carries on, or (when the tablet already forgot the table)
/// the stream fails with a configuration error naming the fix. Never a silent gap.
#[test]
fn a_table_dropped_while_streaming_carries_on_or_fails_naming_the_fix() {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let t = format!("dropped_{}_{nanos}", std::process::id());
    sql(&[
        format!("CREATE TABLE {t} (id BIGINT PRIMARY KEY, v VARCHAR(16))"),
        format!("ALTER VSCHEMA ON customer.{t} ADD VINDEX hash(id) USING hash"),
    ]);
    sql(&[format!("INSERT INTO {t} (id, v) VALUES (1, 'copied')")]);
    let mut o = options(&[&t]);
    o.retry_max_attempts = 10;
    // The DROP itself stops a stream by default (DESTRUCTIVE_DDL, machine::tests and
    // VitessDestructiveDdlITCase): accepted here, to see what the tablet makes of the rows
    // written before it.
    o.destructive_ddl = vitess_cdc_core::DestructiveDdl::Continue;
    let stream = BlockingStream::open(o).expect("open");
    let mut view = Materialized::default();
    poll_until(&stream, &mut view, timeouts::copy(), |e, _| {
        matches!(e, Event::CopyCompleted)
    });
    sql(&[
        format!("INSERT INTO {t} (id, v) VALUES (2, 'streamed')"),
        format!("DROP TABLE {t}"),
        format!("ALTER VSCHEMA ON customer.{t} DROP VINDEX hash"),
    ]);
    // Two outcomes, both exact, depending on whether the tablet streamed the last insert before
    // it reloaded its schema at the DROP: every change and the DDL of each shard arrive and the
    // stream carries on; or VTGate cannot decode the insert any more and the stream fails with
    // a configuration error naming the fix.
    let started = Instant::now();
    let mut ddl_shards = 0;
    loop {
        assert!(
            started.elapsed() < timeouts::events(),
            "neither outcome within the deadline"
        );
        match stream.poll(Duration::from_millis(200)) {
            Ok(events) => {
                for e in events {
                    match &e {
                        Event::Change(c) => view.apply(c),
                        Event::Ddl { statement, .. } => {
                            assert!(statement.contains("DROP TABLE"), "{statement}");
                            ddl_shards += 1;
                        }
                        _ => {}
                    }
                }
                if ddl_shards == 2 && view.ids(&t, 1..3).len() == 2 {
                    println!("dropped table: the stream carried on");
                    // The stream stays healthy after the drop: no error while it idles on.
                    let quiet = Instant::now();
                    while quiet.elapsed() < timeouts::idle_stream_watched() {
                        stream
                            .poll(Duration::from_millis(200))
                            .expect("the stream after the table's drop");
                    }
                    break;
                }
            }
            Err(e) => {
                println!(
                    "dropped table: [{} {}] {}",
                    e.kind,
                    e.code.as_str(),
                    e.full_message()
                );
                assert_eq!(e.kind, ErrorKind::Config, "{}", e.full_message());
                assert_eq!(e.code, ErrorCode::UnknownTable);
                assert!(e.message.contains(&t), "{}", e.message);
                assert!(
                    e.message.contains("--track-schema-versions"),
                    "{}",
                    e.message
                );
                assert!(
                    view.ids(&t, 2..3).is_empty(),
                    "the insert arrived, yet the stream failed on it"
                );
                break;
            }
        }
    }
    stream.close();
}

#[test]
fn the_start_mode_is_irrelevant_to_a_refused_table() {
    // Resuming (latest) fails the same way as a copy: the plan checks the tables first.
    let mut o = options(&["no_such_table"]);
    o.start = StartMode::Latest;
    let e = failure(o, timeouts::REFUSED_WITHIN);
    assert_eq!(e.code, ErrorCode::UnknownTable);
}
