// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! What VTGate's SQL tells about a keyspace, read through `Execute`: its shards and tables, the
//! primary keys and their order, the columns a narrowed selection names, row estimates and key
//! bounds per shard, and the Vitess version.

use super::VtgateClient;
use crate::error::{Error, ErrorCode, Result};
use crate::proto::query::QueryResult;

/// What `Execute`-based discovery learned about a keyspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyspaceInfo {
    pub shards: Vec<String>,
    /// Base tables of the keyspace, with whether each has a primary key, sorted by name.
    pub tables: Vec<(String, bool)>,
    /// The primary-key columns of each table that has one, in index order: a narrowed
    /// selection keeps them (see [`crate::request::filter_rules`]).
    pub primary_keys: PrimaryKeys,
}

/// Table name → its primary-key column names, in index order.
pub type PrimaryKeys = std::collections::BTreeMap<String, Vec<String>>;

/// A Vitess server version as reported by `@@version_comment` (e.g. `Version: 24.0.4 (...)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ServerVersion {
    pub major: u32,
    pub minor: u32,
}

impl VtgateClient {
    /// The Vitess version of the VTGate, if it reports one.
    pub async fn server_version(&self) -> Result<Option<ServerVersion>> {
        let result = self.execute("select @@version_comment").await?;
        Ok(first_cell_text(&result).and_then(|s| parse_version_comment(&s)))
    }

    /// The characters `keyspace`.`table`.`column` holds (`information_schema`), None for a
    /// column without a maximum (TEXT holds more than any id) or one not found.
    pub async fn column_max_chars(
        &self,
        keyspace: &str,
        table: &str,
        column: &str,
    ) -> Result<Option<u64>> {
        let sql = format!(
            "select character_maximum_length from information_schema.columns where table_schema = {} \
             and table_name = {} and column_name = {}",
            sql_string(keyspace),
            sql_string(table),
            sql_string(column)
        );
        let result = self.execute(&sql).await?;
        Ok(first_cell_text(&result).and_then(|s| s.trim().parse().ok()))
    }

    /// The shards of `keyspace` that VTGate serves now (`SHOW VITESS_SHARDS`).
    pub async fn serving_shards(&self, keyspace: &str) -> Result<Vec<String>> {
        let result = self.execute("show vitess_shards").await?;
        Ok(keyspace_shards(&result)?
            .filter(|(ks, _)| ks == keyspace)
            .map(|(_, shard)| shard)
            .collect())
    }

    /// Shards and tables of `keyspace`. Fails with a config error naming the known keyspaces
    /// when the keyspace does not exist.
    pub async fn describe_keyspace(&self, keyspace: &str) -> Result<KeyspaceInfo> {
        let ks = sql_string(keyspace);
        let tables_sql = format!(
            "select table_name from information_schema.tables where table_schema = {ks} and table_type = 'BASE TABLE'"
        );
        let pks_sql = format!(
            "select table_name, column_name from information_schema.statistics \
             where table_schema = {ks} and index_name = 'PRIMARY' order by table_name, seq_in_index"
        );
        // Three round trips through VTGate, side by side on the one connection: a stream waits
        // for them before it starts. The shards' answer is looked at first, so an unknown
        // keyspace is told as such whatever the other two answered.
        let (shards_result, tables, pks) = tokio::join!(
            self.execute("show vitess_shards"),
            self.execute(&tables_sql),
            self.execute(&pks_sql)
        );
        let shards_result = shards_result?;
        let mut keyspaces = std::collections::BTreeSet::new();
        let mut shards = Vec::new();
        for (ks, shard) in keyspace_shards(&shards_result)? {
            if ks == keyspace {
                shards.push(shard);
            }
            keyspaces.insert(ks);
        }
        if shards.is_empty() {
            let known: Vec<_> = keyspaces.into_iter().collect();
            return Err(Error::config(format!(
                "keyspace '{keyspace}' not found in VTGate at {} (known keyspaces: {}) — check the keyspace option",
                self.address,
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ))
            .with_code(ErrorCode::UnknownKeyspace));
        }
        let (tables, pks) = (tables?, pks?);
        let primary_keys = primary_key_columns_of(&pks)?;
        let mut tables: Vec<(String, bool)> = text_column(&tables, 0)?
            .into_iter()
            .map(|t| {
                let has_pk = primary_keys.contains_key(&t);
                (t, has_pk)
            })
            .collect();
        tables.sort();
        tables.dedup();
        Ok(KeyspaceInfo {
            shards,
            tables,
            primary_keys,
        })
    }

