// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! MySQL's primary-key order, reproduced by the core where it can be reproduced exactly.
//!
//! While a table is being copied, a change of a row beyond the copy position (the last primary
//! key the copy sent, in MySQL's index order) must be dropped: the copy delivers that row's
//! state later. Deciding "beyond" needs MySQL's own comparison of primary keys. It is exact here
//! for integers (signed, unsigned, YEAR), DECIMAL, DOUBLE, binary strings (BINARY, VARBINARY,
//! BLOB, BIT), text in the binary collations (`*_bin`, `utf8mb4_0900_bin`, `binary`), ENUM and
//! SET (by their index / bit value), and the temporal types — for single and composite keys.
//!
//! Text in MySQL's default collation `utf8mb4_0900_ai_ci` is ordered by its UCA 9.0.0 primary
//! weights ([`crate::uca900`]). Everything else (other case- or accent-insensitive collations
//! such as `utf8mb4_general_ci`, FLOAT, whose copy values are rounded) is [`Inexact`]: such a table's
//! changelog cannot be made exact during a resumed copy, so consumers declare it as an upsert
//! changelog (docs/positions.md, "Which keys give an exact changelog").

use crate::decode::parse_members;
use crate::event::{Column, ColumnType};
use crate::value::Value;
use std::cmp::Ordering;

/// How MySQL orders one primary-key column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnOrder {
    /// Signed integers and YEAR.
    Signed,
    Unsigned,
    /// DOUBLE (FLOAT is refused: its copy values are rounded to 6 digits).
    Double,
    Decimal,
    /// Binary strings: byte order. BINARY(n) values are compared padded with 0x00 to `n`
    /// bytes, as MySQL stores them (the binlog strips the padding).
    Bytes {
        pad_to: Option<usize>,
    },
    /// Text by code point; `pad_space` = trailing spaces do not count (PAD SPACE collations).
    CodePoint {
        pad_space: bool,
    },
    /// latin1_bin: byte order of MySQL's latin1 (cp1252) encoding, PAD SPACE.
    Latin1Bin,
    /// utf8mb4_0900_ai_ci (MySQL's default): UCA 9.0.0 primary weights, NO PAD.
    Uca900AiCi,
    /// ENUM by member index (the empty error value is 0).
    Enum(Vec<String>),
    /// SET by its bit value.
    Set(Vec<String>),
    Date,
    DateTime,
    Time,
}

/// Why a column's order cannot be reproduced exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inexact {
    pub column: String,
    pub reason: String,
}

impl std::fmt::Display for Inexact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "primary-key column '{}': {}", self.column, self.reason)
    }
}

/// The collation of binary strings (BINARY, VARBINARY, BLOB, `CHARACTER SET binary`).
const BINARY_COLLATION: u32 = 63;

/// MySQL collation ids the core knows by name (for messages and for the exact orders).
pub fn collation_name(id: u32) -> Option<&'static str> {
    Some(match id {
        8 => "latin1_swedish_ci",
        5 => "latin1_german1_ci",
        11 => "ascii_general_ci",
        15 => "latin1_danish_ci",
        31 => "latin1_german2_ci",
        33 => "utf8mb3_general_ci",
        45 => "utf8mb4_general_ci",
        46 => "utf8mb4_bin",
        47 => "latin1_bin",
        48 => "latin1_general_ci",
        49 => "latin1_general_cs",
        63 => "binary",
        65 => "ascii_bin",
        76 => "utf8mb3_tolower_ci",
        83 => "utf8mb3_bin",
        94 => "latin1_spanish_ci",
        192 => "utf8mb3_unicode_ci",
        224 => "utf8mb4_unicode_ci",
        255 => "utf8mb4_0900_ai_ci",
        278 => "utf8mb4_0900_as_ci",
        305 => "utf8mb4_0900_as_cs",
        309 => "utf8mb4_0900_bin",
        _ => return None,
    })
}

