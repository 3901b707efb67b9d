// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The chunk scheduler: which chunk starts next (round robin, at most `chunks_in_flight`), what
//! each side stream's report does to its table, the deadline for a chunk's snapshot, and
//! retries after a growing delay.

use super::CaptureStream;
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::event::Event;
use crate::options::TabletType;
use crate::snapshot::chunk::{run_chunk, ChunkJob, ChunkMsg, ChunkReport};
use crate::snapshot::key::ChunkRange;
use crate::snapshot::merge::ChunkId;
use std::time::{Duration, Instant};

/// Chunk retries (a discarded or failed chunk) before the capture fails.
const MAX_RETRIES: u32 = 30;

/// Refusals in a row of a table's chunk by a non-primary tablet that does not know the table
/// before its chunks are read from the primary instead.
const UNKNOWN_TABLE_REFUSALS: u32 = 3;

impl CaptureStream {
    /// Starts chunks while fewer than `chunks_in_flight` are read and fewer than twice that
    /// are unmerged (read chunks waiting for the log hold their rows).
    pub(super) fn schedule(&mut self) {
        let now = Instant::now();
        let limit = self.snap.chunks_in_flight;
        self.chunk_tasks.retain(|_, t| !t.is_finished());
        self.follow_throttler(now);
        // Round robin: the shard and table with the fewest chunks go first.
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
            if unmerged >= 2 * limit {
                return;
            }
            let pick = self
                .shards
                .iter()
                // A shard still in its in-stream copy has no log position to merge against yet.
                .filter(|(_, s)| s.log.copy_completed && !s.throttle_held && !s.ended)
                .flat_map(|(shard, s)| s.tables.iter().map(move |(t, st)| (shard, t, st)))
                .filter(|(_, _, t)| {
                    !t.paused
                        && t.reading.is_none()
                        && t.next.is_some()
                        && t.unmerged < 2
                        && t.not_before.is_none_or(|at| at <= now)
                })
                .min_by_key(|(_, _, t)| t.chunks + t.unmerged as u64)
                .map(|(s, t, _)| (s.clone(), t.clone()));
            let Some((shard, table)) = pick else {
                return;
            };
            if let Err(e) = self.start_chunk(&shard, &table) {
                // A cursor whose key cannot be written as a filter: the capture of this table
                // cannot go on; report it through the chunk channel like a failed chunk.
                tracing::error!(error = %e.message, "cannot start a chunk");
                let st = self.table_mut(&shard, &table);
                st.next = None;
                st.emitted = None;
            }
        }
    }

    pub(super) fn start_chunk(&mut self, shard: &str, table: &str) -> Result<()> {
        let id = self.next_id;
        self.next_id += 1;
        let base_filter = self.options.row_filter.clone();
        let due = Instant::now() + self.options.connect_timeout.max(Duration::from_secs(1));
        let st = self.table_mut(shard, table);
        let range = st.next.clone().expect("picked with a next range");
        let mut terms: Vec<String> = Vec::new();
        if let Some(f) = base_filter {
            terms.push(format!("({f})"));
        }
        if let Some(f) = &st.filter {
            terms.push(format!("({f})"));
        }
        terms.extend(range.predicate(&st.key)?);
        st.not_before = None;
        st.snapshot_due = Some(due);
        st.reading = Some((id, range.clone()));
        st.unmerged += 1;
        let key = st.key.clone();
        self.shards
            .get_mut(shard)
            .expect("shard")
            .merge
            .request(id, table, key, range);
        self.reading += 1;
        if let Some(s) = self.shards.get_mut(shard) {
            s.progress.chunks_started += 1;
        }
        let job = ChunkJob {
            id,
            shard: shard.to_string(),
            table: table.to_string(),
            terms,
            delay: Duration::ZERO,
        };
        tracing::debug!(?job, "chunk started");
        let mut snap = self.snap.clone();
        if self
            .primary_chunks
            .contains(&(shard.to_string(), table.to_string()))
        {
            snap.tablet_type = TabletType::Primary;
        }
        let task = tokio::spawn(run_chunk(
            self.options.clone(),
            snap,
            job,
            self.chunk_tx.clone(),
        ));
        self.chunk_tasks.insert(id, task);
        Ok(())
    }

    /// Chunks whose side stream did not report a snapshot in time are read again.
    pub(super) fn check_snapshot_deadlines(&mut self) -> Result<()> {
        let now = Instant::now();
        let late: Vec<(String, String, ChunkId)> = self
            .shards
            .iter()
            .flat_map(|(shard, s)| {
                s.tables.iter().filter_map(move |(table, t)| {
                    let (id, _) = t.reading.as_ref()?;
                    t.snapshot_due
                        .is_some_and(|due| due <= now)
                        .then(|| (shard.clone(), table.clone(), *id))
                })
            })
            .collect();
        for (shard, table, id) in late {
            let tablet = format!("{:?}", self.snap.tablet_type).to_lowercase();
            let e = Error::retryable(format!(
                "the chunk stream of table '{table}' on shard {}/{shard} got no snapshot from a {tablet} tablet within {:?} \
                 (connect timeout) — is a {tablet} tablet of the shard serving? Set the snapshot tablet type (e.g. primary, \
                 or rdonly on vttestserver) to one the shard has",
                self.options.keyspace, self.options.connect_timeout
            ))
            .with_code(ErrorCode::Unreachable);
            tracing::warn!(error = %e.message, "chunk timed out");
            if self.table_mut(&shard, &table).retries >= 2 {
                // Three silent chunks in a row: the tablet type is missing, not slow.
                return Err(e);
            }
            self.shards
                .get_mut(&shard)
                .expect("shard")
                .progress
                .chunks_failed += 1;
            self.retry(&shard, &table, id, Some(e))?;
        }
        Ok(())
    }

    pub(super) fn on_chunk(&mut self, report: ChunkReport) -> Result<Vec<Event>> {
        let ChunkReport { shard, id, msg } = report;
        let Some(table) = self.reader_of(&shard, id) else {
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
                self.table_mut(&shard, &table).snapshot_due = None;
                let merge = &mut self.shards.get_mut(&shard).expect("shard").merge;
                if let Err(d) = merge.on_chunk_snapshot(id, g)? {
                    tracing::info!(table = %table, shard = %shard, requested_at = %d.requested_at, snapshot = %d.snapshot,
                        "chunk discarded: its tablet was behind the log; reading it again later");
                    self.shards
                        .get_mut(&shard)
                        .expect("shard")
                        .progress
                        .chunks_discarded += 1;
                    self.retry(&shard, &table, id, None)?;
                }
            }
            ChunkMsg::Cut => {
                let through = self.shards.get_mut(&shard).expect("shard").merge.cut(id)?;
                match through {
                    Some(k) => self.finish_reading(&shard, &table, Some(ChunkRange::after(k))),
                    // No row read at the snapshot: read the same range again.
                    None => self.retry(&shard, &table, id, None)?,
                }
            }
            ChunkMsg::Complete => {
                self.shards
                    .get_mut(&shard)
                    .expect("shard")
                    .merge
                    .complete(id)?;
                let next = self
                    .table_mut(&shard, &table)
                    .reading
                    .as_ref()
                    .and_then(|(_, r)| r.next_level());
                self.finish_reading(&shard, &table, next);
            }
            ChunkMsg::Failed(e) => {
                if e.kind == ErrorKind::Config || e.code == ErrorCode::Internal {
                    return Err(e);
                }
                let hint = unknown_table_hint(&e, &self.options.keyspace, self.snap.tablet_type);
                tracing::warn!(table = %table, shard = %shard, error = %e.message, hint = hint.as_deref().unwrap_or(""), "chunk failed; reading it again");
                self.shards
                    .get_mut(&shard)
                    .expect("shard")
                    .progress
                    .chunks_failed += 1;
                let refused_again =
                    self.table_mut(&shard, &table).retries + 1 >= UNKNOWN_TABLE_REFUSALS;
                let key = (shard.clone(), table.clone());
                let fall_back =
                    hint.is_some() && refused_again && !self.primary_chunks.contains(&key);
                self.retry(&shard, &table, id, Some(e))?;
                if fall_back {
                    // A replica restored or started empty, or a table created since the
                    // tablet's last schema reload (every 30 minutes by default): waiting would
                    // stall the capture that long and then fail it. The primary always knows
                    // the table; its chunks are short reads by key range.
                    tracing::warn!(table = %table, shard = %shard, hint = hint.as_deref().unwrap_or(""),
                        "the {:?} tablet of the shard does not know the table: its chunks are read from the primary from now on",
                        self.snap.tablet_type);
                    self.primary_chunks.insert(key);
                    let st = self.table_mut(&shard, &table);
                    st.retries = 0;
                    st.not_before = None;
                }
            }
        }
        self.emit_ready(&shard, &mut out)?;
        Ok(out)
    }

    /// The chunk's side stream is done; the next chunk starts at `next`.
    pub(super) fn finish_reading(&mut self, shard: &str, table: &str, next: Option<ChunkRange>) {
        let st = self.table_mut(shard, table);
        st.reading = None;
        st.snapshot_due = None;
        st.retries = 0;
        st.next = next;
        self.reading -= 1;
    }

    /// Drops chunk `id` and reads its range again after a growing delay.
    pub(super) fn retry(
        &mut self,
        shard: &str,
        table: &str,
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
        st.reading = None;
        st.snapshot_due = None;
        st.unmerged -= 1;
        st.retries += 1;
        if st.retries > MAX_RETRIES {
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
        let delay = Duration::from_millis(50u64 << st.retries.min(8));
        st.not_before = Some(Instant::now() + delay);
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
