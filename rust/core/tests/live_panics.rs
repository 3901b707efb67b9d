// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! No silent death: a panic inside a background task of a stream (the reader, a capture's log
//! task, a capture's chunk task) reaches the consumer's next `poll` as a fatal `INTERNAL` error
//! that carries the panic's message and location, instead of empty batches forever.
//!
//! The panics are injected (`supervise::faults`, feature `fault-injection`, tests only) into
//! streams on the real local Vitess. Run with
//! `cargo test -p vitess-cdc-core --features integration,fault-injection --test live_panics`.
#![cfg(all(feature = "integration", feature = "fault-injection"))]

mod common;

use common::live::{mysql_opts, vtgate};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::options::TabletType;
use vitess_cdc_core::snapshot::Capture;
use vitess_cdc_core::supervise::{faults, Task};
use vitess_cdc_core::{
    Error, ErrorCode, ErrorKind, Event, SnapshotOptions, StartMode, StreamOptions,
};

/// An injected panic hits any task of its kind in this process: one test at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// How long a panic may take to reach `poll`: an assertion, not scaled.
const BOUND: Duration = Duration::from_secs(15);

fn options() -> StreamOptions {
    let mut o = StreamOptions::new(vtgate(), "customer");
    o.tables = vec!["customer".into()];
    o.start = StartMode::Latest;
    o
}

fn insert_customer() -> i64 {
    let id = 3_000_000_000_000_000
        + (SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_micros() as i64
            % 1_000_000_000_000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use mysql_async::prelude::Queryable;
        let mut conn = mysql_async::Conn::new(mysql_opts("customer"))
            .await
            .expect("connect to VTGate's MySQL port");
        conn.query_drop(format!(
            "insert into customer (customer_id, email) values ({id}, 'panic-{id}@example.com')"
        ))
        .await
        .expect("insert");
        conn.disconnect().await.ok();
    });
    id
}

/// Polls until `poll` fails; events before the failure are returned with it.
fn poll_until_failed(stream: &BlockingStream) -> (Error, Vec<Event>, Duration) {
    let started = Instant::now();
    let mut seen = Vec::new();
    loop {
        assert!(
            started.elapsed() < BOUND,
            "the stream did not fail within {BOUND:?}; it stalled (last events: {:?})",
            seen.iter().rev().take(3).collect::<Vec<_>>()
        );
        match stream.poll(Duration::from_millis(200)) {
            Ok(events) => seen.extend(events),
            Err(e) => return (e, seen, started.elapsed()),
        }
    }
}

fn assert_panic_error(e: &Error, task: Task) {
    assert_eq!(e.kind, ErrorKind::Fatal, "{}", e.message);
    assert_eq!(e.code, ErrorCode::Internal, "{}", e.message);
    let expected = format!("{} panicked at ", task.name());
    assert!(e.message.contains(&expected), "{}", e.message);
    assert!(
        e.message.contains("supervise.rs:"),
        "the location: {}",
        e.message
    );
    assert!(
        e.message.contains(&format!(
            "injected panic in {} (fault injection)",
            task.name()
        )),
        "the panic's own message: {}",
        e.message
    );
}

#[test]
fn a_panic_in_the_reader_fails_the_next_poll_instead_of_stalling() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let stream = BlockingStream::open(options()).expect("open");
    // The stream reads: a row written now arrives.
    let id = insert_customer();
    let started = Instant::now();
    let mut arrived = false;
    while !arrived {
        assert!(started.elapsed() < BOUND, "the inserted row never arrived");
        for e in stream.poll(Duration::from_millis(200)).expect("poll") {
            if let Event::Change(c) = &e {
                arrived |= format!("{:?}", c.values).contains(&id.to_string());
            }
        }
    }
    faults::panic_next(Task::Reader);
    // A new row wakes the reader, whose next poll panics.
    insert_customer();
    let (e, _, took) = poll_until_failed(&stream);
    assert!(!faults::armed(Task::Reader), "the reader took the fault");
    assert_panic_error(&e, Task::Reader);
    eprintln!("reader panic reached poll after {took:?}: {}", e.message);
    // Sticky: every later poll says the same, promptly.
    let again = stream
        .poll(Duration::from_secs(5))
        .expect_err("still failed");
    assert_eq!(again.message, e.message);
    assert_eq!(again.code, ErrorCode::Internal);
    stream.close();
}

fn capture_options() -> SnapshotOptions {
    SnapshotOptions {
        chunk_rows: 1000,
        chunks_in_flight: 2,
        // vttestserver's non-primary tablets are RDONLY (docs/snapshots.md).
        tablet_type: TabletType::Rdonly,
        ..SnapshotOptions::default()
    }
}

fn capture_customer() -> Vec<Capture> {
    vec![Capture {
        table: "customer".into(),
        filter: None,
        shards: Vec::new(),
    }]
}

#[test]
fn a_panic_in_a_capture_chunk_task_fails_the_stream_instead_of_retrying_or_stalling() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    insert_customer(); // the table has a row to read
    faults::panic_next(Task::CaptureChunk);
    let stream = BlockingStream::open_capturing(options(), capture_customer(), capture_options())
        .expect("open");
    let (e, _, took) = poll_until_failed(&stream);
    assert!(!faults::armed(Task::CaptureChunk), "a chunk took the fault");
    assert_panic_error(&e, Task::CaptureChunk);
    eprintln!("chunk panic reached poll after {took:?}: {}", e.message);
    let progress = stream.capture_progress().expect("a capture");
    assert!(
        progress.shards.values().all(|s| s.chunks_failed == 0),
        "a panic is not a failed chunk to read again: {progress:?}"
    );
    stream.close();
}

#[test]
fn a_panic_in_a_capture_log_task_fails_the_stream() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    faults::panic_next(Task::CaptureLog);
    let stream = BlockingStream::open_capturing(options(), capture_customer(), capture_options())
        .expect("open");
    let (e, _, took) = poll_until_failed(&stream);
    assert!(
        !faults::armed(Task::CaptureLog),
        "the log task took the fault"
    );
    assert_panic_error(&e, Task::CaptureLog);
    eprintln!("log task panic reached poll after {took:?}: {}", e.message);
    stream.close();
}
