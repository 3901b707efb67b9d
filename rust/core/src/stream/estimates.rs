// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! What a stream would copy, with each table's estimated rows per shard (MySQL's statistics,
//! for progress metrics), read without opening a VStream.

use super::{discover, validate_options};
use crate::error::{Error, ErrorCode, Result};
use crate::options::StreamOptions;
use crate::request::plan;
use tracing::Instrument;

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