    /// Fails with [`ErrorCode::UnknownColumn`] when a selected column is not in one of `tables`
    /// of `keyspace`, naming the column, the table, its columns and the fix. Read from
    /// `information_schema` when a stream is planned, so a mistyped column fails the job once, at
    /// planning, instead of every reader's stream being refused by the tablets (a restart loop).
    pub async fn check_columns(
        &self,
        keyspace: &str,
        tables: &[String],
        columns: &[String],
    ) -> Result<()> {
        if columns.is_empty() || tables.is_empty() {
            return Ok(());
        }
        let ks = sql_string(keyspace);
        // Only the selected tables' columns: a keyspace may hold thousands of tables.
        let names: Vec<String> = tables.iter().map(|t| sql_string(t)).collect();
        let result = self
            .execute(&format!(
                "select table_name, column_name from information_schema.columns where table_schema = {ks} \
                 and table_name in ({}) order by table_name, ordinal_position",
                names.join(", ")
            ))
            .await?;
        let mut by_table: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for row in &result.rows {
            let text = text_cells(row)?;
            if let (Some(table), Some(column)) = (text(0), text(1)) {
                by_table.entry(table).or_default().push(column);
            }
        }
        for table in tables {
            let Some(known) = by_table.get(table) else {
                continue;
            };
            // MySQL column names are case-insensitive.
            if let Some(missing) = columns
                .iter()
                .find(|c| !known.iter().any(|k| k.eq_ignore_ascii_case(c)))
            {
                return Err(Error::config(format!(
                    "column '{missing}' is not in Vitess table {keyspace}.{table} (its columns: {}) — remove it \
                     from the selection (the columns option, or the Flink table's declared columns) or fix its name",
                    known.join(", ")
                ))
                .with_code(ErrorCode::UnknownColumn));
            }
        }
        Ok(())
    }

    /// Whether the core reproduces the primary-key order of each table of `keyspace` exactly (see
    /// [`crate::keyorder`]): the tables whose changelog stays exact while a copy resumes, and, for
    /// the others, the column and reason. Read from `information_schema` before streaming, so a
    /// consumer can declare a table's changelog mode at job start.
    pub async fn key_orders(&self, keyspace: &str) -> Result<crate::keyorder::TableKeyOrders> {
        use crate::keyorder::{ColumnOrder, KeyOrder};
        let ks = sql_string(keyspace);
        let result = self
            .execute(&format!(
                "select table_name, column_name, data_type, column_type, collation_name, seq_in_index \
                 from information_schema.columns join information_schema.statistics using (table_schema, table_name, column_name) \
                 where table_schema = {ks} and index_name = 'PRIMARY' order by table_name, seq_in_index"
            ))
            .await?;
        let mut tables = crate::keyorder::TableKeyOrders::new();
        for row in &result.rows {
            let text = text_cells(row)?;
            let (Some(table), Some(column), Some(data_type), Some(column_type)) =
                (text(0), text(1), text(2), text(3))
            else {
                continue;
            };
            let collation = text(4);
            let entry = tables.entry(table).or_insert_with(|| {
                Ok(KeyOrder {
                    columns: Vec::new(),
                })
            });
            if let Ok(order) = entry {
                match ColumnOrder::of_declared(
                    &column,
                    &data_type,
                    &column_type,
                    collation.as_deref(),
                ) {
                    Ok(c) => order.columns.push(c),
                    Err(why) => *entry = Err(why),
                }
            }
        }
        Ok(tables)
    }
}

impl VtgateClient {
    /// The primary-key column names of every table of `keyspace`, in index order (the order
    /// the key compares in, which is not always the order of the table's columns).
    pub async fn primary_key_columns(&self, keyspace: &str) -> Result<PrimaryKeys> {
        let ks = sql_string(keyspace);
        let result = self
            .execute(&format!(
                "select table_name, column_name from information_schema.statistics \
                 where table_schema = {ks} and index_name = 'PRIMARY' order by table_name, seq_in_index"
            ))
            .await?;
        primary_key_columns_of(&result)
    }
}

/// Table → key columns from rows of `(table_name, column_name)` in index order.
fn primary_key_columns_of(result: &QueryResult) -> Result<PrimaryKeys> {
    let mut tables = PrimaryKeys::new();
    for row in &result.rows {
        let text = text_cells(row)?;
        if let (Some(table), Some(column)) = (text(0), text(1)) {
            tables.entry(table).or_default().push(column);
        }
    }
    Ok(tables)
}

