// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Captures across a reshard: what a new shard still has to capture, from the cursors its
//! predecessors' streams ended with (pure logic).
//!
//! A shard that reaches a reshard journal during a capture ends with a mark that carries each
//! capture's cursor ([`crate::position::TableSnapshot`]): every key up to it was emitted. The
//! rows of a new shard come from the old shards whose key ranges overlap its own. Per table:
//! - **one predecessor** (a split): the new shard goes on from that cursor. Its rows up to the
//!   cursor were emitted by the old shard, and every change after the old shard's end comes
//!   from the new shard's log; its rows after it are read by the new shard's chunks.
//! - **several predecessors** (a merge, or an uneven reshard): the new shard goes on from the
//!   lowest cursor. Rows between the lowest and a higher cursor are read again: a snapshot read
//!   of the key's current state, which an upsert consumer applies as it is (no key goes back in
//!   time: the chunk is merged with the new shard's log as always). The lowest is known exactly
//!   for one-column integer keys; for other keys the new shard captures the table from its start
//!   unless every cursor is the same.
//! - a predecessor without the table's capture (finished there, or never started) adds nothing:
//!   its rows were emitted, or will be by the others' ranges read again.
//!
//! A capture paused on any predecessor stays paused. Captures queued behind a running one are
//! carried once each. Progress counters start again at 0 on the new shards (a split cannot tell
//! which new shard the old counts belong to).

use crate::error::{Error, ErrorCode, Result};
use crate::position::{ShardPosition, TableSnapshot};
use crate::snapshot::key::decode_key;
use crate::value::Value;

/// A shard's key range: `[start, end)` in keyspace-id bytes, `end` empty = to the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    pub start: Vec<u8>,
    pub end: Vec<u8>,
}

impl KeyRange {
    /// The range a shard name stands for: `-80`, `40-80`, `80-`; `0` and `-` are the whole
    /// keyspace (an unsharded keyspace's one shard).
    pub fn of_shard(name: &str) -> Result<KeyRange> {
        let invalid = || {
            Error::config(format!(
                "'{name}' is not a shard name (START-END in hex, e.g. -80, 40-80, 80-, or 0)"
            ))
            .with_code(ErrorCode::InvalidPosition)
        };
        if name == "0" || name == "-" {
            return Ok(KeyRange {
                start: Vec::new(),
                end: Vec::new(),
            });
        }
        let (start, end) = name.split_once('-').ok_or_else(invalid)?;
        let hex = |s: &str| -> Result<Vec<u8>> {
            if !s.len().is_multiple_of(2) {
                return Err(invalid());
            }
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| invalid()))
                .collect()
        };
        Ok(KeyRange {
            start: hex(start)?,
            end: hex(end)?,
        })
    }

    /// Whether the two ranges share a keyspace id.
    pub fn overlaps(&self, other: &KeyRange) -> bool {
        let below = |start: &[u8], end: &[u8]| end.is_empty() || start < end;
        below(&self.start, &other.end) && below(&other.start, &self.end)
    }
}

/// `started` (a new shard's start position from a journal) with the captures it goes on with,
/// from the final positions of the shards that ended at the journal (those that do not overlap
/// it are ignored).
pub fn carry_captures(started: &ShardPosition, ended: &[ShardPosition]) -> Result<ShardPosition> {
    let range = KeyRange::of_shard(&started.shard)?;
    let mut running: Vec<Vec<TableSnapshot>> = Vec::new();
    let mut queued: Vec<TableSnapshot> = Vec::new();
    for p in ended {
        if p.keyspace != started.keyspace || !KeyRange::of_shard(&p.shard)?.overlaps(&range) {
            continue;
        }
        let mut seen: Vec<&str> = Vec::new();
        for s in &p.snapshots {
            if seen.contains(&s.table.as_str()) {
                // A capture queued behind the running one of its table (positions list those
                // after the running ones).
                if !queued
                    .iter()
                    .any(|q| q.table == s.table && q.filter == s.filter)
                {
                    queued.push(TableSnapshot {
                        filter: s.filter.clone(),
                        paused: s.paused,
                        ..TableSnapshot::whole(&s.table)
                    });
                }
                continue;
            }
            seen.push(&s.table);
            match running.iter_mut().find(|r| r[0].table == s.table) {
                Some(r) => r.push(s.clone()),
                None => running.push(vec![s.clone()]),
            }
        }
    }
    let mut out = started.clone();
    out.snapshots = running
        .into_iter()
        .map(|cursors| lowest(&cursors))
        .collect::<Result<Vec<_>>>()?;
    out.snapshots.extend(queued);
    Ok(out)
}

