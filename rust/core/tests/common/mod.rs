// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Helpers shared by the integration tests: a materialized view of the stream (upserts and
//! deletes keyed by primary key) to compare with the source, which also checks that the stream
//! is a strict changelog, and a poll loop with a deadline.
#![allow(dead_code)]

pub mod certs;
pub mod cluster;
pub mod live;
pub mod scripted;
pub mod timeouts;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{ChangeEvent, Event, RowKind, ShardPosition, StreamOptions, Value};

/// Rows by (table, primary key), as a sink that applies the changelog would hold them.
#[derive(Default, Debug)]
pub struct Materialized {
    pub rows: BTreeMap<(String, Vec<String>), Vec<Value>>,
    /// Snapshot rows received per (table, primary key): > 1 means a row was copied twice.
    pub copied: BTreeMap<(String, Vec<String>), u32>,
    pub changes: u64,
    /// Strict-changelog violations (docs/architecture.md, invariant 9): an insert of a present key, a delete or
    /// update-before that does not retract exactly the row last emitted for its key, an
    /// update-after without its update-before.
    pub violations: Vec<String>,
    /// Keys whose update-before was seen and whose update-after must come next.
    open_updates: BTreeMap<(String, Vec<String>), ()>,
}

pub fn key_of(c: &ChangeEvent) -> (String, Vec<String>) {
    let pk = c
        .schema
        .primary_key_indexes()
        .into_iter()
        .map(|i| format!("{:?}", c.values[i]))
        .collect();
    (c.schema.table.clone(), pk)
}

impl Materialized {
    pub fn apply(&mut self, c: &ChangeEvent) {
        self.changes += 1;
        let key = key_of(c);
        if c.is_snapshot {
            *self.copied.entry(key.clone()).or_default() += 1;
        }
        let open = self.open_updates.remove(&key).is_some();
        if open && c.kind != RowKind::UpdateAfter {
            self.violate(
                c,
                &key,
                "follows an update-before of its key without the update-after",
            );
        }
        match c.kind {
            // A chunked snapshot's row: the key's state at the chunk's snapshot, an upsert.
            RowKind::SnapshotRead => {
                self.rows.insert(key, c.values.clone());
            }
            RowKind::Insert | RowKind::UpdateAfter => {
                if c.kind == RowKind::Insert && self.rows.contains_key(&key) {
                    self.violate(c, &key, "inserts a key that is present");
                }
                if c.kind == RowKind::UpdateAfter && !open {
                    self.violate(c, &key, "is an update-after without its update-before");
                }
                self.rows.insert(key, c.values.clone());
            }
            RowKind::Delete | RowKind::UpdateBefore => {
                match self.rows.remove(&key) {
                    None => self.violate(c, &key, "retracts a key that was not emitted"),
                    Some(last) if last != c.values => self.violate(
                        c,
                        &key,
                        &format!("retracts {:?}, not the row last emitted {last:?}", c.values),
                    ),
                    Some(_) => {}
                }
                if c.kind == RowKind::UpdateBefore {
                    self.open_updates.insert(key, ());
                }
            }
        }
    }

    fn violate(&mut self, c: &ChangeEvent, key: &(String, Vec<String>), what: &str) {
        if self.violations.len() < 50 {
            self.violations.push(format!(
                "{:?} of {}.{} key {:?} (shard {}, snapshot {}) {what}",
                c.kind, c.schema.keyspace, key.0, key.1, c.schema.shard, c.is_snapshot
            ));
        }
    }

    /// Fails the test with the violations found, if any.
    pub fn assert_strict(&self) {
        assert!(
            self.violations.is_empty() && self.open_updates.is_empty(),
            "the stream is not a strict changelog ({} violations, {} updates without their after image): {:#?}",
            self.violations.len(),
            self.open_updates.len(),
            self.violations
        );
    }

    /// Rows of `table` whose first primary-key column is an Int within `ids`.
    pub fn ids(&self, table: &str, ids: std::ops::Range<i64>) -> Vec<i64> {
        self.rows
            .iter()
            .filter(|((t, _), _)| t == table)
            .filter_map(|(_, v)| match v.first() {
                Some(Value::Int(i)) if ids.contains(i) => Some(*i),
                _ => None,
            })
            .collect()
    }
}

/// Polls until `done` says so, applying changes; fails the test after `deadline`.
pub fn poll_until(
    stream: &BlockingStream,
    view: &mut Materialized,
    deadline: Duration,
    mut done: impl FnMut(&Event, &Materialized) -> bool,
) -> Vec<Event> {
    let started = Instant::now();
    let mut seen = Vec::new();
    loop {
        assert!(
            started.elapsed() < deadline,
            "timed out after {deadline:?}; last events: {:?}",
            seen.iter().rev().take(5).collect::<Vec<_>>()
        );
        let events = stream.poll(Duration::from_millis(200)).expect("poll");
        for e in events {
            if let Event::Change(c) = &e {
                view.apply(c);
            }
            let stop = done(&e, view);
            seen.push(e);
            if stop {
                return seen;
            }
        }
    }
}

/// Like [`poll_until`], but every event of every batch polled is applied, also those after the
/// one that satisfied `done`: for a caller that goes on reading, so nothing between two waits is
/// lost (`poll_until` leaves the rest of its last batch unread, for callers that take the
/// position as of the event it stopped at).
pub fn poll_through(
    stream: &BlockingStream,
    view: &mut Materialized,
    deadline: Duration,
    mut done: impl FnMut(&Event, &Materialized) -> bool,
) {
    let started = Instant::now();
    let mut reached = false;
    while !reached {
        assert!(started.elapsed() < deadline, "timed out after {deadline:?}");
        for e in stream.poll(Duration::from_millis(200)).expect("poll") {
            if let Event::Change(c) = &e {
                view.apply(c);
            }
            reached |= done(&e, view);
        }
    }
}

pub fn marks(events: &[Event]) -> BTreeMap<String, ShardPosition> {
    let mut out = BTreeMap::new();
    for e in events {
        if let Event::Mark(p) = e {
            out.insert(p.shard.clone(), p.clone());
        }
    }
    out
}

/// Opens a stream that must fail, at the open or at its first polls, within
/// [`timeouts::CONNECTION_FAILS_WITHIN`] and before any row arrives, with a message containing
/// every one of `needles` (case-insensitive); returns the error (its message is printed, for the
/// docs' lists of what a user sees).
pub fn assert_stream_fails(o: StreamOptions, needles: &[&str]) -> vitess_cdc_core::Error {
    let started = Instant::now();
    let err = match BlockingStream::open(o) {
        Err(e) => e,
        Ok(stream) => loop {
            assert!(
                started.elapsed() < timeouts::CONNECTION_FAILS_WITHIN,
                "expected a failure, the stream kept running"
            );
            match stream.poll(Duration::from_millis(100)) {
                Err(e) => break e,
                Ok(events) => assert!(
                    !events.iter().any(|e| matches!(e, Event::Change(_))),
                    "rows arrived although the connection must fail: {events:?}"
                ),
            }
        },
    };
    let text = err.full_message().to_lowercase();
    for n in needles {
        assert!(
            text.contains(&n.to_lowercase()),
            "error does not mention '{n}': {}",
            err.full_message()
        );
    }
    assert!(
        started.elapsed() < timeouts::CONNECTION_FAILS_WITHIN,
        "the failure took {:?}",
        started.elapsed()
    );
    eprintln!("expected failure: {}", err.full_message());
    err
}