/// Row counts of every table of one shard, as its MySQL's table statistics estimate them
/// (`information_schema.tables.table_rows`; `None` when the statistics have none).
pub type TableRowEstimates = std::collections::BTreeMap<String, Option<u64>>;

impl VtgateClient {
    /// The estimated row count of every base table of `keyspace` on `shard`, asked of that shard
    /// (the session targets `keyspace:shard`). Estimates: InnoDB samples pages, and MySQL caches
    /// the statistics (`information_schema_stats_expiry`), so they may lag recent writes.
    pub async fn table_rows(&self, keyspace: &str, shard: &str) -> Result<TableRowEstimates> {
        let result = self
            .execute_on(
                &format!("{keyspace}:{shard}"),
                "select table_name, table_rows from information_schema.tables \
                 where table_schema = database() and table_type = 'BASE TABLE'",
            )
            .await?;
        let mut rows = TableRowEstimates::new();
        for row in &result.rows {
            let text = text_cells(row)?;
            if let Some(table) = text(0) {
                rows.insert(table, text(1).and_then(|n| n.trim().parse().ok()));
            }
        }
        Ok(rows)
    }
}

impl VtgateClient {
    /// The lowest and highest value of `column` in `table`, asked of one shard's tablet
    /// (`target` = `keyspace:shard` or `keyspace:shard@replica`): two index dives when the
    /// column leads an index (a primary key's first column). `None` when the table is empty.
    pub async fn column_bounds(
        &self,
        target: &str,
        table: &str,
        column: &str,
    ) -> Result<Option<(String, String)>> {
        let column = crate::snapshot::key::quote_ident(column);
        let table = crate::snapshot::key::quote_ident(table);
        let result = self
            .execute_on(
                target,
                &format!("select min({column}), max({column}) from {table}"),
            )
            .await?;
        let Some(row) = result.rows.first() else {
            return Ok(None);
        };
        let text = text_cells(row)?;
        Ok(text(0).zip(text(1)))
    }
}

pub(crate) fn sql_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

fn first_cell_text(result: &QueryResult) -> Option<String> {
    text_column(result, 0).ok()?.into_iter().next()
}

/// Every row's `col`-th value as UTF-8 text (NULLs skipped).
/// The cells of one result row as text, by column index (`None` for NULL or a missing column).
fn text_cells(row: &crate::proto::query::Row) -> Result<impl Fn(usize) -> Option<String> + '_> {
    let cells = crate::decode::split_row(row)?;
    Ok(move |i: usize| {
        cells
            .get(i)
            .copied()
            .flatten()
            .map(|b| String::from_utf8_lossy(b).into_owned())
    })
}

fn text_column(result: &QueryResult, col: usize) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(result.rows.len());
    for row in &result.rows {
        let cells = crate::decode::split_row(row)?;
        if let Some(Some(bytes)) = cells.get(col) {
            out.push(String::from_utf8_lossy(bytes).into_owned());
        }
    }
    Ok(out)
}

/// `Version: 24.0.4 (Git revision ...)` → 24.0.
/// The (keyspace, shard) pairs of a `SHOW VITESS_SHARDS` answer (cells `keyspace/shard`).
fn keyspace_shards(result: &QueryResult) -> Result<impl Iterator<Item = (String, String)>> {
    Ok(text_column(result, 0)?.into_iter().filter_map(|cell| {
        let (ks, shard) = cell.split_once('/')?;
        Some((ks.to_string(), shard.to_string()))
    }))
}

pub fn parse_version_comment(comment: &str) -> Option<ServerVersion> {
    let rest = comment.trim().strip_prefix("Version:")?.trim_start();
    let mut parts = rest.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some(ServerVersion { major, minor })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_comment_is_parsed() {
        assert_eq!(
            parse_version_comment(
                "Version: 24.0.4 (Git revision  branch '') built on  by @ using go1.25 linux/amd64"
            ),
            Some(ServerVersion {
                major: 24,
                minor: 0
            })
        );
        assert_eq!(
            parse_version_comment("Version: 22.1.0-SNAPSHOT"),
            Some(ServerVersion {
                major: 22,
                minor: 1
            })
        );
        assert_eq!(parse_version_comment("MySQL Community Server"), None);
    }
}
