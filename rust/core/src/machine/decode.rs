// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! FIELD events → [`TableSchema`], and `query.Row` (MySQL text values) → typed [`Value`]s.
//!
//! VStream values are MySQL *text* representations; the same column can look different in the
//! copy phase (`SELECT` output) and the running phase (binlog decoder): FLOAT `1.5` vs `1.5E+00`,
//! ENUM strings vs (before Vitess v20) 1-based indexes. Both are accepted here so callers never
//! see the difference. Malformed input is an error naming table and column, never a panic.

use crate::error::{Error, Result};
use crate::event::{Column, ColumnType, TableSchema};
use crate::proto::binlogdata::row_change::Bitmap;
use crate::proto::binlogdata::FieldEvent;
use crate::proto::query::{Field, MySqlFlag, Row, Type};
use crate::proto::CellLengths;
use crate::value::{Bytes, Text, Value};
use std::sync::Arc;

/// Collation id of the `binary` pseudo-charset: such text columns hold bytes, not characters.
pub const BINARY_COLLATION: u32 = 63;

/// A row's cells, on the stack for rows of up to 32 columns (no allocation per row).
pub type Cells<'a> = smallvec::SmallVec<[Option<&'a [u8]>; 32]>;

/// Where a value's bytes come from, and so whether a decoded value shares them or copies them.
#[derive(Clone, Copy)]
pub enum ValueBytes<'a> {
    /// The cells are slices of this buffer (a row's `values`, itself a slice of the message
    /// tonic received): text and binary values become slices of it, no allocation, no copy.
    /// For values handed on and dropped within a batch or so.
    Shared(&'a Bytes),
    /// The values are copied out: for values kept for long (resume keys, bounds), which would
    /// otherwise pin a whole received message in memory.
    Copied,
}

impl ValueBytes<'_> {
    /// `part` (a slice of the shared buffer when `Shared`) as an owned [`Bytes`].
    fn bytes(self, part: &[u8]) -> Bytes {
        match self {
            // `slice_ref` needs `part` inside the buffer, which holds for every cell of
            // `split_row` and every sub-slice of one; anything else takes the copy.
            ValueBytes::Shared(whole) if within(whole, part) => whole.slice_ref(part),
            _ => Bytes::copy_from_slice(part),
        }
    }

    /// `part` as [`Text`]; `Err` carries the UTF-8 error when the bytes are not UTF-8.
    fn text(self, part: &[u8]) -> std::result::Result<Text, std::str::Utf8Error> {
        Text::try_from(self.bytes(part))
    }
}

fn within(whole: &[u8], part: &[u8]) -> bool {
    let (start, end) = (
        whole.as_ptr() as usize,
        whole.as_ptr() as usize + whole.len(),
    );
    let p = part.as_ptr() as usize;
    p >= start && p + part.len() <= end
}

/// Splits a row into its cells: `None` = SQL NULL (length -1).
pub fn split_row(row: &Row) -> Result<Cells<'_>> {
    Ok(row_cells(row)?.collect())
}

/// A row's cells, in order, from a row whose lengths were checked against its values.
pub struct RowCells<'a> {
    lengths: CellLengths<'a>,
    /// Cells not yet read (counted by `row_cells`, which read every length once).
    remaining: usize,
    values: &'a [u8],
}

impl<'a> Iterator for RowCells<'a> {
    type Item = Option<&'a [u8]>;

