// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The batch format, encode → decode: the events the state machine makes of a fuzzed VStream
//! (see `vstream_machine`) are encoded into batches of a fuzzed size limit (so events that do not
//! fit roll back and go into the next batch, as `NativeStream.poll` does), and every batch is read
//! back with the layout of docs/batch-format.md: header, framing, table descriptors, records and
//! positions. Every event arrives exactly once, in order; a record has the column count of its
//! table; a position's bytes decode to the mark that was encoded. The decoding side here is a
//! reader of the format written from the spec, not the encoder's own code.
#![no_main]

#[path = "common.rs"]
mod common;

use std::collections::HashMap;
use vitess_cdc_core::batch::{tag, BatchEncoder, EncodeError, HEADER_LEN, MAGIC, VERSION};
use vitess_cdc_core::{Event, ShardPosition};

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        assert!(
            self.pos + n <= self.buf.len(),
            "read past the end: {} + {n} > {}",
            self.pos,
            self.buf.len()
        );
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        s
    }
    fn u8(&mut self) -> u8 {
        self.take(1)[0]
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take(2).try_into().unwrap())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take(4).try_into().unwrap())
    }
    fn bytes(&mut self) -> &'a [u8] {
        let n = self.u32() as usize;
        self.take(n)
    }
    fn str(&mut self) -> &'a str {
        std::str::from_utf8(self.bytes()).expect("str is UTF-8")
    }
    fn done(&self) -> bool {
        self.pos == self.buf.len()
    }
}

/// What one batch held, entry by entry: the tag, and for positions the decoded position.
fn read_batch(batch: &[u8], columns: &mut HashMap<u32, u16>) -> Vec<(u8, Option<ShardPosition>)> {
    let mut r = Reader { buf: batch, pos: 0 };
    assert_eq!(r.take(4), MAGIC);
    assert_eq!(r.u16(), VERSION);
    let _flags = r.u16();
    let entries = r.u32();
    assert_eq!(r.u32() as usize, batch.len() - HEADER_LEN, "body length");
    let mut out = Vec::new();
    for _ in 0..entries {
        let t = r.u8();
        let payload = r.bytes();
        let mut p = Reader {
            buf: payload,
            pos: 0,
        };
        let mut position = None;
        match t {
            tag::TABLE => {
                let id = p.u32();
                let _version = p.u32();
                let (_ks, _shard, _table) = (p.str(), p.str(), p.str());
                let n = p.u16();
                for _ in 0..n {
                    let _name = p.str();
                    let (_type, _flags) = (p.u8(), p.u8());
                    let (_vt, _cs, _len, _dec) = (p.u32(), p.u32(), p.u32(), p.u32());
                    let _mysql = p.str();
                }
                assert!(p.done(), "TABLE payload fully read");
                columns.insert(id, n);
            }
            tag::RECORD => {
                let id = p.u32();
                let n = *columns
                    .get(&id)
                    .expect("a record's table was described before it");
                let _kind = p.u8();
                let flags = p.u8();
                let _ts = p.take(8);
                assert_eq!(p.u16(), n, "a record has its table's column count");
                let _nulls = p.take((n as usize).div_ceil(8));
                if flags & 2 == 2 {
                    let _absent = p.take((n as usize).div_ceil(8));
                }
                // The values themselves are the Java decoder's part (BatchDecoderTest).
            }
            tag::POSITION => {
                let (ks, shard) = (p.str().to_string(), p.str().to_string());
                let facts = p.u8();
                let decoded = ShardPosition::from_bytes(p.bytes()).expect("position bytes decode");
                // The transaction count appended within version 2: present exactly when the GTID
                // set is countable, and then the count of the decoded position's set.
                if let Ok(count) = decoded.transaction_count() {
                    let carried = u64::from_le_bytes(p.take(8).try_into().unwrap());
                    assert_eq!(carried, count, "the mark's transaction count");
                }
                assert!(p.done(), "POSITION payload fully read");
                assert_eq!(
                    (ks.as_str(), shard.as_str()),
                    (decoded.keyspace.as_str(), decoded.shard.as_str())
                );
                assert_eq!(
                    facts & 1 == 1,
                    decoded.copy_completed,
                    "the copy-completed fact"
                );
                position = Some(decoded);
            }
            _ => {}
        }
        out.push((t, position));
    }
    assert!(r.done(), "entries end where the body ends");
    out
}

fn entry_tag(e: &Event) -> Option<u8> {
    Some(match e {
        Event::Schema(_) => return None,
        Event::Change(_) => tag::RECORD,
        Event::Mark(_) => tag::POSITION,
        Event::Ddl { .. } => tag::DDL,
        Event::ShardCopyCompleted { .. } => tag::SHARD_COPY_COMPLETED,
        Event::CopyCompleted => tag::COPY_COMPLETED,
        Event::Heartbeat { .. } => tag::HEARTBEAT,
        Event::Journal { .. } => tag::JOURNAL,
        Event::End => tag::END,
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&size, rest)) = data.split_first() else {
        return;
    };
    let events = common::run_machine(rest);
    // Small limits force events into later batches and exercise the rollback of a full batch.
    let limit = HEADER_LEN + 64 + size as usize * 16;
    let mut encoder = BatchEncoder::new();
    let mut columns = HashMap::new();
    let mut read: Vec<(u8, Option<ShardPosition>)> = Vec::new();
    encoder.begin(limit);
    let mut i = 0;
    while i < events.len() {
        match encoder.encode(&events[i]) {
            Ok(()) => i += 1,
            Err(EncodeError::Full { needed }) => {
                if encoder.is_empty() {
                    // Alone it does not fit: a larger buffer, as NativeStreamReader grows it.
                    assert!(
                        needed > limit,
                        "needed {needed} but the empty batch allows {limit}"
                    );
                    encoder.begin(needed);
                    encoder
                        .encode(&events[i])
                        .expect("fits a batch of the size it asked for");
                    i += 1;
                }
                read.extend(read_batch(encoder.finish(), &mut columns));
                encoder.begin(limit);
            }
            Err(EncodeError::Unrepresentable(m)) => {
                panic!("the machine made an unrepresentable event: {m}")
            }
        }
    }
    read.extend(read_batch(encoder.finish(), &mut columns));
    let read: Vec<_> = read.into_iter().filter(|(t, _)| *t != tag::TABLE).collect();
    let expected: Vec<_> = events
        .iter()
        .filter_map(|e| entry_tag(e).map(|t| (t, e)))
        .collect();
    assert_eq!(read.len(), expected.len(), "every event exactly once");
    for ((t, position), (want, event)) in read.iter().zip(&expected) {
        assert_eq!(t, want, "events in order");
        if let (Some(p), Event::Mark(m)) = (position, event) {
            assert_eq!(p, m, "a position round-trips through its batch");
        }
    }
});