/// The exact order of a text column in collation `collation` (by name), if the core has it.
fn text_order(collation: &str) -> Option<ColumnOrder> {
    match collation {
        "utf8mb4_bin" | "utf8mb3_bin" | "utf8_bin" | "ascii_bin" => {
            Some(ColumnOrder::CodePoint { pad_space: true })
        }
        "utf8mb4_0900_bin" => Some(ColumnOrder::CodePoint { pad_space: false }),
        "latin1_bin" => Some(ColumnOrder::Latin1Bin),
        "utf8mb4_0900_ai_ci" => Some(ColumnOrder::Uca900AiCi),
        "binary" => Some(ColumnOrder::Bytes { pad_to: None }),
        _ => None,
    }
}

fn inexact(column: &str, reason: impl Into<String>) -> Inexact {
    Inexact {
        column: column.to_string(),
        reason: reason.into(),
    }
}

impl ColumnOrder {
    /// The order of a column as a FIELD event describes it.
    pub fn of_column(c: &Column) -> Result<ColumnOrder, Inexact> {
        let binary_fixed = |c: &Column| {
            let t = c.mysql_type.to_ascii_lowercase();
            (t.starts_with("binary(") || t == "binary").then_some(c.length as usize)
        };
        Ok(match c.column_type {
            ColumnType::Int | ColumnType::Year => ColumnOrder::Signed,
            ColumnType::UInt => ColumnOrder::Unsigned,
            ColumnType::Double => ColumnOrder::Double,
            ColumnType::Decimal => ColumnOrder::Decimal,
            ColumnType::Bit => ColumnOrder::Bytes { pad_to: None },
            // Vitess announces text in a `_bin` collation as VARBINARY / BINARY / BLOB (MySQL
            // flags those columns BINARY), so the collation, not the type, tells binary strings
            // (collation `binary`) from text, whose bytes then follow the text's order.
            ColumnType::Bytes if c.charset == BINARY_COLLATION => ColumnOrder::Bytes {
                pad_to: binary_fixed(c),
            },
            ColumnType::String | ColumnType::Bytes => {
                let name = collation_name(c.charset);
                match name.and_then(text_order) {
                    Some(order) => order,
                    None => {
                        return Err(inexact(
                            &c.name,
                            format!(
                                "text in collation {} is ordered by rules the core does not reproduce",
                                name.map(str::to_string)
                                    .unwrap_or_else(|| format!("id {}", c.charset))
                            ),
                        ))
                    }
                }
            }
            ColumnType::Enum => ColumnOrder::Enum(parse_members(&c.mysql_type)),
            ColumnType::Set => ColumnOrder::Set(parse_members(&c.mysql_type)),
            ColumnType::Date => ColumnOrder::Date,
            ColumnType::DateTime | ColumnType::Timestamp => ColumnOrder::DateTime,
            ColumnType::Time => ColumnOrder::Time,
            ColumnType::Float => {
                return Err(inexact(
                    &c.name,
                    "FLOAT values reach the copy phase rounded to 6 digits, so their order is not exact",
                ))
            }
            ColumnType::Json | ColumnType::Geometry => {
                return Err(inexact(&c.name, "JSON and GEOMETRY have no primary-key order"))
            }
        })
    }

