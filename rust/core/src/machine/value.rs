// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Typed column values. Every MySQL type family maps to exactly one variant, so consumers never
//! parse MySQL text. Temporal values keep MySQL's own ranges (zero dates, TIME beyond 24 h).
//!
//! Text, DECIMAL and binary values are reference-counted slices ([`Text`], [`bytes::Bytes`]):
//! the row decoder hands out slices of the protobuf message tonic received instead of a copy
//! per value, so a row costs no allocation per text column (the allocator was the stream
//! thread's largest cost, docs/benchmarks.md). Values kept for long (resume keys, snapshot
//! bounds) are copied out of the message so they do not pin it (see `decode::decode_value`).

pub use bytes::Bytes;
/// Shared, immutable UTF-8 text: a [`bytes::Bytes`] known to hold valid UTF-8. Dereferences to
/// `str`; built from `String` / `&str` with `.into()`.
pub use bytestring::ByteString as Text;

/// A decoded column value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// TINYINT..BIGINT (signed), YEAR.
    Int(i64),
    /// TINYINT..BIGINT UNSIGNED (BIGINT UNSIGNED needs the full u64 range).
    UInt(u64),
    /// FLOAT and DOUBLE. FLOAT is rounded to the 6 significant digits MySQL shows (all the
    /// copy phase has), then widened to f64 exactly, so both phases give the same value.
    Float(f64),
    /// DECIMAL(p,s) as its exact decimal text, e.g. "-12.340" (scale kept).
    Decimal(Text),
    /// Text types (CHAR, VARCHAR, TEXT, ENUM, SET, JSON) as UTF-8 (latin1 decoded as MySQL's
    /// latin1, i.e. Windows-1252). JSON in MySQL's layout (`{"a": [1, 2]}`) in both phases.
    String(Text),
    /// Binary types (BINARY, VARBINARY, BLOB, binary-collation text, GEOMETRY as WKB, BIT).
    Bytes(Bytes),
    /// DATE; year 0 / month 0 / day 0 allowed (zero dates).
    Date { year: u16, month: u8, day: u8 },
    /// DATETIME and TIMESTAMP (TIMESTAMP is in UTC). Zero dates allowed.
    DateTime {
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micros: u32,
    },
    /// TIME: signed duration, may exceed 24 h (-838:59:59 .. 838:59:59).
    Time {
        negative: bool,
        hours: u32,
        minute: u8,
        second: u8,
        micros: u32,
    },
    /// A column absent from a partial row image (binlog_row_image=NOBLOB/MINIMAL): not NULL,
    /// simply not sent.
    Absent,
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The value with its text or bytes in an allocation of its own: for values kept beyond the
    /// batch they arrived in (keys, bounds), which would otherwise keep the whole received
    /// message alive.
    pub fn detached(&self) -> Value {
        match self {
            Value::Decimal(s) => Value::Decimal(Text::from(&**s)),
            Value::String(s) => Value::String(Text::from(&**s)),
            Value::Bytes(b) => Value::Bytes(Bytes::copy_from_slice(b)),
            other => other.clone(),
        }
    }
}

impl Value {
    /// Approximate in-memory size of the value (for byte budgets).
    pub fn approx_bytes(&self) -> usize {
        match self {
            Value::Decimal(s) | Value::String(s) => 16 + s.len(),
            Value::Bytes(b) => 16 + b.len(),
            _ => 16,
        }
    }
}
