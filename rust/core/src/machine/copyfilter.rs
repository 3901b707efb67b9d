// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The exact-changelog rule of the copy phase (docs/architecture.md, invariant 9).
//!
//! While a shard copies a table, VStream's catchup and fast-forward windows send *every* change
//! of that table, including changes of rows the copy has not reached yet — and the copy sends
//! those rows again later (docs/architecture.md, protocol P2, "this row will show up twice"). That
//! happens whenever a copy resumes: after a restore and after any reconnect. Vitess's own
//! VReplication lets its target database discard them (`pk <= lastpk` conditions); we have no
//! target database, so the core discards them itself, comparing primary keys the way MySQL's
//! index orders them ([`crate::keyorder`]).
//!
//! Per shard, a table's copy is in one of three states, all read from the committed
//! [`ShardPosition`] (so a restore at any point sees the same thing):
//! - **pending** — listed in `tables_to_copy`, or in `table_p_ks` without a lastpk: not copied
//!   yet. The tablet drops its changes until its copy starts.
//! - **in progress** — in `table_p_ks` with the last copied key: changes of rows up to that key
//!   pass, changes beyond it are dropped (an update that moves a row across the boundary becomes
//!   a delete or an insert).
//! - **done** — copied: every change passes. A table stays listed with a *done mark*, a lastpk
//!   whose values are all NULL, until the shard's copy completes: a resume that has to plan the
//!   table again (`table_p_ks` makes the tablet plan every matched table) then copies no row of
//!   it (`pk > NULL` matches nothing) and keeps sending its changes (a planned table without a
//!   lastpk would have its changes dropped and be copied again from scratch).

use crate::decode::decode_value;
use crate::event::{Column, TableSchema};
use crate::keyorder::{ColumnOrder, Inexact, KeyOrder};
use crate::position::{ShardPosition, TableLastPk};
use crate::proto::query::{Field, QueryResult, Row};
use crate::value::{Bytes, Value};
use prost::Message;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A table's copy state on one shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableCopy<'a> {
    Pending,
    /// The serialized lastpk `query.QueryResult` of the last copy batch.
    InProgress(&'a [u8]),
    Done,
    /// Not among the tables this shard copies (created after the stream planned its copy, or a
    /// finished table without a done mark): its changes pass, as VTGate sends them.
    Untracked,
}

/// The copy state of `table` in `pos`.
pub fn table_copy<'a>(pos: &'a ShardPosition, table: &str) -> TableCopy<'a> {
    if pos.copy_completed {
        return TableCopy::Done;
    }
    if let Some(t) = pos.table_p_ks.iter().find(|t| t.table_name == table) {
        return match lastpk_kind(&t.lastpk) {
            LastPkKind::Missing => TableCopy::Pending,
            LastPkKind::Done => TableCopy::Done,
            LastPkKind::Key => TableCopy::InProgress(&t.lastpk),
        };
    }
    if pos.tables_to_copy.iter().any(|t| t == table) {
        return TableCopy::Pending;
    }
    TableCopy::Untracked
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LastPkKind {
    /// No lastpk: copy the table from its start.
    Missing,
    /// A done mark (every value NULL): nothing left to copy.
    Done,
    /// A real last copied key.
    Key,
}

pub fn lastpk_kind(lastpk: &[u8]) -> LastPkKind {
    if lastpk.is_empty() {
        return LastPkKind::Missing;
    }
    match QueryResult::decode(lastpk) {
        Ok(qr) => match qr.rows.first() {
            Some(row)
                if !row.lengths.is_empty()
                    && row.cell_lengths().all(|l| matches!(l, Ok(l) if l < 0)) =>
            {
                LastPkKind::Done
            }
            Some(_) => LastPkKind::Key,
            None => LastPkKind::Missing,
        },
        // Validated when positions are loaded; treat garbage as "from the start", the safe side.
        Err(_) => LastPkKind::Missing,
    }
}

/// A done mark for a table whose primary key has these fields: one row of NULLs.
pub fn done_mark(pk_fields: Vec<Field>) -> Vec<u8> {
    let lengths = vec![-1; pk_fields.len()];
    QueryResult {
        fields: pk_fields,
        rows: vec![Row::with_lengths(lengths, Bytes::new())],
        ..Default::default()
    }
    .encode_to_vec()
}

/// The done mark that follows a real lastpk (same fields), if it decodes.
pub fn done_mark_after(lastpk: &[u8]) -> Option<Vec<u8>> {
    let qr = QueryResult::decode(lastpk).ok()?;
    (!qr.fields.is_empty()).then(|| done_mark(qr.fields))
}

