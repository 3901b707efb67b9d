// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Grammar corner cases and faults, played by the scripted VTGate (`rust/testkit`).

mod common;

use common::scripted::Harness;
use common::Materialized;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{Error, ErrorKind, Event, StartMode, StreamOptions, Value};
use vitess_cdc_testkit::events::*;
use vitess_cdc_testkit::{Keyspace, Session};

fn fake(sessions: Vec<Session>) -> Harness {
    Harness::start(
        Keyspace::new(KS, &[SHARD], &[("t", true), ("u", true)]),
        sessions,
    )
}

fn options(h: &Harness, start: StartMode) -> StreamOptions {
    h.options(KS, start)
}

fn resume_at(gtid: &str) -> StartMode {
    StartMode::Positions(vec![vitess_cdc_core::ShardPosition {
        keyspace: KS.into(),
        shard: SHARD.into(),
        gtid: gtid.into(),
        table_p_ks: vec![],
        tables_to_copy: vec![],
        copy_completed: true,
        snapshots: Vec::new(),
    }])
}

/// A session that commits row 1 of `t` at `p1`, then stays open.
fn row_one_committed_then_held() -> Session {
    Session::new()
        .send(vec![
            begin(),
            field("t"),
            insert("t", 1),
            vgtid("p1"),
            commit(),
        ])
        .hold()
}

/// `attempts` reconnects with backoffs of 10 to 50 ms: a retry budget a test spends in moments.
fn quick_retries(o: &mut StreamOptions, attempts: u32) {
    o.retry_max_attempts = attempts;
    o.retry_initial_backoff = Duration::from_millis(10);
    o.retry_max_backoff = Duration::from_millis(50);
}

/// Polls until the stream fails and returns its error; panics with `none` after 10 s without one.
fn first_error(stream: &BlockingStream, none: &str) -> Error {
    let started = Instant::now();
    loop {
        match stream.poll(Duration::from_millis(100)) {
            Ok(_) if started.elapsed() < Duration::from_secs(10) => continue,
            Ok(_) => panic!("{none}"),
            Err(e) => return e,
        }
    }
}

/// Polls until `n` events matching `want` were seen (or an error / 10 s).
fn collect(stream: &BlockingStream, mut until: impl FnMut(&[Event]) -> bool) -> Vec<Event> {
    let started = Instant::now();
    let mut all = Vec::new();
    while !until(&all) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "timed out; got {all:?}"
        );
        all.extend(stream.poll(Duration::from_millis(100)).expect("poll"));
    }
    all
}

fn ids(events: &[Event]) -> Vec<i64> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Change(c) => match c.values[0] {
                Value::Int(i) => Some(i),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn count_marks(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Mark(_)))
        .count()
}

#[test]
fn copy_grammar_quirks_are_tolerated() {
    let h = fake(vec![Session::new()
        // empty table first: BEGIN, FIELD, VGTID, then a second BEGIN for the completion
        .send(vec![begin(), field("t"), vgtid("p1")])
        .send(vec![begin(), vgtid("p1"), commit()])
        // a batch split over two responses, with two VGTIDs and a heartbeat inside
        .send(vec![begin(), vgtid("p2"), copy_rows("t", 0..3)])
        .send(vec![
            heartbeat(),
            copy_rows("t", 3..5),
            vgtid_with("p2", vec![lastpk("t", 4)]),
            commit(),
        ])
        // BEGIN/COMMIT without VGTID: no mark
        .send(vec![begin(), commit()])
        .send(vec![
            begin(),
            vgtid("p3"),
            commit(),
            shard_copy_completed(),
            copy_completed(),
        ])
        .hold()]);
    let stream = BlockingStream::open(options(&h, StartMode::SnapshotOnly)).unwrap();
    let events = collect(&stream, |e| matches!(e.last(), Some(Event::End)));
    assert_eq!(ids(&events), vec![0, 1, 2, 3, 4]);
    assert!(
        events.iter().all(|e| !matches!(e, Event::Heartbeat { .. })),
        "heartbeat inside a transaction"
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e, Event::Schema(_)))
            .count(),
        1
    );
    let marks: Vec<_> = events
        .iter()
        .filter_map(|e| {
            if let Event::Mark(p) = e {
                Some(p.clone())
            } else {
                None
            }
        })
        .collect();
    // p1 (empty table done), p2 (batch), p3, after COPY_COMPLETED
    assert_eq!(marks.len(), 4, "{marks:?}");
    assert_eq!(marks[1].table_p_ks[0].table_name, "t");
    assert!(marks.last().unwrap().copy_completed);
    assert_eq!(stream.positions().shards[0].gtid, "p3");
}

