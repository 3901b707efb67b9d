//! Exact, resumable positions.
//!
//! A [`ShardPosition`] is everything needed to restart one shard's stream right after the last
//! committed transaction or copy batch: the GTID set, copy progress (`table_p_ks`), the tables
//! still to copy (so a resume never degrades to "stream only" in the table-switch window, see
//! docs/positions.md), and whether the shard's copy is done.
//!
//! Forms: JSON (readable, the VGTID shape users know: `{keyspace, shard, gtid, table_p_ks}` plus
//! our fields) and a versioned compact binary form. Both round-trip.

use serde::{Deserialize, Serialize};

/// Copy progress of one table: the last primary key copied, as a serialized
/// `query.QueryResult` (fields + one row), exactly as VTGate sent it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableLastPk {
    pub table_name: String,
    /// Serialized `query.QueryResult` protobuf; empty = copy this table from its start.
    #[serde(with = "crate::position::base64_bytes", default)]
    pub lastpk: Vec<u8>,
}

/// One shard's resumable position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardPosition {
    pub keyspace: String,
    pub shard: String,
    /// Flavor-prefixed GTID set (`MySQL56/uuid:1-123`), `""` = copy from scratch, `current` = now.
    pub gtid: String,
    /// Tables whose copy is in progress, with their last copied primary key. While the shard's
    /// copy is unfinished, tables already copied stay listed with their final primary key, so a
    /// resume re-reads only rows added since instead of copying them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub table_p_ks: Vec<TableLastPk>,
    /// Tables not yet started by the copy phase (not including those in `table_p_ks`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables_to_copy: Vec<String>,
    /// True once this shard sent its COPY_COMPLETED (or never needed a copy).
    #[serde(default)]
    pub copy_completed: bool,
}

/// Positions of every shard of a stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StreamPosition {
    pub shards: Vec<ShardPosition>,
}

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

impl ShardPosition {
    /// Whether resuming from this position still has to copy tables (a mid-copy position).
    pub fn needs_copy(&self) -> bool {
        !self.copy_completed
            && (self.gtid.is_empty()
                || !self.table_p_ks.is_empty()
                || !self.tables_to_copy.is_empty())
    }
}

impl StreamPosition {
    pub fn get(&self, keyspace: &str, shard: &str) -> Option<&ShardPosition> {
        self.shards
            .iter()
            .find(|p| p.keyspace == keyspace && p.shard == shard)
    }

    /// Pretty JSON: `{"shards":[{keyspace, shard, gtid, table_p_ks, tables_to_copy, copy_completed}]}`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{\"shards\":[]}".to_string())
    }

    /// Parses positions from JSON. Accepts our own form (`{"shards":[...]}`), a bare array of
    /// shard positions, and the VGTID shape users know from Vitess tools
    /// (`{"shard_gtids":[{keyspace, shard, gtid}]}`, also `shardGtids`).
    pub fn from_json(text: &str) -> crate::Result<StreamPosition> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(gtid: &str) -> ShardPosition {
        ShardPosition {
            keyspace: "ks".into(),
            shard: "-80".into(),
            gtid: gtid.into(),
            table_p_ks: vec![],
            tables_to_copy: vec![],
            copy_completed: false,
        }
    }

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
    fn copy_need() {
        assert!(pos("").needs_copy());
        assert!(!pos("MySQL56/u:1").needs_copy());
        let mut p = pos("MySQL56/u:1");
        p.tables_to_copy.push("t".into());
        assert!(p.needs_copy());
        p.copy_completed = true;
        assert!(!p.needs_copy());
    }
}
