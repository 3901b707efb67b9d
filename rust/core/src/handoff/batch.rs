// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The binary batch format that crosses JNI (documented byte by byte in docs/batch-format.md).
//!
//! One batch = a 16-byte header followed by entries. Every entry is framed as
//! `tag: u8, length: u32, payload[length]`, so a reader can skip entry kinds it does not know.
//! All integers are little-endian. Values are self-describing (a one-byte value tag precedes each
//! non-null value), so the Java side never parses MySQL text and never guesses a type from the
//! column declaration.
//!
//! The [`BatchEncoder`] is stateful across batches of one stream: it assigns a small numeric id
//! to every `(keyspace, shard, table)` and sends the table's descriptor only when the table is
//! new to this encoder or its schema version changed. The decoder on the other side keeps the
//! same map, so records carry just the id.
//!
//! Encoding is transactional per event: [`BatchEncoder::encode`] either appends the whole event
//! (with any descriptor it needs) or, when the batch would exceed its byte limit, leaves both the
//! buffer and the encoder's table state exactly as they were and reports how many bytes the event
//! would have needed. The caller keeps such an event for the next batch.
//!
//! Large text and binary values are not copied into the encoder's buffer ([`buffer`]): the batch
//! refers to them until [`BatchEncoder::finish_to`] copies it into the consumer's buffer.

use crate::event::{ChangeEvent, Event, TableSchema};
use crate::handoff::debezium_json;
use crate::handoff::flink_row::{RowLayout, RowPlan};
use crate::position::ShardPosition;
use crate::value::Value;
use buffer::BatchBuf;
pub use buffer::{BatchOut, SPLICE_MIN_BYTES};
use bytes::Bytes;
use std::collections::HashMap;
use std::sync::Arc;

mod buffer;

/// `"VCDB"` in byte order: the first four bytes of every batch.
pub const MAGIC: [u8; 4] = *b"VCDB";
/// Format version; bumped on any incompatible change. Readers refuse other versions. Version 2:
/// a `POSITION` payload carries the position's binary form and its facts instead of JSON.
pub const VERSION: u16 = 2;
/// Size of the fixed header.
pub const HEADER_LEN: usize = 16;
/// Framing bytes before every entry payload (tag + length).
pub const ENTRY_FRAME_LEN: usize = 5;

/// Header flag: the batch contains the `END` entry; nothing follows this batch.
pub const FLAG_END_OF_STREAM: u16 = 1;

/// Entry tags.
pub mod tag {
    pub const TABLE: u8 = 1;
    pub const RECORD: u8 = 2;
    pub const POSITION: u8 = 3;
    pub const HEARTBEAT: u8 = 4;
    pub const SHARD_COPY_COMPLETED: u8 = 5;
    pub const COPY_COMPLETED: u8 = 6;
    pub const DDL: u8 = 7;
    pub const JOURNAL: u8 = 8;
    pub const END: u8 = 9;
}

/// Value tags (one byte before each present, non-null value of a record).
pub mod value_tag {
    pub const INT: u8 = 1;
    pub const UINT: u8 = 2;
    pub const FLOAT: u8 = 3;
    pub const DECIMAL: u8 = 4;
    pub const STRING: u8 = 5;
    pub const BYTES: u8 = 6;
    pub const DATE: u8 = 7;
    pub const DATETIME: u8 = 8;
    pub const TIME: u8 = 9;
}

/// Record flag bits.
pub const RECORD_FLAG_SNAPSHOT: u8 = 1;
/// The record carries an "absent" bitmap after the null bitmap (partial row images).
pub const RECORD_FLAG_HAS_ABSENT: u8 = 2;
/// The record carries a row in Flink's binary layout instead of bitmaps and values
/// ([`crate::handoff::flink_row`]).
pub const RECORD_FLAG_FLINK_ROW: u8 = 4;
/// The record carries its row as a Debezium JSON object instead of bitmaps and values
/// ([`crate::handoff::debezium_json`]).
pub const RECORD_FLAG_JSON_ROW: u8 = 8;

