// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Synthetic streams for tests and benchmarks of the bridge, without a server.
//!
//! - [`random_stream`]: events of every column type generated from a seed (extreme integers,
//!   NaN and infinities, zero and invalid dates, negative and > 24 h times, 4-byte UTF-8, empty
//!   and large strings and bytes, NULL, absent values, schema changes, position marks and the
//!   other markers), handed out in chunks of random size and ended by `END`. It runs behind the
//!   real `nativePoll`, so a Java test decodes exactly what the bridge delivers. [`expected`]
//!   renders the same events in the canonical text the Java round-trip test renders from its
//!   decoded batches.
//! - [`PreEncoded`]: one batch encoded once and copied on every poll, so a benchmark measures the
//!   JNI boundary itself (no encoding); shaped like `customer.customer` or `customer.all_types`.
//!
//! Everything is deterministic in the seed (SplitMix64, no dependency on `rand`'s algorithms).

use crate::stream::{EventSource, PollOutcome};
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use vitess_cdc_core::batch::{BatchEncoder, EncodeError};
use vitess_cdc_core::event::{ChangeEvent, Column, ColumnType, RowKind, TableSchema};
use vitess_cdc_core::position::TableLastPk;
use vitess_cdc_core::{Error, Event, Result, ShardPosition, Value};

/// SplitMix64: tiny, fast, and the same sequence everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `percent`/100.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Every column type, in code order.
pub const ALL_COLUMN_TYPES: [ColumnType; 17] = [
    ColumnType::Int,
    ColumnType::UInt,
    ColumnType::Float,
    ColumnType::Double,
    ColumnType::Decimal,
    ColumnType::String,
    ColumnType::Bytes,
    ColumnType::Date,
    ColumnType::DateTime,
    ColumnType::Timestamp,
    ColumnType::Time,
    ColumnType::Year,
    ColumnType::Enum,
    ColumnType::Set,
    ColumnType::Json,
    ColumnType::Bit,
    ColumnType::Geometry,
];

fn column(
    name: &str,
    column_type: ColumnType,
    mysql_type: &str,
    length: u32,
    decimals: u32,
) -> Column {
    Column {
        name: name.into(),
        column_type,
        mysql_type: mysql_type.into(),
        vitess_type: 0,
        charset: if matches!(
            column_type,
            ColumnType::Bytes | ColumnType::Bit | ColumnType::Geometry
        ) {
            63
        } else {
            255
        },
        length,
        decimals,
        nullable: true,
        primary_key: false,
    }
}

fn pk(mut c: Column) -> Column {
    c.primary_key = true;
    c.nullable = false;
    c
}

// ---- shapes for the benchmark ----

/// `customer.customer` (tests/vitess/schema/customer/01_tables.sql).
pub const SHAPE_CUSTOMER: i32 = 1;
/// `customer.all_types`: one column of every MySQL type family (44 columns).
pub const SHAPE_ALL_TYPES: i32 = 2;

pub fn customer_schema() -> Arc<TableSchema> {
    Arc::new(TableSchema {
        keyspace: "customer".into(),
        shard: "-80".into(),
        table: "customer".into(),
        columns: vec![
            pk(column("customer_id", ColumnType::Int, "bigint", 20, 0)),
            column("email", ColumnType::String, "varchar(128)", 512, 0),
            column("name", ColumnType::String, "varchar(64)", 256, 0),
            column("balance", ColumnType::Decimal, "decimal(12,2)", 12, 2),
            column("visits", ColumnType::Int, "int", 11, 0),
            column("updated_at", ColumnType::DateTime, "datetime(6)", 26, 6),
        ],
        version: 1,
    })
}

pub fn customer_row(i: u64) -> Vec<Value> {
    vec![
        Value::Int(i as i64),
        Value::String(format!("user{i}@example.com").into()),
        Value::String(format!("Customer Name {}", i % 1000).into()),
        Value::Decimal(format!("{}.{:02}", i % 100_000, i % 100).into()),
        Value::Int((i % 1000) as i64),
        Value::DateTime {
            year: 2026,
            month: 1 + (i % 12) as u8,
            day: 1 + (i % 28) as u8,
            hour: (i % 24) as u8,
            minute: (i % 60) as u8,
            second: (i % 60) as u8,
            micros: (i % 1_000_000) as u32,
        },
    ]
}