    fn next(&mut self) -> Option<Self::Item> {
        // Checked by `row_cells`: every length is a well-formed varint.
        let len = self.lengths.next()?.ok()?;
        self.remaining -= 1;
        if len < 0 {
            return Some(None);
        }
        // Checked by `row_cells`: every length fits in what is left.
        let (cell, rest) = self.values.split_at(len as usize);
        self.values = rest;
        Some(Some(cell))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for RowCells<'_> {}

/// Checks a row's lengths against its values and returns its cells: `None` = SQL NULL (length
/// -1). The cells are produced as they are read, not collected: a row's decoding walks them once.
pub fn row_cells(row: &Row) -> Result<RowCells<'_>> {
    let mut offset = 0usize;
    let mut cells = 0usize;
    for (i, len) in row.cell_lengths().enumerate() {
        cells += 1;
        let len = len.map_err(|e| {
            Error::fatal(format!(
                "malformed row: the length of column {i} is not a varint ({e})"
            ))
        })?;
        if len < 0 {
            if len != -1 {
                return Err(Error::fatal(format!(
                    "malformed row: column {i} has length {len} (only -1 means NULL)"
                )));
            }
            continue;
        }
        offset = usize::try_from(len)
            .ok()
            .and_then(|l| offset.checked_add(l))
            .filter(|&end| end <= row.values.len())
            .ok_or_else(|| {
                Error::fatal(format!(
                    "malformed row: column {i} needs {len} bytes at offset {offset} but the row has {} bytes",
                    row.values.len()
                ))
            })?;
    }
    if offset != row.values.len() {
        return Err(Error::fatal(format!(
            "malformed row: lengths cover {offset} bytes but the row has {}",
            row.values.len()
        )));
    }
    Ok(RowCells {
        lengths: row.cell_lengths(),
        remaining: cells,
        values: &row.values,
    })
}

fn has_flag(field: &Field, flag: MySqlFlag) -> bool {
    field.flags & (flag as u32) != 0
}

/// The logical column family of a FIELD entry. `column_type` (from information_schema) wins
/// over the wire type where they disagree, because in BEST_EFFORT mode ENUM/SET columns with a
/// binary collation are announced as CHAR/BINARY.
pub fn column_type_of(field: &Field) -> ColumnType {
    let declared = field.column_type.to_ascii_lowercase();
    if declared.starts_with("enum(") {
        return ColumnType::Enum;
    }
    if declared.starts_with("set(") {
        return ColumnType::Set;
    }
    let binary = field.charset == BINARY_COLLATION;
    match Type::try_from(field.r#type).unwrap_or(Type::NullType) {
        Type::Int8 | Type::Int16 | Type::Int24 | Type::Int32 | Type::Int64 => ColumnType::Int,
        Type::Uint8 | Type::Uint16 | Type::Uint24 | Type::Uint32 | Type::Uint64 => ColumnType::UInt,
        Type::Year => ColumnType::Year,
        Type::Float32 => ColumnType::Float,
        Type::Float64 => ColumnType::Double,
        Type::Decimal => ColumnType::Decimal,
        Type::Timestamp => ColumnType::Timestamp,
        Type::Datetime => ColumnType::DateTime,
        Type::Date => ColumnType::Date,
        Type::Time => ColumnType::Time,
        Type::Text | Type::Varchar | Type::Char if !binary => ColumnType::String,
        // Text in a binary collation (`utf8mb4_bin`, `latin1_bin`, …): MySQL flags it binary and
        // VTGate announces it as VARBINARY/BINARY/BLOB, but it is text of its character set.
        // Collation 0 (a set VTGate does not name) stays bytes until the stream learns the
        // collation ([`crate::collations::fill`]).
        Type::Varbinary | Type::Binary | Type::Blob if !binary && field.charset != 0 => {
            ColumnType::String
        }
        Type::Enum => ColumnType::Enum,
        Type::Set => ColumnType::Set,
        Type::Json => ColumnType::Json,
        Type::Bit => ColumnType::Bit,
        Type::Geometry => ColumnType::Geometry,
        _ if declared == "json" => ColumnType::Json,
        _ => ColumnType::Bytes,
    }
}

/// Builds one [`Column`] from a FIELD entry.
pub fn column_from_field(field: &Field) -> Column {
    let column_type = column_type_of(field);
    Column {
        name: field.name.clone(),
        column_type,
        mysql_type: field.column_type.clone(),
        vitess_type: field.r#type,
        charset: field.charset,
        length: declared_length(field, column_type),
        decimals: field.decimals,
        nullable: !has_flag(field, MySqlFlag::NotNullFlag),
        primary_key: has_flag(field, MySqlFlag::PriKeyFlag),
    }
}

/// Precision for DECIMAL (from `decimal(p,s)`), bit width for BIT, else the wire length.
fn declared_length(field: &Field, ty: ColumnType) -> u32 {
    if matches!(ty, ColumnType::Decimal | ColumnType::Bit) {
        if let Some(args) = type_args(&field.column_type) {
            if let Some(p) = args.split(',').next().and_then(|p| p.trim().parse().ok()) {
                return p;
            }
        }
    }
    field.column_length
}

/// `decimal(10,2) unsigned` → `10,2`.
fn type_args(column_type: &str) -> Option<&str> {
    let open = column_type.find('(')?;
    let close = column_type[open..].find(')')? + open;
    Some(&column_type[open + 1..close])
}

/// Strips the `keyspace.` prefix VTGate puts on table names.
pub fn bare_table_name<'a>(keyspace: &str, table: &'a str) -> &'a str {
    table
        .strip_prefix(keyspace)
        .and_then(|rest| rest.strip_prefix('.'))
        .unwrap_or(table)
}

