// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The compact binary form of positions: what a checkpoint stores.
//!
//! Layout (all lengths and counts are unsigned LEB128 varints; strings are UTF-8):
//!
//! ```text
//! position   = magic[4] version:u8 body          magic "VCSP" (one shard) / "VCPS" (a stream)
//! stream v1  = shard_count shard_v1*
//! shard v1   = str(keyspace) str(shard) str(gtid) flags:u8
//!              table_count (str(table_name) bytes(lastpk))*
//!              to_copy_count str(table)*
//! flags      = bit 0: copy_completed; other bits must be 0 in version 1
//! str/bytes  = len payload[len]                  lastpk is the raw query.QueryResult bytes
//! ```
//!
//! A decoder accepts exactly one complete value: trailing bytes, truncation, unknown flag bits,
//! invalid UTF-8 and unknown versions are errors ([`ErrorKind::Config`](crate::ErrorKind),
//! naming what is wrong), never panics. New versions get a new `version` byte and a new
//! `decode_vN`; every older `decode_vN` stays, so positions saved by older releases keep
//! resuming.

use super::{ShardPosition, StreamPosition, TableLastPk, TableSnapshot};
use crate::error::{Error, Result};

/// Magic of a single [`ShardPosition`].
pub const SHARD_MAGIC: [u8; 4] = *b"VCSP";
/// Magic of a [`StreamPosition`] (all shards of a stream).
pub const STREAM_MAGIC: [u8; 4] = *b"VCPS";
/// The version this build writes for positions without chunked snapshots (unchanged since
/// the first release, so such positions stay readable by older releases).
pub const VERSION: u8 = 1;
/// The version written when a shard carries chunked-snapshot cursors: version 1's fields,
/// then the cursors.
pub const VERSION_SNAPSHOTS: u8 = 2;
/// Versions this build reads.
/// The version written when a capture is paused: version 2 with a flags byte per cursor.
pub const VERSION_PAUSED: u8 = 3;
pub const READABLE_VERSIONS: std::ops::RangeInclusive<u8> = 1..=3;

const FLAG_COPY_COMPLETED: u8 = 1;
const KNOWN_FLAGS_V1: u8 = FLAG_COPY_COMPLETED;

/// The oldest version that holds everything `p` carries (older readers keep reading what
/// does not need the newer fields).
fn shard_version(p: &ShardPosition) -> u8 {
    if p.snapshots.iter().any(|t| t.paused) {
        VERSION_PAUSED
    } else if !p.snapshots.is_empty() {
        VERSION_SNAPSHOTS
    } else {
        VERSION
    }
}

fn write_shard(out: &mut Vec<u8>, version: u8, p: &ShardPosition) {
    match version {
        VERSION => write_shard_v1(out, p),
        VERSION_SNAPSHOTS => write_shard_v2(out, p),
        _ => write_shard_v3(out, p),
    }
}

fn read_shard(r: &mut Reader<'_>, version: u8) -> Result<ShardPosition> {
    match version {
        1 => read_shard_v1(r),
        2 => read_shard_v2(r, false),
        3 => read_shard_v2(r, true),
        v => Err(unknown_version(v)),
    }
}

pub(super) fn encode_shard(p: &ShardPosition) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + shard_size_hint(p));
    out.extend_from_slice(&SHARD_MAGIC);
    let version = shard_version(p);
    out.push(version);
    write_shard(&mut out, version, p);
    out
}

pub(super) fn encode_stream(p: &StreamPosition) -> Vec<u8> {
    let hint: usize = p.shards.iter().map(shard_size_hint).sum();
    let mut out = Vec::with_capacity(16 + hint);
    out.extend_from_slice(&STREAM_MAGIC);
    let version = p.shards.iter().map(shard_version).max().unwrap_or(VERSION);
    out.push(version);
    write_varint(&mut out, p.shards.len() as u64);
    for s in &p.shards {
        write_shard(&mut out, version, s);
    }
    out
}

pub(super) fn decode_shard(bytes: &[u8]) -> Result<ShardPosition> {
    let mut r = Reader::new(bytes, "shard position");
    let version = r.header(&SHARD_MAGIC, &STREAM_MAGIC)?;
    let p = read_shard(&mut r, version)?;
    r.finish()?;
    Ok(p)
}

