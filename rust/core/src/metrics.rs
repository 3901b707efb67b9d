// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Counters of one stream, updated by the reader task and read by anyone (CLI, JNI, tests).
//! Plain atomics: a snapshot is not one consistent cut, but each counter is exact.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;

#[derive(Debug, Default)]
pub struct Metrics {
    events: AtomicU64,
    bytes: AtomicU64,
    changes: AtomicU64,
    transactions: AtomicU64,
    reconnects: AtomicU64,
    copy_resumes: AtomicU64,
    lag_millis: AtomicI64,
    last_event_millis: AtomicI64,
    /// Rows copied, by keyspace, then table: looked up by `&str` on every copied ROW event
    /// without building a key (the snapshot joins them as `keyspace.table`).
    rows_copied: Mutex<HashMap<String, HashMap<String, u64>>>,
}

/// A copy of every counter at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetricsSnapshot {
    /// VEvents received from VTGate (all types).
    pub events: u64,
    /// Protobuf bytes received from VTGate.
    pub bytes: u64,
    /// Row changes handed to the consumer (an UPDATE counts once).
    pub changes: u64,
    /// Committed transactions (and copy batches) seen.
    pub transactions: u64,
    /// Reconnects after retryable errors.
    pub reconnects: u64,
    /// Reconnects while a shard was still copying: copies cut (by the server's copy-phase limit,
    /// a query killer, the network) and resumed from their last primary key.
    pub copy_resumes: u64,
    /// Replication lag of the latest timed event: tablet clock minus binlog event time (ms).
    pub lag_millis: i64,
    /// Wall-clock time (ms since epoch) when the last response arrived; 0 = none yet.
    pub last_event_millis: i64,
    /// Rows copied by the snapshot phase, per `keyspace.table`.
    pub rows_copied: BTreeMap<String, u64>,
}

impl Metrics {
    pub fn record_response(&self, events: usize, bytes: usize) {
        self.events.fetch_add(events as u64, Ordering::Relaxed);
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        self.last_event_millis.store(now, Ordering::Relaxed);
    }
    pub fn record_copy_resume(&self) {
        self.copy_resumes.fetch_add(1, Ordering::Relaxed);
    }
    pub fn record_changes(&self, n: u64) {
        self.changes.fetch_add(n, Ordering::Relaxed);
    }
    pub fn record_transaction(&self) {
        self.transactions.fetch_add(1, Ordering::Relaxed);
    }
    pub fn record_reconnect(&self) {
        self.reconnects.fetch_add(1, Ordering::Relaxed);
    }
    /// `timestamp_secs`: binlog event time; `current_time_nanos`: tablet clock when sent.
    pub fn record_lag(&self, timestamp_secs: i64, current_time_nanos: i64) {
        if timestamp_secs > 0 && current_time_nanos > 0 {
            let lag = current_time_nanos / 1_000_000 - timestamp_secs * 1000;
            self.lag_millis.store(lag.max(0), Ordering::Relaxed);
        }
    }
    pub fn record_rows_copied(&self, keyspace: &str, table: &str, rows: u64) {
        if let Ok(mut map) = self.rows_copied.lock() {
            if let Some(n) = map.get_mut(keyspace).and_then(|t| t.get_mut(table)) {
                *n += rows;
                return;
            }
            *map.entry(keyspace.to_string())
                .or_default()
                .entry(table.to_string())
                .or_default() += rows;
        }
    }
    pub fn snapshot(&self) -> MetricsSnapshot {
        MetricsSnapshot {
            events: self.events.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            changes: self.changes.load(Ordering::Relaxed),
            transactions: self.transactions.load(Ordering::Relaxed),
            reconnects: self.reconnects.load(Ordering::Relaxed),
            copy_resumes: self.copy_resumes.load(Ordering::Relaxed),
            lag_millis: self.lag_millis.load(Ordering::Relaxed),
            last_event_millis: self.last_event_millis.load(Ordering::Relaxed),
            rows_copied: self
                .rows_copied
                .lock()
                .map(|m| {
                    m.iter()
                        .flat_map(|(keyspace, tables)| {
                            tables
                                .iter()
                                .map(move |(table, n)| (format!("{keyspace}.{table}"), *n))
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_accumulate() {
        let m = Metrics::default();
        m.record_response(3, 100);
        m.record_response(2, 50);
        m.record_rows_copied("ks", "t", 10);
        m.record_rows_copied("ks", "t", 5);
        m.record_lag(1_000, 1_002_500_000_000);
        let s = m.snapshot();
        assert_eq!((s.events, s.bytes), (5, 150));
        assert_eq!(s.rows_copied.get("ks.t"), Some(&15));
        assert_eq!(s.lag_millis, 2_500);
        assert!(s.last_event_millis > 0);
    }
}
