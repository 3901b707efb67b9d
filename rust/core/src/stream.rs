// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! One VStream for a keyspace (all or some shards), with reconnects.
//!
//! [`EventStream::open`] connects, discovers the keyspace (shards, tables, primary keys, server
//! version), validates the selection and starts the RPC — so configuration mistakes fail fast,
//! within `connect_timeout`. [`EventStream::next_events`] then reads one response at a time and
//! runs it through the grammar [`Machine`]. Retryable failures (UNAVAILABLE, reset, EOF
//! mid-stream, idle timeout) reconnect with exponential backoff and full jitter, resuming every
//! shard from its last mark: the consumer sees no gap and no repeat.

use crate::client::{KeyspaceInfo, ReceivedResponse, ServerVersion, VtgateClient};
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::event::Event;
use crate::keyorder::{Inexact, TableKeyOrders};
use crate::machine::{Machine, MachineConfig};
use crate::metrics::Metrics;
use crate::options::{StartMode, StreamOptions};
use crate::position::{parse_specific_offsets, ShardPosition, StreamPosition};
use crate::proto::binlogdata::VEventType;
use crate::request::{build_request, plan, start_positions, Plan};
use rand::Rng;
use std::sync::Arc;
use std::time::Duration;
use tracing::Instrument;

/// The GTID a shard starts from when asked to start "now".
const CURRENT: &str = "current";

pub struct EventStream {
    options: StreamOptions,
    client: VtgateClient,
    plan: Plan,
    machine: Machine,
    grpc: Option<tonic::Streaming<ReceivedResponse>>,
    metrics: Arc<Metrics>,
    /// Consecutive failed attempts since the last good response.
    failures: u32,
    last_error: Option<Error>,
    ended: bool,
    /// `machine.journals_seen()` when the current RPC started: a journal since then makes the
    /// RPC's end (VTGate's stop_on_reshard EOF, or its refusal of a merge whose participants are
    /// not all in this stream) the expected end of an ended shard, not a failure.
    journals_at_rpc_start: u64,
    /// Whether the current RPC delivered a response yet: a failure before the first one is
    /// still part of opening (e.g. a TLS port spoken to in plaintext) and gets its hint.
    answered_in_rpc: bool,
    /// Events read while resolving `current` start positions in `open`, handed out first.
    pending: Vec<Event>,
}

impl EventStream {
    /// Connects, validates and starts streaming. Configuration errors (unknown keyspace, table,
    /// shard, table without primary key, bad positions) and an unreachable VTGate fail here.
    pub async fn open(options: StreamOptions) -> Result<EventStream> {
        Self::open_with_metrics(options, Arc::new(Metrics::default())).await
    }

    pub async fn open_with_metrics(
        options: StreamOptions,
        metrics: Arc<Metrics>,
    ) -> Result<EventStream> {
        validate_options(&options)?;
        refuse_captures(&options)?;
        let span = tracing::info_span!("vstream", keyspace = %options.keyspace, address = %options.address);
        async move {
            let (client, server, info) = discover(&options).await?;
            if let Some(v) = server {
                tracing::info!(major = v.major, minor = v.minor, "VTGate version");
                if v.major < 24 {
                    tracing::warn!(
                        "Vitess {}.{} < 24: transaction chunking (transaction_chunk_size) is off",
                        v.major,
                        v.minor
                    );
                }
            }
            let plan = plan(&options, &info, server)?;
            let start = start_positions(&options, &plan)?;
            tracing::info!(shards = ?plan.shards, tables = ?plan.matched_tables, "stream plan");
            Self::start(options, client, plan, start, metrics).await
        }
        .instrument(span)
        .await
    }