pub(super) fn decode_stream(bytes: &[u8]) -> Result<StreamPosition> {
    let mut r = Reader::new(bytes, "stream position");
    let version = r.header(&STREAM_MAGIC, &SHARD_MAGIC)?;
    if !READABLE_VERSIONS.contains(&version) {
        return Err(unknown_version(version));
    }
    let n = r.count("shard count")?;
    let mut shards = Vec::with_capacity(n);
    for _ in 0..n {
        shards.push(read_shard(&mut r, version)?);
    }
    r.finish()?;
    Ok(StreamPosition { shards })
}

fn unknown_version(v: u8) -> Error {
    Error::config(format!(
        "position bytes have format version {v}, but this vitess-cdc reads versions {}..={} — \
         the position was written by a newer vitess-cdc; resume with that version or newer",
        READABLE_VERSIONS.start(),
        READABLE_VERSIONS.end()
    ))
}

fn shard_size_hint(p: &ShardPosition) -> usize {
    24 + p.keyspace.len()
        + p.shard.len()
        + p.gtid.len()
        + p.table_p_ks
            .iter()
            .map(|t| 10 + t.table_name.len() + t.lastpk.len())
            .sum::<usize>()
        + p.tables_to_copy.iter().map(|t| 5 + t.len()).sum::<usize>()
}

fn write_shard_v1(out: &mut Vec<u8>, p: &ShardPosition) {
    write_bytes(out, p.keyspace.as_bytes());
    write_bytes(out, p.shard.as_bytes());
    write_bytes(out, p.gtid.as_bytes());
    out.push(if p.copy_completed {
        FLAG_COPY_COMPLETED
    } else {
        0
    });
    write_varint(out, p.table_p_ks.len() as u64);
    for t in &p.table_p_ks {
        write_bytes(out, t.table_name.as_bytes());
        write_bytes(out, &t.lastpk);
    }
    write_varint(out, p.tables_to_copy.len() as u64);
    for t in &p.tables_to_copy {
        write_bytes(out, t.as_bytes());
    }
}

fn read_shard_v1(r: &mut Reader<'_>) -> Result<ShardPosition> {
    let keyspace = r.string("keyspace")?;
    let shard = r.string("shard")?;
    let gtid = r.string("gtid")?;
    let flags = r.byte("flags")?;
    if flags & !KNOWN_FLAGS_V1 != 0 {
        return Err(r.corrupt(format!(
            "unknown flag bits {:#04x} in a version-1 shard position",
            flags & !KNOWN_FLAGS_V1
        )));
    }
    let n = r.count("table_p_ks count")?;
    let mut table_p_ks = Vec::with_capacity(n);
    for _ in 0..n {
        let table_name = r.string("table_p_ks table name")?;
        let lastpk = r.bytes("table_p_ks lastpk")?.to_vec();
        table_p_ks.push(TableLastPk { table_name, lastpk });
    }
    let n = r.count("tables_to_copy count")?;
    let mut tables_to_copy = Vec::with_capacity(n);
    for _ in 0..n {
        tables_to_copy.push(r.string("tables_to_copy table name")?);
    }
    Ok(ShardPosition {
        keyspace,
        shard,
        gtid,
        table_p_ks,
        tables_to_copy,
        copy_completed: flags & FLAG_COPY_COMPLETED != 0,
        snapshots: Vec::new(),
    })
}

/// Version 2: version 1's fields, then the chunked-snapshot cursors.
fn write_shard_v2(out: &mut Vec<u8>, p: &ShardPosition) {
    write_shard_v1(out, p);
    write_varint(out, p.snapshots.len() as u64);
    for t in &p.snapshots {
        write_table_snapshot(out, t);
    }
}

fn write_table_snapshot(out: &mut Vec<u8>, t: &TableSnapshot) {
    write_bytes(out, t.table.as_bytes());
    match &t.filter {
        None => out.push(0),
        Some(f) => {
            out.push(1);
            write_bytes(out, f.as_bytes());
        }
    }
    write_bytes(out, &t.after);
    write_varint(out, u64::from(t.level));
    write_varint(out, t.chunks);
    write_varint(out, t.rows);
}

