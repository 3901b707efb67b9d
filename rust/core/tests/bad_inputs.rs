// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The core's part of the bad-input catalogue (docs/reliability.md, "Bad-input catalogue"):
//! options, positions, servers and wire messages a user or a broken network can hand the core,
//! played against the scripted VTGate (`rust/testkit`) — the faults a real server cannot be made
//! to produce on demand. Each case asserts the error's kind and code, that its message names the
//! cause and the fix, that the process goes on (the next case runs in it), and that no position
//! a later restore would trust was emitted: no `Mark` of the transaction that failed.
//!
//! The messages are printed (`--nocapture`) as the catalogue quotes them.

mod common;

use common::scripted::Harness;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::position::parse_specific_offsets;
use vitess_cdc_core::proto::binlogdata::VEvent;
use vitess_cdc_core::proto::query::Row;
use vitess_cdc_core::{ErrorCode, ErrorKind, Event, ShardPosition, StartMode, StreamOptions};
use vitess_cdc_testkit::events::*;
use vitess_cdc_testkit::{Keyspace, Session};

/// The position the scripted stream starts from; the bad transaction would commit at `BAD`.
const START: &str = "MySQL56/00000000-0000-0000-0000-000000000001:1-5";
const BAD: &str = "MySQL56/00000000-0000-0000-0000-000000000001:1-6";

fn keyspace() -> Keyspace {
    Keyspace::new(KS, &[SHARD], &[("t", true), ("nopk", false)])
}

fn resume_at(gtid: &str) -> StartMode {
    StartMode::Positions(vec![ShardPosition {
        keyspace: KS.into(),
        shard: SHARD.into(),
        gtid: gtid.into(),
        table_p_ks: vec![],
        tables_to_copy: vec![],
        copy_completed: true,
        snapshots: Vec::new(),
    }])
}

/// What one bad input must produce.
struct Expect {
    kind: ErrorKind,
    code: ErrorCode,
    /// Fragments of the message: the cause and the fix.
    says: &'static [&'static str],
}

/// Opens a stream with `options` and polls it until it fails; returns the error and every event
/// delivered before it. Never more than 10 s.
fn fail(options: StreamOptions) -> (vitess_cdc_core::Error, Vec<Event>) {
    let stream = match BlockingStream::open(options) {
        Ok(s) => s,
        Err(e) => return (e, Vec::new()),
    };
    let started = Instant::now();
    let mut seen = Vec::new();
    let err = loop {
        match stream.poll(Duration::from_millis(100)) {
            Ok(events) => {
                assert!(
                    started.elapsed() < Duration::from_secs(10),
                    "no error after 10 s; events {seen:?}"
                );
                seen.extend(events);
            }
            Err(e) => break e,
        }
    };
    // The error is sticky: polling again does not resume past the bad input.
    assert!(stream.poll(Duration::from_millis(10)).is_err());
    stream.close();
    (err, seen)
}

fn check(name: &str, (err, seen): (vitess_cdc_core::Error, Vec<Event>), expect: Expect) {
    let message = err.full_message();
    println!("{name}: [{} {}] {message}", err.kind, err.code.as_str());
    assert_eq!(err.kind, expect.kind, "{name}: {message}");
    assert_eq!(err.code, expect.code, "{name}: {message}");
    for fragment in expect.says {
        assert!(
            message.contains(fragment),
            "{name}: message lacks {fragment:?}: {message}"
        );
    }
    for e in &seen {
        if let Event::Mark(p) = e {
            assert_ne!(
                p.gtid, BAD,
                "{name}: the failed transaction's position was emitted"
            );
        }
    }
}

