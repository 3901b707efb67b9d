// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Exact, resumable positions.
//!
//! A [`ShardPosition`] is everything needed to restart one shard's stream right after the last
//! committed transaction or copy batch: the GTID set, copy progress (`table_p_ks`), the tables
//! still to copy (so a resume never degrades to "stream only" in the table-switch window, see
//! docs/positions.md), and whether the shard's copy is done.
//!
//! Forms: JSON (readable, the VGTID shape users know: `{keyspace, shard, gtid, table_p_ks}` plus
//! our fields) and a versioned compact binary form. Both round-trip.

use serde::{Deserialize, Serialize};

/// Copy progress of one table: the last primary key copied, as a serialized
/// `query.QueryResult` (fields + one row), exactly as VTGate sent it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLastPk {
    pub table_name: String,
    /// Serialized `query.QueryResult` protobuf; empty = copy this table from its start.
    #[serde(with = "crate::position::base64_bytes", default)]
    pub lastpk: Vec<u8>,
}

/// One shard's resumable position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardPosition {
    pub keyspace: String,
    pub shard: String,
    /// Flavor-prefixed GTID set (`MySQL56/uuid:1-123`), `""` = copy from scratch, `current` = now.
    pub gtid: String,
    /// Tables whose copy is in progress, with their last copied primary key. While the shard's
    /// copy is unfinished, tables already copied stay listed with their final primary key, so a
    /// resume re-reads only rows added since instead of copying them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub table_p_ks: Vec<TableLastPk>,
    /// Tables not yet started by the copy phase (not including those in `table_p_ks`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables_to_copy: Vec<String>,
    /// True once this shard sent its COPY_COMPLETED (or never needed a copy).
    #[serde(default)]
    pub copy_completed: bool,
    /// Chunked snapshots in progress on this shard ([`crate::snapshot`]): what each capture has
    /// emitted so far. Empty for plain streams (whose binary form then stays version 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<TableSnapshot>,
}

/// The cursor of one table's chunked snapshot on one shard: every key up to `after` (in the
/// range of `level`, see [`crate::snapshot::key::ChunkRange`]) has been emitted; the rest is
/// read again on resume. Chunks read but not emitted are not stored: they are read again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSnapshot {
    pub table: String,
    /// The capture's own row condition (an AND of `column <op> literal` terms), `None` = the
    /// whole table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// The last key emitted ([`crate::snapshot::key::encode_key`]); empty = nothing emitted yet.
    #[serde(with = "crate::position::base64_bytes", default)]
    pub after: Vec<u8>,
    /// How many leading key columns the remaining range fixes to `after`'s values.
    #[serde(default)]
    pub level: u32,
    /// Progress so far: chunks emitted and rows emitted.
    #[serde(default)]
    pub chunks: u64,
    #[serde(default)]
    pub rows: u64,
    /// Paused by a `pause-snapshot` signal: no chunk starts until `resume-snapshot`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
}

impl TableSnapshot {
    /// A capture of all of `table` that has not emitted anything yet.
    pub fn whole(table: &str) -> TableSnapshot {
        TableSnapshot {
            table: table.to_string(),
            filter: None,
            after: Vec::new(),
            level: 0,
            chunks: 0,
            rows: 0,
            paused: false,
        }
    }
}

/// Positions of every shard of a stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StreamPosition {
    pub shards: Vec<ShardPosition>,
}

pub(crate) mod base64_bytes {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(s.as_bytes())
            .map_err(serde::de::Error::custom)
    }
}

impl ShardPosition {
    /// Whether resuming from this position still has to copy tables (a mid-copy position).
    pub fn needs_copy(&self) -> bool {
        !self.copy_completed
            && (self.gtid.is_empty()
                || !self.table_p_ks.is_empty()
                || !self.tables_to_copy.is_empty())
    }
}

impl ShardPosition {
    /// Copy progress for metrics: `(started, not_started)`, the tables the copy has started
    /// (`table_p_ks`: in progress or already copied, while the shard's copy is unfinished) and
    /// those it has not (`tables_to_copy`). Both empty once the copy is done; both empty with an
    /// empty GTID set means "copy every selected table" (none started).
    pub fn copy_tables(&self) -> (Vec<&str>, Vec<&str>) {
        if self.copy_completed {
            return (Vec::new(), Vec::new());
        }
        (
            self.table_p_ks
                .iter()
                .map(|t| t.table_name.as_str())
                .collect(),
            self.tables_to_copy.iter().map(String::as_str).collect(),
        )
    }
}