/// Version 3: version 2, each cursor followed by its flags byte.
fn write_shard_v3(out: &mut Vec<u8>, p: &ShardPosition) {
    write_shard_v1(out, p);
    write_varint(out, p.snapshots.len() as u64);
    for t in &p.snapshots {
        write_table_snapshot(out, t);
        out.push(if t.paused { SNAPSHOT_FLAG_PAUSED } else { 0 });
    }
}

const SNAPSHOT_FLAG_PAUSED: u8 = 1;

/// Versions 2 and 3 (`with_flags`: each cursor has a flags byte).
fn read_shard_v2(r: &mut Reader<'_>, with_flags: bool) -> Result<ShardPosition> {
    let mut p = read_shard_v1(r)?;
    let n = r.count("snapshot count")?;
    for _ in 0..n {
        let table = r.string("snapshot table name")?;
        let filter = match r.byte("snapshot filter flag")? {
            0 => None,
            1 => Some(r.string("snapshot filter")?),
            b => return Err(r.corrupt(format!("snapshot filter flag is {b}, not 0 or 1"))),
        };
        let after = r.bytes("snapshot cursor key")?.to_vec();
        let level = r.varint("snapshot cursor level")?;
        let level = u32::try_from(level)
            .map_err(|_| r.corrupt(format!("snapshot cursor level {level} is too large")))?;
        let chunks = r.varint("snapshot chunk count")?;
        let rows = r.varint("snapshot row count")?;
        let paused = if with_flags {
            match r.byte("snapshot flags")? {
                0 => false,
                SNAPSHOT_FLAG_PAUSED => true,
                b => return Err(r.corrupt(format!("unknown snapshot flag bits {b:#04x}"))),
            }
        } else {
            false
        };
        p.snapshots.push(TableSnapshot {
            table,
            filter,
            after,
            level,
            chunks,
            rows,
            paused,
        });
    }
    Ok(p)
}

fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn write_bytes(out: &mut Vec<u8>, b: &[u8]) {
    write_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8], what: &'static str) -> Self {
        Reader { buf, pos: 0, what }
    }

    fn corrupt(&self, detail: impl std::fmt::Display) -> Error {
        Error::config(format!(
            "corrupt {} bytes ({} bytes, at offset {}): {detail} — the saved state is damaged \
             or not a vitess-cdc position; restore from another checkpoint or start over",
            self.what,
            self.buf.len(),
            self.pos
        ))
    }

    /// Checks magic and returns the version byte.
    fn header(&mut self, magic: &[u8; 4], other: &[u8; 4]) -> Result<u8> {
        if self.buf.len() < 5 {
            return Err(self.corrupt(format!(
                "too short for the header (magic {:?} + version)",
                String::from_utf8_lossy(magic)
            )));
        }
        let found = &self.buf[..4];
        if found != magic {
            let hint = if found == other {
                format!(
                    " (it is a {}; use the matching decoder)",
                    if other == &SHARD_MAGIC {
                        "single shard position"
                    } else {
                        "stream position"
                    }
                )
            } else if self.buf.first() == Some(&b'{') || self.buf.first() == Some(&b'[') {
                " (it looks like JSON; use from_json)".to_string()
            } else {
                String::new()
            };
            return Err(self.corrupt(format!(
                "bad magic {:02x?}, expected {:?}{hint}",
                found,
                String::from_utf8_lossy(magic)
            )));
        }
        self.pos = 5;
        Ok(self.buf[4])
    }

    fn byte(&mut self, field: &str) -> Result<u8> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.corrupt(format!("truncated before {field}"))),
        }
    }

    fn varint(&mut self, field: &str) -> Result<u64> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let b = self.byte(field)?;
            let bits = (b & 0x7f) as u64;
            if i == 9 && b > 1 {
                return Err(self.corrupt(format!("{field} overflows 64 bits")));
            }
            v |= bits << (7 * i);
            if b & 0x80 == 0 {
                if b == 0 && i > 0 {
                    // one value, one encoding: the bytes of a position are canonical
                    return Err(self.corrupt(format!("{field} is not minimally encoded")));
                }
                return Ok(v);
            }
        }
        Err(self.corrupt(format!("{field} overflows 64 bits")))
    }

    /// A count of elements that each take at least one byte: larger than what is left = corrupt
    /// (so a garbage count never allocates).
    fn count(&mut self, field: &str) -> Result<usize> {
        let n = self.varint(field)?;
        let left = (self.buf.len() - self.pos) as u64;
        if n > left {
            return Err(self.corrupt(format!(
                "{field} is {n} but only {left} bytes follow (truncated?)"
            )));
        }
        Ok(n as usize)
    }

    fn bytes(&mut self, field: &str) -> Result<&'a [u8]> {
        let n = self.varint(field)?;
        let left = (self.buf.len() - self.pos) as u64;
        if n > left {
            return Err(self.corrupt(format!(
                "{field} needs {n} bytes but only {left} follow (truncated?)"
            )));
        }
        let start = self.pos;
        self.pos += n as usize;
        Ok(&self.buf[start..self.pos])
    }

    fn string(&mut self, field: &str) -> Result<String> {
        let at = self.pos;
        let b = self.bytes(field)?;
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => {
                self.pos = at;
                Err(self.corrupt(format!("{field} is not valid UTF-8 ({e})")))
            }
        }
    }

    fn finish(&self) -> Result<()> {
        if self.pos != self.buf.len() {
            return Err(self.corrupt(format!(
                "{} trailing bytes after a complete position",
                self.buf.len() - self.pos
            )));
        }
        Ok(())
    }
}

