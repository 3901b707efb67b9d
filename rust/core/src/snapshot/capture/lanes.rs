// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A table's range on a shard split in advance into lanes, so that several of its chunks read
//! side by side (one chunk after another per lane, the lanes at once).
//!
//! Boundaries come from the shard itself: `min` and `max` of the first key column, asked of the
//! shard's primary (two index dives, no scan, no lock; the primary knows every table, where a
//! replica may not know a new one yet and would fail, or learn it from the query, before the
//! chunks that must fall back to the primary for it), and the span between them cut into equal
//! parts. That fits integer keys, which a shard holds spread evenly over their
//! span when the keyspace is sharded by a hash of the key (and a sequence fills densely when it
//! is not); a key whose first column is not an integer is read in one lane, as is a range that
//! resumes inside a composite key (its cursor fixes leading columns). Stepping through the key
//! with `LIMIT … OFFSET` finds exact boundaries but reads the index up to each one: for a
//! million rows per shard it costs more than the boundaries save (docs/snapshots.md).
//!
//! The lanes change only the reading: chunks are emitted in key order (the merge holds a later
//! lane's chunks until the lanes before it are read), so a position keeps one cursor per table,
//! and a resumed capture splits what remains again.

use super::{CaptureStream, Lane};
use crate::keyorder::ColumnOrder;
use crate::snapshot::key::ChunkRange;
use crate::value::Value;
use std::time::Duration;

/// How long the bounds query may take before the table is read in one lane.
const BOUNDS_TIMEOUT: Duration = Duration::from_secs(5);

impl CaptureStream {
    /// Plans the lanes of every capture that has not started reading yet on a shard that can
    /// read chunks. A failed or slow bounds query leaves the table in one lane (slower, never
    /// wrong).
    pub(super) async fn plan_lanes(&mut self) {
        let due: Vec<(String, String)> = self
            .shards
            .iter()
            .filter(|(_, s)| s.log.copy_completed && !s.ended)
            .flat_map(|(shard, s)| {
                s.tables
                    .iter()
                    .filter(|(_, t)| !t.planned && !t.paused)
                    .map(move |(table, _)| (shard.clone(), table.clone()))
            })
            .collect();
        for (shard, table) in due {
            let lanes = self.lanes_for(&shard, &table).await;
            let s = self.shards.get_mut(&shard).expect("shard");
            s.progress.lanes += lanes.as_ref().map_or(1, Vec::len) as u64;
            let st = s.tables.get_mut(&table).expect("a planned table");
            st.planned = true;
            if let Some(lanes) = lanes {
                tracing::info!(table = %table, shard = %shard, lanes = lanes.len(),
                    bounds = ?lanes.iter().filter_map(|l| l.next.as_ref()?.until.clone()).collect::<Vec<_>>(),
                    "the table's range on the shard is read in lanes side by side");
                st.lanes = lanes;
            }
        }
    }