impl StreamPosition {
    pub fn get(&self, keyspace: &str, shard: &str) -> Option<&ShardPosition> {
        self.shards
            .iter()
            .find(|p| p.keyspace == keyspace && p.shard == shard)
    }

    /// Pretty JSON: `{"shards":[{keyspace, shard, gtid, table_p_ks, tables_to_copy, copy_completed}]}`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{\"shards\":[]}".to_string())
    }

    /// Parses positions from JSON. Accepts our own form (`{"shards":[...]}`), a bare array of
    /// shard positions, and the VGTID shape users know from Vitess tools
    /// (`{"shard_gtids":[{keyspace, shard, gtid}]}`, also `shardGtids`).
    pub fn from_json(text: &str) -> crate::Result<StreamPosition> {
        Self::parse_json(text).map_err(|e| e.with_code(crate::ErrorCode::InvalidPosition))
    }

    fn parse_json(text: &str) -> crate::Result<StreamPosition> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| crate::Error::config(format!("positions are not valid JSON: {e}")))?;
        let list = match &value {
            serde_json::Value::Array(_) => value.clone(),
            serde_json::Value::Object(map) => map
                .get("shards")
                .or_else(|| map.get("shard_gtids"))
                .or_else(|| map.get("shardGtids"))
                .cloned()
                .ok_or_else(|| {
                    crate::Error::config(
                        "positions JSON must be {\"shards\":[...]}, a VGTID {\"shard_gtids\":[...]}, or an array",
                    )
                })?,
            _ => return Err(crate::Error::config("positions JSON must be an object or an array")),
        };
        let shards: Vec<ShardPosition> = serde_json::from_value(list).map_err(|e| {
            crate::Error::config(format!(
                "positions JSON: {e} — every shard needs keyspace, shard and gtid (strings)"
            ))
        })?;
        if shards.is_empty() {
            return Err(crate::Error::config("positions JSON lists no shard"));
        }
        Ok(StreamPosition { shards })
    }
}

impl ShardPosition {
    /// Reads one shard position JSON that older state stored as text (the `Mark` JSON of releases
    /// before positions crossed JNI as bytes), in the context it was stored in: `keyspace` and
    /// `shard` fill the fields when the JSON lacks them and must match when it has them.
    /// Errors carry [`ErrorCode::InvalidPosition`](crate::ErrorCode::InvalidPosition).
    pub fn from_saved_json(
        keyspace: &str,
        shard: &str,
        text: &str,
    ) -> crate::Result<ShardPosition> {
        let corrupt = |detail: String| {
            crate::Error::config(format!(
                "corrupt saved position of shard {keyspace}/{shard}: {detail} — the saved state is damaged; \
                 restore from another checkpoint or start over"
            ))
            .with_code(crate::ErrorCode::InvalidPosition)
        };
        let mut value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| corrupt(format!("not JSON ({e}): {text}")))?;
        let object = value
            .as_object_mut()
            .ok_or_else(|| corrupt(format!("not a JSON object: {text}")))?;
        for (field, expected) in [("keyspace", keyspace), ("shard", shard)] {
            match object.get(field) {
                None => {
                    object.insert(field.to_string(), expected.into());
                }
                Some(serde_json::Value::String(s)) if s == expected => {}
                Some(other) => {
                    return Err(corrupt(format!(
                        "its {field} is {other}, but it was stored as the position of {expected}"
                    )))
                }
            }
        }
        serde_json::from_value(value).map_err(|e| corrupt(format!("{e}: {text}")))
    }
}

/// Facts about a position that a consumer acts on without reading the position itself: written
/// next to the position bytes in every batch mark (docs/batch-format.md) and answered for any
/// position by `facts` (the JNI bridge), so Java never parses a position.
pub mod facts {
    use super::ShardPosition;

    /// The shard's copy phase finished (or it never needed one).
    pub const COPY_COMPLETED: u8 = 1;

    /// The fact bits of `p`.
    pub fn of(p: &ShardPosition) -> u8 {
        if p.copy_completed {
            COPY_COMPLETED
        } else {
            0
        }
    }
}