#[test]
fn stream_cut_mid_transaction_resumes_without_gap_or_repeat() {
    let h = fake(vec![
        Session::new()
            .send(vec![vgtid("p0"), other()])
            .send(vec![begin(), field("t"), insert("t", 1)])
            .send(vec![insert("t", 2)])
            .fail_unavailable(),
        Session::new()
            .send(vec![
                begin(),
                field("t"),
                insert("t", 1),
                insert("t", 2),
                insert("t", 3),
                vgtid("p1"),
                commit(),
            ])
            .send(vec![begin(), insert("t", 4), vgtid("p2"), commit()])
            .hold(),
    ]);
    let stream = BlockingStream::open(options(&h, StartMode::Latest)).unwrap();
    let events = collect(&stream, |e| ids(e).len() >= 4);
    assert_eq!(ids(&events), vec![1, 2, 3, 4]);
    // the second request resumed from the last mark
    let requests = h.fake.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].vgtid.as_ref().unwrap().shard_gtids[0].gtid,
        "current"
    );
    assert_eq!(
        requests[1].vgtid.as_ref().unwrap().shard_gtids[0].gtid,
        "p0"
    );
    assert_eq!(stream.metrics().reconnects, 1);
    assert_eq!(stream.positions().shards[0].gtid, "p2");
}

#[test]
fn chunked_transaction_cut_midway_is_skipped_exactly_on_replay() {
    // 1 MiB buffer → transactions above 1 MiB are handed out in chunks before COMMIT
    let big = "x".repeat(200 * 1024);
    let big_insert = |id: i64| rows("t", 1_700_000_000, vec![(None, Some(row(id, &big)))]);
    let h = fake(vec![
        Session::new()
            .send(vec![vgtid("p0"), other(), begin(), field("t")])
            .send((0..8).map(big_insert).collect())
            .fail_unavailable(),
        Session::new()
            .send(vec![begin(), field("t")])
            .send((0..10).map(big_insert).collect())
            .send(vec![vgtid("p1"), commit()])
            .hold(),
    ]);
    let mut o = options(&h, StartMode::Latest);
    o.buffer_bytes = 1024 * 1024;
    let stream = BlockingStream::open(o).unwrap();
    let events = collect(&stream, |e| count_marks(e) >= 2);
    assert_eq!(
        ids(&events),
        (0..10).collect::<Vec<_>>(),
        "each row exactly once"
    );
    assert_eq!(stream.metrics().reconnects, 1);
}

#[test]
fn stream_cut_mid_copy_batch_resumes_from_the_last_lastpk() {
    let h = fake(vec![
        Session::new()
            .send(vec![
                begin(),
                field("t"),
                vgtid("s1"),
                copy_rows("t", 0..10),
                vgtid_with("s1", vec![lastpk("t", 9)]),
                commit(),
            ])
            .send(vec![begin(), copy_rows("t", 10..15)])
            .fail_unavailable(),
        Session::new()
            .send(vec![
                begin(),
                field("t"),
                copy_rows("t", 10..20),
                vgtid_with("s1", vec![lastpk("t", 19)]),
                commit(),
            ])
            .send(vec![
                begin(),
                vgtid("s2"),
                commit(),
                shard_copy_completed(),
                copy_completed(),
            ])
            .hold(),
    ]);
    let stream = BlockingStream::open(options(&h, StartMode::Initial)).unwrap();
    let events = collect(&stream, |e| {
        e.iter().any(|x| matches!(x, Event::CopyCompleted))
    });
    let mut view = Materialized::default();
    for e in &events {
        if let Event::Change(c) = e {
            view.apply(c);
        }
    }
    assert_eq!(ids(&events), (0..20).collect::<Vec<_>>());
    assert!(view.copied.values().all(|&n| n == 1), "no row copied twice");
    let requests = h.fake.requests();
    let resumed = &requests[1].vgtid.as_ref().unwrap().shard_gtids[0];
    assert_eq!(resumed.gtid, "s1");
    assert_eq!(resumed.table_p_ks.len(), 1);
    assert_eq!(
        resumed.table_p_ks[0].lastpk.as_ref().unwrap().rows[0].values,
        &b"9"[..]
    );
}

