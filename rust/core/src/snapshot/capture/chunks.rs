// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The chunk scheduler: which chunk starts next (round robin, at most `chunks_in_flight`), what
//! each side stream's report does to its table, the deadline for a chunk's snapshot, and
//! retries after a growing delay.

use super::CaptureStream;
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::event::Event;
use crate::options::TabletType;
use crate::request::filter_rules;
use crate::snapshot::chunk::{run_chunk, side_options, ChunkJob, ChunkMsg, ChunkReport};
use crate::snapshot::key::ChunkRange;
use crate::snapshot::merge::ChunkId;
use std::time::{Duration, Instant};

/// Chunk retries (a discarded or failed chunk) before the capture fails.
const MAX_RETRIES: u32 = 30;

/// Refusals in a row of a table's chunk by a non-primary tablet that does not know the table
/// before its chunks are read from the primary instead.
const UNKNOWN_TABLE_REFUSALS: u32 = 3;

/// Chunks in a row that could not reach their tablet (or vtctld) directly before the shard's
/// chunks go through VTGate instead.
const UNREACHED_TABLETS: u32 = 3;

impl CaptureStream {
    /// Starts chunks while fewer than `chunks_in_flight` are read. A table's head lane (its
    /// chunks are emitted next) may always start one; a later lane reads ahead only while fewer
    /// than twice `chunks_in_flight` chunks are unmerged (read chunks waiting for the log or for
    /// the lanes before them hold their rows). A lane has at most two chunks unmerged.
    pub(super) fn schedule(&mut self) {
        let now = Instant::now();
        let limit = self.snap.chunks_in_flight;
        self.chunk_tasks.retain(|_, t| !t.is_finished());
        self.follow_throttler(now);
        // Round robin: head lanes first, then the shard and table with the fewest chunks.
        loop {
            if self.reading >= limit {
                return;
            }
            let unmerged: usize = self
                .shards
                .values()
                .flat_map(|s| s.tables.values())
                .map(|t| t.unmerged)
                .sum();
            let pick = self
                .shards
                .iter()
                // A shard still in its in-stream copy has no log position to merge against yet.
                .filter(|(_, s)| s.log.copy_completed && !s.throttle_held && !s.ended)
                .flat_map(|(shard, s)| s.tables.iter().map(move |(t, st)| (shard, t, st)))
                .filter(|(_, _, t)| !t.paused && t.planned)
                .flat_map(|(shard, table, t)| {
                    let head = t.head_lane();
                    t.lanes
                        .iter()
                        .enumerate()
                        .map(move |(i, l)| (shard, table, t, i, l, i == head))
                })
                .filter(|(_, _, _, _, l, head)| {
                    l.reading.is_none()
                        && l.next.is_some()
                        && l.unmerged < 2
                        && l.not_before.is_none_or(|at| at <= now)
                        && (*head || unmerged < 2 * limit)
                })
                .min_by_key(|(_, _, t, _, _, head)| (!*head, t.chunks + t.unmerged as u64))
                .map(|(s, t, _, lane, _, _)| (s.clone(), t.clone(), lane));
            let Some((shard, table, lane)) = pick else {
                return;
            };
            if let Err(e) = self.start_chunk(&shard, &table, lane) {
                // A cursor whose key cannot be written as a filter: the capture of this table
                // cannot go on; report it through the chunk channel like a failed chunk.
                tracing::error!(error = %e.message, "cannot start a chunk");
                let st = self.table_mut(&shard, &table);
                for l in &mut st.lanes {
                    l.next = None;
                }
                st.emitted = None;
            }
        }
    }