    /// The lanes of a capture, `None` = one lane (as it is).
    async fn lanes_for(&self, shard: &str, table: &str) -> Option<Vec<Lane>> {
        let st = &self.shards[shard].tables[table];
        let [lane] = st.lanes.as_slice() else {
            return None;
        };
        let range = lane.next.as_ref()?;
        if lane.reading.is_some() || st.unmerged > 0 || range.level > 0 || range.until.is_some() {
            return None;
        }
        let wanted = wanted_lanes(
            self.snap.lanes.min(self.snap.chunks_in_flight),
            st.estimated_rows,
            self.snap.chunk_rows,
        );
        let order = st.key.order.columns.first()?;
        if wanted < 2 || !matches!(order, ColumnOrder::Signed | ColumnOrder::Unsigned) {
            return None;
        }
        let column = st.key.names.first()?.clone();
        let target = format!("{}:{shard}", self.options.keyspace);
        let asked = tokio::time::timeout(
            BOUNDS_TIMEOUT,
            self.client.column_bounds(&target, table, &column),
        )
        .await;
        let (min, max) = match asked {
            Ok(Ok(Some(bounds))) => bounds,
            Ok(Ok(None)) => return None,
            Ok(Err(e)) => {
                tracing::info!(table = %table, shard = %shard, error = %e.message,
                    "the key's bounds could not be read: the table is read in one lane");
                return None;
            }
            Err(_) => {
                tracing::info!(table = %table, shard = %shard,
                    "the key's bounds took over {BOUNDS_TIMEOUT:?}: the table is read in one lane");
                return None;
            }
        };
        let parse = |s: &str| s.trim().parse::<i128>().ok();
        let (min, max) = (parse(&min)?, parse(&max)?);
        // The range starts after its cursor (a resumed capture) or before the lowest key.
        let after = match &range.after {
            Some(key) => match key.first()? {
                Value::Int(n) => i128::from(*n),
                Value::UInt(n) => i128::from(*n),
                _ => return None,
            },
            None => min - 1,
        };
        let bounds = boundaries(after, max, wanted);
        if bounds.is_empty() {
            return None;
        }
        let value = |n: i128| match order {
            ColumnOrder::Unsigned => u64::try_from(n).ok().map(Value::UInt),
            _ => i64::try_from(n).ok().map(Value::Int),
        };
        let mut lanes = Vec::with_capacity(bounds.len() + 1);
        let mut start = range.clone();
        for b in bounds {
            let b = value(b)?;
            lanes.push(Lane::new(start.in_lane(Some(b.clone()))));
            start = ChunkRange::after(vec![b]);
        }
        lanes.push(Lane::new(start));
        Some(lanes)
    }
}

/// Lanes for a table on a shard: `most`, fewer when the shard's
/// estimate says the table fills fewer chunks (an unknown or zero estimate — fresh statistics
/// lag — does not limit them).
pub(super) fn wanted_lanes(most: usize, estimated_rows: Option<u64>, chunk_rows: usize) -> usize {
    match estimated_rows {
        Some(rows) if rows > 0 => most.min(rows.div_ceil(chunk_rows.max(1) as u64) as usize),
        _ => most,
    }
}

/// Inner boundaries cutting the keys in (`after`, `max`] into `lanes` equal spans, each lane
/// ending at a boundary (inclusive); empty when the span is too short to cut.
pub(super) fn boundaries(after: i128, max: i128, lanes: usize) -> Vec<i128> {
    let span = max - after;
    let lanes = lanes as i128;
    if lanes < 2 || span < lanes {
        return Vec::new();
    }
    (1..lanes).map(|i| after + span * i / lanes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_cut_the_span_into_equal_lanes() {
        // Keys 1..=100 after "before the lowest" (0): lanes (0,25], (25,50], (50,75], (75,100].
        assert_eq!(boundaries(0, 100, 4), vec![25, 50, 75]);
        // A resumed cursor: what remains after 60.
        assert_eq!(boundaries(60, 100, 2), vec![80]);
        // Negative and extreme keys do not overflow.
        assert_eq!(
            boundaries(i128::from(i64::MIN) - 1, i128::from(i64::MAX), 2),
            vec![-1]
        );
        assert_eq!(
            boundaries(-1, i128::from(u64::MAX), 2),
            vec![i128::from(u64::MAX / 2)]
        );
        // Too few keys to cut, or one lane wanted.
        assert!(boundaries(0, 3, 4).is_empty());
        assert!(boundaries(0, 100, 1).is_empty());
    }

    #[test]
    fn the_estimate_limits_lanes_only_when_known() {
        assert_eq!(wanted_lanes(4, Some(1_000_000), 50_000), 4);
        assert_eq!(wanted_lanes(4, Some(60_000), 50_000), 2);
        assert_eq!(wanted_lanes(4, Some(10), 50_000), 1);
        assert_eq!(wanted_lanes(4, None, 50_000), 4);
        assert_eq!(wanted_lanes(4, Some(0), 50_000), 4);
    }
}
