// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Rows in Flink's binary row layout (`BinaryRowData`), written by the core for a SQL table's
//! declared columns, so the Java reader points a `BinaryRowData` at bytes instead of converting
//! every value again (docs/batch-format.md, "Flink rows").
//!
//! The layout is the one Flink's `BinaryRowWriter` produces, byte for byte: a header of null bits
//! (the first byte holds the row kind, field `i`'s null bit is bit `i + 8`), one 8-byte slot per
//! field, then the variable part, each value rounded up to 8 bytes with zero padding. Text and
//! binary values of at most 7 bytes live in their slot (`0x80 | len` in the slot's last byte);
//! longer ones in the variable part (slot = `offset << 32 | len`). DECIMAL above precision 18
//! keeps 16 bytes of the variable part for its unscaled value (big-endian two's complement, as
//! `BigInteger.toByteArray`), TIMESTAMP above precision 3 keeps 8 for its milliseconds (the slot
//! holds `offset << 32 | nanos of the millisecond`); both keep their bytes when NULL, as Flink's
//! writer does. Every conversion is the one the Java reader makes for the declared type
//! (`FieldConverters`): a value the core does not convert exactly that way — a value that does
//! not fit, or a pair of declared type and value this module leaves to Java — makes the record
//! go out with its values instead, and the Java reader converts it (and reports its error) as
//! before. So a row is either Java's bytes or not written at all.

use super::java_text::{self, epoch_day, plain_decimal};
use crate::event::{ChangeEvent, ColumnType, RowKind, TableSchema};
use crate::value::Value;
use serde::Deserialize;

/// What the consumer declared: its physical fields (matched to the table's columns by name), the
/// metadata fields after them, and whether its changelog is an upsert one.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowLayout {
    pub fields: Vec<DeclaredField>,
    #[serde(default)]
    pub metadata: Vec<MetadataField>,
    /// An upsert changelog: a chunked snapshot's read is written as `+U`. A retract changelog
    /// cannot carry such a read, so those records go to the Java reader, which says so.
    #[serde(default)]
    pub upsert: bool,
}

/// One declared physical field.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclaredField {
    pub name: String,
    #[serde(rename = "type")]
    pub flink_type: FlinkType,
}

/// A declared Flink type, by its `LogicalTypeRoot` name and the precision the layout depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(tag = "root", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FlinkType {
    Boolean,
    Tinyint,
    Smallint,
    Integer,
    Bigint,
    Float,
    Double,
    Decimal {
        precision: u8,
        scale: u8,
    },
    Char,
    Varchar,
    Binary,
    Varbinary,
    Date,
    TimeWithoutTimeZone,
    TimestampWithoutTimeZone {
        precision: u8,
    },
    TimestampWithLocalTimeZone {
        precision: u8,
    },
    /// Any other root: a table that declares one gets no rows from the core.
    #[serde(other)]
    Other,
}

/// A metadata field, by its key in the SQL connector (`VitessReadableMetadata`). `epoch` and
/// `rank` are the reader's to know: the core writes 0 and the reader sets the slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetadataField {
    Keyspace,
    Shard,
    TableName,
    OpTs,
    RowKind,
    IsSnapshot,
    Epoch,
    Rank,
}

/// Flink's compact limits: DECIMAL up to 18 digits is an unscaled long, TIMESTAMP up to 3
/// fractional digits is milliseconds.
const MAX_COMPACT_DECIMAL_PRECISION: u8 = 18;
const MAX_COMPACT_TIMESTAMP_PRECISION: u8 = 3;
/// Flink's DECIMAL and TIMESTAMP precision limits.
const MAX_DECIMAL_PRECISION: u8 = 38;
const MAX_TIMESTAMP_PRECISION: u8 = 9;

/// How the rows of one table shape are written: the column each declared field reads.
#[derive(Debug, Clone)]
pub struct RowPlan {
    fields: Vec<(usize, FlinkType)>,
    metadata: Vec<MetadataField>,
    upsert: bool,
    null_bits_bytes: usize,
}

