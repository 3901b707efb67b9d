// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! What to ask VTGate for: table selection (filter rules), validation against the keyspace's
//! real tables, start positions, and the `VStreamRequest` built from per-shard positions.
//!
//! The resume rule lives here (docs/architecture.md, protocol P3 and P4): a shard that still has tables
//! to copy is resumed with its GTID plus a `table_p_ks` entry for every unfinished table — with
//! the saved lastpk for the table in progress and *without* lastpk ("from the start") for the
//! tables not started — so the copy goes on instead of degrading to stream-only. On v24 the
//! `tables_to_copy` flag narrows the copy to exactly those tables.

use crate::client::{KeyspaceInfo, PrimaryKeys, ServerVersion};
use crate::copyfilter::{self, LastPkKind};
use crate::error::{Error, ErrorCode, Result};
use crate::options::{InitialSnapshot, StartMode, StreamOptions};
use crate::position::{ShardPosition, TableLastPk, TableSnapshot};
use crate::proto::binlogdata::{Filter, Rule, ShardGtid, TableLastPk as ProtoTableLastPk, VGtid};
use crate::proto::query::QueryResult;
use crate::proto::vtgate::{VStreamFlags, VStreamRequest};
use prost::Message;
use regex::Regex;
use std::collections::BTreeSet;

/// The oldest Vitess whose copy resume works (VGTIDs carry complete lastpks since v17).
pub const MIN_SUPPORTED_MAJOR: u32 = 17;

/// The oldest Vitess whose vstreamer evaluates the WHERE clauses a row filter renders (`!=`, `IN`,
/// `IS NULL`, decimal literals: v22, vitessio/vitess#17677, #17721, #17848).
pub const MIN_ROW_FILTER_MAJOR: u32 = 22;

/// The validated selection of one stream.
#[derive(Debug, Clone)]
pub struct Plan {
    pub filter: Filter,
    /// Tables the filter matches today, sorted by name (the order the copy phase uses).
    pub matched_tables: Vec<String>,
    /// Shards to stream, in discovery order.
    pub shards: Vec<String>,
    pub server: Option<ServerVersion>,
}

fn anchored(pattern: &str) -> String {
    format!("^(?:{pattern})$")
}

/// The tables a stream selects, to recognise them where VStream names tables it was not asked
/// for: DDL events come for every table of the keyspace.
#[derive(Debug, Clone, Default)]
pub struct SelectedTables {
    names: Vec<String>,
    patterns: Vec<Regex>,
}

impl SelectedTables {
    /// The selection of `options` (every table when it names none). Patterns that do not compile
    /// select nothing here: [`plan`] refuses them before a stream opens.
    pub fn of(options: &StreamOptions) -> Self {
        SelectedTables {
            names: options.tables.clone(),
            patterns: options
                .table_patterns
                .iter()
                .filter_map(|p| Regex::new(&anchored(p)).ok())
                .collect(),
        }
    }

    pub fn contains(&self, table: &str) -> bool {
        (self.names.is_empty() && self.patterns.is_empty())
            || self.names.iter().any(|n| n == table)
            || self.patterns.iter().any(|re| re.is_match(table))
    }
}