impl ShardPosition {
    /// The compact, versioned binary form (see [the layout](self)).
    pub fn to_bytes(&self) -> Vec<u8> {
        encode_shard(self)
    }

    /// Decodes [`to_bytes`](Self::to_bytes) output of this or any older release. Garbage,
    /// truncated input and unknown versions are [`ErrorKind::Config`](crate::ErrorKind) errors.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<ShardPosition> {
        decode_shard(bytes).map_err(|e| e.with_code(crate::ErrorCode::InvalidPosition))
    }
}

impl StreamPosition {
    /// The compact, versioned binary form of every shard's position (see [the layout](self)).
    pub fn to_bytes(&self) -> Vec<u8> {
        encode_stream(self)
    }

    /// Decodes [`to_bytes`](Self::to_bytes) output of this or any older release.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<StreamPosition> {
        decode_stream(bytes).map_err(|e| e.with_code(crate::ErrorCode::InvalidPosition))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::binary;
    use crate::ErrorKind;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        // ASCII names, GTID-looking text, and arbitrary Unicode (4-byte UTF-8 included)
        prop_oneof![
            "[a-z_]{0,12}",
            "MySQL56/[0-9a-f-]{36}:1-[0-9]{1,9}",
            any::<String>(),
        ]
    }

    fn shard() -> impl Strategy<Value = ShardPosition> {
        (
            text(),
            prop_oneof![Just("-80".to_string()), Just("80-".to_string()), text()],
            text(),
            proptest::collection::vec(
                (text(), proptest::collection::vec(any::<u8>(), 0..200)),
                0..4,
            ),
            proptest::collection::vec(text(), 0..4),
            any::<bool>(),
            proptest::collection::vec(table_snapshot(), 0..3),
        )
            .prop_map(
                |(keyspace, shard, gtid, pks, tables_to_copy, copy_completed, snapshots)| {
                    ShardPosition {
                        keyspace,
                        shard,
                        gtid,
                        table_p_ks: pks
                            .into_iter()
                            .map(|(table_name, lastpk)| TableLastPk { table_name, lastpk })
                            .collect(),
                        tables_to_copy,
                        copy_completed,
                        snapshots,
                    }
                },
            )
    }

    fn table_snapshot() -> impl Strategy<Value = TableSnapshot> {
        (
            text(),
            proptest::option::of(text()),
            proptest::collection::vec(any::<u8>(), 0..40),
            0u32..4,
            any::<u64>(),
            any::<u64>(),
            any::<bool>(),
        )
            .prop_map(|(table, filter, after, level, chunks, rows, paused)| {
                TableSnapshot {
                    table,
                    filter,
                    after,
                    level,
                    chunks,
                    rows,
                    paused,
                }
            })
    }

    fn stream(min: usize) -> impl Strategy<Value = StreamPosition> {
        proptest::collection::vec(shard(), min..5).prop_map(|shards| StreamPosition { shards })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn binary_round_trip(p in stream(0)) {
            let bytes = p.to_bytes();
            prop_assert_eq!(StreamPosition::from_bytes(&bytes).unwrap(), p.clone());
            for s in &p.shards {
                prop_assert_eq!(&ShardPosition::from_bytes(&s.to_bytes()).unwrap(), s);
            }
        }

        #[test]
        fn json_round_trip(p in stream(1)) {
            prop_assert_eq!(StreamPosition::from_json(&p.to_json()).unwrap(), p.clone());
            let one = serde_json::to_string(&p.shards[0]).unwrap();
            prop_assert_eq!(&serde_json::from_str::<ShardPosition>(&one).unwrap(), &p.shards[0]);
        }

        #[test]
        fn every_truncation_is_an_error(p in stream(0)) {
            let bytes = p.to_bytes();
            for len in 0..bytes.len() {
                let err = StreamPosition::from_bytes(&bytes[..len]).unwrap_err();
                prop_assert_eq!(err.kind, ErrorKind::Config);
                prop_assert!(err.message.contains("corrupt stream position"), "{}", err.message);
            }
            let mut longer = bytes.clone();
            longer.push(0);
            prop_assert!(StreamPosition::from_bytes(&longer).unwrap_err().message.contains("trailing"));
        }

        #[test]
        fn garbage_never_panics(mut bytes in proptest::collection::vec(any::<u8>(), 0..300),
                                header in any::<bool>()) {
            if header && bytes.len() >= 5 {
                bytes[..4].copy_from_slice(&binary::STREAM_MAGIC);
                bytes[4] = binary::VERSION;
            }
            let _ = StreamPosition::from_bytes(&bytes);
            let _ = ShardPosition::from_bytes(&bytes);
        }

        #[test]
        fn mutations_never_panic(p in stream(1), at in any::<prop::sample::Index>(), b in any::<u8>()) {
            let mut bytes = p.to_bytes();
            let i = at.index(bytes.len());
            bytes[i] = b;
            if let Ok(decoded) = StreamPosition::from_bytes(&bytes) {
                // a mutation that still decodes re-encodes to exactly the mutated bytes
                prop_assert_eq!(decoded.to_bytes(), bytes);
            }
        }
    }

    fn sample() -> ShardPosition {
        ShardPosition {
            keyspace: "customer".into(),
            shard: "-80".into(),
            gtid: "MySQL56/u:1-5".into(),
            table_p_ks: vec![TableLastPk {
                table_name: "corder".into(),
                lastpk: vec![0, 1, 0xff],
            }],
            tables_to_copy: vec!["customer".into()],
            copy_completed: false,
            snapshots: Vec::new(),
        }
    }

    /// Version 1 bytes as written by the first release: must decode forever.
    #[test]
    fn version_1_golden_bytes_stay_decodable() {
        let golden: &[u8] = b"VCSP\x01\x08customer\x03-80\x0dMySQL56/u:1-5\x00\
              \x01\x06corder\x03\x00\x01\xff\x01\x08customer";
        assert_eq!(ShardPosition::from_bytes(golden).unwrap(), sample());
        assert_eq!(sample().to_bytes(), golden);
        let stream = StreamPosition {
            shards: vec![sample()],
        };
        let mut expected = b"VCPS\x01\x01".to_vec();
        expected.extend_from_slice(&golden[5..]);
        assert_eq!(stream.to_bytes(), expected);
    }

    /// Version 2 (a shard with chunked-snapshot cursors) as this release writes it: must decode
    /// forever; a position without cursors is still written as version 1 (above).
    #[test]
    fn version_2_golden_bytes_stay_decodable() {
        let mut p = sample();
        p.snapshots = vec![TableSnapshot {
            table: "corder".into(),
            filter: Some("`customer_id` > 5".into()),
            after: vec![1, 2, 3],
            level: 1,
            chunks: 3,
            rows: 300,
            paused: false,
        }];
        let mut golden = b"VCSP\x02".to_vec();
        golden.extend_from_slice(&sample().to_bytes()[5..]);
        golden.extend_from_slice(
            b"\x01\x06corder\x01\x11`customer_id` > 5\x03\x01\x02\x03\x01\x03\xac\x02",
        );
        assert_eq!(p.to_bytes(), golden);
        assert_eq!(ShardPosition::from_bytes(&golden).unwrap(), p);
        let stream = StreamPosition {
            shards: vec![p.clone(), sample()],
        };
        let bytes = stream.to_bytes();
        assert_eq!(bytes[4], 2);
        assert_eq!(StreamPosition::from_bytes(&bytes).unwrap(), stream);
        // The JSON form carries the cursors too.
        assert_eq!(
            StreamPosition::from_json(&stream.to_json()).unwrap(),
            stream
        );
        let mut bad = golden.clone();
        let flag = golden.len() - 27;
        assert_eq!(bad[flag], 1);
        bad[flag] = 7;
        let err = ShardPosition::from_bytes(&bad).unwrap_err();
        assert!(
            err.message.contains("snapshot filter flag is 7"),
            "{}",
            err.message
        );
    }

    /// Version 3 (a paused capture) as this release writes it: version 2's cursor plus a flags
    /// byte; an unpaused capture is still written as version 2 (above).
    #[test]
    fn version_3_golden_bytes_stay_decodable() {
        let mut p = sample();
        p.snapshots = vec![TableSnapshot {
            paused: true,
            ..TableSnapshot::whole("corder")
        }];
        let mut golden = b"VCSP\x03".to_vec();
        golden.extend_from_slice(&sample().to_bytes()[5..]);
        golden.extend_from_slice(b"\x01\x06corder\x00\x00\x00\x00\x00\x01");
        assert_eq!(p.to_bytes(), golden);
        assert_eq!(ShardPosition::from_bytes(&golden).unwrap(), p);
        let stream = StreamPosition {
            shards: vec![sample(), p.clone()],
        };
        let bytes = stream.to_bytes();
        assert_eq!(bytes[4], 3);
        assert_eq!(StreamPosition::from_bytes(&bytes).unwrap(), stream);
        let mut bad = golden.clone();
        *bad.last_mut().unwrap() = 4;
        let err = ShardPosition::from_bytes(&bad).unwrap_err();
        assert!(
            err.message.contains("unknown snapshot flag bits 0x04"),
            "{}",
            err.message
        );
    }

    #[test]
    fn clear_errors() {
        let mut bytes = sample().to_bytes();
        bytes[4] = 9;
        let err = ShardPosition::from_bytes(&bytes).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Config);
        assert!(
            err.message.contains("version 9") && err.message.contains("newer vitess-cdc"),
            "{}",
            err.message
        );

        let err = ShardPosition::from_bytes(b"").unwrap_err();
        assert!(err.message.contains("too short"), "{}", err.message);
        let json = StreamPosition {
            shards: vec![sample()],
        }
        .to_json();
        let err = StreamPosition::from_bytes(json.as_bytes()).unwrap_err();
        assert!(err.message.contains("looks like JSON"), "{}", err.message);
        let err = StreamPosition::from_bytes(&sample().to_bytes()).unwrap_err();
        assert!(
            err.message.contains("single shard position"),
            "{}",
            err.message
        );

        let mut flags = sample();
        flags.copy_completed = true;
        let mut bytes = flags.to_bytes();
        let flag_at = 5 + 1 + 8 + 1 + 3 + 1 + 13;
        assert_eq!(bytes[flag_at], 1);
        bytes[flag_at] = 0x81;
        let err = ShardPosition::from_bytes(&bytes).unwrap_err();
        assert!(err.message.contains("unknown flag bits"), "{}", err.message);

        let mut bytes = sample().to_bytes();
        bytes[6] = 0xff; // inside "customer": invalid UTF-8
        let err = ShardPosition::from_bytes(&bytes).unwrap_err();
        assert!(
            err.message.contains("keyspace is not valid UTF-8") && err.message.contains("offset 5"),
            "{}",
            err.message
        );

        // a huge count must not allocate, just fail
        let mut huge = b"VCPS\x01".to_vec();
        huge.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        let err = StreamPosition::from_bytes(&huge).unwrap_err();
        assert!(err.message.contains("shard count"), "{}", err.message);
        let mut overflow = b"VCPS\x01".to_vec();
        overflow.extend_from_slice(&[0xff; 11]);
        let err = StreamPosition::from_bytes(&overflow).unwrap_err();
        assert!(err.message.contains("overflows"), "{}", err.message);
        let err = StreamPosition::from_bytes(b"VCPS\x01\x80\x00").unwrap_err();
        assert!(err.message.contains("minimally"), "{}", err.message);
    }
}
