// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! One stream over several keyspaces (docs/positions.md, "Several keyspaces").
//!
//! A VStream reads shards of one keyspace's layout: its copy, its reshard journals, its signal
//! table and its schema are each a keyspace's own. A stream of several keyspaces is therefore one
//! [`StreamOptions`] per keyspace, read side by side into one consumer
//! ([`crate::blocking::BlockingStream::open_keyspaces`]): positions, marks, journals and
//! metadata stay per keyspace and per shard, exactly as they are for one keyspace.
//!
//! Tables are named per keyspace: `customer.corder` is read in `customer` only; a bare `corder`
//! in every keyspace of the stream (a keyspace per tenant with one schema). A keyspace no name
//! reaches reads every table, like a stream that names none.

use crate::error::{Error, ErrorCode, Result};
use crate::options::{StartMode, StreamOptions};
use crate::position::ShardPosition;
use std::collections::BTreeMap;

/// What one keyspace of the stream reads.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyspaceSelection {
    pub keyspace: String,
    /// Shards to stream; empty = all shards of the keyspace.
    pub shards: Vec<String>,
    /// Tables by exact name (unqualified); empty together with `table_patterns` = all tables.
    pub tables: Vec<String>,
    /// Tables by regex (matched against the whole, unqualified table name).
    pub table_patterns: Vec<String>,
}

/// The selection of each of `keyspaces` from table names that may be qualified (`ks.table`):
/// a qualified name goes to its keyspace, a bare name to every keyspace. Patterns apply to every
/// keyspace. A qualified name of a keyspace the stream does not read is a configuration error.
pub fn select(
    keyspaces: &[String],
    tables: &[String],
    table_patterns: &[String],
) -> Result<Vec<KeyspaceSelection>> {
    if keyspaces.is_empty() {
        return Err(invalid(
            "no keyspace to stream: name one or more Vitess keyspaces".to_string(),
        ));
    }
    let mut by_keyspace: BTreeMap<&str, KeyspaceSelection> = BTreeMap::new();
    for k in keyspaces {
        let k = k.trim();
        if k.is_empty() {
            return Err(invalid(
                "an empty keyspace name in the list of keyspaces: name each Vitess keyspace"
                    .to_string(),
            ));
        }
        if by_keyspace.contains_key(k) {
            return Err(invalid(format!(
                "keyspace '{k}' is named twice: name each keyspace once"
            )));
        }
        by_keyspace.insert(
            k,
            KeyspaceSelection {
                keyspace: k.to_string(),
                table_patterns: table_patterns.to_vec(),
                ..Default::default()
            },
        );
    }
    for name in tables {
        match name.split_once('.') {
            Some((ks, table)) => {
                let Some(s) = by_keyspace.get_mut(ks) else {
                    return Err(invalid(format!(
                        "table '{name}' names keyspace '{ks}', which this stream does not read \
                         (keyspaces: {}): add the keyspace or name a table of one of them",
                        keyspaces.join(", ")
                    )));
                };
                push_once(&mut s.tables, table);
            }
            None => {
                for s in by_keyspace.values_mut() {
                    push_once(&mut s.tables, name);
                }
            }
        }
    }
    // In the order the caller named them: the first keyspace is the stream's first part.
    Ok(keyspaces
        .iter()
        .filter_map(|k| by_keyspace.remove(k.trim()))
        .collect())
}

fn push_once(tables: &mut Vec<String>, table: &str) {
    if !tables.iter().any(|t| t == table) {
        tables.push(table.to_string());
    }
}

