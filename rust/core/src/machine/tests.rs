// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

use super::*;
use crate::options::StreamOptions;
use crate::proto::query::Row;
use crate::value::Value;
use vitess_cdc_testkit::events::{
    ev, field, insert_at, journal, lastpk, on_shard, row, rows, vgtid, vgtid_shards, vgtid_with,
};

fn start(gtid: &str, tables: &[&str]) -> ShardPosition {
    ShardPosition {
        keyspace: "ks".into(),
        shard: "0".into(),
        gtid: gtid.into(),
        table_p_ks: vec![],
        tables_to_copy: tables.iter().map(|t| t.to_string()).collect(),
        copy_completed: tables.is_empty(),
        snapshots: Vec::new(),
    }
}

fn machine(start_pos: ShardPosition, budget: usize) -> Machine {
    let config = MachineConfig {
        allow_tables_without_primary_key: false,
        transaction_buffer_bytes: budget,
        snapshot_only: true,
        follow_reshard: false,
        narrowed_selection: false,
        selected: Default::default(),
        destructive_ddl: crate::options::DestructiveDdl::Fail,
    };
    Machine::new(config, vec![start_pos], Arc::new(Metrics::default()))
}

fn run(m: &mut Machine, events: Vec<VEvent>) -> Vec<Event> {
    let mut out = Vec::new();
    for e in events {
        m.handle(e, &mut out).unwrap();
    }
    out
}