/// The rowstreamer's copy-phase limit (`--vreplication-copy-phase-duration`, errno 3024) or a
/// DBA's query killer cuts a long copy, and a VTGate that passes the cut on (older lines do, and
/// every line once it gives up retrying) ends the stream: each cut resumes from the table's last
/// primary key, never from the top, each row arrives once, and the cuts are counted.
#[test]
fn a_copy_cut_again_and_again_by_the_server_resumes_from_its_last_primary_key() {
    let cut = "vttablet: rpc error: code = DeadlineExceeded desc = Query execution was interrupted, maximum \
               statement execution time exceeded (errno 3024) (sqlstate HY000) during query: select id, v from t \
               where (id > 9) order by id";
    let batch = |from: i64| {
        vec![
            begin(),
            field("t"),
            vgtid("s1"),
            copy_rows("t", from..from + 10),
            vgtid_with("s1", vec![lastpk("t", from + 9)]),
            commit(),
        ]
    };
    let h = fake(vec![
        Session::new()
            .send(batch(0))
            .fail(tonic::Code::DeadlineExceeded, cut),
        Session::new()
            .send(batch(10))
            .fail(tonic::Code::Unknown, cut),
        Session::new().send(batch(20)).fail(
            tonic::Code::Cancelled,
            "Query execution was interrupted (errno 1317)",
        ),
        Session::new()
            .send(batch(30))
            .send(vec![
                begin(),
                vgtid("s2"),
                commit(),
                shard_copy_completed(),
                copy_completed(),
            ])
            .hold(),
    ]);
    let stream = BlockingStream::open(options(&h, StartMode::Initial)).unwrap();
    let events = collect(&stream, |e| {
        e.iter().any(|x| matches!(x, Event::CopyCompleted))
    });
    assert_eq!(
        ids(&events),
        (0..40).collect::<Vec<_>>(),
        "every row once, in order"
    );
    let requests = h.fake.requests();
    assert_eq!(requests.len(), 4);
    for (attempt, last) in [(1, "9"), (2, "19"), (3, "29")] {
        let resumed = &requests[attempt].vgtid.as_ref().unwrap().shard_gtids[0];
        assert_eq!(
            resumed.table_p_ks[0].lastpk.as_ref().unwrap().rows[0].values,
            last.as_bytes(),
            "attempt {attempt} resumes after the last copied key, not from the top"
        );
    }
    let metrics = stream.metrics();
    assert_eq!(metrics.copy_resumes, 3, "three cuts survived");
    assert_eq!(metrics.reconnects, 3);
}

#[test]
fn malformed_event_is_a_clear_sticky_error() {
    let bad_row = rows(
        "t",
        1,
        vec![(
            None,
            Some(vitess_cdc_core::proto::query::Row {
                lengths: vitess_cdc_core::proto::encode_lengths(vec![9, 1]),
                values: b"1".to_vec().into(),
            }),
        )],
    );
    let h = fake(vec![Session::new()
        .send(vec![begin(), field("t"), bad_row, vgtid("p1"), commit()])
        .hold()]);
    let stream = BlockingStream::open(options(&h, resume_at("p0"))).unwrap();
    let err = first_error(&stream, "no error");
    assert_eq!(err.kind, ErrorKind::Fatal);
    assert!(
        err.message.contains("ks.t") && err.message.contains("malformed row"),
        "{}",
        err.message
    );
    let again = stream.poll(Duration::from_millis(10)).unwrap_err();
    assert_eq!(again.kind, ErrorKind::Fatal);
    stream.close();
}

