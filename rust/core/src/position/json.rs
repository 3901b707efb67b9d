// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The JSON form of positions: our own (`{"shards":[..]}`), the VGTID shapes users know, and
//! one shard's position as older releases stored it.

use super::{ShardPosition, StreamPosition};

pub(crate) mod base64_bytes {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(s.as_bytes())
            .map_err(serde::de::Error::custom)
    }
}

impl StreamPosition {
    /// Pretty JSON: `{"shards":[{keyspace, shard, gtid, table_p_ks, tables_to_copy, copy_completed}]}`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{\"shards\":[]}".to_string())
    }

    /// Parses positions from JSON. Accepts our own form (`{"shards":[...]}`), a bare array of
    /// shard positions, and the VGTID shape users know from Vitess tools
    /// (`{"shard_gtids":[{keyspace, shard, gtid}]}`, also `shardGtids`).
    pub fn from_json(text: &str) -> crate::Result<StreamPosition> {
        Self::parse_json(text).map_err(|e| e.with_code(crate::ErrorCode::InvalidPosition))
    }

    fn parse_json(text: &str) -> crate::Result<StreamPosition> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| crate::Error::config(format!("positions are not valid JSON: {e}")))?;
        let list = match &value {
            serde_json::Value::Array(_) => value.clone(),
            serde_json::Value::Object(map) => map
                .get("shards")
                .or_else(|| map.get("shard_gtids"))
                .or_else(|| map.get("shardGtids"))
                .cloned()
                .ok_or_else(|| {
                    crate::Error::config(
                        "positions JSON must be {\"shards\":[...]}, a VGTID {\"shard_gtids\":[...]}, or an array",
                    )
                })?,
            _ => return Err(crate::Error::config("positions JSON must be an object or an array")),
        };
        let shards: Vec<ShardPosition> = serde_json::from_value(list).map_err(|e| {
            crate::Error::config(format!(
                "positions JSON: {e} — every shard needs keyspace, shard and gtid (strings)"
            ))
        })?;
        if shards.is_empty() {
            return Err(crate::Error::config("positions JSON lists no shard"));
        }
        Ok(StreamPosition { shards })
    }
}

impl ShardPosition {
    /// Reads one shard position JSON that older state stored as text (the `Mark` JSON of releases
    /// before positions crossed JNI as bytes), in the context it was stored in: `keyspace` and
    /// `shard` fill the fields when the JSON lacks them and must match when it has them.
    /// Errors carry [`ErrorCode::InvalidPosition`](crate::ErrorCode::InvalidPosition).
    pub fn from_saved_json(
        keyspace: &str,
        shard: &str,
        text: &str,
    ) -> crate::Result<ShardPosition> {
        let corrupt = |detail: String| {
            crate::Error::config(format!(
                "corrupt saved position of shard {keyspace}/{shard}: {detail} — the saved state is damaged; \
                 restore from another checkpoint or start over"
            ))
            .with_code(crate::ErrorCode::InvalidPosition)
        };
        let mut value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| corrupt(format!("not JSON ({e}): {text}")))?;
        let object = value
            .as_object_mut()
            .ok_or_else(|| corrupt(format!("not a JSON object: {text}")))?;
        for (field, expected) in [("keyspace", keyspace), ("shard", shard)] {
            match object.get(field) {
                None => {
                    object.insert(field.to_string(), expected.into());
                }
                Some(serde_json::Value::String(s)) if s == expected => {}
                Some(other) => {
                    return Err(corrupt(format!(
                        "its {field} is {other}, but it was stored as the position of {expected}"
                    )))
                }
            }
        }
        serde_json::from_value(value).map_err(|e| corrupt(format!("{e}: {text}")))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::pos;
    use super::super::TableLastPk;
    use super::*;

    #[test]
    fn json_round_trip_and_vgtid_shape() {
        let mut p = pos("MySQL56/u:1-5");
        p.table_p_ks.push(TableLastPk {
            table_name: "t".into(),
            lastpk: vec![1, 2, 3],
        });
        p.tables_to_copy.push("u".into());
        let sp = StreamPosition { shards: vec![p] };
        assert_eq!(StreamPosition::from_json(&sp.to_json()).unwrap(), sp);
        let vgtid = r#"{"shard_gtids":[{"keyspace":"ks","shard":"-80","gtid":"MySQL56/u:1-9"}]}"#;
        assert_eq!(
            StreamPosition::from_json(vgtid).unwrap().shards[0].gtid,
            "MySQL56/u:1-9"
        );
        assert!(StreamPosition::from_json("[]").is_err());
        assert!(StreamPosition::from_json("{\"x\":1}")
            .unwrap_err()
            .message
            .contains("shard_gtids"));
    }

    #[test]
    fn saved_json_takes_its_keyspace_and_shard_from_where_it_was_stored() {
        let p = ShardPosition::from_saved_json("ks", "-80", r#"{"gtid":"n"}"#).unwrap();
        assert_eq!(
            (p.keyspace.as_str(), p.shard.as_str(), p.gtid.as_str()),
            ("ks", "-80", "n")
        );
        let full = serde_json::to_string(&pos("MySQL56/u:1")).unwrap();
        assert_eq!(
            ShardPosition::from_saved_json("ks", "-80", &full).unwrap(),
            pos("MySQL56/u:1")
        );
        let e = ShardPosition::from_saved_json("ks", "80-", &full).unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidPosition);
        assert!(
            e.message.contains("corrupt saved position of shard ks/80-"),
            "{}",
            e.message
        );
        assert!(ShardPosition::from_saved_json("ks", "-80", "[1]").is_err());
    }
}
