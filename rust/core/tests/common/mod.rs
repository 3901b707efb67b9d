//! Helpers shared by the integration tests: a materialized view of the stream (upserts and
//! deletes keyed by primary key) to compare with the source, and a poll loop with a deadline.
#![allow(dead_code)]

pub mod scripted;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{ChangeEvent, Event, RowKind, ShardPosition, Value};

/// Rows by (table, primary key), as a sink that applies the changelog would hold them.
#[derive(Default, Debug)]
pub struct Materialized {
    pub rows: BTreeMap<(String, Vec<String>), Vec<Value>>,
    /// Snapshot rows received per (table, primary key): > 1 means a row was copied twice.
    pub copied: BTreeMap<(String, Vec<String>), u32>,
    pub changes: u64,
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
        match c.kind {
            RowKind::Insert | RowKind::UpdateAfter => {
                self.rows.insert(key, c.values.clone());
            }
            RowKind::Delete | RowKind::UpdateBefore => {
                self.rows.remove(&key);
            }
        }
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

pub fn marks(events: &[Event]) -> BTreeMap<String, ShardPosition> {
    let mut out = BTreeMap::new();
    for e in events {
        if let Event::Mark(p) = e {
            out.insert(p.shard.clone(), p.clone());
        }
    }
    out
}