#[test]
fn oversized_message_names_the_limit_to_raise() {
    let huge = "y".repeat(5 * 1024 * 1024);
    let h = fake(vec![Session::new()
        .send(vec![
            begin(),
            field("t"),
            rows("t", 1, vec![(None, Some(row(1, &huge)))]),
        ])
        .hold()]);
    let mut o = options(&h, resume_at("p0"));
    o.max_message_bytes = 4 * 1024 * 1024;
    let stream = BlockingStream::open(o).unwrap();
    let err = first_error(&stream, "no error");
    assert_eq!(err.kind, ErrorKind::Config);
    assert!(err.message.contains("max_message_bytes"), "{}", err.message);
}

#[test]
fn retries_are_bounded() {
    let h = fake((0..10).map(|_| Session::new().fail_unavailable()).collect());
    let mut o = options(&h, resume_at("p0"));
    o.retry_max_attempts = 2;
    // the first call fails after open succeeded (headers come with the status)
    let stream = match BlockingStream::open(o) {
        Ok(s) => s,
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::Retryable);
            return;
        }
    };
    let err = first_error(&stream, "no error");
    assert_eq!(err.kind, ErrorKind::Retryable);
    assert!(err.message.contains("gave up after 2"), "{}", err.message);
}

/// VTGate heartbeats while it cannot reach a shard's tablet, between failed attempts: a response
/// of heartbeats only is no progress, so the retry budget still runs out.
#[test]
fn heartbeats_between_failures_do_not_reset_the_retry_budget() {
    let h = fake(
        (0..10)
            .map(|_| {
                Session::new()
                    .send(vec![heartbeat()])
                    .fail(tonic::Code::Unavailable, "no healthy tablet available")
            })
            .collect(),
    );
    let mut o = options(&h, resume_at("p0"));
    quick_retries(&mut o, 2);
    let stream = BlockingStream::open(o).expect("open: the first response is a heartbeat");
    let err = first_error(
        &stream,
        "heartbeats reset the retry budget: still retrying after 10 s",
    );
    assert_eq!(err.kind, ErrorKind::Retryable);
    assert!(err.message.contains("gave up after 2"), "{}", err.message);
    assert_eq!(
        h.fake.requests().len(),
        3,
        "the first attempt and two retries"
    );
}

/// An RPC that stayed up longer than the longest backoff was a working stream, heartbeats only
/// or not (a quiet keyspace): the outage it ended is over, and the next one (another VTGate
/// restart, minutes later) gets the whole retry budget, not what the last one left of it.
#[test]
fn an_rpc_that_stayed_up_past_the_longest_backoff_ends_the_run_of_failures() {
    // Up for 150 ms, then VTGate goes away: the first with a heartbeat (what opening waits
    // for), the others with nothing at all (heartbeats off, as the CLI's default).
    let up_then_restarted = |heartbeat_first: bool| {
        let session = if heartbeat_first {
            Session::new().send(vec![heartbeat()])
        } else {
            Session::new()
        };
        session
            .pause(Duration::from_millis(150))
            .fail(tonic::Code::Unavailable, "vtgate restarting")
    };
    let mut sessions: Vec<Session> = (0..4).map(|i| up_then_restarted(i == 0)).collect();
    sessions.push(row_one_committed_then_held());
    let h = fake(sessions);
    let mut o = options(&h, resume_at("p0"));
    quick_retries(&mut o, 2);
    let stream = BlockingStream::open(o).expect("open: the first response is a heartbeat");
    // Four restarts, each after 150 ms up: with the attempts added up, the third would give up.
    let events = collect(&stream, |e| !ids(e).is_empty());
    assert_eq!(ids(&events), vec![1]);
    assert_eq!(
        h.fake.requests().len(),
        5,
        "the first RPC and four reconnects"
    );
    assert_eq!(stream.metrics().reconnects, 4);
}

