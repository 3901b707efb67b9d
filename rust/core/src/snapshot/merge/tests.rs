// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

use super::*;
use crate::event::{Column, ColumnType, RowKind, TableSchema};
use proptest::prelude::*;
use std::collections::BTreeMap;

const UUID: &str = "87d2a132-ec4c-11f1-bbd3-02fc00000001";

fn upto(n: u64) -> GtidSet {
    if n == 0 {
        GtidSet::new()
    } else {
        GtidSet::parse(&format!("{UUID}:1-{n}")).unwrap()
    }
}

fn gtid(n: u64) -> Gtid {
    Gtid::parse(&format!("{UUID}:{n}")).unwrap()
}

fn schema() -> Arc<TableSchema> {
    let col = |name: &str, pk| Column {
        name: name.into(),
        column_type: ColumnType::Int,
        mysql_type: "bigint".into(),
        vitess_type: 265,
        charset: 63,
        length: 20,
        decimals: 0,
        nullable: false,
        primary_key: pk,
    };
    Arc::new(TableSchema {
        keyspace: "ks".into(),
        shard: "-80".into(),
        table: "t".into(),
        columns: vec![col("a", true), col("b", true), col("ver", false)],
        version: 1,
    })
}

fn table_key(arity: usize) -> Arc<TableKey> {
    let names: Vec<String> = ["a", "b"][..arity].iter().map(|s| s.to_string()).collect();
    Arc::new(TableKey::of_schema(&schema(), &names).unwrap())
}

type Key = (i64, i64);

fn values(k: Key, ver: i64) -> Vec<Value> {
    vec![Value::Int(k.0), Value::Int(k.1), Value::Int(ver)]
}

fn row(kind: RowKind, k: Key, ver: i64) -> ChangeEvent {
    ChangeEvent {
        schema: schema(),
        kind,
        values: values(k, ver),
        commit_ts_millis: 0,
        is_snapshot: kind == RowKind::SnapshotRead,
        gtid: None,
    }
}

fn key_of(c: &ChangeEvent) -> (Key, i64) {
    let int = |i: usize| match c.values[i] {
        Value::Int(n) => n,
        _ => unreachable!(),
    };
    ((int(0), int(1)), int(2))
}

#[test]
fn a_row_deleted_after_the_snapshot_stays_deleted() {
    let tk = table_key(1);
    let mut m = ShardMerge::new(upto(10));
    m.request(1, "t", tk.clone(), ChunkRange::all());
    // The chunk read rows 1 and 2 at snapshot 1-11; the log then deletes row 2 (txn 12).
    m.on_chunk_rows(
        1,
        vec![
            row(RowKind::SnapshotRead, (1, 0), 5),
            row(RowKind::SnapshotRead, (2, 0), 11),
        ],
    )
    .unwrap();
    m.on_chunk_snapshot(1, upto(11)).unwrap().unwrap();
    m.complete(1).unwrap();
    m.on_log_change("t", &schema(), &values((2, 0), 11), Some(&gtid(11)));
    m.on_log_position(upto(11));
    m.on_log_change("t", &schema(), &values((2, 0), 11), Some(&gtid(12)));
    m.on_log_position(upto(12));
    let ready = m.take_ready();
    assert_eq!(ready.len(), 1);
    let rows: Vec<_> = ready[0].rows.iter().map(key_of).collect();
    assert_eq!(
        rows,
        vec![((1, 0), 5)],
        "row 2 was deleted by the log after the snapshot"
    );
    assert_eq!(ready[0].evicted, 1);
}

#[test]
fn the_chunk_waits_until_the_log_has_passed_its_snapshot() {
    let mut m = ShardMerge::new(upto(10));
    m.request(1, "t", table_key(1), ChunkRange::all());
    m.on_chunk_rows(1, vec![row(RowKind::SnapshotRead, (1, 0), 12)])
        .unwrap();
    // The chunk's tablet is ahead of the log (1-12 vs 1-10): its rows wait, the log goes on.
    m.on_chunk_snapshot(1, upto(12)).unwrap().unwrap();
    m.complete(1).unwrap();
    assert!(m.take_ready().is_empty());
    m.on_log_change("t", &schema(), &values((1, 0), 11), Some(&gtid(11)));
    m.on_log_position(upto(11));
    assert!(m.take_ready().is_empty());
    // Txn 12 is in the snapshot: the chunk's row is not older than it and stays.
    m.on_log_change("t", &schema(), &values((1, 0), 12), Some(&gtid(12)));
    m.on_log_position(upto(12));
    let ready = m.take_ready();
    assert_eq!(ready[0].rows.len(), 1);
}

