// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Primary keys and chunk ranges of a chunked snapshot.
//!
//! A chunk is an open-ended range after a cursor key, read until a budget is reached and then
//! cut at the last key received. Vitess's filter accepts only an AND of `column <op> literal`
//! (no OR, no row-value comparison), so "keys after (x1, …, xn)" is read as n disjoint AND
//! ranges, in key order: level n-1 = `c1 = x1 and … and c(n-1) = x(n-1) and cn > xn`, …,
//! level 0 = `c1 > x1`. A chunk reads one level; when a level is exhausted the next chunk reads
//! the level below; a cut starts again at the deepest level of the new cursor.
//!
//! A table's range on a shard can also be split in advance into lanes by values of its first key
//! column ([`ChunkRange::until`], planned in `capture/lanes.rs`): each lane adds `c1 <= u` to its
//! terms, so several chunks of one table read side by side, each a plain AND filter.

use crate::error::{Error, ErrorCode, Result};
use crate::event::TableSchema;
use crate::keyorder::{ColumnOrder, KeyOrder};
use crate::value::Value;
use std::cmp::Ordering;

/// A table's primary key: its columns in index order, and MySQL's order of them.
#[derive(Debug, Clone, PartialEq)]
pub struct TableKey {
    /// Column names in index order.
    pub names: Vec<String>,
    pub order: KeyOrder,
}

impl TableKey {
    /// The key of `table` (`keyspace.table`, for messages) from its index-ordered column names
    /// and their order as `information_schema` declares them
    /// ([`crate::client::VtgateClient::key_orders`]). Refuses keys whose order the core cannot
    /// reproduce: the merge must tell equal keys and ranges apart exactly as MySQL does.
    pub fn new(
        table: &str,
        names: Vec<String>,
        order: std::result::Result<KeyOrder, crate::keyorder::Inexact>,
    ) -> Result<TableKey> {
        if names.is_empty() {
            return Err(Error::config(format!(
                "table '{table}' has no primary key: a chunked snapshot reads it in key ranges — add a primary key"
            ))
            .with_code(ErrorCode::NoPrimaryKey));
        }
        let order = order.map_err(|why| {
            Error::config(format!(
                "table '{table}' cannot be captured in chunks: {why} — the merge of chunks and log needs MySQL's exact key order \
                 (use the in-stream copy for this table)"
            ))
            .with_code(ErrorCode::InvalidOption)
        })?;
        if order.columns.len() != names.len() {
            return Err(Error::fatal(format!(
                "table '{table}': {} primary-key columns but {} column orders",
                names.len(),
                order.columns.len()
            )));
        }
        Ok(TableKey { names, order })
    }

    /// The key of `schema` as a FIELD event describes it, with `names` in index order.
    pub fn of_schema(schema: &TableSchema, names: &[String]) -> Result<TableKey> {
        let table = format!("{}.{}", schema.keyspace, schema.table);
        let mut orders = Vec::with_capacity(names.len());
        for name in names {
            let c = schema
                .columns
                .iter()
                .find(|c| c.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    Error::config(format!(
                        "primary-key column '{name}' of table '{table}' is not streamed — a chunked snapshot needs every key column"
                    ))
                    .with_code(ErrorCode::UnknownColumn)
                })?;
            match ColumnOrder::of_column(c) {
                Ok(o) => orders.push(o),
                Err(why) => return TableKey::new(&table, names.to_vec(), Err(why)),
            }
        }
        TableKey::new(&table, names.to_vec(), Ok(KeyOrder { columns: orders }))
    }

    /// The key values of a row of `schema` (index order). A key column the schema lacks gives
    /// NULL, which compares with nothing (treated as inside every range: safe).
    pub fn key_of(&self, schema: &TableSchema, row: &[Value]) -> Vec<Value> {
        self.names
            .iter()
            .map(|name| {
                schema
                    .columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(name))
                    // Detached: keys outlive the row (chunk bounds, the window's keys).
                    .and_then(|i| row.get(i).map(Value::detached))
                    .unwrap_or(Value::Null)
            })
            .collect()
    }

    /// MySQL's order of two keys; `None` when a value does not compare (NULL, changed type).
    pub fn compare(&self, a: &[Value], b: &[Value]) -> Option<Ordering> {
        let a: Vec<&Value> = a.iter().collect();
        let b: Vec<&Value> = b.iter().collect();
        self.order.compare(&a, &b)
    }

    fn column_compare(&self, i: usize, a: &Value, b: &Value) -> Option<Ordering> {
        let order = &self.order.columns[i];
        (order.accepts(a) && order.accepts(b)).then(|| order.compare(a, b))
    }
}