/// A VTGate that answered on this connection and then broke calls off before answering is
/// restarting, not a TLS port: the retries' error says what happened, without the hint to turn
/// TLS on that a close before any answer gets (tls.rs,
/// `plaintext_client_against_a_tls_server_fails_clearly`).
#[test]
fn calls_broken_off_after_plaintext_answers_get_no_tls_hint() {
    let broken_off = || Session::new().fail(tonic::Code::Cancelled, "operation was canceled");
    let mut sessions = vec![Session::new()
        .send(vec![heartbeat()])
        .fail(tonic::Code::Unavailable, "vtgate restarting")];
    sessions.extend((0..4).map(|_| broken_off()));
    let h = fake(sessions);
    let mut o = options(&h, resume_at("p0"));
    quick_retries(&mut o, 2);
    let stream = BlockingStream::open(o).expect("open: the first response is a heartbeat");
    let err = first_error(&stream, "still retrying after 10 s");
    assert!(err.message.contains("gave up after 2"), "{}", err.message);
    assert!(
        err.full_message().to_lowercase().contains("cancel"),
        "the last attempt's cause: {}",
        err.full_message()
    );
    assert!(
        !err.full_message().contains("turn TLS on"),
        "a plaintext port that answered is not a TLS port: {}",
        err.full_message()
    );
}

/// A session that starts at `p0` and then commits one row of `row_bytes` per transaction, ids
/// 1 to `rows`, each transaction ending at `p<id>`.
fn one_big_row_per_transaction(rows_count: i64, row_bytes: usize) -> Session {
    let payload = "z".repeat(row_bytes);
    let mut session = Session::new().send(vec![
        vgtid("p0"),
        other(),
        begin(),
        field("t"),
        vgtid("p0"),
        commit(),
    ]);
    for i in 1..=rows_count {
        session = session.send(vec![
            begin(),
            rows("t", 1, vec![(None, Some(row(i, &payload)))]),
            vgtid(&format!("p{i}")),
            commit(),
        ]);
    }
    session
}

#[test]
fn a_consumer_that_stops_polling_stops_the_reader() {
    let session = one_big_row_per_transaction(1999, 64 * 1024); // ~128 MB in total
    let h = fake(vec![session.hold()]);
    let mut o = options(&h, StartMode::Latest);
    o.buffer_bytes = 1024 * 1024;
    let stream = BlockingStream::open(o).unwrap();
    std::thread::sleep(Duration::from_secs(2));
    let received = stream.metrics().bytes;
    assert!(
        received < 24 * 1024 * 1024,
        "reader kept reading without a consumer: {received} bytes"
    );
    // and it resumes when polled again
    let events = collect(&stream, |e| ids(e).len() >= 100);
    assert_eq!(ids(&events)[..100], (1..101).collect::<Vec<_>>()[..]);
    stream.close();
    stream.close(); // idempotent
}

/// With the budget held until recycled (the JNI bridge's mode), events a consumer took but did
/// not recycle still count: polling on without recycling does not make the reader read on, as
/// it does when taking gives the bytes back.
#[test]
fn events_taken_but_not_recycled_keep_the_reader_waiting() {
    let session = one_big_row_per_transaction(399, 256 * 1024); // ~100 MB in all
    let h = fake(vec![session.hold()]);
    let mut o = options(&h, StartMode::Latest);
    o.buffer_bytes = 1024 * 1024;
    let stream = BlockingStream::open(o).unwrap();
    stream.hold_budget_until_recycled();
    let mut taken = Vec::new();
    // Poll until a poll times out: the reader has stopped handing anything on.
    loop {
        let events = stream.poll(Duration::from_millis(500)).expect("poll");
        if events.is_empty() {
            break;
        }
        taken.extend(events);
        assert!(
            ids(&taken).len() < 50,
            "the reader read on past its budget: {} rows taken, none recycled",
            ids(&taken).len()
        );
    }
    let held = ids(&taken);
    assert!(!held.is_empty(), "the first rows arrived");
    // Recycled, the bytes come back and the reader goes on from where it stopped.
    stream.recycle(taken);
    let more = collect(&stream, |e| !ids(e).is_empty());
    assert_eq!(ids(&more)[0], held[held.len() - 1] + 1);
    stream.close();
}