#[test]
fn a_chunk_behind_the_log_is_discarded() {
    let mut m = ShardMerge::new(upto(10));
    m.request(7, "t", table_key(1), ChunkRange::all());
    let discarded = m.on_chunk_snapshot(7, upto(9)).unwrap().unwrap_err();
    assert_eq!(discarded.id, 7);
    assert_eq!(discarded.requested_at, upto(10));
    assert_eq!(m.in_flight(), 0);
    assert!(m.on_chunk_rows(7, vec![]).is_err());
}

#[test]
fn changes_without_gtid_count_as_newer() {
    let mut m = ShardMerge::new(upto(10));
    m.request(1, "t", table_key(1), ChunkRange::all());
    m.on_log_change("t", &schema(), &values((3, 0), 4), None);
    m.on_chunk_rows(1, vec![row(RowKind::SnapshotRead, (3, 0), 4)])
        .unwrap();
    m.on_chunk_snapshot(1, upto(10)).unwrap().unwrap();
    m.complete(1).unwrap();
    assert!(m.take_ready()[0].rows.is_empty());
}

#[test]
fn a_cut_chunk_forgets_keys_beyond_its_end_and_counts_bytes() {
    let mut m = ShardMerge::new(upto(10));
    m.request(1, "t", table_key(1), ChunkRange::all());
    m.on_chunk_rows(1, vec![row(RowKind::SnapshotRead, (1, 0), 1)])
        .unwrap();
    let before = m.chunk_bytes(1);
    m.on_chunk_snapshot(1, upto(10)).unwrap().unwrap();
    // Key 5 changes after the snapshot: remembered (the chunk may still send it).
    m.on_log_change("t", &schema(), &values((5, 0), 11), Some(&gtid(11)));
    assert!(m.chunk_bytes(1) > before);
    assert_eq!(m.cut(1).unwrap(), Some(vec![Value::Int(1)]));
    assert_eq!(m.chunk_bytes(1), before);
    // Beyond the cut: no longer this chunk's business.
    m.on_log_change("t", &schema(), &values((6, 0), 12), Some(&gtid(12)));
    assert_eq!(m.chunk_bytes(1), before);
    m.on_log_position(upto(12));
    let ready = m.take_ready();
    assert_eq!(ready[0].range.through, Some(vec![Value::Int(1)]));
    assert_eq!(ready[0].rows.len(), 1);
}

#[test]
fn chunks_of_a_table_are_emitted_in_request_order() {
    let mut m = ShardMerge::new(upto(10));
    let tk = table_key(1);
    m.request(1, "t", tk.clone(), ChunkRange::all());
    m.on_chunk_rows(1, vec![row(RowKind::SnapshotRead, (1, 0), 1)])
        .unwrap();
    m.on_chunk_snapshot(1, upto(12)).unwrap().unwrap();
    m.cut(1).unwrap();
    m.request(2, "t", tk.clone(), ChunkRange::after(vec![Value::Int(1)]));
    m.on_chunk_rows(2, vec![row(RowKind::SnapshotRead, (2, 0), 1)])
        .unwrap();
    m.on_chunk_snapshot(2, upto(10)).unwrap().unwrap();
    m.complete(2).unwrap();
    // Chunk 2's snapshot is passed, chunk 1's is not: chunk 2 waits behind it.
    assert!(m.take_ready().is_empty());
    m.on_log_position(upto(12));
    let ids: Vec<_> = m.take_ready().iter().map(|r| r.id).collect();
    assert_eq!(ids, vec![1, 2]);
}

#[test]
fn rows_out_of_key_order_are_an_error() {
    let mut m = ShardMerge::new(upto(1));
    m.request(1, "t", table_key(2), ChunkRange::all());
    let e = m
        .on_chunk_rows(
            1,
            vec![
                row(RowKind::SnapshotRead, (1, 2), 1),
                row(RowKind::SnapshotRead, (1, 1), 1),
            ],
        )
        .unwrap_err();
    assert!(e.message.contains("out of primary-key order"), "{e}");
}

// ---- The randomized model: a table, a writer, a lagging log, chunks at random GTID points ----

#[derive(Debug, Clone)]
enum Out {
    Upsert(i64),
    Delete(i64),
}

struct Txn {
    changes: Vec<(RowKind, Key, i64)>,
    gtid_known: bool,
}

struct Active {
    id: ChunkId,
    rows: Vec<(Key, i64)>,
    sent: usize,
    snapshot: u64,
    snapshot_sent: bool,
}