fn marks(out: &[Event]) -> Vec<ShardPosition> {
    out.iter()
        .filter_map(|e| {
            if let Event::Mark(p) = e {
                Some(p.clone())
            } else {
                None
            }
        })
        .collect()
}
fn change_ids(out: &[Event]) -> Vec<(RowKind, i64)> {
    out.iter()
        .filter_map(|e| match e {
            Event::Change(c) => match c.values[0] {
                Value::Int(id) => Some((c.kind, id)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// A shard resumed inside b's copy (last copied key 5), c still to copy, a finished.
fn resumed_in_b() -> ShardPosition {
    let key = |t: &str, id| crate::request::from_proto_lastpk(&lastpk(t, id));
    let mut a = key("a", 9);
    a.lastpk = copyfilter::done_mark_after(&a.lastpk).unwrap();
    ShardPosition {
        table_p_ks: vec![a, key("b", 5)],
        ..start("MySQL56/u:1-10", &["c"])
    }
}

fn update(table: &str, from: i64, to: i64) -> VEvent {
    rows(
        table,
        1000,
        vec![(Some(row(from, "x")), Some(row(to, "y")))],
    )
}

#[test]
fn a_resumed_copy_drops_changes_beyond_the_copy_position() {
    let mut m = machine(resumed_in_b(), 1 << 20);
    let out = run(
        &mut m,
        vec![
            field("a"),
            field("b"),
            ev(VEventType::Begin),
            insert_at("b", 3, 1000),
            insert_at("b", 7, 1000),
            update("b", 4, 9),  // leaves the copied range: its delete
            update("b", 8, 2),  // enters it: its insert
            update("b", 9, 10), // beyond on both sides: nothing
            update("b", 5, 5),  // the last copied key is copied
            update("b", 3, 2),  // a key change: the delete of 3 and the insert of 2
            rows("b", 1000, vec![(Some(row(6, "x")), None)]),
            rows("b", 1000, vec![(Some(row(1, "x")), None)]),
            insert_at("a", 100, 1000), // a finished: everything passes
            vgtid_with("MySQL56/u:1-11", vec![lastpk("b", 5)]),
            ev(VEventType::Commit),
        ],
    );
    assert_eq!(
        change_ids(&out),
        vec![
            (RowKind::Insert, 3),
            (RowKind::Delete, 4),
            (RowKind::Insert, 2),
            (RowKind::UpdateBefore, 5),
            (RowKind::UpdateAfter, 5),
            (RowKind::Delete, 3),
            (RowKind::Insert, 2),
            (RowKind::Delete, 1),
            (RowKind::Insert, 100),
        ]
    );
    // The copy moves on: its next batch (copy rows are never filtered) raises the bound.
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            insert_at("b", 6, 0),
            insert_at("b", 7, 0),
            vgtid_with("MySQL56/u:1-11", vec![lastpk("b", 7)]),
            ev(VEventType::Commit),
            ev(VEventType::Begin),
            insert_at("b", 7, 1000),
            insert_at("b", 8, 1000),
            vgtid_with("MySQL56/u:1-12", vec![lastpk("b", 7)]),
            ev(VEventType::Commit),
        ],
    );
    assert_eq!(
        change_ids(&out),
        vec![
            (RowKind::Insert, 6),
            (RowKind::Insert, 7),
            (RowKind::Insert, 7),
        ]
    );
}

#[test]
fn a_change_of_a_table_whose_copy_has_not_started_means_the_plan_was_lost() {
    let mut m = machine(resumed_in_b(), 1 << 20);
    let mut out = Vec::new();
    for e in [field("c"), ev(VEventType::Begin)] {
        m.handle(e, &mut out).unwrap();
    }
    let err = m.handle(insert_at("c", 1, 1000), &mut out).unwrap_err();
    assert_eq!(err.kind, crate::ErrorKind::Retryable, "{}", err.message);
    assert!(
        err.message.contains("before copying the table"),
        "{}",
        err.message
    );
    assert!(change_ids(&out).is_empty());
}

#[test]
fn an_empty_table_finishes_at_its_first_change_after_its_copy_started() {
    let mut m = machine(resumed_in_b(), 1 << 20);
    let out = run(
        &mut m,
        vec![
            // b finishes, then c (empty) is copied: FIELD, no row, then its end.
            ev(VEventType::Begin),
            vgtid("MySQL56/u:1-11"),
            ev(VEventType::Commit),
            ev(VEventType::Begin),
            field("c"),
            vgtid("MySQL56/u:1-11"),
            ev(VEventType::Begin),
            vgtid("MySQL56/u:1-11"),
            ev(VEventType::Commit),
            // a catchup transaction: c's change passes, and c is done from now on
            ev(VEventType::Begin),
            insert_at("c", 1, 1000),
            vgtid("MySQL56/u:1-12"),
            ev(VEventType::Commit),
        ],
    );
    assert_eq!(change_ids(&out), vec![(RowKind::Insert, 1)]);
    let last = m.positions().shards[0].clone();
    assert!(last.needs_copy(), "no COPY_COMPLETED yet");
    for t in ["a", "b", "c"] {
        assert_eq!(copyfilter::table_copy(&last, t), TableCopy::Done, "{t}");
    }
    assert!(last.tables_to_copy.is_empty());
}

#[test]
fn copy_rows_of_a_finished_table_fail_instead_of_repeating_rows() {
    let mut m = machine(resumed_in_b(), 1 << 20);
    let mut out = Vec::new();
    for e in [ev(VEventType::Begin), field("a")] {
        m.handle(e, &mut out).unwrap();
    }
    let err = m.handle(insert_at("a", 1, 0), &mut out).unwrap_err();
    assert_eq!(err.kind, crate::ErrorKind::Fatal);
    assert!(
        err.message.contains("restart from the last checkpoint"),
        "{}",
        err.message
    );
}

#[test]
fn copy_phase_grammar_and_positions_never_stream_only() {
    let mut m = machine(start("", &["a", "b", "c"]), 1 << 20);
    let out = run(
        &mut m,
        vec![
            // empty table a: duplicate BEGIN, no COMMIT for the first
            ev(VEventType::Begin),
            field("a"),
            vgtid("pos1"),
            ev(VEventType::Begin),
            vgtid("pos1"),
            ev(VEventType::Commit),
        ],
    );
    let m1 = marks(&out);
    assert_eq!(m1.len(), 1);
    // a was never seen in table_p_ks: kept (re-copying an empty table is free), never stream-only
    assert_eq!(m1[0].tables_to_copy, vec!["a", "b", "c"]);
    assert!(m1[0].needs_copy());
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            field("b"),
            vgtid("pos2"),
            insert_at("b", 1, 0),
            insert_at("b", 2, 0),
            vgtid_with("pos2", vec![lastpk("b", 2)]),
            ev(VEventType::Commit),
        ],
    );
    assert!(matches!(out[0], Event::Schema(_)));
    assert_eq!(
        change_ids(&out),
        vec![(RowKind::Insert, 1), (RowKind::Insert, 2)]
    );
    assert!(out
        .iter()
        .all(|e| !matches!(e, Event::Change(c) if !c.is_snapshot)));
    let mk = marks(&out);
    assert_eq!(mk[0].tables_to_copy, vec!["c"]);
    // b's first batch: the empty table a before it is finished (a done mark, so that a
    // resume copies none of it again), b is in progress.
    assert_eq!(copyfilter::table_copy(&mk[0], "a"), TableCopy::Done);
    assert!(matches!(
        copyfilter::table_copy(&mk[0], "b"),
        TableCopy::InProgress(_)
    ));
    // b done (removed from table_p_ks), catchup transaction: still lists c
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            vgtid("pos3"),
            ev(VEventType::Commit),
            ev(VEventType::Begin),
            insert_at("b", 3, 1000),
            vgtid("pos4"),
            ev(VEventType::Commit),
        ],
    );
    let mk = marks(&out);
    assert_eq!(mk.len(), 2);
    assert!(mk.iter().all(|p| p.tables_to_copy == vec!["c"]
        && copyfilter::table_copy(p, "b") == TableCopy::Done
        && p.needs_copy()));
    let c = out
        .iter()
        .find_map(|e| {
            if let Event::Change(c) = e {
                Some(c.clone())
            } else {
                None
            }
        })
        .unwrap();
    assert!(!c.is_snapshot);
    assert_eq!(c.commit_ts_millis, 1_000_000);
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            field("c"),
            insert_at("c", 1, 0),
            vgtid_with("pos5", vec![lastpk("c", 1)]),
            ev(VEventType::Commit),
            ev(VEventType::Begin),
            vgtid("pos5"),
            ev(VEventType::Commit),
            ev(VEventType::CopyCompleted),
            VEvent {
                r#type: VEventType::CopyCompleted as i32,
                ..Default::default()
            },
        ],
    );
    let mk = marks(&out);
    assert!(mk.last().unwrap().copy_completed);
    assert!(!m.positions().shards[0].needs_copy());
    assert!(matches!(out[out.len() - 2], Event::CopyCompleted));
    assert_eq!(out.last(), Some(&Event::End));
    assert!(m.finished());
}