/// The keys one chunk reads: after `after` at `level`, up to `through` once cut.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRange {
    /// Exclusive lower bound; `None` = the table's first key (then `level` is unused).
    pub after: Option<Vec<Value>>,
    /// How many leading columns are fixed to `after`'s values (see the module doc).
    pub level: usize,
    /// Inclusive upper bound, known once the chunk was cut; `None` = to the level's end.
    pub through: Option<Vec<Value>>,
    /// Inclusive upper bound on the first key column: the end of the lane the chunk belongs to
    /// (`None` = the table's end).
    pub until: Option<Value>,
}

impl ChunkRange {
    /// The whole table.
    pub fn all() -> ChunkRange {
        ChunkRange {
            after: None,
            level: 0,
            through: None,
            until: None,
        }
    }

    /// The deepest level after `key` (the next chunk after a cut at `key`).
    pub fn after(key: Vec<Value>) -> ChunkRange {
        ChunkRange {
            level: key.len().saturating_sub(1),
            after: Some(key),
            through: None,
            until: None,
        }
    }

    /// The same range, ending where its lane ends.
    pub fn in_lane(self, until: Option<Value>) -> ChunkRange {
        ChunkRange { until, ..self }
    }

    /// What remains of the range (of its lane) once this chunk's level is exhausted, `None` =
    /// nothing.
    pub fn next_level(&self) -> Option<ChunkRange> {
        match &self.after {
            Some(key) if self.level > 0 => Some(ChunkRange {
                after: Some(key.clone()),
                level: self.level - 1,
                through: None,
                until: self.until.clone(),
            }),
            _ => None,
        }
    }

    /// What remains of the whole table once this chunk was emitted (its lane's bound dropped):
    /// the cursor a position saves. `None` = the table is done.
    pub fn remaining_after(&self) -> Option<ChunkRange> {
        if let Some(k) = &self.through {
            return Some(ChunkRange::after(k.clone()));
        }
        match (self.next_level(), &self.until) {
            (Some(r), _) => Some(r.in_lane(None)),
            // The lane's level 0 is exhausted: the table goes on after the lane's end.
            (None, Some(u)) => Some(ChunkRange::after(vec![u.clone()])),
            (None, None) => None,
        }
    }

    /// Whether `key` lies in the range. Keys that do not compare count as inside: the merge
    /// then treats a log change of them as newer than the chunk, which is always safe.
    pub fn contains(&self, tk: &TableKey, key: &[Value]) -> bool {
        if key.len() != tk.names.len() {
            return true;
        }
        if let Some(after) = &self.after {
            for i in 0..self.level {
                match tk.column_compare(i, &key[i], &after[i]) {
                    Some(Ordering::Equal) | None => {}
                    Some(_) => return false,
                }
            }
            match tk.column_compare(self.level, &key[self.level], &after[self.level]) {
                Some(Ordering::Greater) | None => {}
                Some(_) => return false,
            }
        }
        if let Some(through) = &self.through {
            if tk.compare(key, through) == Some(Ordering::Greater) {
                return false;
            }
        }
        if let Some(until) = &self.until {
            if tk.column_compare(0, &key[0], until) == Some(Ordering::Greater) {
                return false;
            }
        }
        true
    }

    /// The range as the WHERE terms of a VStream filter (ANDed; empty = every row).
    pub fn predicate(&self, tk: &TableKey) -> Result<Vec<String>> {
        let mut terms = Vec::with_capacity(self.level + 2);
        if let Some(after) = &self.after {
            for (i, (name, value)) in tk.names.iter().zip(after).take(self.level + 1).enumerate() {
                let op = if i == self.level { ">" } else { "=" };
                terms.push(format!(
                    "{} {op} {}",
                    quote_ident(name),
                    sql_literal(value)?
                ));
            }
        }
        // Above level 0 the first column is fixed inside the lane already.
        if let (Some(until), 0) = (&self.until, self.level) {
            terms.push(format!(
                "{} <= {}",
                quote_ident(&tk.names[0]),
                sql_literal(until)?
            ));
        }
        Ok(terms)
    }
}