struct Sim {
    arity: usize,
    tk: Arc<TableKey>,
    /// states[n] = the table after n transactions.
    states: Vec<BTreeMap<Key, i64>>,
    txns: Vec<Txn>,
    /// Transactions the log has delivered (the first `initial` predate the log's start).
    log_next: usize,
    merge: ShardMerge,
    out: Vec<(Key, Out)>,
    /// The capture's lanes (one, or three split at first-column values 1 and 3), in key order.
    lanes: Vec<SimLane>,
    split: bool,
    /// The last snapshot row's key of the running capture (split runs check key order).
    last_read: Option<Key>,
    next_id: ChunkId,
    discards: usize,
    /// Captures to start again once one finished (re-snapshots of a table the downstream has).
    recaptures: usize,
}

#[derive(Default)]
struct SimLane {
    cursor: Option<ChunkRange>,
    active: Option<Active>,
}

/// A fresh capture's lanes: the whole table, or split by the first key column as the capture
/// splits it (capture/lanes.rs).
fn capture_lanes(split: bool) -> Vec<SimLane> {
    let lane = |r: ChunkRange| SimLane {
        cursor: Some(r),
        active: None,
    };
    if !split {
        return vec![lane(ChunkRange::all())];
    }
    vec![
        lane(ChunkRange::all().in_lane(Some(Value::Int(1)))),
        lane(ChunkRange::after(vec![Value::Int(1)]).in_lane(Some(Value::Int(3)))),
        lane(ChunkRange::after(vec![Value::Int(3)])),
    ]
}

impl Sim {
    fn new(arity: usize, initial: &[Key], split: bool) -> Sim {
        let mut sim = Sim {
            arity,
            tk: table_key(arity),
            states: vec![BTreeMap::new()],
            txns: Vec::new(),
            log_next: 0,
            merge: ShardMerge::new(GtidSet::new()),
            out: Vec::new(),
            lanes: capture_lanes(split),
            split,
            last_read: None,
            next_id: 1,
            discards: 0,
            recaptures: 2,
        };
        for &k in initial {
            let k = sim.norm(k);
            if !sim.db().contains_key(&k) {
                let ver = sim.txns.len() as i64 + 1;
                sim.commit(vec![(RowKind::Insert, k, ver)], true);
            }
        }
        // The log starts here: the downstream has nothing, the snapshot must bring it all.
        sim.log_next = sim.txns.len();
        sim.merge = ShardMerge::new(upto(sim.log_next as u64));
        sim
    }

    fn norm(&self, k: Key) -> Key {
        (k.0 % 6, if self.arity == 2 { k.1 % 4 } else { 0 })
    }

    fn db(&self) -> &BTreeMap<Key, i64> {
        self.states.last().unwrap()
    }

    fn commit(&mut self, changes: Vec<(RowKind, Key, i64)>, gtid_known: bool) {
        let mut next = self.db().clone();
        for &(kind, k, ver) in &changes {
            match kind {
                RowKind::Insert | RowKind::UpdateAfter => {
                    next.insert(k, ver);
                }
                RowKind::Delete => {
                    next.remove(&k);
                }
                _ => {}
            }
        }
        self.states.push(next);
        self.txns.push(Txn {
            changes,
            gtid_known,
        });
    }

    /// One write: insert, update, delete or primary-key move of a key picked by `k`.
    fn write(&mut self, op: u8, k: Key, to: Key, gtid_known: bool) {
        let k = self.norm(k);
        let to = self.norm(to);
        let ver = self.txns.len() as i64 + 1;
        let exists = self.db().contains_key(&k);
        let changes = match (op % 4, exists) {
            (0, false) | (1, false) => vec![(RowKind::Insert, k, ver)],
            (1, true) | (0, true) => vec![
                (RowKind::UpdateBefore, k, self.db()[&k]),
                (RowKind::UpdateAfter, k, ver),
            ],
            (2, true) => vec![(RowKind::Delete, k, ver)],
            (3, true) if !self.db().contains_key(&to) => {
                vec![(RowKind::Delete, k, ver), (RowKind::Insert, to, ver)]
            }
            _ => return,
        };
        self.commit(changes, gtid_known);
    }