#[test]
fn begin_commit_without_vgtid_and_heartbeats() {
    let mut m = machine(start("pos0", &[]), 1 << 20);
    run(&mut m, vec![field("t")]);
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            ev(VEventType::Commit),
            ev(VEventType::Heartbeat),
            ev(VEventType::Begin),
            insert_at("t", 1, 5),
            ev(VEventType::Heartbeat),
            vgtid("pos1"),
            ev(VEventType::Commit),
        ],
    );
    let kinds: Vec<&str> = out
        .iter()
        .map(|e| match e {
            Event::Heartbeat { .. } => "hb",
            Event::Change(_) => "row",
            Event::Mark(_) => "mark",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, vec!["hb", "row", "mark"]);
}

#[test]
fn update_becomes_before_and_after_and_delete_uses_before() {
    let mut m = machine(start("pos0", &[]), 1 << 20);
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            field("t"),
            rows(
                "t",
                9,
                vec![
                    (Some(row(1, "a")), Some(row(1, "b"))),
                    (Some(row(2, "z")), None),
                ],
            ),
            vgtid("pos1"),
            ev(VEventType::Commit),
        ],
    );
    assert_eq!(
        change_ids(&out),
        vec![
            (RowKind::UpdateBefore, 1),
            (RowKind::UpdateAfter, 1),
            (RowKind::Delete, 2)
        ]
    );
}

#[test]
fn schema_only_when_shape_changes() {
    let mut m = machine(start("pos0", &[]), 1 << 20);
    let count = |out: &[Event]| out.iter().filter(|e| matches!(e, Event::Schema(_))).count();
    assert_eq!(count(&run(&mut m, vec![field("t")])), 1);
    assert_eq!(count(&run(&mut m, vec![field("t")])), 0);
    let mut changed = field("t");
    changed.field_event.as_mut().unwrap().fields[1].column_type = "varchar(20)".into();
    let out = run(
        &mut m,
        vec![
            vgtid("p"),
            VEvent {
                statement: "alter".into(),
                ..ev(VEventType::Ddl)
            },
            changed,
        ],
    );
    assert!(matches!(&out[0], Event::Ddl { statement, .. } if statement == "alter"));
    assert!(matches!(&out[1], Event::Mark(_)));
    match &out[2] {
        Event::Schema(s) => assert_eq!(s.version, 2),
        e => panic!("{e:?}"),
    }
}

#[test]
fn chunked_transaction_resumes_exactly_after_reconnect() {
    // Tiny budget: every change is emitted as its own chunk.
    let mut m = machine(start("pos0", &[]), 1);
    run(&mut m, vec![field("t")]);
    let txn = |ids: std::ops::Range<i64>| {
        let mut v = vec![ev(VEventType::Begin)];
        v.extend(ids.map(|i| insert_at("t", i, 7)));
        v
    };
    let out = run(&mut m, txn(0..3));
    assert_eq!(change_ids(&out).len(), 3);
    assert!(marks(&out).is_empty());
    // stream cut mid-transaction; the server replays it from BEGIN
    m.on_reconnect();
    let mut replay = txn(0..5);
    replay.extend([vgtid("pos1"), ev(VEventType::Commit)]);
    let out = run(&mut m, replay);
    assert_eq!(
        change_ids(&out).iter().map(|c| c.1).collect::<Vec<_>>(),
        vec![3, 4]
    );
    assert_eq!(marks(&out)[0].gtid, "pos1");
    // next transaction is not skipped
    let mut next = txn(10..11);
    next.extend([vgtid("pos2"), ev(VEventType::Commit)]);
    assert_eq!(change_ids(&run(&mut m, next)), vec![(RowKind::Insert, 10)]);
}

#[test]
fn buffered_transaction_is_dropped_on_reconnect() {
    let mut m = machine(start("pos0", &[]), 1 << 20);
    let out = run(
        &mut m,
        vec![ev(VEventType::Begin), field("t"), insert_at("t", 1, 5)],
    );
    assert!(out.is_empty());
    m.on_reconnect();
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            field("t"),
            insert_at("t", 1, 5),
            vgtid("p1"),
            ev(VEventType::Commit),
        ],
    );
    // the schema was never delivered, so it comes again, with version 1
    assert!(matches!(&out[0], Event::Schema(s) if s.version == 1));
    assert_eq!(change_ids(&out), vec![(RowKind::Insert, 1)]);
}