#[test]
fn wake_returns_a_blocked_poll_early() {
    let h = fake(vec![Session::new().hold()]);
    let stream = std::sync::Arc::new(BlockingStream::open(options(&h, resume_at("p0"))).unwrap());
    let s2 = stream.clone();
    let waker = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        s2.wake();
    });
    let started = Instant::now();
    let events = stream.poll(Duration::from_secs(30)).unwrap();
    assert!(events.is_empty());
    assert!(started.elapsed() < Duration::from_secs(5));
    waker.join().unwrap();
    let s3 = stream.clone();
    let closer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        s3.close();
    });
    let _ = stream.poll(Duration::from_secs(30));
    assert!(started.elapsed() < Duration::from_secs(10));
    closer.join().unwrap();
    assert!(stream.poll(Duration::from_millis(1)).is_err());
}

#[test]
fn static_auth_errors_say_what_to_fix() {
    let keyspace = Keyspace::new(KS, &[SHARD], &[("t", true)]).with_credentials("app", "s3cret");
    let h = Harness::start(keyspace, vec![Session::new().hold()]);
    let mut o = options(&h, resume_at("p0"));
    let err = BlockingStream::open(o.clone())
        .err()
        .expect("no credentials");
    assert_eq!(err.kind, ErrorKind::Config);
    assert!(
        err.message.contains("requires credentials"),
        "{}",
        err.message
    );
    o.username = Some("app".into());
    o.password = Some("wrong".into());
    let err = BlockingStream::open(o.clone())
        .err()
        .expect("wrong password");
    assert_eq!(err.kind, ErrorKind::Config);
    assert!(
        err.message.contains("rejected the credentials"),
        "{}",
        err.message
    );
    o.password = Some("s3cret".into());
    BlockingStream::open(o).expect("right credentials").close();
}

#[test]
fn stop_on_reshard_ends_with_the_new_shards_as_positions() {
    use vitess_cdc_core::proto::binlogdata::{
        Journal, KeyspaceShard, MigrationType, ShardGtid, VEvent, VEventType,
    };
    let new_shard = |s: &str| ShardGtid {
        keyspace: KS.into(),
        shard: s.to_string().into(),
        gtid: format!("g{s}").into(),
        table_p_ks: vec![],
    };
    let journal = VEvent {
        r#type: VEventType::Journal as i32,
        keyspace: KS.into(),
        shard: SHARD.into(),
        journal: Some(Box::new(Journal {
            migration_type: MigrationType::Shards as i32,
            participants: vec![KeyspaceShard {
                keyspace: KS.into(),
                shard: SHARD.into(),
            }],
            shard_gtids: vec![new_shard("-80"), new_shard("80-")],
            ..Default::default()
        })),
        ..Default::default()
    };
    let h = fake(vec![Session::new()
        .send(vec![begin(), journal, vgtid("p9"), commit()])
        .end()]);
    let mut o = options(&h, resume_at("p0"));
    o.stop_on_reshard = true;
    let stream = BlockingStream::open(o).unwrap();
    let events = collect(&stream, |e| matches!(e.last(), Some(Event::End)));
    assert!(events.iter().any(|e| matches!(e, Event::Journal { .. })));
    let shards: Vec<String> = stream
        .positions()
        .shards
        .into_iter()
        .map(|p| p.shard)
        .collect();
    assert_eq!(shards, vec!["-80", "80-"]);
}

/// What vttablet answers when it killed a query under the caller (the words of a real run).
const INTERRUPTED: &str = "target: ks.0.primary: vttablet: rpc error: code = Canceled desc = (errno 1317) \
    (sqlstate 70100): Query execution was interrupted, elapsed time: 20.468831ms, killing query ID 96";

