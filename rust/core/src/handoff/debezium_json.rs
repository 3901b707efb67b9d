// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A record's row as the JSON object of the DataStream Debezium JSON (`before` / `after` of
//! `JsonDebeziumDeserializationSchema`), written by the core so the Java reader does no per-field
//! work: it wraps the object in the event's envelope (op, times, source, position, order).
//!
//! The text is what the Java reader's Jackson generator writes from the values: columns in order,
//! absent ones left out; integers and DECIMAL (`BigDecimal.toString`) as numbers; FLOAT / DOUBLE
//! as numbers (`Double.toString`; NaN and the infinities as strings); text, ENUM, SET and JSON as
//! strings; binary as base64; DATE / DATETIME / TIMESTAMP as ISO-8601 strings, zero dates as null;
//! TIME as `[-]HH:MM:SS.ffffff`. Strings are escaped as Jackson escapes them: `"` and `\`, the
//! short escapes `\b \t \n \f \r`, other control characters as `\u00XX`, nothing else.

use super::java_text;
use crate::event::ChangeEvent;
use crate::value::Value;
use base64::Engine as _;
use std::io::Write as _;

/// Appends the row object of `change` to `out`, or leaves `out` as it was and answers false when
/// a value must go to the Java reader (a DECIMAL whose text is not plain digits).
pub fn write_row(change: &ChangeEvent, out: &mut Vec<u8>) -> bool {
    let start = out.len();
    let written = write_object(change, out);
    if written.is_none() {
        out.truncate(start);
    }
    written.is_some()
}

fn write_object(change: &ChangeEvent, out: &mut Vec<u8>) -> Option<()> {
    out.push(b'{');
    let mut first = true;
    for (column, value) in change.schema.columns.iter().zip(&change.values) {
        if matches!(value, Value::Absent) {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        string(out, &column.name);
        out.push(b':');
        write_value(out, value)?;
    }
    out.push(b'}');
    Some(())
}

fn write_value(out: &mut Vec<u8>, value: &Value) -> Option<()> {
    match value {
        Value::Null | Value::Absent => out.extend_from_slice(b"null"),
        // Straight into the batch: no String per value on this path.
        Value::Int(i) => write!(out, "{i}").ok()?,
        Value::UInt(u) => write!(out, "{u}").ok()?,
        Value::Float(f) => match java_text::double(*f) {
            Some(text) => out.extend_from_slice(text.as_bytes()),
            None if f.is_nan() => string(out, "NaN"),
            None if *f > 0.0 => string(out, "Infinity"),
            None => string(out, "-Infinity"),
        },
        Value::Decimal(text) => out.extend_from_slice(java_text::big_decimal(text)?.as_bytes()),
        Value::String(s) => string(out, s),
        Value::Bytes(b) => {
            out.push(b'"');
            let at = out.len();
            out.resize(at + base64::encoded_len(b.len(), true)?, 0);
            let n = base64::engine::general_purpose::STANDARD
                .encode_slice(b, &mut out[at..])
                .ok()?;
            out.truncate(at + n);
            out.push(b'"');
        }
        Value::Date { .. } | Value::DateTime { .. } | Value::Time { .. } => {
            match java_text::temporal(value) {
                Some(text) => string(out, &text),
                None => out.extend_from_slice(b"null"),
            }
        }
    }
    Some(())
}

/// A JSON string as Jackson writes it (module docs).
fn string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut plain_from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0c => b"\\f",
            b'\r' => b"\\r",
            0..=0x1f => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 0xf) as usize],
            ],
            _ => continue,
        };
        out.extend_from_slice(&bytes[plain_from..i]);
        out.extend_from_slice(escape);
        plain_from = i + 1;
    }
    out.extend_from_slice(&bytes[plain_from..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests;