#[test]
fn malformed_events_are_clear_errors() {
    let mut m = machine(start("pos0", &[]), 1 << 20);
    let mut out = Vec::new();
    let err = m.handle(insert_at("unknown", 1, 1), &mut out).unwrap_err();
    assert!(
        err.message.contains("without a preceding FIELD"),
        "{}",
        err.message
    );
    m.handle(field("t"), &mut out).unwrap();
    let bad = rows(
        "t",
        1,
        vec![(
            None,
            Some(Row {
                lengths: crate::proto::encode_lengths(vec![5, 1]),
                values: b"1".to_vec().into(),
            }),
        )],
    );
    let err = m.handle(bad, &mut out).unwrap_err();
    assert!(
        err.message.contains("ks.t") && err.message.contains("malformed row"),
        "{}",
        err.message
    );
    let mut nopk = field("n");
    nopk.field_event.as_mut().unwrap().fields[0].flags = 0;
    let err = m.handle(nopk.clone(), &mut out).unwrap_err();
    assert_eq!(err.kind, crate::ErrorKind::Config);
    assert!(
        err.message.contains("has no primary key"),
        "{}",
        err.message
    );
    // With a narrowed selection the key may exist and be left out: the error says that instead
    // of claiming the table has none.
    let mut narrowed = machine(start("pos0", &[]), 1 << 20);
    narrowed.config.narrowed_selection = true;
    let err = narrowed.handle(nopk, &mut out).unwrap_err();
    assert!(
        err.message.contains("selected columns of table 'ks.n'")
            && err.message.contains("hold no primary-key column")
            && !err.message.contains("has no primary key"),
        "{}",
        err.message
    );
}

#[test]
fn names_that_are_not_text_stop_the_stream_with_a_clear_error() {
    // The names are `bytes` to the decoder (no String per event): the machine checks them.
    let mut m = machine(start("pos0", &[]), 1 << 20);
    let mut out = Vec::new();
    m.handle(field("t"), &mut out).unwrap();
    let mut bad_table = insert_at("t", 1, 1);
    bad_table.row_event.as_mut().unwrap().table_name = vec![b'k', b's', b'.', 0xff].into();
    let mut bad_shard = insert_at("t", 1, 1);
    bad_shard.shard = vec![0xc3, 0x28].into();
    for bad in [bad_table, bad_shard] {
        let err = m.handle(bad, &mut out).unwrap_err();
        assert_eq!(err.kind, crate::ErrorKind::Fatal);
        assert!(err.message.contains("not UTF-8"), "{}", err.message);
    }
    // The same events with text names are rows of `t`.
    let before = out.len();
    m.handle(insert_at("t", 1, 1), &mut out).unwrap();
    m.handle(ev(VEventType::Commit), &mut out).unwrap();
    assert_eq!(change_ids(&out[before..]), vec![(RowKind::Insert, 1)]);
}

#[test]
fn a_vgtid_that_is_not_text_stops_the_stream_where_its_shard_moved() {
    let mut m = machine(start("pos0", &[]), 1 << 20);
    let mut out = Vec::new();
    let mut bad = vgtid("pos1");
    bad.vgtid.as_mut().unwrap().shard_gtids[0].gtid = vec![b'p', 0xff].into();
    m.handle(ev(VEventType::Begin), &mut out).unwrap();
    m.handle(bad, &mut out).unwrap();
    let err = m.handle(ev(VEventType::Commit), &mut out).unwrap_err();
    assert_eq!(err.kind, crate::ErrorKind::Fatal);
    assert!(
        err.message.contains("VGTID") && err.message.contains("not UTF-8"),
        "{}",
        err.message
    );
    assert!(marks(&out).is_empty(), "no position was taken from it");
    // A VGTID that lists the shard unmoved is compared as bytes and passes.
    let out = run(
        &mut m,
        vec![ev(VEventType::Begin), vgtid("pos0"), ev(VEventType::Commit)],
    );
    assert_eq!(marks(&out).len(), 1, "the commit's own shard is marked");
    assert_eq!(marks(&out)[0].gtid, "pos0");
}

fn follow_machine(start_pos: ShardPosition) -> Machine {
    let config = MachineConfig {
        allow_tables_without_primary_key: false,
        transaction_buffer_bytes: 1 << 20,
        snapshot_only: false,
        follow_reshard: true,
        narrowed_selection: false,
        selected: Default::default(),
        destructive_ddl: crate::options::DestructiveDdl::Fail,
    };
    Machine::new(config, vec![start_pos], Arc::new(Metrics::default()))
}

#[test]
fn following_reshards_moves_to_new_shards() {
    let mut m = follow_machine(start("pos0", &[]));
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            journal(3, &["0"], &[("-80", "start-80")]),
            vgtid_shards(&[("-80", "start-80")]),
            ev(VEventType::Commit),
        ],
    );
    assert!(
        matches!(&out[0], Event::Journal { id: 3, shard, ended, started }
            if shard.1 == "0" && ended.len() == 1 && started[0].shard == "-80")
    );
    let shards: Vec<String> = m.positions().shards.into_iter().map(|p| p.shard).collect();
    assert_eq!(shards, vec!["-80"]);
}

