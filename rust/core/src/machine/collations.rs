// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The collations Vitess does not name. A FIELD event carries each column's collation id, but
//! VTGate's collation environment lacks a few of MySQL's character sets (in v24: `big5`, `gbk`,
//! `gb18030`, `tis620`) and announces their columns with collation 0. Their text would then be
//! undecodable; the stream reads those columns' collations from `information_schema` once, when it
//! opens, and fills them in ([`fill`]).

use crate::client::VtgateClient;
use crate::event::{ColumnType, TableSchema};
use std::collections::HashMap;

/// Collation ids by table and column, of the text columns not in a UTF-8 character set.
pub type ColumnCollations = HashMap<String, HashMap<String, u32>>;

/// The collation of every text column of `tables` (of `keyspace`) whose character set is not
/// UTF-8 (nor `binary`); empty, with a warning, when `information_schema` cannot be read. One
/// query, for the tables the stream selects only (a chunk's side stream: its one table).
pub async fn read(client: &VtgateClient, keyspace: &str, tables: &[String]) -> ColumnCollations {
    if tables.is_empty() {
        return ColumnCollations::new();
    }
    let ks = crate::client::sql_string(keyspace);
    let names: Vec<String> = tables
        .iter()
        .map(|t| crate::client::sql_string(t))
        .collect();
    let query = format!(
        "select c.table_name, c.column_name, k.id from information_schema.columns c \
         join information_schema.collations k on k.collation_name = c.collation_name \
         where c.table_schema = {ks} and c.table_name in ({}) \
         and c.character_set_name not in ('utf8mb4', 'utf8mb3', 'binary')",
        names.join(", ")
    );
    let result = match client.execute(&query).await {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(keyspace, error = %e.full_message(),
                "cannot read the collations of the keyspace's text columns: columns of a character set \
                 VTGate does not name (big5, gbk, gb18030, tis620) will not decode");
            return ColumnCollations::new();
        }
    };
    let mut out = ColumnCollations::new();
    for row in &result.rows {
        let Ok(cells) = crate::decode::split_row(row) else {
            continue;
        };
        let text = |i: usize| {
            cells
                .get(i)
                .copied()
                .flatten()
                .map(|b| String::from_utf8_lossy(b).into_owned())
        };
        if let (Some(table), Some(column), Some(Ok(id))) =
            (text(0), text(1), text(2).map(|t| t.parse::<u32>()))
        {
            out.entry(table).or_default().insert(column, id);
        }
    }
    out
}

/// Gives each column of `schema` announced with collation 0 the collation `collations` knows for
/// it; such a column announced as binary (its collation is a binary one, `gbk_bin`) is text.
pub fn fill(schema: &mut TableSchema, collations: &ColumnCollations) {
    let Some(table) = collations.get(&schema.table) else {
        return;
    };
    for column in &mut schema.columns {
        if column.charset == 0 {
            if let Some(&id) = table.get(&column.name) {
                column.charset = id;
                if column.column_type == ColumnType::Bytes {
                    column.column_type = ColumnType::String;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Column;

    #[test]
    fn only_columns_announced_without_a_collation_are_filled() {
        let column = |name: &str, charset: u32| Column {
            name: name.into(),
            column_type: if name == "c" {
                ColumnType::Bytes
            } else {
                ColumnType::String
            },
            mysql_type: "varchar(8)".into(),
            vitess_type: 0,
            charset,
            length: 8,
            decimals: 0,
            nullable: true,
            primary_key: false,
        };
        let mut schema = TableSchema {
            keyspace: "ks".into(),
            shard: "0".into(),
            table: "t".into(),
            columns: vec![
                column("a", 0),
                column("b", 8),
                column("c", 0),
                column("d", 0),
            ],
            version: 0,
        };
        let mut known = ColumnCollations::new();
        known.entry("t".into()).or_default().extend([
            ("a".to_string(), 1),
            ("b".to_string(), 28),
            ("c".to_string(), 87),
        ]);
        fill(&mut schema, &known);
        let ids: Vec<u32> = schema.columns.iter().map(|c| c.charset).collect();
        assert_eq!(ids, [1, 8, 87, 0], "a, c filled, b kept, d unknown");
        assert_eq!(
            schema.columns[2].column_type,
            ColumnType::String,
            "gbk_bin text announced as binary is text"
        );
        assert_eq!(crate::charset::of_collation(1).unwrap().name, "big5");
    }
}
