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
//!
//! - this file: the stream, how it opens (discover, plan, first RPC) and what it reports;
//! - `reconnect`: reading responses, the end of an RPC at a reshard, reconnects with backoff;
//! - `start`: where each shard starts (`current` resolved to a real GTID set, the user's
//!   specific offsets);
//! - `key_orders`: whether each selected table's primary-key order is reproduced;
//! - `estimates`: what a stream would copy, with row estimates;
//! - `validate`: the checks made before anything connects.

pub mod request;

mod estimates;
mod key_orders;
mod reconnect;
mod start;
mod validate;

pub use estimates::{copy_estimates, CopyEstimates};
pub use key_orders::selected_key_orders;
pub use reconnect::backoff;
pub use start::plan_start;
pub use validate::validate_options;

use crate::client::{KeyspaceInfo, ReceivedResponse, ServerVersion, VtgateClient};
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::event::Event;
use crate::machine::{Machine, MachineConfig};
use crate::metrics::Metrics;
use crate::options::{StartMode, StreamOptions};
use crate::position::{ShardPosition, StreamPosition};
use crate::request::{build_request, plan, start_positions, Plan};
use std::sync::Arc;
use tracing::Instrument;
use validate::refuse_captures;

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
    /// When the current RPC started: one that stayed up past the longest backoff ended the
    /// outage before it, whatever it delivered (reconnect.rs, `outlasted_the_backoff`).
    rpc_started: Option<std::time::Instant>,
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
            selected: crate::request::SelectedTables::of(&options),
            destructive_ddl: options.destructive_ddl,
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
            rpc_started: None,
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

    pub(super) async fn start_rpc(&mut self) -> Result<()> {
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
        self.rpc_started = Some(std::time::Instant::now());
        Ok(())
    }
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