    pub(super) fn start_chunk(&mut self, shard: &str, table: &str, lane: usize) -> Result<()> {
        let id = self.next_id;
        self.next_id += 1;
        let base_filter = self.options.row_filter.clone();
        let due = Instant::now() + self.options.connect_timeout.max(Duration::from_secs(1));
        let st = self.table_mut(shard, table);
        let range = st.lanes[lane]
            .next
            .clone()
            .expect("picked with a next range");
        let mut terms: Vec<String> = Vec::new();
        if let Some(f) = base_filter {
            terms.push(format!("({f})"));
        }
        if let Some(f) = &st.filter {
            terms.push(format!("({f})"));
        }
        terms.extend(range.predicate(&st.key)?);
        st.unmerged += 1;
        let l = &mut st.lanes[lane];
        l.not_before = None;
        l.snapshot_due = Some(due);
        l.reading = Some((id, range.clone()));
        l.unmerged += 1;
        let key = st.key.clone();
        self.shards
            .get_mut(shard)
            .expect("shard")
            .merge
            .request_in_lane(id, table, key, range, lane);
        self.reading += 1;
        if let Some(s) = self.shards.get_mut(shard) {
            s.progress.chunks_started += 1;
            s.progress.chunks_from_tablets +=
                u64::from(self.tablets.is_some() && !self.vtgate_chunks.contains(shard));
            let at_once = s.tables.get(table).map_or(0, |t| t.reading()) as u64;
            s.progress.peak_table_chunks = s.progress.peak_table_chunks.max(at_once);
        }
        let mut job = ChunkJob {
            id,
            shard: shard.to_string(),
            table: table.to_string(),
            terms,
            delay: Duration::ZERO,
            query: String::new(),
        };
        let mut snap = self.snap.clone();
        if self
            .primary_chunks
            .contains(&(shard.to_string(), table.to_string()))
        {
            snap.tablet_type = TabletType::Primary;
        }
        let tablets = self
            .tablets
            .clone()
            .filter(|_| !self.vtgate_chunks.contains(shard));
        if tablets.is_some() {
            let side = side_options(&self.options, &snap, &job);
            job.query = filter_rules(&side, &self.key_names)
                .rules
                .into_iter()
                .next()
                .map(|r| r.filter)
                .unwrap_or_default();
        }
        tracing::debug!(?job, lane, "chunk started");
        let task = tokio::spawn(run_chunk(
            self.options.clone(),
            snap,
            job,
            self.chunk_tx.clone(),
            tablets,
        ));
        self.chunk_tasks.insert(id, task);
        Ok(())
    }

    /// Chunks whose side stream did not report a snapshot in time are read again.
    pub(super) fn check_snapshot_deadlines(&mut self) -> Result<()> {
        let now = Instant::now();
        let late: Vec<(String, String, usize, ChunkId)> = self
            .shards
            .iter()
            .flat_map(|(shard, s)| {
                s.tables.iter().flat_map(move |(table, t)| {
                    t.lanes.iter().enumerate().filter_map(move |(i, l)| {
                        let (id, _) = l.reading.as_ref()?;
                        l.snapshot_due
                            .is_some_and(|due| due <= now)
                            .then(|| (shard.clone(), table.clone(), i, *id))
                    })
                })
            })
            .collect();
        for (shard, table, lane, id) in late {
            let tablet = format!("{:?}", self.snap.tablet_type).to_lowercase();
            let e = Error::retryable(format!(
                "the chunk stream of table '{table}' on shard {}/{shard} got no snapshot from a {tablet} tablet within {:?} \
                 (connect timeout) — is a {tablet} tablet of the shard serving? Set the snapshot tablet type (e.g. primary, \
                 or rdonly on vttestserver) to one the shard has",
                self.options.keyspace, self.options.connect_timeout
            ))
            .with_code(ErrorCode::Unreachable);
            tracing::warn!(error = %e.message, "chunk timed out");
            if self.table_mut(&shard, &table).lanes[lane].retries >= 2 {
                // Three silent chunks in a row: the tablet type is missing, not slow.
                return Err(e);
            }
            self.shards
                .get_mut(&shard)
                .expect("shard")
                .progress
                .chunks_failed += 1;
            self.retry(&shard, &table, lane, id, Some(e))?;
        }
        Ok(())
    }

