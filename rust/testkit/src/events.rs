// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Builders for VStream events as VTGate sends them, for scripts. Tables have two columns:
//! `id BIGINT` (primary key) and `v VARCHAR(64)`.

use vitess_cdc_protos::binlogdata::{
    FieldEvent, RowChange, RowEvent, ShardGtid, TableLastPk, VEvent, VEventType, VGtid,
};
use vitess_cdc_protos::query::{Field, MySqlFlag, QueryResult, Row, Type};

pub const KS: &str = "ks";
pub const SHARD: &str = "0";

/// An event of type `ty` from shard [`SHARD`] of keyspace [`KS`], nothing else set.
pub fn ev(ty: VEventType) -> VEvent {
    VEvent {
        r#type: ty as i32,
        keyspace: KS.into(),
        shard: SHARD.into(),
        ..Default::default()
    }
}

pub fn begin() -> VEvent {
    ev(VEventType::Begin)
}
pub fn commit() -> VEvent {
    ev(VEventType::Commit)
}
pub fn heartbeat() -> VEvent {
    VEvent {
        r#type: VEventType::Heartbeat as i32,
        timestamp: 1_700_000_000,
        ..Default::default()
    }
}
pub fn ddl(statement: &str) -> VEvent {
    VEvent {
        statement: statement.into(),
        timestamp: 1_700_000_000,
        ..ev(VEventType::Ddl)
    }
}
pub fn other() -> VEvent {
    ev(VEventType::Other)
}
/// COPY_COMPLETED of the shard.
pub fn shard_copy_completed() -> VEvent {
    ev(VEventType::CopyCompleted)
}
/// The final COPY_COMPLETED (no keyspace/shard).
pub fn copy_completed() -> VEvent {
    VEvent {
        r#type: VEventType::CopyCompleted as i32,
        ..Default::default()
    }
}

pub fn field(table: &str) -> VEvent {
    let pk = MySqlFlag::PriKeyFlag as u32 | MySqlFlag::NotNullFlag as u32;
    VEvent {
        field_event: Some(Box::new(FieldEvent {
            table_name: format!("{KS}.{table}"),
            keyspace: KS.into(),
            shard: SHARD.into(),
            enum_set_string_values: true,
            fields: vec![
                Field {
                    name: "id".into(),
                    r#type: Type::Int64 as i32,
                    flags: pk,
                    column_type: "bigint".into(),
                    charset: 63,
                    ..Default::default()
                },
                Field {
                    name: "v".into(),
                    r#type: Type::Varchar as i32,
                    column_type: "varchar(64)".into(),
                    charset: 255,
                    ..Default::default()
                },
            ],
            ..Default::default()
        })),
        ..ev(VEventType::Field)
    }
}

pub fn row(id: i64, v: &str) -> Row {
    let id = id.to_string();
    Row::with_lengths(
        [id.len() as i64, v.len() as i64],
        format!("{id}{v}").into_bytes(),
    )
}

/// ROW event with the given (before, after) images; `timestamp` 0 = copy phase.
pub fn rows(table: &str, timestamp: i64, changes: Vec<(Option<Row>, Option<Row>)>) -> VEvent {
    VEvent {
        timestamp,
        row_event: Some(RowEvent {
            table_name: format!("{KS}.{table}").into(),
            keyspace: KS.into(),
            shard: SHARD.into(),
            row_changes: changes
                .into_iter()
                .map(|(before, after)| RowChange {
                    before,
                    after,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }),
        ..ev(VEventType::Row)
    }
}

/// A streaming-phase insert of `id`.
pub fn insert(table: &str, id: i64) -> VEvent {
    insert_at(table, id, 1_700_000_000)
}

/// An insert of `id` at `timestamp` (0 = a copy-phase row).
pub fn insert_at(table: &str, id: i64, timestamp: i64) -> VEvent {
    rows(table, timestamp, vec![(None, Some(row(id, "v")))])
}

/// A copy-phase batch of rows `ids`.
pub fn copy_rows(table: &str, ids: std::ops::Range<i64>) -> VEvent {
    rows(table, 0, ids.map(|i| (None, Some(row(i, "c")))).collect())
}

pub fn lastpk(table: &str, id: i64) -> TableLastPk {
    let id = id.to_string();
    TableLastPk {
        table_name: table.into(),
        lastpk: Some(QueryResult {
            fields: vec![Field {
                name: "id".into(),
                r#type: Type::Int64 as i32,
                ..Default::default()
            }],
            rows: vec![Row::with_lengths([id.len() as i64], id.into_bytes())],
            ..Default::default()
        }),
    }
}

pub fn vgtid(gtid: &str) -> VEvent {
    vgtid_with(gtid, vec![])
}

pub fn vgtid_with(gtid: &str, table_p_ks: Vec<TableLastPk>) -> VEvent {
    VEvent {
        vgtid: Some(VGtid {
            shard_gtids: vec![ShardGtid {
                keyspace: KS.into(),
                shard: SHARD.into(),
                gtid: gtid.to_string().into(),
                table_p_ks,
            }],
        }),
        ..ev(VEventType::Vgtid)
    }
}

/// The event as shard `shard` of keyspace [`KS`] sends it (the event's own shard and its
/// ROW/FIELD event's; a VGTID keeps its list).
pub fn on_shard(shard: &str, mut event: VEvent) -> VEvent {
    if event.keyspace.is_empty() {
        event.keyspace = KS.into();
    }
    event.shard = shard.to_string().into();
    if let Some(r) = event.row_event.as_mut() {
        r.shard = shard.to_string().into();
    }
    if let Some(f) = event.field_event.as_mut() {
        f.shard = shard.into();
    }
    event
}

/// A VGTID listing these `(shard, gtid)` pairs of keyspace [`KS`] (VTGate lists every shard of
/// the stream).
pub fn vgtid_shards(entries: &[(&str, &str)]) -> VEvent {
    VEvent {
        vgtid: Some(VGtid {
            shard_gtids: entries
                .iter()
                .map(|(shard, gtid)| ShardGtid {
                    keyspace: KS.into(),
                    shard: shard.to_string().into(),
                    gtid: gtid.to_string().into(),
                    table_p_ks: vec![],
                })
                .collect(),
        }),
        ..ev(VEventType::Vgtid)
    }
}

/// A SHARDS reshard journal: `participants` (old shards) end, `started` (new shard, start gtid)
/// begin. Send it as `shard` with [`on_shard`]; every participant sends an identical one.
pub fn journal(id: i64, participants: &[&str], started: &[(&str, &str)]) -> VEvent {
    use vitess_cdc_protos::binlogdata::{Journal, KeyspaceShard, MigrationType};
    VEvent {
        journal: Some(Box::new(Journal {
            id,
            migration_type: MigrationType::Shards as i32,
            participants: participants
                .iter()
                .map(|s| KeyspaceShard {
                    keyspace: KS.into(),
                    shard: s.to_string(),
                })
                .collect(),
            shard_gtids: started
                .iter()
                .map(|(shard, gtid)| ShardGtid {
                    keyspace: KS.into(),
                    shard: shard.to_string().into(),
                    gtid: gtid.to_string().into(),
                    table_p_ks: vec![],
                })
                .collect(),
            ..Default::default()
        })),
        ..ev(VEventType::Journal)
    }
}