    /// The order of a column as `information_schema.columns` describes it (`data_type`,
    /// `column_type`, `collation_name`): what the core can say about a table before streaming.
    pub fn of_declared(
        column: &str,
        data_type: &str,
        column_type: &str,
        collation: Option<&str>,
    ) -> Result<ColumnOrder, Inexact> {
        let data_type = data_type.to_ascii_lowercase();
        let unsigned = column_type.to_ascii_lowercase().contains("unsigned");
        Ok(match data_type.as_str() {
            "tinyint" | "smallint" | "mediumint" | "int" | "integer" | "bigint" if unsigned => {
                ColumnOrder::Unsigned
            }
            "tinyint" | "smallint" | "mediumint" | "int" | "integer" | "bigint" | "year" => {
                ColumnOrder::Signed
            }
            "double" | "real" => ColumnOrder::Double,
            "decimal" | "numeric" => ColumnOrder::Decimal,
            "binary" => ColumnOrder::Bytes {
                pad_to: type_length(column_type),
            },
            "varbinary" | "tinyblob" | "blob" | "mediumblob" | "longblob" | "bit" => {
                ColumnOrder::Bytes { pad_to: None }
            }
            "char" | "varchar" | "tinytext" | "text" | "mediumtext" | "longtext" => {
                let name = collation.unwrap_or("binary");
                text_order(name).ok_or_else(|| {
                    inexact(
                        column,
                        format!("text in collation {name} is ordered by rules the core does not reproduce"),
                    )
                })?
            }
            "enum" => ColumnOrder::Enum(parse_members(column_type)),
            "set" => ColumnOrder::Set(parse_members(column_type)),
            "date" => ColumnOrder::Date,
            "datetime" | "timestamp" => ColumnOrder::DateTime,
            "time" => ColumnOrder::Time,
            "float" => {
                return Err(inexact(
                    column,
                    "FLOAT values reach the copy phase rounded to 6 digits, so their order is not exact",
                ))
            }
            other => {
                return Err(inexact(
                    column,
                    format!("the core has no exact order for type {other}"),
                ))
            }
        })
    }