impl RowPlan {
    /// The plan for `schema`, or `None` when the Java reader must see the values: a declared
    /// field the table lacks or cannot give (Java names the column and the fix), or a type
    /// this module leaves to Java.
    pub fn new(layout: &RowLayout, schema: &TableSchema) -> Option<RowPlan> {
        let mut fields = Vec::with_capacity(layout.fields.len());
        for field in &layout.fields {
            let column = schema
                .columns
                .iter()
                .position(|c| c.name == field.name)
                .or_else(|| {
                    schema
                        .columns
                        .iter()
                        .position(|c| c.name.eq_ignore_ascii_case(&field.name))
                })?;
            if !supported(field.flink_type)
                || !compatible(field.flink_type, schema.columns[column].column_type)
            {
                return None;
            }
            fields.push((column, field.flink_type));
        }
        let arity = fields.len() + layout.metadata.len();
        Some(RowPlan {
            fields,
            metadata: layout.metadata.clone(),
            upsert: layout.upsert,
            // Flink's BinaryRowData.calculateBitSetWidthInBytes: 8 header bits, then one per field.
            null_bits_bytes: (arity + 63 + 8) / 64 * 8,
        })
    }

    fn arity(&self) -> usize {
        self.fields.len() + self.metadata.len()
    }

    /// Appends the row of `change` to `out`, or leaves `out` as it was and answers false when a
    /// value must go to the Java reader.
    pub fn write(&self, change: &ChangeEvent, out: &mut Vec<u8>) -> bool {
        let start = out.len();
        let written = self.write_row(change, out, start);
        if written.is_none() {
            out.truncate(start);
        }
        written.is_some()
    }

    fn write_row(&self, change: &ChangeEvent, out: &mut Vec<u8>, start: usize) -> Option<()> {
        let kind = match change.kind {
            RowKind::SnapshotRead if self.upsert => RowKind::UpdateAfter as u8,
            RowKind::SnapshotRead => return None,
            k => k as u8,
        };
        let fixed = self.null_bits_bytes + 8 * self.arity();
        out.resize(start + fixed, 0);
        let mut row = Row {
            out,
            start,
            null_bits_bytes: self.null_bits_bytes,
        };
        row.out[start] = kind;
        for (pos, &(column, ty)) in self.fields.iter().enumerate() {
            match change.values.get(column)? {
                Value::Null | Value::Absent => row.null(pos, ty),
                value => write_field(&mut row, pos, ty, value)?,
            }
        }
        let schema = &change.schema;
        for (m, field) in self.metadata.iter().enumerate() {
            let pos = self.fields.len() + m;
            match field {
                MetadataField::Keyspace => row.bytes(pos, schema.keyspace.as_bytes()),
                MetadataField::Shard => row.bytes(pos, schema.shard.as_bytes()),
                MetadataField::TableName => row.bytes(pos, schema.table.as_bytes()),
                MetadataField::OpTs => row.slot(pos, &change.commit_ts_millis.to_le_bytes()),
                MetadataField::RowKind => row.bytes(pos, short_string(change.kind).as_bytes()),
                MetadataField::IsSnapshot => row.slot(pos, &[change.is_snapshot as u8]),
                MetadataField::Epoch | MetadataField::Rank => {}
            }
        }
        Some(())
    }
}

/// Java's `ChangeKind.shortString`: what the `row_kind` metadata column reads.
fn short_string(kind: RowKind) -> &'static str {
    match kind {
        RowKind::Insert => "+I",
        RowKind::UpdateBefore => "-U",
        RowKind::UpdateAfter => "+U",
        RowKind::Delete => "-D",
        RowKind::SnapshotRead => "=R",
    }
}

/// Types this module writes; the rest (nested, RAW, intervals…) is the Java reader's.
fn supported(ty: FlinkType) -> bool {
    match ty {
        FlinkType::Other => false,
        FlinkType::Decimal { precision, scale } => {
            (1..=MAX_DECIMAL_PRECISION).contains(&precision) && scale <= precision
        }
        FlinkType::TimestampWithoutTimeZone { precision }
        | FlinkType::TimestampWithLocalTimeZone { precision } => {
            precision <= MAX_TIMESTAMP_PRECISION
        }
        _ => true,
    }
}