/// Column flag bits in a table descriptor.
pub const COLUMN_FLAG_PRIMARY_KEY: u8 = 1;
pub const COLUMN_FLAG_NULLABLE: u8 = 2;

/// Fact bits of a `POSITION` payload (see [`crate::position::facts`]): what a consumer acts on
/// without reading the position.
pub const POSITION_FACT_COPY_COMPLETED: u8 = crate::position::facts::COPY_COMPLETED;

/// Why an event was not appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// The event does not fit in what is left of the batch. `needed` is the size of a batch
    /// holding just this event (header included), so a caller whose batch is empty knows how
    /// large a buffer to ask for.
    Full { needed: usize },
    /// The event cannot be represented (a string longer than 4 GiB, more than 65535 columns…).
    Unrepresentable(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct TableKey {
    keyspace: String,
    shard: String,
    table: String,
}

#[derive(Debug, Clone)]
struct TableState {
    id: u32,
    version: u32,
    /// How this shape's records are written as Flink rows; `None`: as values.
    plan: Option<Arc<RowPlan>>,
}

/// Encodes events into batches; one encoder per stream (see module docs).
#[derive(Debug)]
pub struct BatchEncoder {
    tables: HashMap<TableKey, TableState>,
    next_table_id: u32,
    buf: BatchBuf,
    limit: usize,
    entries: u32,
    flags: u16,
    /// Table-state changes made while encoding the current event, undone if it does not fit.
    undo: Vec<(TableKey, Option<TableState>)>,
    undo_next_table_id: u32,
    /// Fast path: the schema of the last record, its id and row plan. Holding the `Arc` keeps
    /// the pointer from being reused by another schema, so pointer equality is identity.
    hot: Option<(Arc<TableSchema>, u32, Option<Arc<RowPlan>>)>,
    /// The consumer's declared row: records of tables that can give it carry Flink rows.
    layout: Option<Arc<RowLayout>>,
    /// Records carry their rows as Debezium JSON objects.
    json_rows: bool,
}

impl Default for BatchEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl BatchEncoder {
    pub fn new() -> Self {
        BatchEncoder {
            tables: HashMap::new(),
            next_table_id: 1,
            buf: BatchBuf::with_capacity(64 * 1024),
            limit: usize::MAX,
            entries: 0,
            flags: 0,
            undo: Vec::new(),
            undo_next_table_id: 1,
            hot: None,
            layout: None,
            json_rows: false,
        }
    }

    /// Records of the tables that can give `layout`'s fields carry rows in Flink's binary layout
    /// from now on (docs/batch-format.md, "Flink rows"); `None`: values only. Forgets the table
    /// ids, so every table is planned again.
    pub fn set_row_layout(&mut self, layout: Option<RowLayout>) {
        self.layout = layout.map(Arc::new);
        self.reset_tables();
    }

    /// Records carry their rows as the DataStream's Debezium JSON objects from now on
    /// (docs/batch-format.md, "JSON rows"), unless a row layout is set.
    pub fn set_json_rows(&mut self, json_rows: bool) {
        self.json_rows = json_rows;
    }

    /// Starts a new batch that may grow up to `limit` bytes (header included). The previous
    /// batch's bytes are discarded; the table map is kept.
    pub fn begin(&mut self, limit: usize) {
        self.buf.clear();
        self.buf.extend_from_slice(&[0u8; HEADER_LEN]);
        self.limit = limit;
        self.entries = 0;
        self.flags = 0;
    }

    /// Number of entries appended to the current batch.
    pub fn entry_count(&self) -> u32 {
        self.entries
    }

    /// True when no entry was appended since [`begin`](Self::begin).
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Bytes the current batch occupies so far (header included).
    pub fn len(&self) -> usize {
        self.buf.len().max(HEADER_LEN)
    }

    /// Forgets every table id, so the next batches send all descriptors again.
    pub fn reset_tables(&mut self) {
        self.tables.clear();
        self.next_table_id = 1;
        self.hot = None;
    }

    /// Appends one event, or leaves everything untouched and says why not.
    pub fn encode(&mut self, event: &Event) -> Result<(), EncodeError> {
        if self.buf.len() < HEADER_LEN {
            self.begin(self.limit);
        }
        let start = self.buf.mark();
        let start_entries = self.entries;
        let start_flags = self.flags;
        self.undo.clear();
        self.undo_next_table_id = self.next_table_id;

        let result = self.encode_event(event);
        let result = match result {
            Ok(()) if self.buf.len() > self.limit => Err(EncodeError::Full {
                needed: HEADER_LEN + (self.buf.len() - start.len()),
            }),
            other => other,
        };
        if result.is_err() {
            self.buf.truncate(start);
            self.entries = start_entries;
            self.flags = start_flags;
            self.rollback_tables();
        }
        result
    }

    /// Writes the header and returns the finished batch in one piece (large values copied in).
    /// The bytes stay valid until the next call to [`begin`](Self::begin) or
    /// [`encode`](Self::encode).
    pub fn finish(&mut self) -> &[u8] {
        self.write_header();
        self.buf.contiguous()
    }

    /// Writes the header and copies the finished batch into the start of `out` (a slice, or a
    /// Java heap array written through JNI calls, which can fail), large values straight from
    /// where they were decoded; answers its length, or `None` (nothing written) when `out` is
    /// shorter than [`len`](Self::len). The batch is gone afterwards: the next one starts with
    /// [`begin`](Self::begin).
    pub fn finish_to<O: BatchOut + ?Sized>(&mut self, out: &mut O) -> crate::Result<Option<usize>> {
        self.write_header();
        self.buf.write_to(out)
    }

    fn write_header(&mut self) {
        if self.buf.len() < HEADER_LEN {
            self.begin(self.limit);
        }
        let body_len = (self.buf.len() - HEADER_LEN) as u32;
        let header = &mut self.buf[0..HEADER_LEN];
        header[0..4].copy_from_slice(&MAGIC);
        header[4..6].copy_from_slice(&VERSION.to_le_bytes());
        header[6..8].copy_from_slice(&self.flags.to_le_bytes());
        header[8..12].copy_from_slice(&self.entries.to_le_bytes());
        header[12..16].copy_from_slice(&body_len.to_le_bytes());
    }

    fn rollback_tables(&mut self) {
        if !self.undo.is_empty() {
            self.hot = None;
        }
        while let Some((key, prev)) = self.undo.pop() {
            match prev {
                Some(state) => {
                    self.tables.insert(key, state);
                }
                None => {
                    self.tables.remove(&key);
                }
            }
        }
        self.next_table_id = self.undo_next_table_id;
    }

    fn encode_event(&mut self, event: &Event) -> Result<(), EncodeError> {
        match event {
            Event::Schema(schema) => {
                self.hot = None;
                self.ensure_table(schema).map(|_| ())
            }
            Event::Change(change) => {
                let (id, plan) = match &self.hot {
                    Some((schema, id, plan)) if Arc::ptr_eq(schema, &change.schema) => {
                        (*id, plan.clone())
                    }
                    _ => {
                        let (id, plan) = self.ensure_table(&change.schema)?;
                        self.hot = Some((change.schema.clone(), id, plan.clone()));
                        (id, plan)
                    }
                };
                let form = match plan.as_deref() {
                    Some(plan) => RowForm::Flink(plan),
                    None if self.json_rows => RowForm::Json,
                    None => RowForm::Values,
                };
                self.entry(tag::RECORD, |w| write_record(w, id, change, form))
            }
            Event::Mark(pos) => self.entry(tag::POSITION, |w| write_mark(w, pos)),
            Event::Ddl {
                keyspace,
                shard,
                statement,
                commit_ts_millis,
            } => self.entry(tag::DDL, |w| {
                w.str(keyspace)?;
                w.str(shard)?;
                w.i64(*commit_ts_millis);
                w.str(statement)
            }),
            Event::ShardCopyCompleted { keyspace, shard } => {
                self.entry(tag::SHARD_COPY_COMPLETED, |w| {
                    w.str(keyspace)?;
                    w.str(shard)
                })
            }
            Event::CopyCompleted => self.entry(tag::COPY_COMPLETED, |_| Ok(())),
            Event::Heartbeat { timestamp_millis } => self.entry(tag::HEARTBEAT, |w| {
                w.i64(*timestamp_millis);
                Ok(())
            }),
            Event::Journal {
                id,
                shard,
                ended,
                started,
            } => self.entry(tag::JOURNAL, |w| {
                w.u16_len(ended.len(), "ended shards")?;
                for (keyspace, shard) in ended {
                    w.str(keyspace)?;
                    w.str(shard)?;
                }
                w.u16_len(started.len(), "started shards")?;
                for pos in started {
                    write_position(w, pos)?;
                }
                // Appended fields: readers that predate them stop at the entry's frame.
                w.str(&shard.0)?;
                w.str(&shard.1)?;
                w.i64(*id);
                Ok(())
            }),
            Event::End => {
                self.entry(tag::END, |_| Ok(()))?;
                self.flags |= FLAG_END_OF_STREAM;
                Ok(())
            }
        }
    }

    /// Returns the table id for `schema` and its row plan, appending a descriptor first when the
    /// table is new to this encoder or its version differs from the one last sent.
    fn ensure_table(
        &mut self,
        schema: &TableSchema,
    ) -> Result<(u32, Option<Arc<RowPlan>>), EncodeError> {
        let key = TableKey {
            keyspace: schema.keyspace.clone(),
            shard: schema.shard.clone(),
            table: schema.table.clone(),
        };
        let prev = self.tables.get(&key).cloned();
        if let Some(state) = &prev {
            if state.version == schema.version {
                return Ok((state.id, state.plan.clone()));
            }
        }
        let id = match &prev {
            Some(state) => state.id,
            None => {
                let id = self.next_table_id;
                self.next_table_id = self.next_table_id.checked_add(1).ok_or_else(|| {
                    EncodeError::Unrepresentable("table id space exhausted".into())
                })?;
                id
            }
        };
        self.entry(tag::TABLE, |w| write_table(w, id, schema))?;
        let plan = self
            .layout
            .as_ref()
            .and_then(|layout| RowPlan::new(layout, schema))
            .map(Arc::new);
        self.undo.push((key.clone(), prev));
        self.tables.insert(
            key,
            TableState {
                id,
                version: schema.version,
                plan: plan.clone(),
            },
        );
        Ok((id, plan))
    }

    fn entry(
        &mut self,
        tag: u8,
        body: impl FnOnce(&mut Writer<'_>) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        self.buf.push(tag);
        let len_at = self.buf.physical_len();
        self.buf.extend_from_slice(&[0u8; 4]);
        let body_at = self.buf.len();
        body(&mut Writer { buf: &mut self.buf })?;
        let len = self.buf.len() - body_at;
        let len = u32::try_from(len).map_err(|_| {
            EncodeError::Unrepresentable(format!("entry of {len} bytes exceeds 4 GiB"))
        })?;
        self.buf[len_at..len_at + 4].copy_from_slice(&len.to_le_bytes());
        self.entries += 1;
        Ok(())
    }
}

/// Little-endian appends with length checks.
struct Writer<'a> {
    buf: &'a mut BatchBuf,
}

impl Writer<'_> {
    fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    fn u16_len(&mut self, len: usize, what: &str) -> Result<(), EncodeError> {
        let len = u16::try_from(len)
            .map_err(|_| EncodeError::Unrepresentable(format!("{len} {what} exceed 65535")))?;
        self.u16(len);
        Ok(())
    }
    /// A value's `u32` length.
    fn value_len(&mut self, len: usize) -> Result<(), EncodeError> {
        let len = u32::try_from(len).map_err(|_| {
            EncodeError::Unrepresentable(format!("value of {len} bytes exceeds 4 GiB"))
        })?;
        self.u32(len);
        Ok(())
    }
    fn bytes(&mut self, v: &[u8]) -> Result<(), EncodeError> {
        self.value_len(v.len())?;
        self.buf.extend_from_slice(v);
        Ok(())
    }
    fn str(&mut self, v: &str) -> Result<(), EncodeError> {
        self.bytes(v.as_bytes())
    }
    /// As [`bytes`](Self::bytes), for a value that lives on in the received message: a long one
    /// is referred to, not copied ([`BatchBuf::append_shared`]).
    fn shared(&mut self, v: &Bytes) -> Result<(), EncodeError> {
        self.value_len(v.len())?;
        self.buf.append_shared(v);
        Ok(())
    }

    /// `u32 length` and what `write` appends, when it appends (answers true); else nothing. A
    /// body beyond 4 GiB is not written either (the batch limit refuses it long before).
    fn framed(&mut self, write: impl FnOnce(&mut Vec<u8>) -> bool) -> bool {
        let start = self.buf.mark();
        let len_at = self.buf.physical_len();
        self.u32(0);
        if write(self.buf.own_mut()) {
            if let Ok(len) = u32::try_from(self.buf.physical_len() - len_at - 4) {
                self.buf[len_at..len_at + 4].copy_from_slice(&len.to_le_bytes());
                return true;
            }
        }
        self.buf.truncate(start);
        false
    }
}

