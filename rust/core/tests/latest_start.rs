// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Starting from `current` (latest): `open` returns only once every such shard has its real GTID
//! set, and each shard's first event is the mark of that position, ahead of any change — so a
//! position stored right after open resumes exactly there, never at a later "now".
//! Played by the scripted VTGate (`rust/testkit`); `live_vitess.rs` checks the same on Vitess.

mod common;

use common::scripted::Harness;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{ErrorKind, Event, ShardPosition, StartMode, StreamOptions, Value};
use vitess_cdc_testkit::events::*;
use vitess_cdc_testkit::{Keyspace, Session};

fn fake(shards: &[&str], sessions: Vec<Session>) -> Harness {
    Harness::start(Keyspace::new(KS, shards, &[("t", true)]), sessions)
}

fn options(h: &Harness, start: StartMode) -> StreamOptions {
    h.options(KS, start)
}

fn gtids(stream: &BlockingStream) -> Vec<(String, String)> {
    stream
        .positions()
        .shards
        .into_iter()
        .map(|p| (p.shard, p.gtid))
        .collect()
}

/// Polls until `until` holds for the events seen so far (10 s at most).
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

/// (shard, "mark:<gtid>" | "row:<id>") in order.
fn trace(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Mark(p) => Some((p.shard.clone(), format!("mark:{}", p.gtid))),
            Event::Change(c) => match c.values[0] {
                Value::Int(id) => Some((c.schema.shard.clone(), format!("row:{id}"))),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[test]
fn open_from_current_returns_real_positions_and_marks_them_first() {
    // VTGate answers `current` with every shard's `VGTID, OTHER`, at its own pace per shard.
    let h = fake(
        &["-80", "80-"],
        vec![Session::new()
            .send(vec![
                on_shard("-80", vgtid_shards(&[("-80", "a1"), ("80-", "current")])),
                on_shard("-80", other()),
            ])
            .send(vec![
                on_shard("-80", begin()),
                on_shard("-80", field("t")),
                on_shard("-80", insert("t", 1)),
                on_shard("-80", vgtid_shards(&[("-80", "a2"), ("80-", "current")])),
                on_shard("-80", commit()),
            ])
            .send(vec![
                on_shard("80-", vgtid_shards(&[("-80", "a2"), ("80-", "b1")])),
                on_shard("80-", other()),
            ])
            .send(vec![
                on_shard("80-", begin()),
                on_shard("80-", field("t")),
                on_shard("80-", insert("t", 2)),
                on_shard("80-", vgtid_shards(&[("-80", "a2"), ("80-", "b2")])),
                on_shard("80-", commit()),
            ])
            .hold()],
    );
    let stream = BlockingStream::open(options(&h, StartMode::Latest)).unwrap();
    // Right after open, before any poll: no shard says `current` any more.
    let right_after_open = gtids(&stream);
    assert!(
        right_after_open.iter().all(|(_, g)| g != "current"),
        "{right_after_open:?}"
    );
    // -80 moved on to a2 while 80- was still resolving; its events wait in the stream.
    assert_eq!(
        right_after_open,
        vec![("-80".into(), "a2".into()), ("80-".into(), "b1".into())]
    );
    // The request asked for `current`; what a consumer stores is the resolved position.
    let request = &h.fake.requests()[0];
    assert!(request
        .vgtid
        .as_ref()
        .unwrap()
        .shard_gtids
        .iter()
        .all(|g| g.gtid == "current"));

    let events = collect(&stream, |e| {
        trace(e)
            .iter()
            .filter(|(_, t)| t.starts_with("row"))
            .count()
            == 2
            && trace(e)
                .iter()
                .filter(|(_, t)| t.starts_with("mark"))
                .count()
                == 4
    });
    let t = trace(&events);
    for shard in ["-80", "80-"] {
        let of_shard: Vec<&String> = t
            .iter()
            .filter(|(s, _)| s == shard)
            .map(|(_, e)| e)
            .collect();
        assert!(
            of_shard[0].starts_with("mark:") && of_shard[0] != "mark:current",
            "shard {shard} must start with the mark of its real position: {of_shard:?}"
        );
    }
    assert_eq!(
        t.iter()
            .filter(|(s, _)| s == "-80")
            .map(|(_, e)| e.as_str())
            .collect::<Vec<_>>(),
        vec!["mark:a1", "row:1", "mark:a2"]
    );
    assert_eq!(
        t.iter()
            .filter(|(s, _)| s == "80-")
            .map(|(_, e)| e.as_str())
            .collect::<Vec<_>>(),
        vec!["mark:b1", "row:2", "mark:b2"]
    );
}

#[test]
fn a_saved_current_position_is_resolved_too_and_a_real_one_is_left_alone() {
    let h = fake(
        &["-80", "80-"],
        vec![Session::new()
            .send(vec![
                on_shard("80-", vgtid_shards(&[("-80", "a7"), ("80-", "b9")])),
                on_shard("80-", other()),
            ])
            .hold()],
    );
    let at = |shard: &str, gtid: &str| ShardPosition {
        keyspace: KS.into(),
        shard: shard.into(),
        gtid: gtid.into(),
        table_p_ks: vec![],
        tables_to_copy: vec![],
        copy_completed: true,
        snapshots: Vec::new(),
    };
    let stream = BlockingStream::open(options(
        &h,
        StartMode::Positions(vec![at("-80", "a7"), at("80-", "current")]),
    ))
    .unwrap();
    assert_eq!(
        gtids(&stream),
        vec![("-80".into(), "a7".into()), ("80-".into(), "b9".into())]
    );
    let events = collect(&stream, |e| !trace(e).is_empty());
    assert_eq!(trace(&events), vec![("80-".into(), "mark:b9".into())]);
}

#[test]
fn a_current_position_vtgate_never_reports_fails_open_with_the_shard_named() {
    let h = fake(&["-80", "80-"], vec![Session::new().hold()]);
    let mut o = options(&h, StartMode::Latest);
    o.connect_timeout = Duration::from_secs(1);
    let started = Instant::now();
    let err = match BlockingStream::open(o) {
        Ok(_) => panic!("open must fail when VTGate never reports the current position"),
        Err(e) => e,
    };
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(err.kind, ErrorKind::Retryable);
    assert!(
        err.message.contains("current position")
            && err.message.contains("-80, 80-")
            && err.message.contains("primary"),
        "{}",
        err.message
    );
}