/// The done mark of a table from its schema's primary-key columns (a table that was empty when
/// copied never had a lastpk). The tablet checks only the number of values.
pub fn done_mark_from_schema(schema: &TableSchema) -> Option<Vec<u8>> {
    let fields: Vec<Field> = schema
        .columns
        .iter()
        .filter(|c| c.primary_key)
        .map(|c| Field {
            name: c.name.clone(),
            r#type: c.vitess_type,
            charset: c.charset,
            ..Default::default()
        })
        .collect();
    (!fields.is_empty()).then(|| done_mark(fields))
}

/// Turns a table entry into a done mark (keeping a mark that already is one).
pub fn mark_done(entry: &TableLastPk, schema: Option<&TableSchema>) -> Option<TableLastPk> {
    let lastpk = match lastpk_kind(&entry.lastpk) {
        LastPkKind::Done => return Some(entry.clone()),
        LastPkKind::Key => done_mark_after(&entry.lastpk),
        LastPkKind::Missing => None,
    }
    .or_else(|| schema.and_then(done_mark_from_schema))?;
    Some(TableLastPk {
        table_name: entry.table_name.clone(),
        lastpk,
    })
}

/// Copy progress of a copying shard after a VGTID: `vtgate` is the VGTID's `table_p_ks` for the
/// shard, `started` the pending tables whose copy FIELD came in the committed transaction,
/// `finished` the pending tables found finished in it. Returns the new `table_p_ks` (in-progress
/// keys and done marks) and `tables_to_copy` (pending tables).
pub fn merge_progress(
    old: &ShardPosition,
    vtgate: &[TableLastPk],
    started: &BTreeSet<String>,
    finished: &BTreeSet<String>,
    schema_of: impl Fn(&str) -> Option<Arc<TableSchema>>,
) -> (Vec<TableLastPk>, Vec<String>) {
    let mut entries: BTreeMap<String, TableLastPk> = BTreeMap::new();
    let mut pending: BTreeSet<String> = old.tables_to_copy.iter().cloned().collect();
    for t in &old.table_p_ks {
        match lastpk_kind(&t.lastpk) {
            LastPkKind::Missing => {
                pending.insert(t.table_name.clone());
            }
            _ => {
                entries.insert(t.table_name.clone(), t.clone());
            }
        }
    }
    // VTGate lists the tables of the request's VGTID plus those the tablet reported: keys of
    // tables in progress, our done marks, and (echoed) tables without lastpk, still pending.
    let mut at_key = BTreeSet::new();
    for t in vtgate {
        let kind = lastpk_kind(&t.lastpk);
        if kind == LastPkKind::Missing {
            continue;
        }
        pending.remove(&t.table_name);
        let ours_done = entries
            .get(&t.table_name)
            .is_some_and(|e| lastpk_kind(&e.lastpk) == LastPkKind::Done);
        if kind == LastPkKind::Key {
            at_key.insert(t.table_name.clone());
        }
        if !ours_done {
            entries.insert(t.table_name.clone(), t.clone());
        }
    }
    // The copy goes table by table in name order: the table it is at now means every table
    // before it has finished.
    let frontier = at_key.iter().chain(started).max().cloned();
    let listed: BTreeSet<&str> = vtgate.iter().map(|t| t.table_name.as_str()).collect();
    let mut finish: Vec<String> = entries
        .iter()
        .filter(|(name, e)| {
            lastpk_kind(&e.lastpk) == LastPkKind::Key
                && (!listed.contains(name.as_str()) || frontier.as_ref().is_some_and(|f| *name < f))
        })
        .map(|(name, _)| name.clone())
        .collect();
    for name in finish.drain(..) {
        let schema = schema_of(&name);
        match mark_done(&entries[&name], schema.as_deref()) {
            Some(done) => entries.insert(name, done),
            None => entries.remove(&name),
        };
    }
    let passed: Vec<String> = pending
        .iter()
        .filter(|name| finished.contains(*name) || frontier.as_ref().is_some_and(|f| *name < f))
        .cloned()
        .collect();
    for name in passed {
        pending.remove(&name);
        // A table copied without a row never had a lastpk: its mark comes from its schema.
        if let Some(lastpk) = schema_of(&name).as_deref().and_then(done_mark_from_schema) {
            entries.insert(
                name.clone(),
                TableLastPk {
                    table_name: name,
                    lastpk,
                },
            );
        }
    }
    // A table whose copy just started stays pending until its first batch or its end.
    (
        entries.into_values().collect(),
        pending.into_iter().collect(),
    )
}

