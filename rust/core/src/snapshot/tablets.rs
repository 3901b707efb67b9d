// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Chunks read from the tablets themselves, not through VTGate.
//!
//! A chunk through VTGate is a VStream whose copy phase runs the tablet's row streamer; VTGate
//! receives every row, re-frames it as a VStream event and sends it on — on a small machine it
//! spends more CPU per row than the tablet that read it (docs/benchmarks.md). Given vtctld, the
//! capture asks it for each shard's tablets of the snapshot's type (`GetTablets`) and calls that
//! same row streamer directly (`queryservice.Query/VStreamRows`): the rows of one `SELECT` in key
//! order at one consistent snapshot, whose GTID position the first response carries — what the
//! merge needs of a chunk, with no VTGate in the path. Everything else (the log, discovery,
//! signals) still goes through VTGate.
//!
//! The tablets' gRPC ports must be reachable from the reader, as vtctld reports them.

use super::chunk::{report, ChunkJob, ChunkMsg, ChunkReport};
use crate::client::tablet_type as proto_tablet_type;
use crate::decode::{column_from_field, RowDecoder};
use crate::error::{Error, ErrorCode, Result};
use crate::event::{ChangeEvent, RowKind, TableSchema};
use crate::gtid::GtidSet;
use crate::options::{SnapshotOptions, StreamOptions, TabletType};
use crate::proto::binlogdata::VStreamRowsRequest;
use crate::proto::query::Target;
use crate::proto::queryservice::query_client::QueryClient;
use crate::proto::vtctldata::GetTabletsRequest;
use crate::proto::vtctlservice::vtctld_client::VtctldClient;
use crate::value::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tonic::transport::{Channel, Endpoint};

/// How long a tablet list is trusted before vtctld is asked again (a reparent or a new replica).
const TABLETS_TTL: Duration = Duration::from_secs(30);

/// A shard's tablets (`host:grpc_port`) as vtctld listed them, and when, per (keyspace, shard).
type Listed = BTreeMap<(String, String), (std::time::Instant, Vec<String>)>;

/// The tablets of each shard, from vtctld, and a channel per tablet.
pub struct TabletDirectory {
    vtctld: VtctldClient<Channel>,
    address: String,
    connect_timeout: Duration,
    known: Mutex<Listed>,
    channels: Mutex<BTreeMap<String, Channel>>,
    /// Round robin over a shard's tablets.
    turn: std::sync::atomic::AtomicUsize,
}

impl std::fmt::Debug for TabletDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TabletDirectory({})", self.address)
    }
}

impl TabletDirectory {
    /// A directory asking vtctld at `vtctld` (the same endpoint as the throttler check).
    pub fn new(vtctld: VtctldClient<Channel>, address: &str, connect_timeout: Duration) -> Self {
        TabletDirectory {
            vtctld,
            address: address.to_string(),
            connect_timeout,
            known: Mutex::new(BTreeMap::new()),
            channels: Mutex::new(BTreeMap::new()),
            turn: Default::default(),
        }
    }

