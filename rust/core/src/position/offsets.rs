// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The start positions a user gives (Flink's `specific-offset`, the DataStream builder's
//! `specificOffsets`), read into one position per shard with the errors users see.

use super::ShardPosition;

/// Parses the start positions a user gives (Flink's `specific-offset`, the DataStream builder's
/// `specificOffsets`) into one position per shard, with the errors users see.
///
/// Accepts the core's own form (`{"shards":[..]}`), a VGTID (`{"shard_gtids":[..]}` or
/// `shardGtids`), or a bare array; every entry needs `shard` and `gtid` (strings); `keyspace`,
/// when present, must be `keyspace` (the source's), and is filled in when absent. A shard may be
/// listed once. Errors carry [`ErrorCode::InvalidPosition`](crate::ErrorCode::InvalidPosition).
pub fn parse_specific_offsets(keyspace: &str, text: &str) -> crate::Result<Vec<ShardPosition>> {
    let invalid = |m: String| crate::Error::config(m).with_code(crate::ErrorCode::InvalidPosition);
    let root: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        invalid(format!(
            "the specific offsets are not valid JSON ({e}): give a VGTID such as \
             {{\"shard_gtids\":[{{\"keyspace\":\"{keyspace}\",\"shard\":\"-80\",\"gtid\":\"MySQL56/...\"}}]}}"
        ))
    })?;
    let list = match &root {
        serde_json::Value::Object(map) => map
            .get("shards")
            .or_else(|| map.get("shard_gtids"))
            .or_else(|| map.get("shardGtids")),
        other => Some(other),
    };
    let entries = match list {
        Some(serde_json::Value::Array(a)) if !a.is_empty() => a,
        _ => {
            return Err(invalid(
                "the specific offsets list no shard: give a VGTID \
                 {\"shard_gtids\":[{\"keyspace\":..,\"shard\":..,\"gtid\":..}]} or the positions a \
                 checkpoint/positionsJson() showed"
                    .to_string(),
            ))
        }
    };
    let mut out: Vec<ShardPosition> = Vec::with_capacity(entries.len());
    for entry in entries {
        let mut object = match entry {
            serde_json::Value::Object(o)
                if o.get("shard").is_some_and(|v| v.is_string())
                    && o.get("gtid").is_some_and(|v| v.is_string()) =>
            {
                o.clone()
            }
            _ => {
                return Err(invalid(format!(
                    "every entry of the specific offsets needs string fields \"shard\" and \"gtid\", got {entry}"
                )))
            }
        };
        match object.get("keyspace").and_then(|v| v.as_str()) {
            None | Some("") => {
                object.insert("keyspace".into(), keyspace.into());
            }
            Some(ks) if ks == keyspace => {}
            Some(ks) => {
                return Err(invalid(format!(
                    "the specific offsets contain keyspace '{ks}' but the source reads keyspace '{keyspace}': \
                     drop that entry or fix the keyspace"
                )))
            }
        }
        let position: ShardPosition = serde_json::from_value(serde_json::Value::Object(object))
            .map_err(|e| {
                invalid(format!(
                    "the specific offsets entry {entry} is not a position: {e}"
                ))
            })?;
        if out.iter().any(|p| p.shard == position.shard) {
            return Err(invalid(format!(
                "the specific offsets list shard '{}' twice",
                position.shard
            )));
        }
        out.push(position);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specific_offsets_in_every_shape_with_clear_errors() {
        for json in [
            r#"{"shard_gtids":[{"shard":"-80","gtid":"g1"},{"keyspace":"ks","shard":"80-","gtid":"current"}]}"#,
            r#"{"shardGtids":[{"shard":"-80","gtid":"g1"},{"shard":"80-","gtid":"current"}]}"#,
            r#"{"shards":[{"shard":"-80","gtid":"g1"},{"shard":"80-","gtid":"current"}]}"#,
            r#"[{"shard":"-80","gtid":"g1"},{"shard":"80-","gtid":"current"}]"#,
        ] {
            let given = parse_specific_offsets("ks", json).unwrap();
            assert_eq!(given.len(), 2, "{json}");
            assert_eq!(
                (given[0].keyspace.as_str(), given[0].gtid.as_str()),
                ("ks", "g1")
            );
            assert_eq!(given[1].gtid, "current");
        }
        let err = |json: &str| {
            let e = parse_specific_offsets("ks", json).unwrap_err();
            assert_eq!(e.code, crate::ErrorCode::InvalidPosition, "{}", e.message);
            e.message
        };
        assert!(err("nope").contains("not valid JSON"));
        assert!(err(r#"{"shard_gtids":[]}"#).contains("list no shard"));
        assert!(err(r#"[{"shard":"-80"}]"#).contains("\"shard\" and \"gtid\""));
        assert!(
            err(r#"[{"keyspace":"other","shard":"-80","gtid":"g"}]"#).contains("keyspace 'other'")
        );
        assert!(
            err(r#"[{"shard":"-80","gtid":"a"},{"shard":"-80","gtid":"b"}]"#).contains("twice")
        );
    }
}
