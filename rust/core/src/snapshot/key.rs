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
    /// Positions of those columns in the schema's rows.
    pub columns: Vec<usize>,
    pub order: KeyOrder,
}

impl TableKey {
    /// The key of `schema` whose columns, in index order, are `names` (from
    /// `information_schema.statistics`). Refuses keys whose order the core cannot reproduce:
    /// the merge must tell equal keys and ranges exactly as MySQL does.
    pub fn of(schema: &TableSchema, names: &[String]) -> Result<TableKey> {
        let table = format!("{}.{}", schema.keyspace, schema.table);
        if names.is_empty() {
            return Err(Error::config(format!(
                "table '{table}' has no primary key: a chunked snapshot reads it in key ranges — add a primary key"
            ))
            .with_code(ErrorCode::NoPrimaryKey));
        }
        let mut columns = Vec::with_capacity(names.len());
        let mut orders = Vec::with_capacity(names.len());
        for name in names {
            let (i, c) = schema
                .columns
                .iter()
                .enumerate()
                .find(|(_, c)| c.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    Error::config(format!(
                        "primary-key column '{name}' of table '{table}' is not streamed — a chunked snapshot needs every key column"
                    ))
                    .with_code(ErrorCode::UnknownColumn)
                })?;
            let order = ColumnOrder::of_column(c).map_err(|why| {
                Error::config(format!(
                    "table '{table}' cannot be captured in chunks: {why} — the merge of chunks and log needs MySQL's exact key order \
                     (use the in-stream copy for this table)"
                ))
                .with_code(ErrorCode::InvalidOption)
            })?;
            columns.push(i);
            orders.push(order);
        }
        Ok(TableKey {
            names: names.to_vec(),
            columns,
            order: KeyOrder { columns: orders },
        })
    }

    /// The key values of a row (schema order in, index order out).
    pub fn key_of(&self, row: &[Value]) -> Vec<Value> {
        self.columns
            .iter()
            .map(|&i| row.get(i).cloned().unwrap_or(Value::Null))
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
}

impl ChunkRange {
    /// The whole table.
    pub fn all() -> ChunkRange {
        ChunkRange {
            after: None,
            level: 0,
            through: None,
        }
    }

    /// The deepest level after `key` (the next chunk after a cut at `key`).
    pub fn after(key: Vec<Value>) -> ChunkRange {
        ChunkRange {
            level: key.len().saturating_sub(1),
            after: Some(key),
            through: None,
        }
    }

    /// What remains of the table once this chunk's level is exhausted, `None` = nothing.
    pub fn next_level(&self) -> Option<ChunkRange> {
        match &self.after {
            Some(key) if self.level > 0 => Some(ChunkRange {
                after: Some(key.clone()),
                level: self.level - 1,
                through: None,
            }),
            _ => None,
        }
    }

    /// Whether `key` lies in the range. Keys that do not compare count as inside: the merge
    /// then treats a log change of them as newer than the chunk, which is always safe.
    pub fn contains(&self, tk: &TableKey, key: &[Value]) -> bool {
        if key.len() != tk.columns.len() {
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
        true
    }

    /// The range as the WHERE terms of a VStream filter (ANDed; empty = every row).
    pub fn predicate(&self, tk: &TableKey) -> Result<Vec<String>> {
        let Some(after) = &self.after else {
            return Ok(Vec::new());
        };
        let mut terms = Vec::with_capacity(self.level + 1);
        for (i, (name, value)) in tk.names.iter().zip(after).take(self.level + 1).enumerate() {
            let op = if i == self.level { ">" } else { "=" };
            terms.push(format!(
                "{} {op} {}",
                quote_ident(name),
                sql_literal(value)?
            ));
        }
        Ok(terms)
    }
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
        Value::Decimal(d) => d.clone(),
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
        let tk = TableKey::of(&s, &["a".into(), "b".into()]).unwrap();
        assert_eq!(tk.columns, vec![2, 1]);
        assert_eq!(tk.key_of(&ints(&[9, 5, 3])), ints(&[3, 5]));
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
    fn literals_are_escaped() {
        assert_eq!(
            sql_literal(&Value::String("it's \\ x".into())).unwrap(),
            "'it''s \\\\ x'"
        );
        assert_eq!(sql_literal(&Value::Bytes(vec![0, 255])).unwrap(), "X'00FF'");
        assert_eq!(quote_ident("we`ird"), "`we``ird`");
        assert!(sql_literal(&Value::Null).is_err());
    }

    #[test]
    fn keys_without_exact_order_are_refused() {
        let mut s = schema(&["a"]);
        s.columns[2].column_type = ColumnType::Float;
        let e = TableKey::of(&s, &["a".into()]).unwrap_err();
        assert!(e.message.contains("cannot be captured in chunks"), "{e}");
        let e = TableKey::of(&s, &["zz".into()]).unwrap_err();
        assert!(e.message.contains("'zz'"), "{e}");
    }
}