    /// Starts the RPC of a planned stream and resolves `current` start positions.
    async fn start(
        options: StreamOptions,
        client: VtgateClient,
        plan: Plan,
        start: Vec<ShardPosition>,
        metrics: Arc<Metrics>,
    ) -> Result<EventStream> {
        let config = MachineConfig {
            allow_tables_without_primary_key: options.allow_tables_without_primary_key,
            transaction_buffer_bytes: (options.buffer_bytes / 2).max(1024 * 1024),
            snapshot_only: matches!(options.start, StartMode::SnapshotOnly),
            follow_reshard: options.follow_reshard,
            narrowed_selection: !options.columns.is_empty(),
        };
        let mut machine = Machine::new(config, start, metrics.clone());
        machine.set_column_collations(
            crate::collations::read(&client, &options.keyspace, &plan.matched_tables).await,
        );
        let mut stream = EventStream {
            options,
            client,
            plan,
            machine,
            grpc: None,
            metrics,
            failures: 0,
            last_error: None,
            ended: false,
            journals_at_rpc_start: 0,
            answered_in_rpc: false,
            pending: Vec::new(),
        };
        match stream.start_rpc().await {
            Ok(()) => {}
            // A restore from before a DDL meets it at once: retried like a mid-stream one, so a
            // tablet that is still storing the new schema version gets its moments, and one that
            // does not track versions ends in the configuration error naming the fix.
            Err(e) if e.code == ErrorCode::SchemaMismatch => stream.reconnect(e).await?,
            Err(e) => return Err(e),
        }
        stream.resolve_current_positions().await?;
        Ok(stream)
    }

    pub fn metrics(&self) -> Arc<Metrics> {
        self.metrics.clone()
    }

