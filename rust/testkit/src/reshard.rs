// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A scripted reshard of keyspace [`KS`]: shards `-80` and `80-` stream row changes, then `-80`
//! is split into `-40` and `40-80` (one SHARDS journal), and the new shards stream the later
//! changes of its keys. Every VStream request is answered from the shards and positions it asks
//! for, so any number of streams (one per Flink reader) can read the keyspace in any order and
//! resume anywhere.
//!
//! Data: table `t (id BIGINT PRIMARY KEY, v VARCHAR)`, keys `0..keys`. Key `k` lives on `80-`
//! when odd, else on `-80` and after the split on `-40` (`k % 4 == 0`) or `40-80`. Each key goes
//! through versions `1..=before + after` (`v = "v<version>"`, an insert then updates):
//! versions `1..=before` on its first shard, the rest on `80-` or the new shard. A consumer that
//! keeps per-key order across the reshard sees each key's versions strictly increasing.
//!
//! Positions are MySQL GTID sets `MySQL56/<uuid of the shard>:1-<n>` (n transactions applied,
//! one server UUID per shard; `current` = 0), so order ranks can be computed from them. The old shard ends
//! with `BEGIN, JOURNAL, VGTID, COMMIT`; with `stop_on_reshard` the RPC then ends (EOF) after a
//! short pause, as VTGate does; other shards resume in the client's next request.

use crate::events::{begin, commit, field, on_shard, row, rows, KS};
use crate::{Keyspace, Responder, Session};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use vitess_cdc_protos::binlogdata::{
    Journal, KeyspaceShard, MigrationType, ShardGtid, VEvent, VEventType, VGtid,
};
use vitess_cdc_protos::vtgate::VStreamRequest;

/// The reshard journal's id.
pub const JOURNAL_ID: i64 = 7_000_001;

#[derive(Debug, Clone)]
pub struct Scenario {
    pub keys: i64,
    /// Versions of each key before the split (on its first shard).
    pub before: i64,
    /// Versions after (on `80-` or the new shards).
    pub after: i64,
    /// Transactions per response.
    pub batch: usize,
    /// Pause between responses (spreads the data over time, so checkpoints fall in between).
    pub pace: Duration,
}

impl Default for Scenario {
    fn default() -> Self {
        Scenario {
            keys: 40,
            before: 10,
            after: 10,
            batch: 4,
            pace: Duration::from_millis(30),
        }
    }
}

/// One transaction: an insert (version 1) or update of one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub id: i64,
    pub version: i64,
}

pub const OLD: &str = "-80";
pub const OTHER: &str = "80-";
pub const NEW: [&str; 2] = ["-40", "40-80"];

impl Scenario {
    /// The keyspace as discovery sees it when the job starts (before the split).
    pub fn keyspace(&self) -> Keyspace {
        Keyspace::new(KS, &[OLD, OTHER], &[("t", true)])
    }