/// The Java reader's check of a declared type against a column's kind
/// (`RowDataVitessDeserializationSchema.compatible`).
fn compatible(ty: FlinkType, column: ColumnType) -> bool {
    use ColumnType as C;
    match ty {
        FlinkType::Boolean
        | FlinkType::Tinyint
        | FlinkType::Smallint
        | FlinkType::Integer
        | FlinkType::Bigint
        | FlinkType::Float
        | FlinkType::Double
        | FlinkType::Decimal { .. } => matches!(
            column,
            C::Int | C::UInt | C::Float | C::Double | C::Decimal | C::Bit | C::Year
        ),
        FlinkType::Date
        | FlinkType::TimestampWithoutTimeZone { .. }
        | FlinkType::TimestampWithLocalTimeZone { .. } => {
            matches!(column, C::Date | C::DateTime | C::Timestamp)
        }
        FlinkType::TimeWithoutTimeZone => column == C::Time,
        _ => true,
    }
}

/// One row being written at `start` of the batch buffer.
struct Row<'a> {
    out: &'a mut Vec<u8>,
    start: usize,
    null_bits_bytes: usize,
}

impl Row<'_> {
    fn slot_at(&self, pos: usize) -> usize {
        self.start + self.null_bits_bytes + 8 * pos
    }

    /// Writes `bytes` (at most 8) at the start of field `pos`'s slot; the rest stays zero.
    fn slot(&mut self, pos: usize, bytes: &[u8]) {
        let at = self.slot_at(pos);
        self.out[at..at + bytes.len()].copy_from_slice(bytes);
    }

    fn long(&mut self, pos: usize, v: i64) {
        self.slot(pos, &v.to_le_bytes());
    }

    /// `BinaryRowWriter.setNullAt`: the null bit, and a zero slot.
    fn null_bit(&mut self, pos: usize) {
        let bit = pos + 8;
        self.out[self.start + bit / 8] |= 1 << (bit % 8);
        self.long(pos, 0);
    }

    /// Where the variable part ends now, relative to the row (Flink's writer's cursor).
    fn cursor(&self) -> usize {
        self.out.len() - self.start
    }

    fn offset_and_size(&mut self, pos: usize, offset: usize, size: u32) {
        self.long(pos, ((offset as i64) << 32) | size as i64);
    }

    /// A NULL of `ty`: DECIMAL above 18 and TIMESTAMP above 3 keep their variable-part bytes.
    fn null(&mut self, pos: usize, ty: FlinkType) {
        match ty {
            FlinkType::Decimal { precision, .. } if precision > MAX_COMPACT_DECIMAL_PRECISION => {
                self.variable_fixed(pos, &[], 16, true)
            }
            FlinkType::TimestampWithoutTimeZone { precision }
            | FlinkType::TimestampWithLocalTimeZone { precision }
                if precision > MAX_COMPACT_TIMESTAMP_PRECISION =>
            {
                self.variable_fixed(pos, &[], 8, true)
            }
            _ => self.null_bit(pos),
        }
    }

    /// A value of a fixed variable-part size (`writeDecimal` / `writeTimestamp` above compact):
    /// `width` zero bytes, `bytes` at their start; the slot gets offset and `bytes.len()`.
    fn variable_fixed(&mut self, pos: usize, bytes: &[u8], width: usize, null: bool) {
        let offset = self.cursor();
        let at = self.out.len();
        self.out.resize(at + width, 0);
        self.out[at..at + bytes.len()].copy_from_slice(bytes);
        if null {
            self.null_bit(pos);
        }
        self.offset_and_size(pos, offset, bytes.len() as u32);
    }

    /// `writeString` / `writeBinary`: up to 7 bytes in the slot, the rest in the variable part.
    fn bytes(&mut self, pos: usize, bytes: &[u8]) {
        if bytes.len() <= 7 {
            let mut slot = [0u8; 8];
            slot[..bytes.len()].copy_from_slice(bytes);
            slot[7] = 0x80 | bytes.len() as u8;
            self.slot(pos, &slot);
            return;
        }
        let offset = self.cursor();
        self.out.extend_from_slice(bytes);
        let padded = bytes.len().div_ceil(8) * 8;
        self.out.resize(self.start + offset + padded, 0);
        self.offset_and_size(pos, offset, bytes.len() as u32);
    }
}

