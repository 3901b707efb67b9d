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

use crate::event::{ChangeEvent, Event, TableSchema};
use crate::position::ShardPosition;
use crate::value::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// `"VCDB"` in byte order: the first four bytes of every batch.
pub const MAGIC: [u8; 4] = *b"VCDB";
/// Format version; bumped on any incompatible change. Readers refuse other versions.
pub const VERSION: u16 = 1;
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

/// Column flag bits in a table descriptor.
pub const COLUMN_FLAG_PRIMARY_KEY: u8 = 1;
pub const COLUMN_FLAG_NULLABLE: u8 = 2;

/// Position encodings. JSON is the only one today: the JSON text is both the resumable token the
/// Java side stores opaquely and the form people read.
pub const POSITION_ENCODING_JSON: u8 = 1;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TableState {
    id: u32,
    version: u32,
}

/// Encodes events into batches; one encoder per stream (see module docs).
#[derive(Debug)]
pub struct BatchEncoder {
    tables: HashMap<TableKey, TableState>,
    next_table_id: u32,
    buf: Vec<u8>,
    limit: usize,
    entries: u32,
    flags: u16,
    /// Table-state changes made while encoding the current event, undone if it does not fit.
    undo: Vec<(TableKey, Option<TableState>)>,
    undo_next_table_id: u32,
    /// Fast path: the schema of the last record and its id. Holding the `Arc` keeps the pointer
    /// from being reused by another schema, so pointer equality is identity.
    hot: Option<(Arc<TableSchema>, u32)>,
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
            buf: Vec::with_capacity(64 * 1024),
            limit: usize::MAX,
            entries: 0,
            flags: 0,
            undo: Vec::new(),
            undo_next_table_id: 1,
            hot: None,
        }
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
        let start = self.buf.len();
        let start_entries = self.entries;
        let start_flags = self.flags;
        self.undo.clear();
        self.undo_next_table_id = self.next_table_id;

        let result = self.encode_event(event);
        let result = match result {
            Ok(()) if self.buf.len() > self.limit => Err(EncodeError::Full {
                needed: HEADER_LEN + (self.buf.len() - start),
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

    /// Writes the header and returns the finished batch. The bytes stay valid until the next
    /// call to [`begin`](Self::begin) or [`encode`](Self::encode).
    pub fn finish(&mut self) -> &[u8] {
        if self.buf.len() < HEADER_LEN {
            self.begin(self.limit);
        }
        let body_len = (self.buf.len() - HEADER_LEN) as u32;
        let header = &mut self.buf[..HEADER_LEN];
        header[0..4].copy_from_slice(&MAGIC);
        header[4..6].copy_from_slice(&VERSION.to_le_bytes());
        header[6..8].copy_from_slice(&self.flags.to_le_bytes());
        header[8..12].copy_from_slice(&self.entries.to_le_bytes());
        header[12..16].copy_from_slice(&body_len.to_le_bytes());
        &self.buf
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
                self.ensure_table(schema)?;
                Ok(())
            }
            Event::Change(change) => {
                let id = match &self.hot {
                    Some((schema, id)) if Arc::ptr_eq(schema, &change.schema) => *id,
                    _ => {
                        let id = self.ensure_table(&change.schema)?;
                        self.hot = Some((change.schema.clone(), id));
                        id
                    }
                };
                self.entry(tag::RECORD, |w| write_record(w, id, change))
            }
            Event::Mark(pos) => self.entry(tag::POSITION, |w| write_position(w, pos)),
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

    /// Returns the table id for `schema`, appending a descriptor first when the table is new to
    /// this encoder or its version differs from the one last sent.
    fn ensure_table(&mut self, schema: &TableSchema) -> Result<u32, EncodeError> {
        let key = TableKey {
            keyspace: schema.keyspace.clone(),
            shard: schema.shard.clone(),
            table: schema.table.clone(),
        };
        let prev = self.tables.get(&key).copied();
        if let Some(state) = prev {
            if state.version == schema.version {
                return Ok(state.id);
            }
        }
        let id = match prev {
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
        self.undo.push((key.clone(), prev));
        self.tables.insert(
            key,
            TableState {
                id,
                version: schema.version,
            },
        );
        Ok(id)
    }

    fn entry(
        &mut self,
        tag: u8,
        body: impl FnOnce(&mut Writer<'_>) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        self.buf.push(tag);
        let len_at = self.buf.len();
        self.buf.extend_from_slice(&[0u8; 4]);
        body(&mut Writer { buf: &mut self.buf })?;
        let len = self.buf.len() - len_at - 4;
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
    buf: &'a mut Vec<u8>,
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
    fn bytes(&mut self, v: &[u8]) -> Result<(), EncodeError> {
        let len = u32::try_from(v.len()).map_err(|_| {
            EncodeError::Unrepresentable(format!("value of {} bytes exceeds 4 GiB", v.len()))
        })?;
        self.u32(len);
        self.buf.extend_from_slice(v);
        Ok(())
    }
    fn str(&mut self, v: &str) -> Result<(), EncodeError> {
        self.bytes(v.as_bytes())
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

fn write_record(
    w: &mut Writer<'_>,
    table_id: u32,
    change: &ChangeEvent,
) -> Result<(), EncodeError> {
    let n = change.values.len();
    let has_absent = change.values.iter().any(|v| matches!(v, Value::Absent));
    let mut flags = 0u8;
    if change.is_snapshot {
        flags |= RECORD_FLAG_SNAPSHOT;
    }
    if has_absent {
        flags |= RECORD_FLAG_HAS_ABSENT;
    }
    w.u32(table_id);
    w.u8(change.kind as u8);
    w.u8(flags);
    w.i64(change.commit_ts_millis);
    w.u16_len(n, "values")?;
    let bitmap_len = n.div_ceil(8);
    let nulls_at = w.buf.len();
    w.buf
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
            w.str(s)?;
        }
        Value::Bytes(b) => {
            w.u8(value_tag::BYTES);
            w.bytes(b)?;
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

fn write_position(w: &mut Writer<'_>, pos: &ShardPosition) -> Result<(), EncodeError> {
    let json = serde_json::to_string(pos).map_err(|e| {
        EncodeError::Unrepresentable(format!("position of {}/{}: {e}", pos.keyspace, pos.shard))
    })?;
    w.str(&pos.keyspace)?;
    w.str(&pos.shard)?;
    w.u8(POSITION_ENCODING_JSON);
    w.str(&json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Column, ColumnType, RowKind};
    use std::sync::Arc;

    /// A minimal reader for the tests: walks the framing and hands out entry payloads.
    struct Reader<'a> {
        buf: &'a [u8],
        pos: usize,
    }

    impl<'a> Reader<'a> {
        fn new(buf: &'a [u8]) -> Self {
            Reader { buf, pos: 0 }
        }
        fn take(&mut self, n: usize) -> &'a [u8] {
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
        fn i32(&mut self) -> i32 {
            i32::from_le_bytes(self.take(4).try_into().unwrap())
        }
        fn i64(&mut self) -> i64 {
            i64::from_le_bytes(self.take(8).try_into().unwrap())
        }
        fn u64(&mut self) -> u64 {
            u64::from_le_bytes(self.take(8).try_into().unwrap())
        }
        fn f64(&mut self) -> f64 {
            f64::from_le_bytes(self.take(8).try_into().unwrap())
        }
        fn bytes(&mut self) -> &'a [u8] {
            let n = self.u32() as usize;
            self.take(n)
        }
        fn str(&mut self) -> &'a str {
            std::str::from_utf8(self.bytes()).unwrap()
        }
        fn done(&self) -> bool {
            self.pos == self.buf.len()
        }
    }

    struct Header {
        flags: u16,
        entries: u32,
    }

    fn parse(batch: &[u8]) -> (Header, Vec<(u8, &[u8])>) {
        let mut r = Reader::new(batch);
        assert_eq!(r.take(4), b"VCDB");
        assert_eq!(r.u16(), VERSION);
        let flags = r.u16();
        let entries = r.u32();
        let body_len = r.u32() as usize;
        assert_eq!(body_len, batch.len() - HEADER_LEN);
        let mut out = Vec::new();
        while !r.done() {
            let tag = r.u8();
            let payload = r.bytes();
            out.push((tag, payload));
        }
        assert_eq!(out.len(), entries as usize);
        (Header { flags, entries }, out)
    }

    fn column(name: &str, column_type: ColumnType, mysql_type: &str, pk: bool) -> Column {
        Column {
            name: name.into(),
            column_type,
            mysql_type: mysql_type.into(),
            vitess_type: 265,
            charset: 63,
            length: 20,
            decimals: 0,
            nullable: !pk,
            primary_key: pk,
        }
    }

    fn schema(version: u32) -> Arc<TableSchema> {
        Arc::new(TableSchema {
            keyspace: "commerce".into(),
            shard: "0".into(),
            table: "product".into(),
            columns: vec![
                column("sku", ColumnType::Int, "bigint", true),
                column("description", ColumnType::String, "varchar(128)", false),
            ],
            version,
        })
    }

    fn change(schema: &Arc<TableSchema>, sku: i64, description: Value) -> Event {
        Event::Change(ChangeEvent {
            schema: schema.clone(),
            kind: RowKind::Insert,
            values: vec![Value::Int(sku), description],
            commit_ts_millis: 1_700_000_000_123,
            is_snapshot: false,
        })
    }

    fn encode_all(enc: &mut BatchEncoder, events: &[Event]) -> Vec<u8> {
        enc.begin(usize::MAX);
        for e in events {
            enc.encode(e).unwrap();
        }
        enc.finish().to_vec()
    }

    #[test]
    fn empty_batch_is_a_bare_header() {
        let mut enc = BatchEncoder::new();
        enc.begin(1024);
        let batch = enc.finish().to_vec();
        assert_eq!(batch.len(), HEADER_LEN);
        let (h, entries) = parse(&batch);
        assert_eq!(h.entries, 0);
        assert_eq!(h.flags, 0);
        assert!(entries.is_empty());
    }

    #[test]
    fn descriptor_is_sent_once_then_again_when_the_version_changes() {
        let mut enc = BatchEncoder::new();
        let v1 = schema(1);
        let batch = encode_all(
            &mut enc,
            &[
                change(&v1, 1, Value::String("a".into())),
                change(&v1, 2, Value::Null),
            ],
        );
        let tags: Vec<u8> = parse(&batch).1.iter().map(|(t, _)| *t).collect();
        assert_eq!(tags, vec![tag::TABLE, tag::RECORD, tag::RECORD]);

        // Same table, next batch: no descriptor.
        let batch = encode_all(&mut enc, &[change(&v1, 3, Value::Null)]);
        let tags: Vec<u8> = parse(&batch).1.iter().map(|(t, _)| *t).collect();
        assert_eq!(tags, vec![tag::RECORD]);

        // Schema changed: descriptor again, under the same id.
        let v2 = schema(2);
        let batch = encode_all(
            &mut enc,
            &[Event::Schema(v2.clone()), change(&v2, 4, Value::Null)],
        );
        let (_, entries) = parse(&batch);
        assert_eq!(entries.len(), 2);
        let mut r = Reader::new(entries[0].1);
        assert_eq!(r.u32(), 1, "table id is stable across versions");
        assert_eq!(r.u32(), 2, "version");
    }

    #[test]
    fn table_descriptor_layout() {
        let mut enc = BatchEncoder::new();
        let batch = encode_all(&mut enc, &[Event::Schema(schema(7))]);
        let (_, entries) = parse(&batch);
        assert_eq!(entries[0].0, tag::TABLE);
        let mut r = Reader::new(entries[0].1);
        assert_eq!(r.u32(), 1);
        assert_eq!(r.u32(), 7);
        assert_eq!(r.str(), "commerce");
        assert_eq!(r.str(), "0");
        assert_eq!(r.str(), "product");
        assert_eq!(r.u16(), 2);
        assert_eq!(r.str(), "sku");
        assert_eq!(r.u8(), ColumnType::Int as u8);
        assert_eq!(r.u8(), COLUMN_FLAG_PRIMARY_KEY);
        assert_eq!(r.i32(), 265);
        assert_eq!(r.u32(), 63);
        assert_eq!(r.u32(), 20);
        assert_eq!(r.u32(), 0);
        assert_eq!(r.str(), "bigint");
        assert_eq!(r.str(), "description");
        assert_eq!(r.u8(), ColumnType::String as u8);
        assert_eq!(r.u8(), COLUMN_FLAG_NULLABLE);
        r.i32();
        r.u32();
        r.u32();
        r.u32();
        assert_eq!(r.str(), "varchar(128)");
        assert!(r.done());
    }

    #[test]
    fn every_value_kind_round_trips() {
        let values = vec![
            Value::Int(-42),
            Value::UInt(u64::MAX),
            Value::Float(1.5),
            Value::Decimal("-12.340".into()),
            Value::String("héllo".into()),
            Value::Bytes(vec![0, 255, 7]),
            Value::Date {
                year: 2024,
                month: 2,
                day: 29,
            },
            Value::DateTime {
                year: 1999,
                month: 12,
                day: 31,
                hour: 23,
                minute: 59,
                second: 58,
                micros: 123_456,
            },
            Value::Time {
                negative: true,
                hours: 838,
                minute: 59,
                second: 59,
                micros: 1,
            },
            Value::Null,
            Value::Absent,
        ];
        let columns = (0..values.len())
            .map(|i| column(&format!("c{i}"), ColumnType::String, "x", i == 0))
            .collect();
        let s = Arc::new(TableSchema {
            keyspace: "ks".into(),
            shard: "-80".into(),
            table: "t".into(),
            columns,
            version: 1,
        });
        let mut enc = BatchEncoder::new();
        let batch = encode_all(
            &mut enc,
            &[Event::Change(ChangeEvent {
                schema: s,
                kind: RowKind::UpdateAfter,
                values,
                commit_ts_millis: 99,
                is_snapshot: true,
            })],
        );
        let (_, entries) = parse(&batch);
        assert_eq!(entries[1].0, tag::RECORD);
        let mut r = Reader::new(entries[1].1);
        assert_eq!(r.u32(), 1);
        assert_eq!(r.u8(), RowKind::UpdateAfter as u8);
        assert_eq!(r.u8(), RECORD_FLAG_SNAPSHOT | RECORD_FLAG_HAS_ABSENT);
        assert_eq!(r.i64(), 99);
        assert_eq!(r.u16(), 11);
        // 11 columns: 2 bytes of null bitmap, 2 bytes of absent bitmap.
        assert_eq!(r.take(2), &[0, 1 << (9 - 8)]);
        assert_eq!(r.take(2), &[0, 1 << (10 - 8)]);
        assert_eq!(r.u8(), value_tag::INT);
        assert_eq!(r.i64(), -42);
        assert_eq!(r.u8(), value_tag::UINT);
        assert_eq!(r.u64(), u64::MAX);
        assert_eq!(r.u8(), value_tag::FLOAT);
        assert_eq!(r.f64(), 1.5);
        assert_eq!(r.u8(), value_tag::DECIMAL);
        assert_eq!(r.str(), "-12.340");
        assert_eq!(r.u8(), value_tag::STRING);
        assert_eq!(r.str(), "héllo");
        assert_eq!(r.u8(), value_tag::BYTES);
        assert_eq!(r.bytes(), &[0, 255, 7]);
        assert_eq!(r.u8(), value_tag::DATE);
        assert_eq!((r.u16(), r.u8(), r.u8()), (2024, 2, 29));
        assert_eq!(r.u8(), value_tag::DATETIME);
        assert_eq!(
            (r.u16(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()),
            (1999, 12, 31, 23, 59, 58)
        );
        assert_eq!(r.u32(), 123_456);
        assert_eq!(r.u8(), value_tag::TIME);
        assert_eq!(r.i64(), -(((838 * 60 + 59) * 60 + 59) * 1_000_000 + 1));
        assert!(r.done(), "null and absent values take no bytes");
    }

    #[test]
    fn no_absent_bitmap_without_absent_values() {
        let mut enc = BatchEncoder::new();
        let batch = encode_all(&mut enc, &[change(&schema(1), 5, Value::Null)]);
        let (_, entries) = parse(&batch);
        let mut r = Reader::new(entries[1].1);
        r.u32();
        r.u8();
        assert_eq!(r.u8(), 0);
        r.i64();
        assert_eq!(r.u16(), 2);
        assert_eq!(r.take(1), &[0b10]);
        assert_eq!(r.u8(), value_tag::INT);
        assert_eq!(r.i64(), 5);
        assert!(r.done());
    }

    #[test]
    fn event_that_does_not_fit_leaves_batch_and_tables_untouched() {
        let mut enc = BatchEncoder::new();
        let s = schema(1);
        let small = change(&s, 1, Value::String("x".into()));
        let big = change(&s, 2, Value::String("y".repeat(1000)));

        // The first event does not fit at all: nothing is appended, and `needed` tells how much
        // a batch holding it alone takes (descriptor included).
        enc.begin(200);
        let needed = match enc.encode(&big) {
            Err(EncodeError::Full { needed }) => needed,
            other => panic!("expected Full, got {other:?}"),
        };
        assert!(enc.is_empty());
        assert_eq!(enc.finish().len(), HEADER_LEN);

        // With exactly `needed` bytes it fits, descriptor included (the failed attempt did not
        // mark the table as sent).
        enc.begin(needed);
        enc.encode(&big).unwrap();
        let batch = enc.finish().to_vec();
        assert_eq!(batch.len(), needed);
        let tags: Vec<u8> = parse(&batch).1.iter().map(|(t, _)| *t).collect();
        assert_eq!(tags, vec![tag::TABLE, tag::RECORD]);

        // A batch that fills up keeps what fit.
        let mut enc = BatchEncoder::new();
        enc.begin(HEADER_LEN + 200);
        enc.encode(&small).unwrap();
        let len_before = enc.len();
        assert!(matches!(enc.encode(&big), Err(EncodeError::Full { .. })));
        assert_eq!(enc.len(), len_before);
        assert_eq!(enc.entry_count(), 2);
        let batch = enc.finish().to_vec();
        assert_eq!(parse(&batch).0.entries, 2);
    }

    #[test]
    fn rolled_back_descriptor_is_resent() {
        let mut enc = BatchEncoder::new();
        let s = schema(1);
        enc.begin(HEADER_LEN + 10);
        assert!(matches!(
            enc.encode(&change(&s, 1, Value::Null)),
            Err(EncodeError::Full { .. })
        ));
        let batch = encode_all(&mut enc, &[change(&s, 1, Value::Null)]);
        let tags: Vec<u8> = parse(&batch).1.iter().map(|(t, _)| *t).collect();
        assert_eq!(tags, vec![tag::TABLE, tag::RECORD]);
        let mut r = Reader::new(parse(&batch).1[0].1);
        assert_eq!(r.u32(), 1, "id not consumed by the failed attempt");
    }

    #[test]
    fn markers_and_positions() {
        let pos = ShardPosition {
            keyspace: "customer".into(),
            shard: "-80".into(),
            gtid: "MySQL56/abc:1-5".into(),
            table_p_ks: vec![],
            tables_to_copy: vec!["t2".into()],
            copy_completed: false,
        };
        let mut enc = BatchEncoder::new();
        let batch = encode_all(
            &mut enc,
            &[
                Event::Mark(pos.clone()),
                Event::Heartbeat {
                    timestamp_millis: 7,
                },
                Event::Ddl {
                    keyspace: "customer".into(),
                    shard: "-80".into(),
                    statement: "alter table t add c int".into(),
                    commit_ts_millis: 8,
                },
                Event::ShardCopyCompleted {
                    keyspace: "customer".into(),
                    shard: "-80".into(),
                },
                Event::CopyCompleted,
                Event::Journal {
                    id: 7,
                    shard: ("customer".into(), "-80".into()),
                    ended: vec![("customer".into(), "-80".into())],
                    started: vec![pos.clone()],
                },
                Event::End,
            ],
        );
        let (h, entries) = parse(&batch);
        assert_eq!(h.flags, FLAG_END_OF_STREAM);
        let tags: Vec<u8> = entries.iter().map(|(t, _)| *t).collect();
        assert_eq!(
            tags,
            vec![
                tag::POSITION,
                tag::HEARTBEAT,
                tag::DDL,
                tag::SHARD_COPY_COMPLETED,
                tag::COPY_COMPLETED,
                tag::JOURNAL,
                tag::END
            ]
        );
        let mut r = Reader::new(entries[0].1);
        assert_eq!(r.str(), "customer");
        assert_eq!(r.str(), "-80");
        assert_eq!(r.u8(), POSITION_ENCODING_JSON);
        let back: ShardPosition = serde_json::from_str(r.str()).unwrap();
        assert_eq!(back, pos);

        let mut r = Reader::new(entries[1].1);
        assert_eq!(r.i64(), 7);

        let mut r = Reader::new(entries[2].1);
        assert_eq!(
            (r.str(), r.str(), r.i64(), r.str()),
            ("customer", "-80", 8, "alter table t add c int")
        );

        let mut r = Reader::new(entries[5].1);
        assert_eq!(r.u16(), 1);
        assert_eq!((r.str(), r.str()), ("customer", "-80"));
        assert_eq!(r.u16(), 1);
        assert_eq!(
            (r.str(), r.str(), r.u8()),
            ("customer", "-80", POSITION_ENCODING_JSON)
        );
        r.str();
        assert_eq!((r.str(), r.str(), r.i64()), ("customer", "-80", 7));
        assert!(r.done());
        assert!(entries[4].1.is_empty() && entries[6].1.is_empty());
    }

    #[test]
    fn a_stale_schema_after_a_newer_one_is_described_again() {
        let mut enc = BatchEncoder::new();
        let v1 = schema(1);
        let v2 = schema(2);
        let batch = encode_all(
            &mut enc,
            &[
                change(&v1, 1, Value::Null),
                Event::Schema(v2.clone()),
                change(&v2, 2, Value::Null),
                change(&v1, 3, Value::Null),
            ],
        );
        let versions: Vec<u32> = parse(&batch)
            .1
            .iter()
            .filter(|(t, _)| *t == tag::TABLE)
            .map(|(_, p)| u32::from_le_bytes(p[4..8].try_into().unwrap()))
            .collect();
        assert_eq!(
            versions,
            vec![1, 2, 1],
            "every record is preceded by its own shape"
        );
    }

    #[test]
    fn tables_are_keyed_by_keyspace_shard_and_table() {
        let mut enc = BatchEncoder::new();
        let a = schema(1);
        let mut other_shard = (*a).clone();
        other_shard.shard = "80-".into();
        let b = Arc::new(other_shard);
        let batch = encode_all(
            &mut enc,
            &[change(&a, 1, Value::Null), change(&b, 1, Value::Null)],
        );
        let (_, entries) = parse(&batch);
        let ids: Vec<u32> = entries
            .iter()
            .filter(|(t, _)| *t == tag::TABLE)
            .map(|(_, p)| u32::from_le_bytes(p[0..4].try_into().unwrap()))
            .collect();
        assert_eq!(ids, vec![1, 2]);
    }

    /// The batch the Java decoder's tests read (BatchDecoderTest): one of every entry and value
    /// kind. The committed file must equal what this encoder writes; regenerate it with
    /// `VITESS_CDC_UPDATE_GOLDEN=1 cargo test -p vitess-cdc-core golden` after a deliberate
    /// format change (and bump VERSION if old readers cannot read it).
    pub(crate) fn golden_events() -> Vec<Event> {
        let mut customer = (*schema(1)).clone();
        customer.keyspace = "customer".into();
        customer.shard = "-80".into();
        customer.table = "customer".into();
        customer.columns = vec![
            column("customer_id", ColumnType::Int, "bigint", true),
            column("email", ColumnType::String, "varbinary(128)", false),
            column("balance", ColumnType::Decimal, "decimal(10,2)", false),
            column("big", ColumnType::UInt, "bigint unsigned", false),
            column("ratio", ColumnType::Double, "double", false),
            column("photo", ColumnType::Bytes, "blob", false),
            column("born", ColumnType::Date, "date", false),
            column("seen", ColumnType::DateTime, "datetime(6)", false),
            column("took", ColumnType::Time, "time(6)", false),
            column("note", ColumnType::String, "text", false),
            column("zero", ColumnType::Date, "date", false),
        ];
        let customer = Arc::new(customer);
        let pos = ShardPosition {
            keyspace: "customer".into(),
            shard: "-80".into(),
            gtid: "MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-42".into(),
            table_p_ks: vec![],
            tables_to_copy: vec![],
            copy_completed: true,
        };
        vec![
            Event::Schema(customer.clone()),
            Event::Change(ChangeEvent {
                schema: customer.clone(),
                kind: RowKind::Insert,
                values: vec![
                    Value::Int(1),
                    Value::String("alice@example.com".into()),
                    Value::Decimal("-12.30".into()),
                    Value::UInt(u64::MAX),
                    Value::Float(0.25),
                    Value::Bytes(vec![0xde, 0xad, 0xbe, 0xef]),
                    Value::Date {
                        year: 2024,
                        month: 2,
                        day: 29,
                    },
                    Value::DateTime {
                        year: 2025,
                        month: 1,
                        day: 2,
                        hour: 3,
                        minute: 4,
                        second: 5,
                        micros: 678_901,
                    },
                    Value::Time {
                        negative: true,
                        hours: 838,
                        minute: 59,
                        second: 59,
                        micros: 0,
                    },
                    Value::Null,
                    Value::Date {
                        year: 0,
                        month: 0,
                        day: 0,
                    },
                ],
                commit_ts_millis: 1_700_000_000_123,
                is_snapshot: false,
            }),
            Event::Change(ChangeEvent {
                schema: customer.clone(),
                kind: RowKind::UpdateBefore,
                values: vec![
                    Value::Int(2),
                    Value::String("ünïcödé 😀".into()),
                    Value::Null,
                    Value::Absent,
                    Value::Null,
                    Value::Absent,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Absent,
                    Value::Null,
                ],
                commit_ts_millis: 0,
                is_snapshot: true,
            }),
            Event::Mark(pos.clone()),
            Event::Heartbeat {
                timestamp_millis: 1_700_000_000_999,
            },
            Event::Ddl {
                keyspace: "customer".into(),
                shard: "-80".into(),
                statement: "alter table customer add column note text".into(),
                commit_ts_millis: 1_700_000_001_000,
            },
            Event::ShardCopyCompleted {
                keyspace: "customer".into(),
                shard: "-80".into(),
            },
            Event::CopyCompleted,
            Event::Journal {
                id: 1_234_567_890_123,
                shard: ("customer".into(), "-80".into()),
                ended: vec![("customer".into(), "-80".into())],
                started: vec![pos],
            },
            Event::End,
        ]
    }

    #[test]
    fn golden_batch_matches_the_java_fixture() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../java/vitess-cdc-connector/src/test/resources/batch/golden-v1.bin"
        );
        let mut enc = BatchEncoder::new();
        let batch = encode_all(&mut enc, &golden_events());
        if std::env::var_os("VITESS_CDC_UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(std::path::Path::new(path).parent().unwrap()).unwrap();
            std::fs::write(path, &batch).unwrap();
        }
        let committed =
            std::fs::read(path).expect("golden batch file (VITESS_CDC_UPDATE_GOLDEN=1 writes it)");
        assert!(
            committed == batch,
            "the encoder no longer writes {path}: a format change? see the doc comment"
        );
    }
}