    fn shard_of_new(id: i64) -> &'static str {
        if id % 4 == 0 {
            NEW[0]
        } else {
            NEW[1]
        }
    }

    /// The transactions of a shard, in order (version-major: every key at version 1, then 2, …).
    pub fn changes(&self, shard: &str) -> Vec<Change> {
        let (keys, versions): (Vec<i64>, std::ops::RangeInclusive<i64>) = match shard {
            OLD => (
                (0..self.keys).filter(|k| k % 2 == 0).collect(),
                1..=self.before,
            ),
            OTHER => (
                (0..self.keys).filter(|k| k % 2 == 1).collect(),
                1..=self.before + self.after,
            ),
            s if NEW.contains(&s) => (
                (0..self.keys)
                    .filter(|k| k % 2 == 0 && Self::shard_of_new(*k) == s)
                    .collect(),
                self.before + 1..=self.before + self.after,
            ),
            _ => return Vec::new(),
        };
        versions
            .flat_map(|v| keys.iter().map(move |&id| Change { id, version: v }))
            .collect()
    }

    /// Every change of the scenario (what a consumer must end up with, once each).
    pub fn all_changes(&self) -> Vec<Change> {
        let mut all = Vec::new();
        for shard in [OLD, OTHER, NEW[0], NEW[1]] {
            all.extend(self.changes(shard));
        }
        all
    }

    pub fn responder(self) -> Responder {
        let scenario = Arc::new(self);
        Arc::new(move |request: &VStreamRequest| scenario.session(request))
    }

    /// The session answering one request.
    pub fn session(&self, request: &VStreamRequest) -> Session {
        let stop_on_reshard = request.flags.as_ref().is_some_and(|f| f.stop_on_reshard);
        let mut at: BTreeMap<String, i64> = BTreeMap::new();
        for sg in request.vgtid.iter().flat_map(|v| v.shard_gtids.iter()) {
            at.insert(text(&sg.shard).to_string(), parse_gtid(text(&sg.gtid)));
        }
        let mut session = Session::new();
        // "current": the first events are VGTID, OTHER per shard
        for sg in request.vgtid.iter().flat_map(|v| v.shard_gtids.iter()) {
            if sg.gtid == "current" {
                session = session.send(vec![
                    on_shard(text(&sg.shard), vgtid_of(&at)),
                    on_shard(text(&sg.shard), other()),
                ]);
            }
        }
        let mut pending: BTreeMap<String, std::collections::VecDeque<Vec<VEvent>>> =
            BTreeMap::new();
        for (shard, &n) in &at {
            let changes = self.changes(shard);
            let mut txns = std::collections::VecDeque::new();
            let mut with_field = true;
            for (i, c) in changes.iter().enumerate().skip(n.max(0) as usize) {
                txns.push_back(self.txn(shard, i as i64 + 1, *c, with_field));
                with_field = false;
            }
            if shard == OLD && n <= changes.len() as i64 {
                txns.push_back(Vec::new()); // placeholder: the journal, built when sent
            }
            pending.insert(shard.clone(), txns);
        }
        // Round robin over the shards, `batch` transactions per response.
        let mut journal_sent = false;
        loop {
            let mut any = false;
            for (shard, txns) in pending.iter_mut() {
                let mut events = Vec::new();
                for _ in 0..self.batch {
                    let Some(txn) = txns.pop_front() else { break };
                    any = true;
                    if txn.is_empty() {
                        events.extend(self.journal_txn(&mut at));
                        journal_sent = true;
                        break;
                    }
                    // the VGTID of a transaction lists every shard of the stream, as it is now
                    let n = at.get_mut(shard.as_str()).expect("shard");
                    *n += 1;
                    let snapshot = vgtid_of(&at);
                    events.extend(
                        txn.into_iter()
                            .map(|e| match VEventType::try_from(e.r#type) {
                                Ok(VEventType::Vgtid) => on_shard(shard, snapshot.clone()),
                                _ => e,
                            }),
                    );
                }
                if !events.is_empty() {
                    session = session.send(events).pause(self.pace);
                }
                if journal_sent && stop_on_reshard {
                    // VTGate ends the RPC shortly after every participant reached the journal.
                    return session.pause(Duration::from_millis(200)).end();
                }
            }
            if !any {
                break;
            }
        }
        session.idle(Duration::from_secs(1))
    }

    fn txn(&self, shard: &str, _n: i64, c: Change, with_field: bool) -> Vec<VEvent> {
        let value = |v: i64| row(c.id, &format!("v{v}"));
        let image = if c.version == 1 {
            (None, Some(value(1)))
        } else {
            (Some(value(c.version - 1)), Some(value(c.version)))
        };
        let mut events = vec![on_shard(shard, begin())];
        if with_field {
            events.push(on_shard(shard, field("t")));
        }
        events.push(on_shard(
            shard,
            rows("t", 1_700_000_000 + c.version, vec![image]),
        ));
        events.push(VEvent {
            r#type: VEventType::Vgtid as i32,
            ..Default::default()
        });
        events.push(on_shard(shard, commit()));
        events
    }

    fn journal_txn(&self, at: &mut BTreeMap<String, i64>) -> Vec<VEvent> {
        let journal = VEvent {
            r#type: VEventType::Journal as i32,
            journal: Some(Box::new(Journal {
                id: JOURNAL_ID,
                migration_type: MigrationType::Shards as i32,
                participants: vec![KeyspaceShard {
                    keyspace: KS.into(),
                    shard: OLD.into(),
                }],
                shard_gtids: NEW
                    .iter()
                    .map(|s| ShardGtid {
                        keyspace: KS.into(),
                        shard: s.to_string().into(),
                        gtid: gtid(s, 0).into(),
                        table_p_ks: vec![],
                    })
                    .collect(),
                ..Default::default()
            })),
            ..Default::default()
        };
        // VTGate's VGTID after the transition lists the new shards instead of the old one.
        at.remove(OLD);
        for s in NEW {
            at.entry(s.to_string()).or_insert(0);
        }
        vec![
            on_shard(OLD, begin()),
            on_shard(OLD, journal),
            on_shard(OLD, vgtid_of(at)),
            on_shard(OLD, commit()),
        ]
    }
}

fn other() -> VEvent {
    VEvent {
        r#type: VEventType::Other as i32,
        keyspace: KS.into(),
        ..Default::default()
    }
}

/// The position of `shard` after `n` transactions: `MySQL56/<uuid>:1-<n>`, the uuid derived from
/// the shard's name (each shard its own primary); the empty set for 0.
pub fn gtid(shard: &str, n: i64) -> String {
    if n <= 0 {
        return "MySQL56/".into();
    }
    let mut id = [0u8; 6];
    for (i, b) in shard.bytes().take(6).enumerate() {
        id[i] = b;
    }
    let node: String = id.iter().map(|b| format!("{b:02x}")).collect();
    format!("MySQL56/00000000-0000-4000-8000-{node}:1-{n}")
}

/// [`gtid`]'s `n`; `current` and anything else → 0.
/// A VGTID entry's part as text (`bytes` in the generated types; a test's names always are).
fn text(part: &[u8]) -> &str {
    std::str::from_utf8(part).expect("a VGTID of the test is text")
}

fn parse_gtid(gtid: &str) -> i64 {
    gtid.rsplit_once('-')
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(0)
}

fn vgtid_of(at: &BTreeMap<String, i64>) -> VEvent {
    VEvent {
        r#type: VEventType::Vgtid as i32,
        keyspace: KS.into(),
        vgtid: Some(VGtid {
            shard_gtids: at
                .iter()
                .map(|(s, n)| ShardGtid {
                    keyspace: KS.into(),
                    shard: s.clone().into(),
                    gtid: gtid(s, *n).into(),
                    table_p_ks: vec![],
                })
                .collect(),
        }),
        ..Default::default()
    }
}