/// A named change to valid options, and what it must produce.
type OptionCase = (&'static str, Box<dyn Fn(&mut StreamOptions)>, Expect);

fn scripted(sessions: Vec<Session>) -> Harness {
    Harness::start(keyspace(), sessions)
}

/// One session sending `events`, then holding the stream open.
fn wire(events: Vec<VEvent>) -> Harness {
    scripted(vec![Session::new().send(events).hold()])
}

#[test]
fn options_the_core_refuses() {
    let h = scripted(vec![]);
    let cases: Vec<OptionCase> = vec![
        (
            "empty keyspace",
            Box::new(|o| o.keyspace = String::new()),
            Expect {
                kind: ErrorKind::Config,
                code: ErrorCode::InvalidOption,
                says: &["keyspace"],
            },
        ),
        (
            "unknown keyspace",
            Box::new(|o| o.keyspace = "no_such_keyspace".into()),
            Expect {
                kind: ErrorKind::Config,
                code: ErrorCode::UnknownKeyspace,
                says: &["no_such_keyspace", KS],
            },
        ),
        (
            "unknown table",
            Box::new(|o| o.tables = vec!["no_such_table".into()]),
            Expect {
                kind: ErrorKind::Config,
                code: ErrorCode::UnknownTable,
                says: &["no_such_table", "t"],
            },
        ),
        (
            "table without primary key",
            Box::new(|o| o.tables = vec!["nopk".into()]),
            Expect {
                kind: ErrorKind::Config,
                code: ErrorCode::NoPrimaryKey,
                says: &["nopk", "primary key"],
            },
        ),
        (
            "invalid table pattern",
            Box::new(|o| {
                o.tables.clear();
                o.table_patterns = vec!["(".into()];
            }),
            Expect {
                kind: ErrorKind::Config,
                code: ErrorCode::InvalidOption,
                says: &["("],
            },
        ),
        (
            "unknown shard",
            Box::new(|o| o.shards = vec!["-40".into()]),
            Expect {
                kind: ErrorKind::Config,
                code: ErrorCode::UnknownShard,
                says: &["-40", SHARD],
            },
        ),
        (
            "row filter without tables",
            Box::new(|o| {
                o.tables.clear();
                o.table_patterns = vec!["t.*".into()];
                o.row_filter = Some("id > 5".into());
            }),
            Expect {
                kind: ErrorKind::Config,
                code: ErrorCode::InvalidOption,
                says: &["row"],
            },
        ),
        (
            "position of another keyspace",
            Box::new(|o| {
                o.start = StartMode::Positions(vec![ShardPosition {
                    keyspace: "other".into(),
                    shard: SHARD.into(),
                    gtid: START.into(),
                    table_p_ks: vec![],
                    tables_to_copy: vec![],
                    copy_completed: true,
                    snapshots: Vec::new(),
                }])
            }),
            Expect {
                kind: ErrorKind::Config,
                code: ErrorCode::InvalidPosition,
                says: &["other", "restore a checkpoint of a job that read 'ks'"],
            },
        ),
    ];
    for (name, change, expect) in cases {
        let mut o = h.options(KS, resume_at(START));
        change(&mut o);
        check(name, fail(o), expect);
    }
}

#[test]
fn malformed_specific_offsets() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "offsets: not JSON",
            r#"{"shard_gtids": ["#,
            &["shard_gtids"],
        ),
        ("offsets: no shards", r#"{"shard_gtids": []}"#, &["shard"]),
        (
            "offsets: another keyspace",
            r#"{"shard_gtids":[{"keyspace":"other","shard":"-80","gtid":"current"}]}"#,
            &["other"],
        ),
    ];
    for (name, text, says) in cases {
        let err = parse_specific_offsets(KS, text).unwrap_err();
        let message = err.full_message();
        println!("{name}: [{} {}] {message}", err.kind, err.code.as_str());
        assert_eq!(err.kind, ErrorKind::Config, "{name}: {message}");
        for s in *says {
            assert!(message.contains(s), "{name}: lacks {s:?}: {message}");
        }
    }
}

#[test]
fn servers_the_core_refuses() {
    // An old Vitess: the version comes from VTGate's MySQL-protocol `@@version_comment`, here
    // played by the scripted server's metadata answer.
    let mut old = keyspace();
    old.version_comment = "Version: 15.0.2 (Git revision old)".into();
    let h = Harness::start(old, vec![Session::new().hold()]);
    check(
        "Vitess older than 17",
        fail(h.options(KS, resume_at(START))),
        Expect {
            kind: ErrorKind::Config,
            code: ErrorCode::UnsupportedServer,
            says: &["Vitess 15.0", "upgrade Vitess"],
        },
    );
    // A gRPC server that is not VTGate answers Unimplemented.
    let h = scripted(vec![Session::new().fail(
        tonic::Code::Unimplemented,
        "unknown service vtgateservice.Vitess",
    )]);
    check(
        "gRPC server that is not VTGate",
        fail(h.options(KS, resume_at(START))),
        Expect {
            kind: ErrorKind::Fatal,
            code: ErrorCode::UnsupportedServer,
            says: &[
                "does not implement the Vitess VTGate service",
                "is this VTGate's gRPC port?",
            ],
        },
    );
    // Nothing listens (a stopped cluster).
    let mut o = StreamOptions::new("127.0.0.1:1", KS);
    o.connect_timeout = Duration::from_secs(3);
    o.retry_max_attempts = 1;
    check(
        "unreachable VTGate",
        fail(o),
        Expect {
            kind: ErrorKind::Retryable,
            code: ErrorCode::Unreachable,
            says: &["127.0.0.1:1"],
        },
    );
}

#[test]
fn wire_messages_the_core_refuses() {
    let malformed_row = rows(
        "t",
        1,
        vec![(
            None,
            Some(Row {
                lengths: vitess_cdc_core::proto::encode_lengths(vec![9, 1]),
                values: b"1".to_vec().into(),
            }),
        )],
    );
    let cases: Vec<(&str, Vec<VEvent>, Expect)> = vec![
        (
            "row whose lengths exceed its bytes",
            vec![begin(), field("t"), malformed_row, vgtid(BAD), commit()],
            Expect {
                kind: ErrorKind::Fatal,
                code: ErrorCode::Unspecified,
                says: &["ks.t", "malformed row", "restart from the last checkpoint"],
            },
        ),
        (
            "ROW before the table's FIELD (out of order)",
            vec![begin(), insert_at("t", 1, 1), vgtid(BAD), commit()],
            Expect {
                kind: ErrorKind::Fatal,
                code: ErrorCode::Unspecified,
                says: &[
                    "without a preceding FIELD",
                    "restart from the last checkpoint",
                ],
            },
        ),
    ];
    for (name, events, expect) in cases {
        let h = wire(events);
        check(name, fail(h.options(KS, resume_at(START))), expect);
    }
    // Larger than the client accepts: the message names the option to raise.
    let huge = "y".repeat(5 * 1024 * 1024);
    let h = wire(vec![
        begin(),
        field("t"),
        rows("t", 1, vec![(None, Some(row(1, &huge)))]),
        vgtid(BAD),
        commit(),
    ]);
    let mut o = h.options(KS, resume_at(START));
    o.max_message_bytes = 4 * 1024 * 1024;
    check(
        "message larger than max_message_bytes",
        fail(o),
        Expect {
            kind: ErrorKind::Config,
            code: ErrorCode::MessageTooLarge,
            says: &["raise max_message_bytes", "--grpc-max-message-size"],
        },
    );
}
