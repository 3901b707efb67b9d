// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Resharding through the scripted VTGate (`rust/testkit`): a real local Vitess cannot reshard
//! (vttestserver's topology is fixed), so the journal grammar is played by script.
//!
//! The model (docs/positions.md "Resharding"): a shard stops at its SHARDS journal — the stream
//! hands out `Journal` and the shard's final mark, and nothing of the shard or of the new shards
//! after that — while the stream's other shards go on. New shards are opened by the consumer.

mod common;

use common::scripted::Harness;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{Event, ShardPosition, StartMode, StreamOptions, Value};
use vitess_cdc_testkit::events::*;
use vitess_cdc_testkit::{FakeVtgate, Keyspace, Session};

fn fake(shards: &[&str], sessions: Vec<Session>) -> Harness {
    Harness::start(Keyspace::new(KS, shards, &[("t", true)]), sessions)
}

fn at(shard: &str, gtid: &str) -> ShardPosition {
    ShardPosition {
        keyspace: KS.into(),
        shard: shard.into(),
        gtid: gtid.into(),
        table_p_ks: vec![],
        tables_to_copy: vec![],
        copy_completed: true,
        snapshots: Vec::new(),
    }
}

fn options(h: &Harness, start: Vec<ShardPosition>) -> StreamOptions {
    let shards = start.iter().map(|p| p.shard.clone()).collect();
    let mut o = h.options(KS, StartMode::Positions(start));
    o.shards = shards;
    o
}

fn collect(stream: &BlockingStream, mut until: impl FnMut(&[Event]) -> bool) -> Vec<Event> {
    let started = Instant::now();
    let mut all = Vec::new();
    while !until(&all) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "timed out; got {all:?}"
        );
        all.extend(stream.poll(Duration::from_millis(50)).expect("poll"));
    }
    all
}

/// What happened, shard by shard, in stream order: `row <shard> <id>`, `mark <shard> <gtid>`,
/// `journal <shard> <id>`.
fn summary(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Change(c) => match c.values[0] {
                Value::Int(id) => Some(format!("row {} {id}", c.schema.shard)),
                _ => None,
            },
            Event::Mark(p) => Some(format!("mark {} {}", p.shard, p.gtid)),
            Event::Journal { id, shard, .. } => Some(format!("journal {} {id}", shard.1)),
            _ => None,
        })
        .collect()
}

fn txn(shard: &str, id: i64, vgtid: VEvent) -> Vec<VEvent> {
    vec![
        on_shard(shard, begin()),
        on_shard(shard, field("t")),
        on_shard(shard, insert("t", id)),
        on_shard(shard, vgtid),
        on_shard(shard, commit()),
    ]
}

use vitess_cdc_core::proto::binlogdata::VEvent;

fn shard_names(stream: &BlockingStream) -> Vec<String> {
    stream
        .positions()
        .shards
        .into_iter()
        .map(|p| format!("{}@{}", p.shard, p.gtid))
        .collect()
}