pub fn all_types_schema() -> Arc<TableSchema> {
    use ColumnType::*;
    let c = column;
    Arc::new(TableSchema {
        keyspace: "customer".into(),
        shard: "80-".into(),
        table: "all_types".into(),
        columns: vec![
            pk(c("id", Int, "bigint", 20, 0)),
            c("c_tinyint", Int, "tinyint", 4, 0),
            c("c_tinyint_u", UInt, "tinyint unsigned", 3, 0),
            c("c_smallint", Int, "smallint", 6, 0),
            c("c_smallint_u", UInt, "smallint unsigned", 5, 0),
            c("c_mediumint", Int, "mediumint", 9, 0),
            c("c_mediumint_u", UInt, "mediumint unsigned", 8, 0),
            c("c_int", Int, "int", 11, 0),
            c("c_int_u", UInt, "int unsigned", 10, 0),
            c("c_bigint", Int, "bigint", 20, 0),
            c("c_bigint_u", UInt, "bigint unsigned", 20, 0),
            c("c_bool", Int, "tinyint(1)", 1, 0),
            c("c_decimal", Decimal, "decimal(30,10)", 30, 10),
            c("c_decimal0", Decimal, "decimal(20,0)", 20, 0),
            c("c_float", Float, "float", 12, 31),
            c("c_double", Double, "double", 22, 31),
            c("c_bit1", Bit, "bit(1)", 1, 0),
            c("c_bit64", Bit, "bit(64)", 64, 0),
            c("c_date", Date, "date", 10, 0),
            c("c_datetime", DateTime, "datetime", 19, 0),
            c("c_datetime6", DateTime, "datetime(6)", 26, 6),
            c("c_timestamp", Timestamp, "timestamp(3)", 23, 3),
            c("c_time", Time, "time", 10, 0),
            c("c_time6", Time, "time(6)", 17, 6),
            c("c_year", Year, "year", 4, 0),
            c("c_char", String, "char(10)", 40, 0),
            c("c_varchar", String, "varchar(255)", 1020, 0),
            c("c_varchar_bin", Bytes, "varbinary(64)", 64, 0),
            c("c_tinytext", String, "tinytext", 255, 0),
            c("c_text", String, "text", 65535, 0),
            c("c_mediumtext", String, "mediumtext", 16_777_215, 0),
            c("c_longtext", String, "longtext", u32::MAX, 0),
            c("c_latin1", String, "varchar(32)", 32, 0),
            c("c_binary", Bytes, "binary(16)", 16, 0),
            c("c_varbinary", Bytes, "varbinary(255)", 255, 0),
            c("c_tinyblob", Bytes, "tinyblob", 255, 0),
            c("c_blob", Bytes, "blob", 65535, 0),
            c("c_mediumblob", Bytes, "mediumblob", 16_777_215, 0),
            c("c_longblob", Bytes, "longblob", u32::MAX, 0),
            c("c_enum", Enum, "enum('small','medium','large')", 24, 0),
            c("c_set", Set, "set('a','b','c','d')", 28, 0),
            c("c_json", Json, "json", u32::MAX, 0),
            c("c_geometry", Geometry, "geometry", u32::MAX, 0),
            c("c_point", Geometry, "point", u32::MAX, 0),
        ],
        version: 1,
    })
}