/// A position restored from a checkpoint written before done marks existed keeps the final key
/// of every finished table: the copy goes in name order, so all but the last of them are done.
pub fn normalize_restored(mut pos: ShardPosition) -> ShardPosition {
    if pos.copy_completed {
        return pos;
    }
    let last_key = pos
        .table_p_ks
        .iter()
        .filter(|t| lastpk_kind(&t.lastpk) == LastPkKind::Key)
        .map(|t| t.table_name.clone())
        .max();
    let mut pending: BTreeSet<String> = pos.tables_to_copy.iter().cloned().collect();
    pos.table_p_ks.retain_mut(|t| match lastpk_kind(&t.lastpk) {
        LastPkKind::Missing => {
            pending.insert(t.table_name.clone());
            false
        }
        LastPkKind::Key if Some(&t.table_name) != last_key.as_ref() => {
            if let Some(done) = done_mark_after(&t.lastpk) {
                t.lastpk = done;
            }
            true
        }
        _ => true,
    });
    pos.tables_to_copy = pending.into_iter().collect();
    pos
}

/// Which rows of an in-progress table the copy has delivered: primary key ≤ the last copied key.
#[derive(Debug, Clone)]
pub enum CopiedRange {
    Below {
        order: KeyOrder,
        /// Positions of the key columns in the table's rows, in index order.
        key_columns: Vec<usize>,
        last: Vec<Value>,
    },
    /// The order cannot be reproduced: every change passes (at-least-once; the table is
    /// declared an upsert changelog).
    Unknown(Inexact),
}

impl CopiedRange {
    /// Builds the range from a lastpk and the table's current schema.
    pub fn new(lastpk: &[u8], schema: &Arc<TableSchema>) -> CopiedRange {
        match Self::build(lastpk, schema) {
            Ok(range) => range,
            Err(why) => CopiedRange::Unknown(why),
        }
    }

    fn build(lastpk: &[u8], schema: &TableSchema) -> Result<CopiedRange, Inexact> {
        let qr = QueryResult::decode(lastpk).map_err(|e| Inexact {
            column: String::new(),
            reason: format!("the lastpk does not decode: {e}"),
        })?;
        let row = qr.rows.first().ok_or_else(|| Inexact {
            column: String::new(),
            reason: "the lastpk has no row".into(),
        })?;
        let cells = crate::decode::split_row(row).map_err(|e| Inexact {
            column: String::new(),
            reason: e.message,
        })?;
        let mut key_columns = Vec::with_capacity(qr.fields.len());
        let mut orders = Vec::with_capacity(qr.fields.len());
        let mut last = Vec::with_capacity(qr.fields.len());
        for (field, cell) in qr.fields.iter().zip(cells) {
            let (index, column): (usize, &Column) = schema
                .columns
                .iter()
                .enumerate()
                .find(|(_, c)| c.name.eq_ignore_ascii_case(&field.name))
                .ok_or_else(|| Inexact {
                    column: field.name.clone(),
                    reason: "the primary-key column is not among the streamed columns".into(),
                })?;
            orders.push(ColumnOrder::of_column(column)?);
            key_columns.push(index);
            let value = match cell {
                Some(bytes) => decode_value(column, bytes).map_err(|e| Inexact {
                    column: field.name.clone(),
                    reason: e.message,
                })?,
                None => Value::Null,
            };
            last.push(value);
        }
        if key_columns.is_empty() {
            return Err(Inexact {
                column: String::new(),
                reason: "the lastpk names no column".into(),
            });
        }
        Ok(CopiedRange::Below {
            order: KeyOrder { columns: orders },
            key_columns,
            last,
        })
    }