#[test]
fn journal_ends_the_shard_with_a_final_mark_and_nothing_of_it_or_the_new_shards_follows() {
    let mut m = machine(start("pos0", &[]), 1 << 20);
    m.config.snapshot_only = false;
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            field("t"),
            insert_at("t", 1, 5),
            vgtid("p1"),
            ev(VEventType::Commit),
        ],
    );
    assert_eq!(marks(&out)[0].gtid, "p1");
    // BEGIN, JOURNAL, VGTID (VTGate already lists the new shards), COMMIT
    let out = run(
        &mut m,
        vec![
            ev(VEventType::Begin),
            journal(42, &["0"], &[("-40", "start-40"), ("40-", "start40-")]),
            vgtid_shards(&[("-40", "start-40"), ("40-", "start40-")]),
            ev(VEventType::Commit),
        ],
    );
    assert_eq!(out.len(), 2, "{out:?}");
    match &out[0] {
        Event::Journal {
            id,
            shard,
            ended,
            started,
        } => {
            assert_eq!(*id, 42);
            assert_eq!(shard, &("ks".to_string(), "0".to_string()));
            assert_eq!(ended, &vec![("ks".to_string(), "0".to_string())]);
            let s: Vec<(&str, &str)> = started
                .iter()
                .map(|p| (p.shard.as_str(), p.gtid.as_str()))
                .collect();
            assert_eq!(s, vec![("-40", "start-40"), ("40-", "start40-")]);
            assert!(started.iter().all(|p| p.copy_completed));
        }
        e => panic!("{e:?}"),
    }
    // the final mark: the last committed position (a resume from it meets the journal again)
    assert!(matches!(&out[1], Event::Mark(p) if p.shard == "0" && p.gtid == "p1"));
    assert!(m.positions().shards.is_empty());
    assert_eq!(m.journals_seen(), 1);
    // VTGate's own transition: the new shards' events are not this stream's
    let out = run(
        &mut m,
        vec![
            on_shard("-40", ev(VEventType::Begin)),
            on_shard("-40", field("t")),
            on_shard("-40", insert_at("t", 2, 6)),
            on_shard("-40", vgtid_shards(&[("-40", "n1"), ("40-", "start40-")])),
            on_shard("-40", ev(VEventType::Commit)),
            // and nothing more of the ended shard
            ev(VEventType::Begin),
            insert_at("t", 3, 7),
            vgtid("p2"),
            ev(VEventType::Commit),
        ],
    );
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn a_merge_ends_each_participant_at_its_own_journal_and_the_others_go_on() {
    let config = MachineConfig {
        allow_tables_without_primary_key: false,
        transaction_buffer_bytes: 1 << 20,
        snapshot_only: false,
        follow_reshard: false,
        narrowed_selection: false,
        selected: Default::default(),
        destructive_ddl: crate::options::DestructiveDdl::Fail,
    };
    let pos = |shard: &str| ShardPosition {
        shard: shard.into(),
        ..start(&format!("{shard}@0"), &[])
    };
    let mut m = Machine::new(
        config,
        vec![pos("-80"), pos("80-"), pos("x")],
        Arc::new(Metrics::default()),
    );
    let all = |a: &str, b: &str, x: &str| vgtid_shards(&[("-80", a), ("80-", b), ("x", x)]);
    let out = run(
        &mut m,
        vec![
            on_shard("-80", ev(VEventType::Begin)),
            on_shard("-80", journal(9, &["-80", "80-"], &[("0", "start0")])),
            on_shard("-80", all("-80@0", "80-@0", "x@0")),
            on_shard("-80", ev(VEventType::Commit)),
            on_shard("x", ev(VEventType::Begin)),
            on_shard("x", field("t")),
            on_shard("x", insert_at("t", 1, 5)),
            on_shard("x", all("-80@0", "80-@0", "x@1")),
            on_shard("x", ev(VEventType::Commit)),
            on_shard("80-", ev(VEventType::Begin)),
            on_shard("80-", field("t")),
            on_shard("80-", insert_at("t", 2, 5)),
            on_shard("80-", all("-80@0", "80-@1", "x@1")),
            on_shard("80-", ev(VEventType::Commit)),
            on_shard("80-", ev(VEventType::Begin)),
            on_shard("80-", journal(9, &["-80", "80-"], &[("0", "start0")])),
            on_shard("80-", ev(VEventType::Commit)),
        ],
    );
    let summary: Vec<String> = out
        .iter()
        .map(|e| match e {
            Event::Journal { shard, .. } => format!("journal {}", shard.1),
            Event::Mark(p) => format!("mark {} {}", p.shard, p.gtid),
            Event::Change(c) => format!("row {}", c.schema.shard),
            Event::Schema(s) => format!("schema {}", s.shard),
            e => format!("{e:?}"),
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            "journal -80",
            "mark -80 -80@0",
            "schema x",
            "row x",
            "mark x x@1",
            "schema 80-",
            "row 80-",
            "mark 80- 80-@1",
            "journal 80-",
            "mark 80- 80-@1",
        ]
    );
    let left: Vec<String> = m.positions().shards.into_iter().map(|p| p.shard).collect();
    assert_eq!(left, vec!["x"]);
    assert_eq!(m.journals_seen(), 2);
}