/// The capture that covers every cursor of `cursors` (one table's, from several shards).
fn lowest(cursors: &[TableSnapshot]) -> Result<TableSnapshot> {
    let first = &cursors[0];
    let paused = cursors.iter().any(|c| c.paused);
    let restart = TableSnapshot {
        filter: first.filter.clone(),
        paused,
        ..TableSnapshot::whole(&first.table)
    };
    let carried = |c: &TableSnapshot| TableSnapshot {
        table: c.table.clone(),
        filter: first.filter.clone(),
        after: c.after.clone(),
        level: c.level,
        chunks: 0,
        rows: 0,
        paused,
    };
    if cursors
        .iter()
        .all(|c| c.after == first.after && c.level == first.level)
    {
        return Ok(carried(first));
    }
    // Nothing emitted yet on one of them: the start of the table is the lowest.
    if cursors.iter().any(|c| c.after.is_empty()) {
        return Ok(restart);
    }
    let mut keys = Vec::with_capacity(cursors.len());
    for c in cursors {
        match decode_key(&c.after)?.as_slice() {
            [Value::Int(n)] => keys.push((i128::from(*n), c)),
            [Value::UInt(n)] => keys.push((i128::from(*n), c)),
            // The order of other keys (text under a collation, several columns) is MySQL's
            // to know; reading the table again from its start is always right.
            _ => return Ok(restart),
        }
    }
    let (_, lowest) = keys
        .into_iter()
        .min_by_key(|(key, _)| *key)
        .expect("at least one cursor");
    Ok(carried(lowest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::key::encode_key;

    fn position(shard: &str, snapshots: Vec<TableSnapshot>) -> ShardPosition {
        ShardPosition {
            keyspace: "ks".into(),
            shard: shard.into(),
            gtid: "MySQL56/00000000-0000-0000-0000-000000000001:1-10".into(),
            table_p_ks: Vec::new(),
            tables_to_copy: Vec::new(),
            copy_completed: true,
            snapshots,
        }
    }

    fn at(table: &str, key: &[Value]) -> TableSnapshot {
        TableSnapshot {
            after: encode_key(key),
            chunks: 7,
            rows: 700,
            ..TableSnapshot::whole(table)
        }
    }

    #[test]
    fn shard_names_are_key_ranges() {
        let r = |s| KeyRange::of_shard(s).unwrap();
        assert_eq!(
            r("-80"),
            KeyRange {
                start: vec![],
                end: vec![0x80]
            }
        );
        assert_eq!(
            r("40-80"),
            KeyRange {
                start: vec![0x40],
                end: vec![0x80]
            }
        );
        assert_eq!(
            r("0"),
            KeyRange {
                start: vec![],
                end: vec![]
            }
        );
        assert!(r("-80").overlaps(&r("40-80")));
        assert!(!r("-40").overlaps(&r("40-80")));
        assert!(r("0").overlaps(&r("c0-")));
        assert!(r("-").overlaps(&r("-80")));
        assert!(!r("80-").overlaps(&r("-80")));
        assert!(r("55-aa").overlaps(&r("80-")));
        for bad in ["x", "8-", "-zz", ""] {
            assert!(KeyRange::of_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_split_goes_on_from_its_predecessors_cursor_on_each_new_shard() {
        let ended = [position("-80", vec![at("t", &[Value::Int(500)])])];
        for new in ["-40", "40-80"] {
            let carried = carry_captures(&position(new, vec![]), &ended).unwrap();
            assert_eq!(carried.shard, new);
            assert_eq!(carried.gtid, ended[0].gtid, "the journal's position stays");
            assert_eq!(carried.snapshots.len(), 1);
            let s = &carried.snapshots[0];
            assert_eq!(decode_key(&s.after).unwrap(), vec![Value::Int(500)]);
            assert_eq!((s.chunks, s.rows), (0, 0), "counters start again");
        }
        let elsewhere = carry_captures(&position("80-", vec![]), &ended).unwrap();
        assert!(
            elsewhere.snapshots.is_empty(),
            "no predecessor with a capture"
        );
    }

    #[test]
    fn a_merge_goes_on_from_the_lowest_integer_cursor_or_else_from_the_start() {
        let ended = [
            position(
                "-80",
                vec![
                    at("t", &[Value::Int(900)]),
                    at("u", &[Value::String("b".into())]),
                ],
            ),
            position(
                "80-",
                vec![
                    at("t", &[Value::Int(-3)]),
                    at("u", &[Value::String("a".into())]),
                ],
            ),
        ];
        let carried = carry_captures(&position("0", vec![]), &ended).unwrap();
        let t = carried.snapshots.iter().find(|s| s.table == "t").unwrap();
        assert_eq!(decode_key(&t.after).unwrap(), vec![Value::Int(-3)]);
        let u = carried.snapshots.iter().find(|s| s.table == "u").unwrap();
        assert!(u.after.is_empty(), "text keys: from the start");
        // One predecessor that emitted nothing yet: the start.
        let fresh = [
            position("-80", vec![at("t", &[Value::Int(900)])]),
            position("80-", vec![TableSnapshot::whole("t")]),
        ];
        let carried = carry_captures(&position("0", vec![]), &fresh).unwrap();
        assert!(carried.snapshots[0].after.is_empty());
    }

    #[test]
    fn a_table_finished_on_one_predecessor_goes_on_from_the_others_cursor() {
        let ended = [
            position("-80", vec![]),
            position("80-", vec![at("t", &[Value::UInt(42)])]),
        ];
        let carried = carry_captures(&position("0", vec![]), &ended).unwrap();
        assert_eq!(
            decode_key(&carried.snapshots[0].after).unwrap(),
            vec![Value::UInt(42)]
        );
    }

    #[test]
    fn pauses_filters_and_queued_captures_carry_over() {
        let mut paused = at("t", &[Value::Int(5)]);
        paused.paused = true;
        paused.filter = Some("`id` > 0".into());
        let queued = TableSnapshot {
            filter: Some("`id` > 100".into()),
            ..TableSnapshot::whole("t")
        };
        let ended = [
            position("-80", vec![paused, queued.clone()]),
            position("80-", vec![at("t", &[Value::Int(8)]), queued]),
        ];
        let carried = carry_captures(&position("0", vec![]), &ended).unwrap();
        assert_eq!(carried.snapshots.len(), 2, "{:?}", carried.snapshots);
        let running = &carried.snapshots[0];
        assert!(running.paused, "paused on one predecessor: paused");
        assert_eq!(running.filter.as_deref(), Some("`id` > 0"));
        assert_eq!(decode_key(&running.after).unwrap(), vec![Value::Int(5)]);
        assert_eq!(carried.snapshots[1].filter.as_deref(), Some("`id` > 100"));
        assert!(carried.snapshots[1].after.is_empty());
    }

    #[test]
    fn other_keyspaces_are_not_predecessors() {
        let mut other = position("-80", vec![at("t", &[Value::Int(1)])]);
        other.keyspace = "other".into();
        let carried = carry_captures(&position("-40", vec![]), &[other]).unwrap();
        assert!(carried.snapshots.is_empty());
    }
}