/// Filter rules: one exact rule per named table, one `/regex` rule per pattern, or all tables.
///
/// A narrowed selection (`columns`) always carries each table's primary-key columns (`keys`),
/// whether or not the consumer asked for them: the copy pages by the key, the copy filter and
/// the strict changelog place every change by it, and a SQL query that projects only non-key
/// columns (`SELECT status, COUNT(*) … GROUP BY status`) still needs an exact changelog. The
/// consumer maps the columns it declared by name and never sees the others.
pub fn filter_rules(options: &StreamOptions, keys: &PrimaryKeys) -> Filter {
    // An exact-name rule needs a SELECT filter: the running-phase plan builder of vstreamer
    // treats an empty filter on a non-regex rule as an (empty) query and fails.
    let select = |table: &str| {
        if options.columns.is_empty() {
            return "*".to_string();
        }
        let key_columns = keys.get(table).map(Vec::as_slice).unwrap_or_default();
        // MySQL column names are case-insensitive: a key the consumer named in another case is
        // not selected twice.
        let missing_keys = key_columns
            .iter()
            .filter(|k| !options.columns.iter().any(|c| c.eq_ignore_ascii_case(k)));
        options
            .columns
            .iter()
            .chain(missing_keys)
            .map(|c| format!("`{}`", c.replace('`', "``")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let filter_where = options
        .row_filter
        .as_deref()
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(|w| format!(" where {w}"))
        .unwrap_or_default();
    let mut rules: Vec<Rule> = options
        .tables
        .iter()
        .map(|t| Rule {
            r#match: t.clone(),
            filter: format!(
                "select {} from `{}`{filter_where}",
                select(t),
                t.replace('`', "``")
            ),
        })
        .collect();
    rules.extend(options.table_patterns.iter().map(|p| Rule {
        r#match: format!("/{}", anchored(p)),
        filter: String::new(),
    }));
    if rules.is_empty() {
        rules.push(Rule {
            r#match: "/.*".to_string(),
            filter: String::new(),
        });
    }
    Filter {
        rules,
        ..Default::default()
    }
}

/// Checks the options against what the keyspace really holds and fixes the table/shard lists.
pub fn plan(
    options: &StreamOptions,
    info: &KeyspaceInfo,
    server: Option<ServerVersion>,
) -> Result<Plan> {
    if let Some(v) = server {
        if v.major < MIN_SUPPORTED_MAJOR {
            return Err(Error::config(format!(
                "VTGate runs Vitess {}.{}; vitess-cdc needs Vitess {MIN_SUPPORTED_MAJOR} or newer (v24 recommended): \
                 older versions cannot resume an interrupted copy — upgrade Vitess",
                v.major, v.minor
            )).with_code(ErrorCode::UnsupportedServer));
        }
    }
    let ks = &options.keyspace;
    if options.row_filter.is_some() && options.tables.is_empty() {
        return Err(Error::config(
            "row_filter applies to tables named in `tables` only (a table pattern's rule carries no \
             WHERE clause): name the tables, or filter downstream",
        )
        .with_code(ErrorCode::InvalidOption));
    }
    let table_names: Vec<&str> = info.tables.iter().map(|(t, _)| t.as_str()).collect();
    for t in &options.tables {
        if !table_names.contains(&t.as_str()) {
            return Err(Error::config(format!(
                "table '{t}' not found in keyspace '{ks}' (tables: {}) — check the tables option",
                if table_names.is_empty() {
                    "none".to_string()
                } else {
                    table_names.join(", ")
                }
            ))
            .with_code(ErrorCode::UnknownTable));
        }
    }
    let mut patterns = Vec::new();
    for p in &options.table_patterns {
        let re = Regex::new(&anchored(p)).map_err(|e| {
            Error::config(format!(
                "table pattern '{p}' is not a valid regular expression: {e}"
            ))
            .with_code(ErrorCode::InvalidOption)
        })?;
        if !table_names.iter().any(|t| re.is_match(t)) {
            return Err(Error::config(format!(
                "table pattern '{p}' matches no table of keyspace '{ks}' (tables: {})",
                table_names.join(", ")
            ))
            .with_code(ErrorCode::UnknownTable));
        }
        patterns.push(re);
    }
    let select_all = options.tables.is_empty() && options.table_patterns.is_empty();
    let mut matched = Vec::new();
    for (table, has_pk) in &info.tables {
        let selected = select_all
            || options.tables.contains(table)
            || patterns.iter().any(|re| re.is_match(table));
        if !selected {
            continue;
        }
        if !has_pk && !options.allow_tables_without_primary_key {
            return Err(Error::config(format!(
                "table '{ks}.{table}' has no primary key: the copy phase pages through tables by primary key and \
                 updates/deletes cannot be matched to rows without one — add a primary key, leave the table out of \
                 the selection, or set allow_tables_without_primary_key"
            )).with_code(ErrorCode::NoPrimaryKey));
        }
        matched.push(table.clone());
    }
    matched.sort();
    if select_all
        && matched.is_empty()
        && matches!(options.start, StartMode::Initial | StartMode::SnapshotOnly)
    {
        return Err(
            Error::config(format!("keyspace '{ks}' has no tables to copy"))
                .with_code(ErrorCode::UnknownTable),
        );
    }
    let shards = if options.shards.is_empty() {
        info.shards.clone()
    } else {
        for s in &options.shards {
            // A shard resumed from a saved position may be an old shard of a reshard that is no
            // longer serving: VTGate still streams it up to its journal (v20+).
            let resumed = matches!(&options.start, StartMode::Positions(saved)
                if saved.iter().any(|p| &p.shard == s));
            if !info.shards.contains(s) && resumed {
                tracing::warn!(shard = %s, serving = ?info.shards, "shard resumed from a saved position is not among the serving shards (resharded?)");
                continue;
            }
            if !info.shards.contains(s) {
                return Err(Error::config(format!(
                    "shard '{s}' not found in keyspace '{ks}' (shards: {}) — check the shards option",
                    info.shards.join(", ")
                )).with_code(ErrorCode::UnknownShard));
            }
        }
        options.shards.clone()
    };
    // An older tablet fails the stream on predicates it cannot plan. A row filter only narrows
    // what is sent (the SQL connector also evaluates every pushed predicate itself), so it is
    // left out rather than failing the stream.
    let filter = match server {
        Some(v) if v.major < MIN_ROW_FILTER_MAJOR && options.row_filter.is_some() => {
            tracing::warn!(server = %format!("{}.{}", v.major, v.minor), row_filter = ?options.row_filter,
                "Vitess older than v{MIN_ROW_FILTER_MAJOR} cannot evaluate the row filter: streaming every row");
            filter_rules(
                &StreamOptions {
                    row_filter: None,
                    ..options.clone()
                },
                &info.primary_keys,
            )
        }
        _ => filter_rules(options, &info.primary_keys),
    };
    Ok(Plan {
        filter,
        matched_tables: matched,
        shards,
        server,
    })
}

/// Where each shard starts, from the start mode.
pub fn start_positions(options: &StreamOptions, plan: &Plan) -> Result<Vec<ShardPosition>> {
    let fresh = |shard: &String, gtid: &str, copy: bool| ShardPosition {
        keyspace: options.keyspace.clone(),
        shard: shard.clone(),
        gtid: gtid.to_string(),
        table_p_ks: Vec::new(),
        tables_to_copy: if copy {
            plan.matched_tables.clone()
        } else {
            Vec::new()
        },
        copy_completed: !copy,
        snapshots: Vec::new(),
    };
    Ok(match &options.start {
        StartMode::Initial if options.initial_snapshot == InitialSnapshot::Chunked => {
            // The log starts now; every selected table is captured in chunks beside it, from
            // its first key: the capture's cursors ride in the position from the start, so a
            // checkpoint taken before the first mark resumes the capture too.
            plan.shards
                .iter()
                .map(|s| ShardPosition {
                    snapshots: plan
                        .matched_tables
                        .iter()
                        .map(|t| TableSnapshot::whole(t))
                        .collect(),
                    ..fresh(s, "current", false)
                })
                .collect()
        }
        StartMode::Initial | StartMode::SnapshotOnly => {
            plan.shards.iter().map(|s| fresh(s, "", true)).collect()
        }
        StartMode::Latest => plan
            .shards
            .iter()
            .map(|s| fresh(s, "current", false))
            .collect(),
        StartMode::Positions(saved) => {
            if saved.is_empty() {
                return Err(Error::config(
                    "start positions are empty — give one position per shard",
                )
                .with_code(ErrorCode::InvalidPosition));
            }
            for p in saved {
                if p.keyspace != options.keyspace {
                    return Err(Error::config(format!(
                        "a saved position is for keyspace '{}' but the stream reads '{}': restore a \
                         checkpoint of a job that read '{}', or start without saved positions",
                        p.keyspace, options.keyspace, options.keyspace
                    ))
                    .with_code(ErrorCode::InvalidPosition));
                }
                if p.gtid == "current" && p.needs_copy() {
                    return Err(Error::config(format!(
                        "the saved position of shard {} says gtid 'current' but still lists tables to copy",
                        p.shard
                    )).with_code(ErrorCode::InvalidPosition));
                }
                for t in &p.table_p_ks {
                    if !t.lastpk.is_empty() {
                        QueryResult::decode(t.lastpk.as_slice()).map_err(|e| {
                            Error::config(format!(
                                "the saved lastpk of table {} on shard {} is corrupt: {e}",
                                t.table_name, p.shard
                            ))
                            .with_code(ErrorCode::InvalidPosition)
                        })?;
                    }
                }
            }
            saved
                .iter()
                .cloned()
                .map(copyfilter::normalize_restored)
                .collect()
        }
    })
}

/// One shard's request entry, applying the resume rule.
pub fn shard_gtid(p: &ShardPosition) -> ShardGtid {
    let mut table_p_ks: Vec<ProtoTableLastPk> = Vec::new();
    if p.needs_copy() {
        for t in &p.table_p_ks {
            table_p_ks.push(to_proto_lastpk(t));
        }
        if !p.gtid.is_empty() {
            // Trigger the copy explicitly for tables not started yet (no lastpk = from the start).
            for t in &p.tables_to_copy {
                if !p.table_p_ks.iter().any(|x| &x.table_name == t) {
                    table_p_ks.push(ProtoTableLastPk {
                        table_name: t.clone(),
                        lastpk: None,
                    });
                }
            }
        }
    }
    ShardGtid {
        keyspace: p.keyspace.clone().into(),
        shard: p.shard.clone().into(),
        gtid: p.gtid.clone().into(),
        table_p_ks,
    }
}

fn to_proto_lastpk(t: &TableLastPk) -> ProtoTableLastPk {
    ProtoTableLastPk {
        table_name: t.table_name.clone(),
        // Validated in start_positions / produced by us: decoding cannot fail in practice;
        // a failure degrades to "copy this table from its start", which is safe.
        lastpk: if t.lastpk.is_empty() {
            None
        } else {
            QueryResult::decode(t.lastpk.as_slice()).ok()
        },
    }
}

pub fn from_proto_lastpk(t: &ProtoTableLastPk) -> TableLastPk {
    TableLastPk {
        table_name: t.table_name.clone(),
        lastpk: t
            .lastpk
            .as_ref()
            .map(|q| q.encode_to_vec())
            .unwrap_or_default(),
    }
}

/// Servers that honour `tables_to_copy` only when the VGTID asks for a copy (v24, #18938).
fn supports_tables_to_copy(server: Option<ServerVersion>) -> bool {
    server.is_none_or(|v| v.major >= 24)
}

/// The VStream request that resumes every shard from `positions`.
pub fn build_request(
    options: &StreamOptions,
    plan: &Plan,
    positions: &[ShardPosition],
) -> VStreamRequest {
    let shard_gtids: Vec<ShardGtid> = positions.iter().map(shard_gtid).collect();
    // Tables still to copy anywhere; if that is fewer than all matched tables, narrow the copy
    // so tables finished before the interruption are not copied again.
    // Tables finished on a shard carry a done mark: planned again they copy no row, but a table
    // finished everywhere need not be planned at all. A shard whose tables are all finished
    // (its COPY_COMPLETED not seen yet) keeps them planned, so that it sends COPY_COMPLETED.
    let mut remaining = BTreeSet::new();
    let mut any_copy = false;
    for p in positions.iter().filter(|p| p.needs_copy()) {
        any_copy = true;
        if p.gtid.is_empty() && p.table_p_ks.is_empty() && p.tables_to_copy.is_empty() {
            remaining.extend(plan.matched_tables.iter().cloned());
        }
        let unfinished: Vec<String> = p
            .table_p_ks
            .iter()
            .filter(|t| copyfilter::lastpk_kind(&t.lastpk) != LastPkKind::Done)
            .map(|t| t.table_name.clone())
            .chain(p.tables_to_copy.iter().cloned())
            .collect();
        if unfinished.is_empty() {
            remaining.extend(p.table_p_ks.iter().map(|t| t.table_name.clone()));
        }
        remaining.extend(unfinished);
    }
    let all: BTreeSet<String> = plan.matched_tables.iter().cloned().collect();
    let tables_to_copy = if any_copy
        && supports_tables_to_copy(plan.server)
        && remaining != all
        && !remaining.is_empty()
    {
        remaining.into_iter().collect()
    } else {
        Vec::new()
    };
    let v24 = supports_tables_to_copy(plan.server);
    VStreamRequest {
        caller_id: None,
        tablet_type: crate::client::tablet_type(options.tablet_type) as i32,
        vgtid: Some(VGtid { shard_gtids }),
        filter: Some(plan.filter.clone()),
        flags: Some(VStreamFlags {
            heartbeat_interval: options.heartbeat_interval_secs,
            // Not following reshards, each shard must end at its journal, so the journal must
            // reach us: include_reshard_journal_events forwards it and keeps the stream going
            // (the machine ends the shard there). stop_on_reshard is not asked for: it would
            // end the whole RPC, and its delivery of the journal races in VTGate (the Debezium
            // maintainers' finding; docs/reliability.md has our measurement of both flags).
            stop_on_reshard: options.stop_on_reshard,
            cells: options.cells.clone().unwrap_or_default(),
            include_reshard_journal_events: options.include_reshard_journal_events
                || !options.follow_reshard,
            tables_to_copy,
            transaction_chunk_size: if v24 {
                options.transaction_chunk_bytes.max(0)
            } else {
                0
            },
            ..Default::default()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::query::{Field, Row};

    fn info() -> KeyspaceInfo {
        KeyspaceInfo {
            shards: vec!["-80".into(), "80-".into()],
            tables: vec![
                ("a".into(), true),
                ("b".into(), true),
                ("nopk".into(), false),
            ],
            primary_keys: keys(),
        }
    }

    fn keys() -> PrimaryKeys {
        [("a", vec!["id"]), ("b", vec!["Tenant", "id"])]
            .into_iter()
            .map(|(t, k)| (t.to_string(), k.into_iter().map(String::from).collect()))
            .collect()
    }

    fn opts() -> StreamOptions {
        let mut o = StreamOptions::new("x:1", "ks");
        o.tables = vec!["a".into(), "b".into()];
        o
    }

    #[test]
    fn row_filter_becomes_the_where_clause_of_named_tables_only() {
        let mut o = opts();
        o.table_patterns = vec!["^c.*".into()];
        o.columns = vec!["id".into()];
        o.row_filter = Some(" `id` >= 3 and `name` in ('a', 'b') ".into());
        let rules = filter_rules(&o, &keys()).rules;
        assert_eq!(
            rules[0].filter,
            "select `id` from `a` where `id` >= 3 and `name` in ('a', 'b')"
        );
        assert_eq!(
            rules[1].filter,
            "select `id`, `Tenant` from `b` where `id` >= 3 and `name` in ('a', 'b')"
        );
        assert_eq!(rules[2].filter, "", "patterns carry no WHERE clause");
        o.row_filter = Some("  ".into());
        assert_eq!(
            filter_rules(&o, &keys()).rules[0].filter,
            "select `id` from `a`"
        );
        let mut o = StreamOptions::new("x:1", "ks");
        o.table_patterns = vec!["[ab]".into()];
        o.row_filter = Some("`id` > 1".into());
        let e = plan(&o, &info(), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidOption);
        assert!(
            e.message.contains("tables named in `tables` only"),
            "{}",
            e.message
        );
        let mut o = opts();
        o.row_filter = Some("`id` > 1".into());
        let at = |major| {
            plan(&o, &info(), Some(ServerVersion { major, minor: 0 }))
                .unwrap()
                .filter
                .rules[0]
                .filter
                .clone()
        };
        assert_eq!(at(24), "select * from `a` where `id` > 1");
        assert_eq!(at(22), "select * from `a` where `id` > 1");
        assert_eq!(at(21), "select * from `a`", "left out before v22");
    }

    #[test]
    fn columns_narrow_the_select_of_named_tables_only() {
        let mut o = opts();
        o.table_patterns = vec!["^c.*".into()];
        assert_eq!(
            filter_rules(&o, &keys()).rules[0].filter,
            "select * from `a`"
        );
        o.columns = vec!["id".into(), "we`ird".into()];
        let rules = filter_rules(&o, &keys()).rules;
        assert_eq!(rules[0].filter, "select `id`, `we``ird` from `a`");
        assert_eq!(
            rules[1].filter, "select `id`, `we``ird`, `Tenant` from `b`",
            "b's key is (Tenant, id): the missing key column is added, `id` not twice"
        );
        assert_eq!(rules[2].filter, "", "regex rules stream every column");
    }

    #[test]
    fn a_selection_without_the_key_still_streams_the_key() {
        // `SELECT status, COUNT(*) FROM orders GROUP BY status` pushes `status` alone into the
        // source: the rule must still carry the key, or the table looks keyless to the core.
        let mut o = opts();
        o.columns = vec!["status".into()];
        let rules = filter_rules(&o, &keys()).rules;
        assert_eq!(rules[0].filter, "select `status`, `id` from `a`");
        assert_eq!(rules[1].filter, "select `status`, `Tenant`, `id` from `b`");
        o.columns = vec!["TENANT".into(), "ID".into()];
        assert_eq!(
            filter_rules(&o, &keys()).rules[1].filter,
            "select `TENANT`, `ID` from `b`",
            "column names compare without case, as MySQL's do"
        );
        let p = plan(
            &StreamOptions {
                columns: vec!["status".into()],
                ..opts()
            },
            &info(),
            None,
        )
        .unwrap();
        assert_eq!(p.filter.rules[0].filter, "select `status`, `id` from `a`");
    }

    #[test]
    fn unknown_table_and_missing_pk_are_config_errors() {
        let mut o = opts();
        o.tables.push("zzz".into());
        let e = plan(&o, &info(), None).unwrap_err();
        assert!(
            e.message.contains("'zzz' not found") && e.message.contains("a, b, nopk"),
            "{}",
            e.message
        );
        assert_eq!(e.code, ErrorCode::UnknownTable);
        let mut o = opts();
        o.tables = vec![];
        let e = plan(&o, &info(), None).unwrap_err();
        assert!(
            e.message.contains("no primary key")
                && e.message.contains("allow_tables_without_primary_key")
        );
        assert_eq!(e.code, ErrorCode::NoPrimaryKey);
        o.allow_tables_without_primary_key = true;
        assert_eq!(
            plan(&o, &info(), None).unwrap().matched_tables,
            vec!["a", "b", "nopk"]
        );
        let mut o = opts();
        o.shards = vec!["-40".into()];
        assert!(plan(&o, &info(), None)
            .unwrap_err()
            .message
            .contains("shard '-40'"));
        assert!(plan(
            &opts(),
            &info(),
            Some(ServerVersion {
                major: 16,
                minor: 0
            })
        )
        .is_err());
    }

    #[test]
    fn patterns_are_anchored() {
        let mut o = StreamOptions::new("x:1", "ks");
        o.table_patterns = vec!["[ab]".into()];
        let p = plan(&o, &info(), None).unwrap();
        assert_eq!(p.matched_tables, vec!["a", "b"]);
        assert_eq!(p.filter.rules[0].r#match, "/^(?:[ab])$");
        o.table_patterns = vec!["(".into()];
        assert!(plan(&o, &info(), None)
            .unwrap_err()
            .message
            .contains("regular expression"));
    }

    fn lastpk() -> Vec<u8> {
        QueryResult {
            fields: vec![Field {
                name: "id".into(),
                r#type: 265,
                ..Default::default()
            }],
            rows: vec![Row::with_lengths([1], b"7".to_vec())],
            ..Default::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn resume_mid_copy_keeps_copying_remaining_tables() {
        let o = opts();
        let p = plan(&o, &info(), None).unwrap();
        let between_tables = ShardPosition {
            keyspace: "ks".into(),
            shard: "-80".into(),
            gtid: "MySQL56/u:1-10".into(),
            table_p_ks: vec![],
            tables_to_copy: vec!["b".into()],
            copy_completed: false,
            snapshots: Vec::new(),
        };
        let in_table = ShardPosition {
            shard: "80-".into(),
            table_p_ks: vec![TableLastPk {
                table_name: "b".into(),
                lastpk: lastpk(),
            }],
            tables_to_copy: vec![],
            ..between_tables.clone()
        };
        let req = build_request(&o, &p, &[between_tables, in_table]);
        let sg = &req.vgtid.as_ref().unwrap().shard_gtids;
        assert_eq!(sg[0].table_p_ks.len(), 1);
        assert_eq!(sg[0].table_p_ks[0].table_name, "b");
        assert!(sg[0].table_p_ks[0].lastpk.is_none());
        assert_eq!(
            sg[1].table_p_ks[0].lastpk.as_ref().unwrap().rows[0].values,
            &b"7"[..]
        );
        assert_eq!(req.flags.unwrap().tables_to_copy, vec!["b"]);
    }

    #[test]
    fn finished_tables_are_resumed_with_done_marks_and_not_planned_where_finished_everywhere() {
        let o = StreamOptions {
            tables: vec!["a".into(), "b".into(), "c".into()],
            ..opts()
        };
        let info = KeyspaceInfo {
            tables: vec![("a".into(), true), ("b".into(), true), ("c".into(), true)],
            ..info()
        };
        let p = plan(&o, &info, None).unwrap();
        let key = |t: &str| TableLastPk {
            table_name: t.into(),
            lastpk: lastpk(),
        };
        let done = |t: &str| TableLastPk {
            table_name: t.into(),
            lastpk: copyfilter::done_mark_after(&lastpk()).unwrap(),
        };
        // -80 finished a and is in b; 80- is still in a (positions of an old checkpoint kept
        // a's final key on -80: normalized to a done mark).
        let old = ShardPosition {
            keyspace: "ks".into(),
            shard: "-80".into(),
            gtid: "MySQL56/u:1-10".into(),
            table_p_ks: vec![key("a"), key("b")],
            tables_to_copy: vec!["c".into()],
            copy_completed: false,
            snapshots: Vec::new(),
        };
        let restored = copyfilter::normalize_restored(old);
        assert_eq!(restored.table_p_ks, vec![done("a"), key("b")]);
        let other = ShardPosition {
            shard: "80-".into(),
            table_p_ks: vec![key("a")],
            tables_to_copy: vec!["b".into(), "c".into()],
            ..restored.clone()
        };
        let req = build_request(&o, &p, &[restored.clone(), other]);
        let sg = &req.vgtid.as_ref().unwrap().shard_gtids;
        let rows_of = |t: &ProtoTableLastPk| {
            t.lastpk.as_ref().map(|q| {
                q.rows[0]
                    .cell_lengths()
                    .collect::<std::result::Result<Vec<i64>, _>>()
                    .unwrap()
            })
        };
        assert_eq!(
            rows_of(&sg[0].table_p_ks[0]),
            Some(vec![-1]),
            "a: done mark (NULL key)"
        );
        assert_eq!(rows_of(&sg[0].table_p_ks[1]), Some(vec![1]), "b: its key");
        assert_eq!(sg[0].table_p_ks[2].table_name, "c");
        assert!(sg[0].table_p_ks[2].lastpk.is_none());
        assert!(
            req.flags.as_ref().unwrap().tables_to_copy.is_empty(),
            "a is unfinished on 80-"
        );
        // Once a is finished on both shards, it is no longer planned.
        let mut both = restored.clone();
        both.shard = "80-".into();
        let req = build_request(&o, &p, &[restored.clone(), both]);
        assert_eq!(req.flags.unwrap().tables_to_copy, vec!["b", "c"]);
        // A shard whose tables are all finished keeps them planned (it still sends COPY_COMPLETED).
        let all_done = ShardPosition {
            table_p_ks: vec![done("a"), done("b"), done("c")],
            tables_to_copy: vec![],
            ..restored
        };
        let req = build_request(&o, &p, &[all_done]);
        assert!(req.flags.unwrap().tables_to_copy.is_empty());
    }

    /// VTGate is never asked for bare table names (`exclude_keyspace_from_table_name`), though
    /// that would spare it a clone of every FIELD and ROW event: v24's vttestserver (vtcombo)
    /// then panicked marshalling a ROW event of a 500 000-row copy ("slice bounds out of range"
    /// in `Row.MarshalToSizedBufferVT`), taking VTGate down (docs/architecture.md, P6a).
    #[test]
    fn vtgate_is_never_asked_for_bare_table_names() {
        let o = opts();
        for major in [22, 23, 24] {
            let p = plan(&o, &info(), Some(ServerVersion { major, minor: 0 })).unwrap();
            let start = start_positions(&o, &p).unwrap();
            let req = build_request(&o, &p, &start);
            assert!(
                !req.flags.unwrap().exclude_keyspace_from_table_name,
                "v{major}"
            );
        }
    }

    #[test]
    fn fresh_copy_and_streaming_send_no_table_list() {
        let o = opts();
        let p = plan(&o, &info(), None).unwrap();
        let start = start_positions(&o, &p).unwrap();
        assert_eq!(start.len(), 2);
        assert_eq!(start[0].tables_to_copy, vec!["a", "b"]);
        let req = build_request(&o, &p, &start);
        assert!(req.flags.as_ref().unwrap().tables_to_copy.is_empty());
        assert!(req
            .vgtid
            .unwrap()
            .shard_gtids
            .iter()
            .all(|s| s.gtid.is_empty() && s.table_p_ks.is_empty()));
        let mut done = start[0].clone();
        done.gtid = "MySQL56/u:1-3".into();
        done.copy_completed = true;
        let req = build_request(&o, &p, &[done]);
        assert!(req.vgtid.unwrap().shard_gtids[0].table_p_ks.is_empty());
        assert!(req.flags.unwrap().tables_to_copy.is_empty());
    }

    #[test]
    fn chunked_initial_snapshot_starts_now_with_a_capture_of_every_table() {
        let mut o = opts();
        o.initial_snapshot = InitialSnapshot::Chunked;
        let p = plan(&o, &info(), None).unwrap();
        let start = start_positions(&o, &p).unwrap();
        assert_eq!(start.len(), 2);
        for s in &start {
            assert_eq!(s.gtid, "current", "the log starts now, not with a copy");
            assert!(s.copy_completed && s.tables_to_copy.is_empty());
            let tables: Vec<_> = s.snapshots.iter().map(|t| t.table.as_str()).collect();
            assert_eq!(tables, vec!["a", "b"]);
            assert!(s
                .snapshots
                .iter()
                .all(|t| t.after.is_empty() && t.rows == 0 && t.filter.is_none()));
        }
        // The bounded snapshot keeps the in-stream copy.
        o.start = StartMode::SnapshotOnly;
        assert!(start_positions(&o, &p).unwrap()[0].needs_copy());
    }

    #[test]
    fn corrupt_saved_lastpk_is_refused() {
        let mut o = opts();
        let p = plan(&o, &info(), None).unwrap();
        o.start = StartMode::Positions(vec![ShardPosition {
            keyspace: "ks".into(),
            shard: "-80".into(),
            gtid: "x".into(),
            table_p_ks: vec![TableLastPk {
                table_name: "a".into(),
                lastpk: vec![0xff, 0xff, 0xff],
            }],
            tables_to_copy: vec![],
            copy_completed: false,
            snapshots: Vec::new(),
        }]);
        assert!(start_positions(&o, &p)
            .unwrap_err()
            .message
            .contains("corrupt"));
    }
}
