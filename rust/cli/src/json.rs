// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! JSON-line rendering of stream events for people and scripts.
//!
//! Row changes: `{"op":"insert|update|delete","keyspace","shard","table","before","after",
//! "commit_ts","snapshot"}` with before/after as column → value; an update's before and after
//! images are joined into one line. Temporal values are MySQL-formatted strings, DECIMAL is a
//! string (exact), binary values are base64 strings, absent columns (partial row images) are
//! left out.

use base64::Engine;
use serde_json::{json, Map, Value as Json};
use vitess_cdc_core::{ChangeEvent, Event, RowKind, Value};

pub struct Printer {
    pub marks: bool,
    pub schemas: bool,
}

impl Printer {
    /// The line for `event`, if it gets one. `pending_before` holds an update's before image
    /// until its after image arrives; `changes` counts row changes (an update once).
    pub fn line(
        &self,
        event: &Event,
        pending_before: &mut Option<ChangeEvent>,
        changes: &mut u64,
    ) -> Option<String> {
        let value = match event {
            Event::Change(c) => match c.kind {
                RowKind::UpdateBefore => {
                    *pending_before = Some(c.clone());
                    return None;
                }
                RowKind::UpdateAfter => {
                    *changes += 1;
                    let before = pending_before.take();
                    change_json(
                        "update",
                        c,
                        before.as_ref().map(row_json),
                        Some(row_json(c)),
                    )
                }
                RowKind::Insert => {
                    *changes += 1;
                    change_json("insert", c, None, Some(row_json(c)))
                }
                RowKind::Delete => {
                    *changes += 1;
                    change_json("delete", c, Some(row_json(c)), None)
                }
                RowKind::SnapshotRead => {
                    *changes += 1;
                    change_json("read", c, None, Some(row_json(c)))
                }
            },
            Event::Mark(p) if self.marks => json!({"op": "mark", "position": p}),
            Event::Schema(s) if self.schemas => json!({
                "op": "schema", "keyspace": s.keyspace, "shard": s.shard, "table": s.table, "version": s.version,
                "columns": s.columns.iter().map(|c| json!({
                    "name": c.name, "type": c.mysql_type, "nullable": c.nullable, "primary_key": c.primary_key
                })).collect::<Vec<_>>(),
            }),
            Event::Ddl {
                keyspace,
                shard,
                statement,
                commit_ts_millis,
            } => json!({
                "op": "ddl", "keyspace": keyspace, "shard": shard, "statement": statement, "commit_ts": commit_ts_millis
            }),
            Event::ShardCopyCompleted { keyspace, shard } => {
                json!({"op": "copy_completed", "keyspace": keyspace, "shard": shard})
            }
            Event::CopyCompleted => json!({"op": "copy_completed"}),
            Event::Journal {
                id,
                shard,
                ended,
                started,
            } => json!({
                "op": "journal",
                "id": id,
                "shard": format!("{}/{}", shard.0, shard.1),
                "ended": ended.iter().map(|(k, s)| format!("{k}/{s}")).collect::<Vec<_>>(),
                "started": started,
            }),
            _ => return None,
        };
        Some(value.to_string())
    }
}

fn change_json(op: &str, c: &ChangeEvent, before: Option<Json>, after: Option<Json>) -> Json {
    let mut obj = Map::new();
    obj.insert("op".into(), op.into());
    obj.insert("keyspace".into(), c.schema.keyspace.clone().into());
    obj.insert("shard".into(), c.schema.shard.clone().into());
    obj.insert("table".into(), c.schema.table.clone().into());
    if let Some(b) = before {
        obj.insert("before".into(), b);
    }
    if let Some(a) = after {
        obj.insert("after".into(), a);
    }
    obj.insert("commit_ts".into(), c.commit_ts_millis.into());
    obj.insert("snapshot".into(), c.is_snapshot.into());
    Json::Object(obj)
}

fn row_json(c: &ChangeEvent) -> Json {
    let mut obj = Map::new();
    for (col, v) in c.schema.columns.iter().zip(&c.values) {
        if let Some(j) = value_json(v) {
            obj.insert(col.name.clone(), j);
        }
    }
    Json::Object(obj)
}

/// `None` for an absent column.
pub fn value_json(v: &Value) -> Option<Json> {
    Some(match v {
        Value::Null => Json::Null,
        Value::Int(i) => (*i).into(),
        Value::UInt(u) => (*u).into(),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(Json::Number)
            .unwrap_or(Json::Null),
        Value::Decimal(s) | Value::String(s) => s.to_string().into(),
        Value::Bytes(b) => base64::engine::general_purpose::STANDARD.encode(b).into(),
        Value::Date { year, month, day } => format!("{year:04}-{month:02}-{day:02}").into(),
        Value::DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micros,
        } => {
            let mut s = format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}");
            if *micros > 0 {
                s.push_str(&format!(".{micros:06}"));
            }
            s.into()
        }
        Value::Time {
            negative,
            hours,
            minute,
            second,
            micros,
        } => {
            let mut s = format!(
                "{}{hours:02}:{minute:02}:{second:02}",
                if *negative { "-" } else { "" }
            );
            if *micros > 0 {
                s.push_str(&format!(".{micros:06}"));
            }
            s.into()
        }
        Value::Absent => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_render() {
        assert_eq!(
            value_json(&Value::UInt(u64::MAX)).unwrap().to_string(),
            "18446744073709551615"
        );
        assert_eq!(
            value_json(&Value::Bytes(vec![0, 1].into())).unwrap(),
            Json::from("AAE=")
        );
        assert_eq!(
            value_json(&Value::Time {
                negative: true,
                hours: 838,
                minute: 59,
                second: 59,
                micros: 0
            })
            .unwrap(),
            Json::from("-838:59:59")
        );
        assert_eq!(
            value_json(&Value::DateTime {
                year: 2024,
                month: 1,
                day: 2,
                hour: 3,
                minute: 4,
                second: 5,
                micros: 60
            })
            .unwrap(),
            Json::from("2024-01-02 03:04:05.000060")
        );
        assert!(value_json(&Value::Absent).is_none());
        assert_eq!(value_json(&Value::Float(f64::NAN)).unwrap(), Json::Null);
    }
}