/// A key's values as bytes, for positions ([`crate::position::TableSnapshot::after`]): per
/// value a tag byte, then its payload (varint lengths).
pub fn encode_key(key: &[Value]) -> Vec<u8> {
    fn bytes(out: &mut Vec<u8>, b: &[u8]) {
        let mut n = b.len() as u64;
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
        out.extend_from_slice(b);
    }
    let mut out = Vec::new();
    for v in key {
        match v {
            Value::Null | Value::Absent => out.push(0),
            Value::Int(n) => {
                out.push(1);
                out.extend_from_slice(&n.to_be_bytes());
            }
            Value::UInt(n) => {
                out.push(2);
                out.extend_from_slice(&n.to_be_bytes());
            }
            Value::Float(f) => {
                out.push(3);
                out.extend_from_slice(&f.to_bits().to_be_bytes());
            }
            Value::Decimal(d) => {
                out.push(4);
                bytes(&mut out, d.as_bytes());
            }
            Value::String(s) => {
                out.push(5);
                bytes(&mut out, s.as_bytes());
            }
            Value::Bytes(b) => {
                out.push(6);
                bytes(&mut out, b);
            }
            Value::Date { year, month, day } => {
                out.push(7);
                out.extend_from_slice(&year.to_be_bytes());
                out.extend_from_slice(&[*month, *day]);
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
                out.push(8);
                out.extend_from_slice(&year.to_be_bytes());
                out.extend_from_slice(&[*month, *day, *hour, *minute, *second]);
                out.extend_from_slice(&micros.to_be_bytes());
            }
            Value::Time {
                negative,
                hours,
                minute,
                second,
                micros,
            } => {
                out.push(9);
                out.push(u8::from(*negative));
                out.extend_from_slice(&hours.to_be_bytes());
                out.extend_from_slice(&[*minute, *second]);
                out.extend_from_slice(&micros.to_be_bytes());
            }
        }
    }
    out
}

/// Reads [`encode_key`]'s bytes back.
pub fn decode_key(buf: &[u8]) -> Result<Vec<Value>> {
    let corrupt = |what: &str| {
        Error::config(format!(
            "corrupt snapshot cursor key in a position ({what}) — the saved state is damaged; restore from another checkpoint"
        ))
        .with_code(ErrorCode::InvalidPosition)
    };
    let mut at = 0usize;
    let mut take = |n: usize| -> Result<&[u8]> {
        let s = buf.get(at..at + n).ok_or_else(|| corrupt("truncated"))?;
        at += n;
        Ok(s)
    };
    let mut out = Vec::new();
    loop {
        let tag = match take(1) {
            Ok(t) => t[0],
            Err(_) => break,
        };
        let arr8 = |s: &[u8]| -> [u8; 8] { s.try_into().expect("8 bytes") };
        let v = match tag {
            0 => Value::Null,
            1 => Value::Int(i64::from_be_bytes(arr8(take(8)?))),
            2 => Value::UInt(u64::from_be_bytes(arr8(take(8)?))),
            3 => Value::Float(f64::from_bits(u64::from_be_bytes(arr8(take(8)?)))),
            4..=6 => {
                let mut n: u64 = 0;
                for i in 0..10 {
                    let b = take(1)?[0];
                    n |= u64::from(b & 0x7f) << (7 * i);
                    if b & 0x80 == 0 {
                        break;
                    }
                }
                let raw = take(usize::try_from(n).map_err(|_| corrupt("length"))?)?.to_vec();
                match tag {
                    6 => Value::Bytes(raw.into()),
                    _ => {
                        let text =
                            String::from_utf8(raw).map_err(|_| corrupt("text is not UTF-8"))?;
                        if tag == 4 {
                            Value::Decimal(text.into())
                        } else {
                            Value::String(text.into())
                        }
                    }
                }
            }
            7 => {
                let b = take(4)?;
                Value::Date {
                    year: u16::from_be_bytes([b[0], b[1]]),
                    month: b[2],
                    day: b[3],
                }
            }
            8 => {
                let b = take(11)?;
                Value::DateTime {
                    year: u16::from_be_bytes([b[0], b[1]]),
                    month: b[2],
                    day: b[3],
                    hour: b[4],
                    minute: b[5],
                    second: b[6],
                    micros: u32::from_be_bytes([b[7], b[8], b[9], b[10]]),
                }
            }
            9 => {
                let b = take(11)?;
                Value::Time {
                    negative: b[0] != 0,
                    hours: u32::from_be_bytes([b[1], b[2], b[3], b[4]]),
                    minute: b[5],
                    second: b[6],
                    micros: u32::from_be_bytes([b[7], b[8], b[9], b[10]]),
                }
            }
            t => return Err(corrupt(&format!("unknown value tag {t}"))),
        };
        out.push(v);
    }
    Ok(out)
}