fn write_table(w: &mut Writer<'_>, id: u32, schema: &TableSchema) -> Result<(), EncodeError> {
    w.u32(id);
    w.u32(schema.version);
    w.str(&schema.keyspace)?;
    w.str(&schema.shard)?;
    w.str(&schema.table)?;
    w.u16_len(schema.columns.len(), "columns")?;
    for c in &schema.columns {
        w.str(&c.name)?;
        w.u8(c.column_type as u8);
        let mut flags = 0u8;
        if c.primary_key {
            flags |= COLUMN_FLAG_PRIMARY_KEY;
        }
        if c.nullable {
            flags |= COLUMN_FLAG_NULLABLE;
        }
        w.u8(flags);
        w.i32(c.vitess_type);
        w.u32(c.charset);
        w.u32(c.length);
        w.u32(c.decimals);
        w.str(&c.mysql_type)?;
    }
    Ok(())
}

/// How a record carries its row.
#[derive(Clone, Copy)]
enum RowForm<'a> {
    Values,
    Flink(&'a RowPlan),
    Json,
}

fn write_record(
    w: &mut Writer<'_>,
    table_id: u32,
    change: &ChangeEvent,
    form: RowForm<'_>,
) -> Result<(), EncodeError> {
    let n = change.values.len();
    let mut flags = 0u8;
    if change.is_snapshot {
        flags |= RECORD_FLAG_SNAPSHOT;
    }
    w.u32(table_id);
    w.u8(change.kind as u8);
    let flags_at = w.buf.physical_len();
    w.u8(flags);
    w.i64(change.commit_ts_millis);
    w.u16_len(n, "values")?;
    // A row with a value long enough to be spliced goes as values: the row forms copy every
    // value into the batch, and such a row's bytes, not its fields, are its cost.
    let form = match form {
        RowForm::Flink(_) | RowForm::Json if has_long_value(change) => RowForm::Values,
        form => form,
    };
    let written = match form {
        RowForm::Values => None,
        RowForm::Flink(plan) => {
            Some(RECORD_FLAG_FLINK_ROW).filter(|_| w.framed(|buf| plan.write(change, buf)))
        }
        RowForm::Json => Some(RECORD_FLAG_JSON_ROW)
            .filter(|_| w.framed(|buf| debezium_json::write_row(change, buf))),
    };
    if let Some(flag) = written {
        w.buf[flags_at] |= flag;
        return Ok(());
    }
    // Values: the form asked for none, or a value is the Java reader's to convert.
    let has_absent = change.values.iter().any(|v| matches!(v, Value::Absent));
    if has_absent {
        w.buf[flags_at] |= RECORD_FLAG_HAS_ABSENT;
    }
    let bitmap_len = n.div_ceil(8);
    let nulls_at = w.buf.physical_len();
    w.buf
        .own_mut()
        .resize(nulls_at + bitmap_len * if has_absent { 2 } else { 1 }, 0);
    for (i, v) in change.values.iter().enumerate() {
        match v {
            Value::Null => w.buf[nulls_at + i / 8] |= 1 << (i % 8),
            Value::Absent => w.buf[nulls_at + bitmap_len + i / 8] |= 1 << (i % 8),
            _ => {}
        }
    }
    for v in &change.values {
        write_value(w, v)?;
    }
    Ok(())
}