pub fn all_types_row(i: u64) -> Vec<Value> {
    let n = i as i64;
    let text = |len: usize| -> String {
        "Lorem ipsum dolor sit amet, consectetur adipiscing elit. "
            .chars()
            .cycle()
            .take(len)
            .collect()
    };
    let bytes = |len: usize| -> Vec<u8> { (0..len).map(|b| (b as u64 ^ i) as u8).collect() };
    let point = {
        // WKB point with SRID prefix, as MySQL stores it.
        let mut p = vec![0, 0, 0, 0, 1, 1, 0, 0, 0];
        p.extend_from_slice(&(n as f64).to_le_bytes());
        p.extend_from_slice(&(-(n as f64)).to_le_bytes());
        p
    };
    vec![
        Value::Int(n),
        Value::Int(n % 128),
        Value::UInt(i % 256),
        Value::Int(n % 32768),
        Value::UInt(i % 65536),
        Value::Int(n % 8_388_608),
        Value::UInt(i % 16_777_216),
        Value::Int(n % 2_147_483_648),
        Value::UInt(i % 4_294_967_296),
        Value::Int(n.wrapping_mul(7_919)),
        Value::UInt(u64::MAX - i),
        Value::Int(n % 2),
        Value::Decimal(format!("{}.{:010}", n % 100_000_000, i % 10_000_000_000).into()),
        Value::Decimal(format!("{}", i % 100_000_000_000_000_000).into()),
        Value::Float((n % 10_000) as f64 + 0.5),
        Value::Float(n as f64 / 7.0),
        Value::Bytes(vec![(i % 2) as u8].into()),
        Value::Bytes(i.to_be_bytes().to_vec().into()),
        Value::Date {
            year: 2000 + (i % 50) as u16,
            month: 1 + (i % 12) as u8,
            day: 1 + (i % 28) as u8,
        },
        Value::DateTime {
            year: 2020,
            month: 1 + (i % 12) as u8,
            day: 1 + (i % 28) as u8,
            hour: (i % 24) as u8,
            minute: (i % 60) as u8,
            second: (i % 60) as u8,
            micros: 0,
        },
        Value::DateTime {
            year: 2021,
            month: 1 + (i % 12) as u8,
            day: 1 + (i % 28) as u8,
            hour: (i % 24) as u8,
            minute: (i % 60) as u8,
            second: (i % 60) as u8,
            micros: (i % 1_000_000) as u32,
        },
        Value::DateTime {
            year: 2022,
            month: 1 + (i % 12) as u8,
            day: 1 + (i % 28) as u8,
            hour: (i % 24) as u8,
            minute: (i % 60) as u8,
            second: (i % 60) as u8,
            micros: (i % 1000) as u32 * 1000,
        },
        Value::Time {
            negative: false,
            hours: (i % 24) as u32,
            minute: (i % 60) as u8,
            second: (i % 60) as u8,
            micros: 0,
        },
        Value::Time {
            negative: false,
            hours: (i % 24) as u32,
            minute: (i % 60) as u8,
            second: (i % 60) as u8,
            micros: (i % 1_000_000) as u32,
        },
        Value::Int(1901 + (n % 255)),
        Value::String(format!("c{}", i % 100_000).into()),
        Value::String(format!("varchar value {i} héllo ☕").into()),
        Value::Bytes(bytes(12).into()),
        Value::String(text(40).into()),
        Value::String(text(200).into()),
        Value::String(text(300).into()),
        Value::String(text(400).into()),
        Value::String("latin1 café".into()),
        Value::Bytes(bytes(16).into()),
        Value::Bytes(bytes(24).into()),
        Value::Bytes(bytes(32).into()),
        Value::Bytes(bytes(100).into()),
        Value::Bytes(bytes(200).into()),
        Value::Bytes(bytes(300).into()),
        Value::String(["small", "medium", "large"][(i % 3) as usize].into()),
        Value::String("a,c".into()),
        Value::String(format!("{{\"id\": {i}, \"tags\": [\"a\", \"b\"]}}").into()),
        Value::Bytes(point.clone().into()),
        Value::Bytes(point.into()),
    ]
}

/// Values of row `i` of a shape.
type RowFn = fn(u64) -> Vec<Value>;

fn shape(shape: i32) -> Result<(Arc<TableSchema>, RowFn)> {
    match shape {
        SHAPE_CUSTOMER => Ok((customer_schema(), customer_row)),
        SHAPE_ALL_TYPES => Ok((all_types_schema(), all_types_row)),
        other => Err(Error::config(format!(
            "unknown synthetic shape {other} (1 = customer, 2 = all_types)"
        ))),
    }
}

/// A batch encoded once, copied into the caller's buffer by every poll: the first poll gets a
/// batch that starts with the table descriptor, later polls a batch of records only (what a
/// stream sends once its tables are known).
#[derive(Debug)]
pub struct PreEncoded {
    first: Vec<u8>,
    steady: Vec<u8>,
    rows: usize,
    polled: AtomicBool,
}