#[test]
fn a_split_ends_the_shard_at_its_journal_and_the_other_shards_go_on() {
    let journal_txn = vec![
        on_shard("-80", begin()),
        on_shard(
            "-80",
            journal(17, &["-80"], &[("-40", "n40@0"), ("40-80", "n4080@0")]),
        ),
        // VTGate's VGTID after its transition already lists the new shards instead of -80
        on_shard(
            "-80",
            vgtid_shards(&[("-40", "n40@0"), ("40-80", "n4080@0"), ("80-", "b@1")]),
        ),
        on_shard("-80", commit()),
    ];
    let h = fake(
        &["-80", "80-"],
        vec![
            Session::new()
                .send(txn(
                    "-80",
                    1,
                    vgtid_shards(&[("-80", "a@1"), ("80-", "b@0")]),
                ))
                .send(txn(
                    "80-",
                    2,
                    vgtid_shards(&[("-80", "a@1"), ("80-", "b@1")]),
                ))
                .send(journal_txn)
                // VTGate goes on into the new shards (no stop_on_reshard): this stream does
                // not read them, their rows are dropped
                .send(txn(
                    "-40",
                    3,
                    vgtid_shards(&[("-40", "n40@1"), ("40-80", "n4080@0"), ("80-", "b@1")]),
                ))
                .end(),
            // the reconnect asks for 80- only, from its last mark
            Session::new()
                .send(txn("80-", 4, vgtid_shards(&[("80-", "b@2")])))
                .hold(),
        ],
    );
    let stream =
        BlockingStream::open(options(&h, vec![at("-80", "a@0"), at("80-", "b@0")])).expect("open");
    let events = collect(&stream, |e| summary(e).iter().any(|s| s == "row 80- 4"));
    assert_eq!(
        summary(&events),
        vec![
            "row -80 1",
            "mark -80 a@1",
            "row 80- 2",
            "mark 80- b@1",
            "journal -80 17",
            "mark -80 a@1",
            "row 80- 4",
            "mark 80- b@2",
        ]
    );
    let journal = events
        .iter()
        .find_map(|e| match e {
            Event::Journal { ended, started, .. } => Some((ended.clone(), started.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(journal.0, vec![(KS.to_string(), "-80".to_string())]);
    assert_eq!(journal.1, vec![at("-40", "n40@0"), at("40-80", "n4080@0")]);

    let requests = h.fake.requests();
    assert_eq!(
        requests.len(),
        2,
        "one reconnect, for the shard that goes on"
    );
    let flags = requests[0].flags.as_ref().unwrap();
    assert!(
        flags.include_reshard_journal_events && !flags.stop_on_reshard,
        "the journal must be forwarded, and the RPC not ended by VTGate at it (docs/reliability.md)"
    );
    let second: Vec<(String, String)> = requests[1]
        .vgtid
        .as_ref()
        .unwrap()
        .shard_gtids
        .iter()
        .map(|s| (text(&s.shard), text(&s.gtid)))
        .collect();
    assert_eq!(second, vec![("80-".to_string(), "b@1".to_string())]);
    assert_eq!(
        stream.metrics().reconnects,
        0,
        "the end at a reshard is no failure"
    );
    // every participant ended, so the stream's positions now start the new shards
    assert_eq!(
        shard_names(&stream),
        vec!["-40@n40@0", "40-80@n4080@0", "80-@b@2"]
    );
}

#[test]
fn a_merge_whose_other_participant_is_read_elsewhere_ends_the_shard_without_an_error() {
    let h = fake(
        &["-80", "80-"],
        vec![Session::new()
            .send(txn("-80", 1, vgtid_shards(&[("-80", "a@1")])))
            .send(vec![
                on_shard("-80", begin()),
                on_shard("-80", journal(5, &["-80", "80-"], &[("0", "m@0")])),
                on_shard("-80", vgtid_shards(&[("-80", "a@2")])),
                on_shard("-80", commit()),
            ])
            .fail(
                tonic::Code::Internal,
                "not all journaling participants are in the stream: journal: ..., stream: ...",
            )],
    );
    let stream = BlockingStream::open(options(&h, vec![at("-80", "a@0")])).expect("open");
    let events = collect(&stream, |e| {
        e.iter().any(|e| matches!(e, Event::Journal { .. }))
    });
    assert_eq!(
        summary(&events),
        vec!["row -80 1", "mark -80 a@1", "journal -80 5", "mark -80 a@1"]
    );
    // nothing left to read: quiet, not failing, not reconnecting
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(500) {
        assert!(stream
            .poll(Duration::from_millis(50))
            .expect("no error")
            .is_empty());
    }
    assert_eq!(h.fake.requests().len(), 1);
    // 80- has not ended (in this stream), so the merged shard is not startable yet
    assert!(
        shard_names(&stream).is_empty(),
        "{:?}",
        shard_names(&stream)
    );
}

#[test]
fn a_merge_with_every_participant_in_the_stream_ends_both_and_keeps_the_rest() {
    let all = |a: &str, b: &str, c: &str| vgtid_shards(&[("-80", a), ("80-", b), ("x", c)]);
    let h = fake(
        &["-80", "80-", "x"],
        vec![
            Session::new()
                .send(vec![
                    on_shard("-80", begin()),
                    on_shard("-80", journal(9, &["-80", "80-"], &[("0", "m@0")])),
                    on_shard("-80", all("a@0", "b@0", "c@0")),
                    on_shard("-80", commit()),
                ])
                .send(txn("80-", 1, all("a@0", "b@1", "c@0")))
                .send(txn("x", 2, all("a@0", "b@1", "c@1")))
                .send(vec![
                    on_shard("80-", begin()),
                    on_shard("80-", journal(9, &["-80", "80-"], &[("0", "m@0")])),
                    on_shard("80-", commit()),
                ])
                .end(),
            Session::new()
                .send(txn("x", 3, vgtid_shards(&[("x", "c@2")])))
                .hold(),
        ],
    );
    let stream = BlockingStream::open(options(
        &h,
        vec![at("-80", "a@0"), at("80-", "b@0"), at("x", "c@0")],
    ))
    .expect("open");
    let events = collect(&stream, |e| summary(e).iter().any(|s| s == "row x 3"));
    assert_eq!(
        summary(&events),
        vec![
            "journal -80 9",
            "mark -80 a@0",
            "row 80- 1",
            "mark 80- b@1",
            "row x 2",
            "mark x c@1",
            "journal 80- 9",
            "mark 80- b@1",
            "row x 3",
            "mark x c@2",
        ]
    );
    let second: Vec<String> = h.fake.requests()[1]
        .vgtid
        .as_ref()
        .unwrap()
        .shard_gtids
        .iter()
        .map(|s| text(&s.shard))
        .collect();
    assert_eq!(second, vec!["x"]);
    assert_eq!(shard_names(&stream), vec!["0@m@0", "x@c@2"]);
}

#[test]
fn following_reshards_keeps_streaming_the_new_shards_in_the_same_stream() {
    let h = fake(
        &["-80"],
        vec![Session::new()
            .send(vec![
                on_shard("-80", begin()),
                on_shard(
                    "-80",
                    journal(1, &["-80"], &[("-40", "n@0"), ("40-80", "o@0")]),
                ),
                on_shard("-80", vgtid_shards(&[("-40", "n@0"), ("40-80", "o@0")])),
                on_shard("-80", commit()),
            ])
            .send(txn(
                "-40",
                1,
                vgtid_shards(&[("-40", "n@1"), ("40-80", "o@0")]),
            ))
            .hold()],
    );
    let mut o = options(&h, vec![at("-80", "a@0")]);
    o.follow_reshard = true;
    let stream = BlockingStream::open(o).expect("open");
    let events = collect(&stream, |e| summary(e).iter().any(|s| s == "row -40 1"));
    assert!(summary(&events).contains(&"journal -80 1".to_string()));
    assert!(!h.fake.requests()[0].flags.as_ref().unwrap().stop_on_reshard);
    assert_eq!(shard_names(&stream), vec!["-40@n@1", "40-80@o@0"]);
}

/// The scenario the Flink ITCase plays (`reshard-vtgate`): one stream for the old layout, a
/// second one for the new shards opened from the journal's positions — every change exactly
/// once, each key's versions in order.
#[test]
fn the_reshard_scenario_reads_completely_and_in_order_across_two_streams() {
    use std::collections::BTreeMap;
    use vitess_cdc_testkit::reshard::{Scenario, NEW, OLD, OTHER};
    let scenario = Scenario {
        keys: 12,
        before: 3,
        after: 3,
        batch: 5,
        pace: Duration::from_millis(1),
    };
    let expected = scenario.all_changes().len();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let fake = rt.block_on(FakeVtgate::start_with_responder(
        scenario.keyspace(),
        scenario.clone().responder(),
    ));
    let open = |start: Vec<ShardPosition>| {
        let mut o = StreamOptions::new(fake.address(), KS);
        o.shards = start.iter().map(|p| p.shard.clone()).collect();
        o.start = StartMode::Positions(start);
        o.heartbeat_interval_secs = 0;
        o.connect_timeout = Duration::from_secs(5);
        BlockingStream::open(o).expect("open")
    };
    let mut versions: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
    let mut record = |events: &[Event]| {
        for e in events {
            if let Event::Change(c) = e {
                if c.kind == vitess_cdc_core::RowKind::Insert
                    || c.kind == vitess_cdc_core::RowKind::UpdateAfter
                {
                    let (Value::Int(id), Value::String(v)) = (&c.values[0], &c.values[1]) else {
                        panic!("{:?}", c.values)
                    };
                    versions
                        .entry(*id)
                        .or_default()
                        .push(v.trim_start_matches('v').parse().unwrap());
                }
            }
        }
    };
    let old = open(vec![at(OLD, "current"), at(OTHER, "current")]);
    let first = collect(&old, |e| {
        let last_other = format!(
            "mark {OTHER} {}",
            vitess_cdc_testkit::reshard::gtid(OTHER, scenario.changes(OTHER).len() as i64)
        );
        e.iter().any(|e| matches!(e, Event::Journal { .. })) && summary(e).contains(&last_other)
    });
    record(&first);
    let started = first
        .iter()
        .find_map(|e| match e {
            Event::Journal { started, .. } => Some(started.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        started.iter().map(|p| p.shard.as_str()).collect::<Vec<_>>(),
        NEW.to_vec()
    );
    let new = open(started);
    let want_new = scenario.changes(NEW[0]).len() + scenario.changes(NEW[1]).len();
    let second = collect(&new, |e| {
        e.iter().filter(|e| matches!(e, Event::Change(_))).count() >= 2 * want_new
    });
    record(&second);
    let total: usize = versions.values().map(Vec::len).sum();
    assert_eq!(total, expected);
    for (id, v) in &versions {
        let want: Vec<i64> = (1..=scenario.before + scenario.after).collect();
        assert_eq!(v, &want, "key {id}");
    }
    old.close();
    new.close();
}

/// A VGTID entry's part of a request (`bytes` in the generated types) as text.
fn text(part: &[u8]) -> String {
    String::from_utf8(part.to_vec()).expect("the request's VGTID is text")
}