/// Builds a [`TableSchema`] from a FIELD event.
pub fn schema_from_field_event(
    event: &FieldEvent,
    keyspace: &str,
    shard: &str,
    version: u32,
) -> TableSchema {
    TableSchema {
        keyspace: keyspace.to_string(),
        shard: shard.to_string(),
        table: bare_table_name(keyspace, &event.table_name).to_string(),
        columns: event.fields.iter().map(column_from_field).collect(),
        version,
    }
}

/// Decodes rows of one table shape. Built once per FIELD event and reused for every row.
#[derive(Debug, Clone)]
pub struct RowDecoder {
    pub schema: Arc<TableSchema>,
    /// Declared ENUM/SET members per column (empty for other columns), for index → name.
    members: Vec<Vec<String>>,
    /// Whether ENUM/SET values arrive as strings (copy phase, Vitess v20+) or as numbers.
    enum_set_strings: bool,
}

impl RowDecoder {
    pub fn new(schema: Arc<TableSchema>, enum_set_string_values: bool) -> Self {
        let members = schema
            .columns
            .iter()
            .map(|c| match c.column_type {
                ColumnType::Enum | ColumnType::Set => parse_members(&c.mysql_type),
                _ => Vec::new(),
            })
            .collect();
        RowDecoder {
            schema,
            members,
            enum_set_strings: enum_set_string_values,
        }
    }

    /// Decodes a full row image. `present` (the after image's `data_columns`) marks columns that
    /// were sent; unset bits become [`Value::Absent`].
    ///
    /// One walk over the row: each length is read as its cell is decoded. Anything amiss (a
    /// malformed length, a cell count other than the columns', a value that does not decode in
    /// a row that is malformed further on) is reported as the checked walk of [`row_cells`]
    /// reports it, before any value's error, as when the row was checked first.
    pub fn decode(&self, row: &Row, present: Option<&Bitmap>) -> Result<Vec<Value>> {
        let columns = self.schema.columns.len();
        let mut lengths = row.cell_lengths();
        let mut rest: &[u8] = &row.values;
        let mut values = Vec::with_capacity(columns);
        for i in 0..columns {
            let cell = match lengths.next() {
                Some(Ok(-1)) => None,
                Some(Ok(len)) if len >= 0 && len as u64 <= rest.len() as u64 => {
                    let (cell, tail) = rest.split_at(len as usize);
                    rest = tail;
                    Some(cell)
                }
                _ => return Err(self.row_error(row)),
            };
            if let Some(bitmap) = present {
                if !bitmap_bit(bitmap, i) {
                    values.push(Value::Absent);
                    continue;
                }
            }
            let value = match cell {
                None => Value::Null,
                Some(bytes) => self
                    .decode_cell(i, bytes, ValueBytes::Shared(&row.values))
                    .map_err(|e| {
                        self.row_problem(row)
                            .unwrap_or_else(|| self.context_error(Some(i), e))
                    })?,
            };
            values.push(value);
        }
        if lengths.next().is_some() || !rest.is_empty() {
            return Err(self.row_error(row));
        }
        Ok(values)
    }