/// VGTIDs list every shard of the stream after each transaction of one of them. The shards that
/// did not move are skipped without building their positions (`Machine::unmoved_shards`), which
/// needs the VGTID in key order; any other order takes the general path. Both must give the same
/// events: one mark for the shard whose transaction it is (even when its GTID did not move),
/// one for any other shard whose GTID moved, none for the rest.
#[test]
fn unmoved_shards_of_a_vgtid_are_skipped_in_any_order_with_the_same_events() {
    let shards = ["-40", "40-80", "80-c0", "c0-"];
    let script = |reversed: bool| {
        let mut gtids: Vec<String> = shards.iter().map(|s| format!("{s}@0")).collect();
        let mut events = Vec::new();
        let steps: [(usize, Option<usize>); 6] = [
            (0, None),
            (2, None),
            (2, Some(3)), // shard c0- moved too (a transaction VTGate reported without its events)
            (1, None),
            (3, None),
            (0, Some(0)), // the own shard moved twice: still one mark
        ];
        for (i, (own, other)) in steps.into_iter().enumerate() {
            let shard = shards[own];
            gtids[own] = format!("{shard}@{}", i + 1);
            if let Some(o) = other {
                gtids[o] = format!("{}@{}x", shards[o], i + 1);
            }
            let mut listed: Vec<(&str, &str)> = shards
                .iter()
                .zip(&gtids)
                .map(|(s, g)| (*s, g.as_str()))
                .collect();
            if reversed {
                listed.reverse();
            }
            events.push(on_shard(shard, ev(VEventType::Begin)));
            events.push(on_shard(shard, field("t")));
            events.push(on_shard(shard, insert_at("t", i as i64, 5)));
            events.push(on_shard(shard, vgtid_shards(&listed)));
            events.push(on_shard(shard, ev(VEventType::Commit)));
        }
        // A transaction of 40-80 whose VGTID moved nothing: its own mark only.
        let unchanged: Vec<(&str, &str)> = shards
            .iter()
            .zip(&gtids)
            .map(|(s, g)| (*s, g.as_str()))
            .collect();
        events.push(on_shard("40-80", ev(VEventType::Begin)));
        events.push(on_shard("40-80", vgtid_shards(&unchanged)));
        events.push(on_shard("40-80", ev(VEventType::Commit)));
        events
    };
    let config = MachineConfig {
        allow_tables_without_primary_key: false,
        transaction_buffer_bytes: 1 << 20,
        snapshot_only: false,
        follow_reshard: false,
        narrowed_selection: false,
        selected: Default::default(),
        destructive_ddl: crate::options::DestructiveDdl::Fail,
    };
    let positions: Vec<ShardPosition> = shards
        .iter()
        .map(|s| ShardPosition {
            shard: s.to_string(),
            ..start(&format!("{s}@0"), &[])
        })
        .collect();
    let outputs: Vec<Vec<String>> = [false, true]
        .into_iter()
        .map(|reversed| {
            let mut m = Machine::new(
                config.clone(),
                positions.clone(),
                Arc::new(Metrics::default()),
            );
            run(&mut m, script(reversed))
                .iter()
                .filter_map(|e| match e {
                    Event::Mark(p) => Some(format!("mark {}", p.gtid)),
                    Event::Change(c) => Some(format!("row {}", c.schema.shard)),
                    _ => None,
                })
                .collect()
        })
        .collect();
    assert_eq!(
        outputs[0],
        vec![
            "row -40",
            "mark -40@1",
            "row 80-c0",
            "mark 80-c0@2",
            "row 80-c0",
            "mark 80-c0@3",
            "mark c0-@3x",
            "row 40-80",
            "mark 40-80@4",
            "row c0-",
            "mark c0-@5",
            "row -40",
            "mark -40@6x",
            "mark 40-80@4",
        ]
    );
    // The general path: the same events, the marks of one VGTID in the VGTID's order.
    let mut reversed = outputs[0].clone();
    reversed.swap(5, 6);
    assert_eq!(outputs[1], reversed, "reversed VGTIDs");
}

