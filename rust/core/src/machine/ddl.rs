// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! DDL that changes what a consumer holds without a single row event: `TRUNCATE`, `DROP TABLE`,
//! and a `RENAME` that takes a table's rows away under another name. VStream passes DDL as the
//! statement's text; it is read with sqlparser's MySQL dialect. A rename that puts another table
//! in the old one's place in the same statement (the cut-over of Vitess's online DDL, gh-ost and
//! pt-online-schema-change: `RENAME TABLE t TO t_old, t_new TO t`) keeps the name's rows and is
//! not reported.

use sqlparser::ast::{AlterTableOperation, ObjectName, ObjectType, RenameTableNameKind, Statement};
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::Parser;

/// What a statement did to one table's rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowsGone {
    /// `TRUNCATE TABLE`: every row deleted, no row event.
    Truncated,
    /// `DROP TABLE`: the table and its rows are gone (a table created again under the name
    /// starts empty).
    Dropped,
    /// `RENAME TABLE t TO u` / `ALTER TABLE t RENAME TO u`: the rows live on as `u`.
    RenamedTo(String),
    /// A `TRUNCATE`, `DROP` or `RENAME` statement naming the table that sqlparser could not read:
    /// its effect is unknown, so it is reported rather than passed over.
    Unreadable,
}

/// One table's loss, by its bare name (no keyspace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEffect {
    pub table: String,
    pub effect: RowsGone,
}

/// The tables whose rows `statement` takes away, in statement order; empty for every other DDL.
/// `mentions` decides, for a statement that cannot be parsed, whether it names a table of
/// interest (then reported as [`RowsGone::Unreadable`]).
pub fn tables_losing_rows(statement: &str, mentions: impl Fn(&str) -> bool) -> Vec<TableEffect> {
    let parsed = match Parser::parse_sql(&MySqlDialect {}, statement) {
        Ok(statements) => statements,
        Err(_) => return unreadable(statement, mentions),
    };
    let mut out = Vec::new();
    for s in &parsed {
        match s {
            Statement::Truncate(t) => out.extend(t.table_names.iter().map(|n| TableEffect {
                table: bare(&n.name),
                effect: RowsGone::Truncated,
            })),
            Statement::Drop {
                object_type: ObjectType::Table,
                names,
                temporary: false,
                ..
            } => out.extend(names.iter().map(|n| TableEffect {
                table: bare(n),
                effect: RowsGone::Dropped,
            })),
            Statement::RenameTable(renames) => {
                let renamed: Vec<(String, String)> = renames
                    .iter()
                    .map(|r| (bare(&r.old_name), bare(&r.new_name)))
                    .collect();
                for (old, new) in &renamed {
                    // A name that another table takes in the same statement keeps rows.
                    if !renamed.iter().any(|(_, n)| n == old) {
                        out.push(TableEffect {
                            table: old.clone(),
                            effect: RowsGone::RenamedTo(new.clone()),
                        });
                    }
                }
            }
            Statement::AlterTable(alter) => {
                for op in &alter.operations {
                    if let AlterTableOperation::RenameTable { table_name } = op {
                        let (RenameTableNameKind::To(new) | RenameTableNameKind::As(new)) =
                            table_name;
                        out.push(TableEffect {
                            table: bare(&alter.name),
                            effect: RowsGone::RenamedTo(bare(new)),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// A statement sqlparser cannot read: reported only when it is a kind that can take rows away and
/// it names a table of interest.
fn unreadable(statement: &str, mentions: impl Fn(&str) -> bool) -> Vec<TableEffect> {
    const KEYWORDS: [&str; 11] = [
        "truncate",
        "drop",
        "rename",
        "alter",
        "table",
        "tables",
        "if",
        "exists",
        "temporary",
        "to",
        "as",
    ];
    let mut words = statement
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| !w.is_empty());
    let first = words.next().unwrap_or_default().to_ascii_lowercase();
    let takes_rows = match first.as_str() {
        "truncate" | "drop" | "rename" => true,
        "alter" => statement.to_ascii_lowercase().contains("rename"),
        _ => false,
    };
    if !takes_rows {
        return Vec::new();
    }
    words
        .filter(|w| !KEYWORDS.contains(&w.to_ascii_lowercase().as_str()) && mentions(w))
        .take(1)
        .map(|w| TableEffect {
            table: w.to_string(),
            effect: RowsGone::Unreadable,
        })
        .collect()
}

/// The table part of a possibly qualified name, unquoted (`ks`.`t` → t).
fn bare(name: &ObjectName) -> String {
    name.0
        .last()
        .and_then(|part| part.as_ident())
        .map(|ident| ident.value.clone())
        .unwrap_or_else(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effects(sql: &str) -> Vec<(String, RowsGone)> {
        tables_losing_rows(sql, |t| t == "orders")
            .into_iter()
            .map(|e| (e.table, e.effect))
            .collect()
    }

    #[test]
    fn truncate_and_drop_name_every_table() {
        assert_eq!(
            effects("TRUNCATE TABLE `orders`"),
            vec![("orders".into(), RowsGone::Truncated)]
        );
        assert_eq!(
            effects("truncate ks.orders"),
            vec![("orders".into(), RowsGone::Truncated)]
        );
        assert_eq!(
            effects("DROP TABLE IF EXISTS `orders`, `items`"),
            vec![
                ("orders".into(), RowsGone::Dropped),
                ("items".into(), RowsGone::Dropped)
            ]
        );
        assert!(effects("DROP TEMPORARY TABLE orders").is_empty());
        assert!(effects("DROP VIEW orders").is_empty());
    }

    #[test]
    fn a_rename_away_is_reported_and_a_swap_is_not() {
        assert_eq!(
            effects("RENAME TABLE orders TO orders_2024"),
            vec![("orders".into(), RowsGone::RenamedTo("orders_2024".into()))]
        );
        assert_eq!(
            effects("ALTER TABLE `orders` RENAME TO `archive`"),
            vec![("orders".into(), RowsGone::RenamedTo("archive".into()))]
        );
        // Online DDL's cut-over: the name keeps rows (the shadow table's, a copy of them).
        assert!(effects(
            "RENAME TABLE `orders` TO `_vt_hld_6ace8bcef73211ea87e9f875a4d24e90_20200915120410_`, \
             `_vt_vrp_6ace8bcef73211ea87e9f875a4d24e90_20200915120410_` TO `orders`"
        )
        .iter()
        .all(|(t, _)| t != "orders"));
    }

    #[test]
    fn other_ddl_takes_no_rows() {
        for sql in [
            "ALTER TABLE orders ADD COLUMN note VARCHAR(10)",
            "CREATE TABLE orders_copy (id BIGINT PRIMARY KEY)",
            "ALTER TABLE orders MODIFY status VARCHAR(32)",
            "CREATE INDEX i ON orders (status)",
        ] {
            assert!(effects(sql).is_empty(), "{sql}");
        }
    }

    #[test]
    fn an_unreadable_statement_naming_the_table_is_reported() {
        assert_eq!(
            effects("TRUNCATE TABLE orders PARTITION WHATEVER $$"),
            vec![("orders".into(), RowsGone::Unreadable)]
        );
        assert!(effects("TRUNCATE TABLE other PARTITION WHATEVER $$").is_empty());
        assert!(effects("OPTIMIZE $$ orders").is_empty());
        assert!(
            tables_losing_rows("alter $$", |_| true).is_empty(),
            "an ALTER without RENAME takes no rows, and keywords are no table names"
        );
    }
}