    fn advance_log(&mut self, n: usize) {
        for _ in 0..n {
            if self.log_next >= self.txns.len() {
                break;
            }
            let seq = self.log_next as u64 + 1;
            let txn = &self.txns[self.log_next];
            let g = txn.gtid_known.then(|| gtid(seq));
            for &(kind, k, ver) in &txn.changes {
                match kind {
                    RowKind::Delete => self.out.push((k, Out::Delete(ver))),
                    RowKind::Insert | RowKind::UpdateAfter => self.out.push((k, Out::Upsert(ver))),
                    _ => {}
                }
                self.merge
                    .on_log_change("t", &schema(), &values(k, ver), g.as_ref());
            }
            self.log_next += 1;
            self.merge.on_log_position(upto(seq));
        }
        self.emit_ready();
    }

    /// The first lane still to read (its chunks are emitted next).
    fn head_lane(&self) -> usize {
        self.lanes
            .iter()
            .position(|l| l.cursor.is_some() || l.active.is_some())
            .unwrap_or(self.lanes.len())
    }

    fn emit_ready(&mut self) {
        if self.split {
            self.merge.set_head_lane("t", self.head_lane());
        }
        for chunk in self.merge.take_ready() {
            for r in &chunk.rows {
                assert_eq!(r.kind, RowKind::SnapshotRead);
                let (k, ver) = key_of(r);
                if self.split {
                    // Lanes read side by side, a capture still emits in key order (one cursor).
                    assert!(
                        self.last_read.is_none_or(|last| last < k),
                        "snapshot row {k:?} emitted after {:?}",
                        self.last_read
                    );
                    self.last_read = Some(k);
                }
                self.out.push((k, Out::Upsert(ver)));
            }
        }
    }

    /// Starts a chunk in lane `pick` (its snapshot at transaction `at`, clamped) or moves that
    /// lane's active chunk on.
    fn chunk_step(&mut self, pick: usize, at: usize, batch: usize, cut: bool) {
        let done = self
            .lanes
            .iter()
            .all(|l| l.cursor.is_none() && l.active.is_none());
        // A split capture starts again only once all of it is emitted (as a queued capture
        // starts when the one before it is done).
        if done && self.recaptures > 0 && (!self.split || self.merge.in_flight() == 0) {
            self.recaptures -= 1;
            self.lanes = capture_lanes(self.split);
            self.last_read = None;
        }
        let lane = pick % self.lanes.len();
        match self.lanes[lane].active.take() {
            None => {
                // At most three chunks in flight (the scheduler's limit), but the head lane
                // may always start one: the chunks of later lanes wait for it (chunks.rs).
                let head = lane == self.head_lane();
                let Some(range) = self.lanes[lane]
                    .cursor
                    .clone()
                    .filter(|_| head || self.merge.in_flight() < 3)
                else {
                    return;
                };
                let id = self.next_id;
                self.next_id += 1;
                self.merge
                    .request_in_lane(id, "t", self.tk.clone(), range.clone(), lane);
                let snapshot = at.min(self.txns.len());
                let rows = self.states[snapshot]
                    .iter()
                    .filter(|(k, _)| range.contains(&self.tk, &values(**k, 0)[..self.arity]))
                    .map(|(k, v)| (*k, *v))
                    .collect();
                self.lanes[lane].active = Some(Active {
                    id,
                    rows,
                    sent: 0,
                    snapshot: snapshot as u64,
                    snapshot_sent: false,
                });
            }
            Some(mut a) => {
                let end = (a.sent + batch).min(a.rows.len());
                let rows = a.rows[a.sent..end]
                    .iter()
                    .map(|&(k, v)| row(RowKind::SnapshotRead, k, v))
                    .collect();
                a.sent = end;
                self.merge.on_chunk_rows(a.id, rows).unwrap();
                if !a.snapshot_sent {
                    a.snapshot_sent = true;
                    if self
                        .merge
                        .on_chunk_snapshot(a.id, upto(a.snapshot))
                        .unwrap()
                        .is_err()
                    {
                        // The chunk's tablet was behind the log: the same range again, later.
                        self.discards += 1;
                        self.emit_ready();
                        return;
                    }
                }
                let l = &mut self.lanes[lane];
                if a.sent == a.rows.len() {
                    self.merge.complete(a.id).unwrap();
                    let range = l.cursor.take().unwrap();
                    l.cursor = range.next_level();
                } else if cut {
                    let through = self.merge.cut(a.id).unwrap().expect("rows were sent");
                    let until = l.cursor.as_ref().and_then(|r| r.until.clone());
                    l.cursor = Some(ChunkRange::after(through).in_lane(until));
                } else {
                    l.active = Some(a);
                }
            }
        }
        self.emit_ready();
    }

    fn capture_done(&self) -> bool {
        self.lanes
            .iter()
            .all(|l| l.cursor.is_none() && l.active.is_none())
            && self.merge.in_flight() == 0
    }

