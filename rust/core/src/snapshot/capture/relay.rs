// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! One signal, every shard: a signal written once (one INSERT through VTGate) lands on the one
//! shard its row's vindex picks; the stream that reads it there writes it to every other shard
//! the keyspace serves, as that shard's own row ([`shard_row_id`]), before it hands out anything
//! after the signal. Each shard then acts on it at its own position in its own log, as if it had
//! been written there.
//!
//! Why before: a checkpoint past the signal must imply the relays are written — a restart from
//! it does not read the signal again. A restart from before it relays again; `INSERT IGNORE`
//! finds the rows there and writes nothing, so each shard's log carries the signal once. Every
//! source of a job that reads the signal's shard relays it; the first write wins the same way.

use super::signals::SignalRow;
use super::CaptureStream;
use crate::error::{Error, Result};
use crate::snapshot::signal::{is_shard_row, relay_statement, shard_row_id, Signal};
use std::future::Future;
use std::time::{Duration, Instant};

/// How long a relay keeps retrying a refusal that passes (a VTGate restarting, a shard being
/// reparented) before the stream fails as retryable, to relay again after the restart.
const RELAY_PATIENCE: Duration = Duration::from_secs(60);

/// A signal to write to the keyspace's other shards before it takes effect.
pub(super) struct Relay {
    /// The shard it was written to.
    shard: String,
    id: String,
    signal: Signal,
}

impl CaptureStream {
    /// The relay `row` needs before it takes effect: a valid signal written once (its id does not
    /// name its shard) that this stream has not relayed yet.
    pub(super) fn relay_due(&self, row: &SignalRow) -> Option<Relay> {
        let Ok(signal) = &row.signal else {
            return None;
        };
        let written_once = !matches!(signal, Signal::Ignored)
            && !is_shard_row(&row.id, &row.shard)
            && self.shards.contains_key(&row.shard);
        let done = self
            .relayed
            .as_ref()
            .is_some_and(|(shard, id)| *shard == row.shard && *id == row.id);
        (written_once && !done).then(|| Relay {
            shard: row.shard.clone(),
            id: row.id.clone(),
            signal: signal.clone(),
        })
    }

    /// Writes the signal to every shard the keyspace serves but its own. A shard that refuses
    /// for good (no INSERT privilege, the table missing there) is reported and left out: failing
    /// would fail every restart at the same signal, which stays in the log.
    pub(super) async fn relay(&mut self, relay: &Relay) -> Result<()> {
        let keyspace = self.options.keyspace.clone();
        let table = self
            .snap
            .signal_table
            .clone()
            .expect("signals are read only with a signal table");
        let shards = patiently(|| self.client.serving_shards(&keyspace)).await?;
        if self.signal_id_chars.is_none() {
            let chars = patiently(|| self.client.column_max_chars(&keyspace, &table, "id")).await?;
            self.signal_id_chars = Some(chars);
        }
        let capacity = self.signal_id_chars.flatten();
        let mut reached = Vec::new();
        for shard in shards.iter().filter(|s| **s != relay.shard) {
            let row_id = shard_row_id(&relay.id, shard);
            if let Some(cap) = capacity.filter(|cap| row_id.chars().count() as u64 > *cap) {
                // MySQL would cut the id (the relay's INSERT IGNORE turns "too long" into a
                // warning), and the cut row, no longer naming its shard, would pass for a signal
                // written there: relayed back, acted on twice (found by the cluster scenarios).
                tracing::warn!(
                    signal = %relay.id,
                    shard = %shard,
                    "signal '{}' does not reach shard {shard}: its row id there, '{row_id}', is longer than the {cap} \
                     characters `{table}`.`id` holds — widen the column (e.g. VARCHAR(255)) or use signal ids of at most \
                     {} characters, or write the signal on each shard (docs/snapshots.md, \"Signals\")",
                    relay.id,
                    cap.saturating_sub(shard.len() as u64 + 1),
                );
                continue;
            }
            let sql = relay_statement(&table, &row_id, &relay.signal);
            let target = format!("{keyspace}:{shard}");
            match patiently(|| self.client.execute_on(&target, &sql)).await {
                Ok(_) => reached.push(shard.as_str()),
                Err(e) if e.is_retryable() => {
                    return Err(Error::retryable(format!(
                        "signal '{}' could not be relayed to shard {shard} within {}s: {} — the stream \
                         restarts from its last checkpoint and relays it again",
                        relay.id,
                        RELAY_PATIENCE.as_secs(),
                        e.message
                    ))
                    .with_source(e));
                }
                Err(e) => tracing::warn!(
                    signal = %relay.id,
                    shard = %shard,
                    "signal '{}' does not reach shard {shard}: writing it there failed: {} — grant the \
                     connector's user INSERT on `{table}`, or write the signal on each shard (docs/snapshots.md, \
                     \"Signals\")",
                    relay.id,
                    e.message
                ),
            }
        }
        tracing::info!(signal = %relay.id, from = %relay.shard, to = ?reached, "signal relayed to the keyspace's other shards");
        self.relayed = Some((relay.shard.clone(), relay.id.clone()));
        Ok(())
    }
}

/// `call`, again while it fails with a refusal that passes, for up to [`RELAY_PATIENCE`].
async fn patiently<T, F, Fut>(mut call: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let started = Instant::now();
    let mut pause = Duration::from_millis(100);
    loop {
        match call().await {
            Err(e) if e.is_retryable() && started.elapsed() + pause < RELAY_PATIENCE => {
                tracing::debug!(error = %e.message, "retrying a signal's relay");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(2));
            }
            result => return result,
        }
    }
}