    pub(super) fn on_chunk(&mut self, report: ChunkReport) -> Result<Vec<Event>> {
        let ChunkReport { shard, id, msg } = report;
        let Some((table, lane)) = self.reader_of(&shard, id) else {
            return Ok(Vec::new()); // a chunk abandoned earlier
        };
        let mut out = Vec::new();
        match msg {
            ChunkMsg::Rows(rows) => {
                let mut mapped = Vec::with_capacity(rows.len());
                for mut row in rows {
                    row.schema = self.schema_for(&shard, &row.schema, &mut out);
                    mapped.push(row);
                }
                self.shards
                    .get_mut(&shard)
                    .expect("shard")
                    .merge
                    .on_chunk_rows(id, mapped)?;
            }
            ChunkMsg::Snapshot(g) => {
                self.table_mut(&shard, &table).lanes[lane].snapshot_due = None;
                let merge = &mut self.shards.get_mut(&shard).expect("shard").merge;
                if let Err(d) = merge.on_chunk_snapshot(id, g)? {
                    tracing::info!(table = %table, shard = %shard, requested_at = %d.requested_at, snapshot = %d.snapshot,
                        "chunk discarded: its tablet was behind the log; reading it again later");
                    self.shards
                        .get_mut(&shard)
                        .expect("shard")
                        .progress
                        .chunks_discarded += 1;
                    self.retry(&shard, &table, lane, id, None)?;
                }
            }
            ChunkMsg::Cut => {
                let through = self.shards.get_mut(&shard).expect("shard").merge.cut(id)?;
                match through {
                    Some(k) => {
                        let until = self.table_mut(&shard, &table).lanes[lane]
                            .reading
                            .as_ref()
                            .and_then(|(_, r)| r.until.clone());
                        let next = ChunkRange::after(k).in_lane(until);
                        self.finish_reading(&shard, &table, lane, Some(next))
                    }
                    // No row read at the snapshot: read the same range again.
                    None => self.retry(&shard, &table, lane, id, None)?,
                }
            }
            ChunkMsg::Complete => {
                self.unreached.remove(&shard);
                self.shards
                    .get_mut(&shard)
                    .expect("shard")
                    .merge
                    .complete(id)?;
                let next = self.table_mut(&shard, &table).lanes[lane]
                    .reading
                    .as_ref()
                    .and_then(|(_, r)| r.next_level());
                self.finish_reading(&shard, &table, lane, next);
            }
            ChunkMsg::Failed(e) => {
                if e.kind == ErrorKind::Config || e.code == ErrorCode::Internal {
                    return Err(e);
                }
                self.count_unreached(&shard, &e);
                let hint = unknown_table_hint(&e, &self.options.keyspace, self.snap.tablet_type);
                tracing::warn!(table = %table, shard = %shard, error = %e.message, hint = hint.as_deref().unwrap_or(""), "chunk failed; reading it again");
                self.shards
                    .get_mut(&shard)
                    .expect("shard")
                    .progress
                    .chunks_failed += 1;
                let refused_again = self.table_mut(&shard, &table).lanes[lane].retries + 1
                    >= UNKNOWN_TABLE_REFUSALS;
                let key = (shard.clone(), table.clone());
                let fall_back =
                    hint.is_some() && refused_again && !self.primary_chunks.contains(&key);
                self.retry(&shard, &table, lane, id, Some(e))?;
                if fall_back {
                    // A replica restored or started empty, or a table created since the
                    // tablet's last schema reload (every 30 minutes by default): waiting would
                    // stall the capture that long and then fail it. The primary always knows
                    // the table; its chunks are short reads by key range.
                    tracing::warn!(table = %table, shard = %shard, hint = hint.as_deref().unwrap_or(""),
                        "the {:?} tablet of the shard does not know the table: its chunks are read from the primary from now on",
                        self.snap.tablet_type);
                    self.primary_chunks.insert(key);
                    for l in &mut self.table_mut(&shard, &table).lanes {
                        l.retries = 0;
                        l.not_before = None;
                    }
                }
            }
        }
        self.emit_ready(&shard, &mut out)?;
        Ok(out)
    }

