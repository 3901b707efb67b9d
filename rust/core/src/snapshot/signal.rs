// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Signals: requests to a running capture written as rows of a table in the user's keyspace.
//!
//! The capture reads the signal table from its own change stream, so a signal takes effect at
//! its position in the shard's log (DBLog's "the request is in the log"): everything before it
//! streams as before, the capture it asks for starts after it, and a checkpoint taken after it
//! carries its effect. Each shard acts on the signals in its own log.
//!
//! One INSERT reaches every shard: the row lands on one shard (where the table's vindex puts
//! it), and the stream that reads it there relays it to every other shard of the keyspace as
//! that shard's own row ([`shard_row_id`], `INSERT IGNORE`), before it hands out anything after
//! the signal — so a checkpoint past the signal implies the relays are written, and a restart
//! before it relays again, finding the rows there. Rows whose id already names their shard (the
//! relays, or signals written per shard with `USE keyspace:shard`) are acted on where they are.
//!
//! The table and its rows follow Debezium's signaling table, so its users' scripts carry over:
//!
//! ```sql
//! CREATE TABLE vitess_cdc_signal (
//!   id   VARCHAR(64) NOT NULL PRIMARY KEY, -- any unique id; the connector only logs it
//!   type VARCHAR(32) NOT NULL,             -- execute-snapshot | pause-snapshot | resume-snapshot | stop-snapshot
//!   data TEXT NULL                         -- JSON, see below
//! );
//! ```
//!
//! - `execute-snapshot`: `{"data-collections": ["t", "ks.u"], "type": "incremental",
//!   "additional-conditions": [{"data-collection": "t", "filter": "id >= 100"}]}` — capture the
//!   tables (all of each, or the rows its condition selects) in chunks beside the log.
//! - `pause-snapshot` / `resume-snapshot`: no new chunk starts until resumed (data ignored).
//! - `stop-snapshot`: `{"data-collections": ["t"]}` ends those tables' captures; no data (or an
//!   empty list) ends every capture of the shard.
//!
//! Only inserted rows are signals; updates and deletes of the table (e.g. clean-up) are not.
//! A signal that cannot be understood is reported ([`SignalError`]) and skipped: it is in the
//! log, so failing on it would fail every restart from a checkpoint before it.

use super::capture::Capture;
use crate::client::{sql_string, VtgateClient};
use crate::error::Result;
use crate::event::TableSchema;
use crate::value::Value;
use serde::Deserialize;

/// The default name of the signal table (documented with the schema above).
pub const DEFAULT_SIGNAL_TABLE: &str = "vitess_cdc_signal";

/// One request read from the signal table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signal {
    /// Capture these tables (each with its optional condition).
    Execute(Vec<Capture>),
    Pause,
    Resume,
    /// End the captures of these tables; empty = every capture.
    Stop(Vec<String>),
    /// A row of the signal table that is no request (an update, a delete, a copied row).
    Ignored,
}

/// A signal row that is not a valid request: why, and the row's id to find it by.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("signal '{id}' is ignored: {reason}")]
pub struct SignalError {
    pub id: String,
    pub reason: String,
}

