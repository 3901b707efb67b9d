// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Throughput of the bridge's hand-off path without a server: scripted events → `StreamHandle::poll`
//! (batch encoding + copy into the caller's buffer), as the JNI `poll` runs it minus the JNI call.
//! Prints figures; asserts nothing. Run:
//! `cargo run --release -p vitess-cdc-jni --example bridge_bench [rows] [buffer_bytes]`

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use vitess_cdc_core::event::{ChangeEvent, Column, ColumnType, RowKind, TableSchema};
use vitess_cdc_core::{Event, Result, Value};
use vitess_cdc_jni::stream::{EventSource, PollOutcome, StreamHandle};

struct Scripted(Mutex<VecDeque<Vec<Event>>>);

impl EventSource for Scripted {
    fn poll(&self, _timeout: Duration) -> Result<Vec<Event>> {
        Ok(self.0.lock().unwrap().pop_front().unwrap_or_default())
    }
    fn close(&self) {}
}

fn column(name: &str, column_type: ColumnType, pk: bool) -> Column {
    Column {
        name: name.into(),
        column_type,
        mysql_type: String::new(),
        vitess_type: 0,
        charset: 255,
        length: 0,
        decimals: 0,
        nullable: !pk,
        primary_key: pk,
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rows: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    let buffer: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1 << 20);

    let schema = Arc::new(TableSchema {
        keyspace: "customer".into(),
        shard: "-80".into(),
        table: "customer".into(),
        columns: vec![
            column("customer_id", ColumnType::Int, true),
            column("email", ColumnType::String, false),
            column("name", ColumnType::String, false),
            column("balance", ColumnType::Decimal, false),
            column("visits", ColumnType::Int, false),
            column("updated_at", ColumnType::DateTime, false),
        ],
        version: 1,
    });
    // Source batches of 1000 events, like a busy VStream; a mark after every 10 rows.
    let mut script = VecDeque::new();
    let mut chunk = Vec::with_capacity(1100);
    for i in 0..rows {
        chunk.push(Event::Change(ChangeEvent {
            schema: schema.clone(),
            kind: RowKind::Insert,
            values: vec![
                Value::Int(i as i64),
                Value::String(format!("user{i}@example.com").into()),
                Value::String("Some Name".into()),
                Value::Decimal("1234.56".into()),
                Value::Int(7),
                Value::DateTime {
                    year: 2026,
                    month: 1,
                    day: 2,
                    hour: 3,
                    minute: 4,
                    second: 5,
                    micros: 6,
                },
            ],
            commit_ts_millis: 1_700_000_000_000,
            is_snapshot: false,
            gtid: None,
        }));
        if chunk.len() >= 1000 {
            script.push_back(std::mem::take(&mut chunk));
        }
    }
    script.push_back(chunk);
    let handle = StreamHandle::new(Scripted(Mutex::new(script)));
    let mut out = vec![0u8; buffer];

    let start = Instant::now();
    let (mut batches, mut bytes) = (0u64, 0u64);
    loop {
        match handle.poll(&mut out, Duration::ZERO).unwrap() {
            PollOutcome::Batch(n) => {
                batches += 1;
                bytes += n as u64;
            }
            PollOutcome::Timeout | PollOutcome::End => break,
            PollOutcome::NeedCapacity(n) => {
                panic!("buffer of {buffer} too small for one event ({n})")
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "bridge_bench: {rows} rows, buffer {buffer} B: {batches} batches, {:.1} MB, {:.3} s, \
         {:.2} M rows/s, {:.0} MB/s, {:.0} ns/row, {:.1} us/batch",
        bytes as f64 / 1e6,
        secs,
        rows as f64 / secs / 1e6,
        bytes as f64 / secs / 1e6,
        secs * 1e9 / rows as f64,
        secs * 1e6 / batches as f64
    );
}
