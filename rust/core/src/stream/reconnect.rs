// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Reading a stream: one response at a time through the machine, the end of an RPC at a
//! reshard journal, and reconnects with exponential backoff and full jitter that resume every
//! shard from its last mark.

use super::EventStream;
use crate::client::ReceivedResponse;
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::event::Event;
use crate::options::{StartMode, StreamOptions};
use crate::proto::binlogdata::VEventType;
use crate::proto::vtgate::VStreamResponse;
use rand::Rng;
use std::time::Duration;

impl EventStream {
    /// The next events. Waits for at least one response (or a reconnect); may return an empty
    /// Vec (e.g. a response of position-less events). Returns `[.., Event::End]` once at the
    /// end of a snapshot-only stream, and empty Vecs after that.
    pub async fn next_events(&mut self) -> Result<Vec<Event>> {
        if !self.pending.is_empty() {
            return Ok(std::mem::take(&mut self.pending));
        }
        if self.ended {
            return Ok(Vec::new());
        }
        if self.grpc.is_none()
            && matches!(self.options.start, StartMode::SnapshotOnly)
            && self.machine.all_copied()
        {
            // Resumed a snapshot whose every shard is already copied.
            self.ended = true;
            return Ok(vec![Event::CopyCompleted, Event::End]);
        }
        loop {
            if self.grpc.is_none() && self.machine.shard_positions().is_empty() {
                // Every shard of this stream ended at a reshard journal: nothing left to read.
                // The consumer opens the new shards in a stream of their own.
                std::future::pending::<()>().await;
            }
            match self.read_one().await {
                Ok(events) => {
                    if self.machine.finished() {
                        self.ended = true;
                        self.grpc = None; // cancels the RPC
                    }
                    return Ok(events);
                }
                Err(e) if e.kind == ErrorKind::Retryable => {
                    self.reconnect(e).await?;
                    if !self.pending.is_empty() {
                        return Ok(std::mem::take(&mut self.pending));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    pub(super) async fn read_one(&mut self) -> Result<Vec<Event>> {
        let Some(grpc) = self.grpc.as_mut() else {
            return Err(Error::retryable("no VStream open"));
        };
        // With VTGate heartbeats on, silence longer than idle_timeout means a dead stream.
        let idle = (self.options.heartbeat_interval_secs > 0).then_some(self.options.idle_timeout);
        let message = match idle {
            Some(limit) => match tokio::time::timeout(limit, grpc.message()).await {
                Ok(m) => m,
                Err(_) => {
                    return Err(Error::retryable(format!(
                        "no event from VTGate for {limit:?} although heartbeats were requested"
                    )))
                }
            },
            None => grpc.message().await,
        };
        let response = match message {
            Ok(Some(r)) => r,
            Ok(None) => {
                if self.options.stop_on_reshard {
                    // The journal (forwarded before EOF) told the consumer the new shards;
                    // positions() now lists them, ready for a new stream.
                    tracing::info!("VTGate ended the stream at a reshard (stop_on_reshard)");
                    self.ended = true;
                    self.grpc = None;
                    return Ok(vec![Event::End]);
                }
                if self.journal_in_this_rpc() {
                    tracing::info!(
                        "VTGate ended the stream at a reshard; resuming the other shards"
                    );
                    self.restart_after_journal().await?;
                    return Ok(Vec::new());
                }
                return Err(Error::retryable(
                    "VTGate ended the stream unexpectedly (EOF)",
                ));
            }
            Err(status) => {
                if self.journal_in_this_rpc() && status.message().to_lowercase().contains("journal")
                {
                    // A merge whose participants are not all in this stream: VTGate forwards the
                    // journal, then refuses to go on ("not all journaling participants are in
                    // the stream"). The shard has ended here; the others go on.
                    tracing::info!(
                        message = status.message(),
                        "VTGate ended the stream at a reshard; resuming the other shards"
                    );
                    self.restart_after_journal().await?;
                    return Ok(Vec::new());
                }
                return Err(self.client.rpc_error(&status, !self.answered_in_rpc));
            }
        };
        self.answered_in_rpc = true;
        let ReceivedResponse {
            response,
            encoded_len,
            events_on_wire,
        } = response;
        self.metrics.record_response(events_on_wire, encoded_len);
        let progressed = self.ends_the_failures(&response);
        let mut out = Vec::new();
        for ev in response.events {
            if let Err(e) = self.machine.handle(ev, &mut out) {
                // What the machine emitted before the failing event is committed in its
                // positions: it must reach the consumer, before anything read after a reconnect.
                self.pending.extend(out);
                return Err(e);
            }
        }
        if progressed {
            self.failures = 0;
            self.last_error = None;
        }
        Ok(out)
    }

    /// Whether a response ends a run of failures (the backoff starts again from the shortest
    /// wait, the attempts from zero): one with something else than heartbeats in it. VTGate
    /// sends heartbeats while it cannot reach a shard's tablet (after a reparent or a reshard),
    /// between the failed attempts. Checked only while failures run: most responses skip it.
    fn ends_the_failures(&self, response: &VStreamResponse) -> bool {
        self.failures > 0
            && response
                .events
                .iter()
                .any(|ev| ev.r#type != VEventType::Heartbeat as i32)
    }

    /// Whether the RPC that just ended had stayed up longer than the longest backoff: a working
    /// stream (on a quiet keyspace: heartbeats only, or nothing), so its end begins a new outage
    /// with the whole retry budget. Otherwise every VTGate restart would add its attempts to the
    /// last one's, and a few restarts minutes apart would spend the budget of one outage.
    fn outlasted_the_backoff(&self) -> bool {
        self.rpc_started
            .is_some_and(|t| t.elapsed() > self.options.retry_max_backoff)
    }

    pub(super) fn journal_in_this_rpc(&self) -> bool {
        !self.options.follow_reshard && self.machine.journals_seen() > self.journals_at_rpc_start
    }

    /// After a shard ended at its journal and VTGate ended the RPC: the remaining shards resume
    /// from their marks at once (no backoff, not a failure).
    pub(super) async fn restart_after_journal(&mut self) -> Result<()> {
        self.grpc = None;
        self.machine.on_reconnect();
        match self.start_rpc().await {
            Ok(()) => Ok(()),
            Err(e) if e.kind == ErrorKind::Retryable => self.reconnect(e).await,
            Err(e) => Err(e),
        }
    }

    pub(super) async fn reconnect(&mut self, cause: Error) -> Result<()> {
        if self.outlasted_the_backoff() {
            self.failures = 0;
            self.last_error = None;
        }
        self.grpc = None;
        self.rpc_started = None;
        self.machine.on_reconnect();
        loop {
            self.failures += 1;
            let latest = self.last_error.as_ref().unwrap_or(&cause);
            if latest.code == ErrorCode::SchemaMismatch && self.failures > SCHEMA_MISMATCH_ATTEMPTS
            {
                let last = self.last_error.take().unwrap_or(cause);
                return Err(Error::config(format!(
                    "{} (the same after {} attempts: the tablet does not track schema versions, or its \
                     schema tracker did not record this change)",
                    last.message, SCHEMA_MISMATCH_ATTEMPTS
                ))
                .with_code(ErrorCode::SchemaMismatch));
            }
            if self.failures > self.options.retry_max_attempts {
                let last = self.last_error.take().unwrap_or(cause);
                return Err(Error::retryable(format!(
                    "gave up after {} reconnect attempts to VTGate at {}: {}",
                    self.options.retry_max_attempts, self.options.address, last.message
                )));
            }
            let delay = backoff(&self.options, self.failures);
            // What the last attempt met, not what began the run of failures: a VTGate that went
            // away answers differently while it is down, starting and serving again.
            tracing::warn!(attempt = self.failures, ?delay, error = %latest.message, "VStream interrupted; reconnecting");
            tokio::time::sleep(delay).await;
            self.metrics.record_reconnect();
            match self.start_rpc().await {
                Ok(()) => {
                    tracing::info!(
                        attempt = self.failures,
                        "VStream resumed from the last marks"
                    );
                    return Ok(());
                }
                Err(e) if e.kind == ErrorKind::Retryable => self.last_error = Some(e),
                Err(e) => return Err(e),
            }
        }
    }
}

/// Attempts a stream makes while the tablet cannot decode rows older than a table's schema:
/// a tablet tracking schema versions catches up within moments of the DDL (a few seconds of
/// backoff, up to about 30 s on a loaded machine); one that does not track them never does, and retrying longer only delays the
/// error that names the fix.
const SCHEMA_MISMATCH_ATTEMPTS: u32 = 8;

/// Exponential backoff with full jitter: uniform in [d/2, d], d = initial·2^(n-1) capped.
pub fn backoff(options: &StreamOptions, attempt: u32) -> Duration {
    let base = options.retry_initial_backoff.max(Duration::from_millis(1));
    let exp = base.saturating_mul(1u32 << attempt.saturating_sub(1).min(20));
    let cap = exp.min(options.retry_max_backoff.max(base));
    let half = cap / 2;
    let jitter = rand::rng().random_range(0..=half.as_millis().max(1) as u64);
    half + Duration::from_millis(jitter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let mut o = StreamOptions::new("x:1", "ks");
        o.retry_initial_backoff = Duration::from_millis(100);
        o.retry_max_backoff = Duration::from_secs(1);
        for attempt in 1..30 {
            let d = backoff(&o, attempt);
            assert!(d <= Duration::from_secs(1), "{attempt}: {d:?}");
        }
        let first = backoff(&o, 1);
        assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
        assert!(backoff(&o, 10) >= Duration::from_millis(500));
    }
}
