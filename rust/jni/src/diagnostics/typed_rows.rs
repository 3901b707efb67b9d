// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A synthetic stream of `customer.all_types` rows (every type family, fixed column names) with
//! edge values, for the test that pins the core's Flink rows to Flink's own `BinaryRowWriter`
//! (`NativeFlinkRowsTest`): opened once with values only and once with a declared row, the same
//! seed gives the same records, so each core-written row is compared with what the Java reader
//! writes from the values.

use super::synth::{all_types_schema, random_position, random_value, Rng, Scripted};
use vitess_cdc_core::event::{ChangeEvent, Column, ColumnType, RowKind};
use vitess_cdc_core::{Event, Value};

/// `rows` random records (an update as its two images) with position marks between them, then
/// `END`, in chunks of 1..=64 events.
pub fn typed_stream(seed: u64, rows: usize) -> Scripted {
    let mut rng = Rng::new(seed);
    let schema = all_types_schema();
    let mut events = vec![Event::Schema(schema.clone())];
    let mut written = 0;
    while written < rows {
        if rng.percent(10) {
            events.push(Event::Mark(random_position(
                &mut rng,
                &schema.keyspace,
                &schema.shard,
            )));
            continue;
        }
        let kind = *rng.pick(&[
            RowKind::Insert,
            RowKind::UpdateBefore,
            RowKind::Delete,
            RowKind::SnapshotRead,
        ]);
        let kinds: &[RowKind] = if kind == RowKind::UpdateBefore {
            &[RowKind::UpdateBefore, RowKind::UpdateAfter]
        } else {
            std::slice::from_ref(&kind)
        };
        let commit_ts_millis = if kind == RowKind::SnapshotRead {
            0
        } else {
            1_600_000_000_000 + rng.below(1 << 40) as i64
        };
        for &kind in kinds {
            // A quarter of the rows hold the extremes; the rest what their columns can hold.
            let extremes = if rng.percent(25) { 10 } else { 0 };
            let values = schema
                .columns
                .iter()
                .map(|c| match rng.below(100) {
                    0..=7 => Value::Null,
                    8..=9 => Value::Absent,
                    _ if rng.percent(extremes) => {
                        let big = rng.percent(5);
                        random_value(&mut rng, c.column_type, big)
                    }
                    _ => typed_value(&mut rng, c),
                })
                .collect();
            events.push(Event::Change(ChangeEvent {
                schema: schema.clone(),
                kind,
                values,
                commit_ts_millis,
                is_snapshot: kind == RowKind::SnapshotRead || rng.percent(10),
                gtid: None,
            }));
            written += 1;
        }
    }
    events.push(Event::End);
    let mut chunks = Vec::new();
    let mut rest = events.into_iter().peekable();
    while rest.peek().is_some() {
        let n = 1 + rng.below(64) as usize;
        chunks.push(rest.by_ref().take(n).collect());
    }
    Scripted::new(chunks)
}

/// A value the column can hold, at the edges of its MySQL type (so most rows are the core's to
/// write); the extremes of the synthetic stream come from `random_value`.
fn typed_value(rng: &mut Rng, c: &Column) -> Value {
    // The signed range of the column's integer type (the unsigned one's top is twice it).
    let (min, max): (i64, i64) = match c.mysql_type.split(' ').next().unwrap_or("") {
        "tinyint" | "tinyint(1)" => (-128, 127),
        "smallint" => (-32_768, 32_767),
        "mediumint" => (-8_388_608, 8_388_607),
        "int" => (i32::MIN as i64, i32::MAX as i64),
        "year" => (1901, 2155),
        _ => (i64::MIN, i64::MAX),
    };
    let fraction_step = 10u32.pow(6 - c.decimals.min(6));
    match c.column_type {
        ColumnType::Int | ColumnType::Year => {
            let any = min.saturating_add((rng.next_u64() % 1000) as i64);
            Value::Int(*rng.pick(&[0, 1, -1, min, max, any.min(max)]))
        }
        ColumnType::UInt => {
            let top = (max as u64).saturating_mul(2).saturating_add(1);
            Value::UInt(*rng.pick(&[0, 1, top, top / 3]))
        }
        ColumnType::Decimal => Value::Decimal(fitting_decimal(rng, c.length, c.decimals).into()),
        ColumnType::Float | ColumnType::Double => {
            Value::Float(*rng.pick(&[0.0, -0.0, 1.5, -2.25, 1e300, f64::from(0.1f32)]))
        }
        ColumnType::String | ColumnType::Enum | ColumnType::Set | ColumnType::Json => {
            Value::String(
                (*rng.pick(&[
                    "",
                    "a",
                    "seven77",
                    "eight888",
                    "😀𝄞",
                    "中文 ☕ text longer than 7",
                ]))
                .into(),
            )
        }
        ColumnType::Bytes | ColumnType::Bit | ColumnType::Geometry => {
            let len = *rng.pick(&[0usize, 1, 7, 8, 9, 33]);
            Value::Bytes(
                (0..len)
                    .map(|_| rng.next_u64() as u8)
                    .collect::<Vec<_>>()
                    .into(),
            )
        }
        ColumnType::Date => Value::Date {
            year: 1970 + rng.below(60) as u16,
            month: 1 + rng.below(12) as u8,
            day: 1 + rng.below(28) as u8,
        },
        ColumnType::DateTime | ColumnType::Timestamp => Value::DateTime {
            year: *rng.pick(&[1000u16, 1969, 1970, 2024, 9999]),
            month: 1 + rng.below(12) as u8,
            day: 1 + rng.below(28) as u8,
            hour: rng.below(24) as u8,
            minute: rng.below(60) as u8,
            second: rng.below(60) as u8,
            micros: *rng.pick(&[0u32, 1_000, 123_000, 999_999, 500]) / fraction_step
                * fraction_step,
        },
        ColumnType::Time => Value::Time {
            negative: rng.percent(10),
            hours: rng.below(24) as u32,
            minute: rng.below(60) as u8,
            second: rng.below(60) as u8,
            micros: *rng.pick(&[0u32, 250_000, 999_000, 7]) / fraction_step * fraction_step,
        },
    }
}

/// A decimal the column `decimal(length, decimals)` holds, its extremes among them, and now and
/// then one of 38 digits (Flink's widest DECIMAL).
fn fitting_decimal(rng: &mut Rng, length: u32, decimals: u32) -> String {
    let int_digits = length.saturating_sub(decimals).max(1) as usize;
    let nines = if decimals == 0 {
        "9".repeat(int_digits)
    } else {
        format!(
            "{}.{}",
            "9".repeat(int_digits),
            "9".repeat(decimals as usize)
        )
    };
    match rng.below(12) {
        0 => format!("{}.{}", "9".repeat(28), "9".repeat(10)),
        1 => nines,
        2 => format!("-{nines}"),
        3 => "0".into(),
        _ => {
            let digits = 1 + rng.below(int_digits as u64);
            let scale = rng.below(decimals as u64 + 1);
            let mut s = String::new();
            if rng.percent(40) {
                s.push('-');
            }
            s.push(char::from(b'1' + rng.below(9) as u8));
            for _ in 1..digits {
                s.push(char::from(b'0' + rng.below(10) as u8));
            }
            if scale > 0 {
                s.push('.');
                for _ in 0..scale {
                    s.push(char::from(b'0' + rng.below(10) as u8));
                }
            }
            s
        }
    }
}
