// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Where each shard of a stream starts: a `current` start resolved to the GTID set VTGate
//! reports (a consumer must never store `current`), and the user's specific offsets merged
//! into the plan.

use super::{discover, validate_options, EventStream, CURRENT};
use crate::error::{Error, ErrorCode, Result};
use crate::metrics::Metrics;
use crate::options::{StartMode, StreamOptions};
use crate::position::{parse_specific_offsets, ShardPosition};
use crate::request::{plan, start_positions, Plan};
use std::sync::Arc;
use tracing::Instrument;

impl EventStream {
    /// Shards whose position still says `current` (VTGate has not told their real position yet).
    pub(super) fn unresolved_shards(&self) -> Vec<String> {
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
    pub(super) async fn resolve_current_positions(&mut self) -> Result<()> {
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