    /// What is wrong with a row the single walk of [`decode`](Self::decode) stumbled on.
    #[cold]
    fn row_error(&self, row: &Row) -> Error {
        self.row_problem(row).unwrap_or_else(|| {
            Error::fatal(format!(
                "internal error: a row of {}.{} read inconsistently",
                self.schema.keyspace, self.schema.table
            ))
        })
    }

    /// The row's malformation or cell-count mismatch, if it has one.
    #[cold]
    fn row_problem(&self, row: &Row) -> Option<Error> {
        match row_cells(row) {
            Err(e) => Some(self.context_error(None, e)),
            Ok(cells) if cells.len() != self.schema.columns.len() => Some(Error::fatal(format!(
                "table {}.{} (shard {}): row has {} values but the FIELD event announced {} columns",
                self.schema.keyspace,
                self.schema.table,
                self.schema.shard,
                cells.len(),
                self.schema.columns.len()
            ))),
            Ok(_) => None,
        }
    }

    fn decode_cell(&self, i: usize, bytes: &[u8], source: ValueBytes<'_>) -> Result<Value> {
        let column = &self.schema.columns[i];
        match column.column_type {
            ColumnType::Enum | ColumnType::Set if !self.enum_set_strings => {
                enum_set_from_number(column.column_type, &self.members[i], bytes)
            }
            ColumnType::Enum | ColumnType::Set => {
                enum_set_text(column, &self.members[i], bytes, source)
            }
            _ => decode_value_from(column, bytes, source),
        }
    }

    fn context_error(&self, column: Option<usize>, e: Error) -> Error {
        let where_ = match column.and_then(|i| self.schema.columns.get(i)) {
            Some(c) => format!(" column {} ({})", c.name, c.mysql_type),
            None => String::new(),
        };
        Error::fatal(format!(
            "cannot decode a row of {}.{} (shard {}){where_}: {} — the stream stops before this \
             transaction's position; restart from the last checkpoint, and if the same row fails \
             again report it with the table's CREATE TABLE and the Vitess version",
            self.schema.keyspace, self.schema.table, self.schema.shard, e.message
        ))
    }
}

/// Bit `i` of a presence bitmap (LSB-first per byte, as in the MySQL binlog).
pub fn bitmap_bit(bitmap: &Bitmap, i: usize) -> bool {
    if i as i64 >= bitmap.count {
        return false;
    }
    bitmap
        .cols
        .get(i / 8)
        .is_some_and(|b| b & (1 << (i % 8)) != 0)
}

/// Whether any bit of the bitmap is set (an all-zero `json_partial_values` means no partial JSON).
pub fn bitmap_any(bitmap: &Bitmap) -> bool {
    (0..bitmap.count.max(0) as usize).any(|i| bitmap_bit(bitmap, i))
}

/// An ENUM/SET value sent as text. The copy phase sends it in the column's character set; the
/// binlog phase, where VTGate names the member itself, sends the member as declared (UTF-8,
/// like the column type it reads it from). A value that is not a declared member in the
/// column's character set but is one in UTF-8 is taken as UTF-8.
fn enum_set_text(
    column: &Column,
    members: &[String],
    bytes: &[u8],
    source: ValueBytes<'_>,
) -> Result<Value> {
    let utf8_set = crate::charset::of_collation(column.charset).is_none_or(|c| c.is_utf8());
    if utf8_set || bytes.is_ascii() {
        return decode_value_from(column, bytes, source);
    }
    let declared = |text: &str| match column.column_type {
        ColumnType::Set => text
            .split(',')
            .all(|m| text.is_empty() || members.iter().any(|d| d == m)),
        _ => members.iter().any(|d| d == text),
    };
    let decoded = decode_value_from(column, bytes, source);
    if let Ok(Value::String(text)) = &decoded {
        if declared(text) {
            return decoded;
        }
    }
    match std::str::from_utf8(bytes) {
        Ok(text) if declared(text) => Ok(Value::String(
            source
                .text(bytes)
                .map_err(|e| Error::fatal(format!("{e}")))?,
        )),
        _ => decoded,
    }
}