    /// A serving tablet of `keyspace/shard` of `tablet_type`, as `host:grpc_port`.
    async fn pick(&self, keyspace: &str, shard: &str, tablet_type: TabletType) -> Result<String> {
        let key = (keyspace.to_string(), shard.to_string());
        let cached = self
            .known
            .lock()
            .expect("tablets")
            .get(&key)
            .filter(|(at, t)| at.elapsed() < TABLETS_TTL && !t.is_empty())
            .map(|(_, t)| t.clone());
        let tablets = match cached {
            Some(t) => t,
            None => {
                let mut client = self.vtctld.clone();
                let answer = client
                    .get_tablets(GetTabletsRequest {
                        keyspace: keyspace.to_string(),
                        shard: shard.to_string(),
                        tablet_type: proto_tablet_type(tablet_type) as i32,
                        ..Default::default()
                    })
                    .await
                    .map_err(|s| {
                        Error::retryable(format!(
                            "vtctld at {} did not list the tablets of {keyspace}/{shard}: {} — chunks read from tablets \
                             directly need vtctld's gRPC port",
                            self.address,
                            s.message()
                        ))
                        .with_code(ErrorCode::Unreachable)
                    })?
                    .into_inner();
                let wanted = proto_tablet_type(tablet_type) as i32;
                let tablets: Vec<String> = answer
                    .tablets
                    .iter()
                    .filter(|t| t.r#type == wanted)
                    .filter_map(|t| Some(format!("{}:{}", t.hostname, t.port_map.get("grpc")?)))
                    .collect();
                self.known
                    .lock()
                    .expect("tablets")
                    .insert(key, (std::time::Instant::now(), tablets.clone()));
                tablets
            }
        };
        if tablets.is_empty() {
            let tablet = format!("{tablet_type:?}").to_lowercase();
            return Err(Error::retryable(format!(
                "vtctld lists no {tablet} tablet of {keyspace}/{shard} — set the snapshot tablet type to one the shard has"
            ))
            .with_code(ErrorCode::Unreachable));
        }
        let i = self.turn.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(tablets[i % tablets.len()].clone())
    }

    fn channel(&self, address: &str) -> Result<Channel> {
        let mut channels = self.channels.lock().expect("channels");
        if let Some(c) = channels.get(address) {
            return Ok(c.clone());
        }
        let channel = Endpoint::from_shared(format!("http://{address}"))
            .map_err(|e| Error::fatal(format!("tablet address '{address}' from vtctld: {e}")))?
            .connect_timeout(self.connect_timeout)
            .connect_lazy();
        channels.insert(address.to_string(), channel.clone());
        Ok(channel)
    }

    /// Forgets `keyspace/shard`'s tablets (one failed: ask vtctld again).
    fn forget(&self, keyspace: &str, shard: &str) {
        self.known
            .lock()
            .expect("tablets")
            .remove(&(keyspace.to_string(), shard.to_string()));
    }
}

/// Reads one chunk from a tablet of the shard and reports it as the VTGate path does: rows in
/// batches, the snapshot after the first, then `Cut` at the budget or `Complete`.
pub(super) async fn read_chunk(
    tablets: &TabletDirectory,
    base: &StreamOptions,
    snap: &SnapshotOptions,
    job: &ChunkJob,
    tx: &mpsc::Sender<ChunkReport>,
) -> Result<()> {
    let send = |msg| report(tx, job, msg);
    let keyspace = &base.keyspace;
    let address = tablets.pick(keyspace, &job.shard, snap.tablet_type).await?;
    let mut client =
        QueryClient::new(tablets.channel(&address)?).max_decoding_message_size(usize::MAX);
    let request = VStreamRowsRequest {
        effective_caller_id: None,
        target: Some(Target {
            keyspace: keyspace.clone(),
            shard: job.shard.clone(),
            tablet_type: proto_tablet_type(snap.tablet_type) as i32,
            cell: String::new(),
        }),
        query: job.query.clone(),
        lastpk: None,
    };
    let deadline = base.connect_timeout.max(Duration::from_secs(1));
    let failed = |what: String| {
        tablets.forget(keyspace, &job.shard);
        Error::retryable(format!(
            "the chunk of table '{}' on {keyspace}/{} from tablet {address}: {what}",
            job.table, job.shard
        ))
    };
    // Not reached at all (no connection, no answer): the capture may read the shard's chunks
    // through VTGate instead (capture/chunks.rs).
    let unreachable = |what: String| failed(what).with_code(ErrorCode::Unreachable);
    let mut stream = tokio::time::timeout(deadline, client.v_stream_rows(request))
        .await
        .map_err(|_| unreachable(format!("no answer within {deadline:?}")))?
        .map_err(|s| match s.code() {
            tonic::Code::Unavailable | tonic::Code::DeadlineExceeded => {
                unreachable(s.message().to_string())
            }
            // A refused connection comes as Unknown "transport error".
            tonic::Code::Unknown if s.message().contains("transport") => {
                unreachable(s.message().to_string())
            }
            _ => failed(s.message().to_string()),
        })?
        .into_inner();
    let mut decoder: Option<RowDecoder> = None;
    let mut snapshot = false;
    let (mut count, mut bytes) = (0usize, 0usize);
    loop {
        let next = if snapshot {
            stream.message().await
        } else {
            tokio::time::timeout(deadline, stream.message())
                .await
                .map_err(|_| failed(format!("no snapshot within {deadline:?}")))?
        };
        let Some(response) = next.map_err(|s| failed(s.message().to_string()))? else {
            if !snapshot {
                return Err(failed(
                    "the stream ended without a snapshot position".into(),
                ));
            }
            send(ChunkMsg::Complete).await?;
            return Ok(());
        };
        if response.heartbeat || response.throttled {
            continue;
        }
        if !response.fields.is_empty() {
            let mut columns: Vec<_> = response.fields.iter().map(column_from_field).collect();
            // The row streamer names the key in `pkfields` (its fields are the SELECT's).
            for c in &mut columns {
                c.primary_key |= response
                    .pkfields
                    .iter()
                    .any(|k| k.name.eq_ignore_ascii_case(&c.name));
            }
            let schema = TableSchema {
                keyspace: keyspace.clone(),
                shard: job.shard.clone(),
                table: job.table.clone(),
                columns,
                version: 0,
            };
            decoder = Some(RowDecoder::new(Arc::new(schema), true));
        }
        if !snapshot && !response.gtid.is_empty() {
            let g = GtidSet::parse(&response.gtid)?;
            send(ChunkMsg::Rows(Vec::new())).await?;
            send(ChunkMsg::Snapshot(g)).await?;
            snapshot = true;
        }
        if response.rows.is_empty() {
            continue;
        }
        let Some(decoder) = decoder.as_ref() else {
            return Err(Error::fatal(format!(
                "tablet {address} sent rows of '{}' before their fields",
                job.table
            )));
        };
        if !snapshot {
            return Err(failed("rows arrived before the snapshot position".into()));
        }
        let mut rows = Vec::with_capacity(response.rows.len());
        for row in &response.rows {
            let values = decoder.decode(row, None)?;
            bytes += 64 + values.iter().map(Value::approx_bytes).sum::<usize>();
            count += 1;
            rows.push(ChangeEvent {
                schema: decoder.schema.clone(),
                kind: RowKind::SnapshotRead,
                values,
                commit_ts_millis: 0,
                is_snapshot: true,
                gtid: None,
            });
        }
        send(ChunkMsg::Rows(rows)).await?;
        if count >= snap.chunk_rows || bytes >= snap.chunk_bytes {
            send(ChunkMsg::Cut).await?;
            return Ok(());
        }
    }
}
