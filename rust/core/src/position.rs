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
    /// Tables whose copy is in progress, with their last copied primary key.
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
        base64::engine::general_purpose::STANDARD.decode(s.as_bytes()).map_err(serde::de::Error::custom)
    }
}