/// `enum('a','b''c')` → `["a", "b'c"]`.
pub fn parse_members(column_type: &str) -> Vec<String> {
    let Some(args) = column_type.find('(').map(|p| &column_type[p + 1..]) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut chars = args.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' {
            continue;
        }
        let mut member = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\'' if chars.peek() == Some(&'\'') => {
                    chars.next();
                    member.push('\'');
                }
                '\'' => break,
                '\\' => {
                    if let Some(n) = chars.next() {
                        member.push(n);
                    }
                }
                _ => member.push(c),
            }
        }
        out.push(member);
    }
    out
}

/// Pre-v20 running-phase ENUM (1-based index, 0 = '') and SET (bitmask) values.
fn enum_set_from_number(ty: ColumnType, members: &[String], bytes: &[u8]) -> Result<Value> {
    let text = ascii(bytes)?;
    let Ok(n) = text.trim().parse::<u64>() else {
        // Already a string (mixed-version tablets): keep it.
        return Ok(Value::String(text.into()));
    };
    if ty == ColumnType::Enum {
        if n == 0 {
            return Ok(Value::String(Text::new()));
        }
        return members
            .get(n as usize - 1)
            .map(|m| Value::String(m.as_str().into()))
            .ok_or_else(|| {
                Error::fatal(format!(
                    "ENUM index {n} is out of range ({} members)",
                    members.len()
                ))
            });
    }
    let mut names = Vec::new();
    for (bit, member) in members.iter().enumerate().take(64) {
        if n & (1u64 << bit) != 0 {
            names.push(member.as_str());
        }
    }
    Ok(Value::String(names.join(",").into()))
}

/// An integer as MySQL writes one, an optional `-` and 1 to 19 digits, as its sign and
/// magnitude; `None` for anything else, which the general path (UTF-8 check, trimming, the full
/// range and the error) then reads. Most integers of a row take this path.
fn plain_integer(bytes: &[u8]) -> Option<(bool, u64)> {
    let (negative, digits) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    // 19 digits always fit a u64 (its largest has 20).
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut n = 0u64;
    for &b in digits {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n = n * 10 + u64::from(digit);
    }
    Some((negative, n))
}

fn ascii(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes)
        .map_err(|_| Error::fatal(format!("expected ASCII text, got bytes {}", preview(bytes))))
}

fn preview(bytes: &[u8]) -> String {
    let shown: Vec<String> = bytes.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!(
        "0x{}{}",
        shown.join(""),
        if bytes.len() > 16 { "…" } else { "" }
    )
}

fn bad(what: &str, text: &str) -> Error {
    Error::fatal(format!("'{text}' is not a valid {what}"))
}

/// Decodes one non-NULL MySQL text value of `column`; text and binary values are copied (see
/// [`ValueBytes::Copied`]: for values kept beyond the batch).
pub fn decode_value(column: &Column, bytes: &[u8]) -> Result<Value> {
    decode_value_from(column, bytes, ValueBytes::Copied)
}