/// The machine keeps the last ROW event's table resolved (the copy sends one ROW event per row):
/// rows of tables and shards taking turns must each still be decoded by their own table's
/// decoder, a new FIELD must take effect at once, and copied rows must all be counted.
#[test]
fn rows_of_tables_and_shards_taking_turns_decode_with_their_own_shape() {
    let shards = ["-80", "80-"];
    let starts = shards
        .iter()
        .map(|s| ShardPosition {
            shard: s.to_string(),
            ..start("", &["a", "b"])
        })
        .collect();
    let metrics = Arc::new(Metrics::default());
    let mut m = Machine::new(
        MachineConfig {
            allow_tables_without_primary_key: false,
            transaction_buffer_bytes: 1 << 20,
            snapshot_only: false,
            follow_reshard: false,
            narrowed_selection: false,
            selected: Default::default(),
            destructive_ddl: crate::options::DestructiveDdl::Fail,
        },
        starts,
        metrics.clone(),
    );
    // b has a third column on shard 80- only.
    let mut wide_b = field("b");
    let mut extra = wide_b.field_event.as_ref().unwrap().fields[1].clone();
    extra.name = "w".into();
    wide_b.field_event.as_mut().unwrap().fields.push(extra);
    let three = |id: i64| Row {
        lengths: crate::proto::encode_lengths(vec![id.to_string().len() as i64, 1, 1]),
        values: format!("{id}xy").into_bytes().into(),
    };
    let mut events = vec![on_shard("-80", ev(VEventType::Begin))];
    for (shard, f) in [
        ("-80", field("a")),
        ("-80", field("b")),
        ("80-", field("a")),
    ] {
        events.push(on_shard(shard, f));
    }
    events.push(on_shard("80-", wide_b));
    for id in 0..4 {
        events.push(on_shard("-80", insert_at("a", id, 0)));
        events.push(on_shard("-80", insert_at("b", 100 + id, 0)));
        events.push(on_shard("80-", insert_at("a", 200 + id, 0)));
        events.push(on_shard(
            "80-",
            rows("b", 0, vec![(None, Some(three(300 + id)))]),
        ));
    }
    events.push(on_shard("-80", ev(VEventType::Commit)));
    let out = run(&mut m, events);
    let changes: Vec<(String, String, usize, i64)> = out
        .iter()
        .filter_map(|e| match e {
            Event::Change(c) => Some((
                c.schema.shard.clone(),
                c.schema.table.clone(),
                c.values.len(),
                match c.values[0] {
                    Value::Int(id) => id,
                    _ => -1,
                },
            )),
            _ => None,
        })
        .collect();
    assert_eq!(changes.len(), 16);
    for (shard, table, columns, id) in &changes {
        let expected = match (shard.as_str(), table.as_str()) {
            ("-80", "a") => (2, 0..4),
            ("-80", "b") => (2, 100..104),
            ("80-", "a") => (2, 200..204),
            ("80-", "b") => (3, 300..304),
            other => panic!("a change of {other:?}"),
        };
        assert_eq!(*columns, expected.0, "{shard} {table}");
        assert!(expected.1.contains(id), "{shard} {table} {id}");
    }
    let copied = metrics.snapshot().rows_copied;
    assert_eq!(copied.get("ks.a"), Some(&8));
    assert_eq!(copied.get("ks.b"), Some(&8));

    // A new shape of a on -80 between two of its rows: the row after it is read with it.
    let mut narrow_a = field("a");
    narrow_a.field_event.as_mut().unwrap().fields.truncate(1);
    let one = Row {
        lengths: crate::proto::encode_lengths(vec![1]),
        values: b"9".to_vec().into(),
    };
    let out = run(
        &mut m,
        vec![
            on_shard("-80", ev(VEventType::Begin)),
            on_shard("-80", insert_at("a", 8, 0)),
            on_shard("-80", narrow_a),
            on_shard("-80", rows("a", 0, vec![(None, Some(one))])),
            on_shard("-80", ev(VEventType::Commit)),
        ],
    );
    let values: Vec<&Vec<Value>> = out
        .iter()
        .filter_map(|e| match e {
            Event::Change(c) => Some(&c.values),
            _ => None,
        })
        .collect();
    assert_eq!(
        values,
        vec![
            &vec![Value::Int(8), Value::String("v".into())],
            &vec![Value::Int(9)]
        ]
    );
    assert_eq!(metrics.snapshot().rows_copied.get("ks.a"), Some(&10));
}

fn ddl(statement: &str) -> VEvent {
    VEvent {
        statement: statement.into(),
        ..ev(VEventType::Ddl)
    }
}

#[test]
fn ddl_that_takes_a_selected_tables_rows_away_stops_the_stream_naming_the_fix() {
    for statement in [
        "TRUNCATE TABLE `t`",
        "drop table if exists t",
        "RENAME TABLE t TO t_archive",
        "ALTER TABLE t RENAME TO t2",
    ] {
        let mut m = machine(start("pos0", &[]), 1 << 20);
        m.config.selected = SelectedTables::of(&StreamOptions {
            tables: vec!["t".into()],
            ..StreamOptions::new("a:1", "ks")
        });
        let mut out = Vec::new();
        m.handle(field("t"), &mut out).unwrap();
        let err = m.handle(ddl(statement), &mut out).unwrap_err();
        assert_eq!(err.kind, crate::ErrorKind::Config, "{statement}");
        assert_eq!(err.code, ErrorCode::DestructiveDdl, "{statement}");
        assert!(
            err.message.contains("table 'ks.t'")
                && err.message.contains(statement)
                && err.message.contains("'scan.destructive-ddl' = 'continue'"),
            "{}",
            err.message
        );
        assert!(
            !out.iter().any(|e| matches!(e, Event::Ddl { .. })),
            "nothing of the DDL reaches the consumer when it stops the stream"
        );
    }
}

#[test]
fn vitess_online_drop_is_told_as_a_drop() {
    let mut m = machine(start("pos0", &[]), 1 << 20);
    let mut out = Vec::new();
    m.handle(field("t"), &mut out).unwrap();
    let err = m
        .handle(
            ddl("RENAME TABLE `t` TO `_vt_hld_6ace8bcef73211ea87e9f875a4d24e90_20260101120000_`"),
            &mut out,
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::DestructiveDdl);
    assert!(
        err.message.contains("dropped it (Vitess's online DROP"),
        "{}",
        err.message
    );
}

