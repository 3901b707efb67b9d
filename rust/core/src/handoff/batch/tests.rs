// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

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
        gtid: None,
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
        Value::Bytes(vec![0, 255, 7].into()),
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
            gtid: None,
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
    let big = change(&s, 2, Value::String("y".repeat(1000).into()));

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
        snapshots: Vec::new(),
    };
    let started = ShardPosition {
        shard: "-40".into(),
        tables_to_copy: vec![],
        copy_completed: true,
        snapshots: Vec::new(),
        ..pos.clone()
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
                started: vec![started.clone()],
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
    // the facts beside the bytes say what the position says
    assert_eq!(r.u8(), 0, "copy not completed");
    assert_eq!(ShardPosition::from_bytes(r.bytes()).unwrap(), pos);

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
    assert_eq!((r.str(), r.str()), ("customer", "-40"));
    assert_eq!(r.u8(), POSITION_FACT_COPY_COMPLETED);
    assert_eq!(ShardPosition::from_bytes(r.bytes()).unwrap(), started);
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
        snapshots: Vec::new(),
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
                Value::Bytes(vec![0xde, 0xad, 0xbe, 0xef].into()),
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
            gtid: None,
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
            gtid: None,
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
        "/../../java/vitess-cdc-connector/src/test/resources/batch/golden-v2.bin"
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

/// The record entries' value sections of a batch holding one record of `product`.
fn description_of(batch: &[u8]) -> Vec<u8> {
    let (_, entries) = parse(batch);
    let (_, record) = entries
        .iter()
        .find(|(t, _)| *t == tag::RECORD)
        .expect("a record");
    let mut r = Reader::new(record);
    r.u32(); // table id
    r.u8(); // kind
    let flags = r.u8();
    assert_eq!(
        flags & (RECORD_FLAG_FLINK_ROW | RECORD_FLAG_JSON_ROW),
        0,
        "as values"
    );
    r.i64(); // commit time
    assert_eq!(r.u16(), 2);
    r.u8(); // null bitmap
    assert_eq!(r.u8(), value_tag::INT);
    r.i64();
    assert_eq!(r.u8(), value_tag::STRING);
    let text = r.bytes().to_vec();
    assert!(r.done());
    text
}

#[test]
fn long_values_are_copied_once_into_the_consumers_buffer_at_their_place() {
    let s = schema(1);
    let long = "é".repeat(SPLICE_MIN_BYTES); // 2 bytes each: twice the threshold
    let events = [
        change(&s, 1, Value::String("short".into())),
        change(&s, 2, Value::String(long.as_str().into())),
        change(&s, 3, Value::String("after".into())),
    ];
    let mut enc = BatchEncoder::new();
    let contiguous = encode_all(&mut enc, &events);
    assert!(contiguous.len() > 2 * SPLICE_MIN_BYTES);

    enc.reset_tables();
    enc.begin(usize::MAX);
    for e in &events {
        enc.encode(e).unwrap();
    }
    assert_eq!(enc.len(), contiguous.len(), "the spliced value counts");
    let mut out = vec![0u8; contiguous.len() + 1];
    assert_eq!(enc.finish_to(&mut out[..]).unwrap(), Some(contiguous.len()));
    assert_eq!(&out[..contiguous.len()], &contiguous[..]);

    // Too small a buffer: refused, nothing written.
    enc.reset_tables();
    enc.begin(usize::MAX);
    enc.encode(&events[1]).unwrap();
    let mut short = vec![7u8; enc.len() - 1];
    assert_eq!(enc.finish_to(&mut short[..]).unwrap(), None);
    assert!(short.iter().all(|&b| b == 7));
}

#[test]
fn a_long_value_that_does_not_fit_reports_what_it_needs_and_is_rolled_back() {
    let s = schema(1);
    let long = change(
        &s,
        2,
        Value::String("x".repeat(SPLICE_MIN_BYTES + 5).into()),
    );
    let mut enc = BatchEncoder::new();
    enc.begin(HEADER_LEN + 1024);
    enc.encode(&change(&s, 1, Value::String("a".into())))
        .unwrap();
    let before = enc.len();
    let needed = match enc.encode(&long) {
        Err(EncodeError::Full { needed }) => needed,
        other => panic!("expected Full, got {other:?}"),
    };
    assert_eq!(
        enc.len(),
        before,
        "the spliced value went with the rollback"
    );
    let kept = enc.finish().to_vec();
    assert_eq!(parse(&kept).0.entries, 2);

    // The table was described in the kept batch: `needed` is the record's batch alone.
    enc.begin(needed);
    enc.encode(&long).unwrap();
    assert_eq!(enc.len(), needed);
}

#[test]
fn rows_with_a_long_value_go_as_values_in_every_row_form() {
    let s = schema(1);
    let text = "y".repeat(SPLICE_MIN_BYTES);
    let event = change(&s, 7, Value::String(text.as_str().into()));
    let mut json = BatchEncoder::new();
    json.set_json_rows(true);
    assert_eq!(
        description_of(&encode_all(&mut json, std::slice::from_ref(&event))),
        text.as_bytes()
    );
    // A Flink row likewise.
    let mut flink = BatchEncoder::new();
    flink.set_row_layout(Some(
        serde_json::from_str(
            r#"{"fields":[{"name":"sku","type":{"root":"BIGINT"}},
                          {"name":"description","type":{"root":"VARCHAR"}}]}"#,
        )
        .unwrap(),
    ));
    assert_eq!(
        description_of(&encode_all(&mut flink, std::slice::from_ref(&event))),
        text.as_bytes()
    );
    // One byte shorter: the core writes the JSON row itself.
    let shorter = change(&s, 7, Value::String(text[1..].into()));
    let batch = encode_all(&mut json, &[shorter]);
    let (_, entries) = parse(&batch);
    let (_, record) = entries.iter().find(|(t, _)| *t == tag::RECORD).unwrap();
    assert_ne!(record[5] & RECORD_FLAG_JSON_ROW, 0, "the record's flags");
    let shorter = change(&s, 7, Value::String(text[1..].into()));
    let batch = encode_all(&mut flink, &[shorter]);
    let (_, entries) = parse(&batch);
    let (_, record) = entries.iter().find(|(t, _)| *t == tag::RECORD).unwrap();
    assert_ne!(
        record[5] & RECORD_FLAG_FLINK_ROW,
        0,
        "the table has a row plan"
    );
}