impl PreEncoded {
    /// As many rows of `shape` as fit into `batch_bytes`.
    pub fn new(shape_code: i32, batch_bytes: usize) -> Result<Self> {
        let (schema, row) = shape(shape_code)?;
        let change = |i: u64| {
            Event::Change(ChangeEvent {
                schema: schema.clone(),
                kind: RowKind::Insert,
                values: row(i),
                commit_ts_millis: 1_767_225_600_000 + i as i64,
                is_snapshot: false,
                gtid: None,
            })
        };
        // A batch of as many rows as fit into `limit` bytes, at least one (with the descriptor,
        // the first batch may need more than the steady ones).
        let encode = |with_table: bool, limit: usize| -> Result<(Vec<u8>, usize)> {
            let fail =
                |e: EncodeError| Error::fatal(format!("cannot encode a synthetic row: {e:?}"));
            let mut encoder = BatchEncoder::new();
            if !with_table {
                // Make the table known; the batch that is measured starts after it.
                encoder.begin(usize::MAX);
                encoder
                    .encode(&Event::Schema(schema.clone()))
                    .map_err(fail)?;
            }
            encoder.begin(limit);
            let mut rows = 0u64;
            loop {
                match encoder.encode(&change(rows)) {
                    Ok(()) => rows += 1,
                    Err(EncodeError::Full { .. }) if rows > 0 => break,
                    Err(EncodeError::Full { needed }) => {
                        // Not even one row fits: one row anyway, in a batch of its own size.
                        encoder.begin(needed);
                        encoder.encode(&change(0)).map_err(fail)?;
                        rows = 1;
                        break;
                    }
                    Err(e) => return Err(fail(e)),
                }
            }
            Ok((encoder.finish().to_vec(), rows as usize))
        };
        if batch_bytes == 0 {
            return Err(Error::config("a synthetic batch needs at least 1 byte"));
        }
        let (first, _) = encode(true, batch_bytes)?;
        let (steady, rows) = encode(false, batch_bytes)?;
        Ok(PreEncoded {
            first,
            steady,
            rows,
            polled: AtomicBool::new(false),
        })
    }

    /// Records in each batch after the first.
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn poll(&self, out: &mut [u8]) -> PollOutcome {
        let first = !self.polled.load(Ordering::Relaxed);
        let batch = if first { &self.first } else { &self.steady };
        match out.get_mut(..batch.len()) {
            Some(dst) => {
                vitess_cdc_core::handoff::copy::copy_batch(dst, batch);
                if first {
                    self.polled.store(true, Ordering::Relaxed);
                }
                PollOutcome::Batch(batch.len())
            }
            None => PollOutcome::NeedCapacity(batch.len()),
        }
    }
}

// ---- random streams for the round-trip tests ----

/// Hands out pre-made chunks in order, then nothing (a poll returns at once).
#[derive(Debug)]
pub struct Scripted {
    chunks: Mutex<VecDeque<Vec<Event>>>,
}

impl Scripted {
    pub fn new(chunks: impl IntoIterator<Item = Vec<Event>>) -> Self {
        Scripted {
            chunks: Mutex::new(chunks.into_iter().collect()),
        }
    }
}

impl EventSource for Scripted {
    fn poll(&self, _timeout: Duration) -> Result<Vec<Event>> {
        let mut chunks = self.chunks.lock().unwrap_or_else(|e| e.into_inner());
        Ok(chunks.pop_front().unwrap_or_default())
    }

    fn close(&self) {}
}

/// [`random_events`] in chunks of 1..=64 events, as the source would hand them over.
pub fn random_stream(seed: u64, count: usize) -> Scripted {
    let events = random_events(seed, count);
    let mut rng = Rng::new(seed ^ 0xC0FF_EE00_DEAD_BEEF);
    let mut chunks = Vec::new();
    let mut rest = events.into_iter().peekable();
    while rest.peek().is_some() {
        let n = 1 + rng.below(64) as usize;
        chunks.push(rest.by_ref().take(n).collect());
    }
    Scripted::new(chunks)
}

const KEYSPACES: [&str; 3] = ["commerce", "customer", "ks_ü"];
const SHARDS: [&str; 4] = ["0", "-80", "80-", "-"];

fn random_text(rng: &mut Rng, max_chars: u64) -> String {
    const POOL: [&str; 14] = [
        "a", "Z", "0", " ", "|", "\n", "\0", "é", "ß", "€", "☕", "中", "😀", "𝄞",
    ];
    let n = rng.below(max_chars + 1);
    (0..n).map(|_| *rng.pick(&POOL)).collect()
}

fn random_bytes(rng: &mut Rng, max: u64) -> Vec<u8> {
    let n = rng.below(max + 1);
    (0..n).map(|_| rng.next_u64() as u8).collect()
}