    /// Whether the copy has delivered the row with these values (its key ≤ the last copied
    /// key). Unknown orders and values that do not compare count as delivered (kept).
    pub fn contains(&self, row: &[Value]) -> bool {
        match self {
            CopiedRange::Unknown(_) => true,
            CopiedRange::Below {
                order,
                key_columns,
                last,
            } => {
                let key: Option<Vec<&Value>> = key_columns.iter().map(|&i| row.get(i)).collect();
                let Some(key) = key else { return true };
                let last: Vec<&Value> = last.iter().collect();
                match order.compare(&key, &last) {
                    Some(Ordering::Greater) => false,
                    Some(_) | None => true,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::ColumnType;

    fn column(name: &str, ty: ColumnType, pk: bool, vitess_type: i32) -> Column {
        Column {
            name: name.into(),
            column_type: ty,
            mysql_type: match ty {
                ColumnType::UInt => "bigint unsigned".into(),
                ColumnType::Bytes => "varbinary(32)".into(),
                _ => "bigint".into(),
            },
            vitess_type,
            charset: 63,
            length: 0,
            decimals: 0,
            nullable: !pk,
            primary_key: pk,
        }
    }

    fn schema() -> Arc<TableSchema> {
        Arc::new(TableSchema {
            keyspace: "ks".into(),
            shard: "0".into(),
            table: "t".into(),
            columns: vec![
                column("v", ColumnType::Int, false, 265),
                column("b", ColumnType::Bytes, true, 10262),
                column("a", ColumnType::UInt, true, 778),
            ],
            version: 1,
        })
    }

    /// lastpk in index order (a, b) — not the table's column order.
    fn lastpk(a: u64, b: &[u8]) -> Vec<u8> {
        let a = a.to_string();
        QueryResult {
            fields: vec![
                Field {
                    name: "a".into(),
                    r#type: 778,
                    ..Default::default()
                },
                Field {
                    name: "b".into(),
                    r#type: 10262,
                    ..Default::default()
                },
            ],
            rows: vec![Row::with_lengths(
                [a.len() as i64, b.len() as i64],
                [a.as_bytes(), b].concat(),
            )],
            ..Default::default()
        }
        .encode_to_vec()
    }

    fn row(a: u64, b: &[u8]) -> Vec<Value> {
        vec![
            Value::Int(0),
            Value::Bytes(b.to_vec().into()),
            Value::UInt(a),
        ]
    }

    #[test]
    fn composite_key_in_index_order_bounds_the_copied_rows() {
        let range = CopiedRange::new(&lastpk(1 << 63, b"m"), &schema());
        assert!(matches!(range, CopiedRange::Below { .. }), "{range:?}");
        assert!(
            range.contains(&row(1 << 63, b"m")),
            "the last copied row itself"
        );
        assert!(range.contains(&row(1 << 63, b"a")));
        assert!(range.contains(&row(5, b"zzz")));
        assert!(!range.contains(&row(1 << 63, b"n")));
        assert!(!range.contains(&row(u64::MAX, b"")));
    }

    #[test]
    fn done_marks_are_told_apart_from_keys_and_missing_lastpks() {
        let key = lastpk(7, b"x");
        assert_eq!(lastpk_kind(&key), LastPkKind::Key);
        assert_eq!(lastpk_kind(&[]), LastPkKind::Missing);
        let done = done_mark_after(&key).unwrap();
        assert_eq!(lastpk_kind(&done), LastPkKind::Done);
        let qr = QueryResult::decode(done.as_slice()).unwrap();
        assert_eq!(
            qr.fields.len(),
            2,
            "same number of key values as the table's key"
        );
        let from_schema = done_mark_from_schema(&schema()).unwrap();
        assert_eq!(lastpk_kind(&from_schema), LastPkKind::Done);
    }

    #[test]
    fn table_states_come_from_the_position() {
        let pos = ShardPosition {
            keyspace: "ks".into(),
            shard: "0".into(),
            gtid: "MySQL56/u:1-5".into(),
            table_p_ks: vec![
                TableLastPk {
                    table_name: "a".into(),
                    lastpk: done_mark_after(&lastpk(1, b"a")).unwrap(),
                },
                TableLastPk {
                    table_name: "b".into(),
                    lastpk: lastpk(1, b"a"),
                },
                TableLastPk {
                    table_name: "c".into(),
                    lastpk: vec![],
                },
            ],
            tables_to_copy: vec!["d".into()],
            copy_completed: false,
            snapshots: Vec::new(),
        };
        assert_eq!(table_copy(&pos, "a"), TableCopy::Done);
        assert!(matches!(table_copy(&pos, "b"), TableCopy::InProgress(_)));
        assert_eq!(table_copy(&pos, "c"), TableCopy::Pending);
        assert_eq!(table_copy(&pos, "d"), TableCopy::Pending);
        assert_eq!(table_copy(&pos, "other"), TableCopy::Untracked);
        let done = ShardPosition {
            copy_completed: true,
            snapshots: Vec::new(),
            ..pos
        };
        assert_eq!(table_copy(&done, "d"), TableCopy::Done);
    }

    #[test]
    fn an_inexact_key_keeps_every_change() {
        let mut s = (*schema()).clone();
        s.columns[1].column_type = ColumnType::String;
        s.columns[1].charset = 45;
        let range = CopiedRange::new(&lastpk(1, b"m"), &Arc::new(s));
        match &range {
            CopiedRange::Unknown(why) => assert!(why.reason.contains("utf8mb4_general_ci")),
            other => panic!("{other:?}"),
        }
        assert!(range.contains(&[Value::Int(0), Value::String("z".into()), Value::UInt(9)]));
    }
}