    /// MySQL's comparison of two non-NULL values of this column.
    pub fn compare(&self, a: &Value, b: &Value) -> Ordering {
        match (self, a, b) {
            (ColumnOrder::Signed, Value::Int(x), Value::Int(y)) => x.cmp(y),
            (ColumnOrder::Unsigned, Value::UInt(x), Value::UInt(y)) => x.cmp(y),
            // By value, so -0 = 0 (MySQL refuses one as a duplicate of the other); MySQL
            // stores no NaN, total_cmp only keeps the order total if one came anyway.
            (ColumnOrder::Double, Value::Float(x), Value::Float(y)) => {
                x.partial_cmp(y).unwrap_or_else(|| x.total_cmp(y))
            }
            (ColumnOrder::Decimal, Value::Decimal(x), Value::Decimal(y)) => compare_decimal(x, y),
            // BINARY(n) values are equal when equal once padded with 0x00 (the padding is
            // what MySQL stores); VARBINARY, BLOB and BIT are NO PAD: `ab` < `ab\0`.
            (ColumnOrder::Bytes { pad_to: Some(n) }, Value::Bytes(x), Value::Bytes(y)) => {
                compare_padded(x, y, *n)
            }
            (ColumnOrder::Bytes { pad_to: None }, Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
            (ColumnOrder::Bytes { .. }, Value::String(x), Value::String(y)) => {
                x.as_bytes().cmp(y.as_bytes())
            }
            // Text compares as its bytes: a `_bin` collation's text can arrive as raw bytes (see
            // `of_column`), so a key may hold either form. UTF-8 byte order is code-point
            // order, also against the pad space (a multi-byte character's first byte is above
            // 0x20); latin1_bin is the order of the latin1 bytes.
            (ColumnOrder::CodePoint { pad_space }, x, y) if is_text(x) && is_text(y) => {
                let (x, y) = (utf8_bytes(x), utf8_bytes(y));
                if *pad_space {
                    compare_pad_space(
                        x.iter().map(|&b| u32::from(b)),
                        y.iter().map(|&b| u32::from(b)),
                    )
                } else {
                    x.cmp(y)
                }
            }
            (ColumnOrder::Latin1Bin, x, y) if is_text(x) && is_text(y) => {
                compare_pad_space(latin1_bytes(x).into_iter(), latin1_bytes(y).into_iter())
            }
            (ColumnOrder::Uca900AiCi, x, y) if is_text(x) && is_text(y) => {
                let weights =
                    |v| crate::uca900::primary_weights(&String::from_utf8_lossy(utf8_bytes(v)));
                weights(x).cmp(&weights(y))
            }
            (ColumnOrder::Enum(members), Value::String(x), Value::String(y)) => {
                enum_index(members, x).cmp(&enum_index(members, y))
            }
            (ColumnOrder::Set(members), Value::String(x), Value::String(y)) => {
                set_bits(members, x).cmp(&set_bits(members, y))
            }
            (ColumnOrder::Date, Value::Date { .. }, Value::Date { .. })
            | (ColumnOrder::DateTime, Value::DateTime { .. }, Value::DateTime { .. }) => {
                temporal_key(a).cmp(&temporal_key(b))
            }
            (ColumnOrder::Time, Value::Time { .. }, Value::Time { .. }) => {
                time_key(a).cmp(&time_key(b))
            }
            // Values of another family than the column's order: the column changed type under
            // the stream. The caller treats "not comparable" as unknown (keeps the change).
            _ => Ordering::Equal,
        }
    }

    /// Whether `compare` understands a value of this shape (guards against a column whose type
    /// changed while the stream ran).
    pub fn accepts(&self, v: &Value) -> bool {
        matches!(
            (self, v),
            (ColumnOrder::Signed, Value::Int(_))
                | (ColumnOrder::Unsigned, Value::UInt(_))
                | (ColumnOrder::Double, Value::Float(_))
                | (ColumnOrder::Decimal, Value::Decimal(_))
                | (
                    ColumnOrder::Bytes { .. },
                    Value::Bytes(_) | Value::String(_)
                )
                | (
                    ColumnOrder::CodePoint { .. }
                        | ColumnOrder::Latin1Bin
                        | ColumnOrder::Uca900AiCi,
                    Value::String(_) | Value::Bytes(_)
                )
                | (ColumnOrder::Enum(_), Value::String(_))
                | (ColumnOrder::Set(_), Value::String(_))
                | (ColumnOrder::Date, Value::Date { .. })
                | (ColumnOrder::DateTime, Value::DateTime { .. })
                | (ColumnOrder::Time, Value::Time { .. })
        )
    }
}

/// `binary(16)` → 16.
fn type_length(column_type: &str) -> Option<usize> {
    let open = column_type.find('(')?;
    let close = column_type[open..].find(')')? + open;
    column_type[open + 1..close].trim().parse().ok()
}

/// Per table (by name): its key's order, or why the core cannot reproduce it.
pub type TableKeyOrders = std::collections::BTreeMap<String, Result<KeyOrder, Inexact>>;

/// A primary key's order: its columns in index order, each with its own order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyOrder {
    pub columns: Vec<ColumnOrder>,
}

impl KeyOrder {
    /// Compares two keys (values in index order) column by column, as MySQL's index does.
    /// `None` if a value does not fit its column's order (a NULL, or a type change).
    pub fn compare(&self, a: &[&Value], b: &[&Value]) -> Option<Ordering> {
        if a.len() != self.columns.len() || b.len() != self.columns.len() {
            return None;
        }
        for ((order, x), y) in self.columns.iter().zip(a).zip(b) {
            if !order.accepts(x) || !order.accepts(y) {
                return None;
            }
            match order.compare(x, y) {
                Ordering::Equal => continue,
                other => return Some(other),
            }
        }
        Some(Ordering::Equal)
    }
}