/// Parses the start positions a user gives (Flink's `specific-offset`, the DataStream builder's
/// `specificOffsets`) into one position per shard, with the errors users see.
///
/// Accepts the core's own form (`{"shards":[..]}`), a VGTID (`{"shard_gtids":[..]}` or
/// `shardGtids`), or a bare array; every entry needs `shard` and `gtid` (strings); `keyspace`,
/// when present, must be `keyspace` (the source's), and is filled in when absent. A shard may be
/// listed once. Errors carry [`ErrorCode::InvalidPosition`](crate::ErrorCode::InvalidPosition).
pub fn parse_specific_offsets(keyspace: &str, text: &str) -> crate::Result<Vec<ShardPosition>> {
    let invalid = |m: String| crate::Error::config(m).with_code(crate::ErrorCode::InvalidPosition);
    let root: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        invalid(format!(
            "the specific offsets are not valid JSON ({e}): give a VGTID such as \
             {{\"shard_gtids\":[{{\"keyspace\":\"{keyspace}\",\"shard\":\"-80\",\"gtid\":\"MySQL56/...\"}}]}}"
        ))
    })?;
    let list = match &root {
        serde_json::Value::Object(map) => map
            .get("shards")
            .or_else(|| map.get("shard_gtids"))
            .or_else(|| map.get("shardGtids")),
        other => Some(other),
    };
    let entries = match list {
        Some(serde_json::Value::Array(a)) if !a.is_empty() => a,
        _ => {
            return Err(invalid(
                "the specific offsets list no shard: give a VGTID \
                 {\"shard_gtids\":[{\"keyspace\":..,\"shard\":..,\"gtid\":..}]} or the positions a \
                 checkpoint/positionsJson() showed"
                    .to_string(),
            ))
        }
    };
    let mut out: Vec<ShardPosition> = Vec::with_capacity(entries.len());
    for entry in entries {
        let mut object = match entry {
            serde_json::Value::Object(o)
                if o.get("shard").is_some_and(|v| v.is_string())
                    && o.get("gtid").is_some_and(|v| v.is_string()) =>
            {
                o.clone()
            }
            _ => {
                return Err(invalid(format!(
                    "every entry of the specific offsets needs string fields \"shard\" and \"gtid\", got {entry}"
                )))
            }
        };
        match object.get("keyspace").and_then(|v| v.as_str()) {
            None | Some("") => {
                object.insert("keyspace".into(), keyspace.into());
            }
            Some(ks) if ks == keyspace => {}
            Some(ks) => {
                return Err(invalid(format!(
                    "the specific offsets contain keyspace '{ks}' but the source reads keyspace '{keyspace}': \
                     drop that entry or fix the keyspace"
                )))
            }
        }
        let position: ShardPosition = serde_json::from_value(serde_json::Value::Object(object))
            .map_err(|e| {
                invalid(format!(
                    "the specific offsets entry {entry} is not a position: {e}"
                ))
            })?;
        if out.iter().any(|p| p.shard == position.shard) {
            return Err(invalid(format!(
                "the specific offsets list shard '{}' twice",
                position.shard
            )));
        }
        out.push(position);
    }
    Ok(out)
}

/// The compact binary form of positions: what a checkpoint stores.
///
/// Layout (all lengths and counts are unsigned LEB128 varints; strings are UTF-8):
///
/// ```text
/// position   = magic[4] version:u8 body          magic "VCSP" (one shard) / "VCPS" (a stream)
/// stream v1  = shard_count shard_v1*
/// shard v1   = str(keyspace) str(shard) str(gtid) flags:u8
///              table_count (str(table_name) bytes(lastpk))*
///              to_copy_count str(table)*
/// flags      = bit 0: copy_completed; other bits must be 0 in version 1
/// str/bytes  = len payload[len]                  lastpk is the raw query.QueryResult bytes
/// ```
///
/// A decoder accepts exactly one complete value: trailing bytes, truncation, unknown flag bits,
/// invalid UTF-8 and unknown versions are errors ([`ErrorKind::Config`](crate::ErrorKind),
/// naming what is wrong), never panics. New versions get a new `version` byte and a new
/// `decode_vN`; every older `decode_vN` stays, so positions saved by older releases keep
/// resuming.
pub mod binary {
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
}

impl ShardPosition {
    /// The compact, versioned binary form (see [`binary`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        binary::encode_shard(self)
    }

    /// Decodes [`to_bytes`](Self::to_bytes) output of this or any older release. Garbage,
    /// truncated input and unknown versions are [`ErrorKind::Config`](crate::ErrorKind) errors.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<ShardPosition> {
        binary::decode_shard(bytes).map_err(|e| e.with_code(crate::ErrorCode::InvalidPosition))
    }

    /// The number of transactions in the position's GTID set: it grows by one per commit of
    /// the shard, in binlog order, whichever server is primary, so it ranks the shard's
    /// positions the same way for every reader (the base of a record's order rank,
    /// docs/positions.md "Order across reshards"). 0 for an empty set (before a copy's first
    /// snapshot).
    pub fn transaction_count(&self) -> crate::Result<u64> {
        // Every mark is counted, so the usual case (the canonical set MySQL and VTGate print)
        // is summed without building the set; anything else goes through the full parser.
        if let Some(n) = count_canonical_gtid_set(&self.gtid) {
            return Ok(n);
        }
        crate::gtid::GtidSet::parse(&self.gtid)
            .map(|set| set.transaction_count())
            .map_err(|e| {
                crate::Error::config(format!(
                    "the position of {}/{} has no countable GTID set ({e}): order ranks need a MySQL \
                     GTID position",
                    self.keyspace, self.shard
                ))
                .with_code(crate::ErrorCode::InvalidPosition)
            })
    }
}

