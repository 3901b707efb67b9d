// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The positions as of the lines printed so far: what a run reports as its final position.

use std::collections::BTreeMap;
use vitess_cdc_core::{Event, ShardPosition, StreamPosition};

/// Positions exactly as of the events printed so far (a mark applies once its line was
/// written), so the reported final position resumes right after the last printed commit.
pub struct PrintedPositions(BTreeMap<(String, String), ShardPosition>);

impl PrintedPositions {
    pub fn new(start: StreamPosition) -> Self {
        PrintedPositions(
            start
                .shards
                .into_iter()
                .map(|p| ((p.keyspace.clone(), p.shard.clone()), p))
                .collect(),
        )
    }

    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::Mark(p) => {
                self.0
                    .insert((p.keyspace.clone(), p.shard.clone()), p.clone());
            }
            Event::Journal { ended, started, .. } => {
                for k in ended {
                    self.0.remove(k);
                }
                for p in started {
                    self.0
                        .insert((p.keyspace.clone(), p.shard.clone()), p.clone());
                }
            }
            _ => {}
        }
    }

    /// A run that stops at a change (`--max-changes`) applies the marks that follow it in the
    /// batch up to the next change: its commit, so the final position resumes after the change,
    /// not before it.
    pub fn apply_commit_after(&mut self, rest: &[Event]) {
        for event in rest.iter().take_while(|e| !matches!(e, Event::Change(_))) {
            self.apply(event);
        }
    }

    pub fn to_json(&self) -> String {
        StreamPosition {
            shards: self.0.values().cloned().collect(),
        }
        .to_json()
    }
}