    /// A chunk that could not reach its tablet directly counts against the shard; the third in a
    /// row sends the shard's chunks through VTGate, said once. Slower, never stuck: a reader
    /// outside the cluster's network sees vtctld but not the tablets' gRPC ports.
    fn count_unreached(&mut self, shard: &str, e: &Error) {
        if self.tablets.is_none()
            || self.vtgate_chunks.contains(shard)
            || e.code != ErrorCode::Unreachable
        {
            return;
        }
        let n = self.unreached.entry(shard.to_string()).or_default();
        *n += 1;
        if *n >= UNREACHED_TABLETS {
            tracing::warn!(shard = %shard, error = %e.message,
                "{UNREACHED_TABLETS} chunks in a row could not reach a tablet of the shard directly: its chunks are read \
                 through VTGate from now on — open the tablets' gRPC ports (as vtctld lists them) to the reader, or leave \
                 the chunks-from-tablets vtctld address unset");
            self.vtgate_chunks.insert(shard.to_string());
            self.unreached.remove(shard);
        }
    }

    /// The chunk's side stream is done; the lane's next chunk starts at `next`.
    pub(super) fn finish_reading(
        &mut self,
        shard: &str,
        table: &str,
        lane: usize,
        next: Option<ChunkRange>,
    ) {
        let l = &mut self.table_mut(shard, table).lanes[lane];
        l.reading = None;
        l.snapshot_due = None;
        l.retries = 0;
        l.next = next;
        self.reading -= 1;
    }

    /// Drops chunk `id` and reads its range again after a growing delay.
    pub(super) fn retry(
        &mut self,
        shard: &str,
        table: &str,
        lane: usize,
        id: ChunkId,
        cause: Option<Error>,
    ) -> Result<()> {
        if let Some(task) = self.chunk_tasks.remove(&id) {
            task.abort();
        }
        self.shards.get_mut(shard).expect("shard").merge.abandon(id);
        let keyspace = self.options.keyspace.clone();
        let tablet_type = self.snap.tablet_type;
        let tablet = format!("{tablet_type:?}").to_lowercase();
        let st = self.table_mut(shard, table);
        st.unmerged -= 1;
        let l = &mut st.lanes[lane];
        l.reading = None;
        l.snapshot_due = None;
        l.unmerged -= 1;
        l.retries += 1;
        if l.retries > MAX_RETRIES {
            let why = cause.map_or_else(
                || format!("each chunk's {tablet} tablet stayed behind the log stream"),
                |e| match unknown_table_hint(&e, &keyspace, tablet_type) {
                    Some(hint) => format!("{} ({hint})", e.message),
                    None => e.message,
                },
            );
            return Err(Error::retryable(format!(
                "the chunked snapshot of {keyspace}.{table} on shard {shard} gave up after {MAX_RETRIES} attempts: {why} — \
                 read the chunks from the log's tablet type (snapshot tablet type), or let the replicas catch up"
            )));
        }
        let delay = Duration::from_millis(50u64 << l.retries.min(8));
        l.not_before = Some(Instant::now() + delay);
        self.reading -= 1;
        Ok(())
    }
}

/// For a chunk refused because its tablet does not know the table: the fix. A non-primary
/// vttablet learns a new table at its next schema reload (every 30 minutes by default), so a
/// table created moments ago fails there until then.
fn unknown_table_hint(e: &Error, keyspace: &str, tablet_type: TabletType) -> Option<String> {
    (tablet_type != TabletType::Primary && e.message.contains("not present in the database")).then(
        || {
            format!(
                "a new table is unknown to a non-primary tablet until its schema reloads: run \
                 `vtctldclient ReloadSchemaKeyspace {keyspace}`, or wait for the tablets' \
                 --queryserver-config-schema-reload-time"
            )
        },
    )
}

#[cfg(test)]
mod hint_tests {
    use super::*;

    #[test]
    fn a_table_unknown_to_a_replica_names_the_reload() {
        let refused = Error::retryable(
            "target: commerce.0.replica: vttablet: rpc error: code = Unknown desc = table t is not present in the database",
        );
        let hint = unknown_table_hint(&refused, "commerce", TabletType::Replica).expect("a hint");
        assert!(
            hint.contains("vtctldclient ReloadSchemaKeyspace commerce"),
            "{hint}"
        );
        assert_eq!(
            unknown_table_hint(&refused, "commerce", TabletType::Primary),
            None
        );
        let other = Error::retryable("connection reset");
        assert_eq!(
            unknown_table_hint(&other, "commerce", TabletType::Rdonly),
            None
        );
    }
}