/// The column `name` (any case) of a signal row as text.
fn text_column(schema: &TableSchema, values: &[Value], name: &str) -> Option<String> {
    let i = schema
        .columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(name))?;
    match values.get(i)? {
        Value::String(s) => Some(s.to_string()),
        Value::Bytes(b) => String::from_utf8(b.to_vec()).ok(),
        Value::Int(v) => Some(v.to_string()),
        Value::UInt(v) => Some(v.to_string()),
        _ => None,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct ExecuteData {
    data_collections: Vec<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    additional_conditions: Vec<Condition>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct Condition {
    data_collection: String,
    filter: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct StopData {
    #[serde(default)]
    data_collections: Vec<String>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
}

impl Signal {
    /// The signal in an inserted row of the signal table of `keyspace` (columns `id`, `type`,
    /// `data`, found by name).
    pub fn from_row(
        keyspace: &str,
        schema: &TableSchema,
        values: &[Value],
    ) -> std::result::Result<Signal, SignalError> {
        let text = |name: &str| text_column(schema, values, name);
        let id = Self::row_id(schema, values);
        let fail = |reason: String| SignalError {
            id: id.clone(),
            reason,
        };
        let Some(kind) = text("type") else {
            return Err(fail(format!(
                "the signal table '{}' needs a text column `type` (and `id`, `data`) — see docs/snapshots.md",
                schema.table
            )));
        };
        let data = text("data").filter(|d| !d.trim().is_empty());
        Self::parse(keyspace, &kind, data.as_deref()).map_err(fail)
    }

    /// The `id` of a signal row, to name it by in logs ("?" when it has none).
    pub fn row_id(schema: &TableSchema, values: &[Value]) -> String {
        text_column(schema, values, "id").unwrap_or_else(|| "?".into())
    }

    /// A signal of type `kind` with JSON `data`.
    pub fn parse(
        keyspace: &str,
        kind: &str,
        data: Option<&str>,
    ) -> std::result::Result<Signal, String> {
        match kind.trim().to_ascii_lowercase().as_str() {
            "execute-snapshot" => {
                let data = data.ok_or(
                    "execute-snapshot needs data naming its tables: {\"data-collections\": [\"TABLE\"]}",
                )?;
                let d: ExecuteData = serde_json::from_str(data)
                    .map_err(|e| format!("its data is not an execute-snapshot request ({e}): {data}"))?;
                check_kind(d.kind.as_deref())?;
                if d.data_collections.is_empty() {
                    return Err("execute-snapshot names no table in data-collections".into());
                }
                let mut captures: Vec<Capture> = Vec::new();
                for name in &d.data_collections {
                    let table = local_name(keyspace, name)?;
                    if captures.iter().any(|c| c.table == table) {
                        return Err(format!("table '{table}' is named twice in data-collections"));
                    }
                    captures.push(Capture {
                        table,
                        filter: None,
                        shards: Vec::new(),
                    });
                }
                for c in &d.additional_conditions {
                    let table = local_name(keyspace, &c.data_collection)?;
                    let capture = captures
                        .iter_mut()
                        .find(|x| x.table == table)
                        .ok_or_else(|| {
                            format!("the condition for '{table}' names a table that data-collections does not list")
                        })?;
                    let filter = c.filter.trim();
                    if filter.is_empty() {
                        continue;
                    }
                    capture.filter = Some(match capture.filter.take() {
                        None => filter.to_string(),
                        Some(f) => format!("({f}) and ({filter})"),
                    });
                }
                Ok(Signal::Execute(captures))
            }
            "pause-snapshot" => Ok(Signal::Pause),
            "resume-snapshot" => Ok(Signal::Resume),
            "stop-snapshot" => {
                let tables = match data {
                    None => Vec::new(),
                    Some(data) => {
                        let d: StopData = serde_json::from_str(data).map_err(|e| {
                            format!("its data is not a stop-snapshot request ({e}): {data}")
                        })?;
                        check_kind(d.kind.as_deref())?;
                        d.data_collections
                            .iter()
                            .map(|n| local_name(keyspace, n))
                            .collect::<std::result::Result<_, _>>()?
                    }
                };
                Ok(Signal::Stop(tables))
            }
            other => Err(format!(
                "unknown signal type '{other}' — use execute-snapshot, pause-snapshot, resume-snapshot or stop-snapshot"
            )),
        }
    }
}

impl Signal {
    /// The `type` and `data` columns of this signal's row (what [`Self::parse`] reads back).
    pub fn to_row(&self) -> (&'static str, Option<String>) {
        let tables = |captures: &mut dyn Iterator<Item = &str>| -> Vec<String> {
            captures.map(str::to_string).collect()
        };
        match self {
            Signal::Execute(captures) => {
                let conditions: Vec<_> = captures
                    .iter()
                    .filter_map(|c| {
                        let f = c.filter.as_ref()?;
                        Some(serde_json::json!({"data-collection": c.table, "filter": f}))
                    })
                    .collect();
                let mut data = serde_json::json!({
                    "data-collections": tables(&mut captures.iter().map(|c| c.table.as_str())),
                    "type": "incremental",
                });
                if !conditions.is_empty() {
                    data["additional-conditions"] = conditions.into();
                }
                ("execute-snapshot", Some(data.to_string()))
            }
            Signal::Pause => ("pause-snapshot", None),
            Signal::Resume => ("resume-snapshot", None),
            Signal::Stop(t) if t.is_empty() => ("stop-snapshot", None),
            Signal::Stop(t) => (
                "stop-snapshot",
                Some(serde_json::json!({"data-collections": t, "type": "incremental"}).to_string()),
            ),
            Signal::Ignored => ("", None),
        }
    }
}

/// Writes `signal` as row `id` of `signal_table` on each of `shards` of `keyspace` (each row
/// goes straight to its shard, whatever the table's vindex: every shard's log must carry it).
pub async fn write_signal(
    client: &VtgateClient,
    keyspace: &str,
    signal_table: &str,
    shards: &[String],
    id: &str,
    signal: &Signal,
) -> Result<()> {
    for shard in shards {
        let sql = insert_statement(signal_table, &shard_row_id(id, shard), signal);
        client
            .execute_on(&format!("{keyspace}:{shard}"), &sql)
            .await?;
    }
    Ok(())
}

/// The id of a signal's row on `shard`: the signal's id and the shard (`resnap-1@-80`). Each
/// shard's row needs its own: a row written straight to a shard is not where the table's vindex
/// would put it, and when shards merge the rows of all of them meet in one; the same id twice
/// there fails the merge's copy (duplicate key, found by the chaos soak).
pub fn shard_row_id(id: &str, shard: &str) -> String {
    format!("{id}@{shard}")
}

/// Whether the row `id` read on `shard` is one shard's copy of a signal ([`shard_row_id`]:
/// written per shard, or relayed by the connector) rather than the signal written once.
pub fn is_shard_row(id: &str, shard: &str) -> bool {
    id.strip_suffix(shard)
        .is_some_and(|rest| rest.ends_with('@') && rest.len() > 1)
}

/// The signal's own id in the row `id` read on `shard`: without the shard its copy names.
pub fn signal_id<'a>(id: &'a str, shard: &str) -> &'a str {
    if is_shard_row(id, shard) {
        &id[..id.len() - shard.len() - 1]
    } else {
        id
    }
}

/// The statement that writes `signal` as row `id` of `signal_table` (on the shard it runs on).
pub fn insert_statement(signal_table: &str, id: &str, signal: &Signal) -> String {
    insert_row("insert", signal_table, id, signal)
}

/// The statement that relays `signal` as row `id` to the shard it runs on, once: a relay
/// repeated (a restart re-reads the signal it relays) finds the row there and writes nothing,
/// so the shard's log carries the signal once.
pub fn relay_statement(signal_table: &str, id: &str, signal: &Signal) -> String {
    insert_row("insert ignore", signal_table, id, signal)
}

fn insert_row(verb: &str, signal_table: &str, id: &str, signal: &Signal) -> String {
    let (kind, data) = signal.to_row();
    format!(
        "{verb} into `{}` (`id`, `type`, `data`) values ({}, {}, {})",
        signal_table.replace('`', "``"),
        sql_string(id),
        sql_string(kind),
        data.as_deref()
            .map_or_else(|| "null".to_string(), sql_string)
    )
}

/// Only incremental snapshots (beside the log) exist; Debezium's `blocking` stops the log.
fn check_kind(kind: Option<&str>) -> std::result::Result<(), String> {
    match kind.map(str::trim) {
        None | Some("") => Ok(()),
        Some(k) if k.eq_ignore_ascii_case("incremental") => Ok(()),
        Some(k) => Err(format!(
            "snapshot type '{k}' is not supported — vitess-cdc captures beside the log (\"incremental\", the default)"
        )),
    }
}

/// `table` or `keyspace.table` (of this stream's keyspace) to the table's name.
fn local_name(keyspace: &str, name: &str) -> std::result::Result<String, String> {
    let name = name.trim().trim_matches('`');
    let table = match name.split_once('.') {
        Some((ks, t)) if ks.trim_matches('`') == keyspace => t.trim_matches('`'),
        Some((ks, _)) => {
            return Err(format!(
                "'{name}' is in keyspace '{ks}', but this stream reads keyspace '{keyspace}'"
            ))
        }
        None => name,
    };
    if table.is_empty() {
        return Err("a data-collection is empty".into());
    }
    Ok(table.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn execute(data: &str) -> std::result::Result<Signal, String> {
        Signal::parse("ks", "execute-snapshot", Some(data))
    }

    #[test]
    fn execute_with_tables_and_conditions() {
        let s = execute(
            r#"{"data-collections":["t","ks.u"],"type":"incremental",
                "additional-conditions":[{"data-collection":"ks.u","filter":"id >= 10"},
                                         {"data-collection":"u","filter":"id < 20"}]}"#,
        )
        .unwrap();
        assert_eq!(
            s,
            Signal::Execute(vec![
                Capture {
                    table: "t".into(),
                    filter: None,
                    shards: vec![]
                },
                Capture {
                    table: "u".into(),
                    filter: Some("(id >= 10) and (id < 20)".into()),
                    shards: vec![]
                },
            ])
        );
    }

    #[test]
    fn rows_written_read_back_as_the_same_signal() {
        let signals = [
            Signal::Execute(vec![
                Capture::parse("t").unwrap(),
                Capture::parse("u:id >= 'a''b'").unwrap(),
            ]),
            Signal::Pause,
            Signal::Resume,
            Signal::Stop(vec![]),
            Signal::Stop(vec!["t".into(), "u".into()]),
        ];
        for s in signals {
            let (kind, data) = s.to_row();
            assert_eq!(Signal::parse("ks", kind, data.as_deref()), Ok(s));
        }
    }

    #[test]
    fn pause_resume_stop() {
        assert_eq!(
            Signal::parse("ks", " Pause-Snapshot ", None),
            Ok(Signal::Pause)
        );
        assert_eq!(
            Signal::parse("ks", "resume-snapshot", Some("{}")),
            Ok(Signal::Resume)
        );
        assert_eq!(
            Signal::parse("ks", "stop-snapshot", None),
            Ok(Signal::Stop(vec![]))
        );
        assert_eq!(
            Signal::parse(
                "ks",
                "stop-snapshot",
                Some(r#"{"data-collections":["ks.t"]}"#)
            ),
            Ok(Signal::Stop(vec!["t".into()]))
        );
    }

    #[test]
    fn bad_signals_say_why() {
        let cases = [
            ("execute-snapshot", None, "needs data"),
            (
                "execute-snapshot",
                Some("not json"),
                "not an execute-snapshot request",
            ),
            (
                "execute-snapshot",
                Some(r#"{"data-collections":[]}"#),
                "names no table",
            ),
            (
                "execute-snapshot",
                Some(r#"{"data-collections":["other.t"]}"#),
                "keyspace 'other'",
            ),
            (
                "execute-snapshot",
                Some(r#"{"data-collections":["t"],"type":"blocking"}"#),
                "'blocking' is not supported",
            ),
            (
                "execute-snapshot",
                Some(r#"{"data-collections":["t","t"]}"#),
                "named twice",
            ),
            (
                "execute-snapshot",
                Some(
                    r#"{"data-collections":["t"],"additional-conditions":[{"data-collection":"u","filter":"a=1"}]}"#,
                ),
                "does not list",
            ),
            (
                "execute-snapshot",
                Some(r#"{"data-colections":["t"]}"#),
                "unknown field",
            ),
            ("snapshot", None, "unknown signal type 'snapshot'"),
        ];
        for (kind, data, expected) in cases {
            let e = Signal::parse("ks", kind, data).unwrap_err();
            assert!(e.contains(expected), "{kind} {data:?}: {e}");
        }
    }

    #[test]
    fn a_shard_row_is_told_from_the_signal_written_once() {
        assert!(is_shard_row("resnap-1@-80", "-80"));
        assert!(is_shard_row("a@b@80-", "80-"));
        assert_eq!(signal_id("resnap-1@-80", "-80"), "resnap-1");
        // Written once: its id names no shard, or another shard than the one it landed on.
        assert!(!is_shard_row("resnap-1", "-80"));
        assert!(!is_shard_row("resnap-1@80-", "-80"));
        assert!(!is_shard_row("@-80", "-80"));
        assert!(!is_shard_row("x-80", "-80"));
        assert_eq!(signal_id("resnap-1@80-", "-80"), "resnap-1@80-");
        assert_eq!(
            relay_statement("sig", "r@80-", &Signal::Pause),
            "insert ignore into `sig` (`id`, `type`, `data`) values ('r@80-', 'pause-snapshot', null)"
        );
    }

    #[test]
    fn each_shard_gets_its_own_row_id_so_that_merged_shards_never_collide() {
        let ids: Vec<String> = ["-40", "40-80", "80-c0", "c0-"]
            .iter()
            .map(|shard| shard_row_id("resnap-1", shard))
            .collect();
        assert_eq!(
            ids,
            [
                "resnap-1@-40",
                "resnap-1@40-80",
                "resnap-1@80-c0",
                "resnap-1@c0-"
            ]
        );
        let distinct: std::collections::BTreeSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
    }
}