/// Writes a present, non-NULL value as `ty`, or `None` when the Java reader must convert it.
fn write_field(row: &mut Row<'_>, pos: usize, ty: FlinkType, value: &Value) -> Option<()> {
    match ty {
        FlinkType::Boolean => {
            let v = match value {
                Value::Bytes(b) => b.iter().any(|&x| x != 0),
                Value::Int(i) => *i != 0,
                Value::UInt(u) => *u != 0,
                _ => return None,
            };
            row.slot(pos, &[v as u8]);
        }
        FlinkType::Tinyint => row.slot(pos, &i8::try_from(integer(value)?).ok()?.to_le_bytes()),
        FlinkType::Smallint => row.slot(pos, &i16::try_from(integer(value)?).ok()?.to_le_bytes()),
        FlinkType::Integer => row.slot(pos, &i32::try_from(integer(value)?).ok()?.to_le_bytes()),
        FlinkType::Bigint => row.long(pos, integer(value)?),
        FlinkType::Float => row.slot(pos, &(number(value)? as f32).to_le_bytes()),
        FlinkType::Double => row.slot(pos, &number(value)?.to_le_bytes()),
        FlinkType::Decimal { precision, scale } => {
            let unscaled = unscaled(value, scale)?;
            if unscaled.unsigned_abs() >= 10u128.pow(precision as u32) {
                return None;
            }
            if precision <= MAX_COMPACT_DECIMAL_PRECISION {
                row.long(pos, unscaled as i64);
            } else {
                row.variable_fixed(pos, &big_endian_minimal(unscaled), 16, false);
            }
        }
        FlinkType::Char | FlinkType::Varchar => match value {
            Value::String(s) | Value::Decimal(s) => row.bytes(pos, s.as_bytes()),
            Value::Bytes(b) => row.bytes(pos, b),
            Value::Int(i) => row.bytes(pos, i.to_string().as_bytes()),
            Value::UInt(u) => row.bytes(pos, u.to_string().as_bytes()),
            Value::Time { .. } | Value::Date { .. } | Value::DateTime { .. } => {
                row.bytes(pos, java_text::temporal(value)?.as_bytes())
            }
            _ => return None,
        },
        FlinkType::Binary | FlinkType::Varbinary => match value {
            Value::String(s) | Value::Decimal(s) => row.bytes(pos, s.as_bytes()),
            Value::Bytes(b) => row.bytes(pos, b),
            _ => return None,
        },
        FlinkType::Date => {
            let (year, month, day) = match *value {
                Value::Date { year, month, day }
                | Value::DateTime {
                    year, month, day, ..
                } => (year, month, day),
                _ => return None,
            };
            match epoch_day(year, month, day) {
                // A zero or invalid date has no Flink DATE: NULL, as the Java reader writes it.
                None => row.null_bit(pos),
                Some(days) => row.slot(pos, &i32::try_from(days).ok()?.to_le_bytes()),
            }
        }
        FlinkType::TimeWithoutTimeZone => {
            let Value::Time {
                negative,
                hours,
                minute,
                second,
                micros,
            } = *value
            else {
                return None;
            };
            let magnitude = ((hours as i64 * 60 + minute as i64) * 60 + second as i64) * 1_000_000
                + micros as i64;
            // Flink's TIME is milliseconds of one day: anything else is Java's to refuse.
            if (negative && magnitude != 0) || magnitude >= 86_400_000_000 || magnitude % 1000 != 0
            {
                return None;
            }
            row.slot(pos, &((magnitude / 1000) as i32).to_le_bytes());
        }
        FlinkType::TimestampWithoutTimeZone { precision }
        | FlinkType::TimestampWithLocalTimeZone { precision } => {
            let Some((millis, nano_of_milli)) = epoch_millis(value)? else {
                row.null(pos, ty);
                return Some(());
            };
            let nano_of_second = millis.rem_euclid(1000) * 1_000_000 + nano_of_milli as i64;
            let step = 10i64.pow(9 - precision as u32);
            if nano_of_second % step != 0 {
                return None; // more fractional digits than declared: Java refuses it
            }
            if precision <= MAX_COMPACT_TIMESTAMP_PRECISION {
                row.long(pos, millis);
            } else {
                let offset = row.cursor();
                row.out.extend_from_slice(&millis.to_le_bytes());
                row.offset_and_size(pos, offset, nano_of_milli);
            }
        }
        FlinkType::Other => return None,
    }
    Some(())
}