fn random_schema(
    rng: &mut Rng,
    keyspace: &str,
    shard: &str,
    table: &str,
    version: u32,
) -> TableSchema {
    let extra = rng.below(24) as usize;
    let mut columns = Vec::with_capacity(ALL_COLUMN_TYPES.len() + extra + 1);
    columns.push(pk(column("id", ColumnType::Int, "bigint", 20, 0)));
    // Every type at least once, then random ones.
    let types: Vec<ColumnType> = ALL_COLUMN_TYPES
        .iter()
        .copied()
        .chain((0..extra).map(|_| *rng.pick(&ALL_COLUMN_TYPES)))
        .collect();
    for (i, t) in types.into_iter().enumerate() {
        let name = if rng.percent(20) {
            format!("c{i}_{}", random_text(rng, 6))
        } else {
            format!("c{i}_{t:?}").to_lowercase()
        };
        let mysql = match t {
            ColumnType::Enum => format!("enum('☕','{}')", random_text(rng, 3)),
            _ => format!("{t:?}").to_lowercase(),
        };
        let mut c = column(
            &name,
            t,
            &mysql,
            rng.next_u64() as u32,
            rng.below(40) as u32,
        );
        c.vitess_type = rng.next_u64() as i32;
        c.charset = *rng.pick(&[8u32, 33, 45, 63, 255, u32::MAX]);
        c.nullable = rng.percent(80);
        c.primary_key = rng.percent(5);
        columns.push(c);
    }
    TableSchema {
        keyspace: keyspace.into(),
        shard: shard.into(),
        table: table.into(),
        columns,
        version,
    }
}

fn random_date(rng: &mut Rng) -> (u16, u8, u8) {
    match rng.below(10) {
        0 => (0, 0, 0),
        1 => (rng.below(10_000) as u16, 0, rng.below(32) as u8),
        2 => (rng.below(10_000) as u16, rng.below(13) as u8, 0),
        3 => (2023, 2, 29),
        4 => (2024, 2, 29),
        5 => (9999, 12, 31),
        6 => (1000, 1, 1),
        _ => (
            rng.below(10_000) as u16,
            1 + rng.below(12) as u8,
            1 + rng.below(31) as u8,
        ),
    }
}

pub(crate) fn random_value(rng: &mut Rng, t: ColumnType, big: bool) -> Value {
    match t {
        ColumnType::Int => Value::Int(match rng.below(6) {
            0 => i64::MIN,
            1 => i64::MAX,
            2 => 0,
            3 => -1,
            _ => rng.next_u64() as i64,
        }),
        ColumnType::Year => Value::Int(*rng.pick(&[0i64, 1901, 2024, 2155])),
        ColumnType::UInt => Value::UInt(match rng.below(5) {
            0 => u64::MAX,
            1 => 1 << 63,
            2 => 0,
            _ => rng.next_u64(),
        }),
        ColumnType::Float | ColumnType::Double => Value::Float(match rng.below(12) {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => -0.0,
            4 => f64::MIN_POSITIVE,
            5 => 5e-324,
            6 => f64::MAX,
            7 => f64::MIN,
            8 => {
                let f = f64::from(f32::from_bits(rng.next_u64() as u32));
                if f.is_nan() {
                    0.25
                } else {
                    f
                }
            }
            _ => {
                let f = f64::from_bits(rng.next_u64());
                if f.is_nan() {
                    1.5
                } else {
                    f
                }
            }
        }),
        ColumnType::Decimal => {
            let int_digits = rng.below(30);
            let scale = rng.below(31);
            let mut s = String::new();
            if rng.percent(40) {
                s.push('-');
            }
            s.push(char::from(b'1' + rng.below(9) as u8));
            for _ in 0..int_digits {
                s.push(char::from(b'0' + rng.below(10) as u8));
            }
            if rng.percent(10) {
                s = "0".into();
            }
            if scale > 0 {
                s.push('.');
                for _ in 0..scale {
                    s.push(char::from(b'0' + rng.below(10) as u8));
                }
            }
            Value::Decimal(s.into())
        }
        ColumnType::String | ColumnType::Enum | ColumnType::Set | ColumnType::Json => {
            if big {
                Value::String(
                    "☕ big value 𝄞 "
                        .repeat(1000 + rng.below(5_000) as usize)
                        .into(),
                )
            } else {
                Value::String(random_text(rng, 40).into())
            }
        }
        ColumnType::Bytes | ColumnType::Bit | ColumnType::Geometry => {
            if big {
                Value::Bytes(random_bytes(rng, 100_000).into())
            } else {
                Value::Bytes(random_bytes(rng, 40).into())
            }
        }
        ColumnType::Date => {
            let (year, month, day) = random_date(rng);
            Value::Date { year, month, day }
        }
        ColumnType::DateTime | ColumnType::Timestamp => {
            let (year, month, day) = random_date(rng);
            let zero = year == 0 && month == 0 && day == 0;
            Value::DateTime {
                year,
                month,
                day,
                hour: if zero { 0 } else { rng.below(24) as u8 },
                minute: if zero { 0 } else { rng.below(60) as u8 },
                second: if zero { 0 } else { rng.below(60) as u8 },
                micros: if zero { 0 } else { rng.below(1_000_000) as u32 },
            }
        }
        ColumnType::Time => match rng.below(5) {
            0 => Value::Time {
                negative: true,
                hours: 838,
                minute: 59,
                second: 59,
                micros: 0,
            },
            1 => Value::Time {
                negative: false,
                hours: 838,
                minute: 59,
                second: 59,
                micros: 999_999,
            },
            _ => Value::Time {
                negative: rng.percent(50),
                hours: rng.below(839) as u32,
                minute: rng.below(60) as u8,
                second: rng.below(60) as u8,
                micros: rng.below(1_000_000) as u32,
            },
        },
    }
}

