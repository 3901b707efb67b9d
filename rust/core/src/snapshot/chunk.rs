// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! One chunk's side stream: a VStream of one shard with `gtid: ""` and a filter
//! `select … from t where <range>`, read until its range is exhausted or its budget is spent.
//!
//! What the tablet does for it (verified on Vitess v24, docs/snapshots.md): `lock tables t
//! read`, read `@@global.gtid_executed` (the snapshot G_c), start a consistent-snapshot
//! transaction, unlock, then stream the range in key order. The grammar seen here is
//! `BEGIN, FIELD, VGTID(G_c), ROW…, VGTID(G_c + lastpk), COMMIT, …, COPY_COMPLETED`: the stream
//! core turns it into rows followed by a mark at G_c after every copy batch, so the first
//! mark gives G_c and every later mark closes a batch read at that same snapshot.

use super::merge::ChunkId;
use crate::error::{Error, ErrorCode, Result};
use crate::event::{ChangeEvent, Event, RowKind};
use crate::gtid::GtidSet;
use crate::options::{SnapshotOptions, StartMode, StreamOptions};
use crate::stream::EventStream;
use crate::supervise::{self, Task};
use crate::value::Value;
use std::time::Duration;
use tokio::sync::mpsc;

/// What a side stream tells the capture, in order.
#[derive(Debug)]
pub enum ChunkMsg {
    /// Rows of one copy batch, in key order (kind [`RowKind::SnapshotRead`]).
    Rows(Vec<ChangeEvent>),
    /// The chunk's snapshot GTID set (after its first batch).
    Snapshot(GtidSet),
    /// The budget is spent: the chunk ends at its last row.
    Cut,
    /// The range is exhausted.
    Complete,
    /// The side stream failed; the chunk is read again (or, for a configuration error, the
    /// capture fails).
    Failed(Error),
}

#[derive(Debug)]
pub struct ChunkReport {
    pub shard: String,
    pub id: ChunkId,
    pub msg: ChunkMsg,
}

/// What to read.
#[derive(Debug, Clone)]
pub struct ChunkJob {
    pub id: ChunkId,
    pub shard: String,
    pub table: String,
    /// WHERE terms, ANDed: the stream's own row filter, the capture's filter, the chunk range.
    pub terms: Vec<String>,
    /// Wait this long before opening (a chunk discarded because its tablet was behind the log
    /// is retried later, with growing delays).
    pub delay: Duration,
    /// The chunk's SELECT (its VStream filter), for a read from the tablet directly.
    pub query: String,
}

/// Reads one chunk and reports it on `tx`; ends early when the receiver is gone.
pub async fn run_chunk(
    base: StreamOptions,
    snap: SnapshotOptions,
    job: ChunkJob,
    tx: mpsc::Sender<ChunkReport>,
    tablets: Option<std::sync::Arc<super::tablets::TabletDirectory>>,
) {
    if !job.delay.is_zero() {
        tokio::time::sleep(job.delay).await;
    }
    let report = |msg| ChunkReport {
        shard: job.shard.clone(),
        id: job.id,
        msg,
    };
    // A panic is reported like a failure, as a fatal error the capture does not retry.
    let read = async {
        match &tablets {
            Some(t) => super::tablets::read_chunk(t, &base, &snap, &job, &tx).await,
            None => read_chunk(base.clone(), &snap, &job, &tx).await,
        }
    };
    let failure = match supervise::catch(Task::CaptureChunk, read).await {
        Ok(Ok(())) => return,
        Ok(Err(e)) => e,
        Err(panic) => panic.into_error(),
    };
    let _ = tx.send(report(ChunkMsg::Failed(failure))).await;
}

/// Tells the capture `msg` about `job`; fails once the capture stopped listening.
pub(super) async fn report(
    tx: &mpsc::Sender<ChunkReport>,
    job: &ChunkJob,
    msg: ChunkMsg,
) -> Result<()> {
    tx.send(ChunkReport {
        shard: job.shard.clone(),
        id: job.id,
        msg,
    })
    .await
    .map_err(|_| Error::fatal("the capture stopped"))
}