    fn drain(&mut self) {
        self.recaptures = 0;
        for _ in 0..10_000 {
            if self.capture_done() && self.log_next == self.txns.len() {
                return;
            }
            self.advance_log(1);
            let now = self.txns.len();
            for lane in 0..self.lanes.len() {
                self.chunk_step(lane, now, 2, false);
            }
        }
        panic!("the capture did not finish");
    }

    fn check(&self) {
        // Per key, versions never decrease over the whole output.
        let mut last: BTreeMap<Key, i64> = BTreeMap::new();
        let mut state: BTreeMap<Key, i64> = BTreeMap::new();
        for (k, o) in &self.out {
            let v = match o {
                Out::Upsert(v) => {
                    state.insert(*k, *v);
                    *v
                }
                Out::Delete(v) => {
                    state.remove(k);
                    *v
                }
            };
            if let Some(prev) = last.get(k) {
                assert!(
                    v >= *prev,
                    "key {k:?} went back in time: {o:?} after version {prev}\noutput: {:?}",
                    self.out
                );
            }
            last.insert(*k, v);
        }
        assert_eq!(&state, self.db(), "the merged state differs from the table");
    }
}

#[derive(Debug, Clone)]
enum Action {
    Write {
        op: u8,
        k: Key,
        to: Key,
        gtid_known: bool,
    },
    Log(usize),
    /// A chunk step; its snapshot lags the log by `lag` transactions (may be negative: ahead).
    Chunk {
        lane: usize,
        lag: i64,
        batch: usize,
        cut: bool,
    },
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        4 => (0u8..4, (0i64..6, 0i64..4), (0i64..6, 0i64..4), proptest::bool::weighted(0.9))
            .prop_map(|(op, k, to, gtid_known)| Action::Write { op, k, to, gtid_known }),
        2 => (1usize..4).prop_map(Action::Log),
        3 => (0usize..3, -3i64..3, 1usize..4, proptest::bool::ANY)
            .prop_map(|(lane, lag, batch, cut)| Action::Chunk { lane, lag, batch, cut }),
    ]
}

fn run(arity: usize, initial: &[Key], actions: &[Action], split: bool) -> Sim {
    let mut sim = Sim::new(arity, initial, split);
    for a in actions {
        match *a {
            Action::Write {
                op,
                k,
                to,
                gtid_known,
            } => sim.write(op, k, to, gtid_known),
            Action::Log(n) => sim.advance_log(n),
            Action::Chunk {
                lane,
                lag,
                batch,
                cut,
            } => {
                let at = (sim.log_next as i64 - lag).max(0) as usize;
                sim.chunk_step(lane, at, batch, cut);
            }
        }
    }
    sim.drain();
    sim.check();
    sim
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn versions_never_decrease_and_the_final_state_is_the_table(
        arity in 1usize..3,
        initial in proptest::collection::vec((0i64..6, 0i64..4), 0..20),
        actions in proptest::collection::vec(action(), 0..120),
    ) {
        run(arity, &initial, &actions, false);
    }

    /// The same with the table split into lanes read side by side: chunks of later lanes read
    /// ahead and wait, and the capture emits in key order.
    #[test]
    fn lanes_read_side_by_side_keep_versions_and_key_order(
        arity in 1usize..3,
        initial in proptest::collection::vec((0i64..6, 0i64..4), 0..20),
        actions in proptest::collection::vec(action(), 0..120),
    ) {
        run(arity, &initial, &actions, true);
    }
}

#[test]
fn the_model_sees_discards_evictions_and_cuts() {
    // A fixed busy run, so the model test is known to exercise every path.
    let mut actions = Vec::new();
    for i in 0..300i64 {
        actions.push(Action::Write {
            op: (i % 4) as u8,
            k: (i * 7 % 6, i % 4),
            to: (i * 5 % 6, (i + 1) % 4),
            gtid_known: i % 10 != 0,
        });
        actions.push(Action::Chunk {
            lane: (i % 7) as usize,
            lag: (i % 5) - 2,
            batch: 1 + (i % 2) as usize,
            cut: i % 3 == 0,
        });
        if i % 2 == 0 {
            actions.push(Action::Log(1));
        }
    }
    for split in [false, true] {
        let sim = run(
            2,
            &[(0, 0), (1, 1), (2, 2), (3, 3), (4, 0), (5, 1)],
            &actions,
            split,
        );
        assert!(sim.discards > 0, "no chunk was discarded (split: {split})");
        assert!(
            sim.next_id > 10,
            "only {} chunks (split: {split})",
            sim.next_id
        );
    }
}