pub(crate) fn random_position(rng: &mut Rng, keyspace: &str, shard: &str) -> ShardPosition {
    let copying = rng.percent(30);
    ShardPosition {
        keyspace: keyspace.into(),
        shard: shard.into(),
        gtid: format!(
            "MySQL56/{:08x}-0000-0000-0000-{:012x}:1-{}",
            rng.next_u64() as u32,
            rng.next_u64() & 0xffff_ffff_ffff,
            rng.below(1 << 40)
        ),
        table_p_ks: if copying {
            vec![TableLastPk {
                table_name: "t0".into(),
                lastpk: random_bytes(rng, 30),
            }]
        } else {
            Vec::new()
        },
        tables_to_copy: if copying {
            vec!["t1".into()]
        } else {
            Vec::new()
        },
        copy_completed: !copying,
        snapshots: Vec::new(),
    }
}

/// `count` random events (plus the final `END`) over 1–3 tables.
pub fn random_events(seed: u64, count: usize) -> Vec<Event> {
    let mut rng = Rng::new(seed);
    let table_count = 1 + rng.below(3) as usize;
    let mut tables: Vec<Arc<TableSchema>> = (0..table_count)
        .map(|i| {
            let keyspace = *rng.pick(&KEYSPACES);
            let shard = *rng.pick(&SHARDS);
            Arc::new(random_schema(
                &mut rng,
                keyspace,
                shard,
                &format!("t{i}"),
                1,
            ))
        })
        .collect();
    let mut events = Vec::with_capacity(count + 1);
    for _ in 0..count {
        let r = rng.below(100);
        let t = rng.below(tables.len() as u64) as usize;
        let (keyspace, shard) = (tables[t].keyspace.clone(), tables[t].shard.clone());
        let event = if r < 80 {
            let schema = tables[t].clone();
            let big = rng.percent(2);
            let values = schema
                .columns
                .iter()
                .map(|c| match rng.below(100) {
                    0..=9 => Value::Null,
                    10..=14 => Value::Absent,
                    _ => {
                        let big = big && rng.percent(20);
                        random_value(&mut rng, c.column_type, big)
                    }
                })
                .collect();
            Event::Change(ChangeEvent {
                schema,
                kind: *rng.pick(&[
                    RowKind::Insert,
                    RowKind::UpdateBefore,
                    RowKind::UpdateAfter,
                    RowKind::Delete,
                ]),
                values,
                commit_ts_millis: if rng.percent(10) {
                    0
                } else {
                    rng.next_u64() as i64
                },
                is_snapshot: rng.percent(30),
                gtid: None,
            })
        } else if r < 88 {
            Event::Mark(random_position(&mut rng, &keyspace, &shard))
        } else if r < 92 {
            Event::Heartbeat {
                timestamp_millis: rng.next_u64() as i64,
            }
        } else if r < 94 {
            Event::Ddl {
                keyspace,
                shard,
                statement: format!("alter table t{t} add column {}", random_text(&mut rng, 20)),
                commit_ts_millis: rng.next_u64() as i64,
            }
        } else if r < 96 {
            Event::ShardCopyCompleted { keyspace, shard }
        } else if r < 97 {
            Event::CopyCompleted
        } else {
            // The table's shape changes: a new descriptor under the same id.
            let old = tables[t].clone();
            let next = random_schema(
                &mut rng,
                &old.keyspace,
                &old.shard,
                &old.table,
                old.version + 1,
            );
            tables[t] = Arc::new(next);
            Event::Schema(tables[t].clone())
        };
        events.push(event);
    }
    events.push(Event::End);
    events
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize]);
        out.push(DIGITS[(b & 0xf) as usize]);
    }
    // Only ASCII hex digits were pushed.
    String::from_utf8(out).unwrap_or_default()
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        _ => 0,
    }
}