pub(super) fn side_options(
    base: &StreamOptions,
    snap: &SnapshotOptions,
    job: &ChunkJob,
) -> StreamOptions {
    let mut o = base.clone();
    o.shards = vec![job.shard.clone()];
    o.tables = vec![job.table.clone()];
    o.table_patterns = Vec::new();
    o.row_filter = (!job.terms.is_empty()).then(|| job.terms.join(" and "));
    o.start = StartMode::SnapshotOnly;
    o.tablet_type = snap.tablet_type;
    o.follow_reshard = false;
    o.stop_on_reshard = false;
    // A chunk is cheap to read again: its own retries stay few and short.
    o.retry_max_attempts = o.retry_max_attempts.min(3);
    o
}

async fn read_chunk(
    base: StreamOptions,
    snap: &SnapshotOptions,
    job: &ChunkJob,
    tx: &mpsc::Sender<ChunkReport>,
) -> Result<()> {
    let options = side_options(&base, snap, job);
    let deadline = options.connect_timeout.max(Duration::from_secs(1));
    let send = |msg| report(tx, job, msg);
    let tablet = format!("{:?}", snap.tablet_type).to_lowercase();
    let silent = || {
        Error::retryable(format!(
            "the chunk stream of table '{}' on shard {}/{} got no snapshot from a {tablet} tablet within {deadline:?} — \
             is a {tablet} tablet of the shard serving? (set the snapshot tablet type, e.g. primary, if the shard has none)",
            job.table, base.keyspace, job.shard
        ))
        .with_code(ErrorCode::Unreachable)
    };
    let mut stream = tokio::time::timeout(deadline, EventStream::open(options))
        .await
        .map_err(|_| silent())??;
    let mut rows: Vec<ChangeEvent> = Vec::new();
    let (mut count, mut bytes) = (0usize, 0usize);
    let mut snapshot: Option<String> = None;
    loop {
        let events = if snapshot.is_none() {
            tokio::time::timeout(deadline, stream.next_events())
                .await
                .map_err(|_| silent())??
        } else {
            stream.next_events().await?
        };
        for event in events {
            match event {
                Event::Change(mut c) if c.schema.table == job.table => {
                    c.kind = RowKind::SnapshotRead;
                    c.is_snapshot = true;
                    bytes += 64 + c.values.iter().map(Value::approx_bytes).sum::<usize>();
                    count += 1;
                    rows.push(c);
                }
                Event::Mark(p) => {
                    match &snapshot {
                        None => {
                            send(ChunkMsg::Rows(std::mem::take(&mut rows))).await?;
                            send(ChunkMsg::Snapshot(GtidSet::parse(&p.gtid)?)).await?;
                            snapshot = Some(p.gtid);
                        }
                        Some(g) if *g != p.gtid && !p.copy_completed => {
                            // VTGate read the rest at another snapshot (its own retry, or the
                            // copy's time limit): the rows since the last mark are not at G_c.
                            // The chunk ends at the last batch read at G_c.
                            tracing::debug!(table = %job.table, shard = %job.shard, "chunk re-snapshotted by VTGate; cut");
                            send(ChunkMsg::Cut).await?;
                            return Ok(());
                        }
                        Some(_) => {
                            if !rows.is_empty() {
                                send(ChunkMsg::Rows(std::mem::take(&mut rows))).await?;
                            }
                        }
                    }
                    if !p.copy_completed && (count >= snap.chunk_rows || bytes >= snap.chunk_bytes)
                    {
                        send(ChunkMsg::Cut).await?;
                        return Ok(());
                    }
                }
                Event::ShardCopyCompleted { .. } | Event::CopyCompleted | Event::End => {
                    if snapshot.is_none() {
                        return Err(Error::retryable(format!(
                            "the chunk stream of table '{}' on shard {} completed without a snapshot position",
                            job.table, job.shard
                        )));
                    }
                    if !rows.is_empty() {
                        send(ChunkMsg::Rows(std::mem::take(&mut rows))).await?;
                    }
                    send(ChunkMsg::Complete).await?;
                    return Ok(());
                }
                _ => {}
            }
        }
    }
}