/// The transactions of a GTID set in the canonical form MySQL prints (`[MySQL56/]uuid:a-b:c-d,…`:
/// sources in strictly ascending UUID order, each with ascending intervals that neither overlap
/// nor touch, no tags), summed without allocating; `None` for anything else (the caller then
/// parses the set, which also merges overlaps), so the count is exact either way.
fn count_canonical_gtid_set(text: &str) -> Option<u64> {
    let body = text
        .strip_prefix(crate::gtid::MYSQL56_FLAVOR)
        .unwrap_or(text);
    if body.is_empty() {
        return Some(0);
    }
    let mut total = 0u64;
    let mut previous_uuid: Option<&str> = None;
    for source in body.split(',') {
        let mut parts = source.split(':');
        let uuid = parts.next()?;
        if uuid.len() != 36 || previous_uuid.is_some_and(|p| p >= uuid) {
            return None;
        }
        previous_uuid = Some(uuid);
        let mut previous_end = 0u64;
        let mut any = false;
        for interval in parts {
            let (a, b) = match interval.split_once('-') {
                Some((a, b)) => (digits(a)?, digits(b)?),
                None => {
                    let n = digits(interval)?;
                    (n, n)
                }
            };
            // Touching or overlapping intervals, or a zero, are not canonical: let the parser
            // decide.
            if a == 0 || b < a || (any && a <= previous_end.saturating_add(1)) {
                return None;
            }
            total = total.checked_add(b - a + 1)?;
            previous_end = b;
            any = true;
        }
        if !any {
            return None;
        }
    }
    Some(total)
}