/// `base` for each selection: its keyspace, shards and tables, and of saved start positions
/// those of its keyspace. Every other option is `base`'s. Positions of a keyspace no selection
/// names, or a selection without positions when the start is positions, are configuration
/// errors: either would silently drop or re-read a keyspace.
pub fn per_keyspace(
    base: &StreamOptions,
    selections: &[KeyspaceSelection],
) -> Result<Vec<StreamOptions>> {
    if let StartMode::Positions(positions) = &base.start {
        if let Some(stray) = positions
            .iter()
            .find(|p| !selections.iter().any(|s| s.keyspace == p.keyspace))
        {
            return Err(invalid(format!(
                "the start positions include shard {}/{} of a keyspace this stream does not read \
                 ({}): add keyspace '{}' or drop its positions",
                stray.keyspace,
                stray.shard,
                selections
                    .iter()
                    .map(|s| s.keyspace.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                stray.keyspace
            )));
        }
    }
    selections
        .iter()
        .map(|s| {
            let mut o = base.clone();
            o.keyspace = s.keyspace.clone();
            o.shards = s.shards.clone();
            o.tables = s.tables.clone();
            o.table_patterns = s.table_patterns.clone();
            if let StartMode::Positions(positions) = &base.start {
                let own: Vec<ShardPosition> = positions
                    .iter()
                    .filter(|p| p.keyspace == s.keyspace)
                    .cloned()
                    .collect();
                if own.is_empty() {
                    return Err(invalid(format!(
                        "the start positions have no shard of keyspace '{}': resume from positions \
                         this stream of keyspaces wrote, or start the keyspace on its own",
                        s.keyspace
                    )));
                }
                o.start = StartMode::Positions(own);
            }
            Ok(o)
        })
        .collect()
}

fn invalid(message: String) -> Error {
    Error::config(message).with_code(ErrorCode::InvalidOption)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn qualified_names_go_to_their_keyspace_and_bare_names_to_every_keyspace() {
        let s = select(
            &names(&["customer", "commerce"]),
            &names(&[
                "customer.corder",
                "commerce.product",
                "audit",
                "customer.corder",
            ]),
            &names(&["^log_.*"]),
        )
        .unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].keyspace, "customer");
        assert_eq!(s[0].tables, names(&["corder", "audit"]));
        assert_eq!(s[1].keyspace, "commerce");
        assert_eq!(s[1].tables, names(&["product", "audit"]));
        assert_eq!(s[1].table_patterns, names(&["^log_.*"]));
    }

    #[test]
    fn a_keyspace_no_name_reaches_reads_every_table() {
        let s = select(
            &names(&["customer", "commerce"]),
            &names(&["customer.corder"]),
            &[],
        )
        .unwrap();
        assert_eq!(s[0].tables, names(&["corder"]));
        assert!(s[1].tables.is_empty() && s[1].table_patterns.is_empty());
    }

    #[test]
    fn mistakes_name_the_fix() {
        for (keyspaces, tables, expected) in [
            (vec![], vec![], "no keyspace"),
            (vec!["a", " a "], vec![], "named twice"),
            (vec!["a", ""], vec![], "empty keyspace"),
            (vec!["a"], vec!["b.t"], "which this stream does not read"),
        ] {
            let e = select(&names(&keyspaces), &names(&tables), &[]).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidOption);
            assert!(e.message.contains(expected), "{}", e.message);
        }
    }

    fn position(keyspace: &str, shard: &str) -> ShardPosition {
        ShardPosition {
            keyspace: keyspace.into(),
            shard: shard.into(),
            gtid: "MySQL56/u:1-3".into(),
            table_p_ks: Vec::new(),
            tables_to_copy: Vec::new(),
            copy_completed: true,
            snapshots: Vec::new(),
        }
    }

    #[test]
    fn each_keyspace_resumes_from_its_own_positions() {
        let mut base = StreamOptions::new("a:1", "ignored");
        base.start = StartMode::Positions(vec![
            position("customer", "-80"),
            position("commerce", "0"),
            position("customer", "80-"),
        ]);
        let selections = select(&names(&["customer", "commerce"]), &[], &[]).unwrap();
        let parts = per_keyspace(&base, &selections).unwrap();
        let shards = |o: &StreamOptions| match &o.start {
            StartMode::Positions(p) => p.iter().map(|p| p.shard.clone()).collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        };
        assert_eq!(parts[0].keyspace, "customer");
        assert_eq!(shards(&parts[0]), names(&["-80", "80-"]));
        assert_eq!(parts[1].keyspace, "commerce");
        assert_eq!(shards(&parts[1]), names(&["0"]));
        assert_eq!(parts[1].address, "a:1");
    }

    #[test]
    fn positions_that_leave_out_or_add_a_keyspace_are_refused() {
        let mut base = StreamOptions::new("a:1", "x");
        base.start = StartMode::Positions(vec![position("customer", "-80")]);
        let both = select(&names(&["customer", "commerce"]), &[], &[]).unwrap();
        let e = per_keyspace(&base, &both).unwrap_err();
        assert!(
            e.message.contains("no shard of keyspace 'commerce'"),
            "{}",
            e.message
        );
        let other = select(&names(&["commerce"]), &[], &[]).unwrap();
        let e = per_keyspace(&base, &other).unwrap_err();
        assert!(
            e.message
                .contains("customer/-80 of a keyspace this stream does not read"),
            "{}",
            e.message
        );
    }
}