/// An integer value as the Java reader's `bigint` reads it: BIT(n) big-endian bits up to 8
/// bytes; an unsigned value above `i64::MAX` does not fit.
fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Bytes(b) if b.len() <= 8 => {
            Some(b.iter().fold(0u64, |v, &x| (v << 8) | x as u64) as i64)
        }
        _ => None,
    }
}

/// A number as a double: a DECIMAL's text correctly rounded, as `BigDecimal.doubleValue`.
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Float(f) => Some(*f),
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        Value::Decimal(s) => {
            plain_decimal(s)?;
            // BigDecimal has no negative zero: "-0.0" reads as 0.0.
            s.parse::<f64>()
                .ok()
                .map(|v| if v == 0.0 { 0.0 } else { v })
        }
        _ => None,
    }
}

/// The value at `scale` fractional digits as an exact unscaled integer; `None` when that would
/// drop a nonzero digit or overflow (the Java reader refuses or decides).
fn unscaled(value: &Value, scale: u8) -> Option<i128> {
    let factor = 10i128.checked_pow(scale as u32)?;
    match value {
        Value::Int(i) => (*i as i128).checked_mul(factor),
        Value::UInt(u) => (*u as i128).checked_mul(factor),
        Value::Decimal(text) => {
            let (negative, integer, fraction) = plain_decimal(text)?;
            let fraction = fraction.trim_end_matches('0');
            if fraction.len() > scale as usize {
                return None;
            }
            let mut v: i128 = 0;
            for b in integer.bytes().chain(fraction.bytes()) {
                v = v.checked_mul(10)?.checked_add((b - b'0') as i128)?;
            }
            v = v.checked_mul(10i128.checked_pow((scale as usize - fraction.len()) as u32)?)?;
            Some(if negative { -v } else { v })
        }
        _ => None,
    }
}

/// `BigInteger.toByteArray`: the shortest big-endian two's complement of `v` (zero is `[0]`).
fn big_endian_minimal(v: i128) -> Vec<u8> {
    let bytes = v.to_be_bytes();
    let mut skip = 0;
    while skip < 15 {
        let (b, next) = (bytes[skip], bytes[skip + 1]);
        let redundant = (b == 0x00 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0);
        if !redundant {
            break;
        }
        skip += 1;
    }
    bytes[skip..].to_vec()
}

/// A DATETIME (or a DATE's midnight) as epoch milliseconds of its own fields and the nanos of
/// the millisecond: `Some(None)` for a zero or invalid date (NULL, as `getEpochMillis` gives
/// `NO_DATE_TIME`), `None` for another kind of value.
fn epoch_millis(value: &Value) -> Option<Option<(i64, u32)>> {
    let (year, month, day, hour, minute, second, micros) = match *value {
        Value::Date { year, month, day } => (year, month, day, 0, 0, 0, 0),
        Value::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        } => (year, month, day, hour, minute, second, micros),
        _ => return None,
    };
    let Some(days) = epoch_day(year, month, day) else {
        return Some(None);
    };
    if hour > 23 || minute > 59 || second > 59 || micros > 999_999 {
        return Some(None);
    }
    let seconds = days * 86_400 + hour as i64 * 3_600 + minute as i64 * 60 + second as i64;
    let nanos = micros as i64 * 1000;
    Some(Some((
        seconds * 1000 + nanos / 1_000_000,
        (nanos % 1_000_000) as u32,
    )))
}

#[cfg(test)]
mod tests;