/// A plain decimal number (no sign, no spaces), or `None`.
fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl StreamPosition {
    /// The compact, versioned binary form of every shard's position (see [`binary`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        binary::encode_stream(self)
    }

    /// Decodes [`to_bytes`](Self::to_bytes) output of this or any older release.
    pub fn from_bytes(bytes: &[u8]) -> crate::Result<StreamPosition> {
        binary::decode_stream(bytes).map_err(|e| e.with_code(crate::ErrorCode::InvalidPosition))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The allocation-free count agrees with the full parser wherever it answers, and it
        /// answers for every set the parser prints back (the canonical form).
        #[test]
        fn the_fast_count_agrees_with_the_gtid_set(
            sources in proptest::collection::vec(
                (0u8..6, proptest::collection::vec((1u64..50, 0u64..30), 1..5)), 0..4),
            prefixed in proptest::bool::ANY,
        ) {
            let text = sources
                .iter()
                .map(|(u, intervals)| {
                    let mut start = 0;
                    let parts: Vec<String> = intervals
                        .iter()
                        .map(|(gap, len)| {
                            let a = start + gap;
                            start = a + len;
                            format!("{a}-{}", a + len)
                        })
                        .collect();
                    format!("3e11fa47-71ca-11e1-9e33-c80aa942956{u}:{}", parts.join(":"))
                })
                .collect::<Vec<_>>()
                .join(",");
            let text = if prefixed { format!("MySQL56/{text}") } else { text };
            let set = crate::gtid::GtidSet::parse(&text).unwrap();
            if let Some(fast) = count_canonical_gtid_set(&text) {
                proptest::prop_assert_eq!(fast, set.transaction_count(), "{}", text);
            }
            let canonical = set.to_bare_string();
            proptest::prop_assert_eq!(count_canonical_gtid_set(&canonical), Some(set.transaction_count()));
        }
    }

    #[test]
    fn transaction_count_sums_every_server_uuid_and_refuses_what_is_not_a_mysql_set() {
        let mut p = pos("MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-40:45,\
                         4e11fa47-71ca-11e1-9e33-c80aa9429562:1-2");
        assert_eq!(p.transaction_count().unwrap(), 43);
        p.gtid = String::new();
        assert_eq!(p.transaction_count().unwrap(), 0);
        p.gtid = "MariaDB/0-1-5".into();
        let e = p.transaction_count().unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidPosition);
        assert!(e.message.contains("MariaDB"), "{}", e.message);
    }

    fn pos(gtid: &str) -> ShardPosition {
        ShardPosition {
            keyspace: "ks".into(),
            shard: "-80".into(),
            gtid: gtid.into(),
            table_p_ks: vec![],
            tables_to_copy: vec![],
            copy_completed: false,
            snapshots: Vec::new(),
        }
    }

    #[test]
    fn json_round_trip_and_vgtid_shape() {
        let mut p = pos("MySQL56/u:1-5");
        p.table_p_ks.push(TableLastPk {
            table_name: "t".into(),
            lastpk: vec![1, 2, 3],
        });
        p.tables_to_copy.push("u".into());
        let sp = StreamPosition { shards: vec![p] };
        assert_eq!(StreamPosition::from_json(&sp.to_json()).unwrap(), sp);
        let vgtid = r#"{"shard_gtids":[{"keyspace":"ks","shard":"-80","gtid":"MySQL56/u:1-9"}]}"#;
        assert_eq!(
            StreamPosition::from_json(vgtid).unwrap().shards[0].gtid,
            "MySQL56/u:1-9"
        );
        assert!(StreamPosition::from_json("[]").is_err());
        assert!(StreamPosition::from_json("{\"x\":1}")
            .unwrap_err()
            .message
            .contains("shard_gtids"));
    }

    #[test]
    fn specific_offsets_in_every_shape_with_clear_errors() {
        for json in [
            r#"{"shard_gtids":[{"shard":"-80","gtid":"g1"},{"keyspace":"ks","shard":"80-","gtid":"current"}]}"#,
            r#"{"shardGtids":[{"shard":"-80","gtid":"g1"},{"shard":"80-","gtid":"current"}]}"#,
            r#"{"shards":[{"shard":"-80","gtid":"g1"},{"shard":"80-","gtid":"current"}]}"#,
            r#"[{"shard":"-80","gtid":"g1"},{"shard":"80-","gtid":"current"}]"#,
        ] {
            let given = parse_specific_offsets("ks", json).unwrap();
            assert_eq!(given.len(), 2, "{json}");
            assert_eq!(
                (given[0].keyspace.as_str(), given[0].gtid.as_str()),
                ("ks", "g1")
            );
            assert_eq!(given[1].gtid, "current");
        }
        let err = |json: &str| {
            let e = parse_specific_offsets("ks", json).unwrap_err();
            assert_eq!(e.code, crate::ErrorCode::InvalidPosition, "{}", e.message);
            e.message
        };
        assert!(err("nope").contains("not valid JSON"));
        assert!(err(r#"{"shard_gtids":[]}"#).contains("list no shard"));
        assert!(err(r#"[{"shard":"-80"}]"#).contains("\"shard\" and \"gtid\""));
        assert!(
            err(r#"[{"keyspace":"other","shard":"-80","gtid":"g"}]"#).contains("keyspace 'other'")
        );
        assert!(
            err(r#"[{"shard":"-80","gtid":"a"},{"shard":"-80","gtid":"b"}]"#).contains("twice")
        );
    }

    #[test]
    fn saved_json_takes_its_keyspace_and_shard_from_where_it_was_stored() {
        let p = ShardPosition::from_saved_json("ks", "-80", r#"{"gtid":"n"}"#).unwrap();
        assert_eq!(
            (p.keyspace.as_str(), p.shard.as_str(), p.gtid.as_str()),
            ("ks", "-80", "n")
        );
        let full = serde_json::to_string(&pos("MySQL56/u:1")).unwrap();
        assert_eq!(
            ShardPosition::from_saved_json("ks", "-80", &full).unwrap(),
            pos("MySQL56/u:1")
        );
        let e = ShardPosition::from_saved_json("ks", "80-", &full).unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidPosition);
        assert!(
            e.message.contains("corrupt saved position of shard ks/80-"),
            "{}",
            e.message
        );
        assert!(ShardPosition::from_saved_json("ks", "-80", "[1]").is_err());
    }

    #[test]
    fn copy_need() {
        assert!(pos("").needs_copy());
        assert!(!pos("MySQL56/u:1").needs_copy());
        let mut p = pos("MySQL56/u:1");
        p.tables_to_copy.push("t".into());
        assert!(p.needs_copy());
        p.copy_completed = true;
        assert!(!p.needs_copy());
    }
}

#[cfg(test)]
mod binary_tests {
    use super::*;
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