/// Decodes one non-NULL MySQL text value of `column`, text and binary values taken from
/// `source` (shared with the received message, or copied).
pub fn decode_value_from(column: &Column, bytes: &[u8], source: ValueBytes<'_>) -> Result<Value> {
    Ok(match column.column_type {
        ColumnType::Int | ColumnType::Year => match plain_integer(bytes) {
            Some((negative, n)) if n <= i64::MAX as u64 => {
                Value::Int(if negative { -(n as i64) } else { n as i64 })
            }
            _ => {
                let t = ascii(bytes)?;
                Value::Int(t.trim().parse().map_err(|_| bad("integer", t))?)
            }
        },
        ColumnType::UInt => match plain_integer(bytes) {
            Some((false, n)) => Value::UInt(n),
            _ => {
                let t = ascii(bytes)?;
                Value::UInt(t.trim().parse().map_err(|_| bad("unsigned integer", t))?)
            }
        },
        ColumnType::Float => {
            let t = ascii(bytes)?;
            // Parse as f32 so FLOAT is the same single-precision value in both `1.5` (copy)
            // and `1.5E+00` (binlog) forms, then round to MySQL's 6 significant digits.
            let v: f32 = t.trim().parse().map_err(|_| bad("FLOAT", t))?;
            Value::Float(float_as_mysql_shows(t, v) as f64)
        }
        ColumnType::Double => {
            let t = ascii(bytes)?;
            Value::Float(t.trim().parse().map_err(|_| bad("DOUBLE", t))?)
        }
        ColumnType::Decimal => {
            let digits = parse_decimal(ascii(bytes)?)?;
            Value::Decimal(match canonical_decimal(digits) {
                Some(fixed) => Text::from(fixed),
                None => source
                    .text(digits.as_bytes())
                    .map_err(|_| bad("DECIMAL", digits))?,
            })
        }
        ColumnType::Date => {
            let t = ascii(bytes)?;
            let (year, month, day) = parse_date(t).ok_or_else(|| bad("DATE", t))?;
            Value::Date { year, month, day }
        }
        ColumnType::DateTime | ColumnType::Timestamp => parse_datetime(ascii(bytes)?)?,
        ColumnType::Time => parse_time(ascii(bytes)?)?,
        ColumnType::String | ColumnType::Enum | ColumnType::Set => {
            Value::String(decode_text(bytes, column.charset, source)?)
        }
        ColumnType::Json => Value::String(normalize_json_text(decode_text(
            bytes,
            column.charset,
            source,
        )?)),
        ColumnType::Bytes | ColumnType::Bit => Value::Bytes(source.bytes(bytes)),
        ColumnType::Geometry => Value::Bytes(source.bytes(geometry_wkb(bytes)?)),
    })
}

/// The WKB of a MySQL geometry value. MySQL stores (and both the copy phase and the binlog
/// send) a 4-byte little-endian SRID in front of the WKB; GIS libraries and `ST_GeomFromWKB`
/// read WKB alone, so the SRID is dropped here (docs/sql-connector.md says how to keep it).
fn geometry_wkb(bytes: &[u8]) -> Result<&[u8]> {
    // The shortest WKB is 5 bytes (byte order + type); an empty GEOMETRYCOLLECTION has 9.
    if bytes.len() < 4 + 5 {
        return Err(Error::fatal(format!(
            "GEOMETRY value {} ({} bytes) is shorter than MySQL's 4-byte SRID followed by WKB: \
             the server sent a value that is not a MySQL geometry; please report it with the column's type",
            preview(bytes),
            bytes.len()
        )));
    }
    Ok(&bytes[4..])
}

/// FLOAT rounded to 6 significant digits (FLT_DIG), the precision MySQL prints a FLOAT with.
/// The copy phase reads FLOAT columns through `SELECT`, so it only ever has those 6 digits,
/// while the binlog carries the full single-precision value: rounding both the same way makes
/// a row decode to the same value in both phases (and equal to what `SELECT` shows).
fn float_as_mysql_shows(text: &str, v: f32) -> f32 {
    // Fast path: text with at most 6 significant digits already is such a value.
    let mantissa = text
        .trim()
        .split(['e', 'E'])
        .next()
        .unwrap_or("")
        .trim_start_matches(['-', '+']);
    let significant = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&b| b == b'0')
        .count();
    if significant <= 6 || !v.is_finite() {
        return v;
    }
    // Rust formats with round-half-even on the exact value, as MySQL's dtoa does.
    format!("{v:.5e}").parse().unwrap_or(v)
}