    /// Committed positions (as of the last Mark produced).
    pub fn positions(&self) -> StreamPosition {
        self.machine.positions()
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    async fn start_rpc(&mut self) -> Result<()> {
        let mut positions = self.machine.shard_positions();
        if matches!(self.options.start, StartMode::SnapshotOnly) {
            // Shards whose copy is done have nothing left to give a snapshot.
            positions.retain(|p| p.needs_copy());
        }
        self.journals_at_rpc_start = self.machine.journals_seen();
        if positions.is_empty() {
            self.grpc = None;
            return Ok(());
        }
        let request = build_request(&self.options, &self.plan, &positions);
        tracing::debug!(?request, "VStream request");
        let wait = self.options.idle_timeout.max(self.options.connect_timeout);
        self.answered_in_rpc = false;
        self.grpc = Some(self.client.vstream(request, wait).await?);
        Ok(())
    }

    /// Shards whose position still says `current` (VTGate has not told their real position yet).
    fn unresolved_shards(&self) -> Vec<String> {
        self.machine
            .shard_positions()
            .into_iter()
            .filter(|p| p.gtid == CURRENT)
            .map(|p| p.shard)
            .collect()
    }

    /// A shard started from `current` has no position a consumer could store: a checkpoint
    /// taken before its first mark would resume at "now" again and lose everything in between.
    /// VTGate answers a `current` start with `VGTID, OTHER` carrying the shard's actual GTID set
    /// before anything else, so read until no shard says `current`: when `open` returns,
    /// [`EventStream::positions`] holds real GTID sets, and the events read meanwhile (a
    /// [`Event::Mark`] per resolved shard, ahead of its changes) are the first that
    /// [`EventStream::next_events`] hands out. Bounded by `connect_timeout`.
    async fn resolve_current_positions(&mut self) -> Result<()> {
        if self.grpc.is_none() || self.unresolved_shards().is_empty() {
            return Ok(());
        }
        let deadline = tokio::time::Instant::now() + self.options.connect_timeout;
        loop {
            let unresolved = self.unresolved_shards();
            if unresolved.is_empty() {
                tracing::debug!("every 'current' start position resolved to a GTID set");
                return Ok(());
            }
            match tokio::time::timeout_at(deadline, self.read_one()).await {
                Ok(events) => self.pending.extend(events?),
                Err(_) => {
                    return Err(Error::retryable(format!(
                        "VTGate at {} did not report the current position of shard(s) {} of keyspace '{}' \
                         within {:?} (connect_timeout) — is a {} tablet of each shard serving?",
                        self.options.address,
                        unresolved.join(", "),
                        self.options.keyspace,
                        self.options.connect_timeout,
                        format!("{:?}", self.options.tablet_type).to_lowercase(),
                    )))
                }
            }
        }
    }

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

    async fn read_one(&mut self) -> Result<Vec<Event>> {
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
        } = response;
        self.metrics
            .record_response(response.events.len(), encoded_len);
        // VTGate sends heartbeats while it cannot reach a shard's tablet (after a reparent or a
        // reshard), between the failed attempts: only a response with something else in it is
        // progress that ends a run of failures and resets the backoff.
        let progressed = response
            .events
            .iter()
            .any(|ev| ev.r#type != VEventType::Heartbeat as i32);
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

    fn journal_in_this_rpc(&self) -> bool {
        !self.options.follow_reshard && self.machine.journals_seen() > self.journals_at_rpc_start
    }

    /// After a shard ended at its journal and VTGate ended the RPC: the remaining shards resume
    /// from their marks at once (no backoff, not a failure).
    async fn restart_after_journal(&mut self) -> Result<()> {
        self.grpc = None;
        self.machine.on_reconnect();
        match self.start_rpc().await {
            Ok(()) => Ok(()),
            Err(e) if e.kind == ErrorKind::Retryable => self.reconnect(e).await,
            Err(e) => Err(e),
        }
    }

    async fn reconnect(&mut self, cause: Error) -> Result<()> {
        self.grpc = None;
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
            tracing::warn!(attempt = self.failures, ?delay, error = %cause.message, "VStream interrupted; reconnecting");
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

/// Connects and reads what a stream is planned from: the server version and the keyspace's
/// shards and tables. One deadline for all of it: a port that accepts TCP but never speaks gRPC
/// must fail within `connect_timeout`, not once per step.
async fn discover(
    options: &StreamOptions,
) -> Result<(VtgateClient, Option<ServerVersion>, KeyspaceInfo)> {
    let discovery = async {
        let client = VtgateClient::connect(options).await?;
        let version = async {
            match client.server_version().await {
                Ok(v) => Ok(v),
                // Only a refused or empty answer means "version unknown"; a broken connection
                // is the same connection discovery needs, so it fails here, with the hint that
                // fits it (e.g. a TLS port spoken to in plaintext).
                Err(e) if e.kind != ErrorKind::Fatal => Err(e),
                Err(e) => {
                    tracing::warn!(error = %e.message, "could not read the Vitess version; assuming v24");
                    Ok(None)
                }
            }
        };
        // Side by side on the one HTTP/2 connection: each is a round trip through VTGate, and
        // every reader of a job waits for them before its first record. The version's answer
        // is looked at first, as when they ran one after the other.
        let (server, info) = tokio::join!(version, client.describe_keyspace(&options.keyspace));
        Ok((client, server?, info?))
    };
    match tokio::time::timeout(options.connect_timeout, discovery).await {
        Ok(r) => r,
        Err(_) => Err(Error::retryable(format!(
            "VTGate at {} did not answer within {:?} — check that the address is VTGate's gRPC \
             port (not its MySQL or HTTP port) and that VTGate is healthy",
            options.address, options.connect_timeout
        ))
        .with_code(ErrorCode::Unreachable)),
    }
}

/// Where each shard of a stream with `options` would start, without streaming: connect, discover
/// and plan as [`EventStream::open`] does (so the same mistakes fail with the same messages),
/// then the start positions of the start mode, one per shard in the plan's order.
///
/// `specific_offsets` (the user's VGTID JSON, see [`parse_specific_offsets`]) gives one position
/// per shard instead; it must name exactly the shards of the plan, and a shard given gtid
/// `current` starts now.
///
/// A shard starting now (`latest`, or `current` among the offsets) is resolved to its real GTID
/// set before this returns: a consumer that stores a planned position (a Flink split) must never
/// store `current`, which a restore would read as a later "now", losing every change in between.
/// Only VTGate knows that GTID in VStream's form, so for such shards (and only for them) a
/// VStream RPC runs until VTGate reported each one (within `connect_timeout`), then ends; nothing
/// it streams is kept. Plans that need no `current` open no VStream at all.
/// A plain log stream cannot take a chunked snapshot: it would start streaming and silently
/// drop the capture. [`crate::blocking::BlockingStream`] routes such options to
/// [`crate::snapshot::CaptureStream`], which strips its part before opening the log.
fn refuse_captures(options: &StreamOptions) -> Result<()> {
    let chunked_initial = matches!(options.start, StartMode::Initial)
        && options.initial_snapshot == crate::options::InitialSnapshot::Chunked;
    let saved_capture = matches!(&options.start, StartMode::Positions(p) if p.iter().any(|s| !s.snapshots.is_empty()));
    if chunked_initial || saved_capture {
        return Err(Error::config(
            "these options take a chunked snapshot (a chunked initial snapshot, or positions that carry a \
             capture's cursor): open them as a capture stream (snapshot::CaptureStream, or BlockingStream::open)",
        )
        .with_code(ErrorCode::InvalidOption));
    }
    Ok(())
}

pub async fn plan_start(
    options: &StreamOptions,
    specific_offsets: Option<&str>,
) -> Result<Vec<ShardPosition>> {
    validate_options(options)?;
    let span =
        tracing::info_span!("plan_start", keyspace = %options.keyspace, address = %options.address);
    async move {
        let given = specific_offsets
            .map(|text| parse_specific_offsets(&options.keyspace, text))
            .transpose()?;
        let mut options = options.clone();
        if given.is_some() {
            // The offsets decide where each shard starts; a shard at `current` starts now.
            options.start = StartMode::Latest;
        }
        let (client, server, info) = discover(&options).await?;
        let plan = plan(&options, &info, server)?;
        if plan.shards.is_empty() {
            // Retryable: a keyspace whose tablets are still coming up has no serving shard yet.
            return Err(Error::retryable(format!(
                "VTGate at {} reports no shard for keyspace '{}'",
                options.address, options.keyspace
            ))
            .with_code(ErrorCode::UnknownShard));
        }
        client
            .check_columns(&options.keyspace, &options.tables, &options.columns)
            .await?;
        let mut start = start_positions(&options, &plan)?;
        if let Some(given) = given {
            start = merge_specific_offsets(&options, &plan, start, given)?;
        }
        let now: Vec<ShardPosition> = start
            .iter()
            .filter(|p| p.gtid == CURRENT)
            .map(|p| ShardPosition {
                snapshots: Vec::new(),
                ..p.clone()
            })
            .collect();
        if now.is_empty() {
            return Ok(start);
        }
        let mut resolver = options.clone();
        resolver.shards = now.iter().map(|p| p.shard.clone()).collect();
        resolver.start = StartMode::Positions(now.clone());
        let mut resolver_plan = plan.clone();
        resolver_plan.shards = resolver.shards.clone();
        let resolved = EventStream::start(
            resolver,
            client,
            resolver_plan,
            now,
            Arc::new(Metrics::default()),
        )
        .await?
        .positions();
        for p in start.iter_mut().filter(|p| p.gtid == CURRENT) {
            match resolved.get(&p.keyspace, &p.shard) {
                Some(r) if r.gtid != CURRENT => {
                    // A chunked initial snapshot's cursors stay: they are this plan's, not the log's.
                    let snapshots = std::mem::take(&mut p.snapshots);
                    *p = ShardPosition {
                        snapshots,
                        ..r.clone()
                    };
                }
                _ => {
                    return Err(Error::fatal(format!(
                        "shard {}/{} is still at gtid 'current' after VTGate reported the current positions",
                        p.keyspace, p.shard
                    )))
                }
            }
        }
        Ok(start)
    }
    .instrument(span)
    .await
}

/// The user's specific offsets in place of the planned start positions: exactly one per planned
/// shard; `current` takes the planned "now" position. The given positions are checked like saved
/// positions at open (keyspace, copy progress), so a bad one fails here, before any split exists.
fn merge_specific_offsets(
    options: &StreamOptions,
    plan: &Plan,
    planned: Vec<ShardPosition>,
    given: Vec<ShardPosition>,
) -> Result<Vec<ShardPosition>> {
    let missing: Vec<&str> = plan
        .shards
        .iter()
        .filter(|s| !given.iter().any(|p| &p.shard == *s))
        .map(String::as_str)
        .collect();
    let unknown: Vec<&str> = given
        .iter()
        .filter(|p| !plan.shards.contains(&p.shard))
        .map(|p| p.shard.as_str())
        .collect();
    if !missing.is_empty() || !unknown.is_empty() {
        return Err(Error::config(format!(
            "the specific offsets must give exactly one position per shard of keyspace '{}' [{}]{}{} — use gtid \
             \"current\" for a shard to start it now, or \"\" to copy it first",
            options.keyspace,
            plan.shards.join(", "),
            if missing.is_empty() {
                String::new()
            } else {
                format!("; missing: [{}]", missing.join(", "))
            },
            if unknown.is_empty() {
                String::new()
            } else {
                format!("; unknown shards: [{}]", unknown.join(", "))
            },
        ))
        .with_code(ErrorCode::InvalidPosition));
    }
    let saved: Vec<ShardPosition> = given
        .iter()
        .filter(|p| p.gtid != CURRENT)
        .cloned()
        .collect();
    if !saved.is_empty() {
        let mut check = options.clone();
        check.start = StartMode::Positions(saved);
        start_positions(&check, plan)?;
    }
    Ok(planned
        .into_iter()
        .map(|now| {
            let p = given
                .iter()
                .find(|p| p.shard == now.shard)
                .expect("every planned shard is given");
            if p.gtid == CURRENT {
                now
            } else {
                p.clone()
            }
        })
        .collect())
}

/// Whether the core reproduces the primary-key order of each table a stream with `options` would
/// select (see [`crate::keyorder`]), without opening a VStream: connect, discover and plan as
/// [`EventStream::open`] does (so the same mistakes fail with the same messages), read the key
/// columns from `information_schema`, and close. A consumer declares a table's changelog from it
/// before streaming: exact tables give an exact retract changelog even while a copy resumes, the
/// others an upsert changelog. A selected table without primary key (allowed by
/// `allow_tables_without_primary_key`) is reported as [`Inexact`] with an empty column.
pub async fn selected_key_orders(options: &StreamOptions) -> Result<TableKeyOrders> {
    validate_options(options)?;
    let span =
        tracing::info_span!("key_orders", keyspace = %options.keyspace, address = %options.address);
    async move {
        let (client, server, info) = discover(options).await?;
        let plan = plan(options, &info, server)?;
        let mut orders = match tokio::time::timeout(
            options.connect_timeout,
            client.key_orders(&options.keyspace),
        )
        .await
        {
            Ok(r) => r?,
            Err(_) => {
                return Err(Error::retryable(format!(
                    "VTGate at {} did not answer the primary-key query within {:?}",
                    options.address, options.connect_timeout
                ))
                .with_code(ErrorCode::Unreachable))
            }
        };
        let selected = plan
            .matched_tables
            .into_iter()
            .map(|table| {
                let order = orders.remove(&table).unwrap_or_else(|| {
                    Err(Inexact {
                        column: String::new(),
                        reason: "the table has no primary key, so no change can be placed relative to the copy position"
                            .to_string(),
                    })
                });
                (table, order)
            })
            .collect::<TableKeyOrders>();
        let inexact = selected.values().filter(|o| o.is_err()).count();
        tracing::info!(tables = selected.len(), inexact, "primary-key orders read");
        Ok(selected)
    }
    .instrument(span)
    .await
}

/// What a stream with `options` would copy, with row estimates: the selected tables (sorted,
/// the copy's order) and, for every planned shard, each selected table's estimated row count
/// ([`VtgateClient::table_rows`]). Connects, discovers and plans as [`EventStream::open`] does,
/// asks each shard, and closes; opens no VStream. For progress metrics only: the counts are
/// MySQL's table statistics, not exact.
pub async fn copy_estimates(options: &StreamOptions) -> Result<CopyEstimates> {
    validate_options(options)?;
    let span = tracing::info_span!("copy_estimates", keyspace = %options.keyspace, address = %options.address);
    async move {
        let (client, server, info) = discover(options).await?;
        let plan = plan(options, &info, server)?;
        // One statistics query per shard, all in flight at once: a reader of 32 shards would
        // otherwise wait 32 round trips.
        let per_shard = plan.shards.iter().map(|shard| {
            let client = &client;
            async move {
                match tokio::time::timeout(
                    options.connect_timeout,
                    client.table_rows(&options.keyspace, shard),
                )
                .await
                {
                    Ok(rows) => rows.map(|rows| (shard, rows)),
                    Err(_) => Err(Error::retryable(format!(
                        "VTGate at {} did not answer the table statistics query of shard {}/{shard} within {:?}",
                        options.address, options.keyspace, options.connect_timeout
                    ))
                    .with_code(ErrorCode::Unreachable)),
                }
            }
        });
        let mut shards = std::collections::BTreeMap::new();
        for (shard, rows) in futures::future::try_join_all(per_shard).await? {
            let selected: crate::client::TableRowEstimates = plan
                .matched_tables
                .iter()
                .map(|t| (t.clone(), rows.get(t).copied().flatten()))
                .collect();
            shards.insert(shard.clone(), selected);
        }
        Ok(CopyEstimates {
            tables: plan.matched_tables,
            shards,
        })
    }
    .instrument(span)
    .await
}

/// The answer of [`copy_estimates`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CopyEstimates {
    /// Tables the stream selects, sorted by name.
    pub tables: Vec<String>,
    /// Per planned shard: each selected table's estimated rows (`None`: no statistics).
    pub shards: std::collections::BTreeMap<String, crate::client::TableRowEstimates>,
}

/// Checks the options before anything connects: every mistake is an [`ErrorCode::InvalidOption`].
/// Checks options without a server: the checks every stream, plan and read makes first, public
/// so a caller can fail early (the SQL connector at planning).
pub fn validate_options(o: &StreamOptions) -> Result<()> {
    check_options(o).map_err(|e| e.or_code(ErrorCode::InvalidOption))
}

fn check_options(o: &StreamOptions) -> Result<()> {
    if o.keyspace.trim().is_empty() {
        return Err(Error::config(
            "keyspace is empty — name the Vitess keyspace to stream",
        ));
    }
    if o.keyspace.starts_with('/') {
        return Err(Error::config(
            "keyspace regexes are not supported — name one keyspace",
        ));
    }
    if o.connect_timeout.is_zero() {
        return Err(Error::config(
            "connect_timeout (SQL 'connect.timeout') must be greater than zero: give VTGate a few seconds, \
             e.g. 10 s",
        ));
    }
    if o.max_message_bytes < 4 * 1024 * 1024 {
        return Err(Error::config(
            "max_message_bytes (SQL 'grpc.max-message-size') must be at least 4 MiB: VTGate sends messages up to \
             its --grpc-max-message-size (16 MiB by default); set it to that size or more",
        ));
    }
    if o.buffer_bytes < 1024 * 1024 {
        return Err(Error::config(
            "buffer_bytes (SQL 'buffer.size') must be at least 1 MiB: it holds the decoded events between \
             gRPC and the consumer; keep the default 16 MiB or set 1 MiB or more",
        ));
    }
    if o.retry_initial_backoff > o.retry_max_backoff {
        return Err(Error::config(
            "retry_initial_backoff (SQL 'retry.initial-backoff') must not exceed retry_max_backoff \
             ('retry.max-backoff'): lower the first or raise the second",
        ));
    }
    if o.heartbeat_interval_secs > 0
        && o.idle_timeout <= Duration::from_secs(o.heartbeat_interval_secs as u64)
    {
        return Err(Error::config(
            "idle_timeout (SQL 'stream.idle-timeout') must be longer than the heartbeat interval \
             ('heartbeat.interval'), or every quiet stream would count as dead: raise it or shorten the heartbeat",
        ));
    }
    Ok(())
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

    #[test]
    fn options_are_validated() {
        let mut o = StreamOptions::new("x:1", "");
        assert!(validate_options(&o).is_err());
        o.keyspace = "ks".into();
        assert!(validate_options(&o).is_ok());
        o.max_message_bytes = 1024;
        assert!(validate_options(&o).unwrap_err().message.contains("4 MiB"));
    }
}