#[test]
fn ddl_on_other_tables_swaps_and_continue_go_on() {
    let mut m = machine(start("pos0", &[]), 1 << 20);
    m.config.selected = SelectedTables::of(&StreamOptions {
        table_patterns: vec!["t".into()],
        ..StreamOptions::new("a:1", "ks")
    });
    let out = run(
        &mut m,
        vec![
            field("t"),
            ddl("TRUNCATE TABLE t_other"),
            ddl("RENAME TABLE t TO _vt_hld_1, _vt_vrp_1 TO t"),
        ],
    );
    assert_eq!(
        out.iter()
            .filter(|e| matches!(e, Event::Ddl { .. }))
            .count(),
        2
    );
    m.config.destructive_ddl = crate::options::DestructiveDdl::Continue;
    let out = run(&mut m, vec![ddl("TRUNCATE TABLE t")]);
    assert!(matches!(&out[0], Event::Ddl { statement, .. } if statement == "TRUNCATE TABLE t"));
}

#[test]
fn a_changed_primary_key_stops_the_stream_unless_accepted() {
    let mut rekeyed = field("t");
    {
        let fields = &mut rekeyed.field_event.as_mut().unwrap().fields;
        fields[1].flags = fields[0].flags;
    }
    let mut m = machine(start("pos0", &[]), 1 << 20);
    let mut out = Vec::new();
    m.handle(field("t"), &mut out).unwrap();
    let err = m.handle(rekeyed.clone(), &mut out).unwrap_err();
    assert_eq!(err.code, ErrorCode::DestructiveDdl);
    assert!(
        err.message
            .contains("primary key changed from (id) to (id, v)"),
        "{}",
        err.message
    );
    let mut accepting = machine(start("pos0", &[]), 1 << 20);
    accepting.config.destructive_ddl = crate::options::DestructiveDdl::Continue;
    let out = run(&mut accepting, vec![field("t"), rekeyed]);
    assert_eq!(
        out.iter().filter(|e| matches!(e, Event::Schema(_))).count(),
        2
    );
}

/// The events of `phases` as the machine emits them: each phase one VStream response, decoded
/// as the stream decodes it (runs of ROW events joined, `client::codec`) when `joined`, else
/// one ROW event at a time; the stream reconnects between phases.
fn run_phases(mut m: Machine, phases: &[Vec<VEvent>], joined: bool) -> Vec<String> {
    use prost::Message;
    let mut out = Vec::new();
    for (i, phase) in phases.iter().enumerate() {
        if i > 0 {
            m.on_reconnect();
        }
        let events = if joined {
            let encoded = crate::proto::vtgate::VStreamResponse {
                events: phase.clone(),
            }
            .encode_to_vec();
            let decoded = crate::client::codec::decode_response(encoded.into())
                .unwrap()
                .events;
            assert!(decoded.len() < phase.len(), "every phase has a run to join");
            decoded
        } else {
            phase.clone()
        };
        out.extend(run(&mut m, events));
    }
    out.iter().map(|e| format!("{e:?}")).collect()
}

#[test]
fn row_events_joined_on_decoding_give_what_one_at_a_time_gives() {
    let txn = |ids: std::ops::Range<i64>, end: Option<&str>| {
        let mut v = vec![ev(VEventType::Begin)];
        v.extend(ids.map(|i| insert_at("t", i, 7)));
        if let Some(gtid) = end {
            v.extend([vgtid(gtid), ev(VEventType::Commit)]);
        }
        v
    };
    let copy = |ids: std::ops::Range<i64>, last: i64| {
        let mut v = vec![ev(VEventType::Begin), field("b")];
        v.extend(ids.map(|i| insert_at("b", i, 0)));
        v.extend([
            vgtid_with("MySQL56/u:1-11", vec![lastpk("b", last)]),
            ev(VEventType::Commit),
        ]);
        v
    };
    // Where each machine starts, its transaction budget, and the responses it reads.
    let scenarios: Vec<(ShardPosition, usize, Vec<Vec<VEvent>>)> = vec![
        // Chunked at every change, cut inside a transaction and replayed from its BEGIN.
        (
            start("pos0", &[]),
            1,
            vec![
                [vec![field("t")], txn(0..3, None)].concat(),
                [txn(0..5, Some("pos1")), txn(10..12, Some("pos2"))].concat(),
            ],
        ),
        // A resumed copy: its rows, then changes inside and beyond the copied range.
        (
            resumed_in_b(),
            1 << 20,
            vec![[
                vec![field("a")],
                copy(6..9, 8),
                vec![
                    ev(VEventType::Begin),
                    insert_at("b", 3, 1000),
                    insert_at("b", 9, 1000),
                    update("b", 4, 12),
                    update("b", 2, 3),
                    rows("b", 1000, vec![(Some(row(6, "x")), None)]),
                    insert_at("a", 100, 1000),
                    vgtid_with("MySQL56/u:1-12", vec![lastpk("b", 8)]),
                    ev(VEventType::Commit),
                ],
                copy(9..20, 19),
            ]
            .concat()],
        ),
    ];
    for (start, budget, phases) in &scenarios {
        let one_at_a_time = run_phases(machine(start.clone(), *budget), phases, false);
        assert!(one_at_a_time.iter().any(|e| e.starts_with("Change")));
        let joined = run_phases(machine(start.clone(), *budget), phases, true);
        assert_eq!(joined, one_at_a_time);
    }
}