/// Decimal texts (`-12.340`, `7`, `.5`) compared by value.
pub fn compare_decimal(a: &str, b: &str) -> Ordering {
    let (neg_a, ia, fa) = decimal_parts(a);
    let (neg_b, ib, fb) = decimal_parts(b);
    let zero_a = ia.is_empty() && fa.is_empty();
    let zero_b = ib.is_empty() && fb.is_empty();
    // -0 and 0 are equal.
    let neg_a = neg_a && !zero_a;
    let neg_b = neg_b && !zero_b;
    if neg_a != neg_b {
        return if neg_a {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let magnitude = ia
        .len()
        .cmp(&ib.len())
        .then_with(|| ia.cmp(ib))
        .then_with(|| compare_fraction(fa, fb));
    if neg_a {
        magnitude.reverse()
    } else {
        magnitude
    }
}

/// (negative, integer digits without leading zeros, fraction digits without trailing zeros).
fn decimal_parts(text: &str) -> (bool, &str, &str) {
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    (neg, int.trim_start_matches('0'), frac.trim_end_matches('0'))
}

fn compare_fraction(a: &str, b: &str) -> Ordering {
    let n = a.len().max(b.len());
    let pad = |s: &str| {
        s.bytes()
            .chain(std::iter::repeat(b'0'))
            .take(n)
            .collect::<Vec<u8>>()
    };
    pad(a).cmp(&pad(b))
}

/// Byte order of values right-padded with 0x00 to `pad_to` bytes (BINARY(n)).
fn compare_padded(a: &[u8], b: &[u8], pad_to: usize) -> Ordering {
    let n = a.len().max(b.len()).max(pad_to);
    let at = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(0);
    for i in 0..n {
        match at(a, i).cmp(&at(b, i)) {
            Ordering::Equal => continue,
            other => return other,
        }
    }
    Ordering::Equal
}

/// Text values: decoded, or the raw bytes of a `_bin` collation.
fn is_text(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::Bytes(_))
}

/// A text value's UTF-8 bytes (utf8mb4, utf8mb3, ascii: raw bytes are already these).
fn utf8_bytes(v: &Value) -> &[u8] {
    match v {
        Value::String(s) => s.as_bytes(),
        Value::Bytes(b) => b,
        _ => &[],
    }
}

/// A latin1 text value's bytes as MySQL stores them.
fn latin1_bytes(v: &Value) -> Vec<u32> {
    match v {
        Value::String(s) => s.chars().map(latin1_byte).collect(),
        Value::Bytes(b) => b.iter().map(|&b| u32::from(b)).collect(),
        _ => Vec::new(),
    }
}

/// PAD SPACE comparison: the shorter string compares as if padded with spaces (so `a` = `a `,
/// and `a\t` < `a`, because TAB sorts below the pad space).
fn compare_pad_space(
    mut a: impl Iterator<Item = u32>,
    mut b: impl Iterator<Item = u32>,
) -> Ordering {
    const SPACE: u32 = 0x20;
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) => match x.cmp(&y) {
                Ordering::Equal => continue,
                other => return other,
            },
            (None, None) => return Ordering::Equal,
            (Some(x), None) => {
                return std::iter::once(x)
                    .chain(a)
                    .map(|c| c.cmp(&SPACE))
                    .find(|o| *o != Ordering::Equal)
                    .unwrap_or(Ordering::Equal)
            }
            (None, Some(y)) => {
                return std::iter::once(y)
                    .chain(b)
                    .map(|c| SPACE.cmp(&c))
                    .find(|o| *o != Ordering::Equal)
                    .unwrap_or(Ordering::Equal)
            }
        }
    }
}

/// The byte MySQL's latin1 (Windows-1252 with the five undefined bytes kept as C1 controls)
/// stores for `c`, the inverse of the decoder's mapping.
fn latin1_byte(c: char) -> u32 {
    const HIGH: [(char, u32); 27] = [
        ('€', 0x80),
        ('‚', 0x82),
        ('ƒ', 0x83),
        ('„', 0x84),
        ('…', 0x85),
        ('†', 0x86),
        ('‡', 0x87),
        ('ˆ', 0x88),
        ('‰', 0x89),
        ('Š', 0x8a),
        ('‹', 0x8b),
        ('Œ', 0x8c),
        ('Ž', 0x8e),
        ('‘', 0x91),
        ('’', 0x92),
        ('“', 0x93),
        ('”', 0x94),
        ('•', 0x95),
        ('–', 0x96),
        ('—', 0x97),
        ('˜', 0x98),
        ('™', 0x99),
        ('š', 0x9a),
        ('›', 0x9b),
        ('œ', 0x9c),
        ('ž', 0x9e),
        ('Ÿ', 0x9f),
    ];
    let code = u32::from(c);
    if code <= 0xff {
        return code;
    }
    HIGH.iter()
        .find(|(ch, _)| *ch == c)
        .map(|(_, b)| *b)
        // Not representable in latin1: cannot come from a latin1 column.
        .unwrap_or(code)
}