/// JSON text in MySQL's canonical layout: `", "` between elements, `": "` after keys, no other
/// whitespace outside strings. MySQL (copy phase) already writes this layout; the binlog
/// decoder of some Vitess versions writes compact JSON. Numbers and strings are kept as sent.
pub fn normalize_json_text(text: Text) -> Text {
    fn canonical(b: &[u8]) -> bool {
        let (mut in_str, mut esc) = (false, false);
        for (i, &c) in b.iter().enumerate() {
            if in_str {
                match c {
                    _ if esc => esc = false,
                    b'\\' => esc = true,
                    b'"' => in_str = false,
                    _ => {}
                }
                continue;
            }
            match c {
                b'"' => in_str = true,
                b',' | b':' if b.get(i + 1) != Some(&b' ') => return false,
                b' ' if i == 0 || !matches!(b[i - 1], b',' | b':') => return false,
                b'\t' | b'\n' | b'\r' => return false,
                _ => {}
            }
        }
        true
    }
    if canonical(text.as_bytes()) {
        return text;
    }
    Text::from(relayout_json(&text))
}

/// [`normalize_json_text`]'s slow path: `text` re-laid out.
fn relayout_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let (mut in_str, mut esc) = (false, false);
    for c in text.chars() {
        if in_str {
            out.push(c);
            match c {
                _ if esc => esc = false,
                '\\' => esc = true,
                '"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                out.push(c);
            }
            ',' | ':' => {
                out.push(c);
                out.push(' ');
            }
            ' ' | '\t' | '\n' | '\r' => {}
            _ => out.push(c),
        }
    }
    out
}

/// Text in the column's character set (named by its collation id) → UTF-8, exactly as MySQL
/// converts it ([`crate::charset`]). UTF-8 text, and ASCII text of an ASCII-compatible set, is
/// shared with `source`; anything else is transcoded.
fn decode_text(bytes: &[u8], collation: u32, source: ValueBytes<'_>) -> Result<Text> {
    let charset = crate::charset::of_collation(collation);
    if charset.is_none_or(|c| c.is_utf8()) {
        return source.text(bytes).map_err(|e| match charset {
            Some(c) => Error::fatal(format!(
                "text in collation {collation} (character set {}) is not valid UTF-8 ({e}): {}",
                c.name,
                preview(bytes)
            )),
            None => Error::fatal(format!(
                "text in collation {collation}, which MySQL 9.7 does not have, is not valid UTF-8 \
                 ({e}): {} — the character sets of MySQL 9.7 are decoded (docs/sql-connector.md); \
                 please report the server's version and the column's CREATE TABLE",
                preview(bytes)
            )),
        });
    }
    let charset = charset.expect("checked above");
    match charset.decode(bytes) {
        Ok(std::borrow::Cow::Borrowed(_)) => {
            source.text(bytes).map_err(|e| Error::fatal(format!("{e}")))
        }
        Ok(std::borrow::Cow::Owned(text)) => Ok(text.into()),
        Err(e) => Err(Error::fatal(format!(
            "text in collation {collation} (character set {}) is not valid: {e}: {}",
            charset.name,
            preview(bytes)
        ))),
    }
}

fn parse_decimal(text: &str) -> Result<&str> {
    // Old Vitess versions padded high-precision decimals with spaces.
    let t = text.trim();
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    let mut dots = 0;
    let valid = !digits.is_empty()
        && digits.chars().all(|c| {
            if c == '.' {
                dots += 1;
                true
            } else {
                c.is_ascii_digit()
            }
        })
        && dots <= 1
        && digits != ".";
    if !valid {
        return Err(bad("DECIMAL", text));
    }
    Ok(t.strip_prefix('+').unwrap_or(t))
}