#[test]
fn interrupted_discovery_queries_are_retried_and_a_real_refusal_is_not() {
    use vitess_cdc_core::proto::vtrpc::Code;
    // Discovery reads four things (the version, the shards, the tables, their keys) side by
    // side; two of them are killed on the tablet once. The stream opens all the same.
    let h = Harness::start(
        Keyspace::new(KS, &[SHARD], &[("t", true)]).refusing(2, Code::Canceled, INTERRUPTED),
        vec![row_one_committed_then_held()],
    );
    let stream = BlockingStream::open(options(&h, StartMode::Latest))
        .expect("an interrupted discovery query is run again");
    assert_eq!(ids(&collect(&stream, |e| !ids(e).is_empty())), vec![1]);
    // 4 + 2, and the collations of the selected tables' text columns (read when the stream starts).
    assert_eq!(
        h.fake.executes(),
        4 + 2 + 1,
        "each refused read ran once more"
    );
    drop(stream);

    // A refusal that does not pass (here every read is refused as a syntax error) fails the
    // open at once, naming the statement, and is not retried.
    let h = Harness::start(
        Keyspace::new(KS, &[SHARD], &[("t", true)]).refusing(
            4,
            Code::InvalidArgument,
            "syntax error at position 7",
        ),
        vec![],
    );
    let e = BlockingStream::open(options(&h, StartMode::Latest))
        .err()
        .expect("a refused discovery fails the open");
    assert_eq!(e.kind, ErrorKind::Fatal, "{}", e.message);
    assert!(
        e.message.contains("VTGate refused `") && e.message.contains("syntax error"),
        "{}",
        e.message
    );
    assert_eq!(h.fake.executes(), 4, "a real refusal is not retried");
}

/// VTGate v22 refuses discovery queries, without a code, while dozens of streams open at once
/// (`keyspace names fetch error: context canceled`, seen with 35 opens): the reads are retried
/// with growing, jittered pauses long enough to outlast it.
#[test]
fn a_burst_of_v22_canceled_keyspace_fetches_is_outlasted() {
    use vitess_cdc_core::proto::vtrpc::Code;
    let h = Harness::start(
        Keyspace::new(KS, &[SHARD], &[("t", true)]).refusing(
            12,
            Code::Unknown,
            "keyspace names fetch error: context canceled",
        ),
        vec![row_one_committed_then_held()],
    );
    let stream = BlockingStream::open(options(&h, StartMode::Latest))
        .expect("the refusals pass before the reads give up");
    assert_eq!(ids(&collect(&stream, |e| !ids(e).is_empty())), vec![1]);
    assert!(
        h.fake.executes() >= 4 + 12,
        "every refused read ran again: {} calls",
        h.fake.executes()
    );
}

/// The bytes metric counts each response's protobuf size, taken as the response is decoded.
#[test]
fn received_bytes_are_the_responses_encoded_sizes() {
    use prost::Message;
    use vitess_cdc_core::proto::vtgate::VStreamResponse;
    let responses = vec![
        vec![vgtid("p0"), other()],
        vec![begin(), field("t"), insert("t", 1), vgtid("p1"), commit()],
        vec![
            begin(),
            rows("t", 1, vec![(None, Some(row(2, &"y".repeat(5000))))]),
            vgtid("p2"),
            commit(),
        ],
    ];
    let expected_bytes: usize = responses
        .iter()
        .map(|events| {
            VStreamResponse {
                events: events.clone(),
            }
            .encoded_len()
        })
        .sum();
    let expected_events: usize = responses.iter().map(Vec::len).sum();
    let session = responses
        .into_iter()
        .fold(Session::new(), |session, events| session.send(events));
    let h = fake(vec![session.hold()]);
    let stream = BlockingStream::open(options(&h, StartMode::Latest)).unwrap();
    let events = collect(&stream, |e| ids(e).contains(&2));
    assert_eq!(ids(&events), vec![1, 2]);
    let metrics = stream.metrics();
    assert_eq!(metrics.bytes as usize, expected_bytes);
    assert_eq!(metrics.events as usize, expected_events);
    stream.close();
}