/// A column name as Vitess's filter parser reads it.
pub fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A key value as a literal of Vitess's filter grammar (compared by the column's collation).
pub fn sql_literal(v: &Value) -> Result<String> {
    Ok(match v {
        Value::Int(n) => n.to_string(),
        Value::UInt(n) => n.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Float(f) => format!("{f:e}"),
        Value::String(s) => quote_string(s),
        Value::Bytes(b) => format!(
            "X'{}'",
            b.iter().map(|x| format!("{x:02X}")).collect::<String>()
        ),
        Value::Date { year, month, day } => format!("'{year:04}-{month:02}-{day:02}'"),
        Value::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        } => format!(
            "'{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}.{micros:06}'"
        ),
        Value::Time {
            negative,
            hours,
            minute,
            second,
            micros,
        } => format!(
            "'{}{hours:02}:{minute:02}:{second:02}.{micros:06}'",
            if *negative { "-" } else { "" }
        ),
        Value::Null | Value::Absent => {
            return Err(Error::fatal(
                "a primary-key value is NULL or missing: the chunk cursor cannot be written as a filter",
            ))
        }
    })
}

/// A string literal: quotes doubled, backslashes escaped (MySQL's default sql_mode reads `\`).
fn quote_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("''"),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Column, ColumnType};

    pub(crate) fn schema(pk: &[&str]) -> TableSchema {
        let col = |name: &str, ty| Column {
            name: name.into(),
            column_type: ty,
            mysql_type: "bigint".into(),
            vitess_type: 265,
            charset: 63,
            length: 20,
            decimals: 0,
            nullable: false,
            primary_key: pk.contains(&name),
        };
        TableSchema {
            keyspace: "ks".into(),
            shard: "-80".into(),
            table: "t".into(),
            columns: vec![
                col("v", ColumnType::Int),
                col("b", ColumnType::Int),
                col("a", ColumnType::Int),
            ],
            version: 1,
        }
    }

    fn ints(v: &[i64]) -> Vec<Value> {
        v.iter().map(|&n| Value::Int(n)).collect()
    }

    #[test]
    fn composite_keys_read_in_index_order_as_and_levels() {
        let s = schema(&["a", "b"]);
        let tk = TableKey::of_schema(&s, &["a".into(), "b".into()]).unwrap();
        assert_eq!(tk.key_of(&s, &ints(&[9, 5, 3])), ints(&[3, 5]));
        let r = ChunkRange::after(ints(&[3, 5]));
        assert_eq!(r.predicate(&tk).unwrap(), vec!["`a` = 3", "`b` > 5"]);
        assert!(r.contains(&tk, &ints(&[3, 6])));
        assert!(!r.contains(&tk, &ints(&[3, 5])));
        assert!(!r.contains(&tk, &ints(&[4, 0])));
        let below = r.next_level().unwrap();
        assert_eq!(below.predicate(&tk).unwrap(), vec!["`a` > 3"]);
        assert!(below.contains(&tk, &ints(&[4, 0])));
        assert!(!below.contains(&tk, &ints(&[3, 9])));
        assert!(below.next_level().is_none());
        let mut cut = below.clone();
        cut.through = Some(ints(&[7, 1]));
        assert!(cut.contains(&tk, &ints(&[7, 1])));
        assert!(!cut.contains(&tk, &ints(&[7, 2])));
        assert!(ChunkRange::all().predicate(&tk).unwrap().is_empty());
    }

    #[test]
    fn a_lane_bounds_the_first_column_and_its_end_is_the_next_cursor() {
        let s = schema(&["a", "b"]);
        let tk = TableKey::of_schema(&s, &["a".into(), "b".into()]).unwrap();
        // The lane (3, 7] of the first column, after a cut inside it at (5, 2).
        let lane = ChunkRange::after(ints(&[3])).in_lane(Some(Value::Int(7)));
        assert_eq!(lane.predicate(&tk).unwrap(), vec!["`a` > 3", "`a` <= 7"]);
        assert!(lane.contains(&tk, &ints(&[7, 9])));
        assert!(!lane.contains(&tk, &ints(&[8, 0])));
        assert!(!lane.contains(&tk, &ints(&[3, 9])));
        let cut = ChunkRange::after(ints(&[5, 2])).in_lane(Some(Value::Int(7)));
        // Above level 0 the first column is fixed inside the lane: no bound term.
        assert_eq!(cut.predicate(&tk).unwrap(), vec!["`a` = 5", "`b` > 2"]);
        let below = cut.next_level().unwrap();
        assert_eq!(below.predicate(&tk).unwrap(), vec!["`a` > 5", "`a` <= 7"]);
        // What a position saves once a chunk is emitted: the whole table's rest, no lane.
        assert_eq!(
            cut.remaining_after(),
            Some(ChunkRange::after(ints(&[5, 2]))).map(|r| ChunkRange { level: 0, ..r })
        );
        assert_eq!(below.remaining_after(), Some(ChunkRange::after(ints(&[7]))));
        assert_eq!(ChunkRange::after(ints(&[7])).remaining_after(), None);
        // The first lane starts at the table's first key.
        let first = ChunkRange::all().in_lane(Some(Value::Int(3)));
        assert_eq!(first.predicate(&tk).unwrap(), vec!["`a` <= 3"]);
    }

    #[test]
    fn literals_are_escaped() {
        assert_eq!(
            sql_literal(&Value::String("it's \\ x".into())).unwrap(),
            "'it''s \\\\ x'"
        );
        assert_eq!(
            sql_literal(&Value::Bytes(vec![0, 255].into())).unwrap(),
            "X'00FF'"
        );
        assert_eq!(quote_ident("we`ird"), "`we``ird`");
        assert!(sql_literal(&Value::Null).is_err());
    }

    #[test]
    fn keys_without_exact_order_are_refused() {
        let mut s = schema(&["a"]);
        s.columns[2].column_type = ColumnType::Float;
        let e = TableKey::of_schema(&s, &["a".into()]).unwrap_err();
        assert!(e.message.contains("cannot be captured in chunks"), "{e}");
        let e = TableKey::of_schema(&s, &["zz".into()]).unwrap_err();
        assert!(e.message.contains("'zz'"), "{e}");
        let e = TableKey::of_schema(&s, &[]).unwrap_err();
        assert!(e.message.contains("no primary key"), "{e}");
    }

    #[test]
    fn keys_round_trip_through_bytes() {
        let key = vec![
            Value::Int(-5),
            Value::UInt(u64::MAX),
            Value::Decimal("-1.50".into()),
            Value::String("héllo".into()),
            Value::Bytes(vec![0; 300].into()),
            Value::Date {
                year: 2026,
                month: 12,
                day: 2,
            },
            Value::DateTime {
                year: 1,
                month: 2,
                day: 3,
                hour: 4,
                minute: 5,
                second: 6,
                micros: 7,
            },
            Value::Time {
                negative: true,
                hours: 838,
                minute: 59,
                second: 59,
                micros: 0,
            },
            Value::Float(1.5),
        ];
        assert_eq!(decode_key(&encode_key(&key)).unwrap(), key);
        assert!(decode_key(&[1, 2])
            .unwrap_err()
            .message
            .contains("truncated"));
        assert!(decode_key(&[42])
            .unwrap_err()
            .message
            .contains("unknown value tag 42"));
    }
}