/// MySQL's own text of a DECIMAL when `t` is not written that way (`None`: it is): one digit at
/// least before the point and no other leading zero. Vitess v23 and older stream some binlog
/// values otherwise (`.0000000001`, `000000000000000000` for the 0 of a DECIMAL(18,0)); the copy
/// phase always sends MySQL's text, and both phases must give the same value.
fn canonical_decimal(t: &str) -> Option<String> {
    let (sign, unsigned) = match t.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", t),
    };
    let int_len = unsigned.find('.').unwrap_or(unsigned.len());
    let int = &unsigned[..int_len];
    let significant = int.trim_start_matches('0');
    if !int.is_empty() && (significant.len() == int.len() || int == "0") {
        return None;
    }
    let int = if significant.is_empty() {
        "0"
    } else {
        significant
    };
    Some(format!("{sign}{int}{}", &unsigned[int_len..]))
}

fn digits<T: std::str::FromStr>(s: &str, len: std::ops::RangeInclusive<usize>) -> Option<T> {
    if !len.contains(&s.len()) || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// The number written by `b`, if it is only ASCII digits (at most 9 of them here).
fn fixed_digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |n, &c| {
        c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0'))
    })
}

/// `YYYY-MM-DD`, zero parts allowed (MySQL zero dates). Fixed positions, no splitting: this
/// runs for every DATE and DATETIME value.
fn parse_date(t: &str) -> Option<(u16, u8, u8)> {
    let b = t.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = fixed_digits(&b[0..4])? as u16;
    let month = fixed_digits(&b[5..7])? as u8;
    let day = fixed_digits(&b[8..10])? as u8;
    if month > 12 || day > 31 {
        return None;
    }
    Some((year, month, day))
}

/// `.ffffff` (1–6 digits) → microseconds.
fn parse_fraction(f: &str) -> Option<u32> {
    let n: u32 = digits(f, 1..=6)?;
    Some(n * 10u32.pow(6 - f.len() as u32))
}

/// `YYYY-MM-DD HH:MM:SS[.f…]` (or `T` between date and time), at fixed positions.
fn parse_datetime(t: &str) -> Result<Value> {
    let inner = || -> Option<Value> {
        let b = t.as_bytes();
        if b.len() < 19 || !matches!(b[10], b' ' | b'T') || b[13] != b':' || b[16] != b':' {
            return None;
        }
        let (year, month, day) = parse_date(&t[..10])?;
        let hour = fixed_digits(&b[11..13])? as u8;
        let minute = fixed_digits(&b[14..16])? as u8;
        let second = fixed_digits(&b[17..19])? as u8;
        let micros = match b.get(19) {
            None => 0,
            Some(b'.') => parse_fraction(&t[20..])?,
            Some(_) => return None,
        };
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        Some(Value::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        })
    };
    inner().ok_or_else(|| bad("DATETIME/TIMESTAMP", t))
}

/// `[-]HHH:MM:SS[.ffffff]` (hours up to 838).
fn parse_time(t: &str) -> Result<Value> {
    let inner = || -> Option<Value> {
        let (negative, rest) = match t.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, t),
        };
        let (hms, micros) = match rest.split_once('.') {
            Some((hms, frac)) => (hms, parse_fraction(frac)?),
            None => (rest, 0),
        };
        let mut p = hms.split(':');
        let hours: u32 = digits(p.next()?, 1..=3)?;
        let minute: u8 = digits(p.next()?, 2..=2)?;
        let second: u8 = digits(p.next()?, 2..=2)?;
        if p.next().is_some() || minute > 59 || second > 59 {
            return None;
        }
        Some(Value::Time {
            negative,
            hours,
            minute,
            second,
            micros,
        })
    };
    inner().ok_or_else(|| bad("TIME", t))
}

#[cfg(test)]
mod tests;
