// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! What a consumer of the stream sees.

use crate::position::ShardPosition;
use crate::value::Value;
use std::sync::Arc;

/// Flink-compatible row kinds. An UPDATE becomes UpdateBefore + UpdateAfter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum RowKind {
    Insert = 0,
    UpdateBefore = 1,
    UpdateAfter = 2,
    Delete = 3,
    /// A row read by a chunked snapshot ([`crate::snapshot`]) while the log streams: the
    /// row's state at the chunk's snapshot, newer than or equal to every change of its key
    /// emitted before it. The key may exist downstream already (a re-snapshot), so a consumer
    /// applies it as an upsert, not as an insert.
    SnapshotRead = 4,
}

/// The logical family of a column, derived from the FIELD event's type and column_type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ColumnType {
    Int = 1,
    UInt = 2,
    Float = 3,
    Double = 4,
    Decimal = 5,
    String = 6,
    Bytes = 7,
    Date = 8,
    DateTime = 9,
    Timestamp = 10,
    Time = 11,
    Year = 12,
    Enum = 13,
    Set = 14,
    Json = 15,
    Bit = 16,
    Geometry = 17,
}

/// One column of a table, from a FIELD event.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub column_type: ColumnType,
    /// MySQL's declared type, e.g. `decimal(10,2)`, `enum('a','b')`, `bigint unsigned`.
    pub mysql_type: String,
    /// Vitess query.Type number (for diagnostics).
    pub vitess_type: i32,
    /// Collation id (63 = binary).
    pub charset: u32,
    /// Declared precision / length (DECIMAL precision, CHAR length, BIT width).
    pub length: u32,
    /// Scale for DECIMAL, fractional second digits for temporal types.
    pub decimals: u32,
    pub nullable: bool,
    pub primary_key: bool,
}

/// A table's shape in one shard, as of the latest FIELD event.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSchema {
    pub keyspace: String,
    pub shard: String,
    /// Table name without the keyspace prefix.
    pub table: String,
    pub columns: Vec<Column>,
    /// Increases each time the shape of (keyspace, shard, table) changes.
    pub version: u32,
}

impl TableSchema {
    pub fn primary_key_indexes(&self) -> Vec<usize> {
        self.columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.primary_key)
            .map(|(i, _)| i)
            .collect()
    }
}

/// One row change.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeEvent {
    pub schema: Arc<TableSchema>,
    pub kind: RowKind,
    /// Column values in `schema.columns` order.
    pub values: Vec<Value>,
    /// Binlog commit time in milliseconds since the epoch; 0 for rows read by the copy phase.
    pub commit_ts_millis: i64,
    /// True for rows read by the copy (snapshot) phase and by chunked snapshots.
    pub is_snapshot: bool,
    /// The transaction's GTID (`uuid:N`, VStream's `event_gtid`, v23+); `None` for snapshot
    /// rows and where the server does not send it. Shared by the changes of one ROW event.
    pub gtid: Option<Arc<str>>,
}

/// Everything the stream hands out, in order, per shard.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A new or changed table shape; precedes the first change that uses it.
    Schema(Arc<TableSchema>),
    /// A row change.
    Change(ChangeEvent),
    /// A committed position for one shard: resuming from it yields exactly the events after
    /// this mark. Emitted after every committed transaction and every copy batch.
    Mark(ShardPosition),
    /// A DDL statement applied on a shard.
    Ddl {
        keyspace: String,
        shard: String,
        statement: String,
        commit_ts_millis: i64,
    },
    /// The copy phase of one shard finished.
    ShardCopyCompleted { keyspace: String, shard: String },
    /// The copy phase of the whole stream finished (all shards).
    CopyCompleted,
    /// Liveness: no data, but time moved on (drives watermarks on idle shards).
    Heartbeat { timestamp_millis: i64 },
    /// Resharding: `shard`'s stream reached the reshard journal `id` and ends here (a final
    /// [`Event::Mark`] of `shard` follows; nothing of it after that). `ended` = every participant
    /// of the journal (each sends its own Journal event); `started` = the new shards and their
    /// start positions, to be read only after every participant ended (per-key order).
    Journal {
        id: i64,
        shard: (String, String),
        ended: Vec<(String, String)>,
        started: Vec<ShardPosition>,
    },
    /// Snapshot-only mode: all shards are copied, the stream ends.
    End,
}

impl Event {
    /// Approximate in-memory size, used for byte budgets (buffers, transaction chunking).
    pub fn approx_bytes(&self) -> usize {
        const BASE: usize = 64;
        match self {
            Event::Change(c) => BASE + c.values.iter().map(Value::approx_bytes).sum::<usize>(),
            Event::Schema(s) => {
                BASE + s
                    .columns
                    .iter()
                    .map(|c| 48 + c.name.len() + c.mysql_type.len())
                    .sum::<usize>()
            }
            Event::Mark(p) => {
                BASE + p.gtid.len()
                    + p.table_p_ks
                        .iter()
                        .map(|t| t.table_name.len() + t.lastpk.len())
                        .sum::<usize>()
                    + p.tables_to_copy.iter().map(String::len).sum::<usize>()
            }
            Event::Ddl { statement, .. } => BASE + statement.len(),
            Event::Journal { started, .. } => BASE + started.len() * 128,
            _ => BASE,
        }
    }
}