fn valid_date(year: u16, month: u8, day: u8) -> bool {
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

/// One value in the canonical text both sides render (see [`expected`]).
pub fn render_value(v: &Value) -> String {
    match v {
        Value::Null => "N".into(),
        Value::Absent => "A".into(),
        Value::Int(i) => format!("I{i}"),
        Value::UInt(u) => format!("U{u}"),
        Value::Float(f) => format!("F{:016x}", f.to_bits()),
        Value::Decimal(s) => format!("D{s}"),
        Value::String(s) => format!("S{}", hex(s.as_bytes())),
        Value::Bytes(b) => format!("B{}", hex(b)),
        Value::Date { year, month, day } => {
            if valid_date(*year, *month, *day) {
                format!("Y{year:04}-{month:02}-{day:02}")
            } else {
                "Y!".into()
            }
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
            if valid_date(*year, *month, *day)
                && *hour < 24
                && *minute < 60
                && *second < 60
                && *micros < 1_000_000
            {
                format!(
                    "W{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{micros:06}"
                )
            } else {
                "W!".into()
            }
        }
        Value::Time {
            negative,
            hours,
            minute,
            second,
            micros,
        } => {
            let magnitude = ((*hours as i64 * 60 + *minute as i64) * 60 + *second as i64)
                * 1_000_000
                + *micros as i64;
            format!("M{}", if *negative { -magnitude } else { magnitude })
        }
    }
}

fn render_schema(s: &TableSchema) -> String {
    let mut out = format!(
        "{}/{}/{}@{} {}",
        s.keyspace,
        s.shard,
        s.table,
        s.version,
        s.columns.len()
    );
    for c in &s.columns {
        let flags = u8::from(c.primary_key) | (u8::from(c.nullable) << 1);
        let _ = write!(
            out,
            " {}:{}:{}:{}:{}:{}:{}:{}",
            hex(c.name.as_bytes()),
            c.column_type as u8,
            flags,
            c.vitess_type,
            c.charset,
            c.length,
            c.decimals,
            hex(c.mysql_type.as_bytes())
        );
    }
    out
}

/// The canonical rendering of `events`, one line per entry a Java reader sees (table
/// descriptors are not entries here; each record names its table, whose `SCHEMA` line comes
/// first in the output):
///
/// ```text
/// SCHEMA <ks>/<shard>/<table>@<version> <n> <hex name>:<type>:<flags>:<vitess type>:<charset>:<length>:<decimals>:<hex mysql type> ...
/// REC <ks>/<shard>/<table>@<version> <kind 0-3> <snapshot 0|1> <commit ts> <value>|<value>|...
/// POS <ks> <shard> <facts> <hex position bytes>
/// HB <ts>
/// DDL <ks> <shard> <ts> <hex statement>
/// SCC <ks> <shard>
/// CC
/// END
/// ```
///
/// Values: `N` NULL, `A` absent, `I<i64>`, `U<u64>`, `F<16 hex digits of the f64 bits>`,
/// `D<decimal text>`, `S<hex UTF-8>`, `B<hex>`, `Y<yyyy-mm-dd>` or `Y!` (zero or invalid date),
/// `W<yyyy-mm-ddThh:mm:ss.ffffff>` or `W!`, `M<signed microseconds>`.
pub fn expected(events: &[Event]) -> String {
    let mut schemas = String::new();
    let mut seen = std::collections::HashSet::new();
    let mut body = String::new();
    for event in events {
        match event {
            Event::Schema(_) => {}
            Event::Change(c) => {
                let s = &c.schema;
                let key = format!("{}/{}/{}@{}", s.keyspace, s.shard, s.table, s.version);
                if seen.insert(key.clone()) {
                    let _ = writeln!(schemas, "SCHEMA {}", render_schema(s));
                }
                let values: Vec<String> = c.values.iter().map(render_value).collect();
                let _ = writeln!(
                    body,
                    "REC {key} {} {} {} {}",
                    c.kind as u8,
                    u8::from(c.is_snapshot),
                    c.commit_ts_millis,
                    values.join("|")
                );
            }
            Event::Mark(p) => {
                let _ = writeln!(
                    body,
                    "POS {} {} {} {}",
                    p.keyspace,
                    p.shard,
                    vitess_cdc_core::position::facts::of(p),
                    hex(&p.to_bytes())
                );
            }
            Event::Heartbeat { timestamp_millis } => {
                let _ = writeln!(body, "HB {timestamp_millis}");
            }
            Event::Ddl {
                keyspace,
                shard,
                statement,
                commit_ts_millis,
            } => {
                let _ = writeln!(
                    body,
                    "DDL {keyspace} {shard} {commit_ts_millis} {}",
                    hex(statement.as_bytes())
                );
            }
            Event::ShardCopyCompleted { keyspace, shard } => {
                let _ = writeln!(body, "SCC {keyspace} {shard}");
            }
            Event::CopyCompleted => body.push_str("CC\n"),
            Event::End => body.push_str("END\n"),
            // Not generated (see random_events).
            Event::Journal { .. } => body.push_str("JOURNAL\n"),
        }
    }
    schemas + &body
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::StreamHandle;

    #[test]
    fn deterministic_by_seed() {
        // (Compared as text: NaN != NaN.)
        assert_eq!(
            expected(&random_events(7, 300)),
            expected(&random_events(7, 300))
        );
        assert_ne!(
            expected(&random_events(7, 300)),
            expected(&random_events(8, 300))
        );
    }

    #[test]
    fn every_type_and_edge_shows_up_across_seeds() {
        let mut text = String::new();
        for seed in 0..20 {
            text.push_str(&expected(&random_events(seed, 400)));
        }
        for needle in [
            "|N",
            "|A",
            &format!("I{}", i64::MIN),
            &format!("U{}", u64::MAX),
            &format!("F{:016x}", f64::NAN.to_bits()),
            &format!("F{:016x}", f64::INFINITY.to_bits()),
            "Y!",
            "W!",
            "M-3020399000000",
            "|S|",
            "|B|",
            // 4-byte UTF-8: U+1F600 and U+1D11E.
            "f09f9880",
            "f09d849e",
            "\nPOS ",
            "\nHB ",
            "\nDDL ",
            "\nSCC ",
            "\nCC\n",
            "@2 ",
        ] {
            assert!(text.contains(needle), "{needle} never generated");
        }
    }

    #[test]
    fn random_streams_go_through_the_handle_to_the_end() {
        for seed in 0..10 {
            let handle = StreamHandle::new(random_stream(seed, 500));
            let mut buf = vec![0u8; 4096];
            let mut batches = 0;
            loop {
                match handle.poll(&mut buf, Duration::ZERO).unwrap() {
                    PollOutcome::Batch(_) => batches += 1,
                    PollOutcome::NeedCapacity(n) => buf.resize(n, 0),
                    PollOutcome::Timeout => panic!("seed {seed}: stalled"),
                    PollOutcome::End => break,
                }
            }
            assert!(batches > 0);
        }
    }

    #[test]
    fn pre_encoded_batches_fill_the_requested_size() {
        for shape in [SHAPE_CUSTOMER, SHAPE_ALL_TYPES] {
            let p = PreEncoded::new(shape, 64 * 1024).unwrap();
            assert!(p.rows() > 10);
            let mut out = vec![0u8; 64 * 1024];
            let PollOutcome::Batch(first) = p.poll(&mut out) else {
                panic!()
            };
            let PollOutcome::Batch(steady) = p.poll(&mut out) else {
                panic!()
            };
            assert!(first <= 64 * 1024 && steady <= 64 * 1024);
            assert!(steady > 60 * 1024, "{steady}");
            assert_eq!(
                p.poll(&mut [0u8; 100]),
                PollOutcome::NeedCapacity(steady),
                "too small: asks for the batch size"
            );
        }
        assert!(PreEncoded::new(9, 1024).is_err());
        // Smaller than one row: one row anyway.
        let p = PreEncoded::new(SHAPE_CUSTOMER, 1).unwrap();
        assert_eq!(p.rows(), 1);
    }
}