fn has_long_value(change: &ChangeEvent) -> bool {
    change.values.iter().any(|v| match v {
        Value::String(s) => s.len() >= SPLICE_MIN_BYTES,
        Value::Bytes(b) => b.len() >= SPLICE_MIN_BYTES,
        _ => false,
    })
}

fn write_value(w: &mut Writer<'_>, v: &Value) -> Result<(), EncodeError> {
    match v {
        Value::Null | Value::Absent => {}
        Value::Int(i) => {
            w.u8(value_tag::INT);
            w.i64(*i);
        }
        Value::UInt(u) => {
            w.u8(value_tag::UINT);
            w.u64(*u);
        }
        Value::Float(f) => {
            w.u8(value_tag::FLOAT);
            w.f64(*f);
        }
        Value::Decimal(s) => {
            w.u8(value_tag::DECIMAL);
            w.str(s)?;
        }
        Value::String(s) => {
            w.u8(value_tag::STRING);
            w.shared(s.as_bytes())?;
        }
        Value::Bytes(b) => {
            w.u8(value_tag::BYTES);
            w.shared(b)?;
        }
        Value::Date { year, month, day } => {
            w.u8(value_tag::DATE);
            w.u16(*year);
            w.u8(*month);
            w.u8(*day);
        }
        Value::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        } => {
            w.u8(value_tag::DATETIME);
            w.u16(*year);
            w.u8(*month);
            w.u8(*day);
            w.u8(*hour);
            w.u8(*minute);
            w.u8(*second);
            w.u32(*micros);
        }
        Value::Time {
            negative,
            hours,
            minute,
            second,
            micros,
        } => {
            w.u8(value_tag::TIME);
            let magnitude = ((*hours as i64 * 60 + *minute as i64) * 60 + *second as i64)
                * 1_000_000
                + *micros as i64;
            w.i64(if *negative { -magnitude } else { magnitude });
        }
    }
    Ok(())
}

/// `str keyspace, str shard, u8 facts, bytes position`: the position in its versioned binary
/// form ([`ShardPosition::to_bytes`]), the resumable token a consumer stores unread and hands
/// back at open; the facts beside it, so the consumer needs no parser (people read the JSON
/// rendering the bridge offers). A journal's new shards are written this way.
fn write_position(w: &mut Writer<'_>, pos: &ShardPosition) -> Result<(), EncodeError> {
    w.str(&pos.keyspace)?;
    w.str(&pos.shard)?;
    w.u8(crate::position::facts::of(pos));
    w.bytes(&pos.to_bytes())
}

/// A `POSITION` entry: the position as [`write_position`], then `u64` the transactions in its
/// GTID set, the base of the order rank of the records that follow (appended within version
/// 2). Left out when the set is not a countable MySQL set: the consumer then asks the bridge,
/// which says why.
fn write_mark(w: &mut Writer<'_>, pos: &ShardPosition) -> Result<(), EncodeError> {
    write_position(w, pos)?;
    if let Ok(count) = pos.transaction_count() {
        w.u64(count);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