fn enum_index(members: &[String], value: &str) -> usize {
    members
        .iter()
        .position(|m| m.eq_ignore_ascii_case(value))
        .map(|i| i + 1)
        .unwrap_or(0)
}

fn set_bits(members: &[String], value: &str) -> u64 {
    if value.is_empty() {
        return 0;
    }
    value
        .split(',')
        .filter_map(|part| members.iter().position(|m| m.eq_ignore_ascii_case(part)))
        .fold(0u64, |bits, i| bits | (1u64 << i.min(63)))
}

fn temporal_key(v: &Value) -> (u16, u8, u8, u8, u8, u8, u32) {
    match *v {
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
        _ => (0, 0, 0, 0, 0, 0, 0),
    }
}

/// TIME as signed microseconds.
fn time_key(v: &Value) -> i64 {
    match *v {
        Value::Time {
            negative,
            hours,
            minute,
            second,
            micros,
        } => {
            let magnitude = ((hours as i64 * 60 + minute as i64) * 60 + second as i64) * 1_000_000
                + micros as i64;
            if negative {
                -magnitude
            } else {
                magnitude
            }
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::String(v.to_string().into())
    }

    #[test]
    fn decimals_compare_by_value() {
        use Ordering::*;
        for (a, b, want) in [
            ("1.50", "1.5", Equal),
            ("-0.00", "0", Equal),
            ("10", "9.99", Greater),
            ("-10", "-9.99", Less),
            ("-1", "1", Less),
            ("0.001", "0.01", Less),
            ("007.1", "7.10", Equal),
            ("-0.5", "-0.25", Less),
            (
                "123456789012345678901234567890",
                "123456789012345678901234567889",
                Greater,
            ),
        ] {
            assert_eq!(compare_decimal(a, b), want, "{a} vs {b}");
            assert_eq!(compare_decimal(b, a), want.reverse(), "{b} vs {a}");
        }
    }

    #[test]
    fn pad_space_ignores_trailing_spaces_but_not_lower_characters() {
        let o = ColumnOrder::CodePoint { pad_space: true };
        assert_eq!(o.compare(&s("a"), &s("a  ")), Ordering::Equal);
        assert_eq!(o.compare(&s("a\t"), &s("a")), Ordering::Less);
        assert_eq!(o.compare(&s("a"), &s("a\t")), Ordering::Greater);
        assert_eq!(o.compare(&s("ab"), &s("a")), Ordering::Greater);
        assert_eq!(
            o.compare(&s("B"), &s("a")),
            Ordering::Less,
            "binary: case matters"
        );
        assert_eq!(o.compare(&s("é"), &s("😀")), Ordering::Less, "code points");
        let nopad = ColumnOrder::CodePoint { pad_space: false };
        assert_eq!(nopad.compare(&s("a"), &s("a ")), Ordering::Less);
    }

    #[test]
    fn latin1_bin_orders_by_cp1252_bytes() {
        let o = ColumnOrder::Latin1Bin;
        // '€' is byte 0x80 in latin1: below 'é' (0xe9) although its code point is far above.
        assert_eq!(o.compare(&s("€"), &s("é")), Ordering::Less);
        assert_eq!(o.compare(&s("z"), &s("€")), Ordering::Less);
    }

    #[test]
    fn binary_is_compared_padded_with_zero_bytes() {
        let fixed = ColumnOrder::Bytes { pad_to: Some(4) };
        let b = |v: &[u8]| Value::Bytes(v.to_vec().into());
        assert_eq!(fixed.compare(&b(b"ab"), &b(b"ab\0\0")), Ordering::Equal);
        assert_eq!(fixed.compare(&b(b"ab\0\x01"), &b(b"ab")), Ordering::Greater);
        // VARBINARY / BLOB / BIT are NO PAD: MySQL stores `ab` and `ab\0` as two keys, in this
        // order (it was Equal here, so a change of `ab\0` counted as copied with `ab`).
        let var = ColumnOrder::Bytes { pad_to: None };
        assert_eq!(var.compare(&b(b"ab"), &b(b"ab\0")), Ordering::Less);
        assert_eq!(var.compare(&b(b""), &b(b"\0")), Ordering::Less);
        assert_eq!(var.compare(&b(b"\xff"), &b(b"\x01\x00")), Ordering::Greater);
    }

    #[test]
    fn double_minus_zero_is_zero() {
        // MySQL refuses -0 as a duplicate key of 0 (total_cmp put -0 first).
        let o = ColumnOrder::Double;
        assert_eq!(
            o.compare(&Value::Float(-0.0), &Value::Float(0.0)),
            Ordering::Equal
        );
        assert_eq!(
            o.compare(&Value::Float(-f64::MAX), &Value::Float(-0.0)),
            Ordering::Less
        );
    }

    fn column(mysql_type: &str, column_type: ColumnType, charset: u32, length: u32) -> Column {
        Column {
            name: "k".into(),
            column_type,
            mysql_type: mysql_type.into(),
            vitess_type: 0,
            charset,
            length,
            decimals: 0,
            nullable: false,
            primary_key: true,
        }
    }

    #[test]
    fn bin_collation_text_announced_as_binary_keeps_its_collation() {
        // Vitess sends VARCHAR/CHAR/TEXT in a `_bin` collation as VARBINARY/BINARY/BLOB with the
        // text's collation id, and the values as their bytes. Byte order without PAD SPACE put
        // `a` before `a\t`, and `a` and `a ` apart; MySQL has `a\t` < `a` = `a `.
        let b = |v: &[u8]| Value::Bytes(v.to_vec().into());
        let utf8 = ColumnOrder::of_column(&column("varchar(8)", ColumnType::Bytes, 46, 32));
        assert_eq!(utf8, Ok(ColumnOrder::CodePoint { pad_space: true }));
        let utf8 = utf8.unwrap();
        assert_eq!(utf8.compare(&b(b"a\t"), &b(b"a")), Ordering::Less);
        assert_eq!(utf8.compare(&b(b"a"), &b(b"a  ")), Ordering::Equal);
        assert_eq!(utf8.compare(&b(b"a"), &b(b"a\0")), Ordering::Greater);
        assert_eq!(
            utf8.compare(&b("a é".as_bytes()), &b("a😀".as_bytes())),
            Ordering::Less
        );
        assert!(utf8.accepts(&b(b"a")));
        // Decoded text and raw bytes of one collation compare with each other.
        let t = |v: &str| Value::String(v.into());
        assert_eq!(utf8.compare(&t("a "), &b(b"a")), Ordering::Equal);
        assert_eq!(utf8.compare(&t("é"), &b("😀".as_bytes())), Ordering::Less);
        let char_bin = ColumnOrder::of_column(&column("char(6)", ColumnType::Bytes, 46, 24));
        assert_eq!(char_bin, Ok(ColumnOrder::CodePoint { pad_space: true }));
        let nopad = ColumnOrder::of_column(&column("varchar(8)", ColumnType::Bytes, 309, 32));
        assert_eq!(nopad, Ok(ColumnOrder::CodePoint { pad_space: false }));
        assert_eq!(nopad.unwrap().compare(&b(b"a"), &b(b"a ")), Ordering::Less);
        let latin1 = ColumnOrder::of_column(&column("varchar(8)", ColumnType::Bytes, 47, 8));
        assert_eq!(latin1, Ok(ColumnOrder::Latin1Bin));
        let latin1 = latin1.unwrap();
        // Raw latin1 bytes: '€' is 0x80, below 'é' (0xe9); PAD SPACE.
        assert_eq!(latin1.compare(&b(b"\x80"), &b(b"\xe9")), Ordering::Less);
        assert_eq!(latin1.compare(&b(b"a\t"), &b(b"a ")), Ordering::Less);
        assert_eq!(latin1.compare(&b(b"\xe9 "), &b(b"\xe9")), Ordering::Equal);
        assert_eq!(latin1.compare(&t("€"), &b(b"\x80")), Ordering::Equal);
        assert_eq!(latin1.compare(&t("€"), &b(b"\x81")), Ordering::Less);
        // Real binary strings stay binary.
        assert_eq!(
            ColumnOrder::of_column(&column("varbinary(8)", ColumnType::Bytes, 63, 8)),
            Ok(ColumnOrder::Bytes { pad_to: None })
        );
        assert_eq!(
            ColumnOrder::of_column(&column("binary(8)", ColumnType::Bytes, 63, 8)),
            Ok(ColumnOrder::Bytes { pad_to: Some(8) })
        );
        assert_eq!(
            ColumnOrder::of_column(&column("varchar(8)", ColumnType::String, 255, 32)),
            Ok(ColumnOrder::Uca900AiCi)
        );
        let e =
            ColumnOrder::of_column(&column("varchar(8)", ColumnType::String, 45, 32)).unwrap_err();
        assert!(e.reason.contains("utf8mb4_general_ci"), "{e}");
    }

    #[test]
    fn composite_keys_compare_column_by_column() {
        let k = KeyOrder {
            columns: vec![ColumnOrder::Unsigned, ColumnOrder::Signed],
        };
        let (a1, a2) = (Value::UInt(u64::MAX), Value::Int(-5));
        let (b1, b2) = (Value::UInt(u64::MAX), Value::Int(3));
        assert_eq!(k.compare(&[&a1, &a2], &[&b1, &b2]), Some(Ordering::Less));
        assert_eq!(k.compare(&[&a1, &Value::Null], &[&b1, &b2]), None);
        assert_eq!(k.compare(&[&a1], &[&b1, &b2]), None);
    }

    #[test]
    fn time_and_enum_orders() {
        let t = |negative, hours| Value::Time {
            negative,
            hours,
            minute: 0,
            second: 0,
            micros: 0,
        };
        assert_eq!(
            ColumnOrder::Time.compare(&t(true, 800), &t(true, 1)),
            Ordering::Less
        );
        let e = ColumnOrder::Enum(vec!["small".into(), "medium".into(), "large".into()]);
        assert_eq!(e.compare(&s("large"), &s("medium")), Ordering::Greater);
        assert_eq!(e.compare(&s(""), &s("small")), Ordering::Less);
    }

    #[test]
    fn declared_types_map_to_orders_or_say_why_not() {
        assert_eq!(
            ColumnOrder::of_declared("k", "bigint", "bigint unsigned", None),
            Ok(ColumnOrder::Unsigned)
        );
        assert_eq!(
            ColumnOrder::of_declared("k", "varchar", "varchar(64)", Some("utf8mb4_bin")),
            Ok(ColumnOrder::CodePoint { pad_space: true })
        );
        assert_eq!(
            ColumnOrder::of_declared("k", "binary", "binary(16)", None),
            Ok(ColumnOrder::Bytes { pad_to: Some(16) })
        );
        let e = ColumnOrder::of_declared("k", "varchar", "varchar(64)", Some("utf8mb4_general_ci"))
            .unwrap_err();
        assert!(e.to_string().contains("utf8mb4_general_ci"), "{e}");
        assert!(ColumnOrder::of_declared("f", "float", "float", None).is_err());
    }
}
