// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Whether the core reproduces the primary-key order of each table a stream would select (the
//! base of an exact retract changelog), read without opening a VStream.

use super::{discover, validate_options};
use crate::error::{Error, ErrorCode, Result};
use crate::keyorder::{Inexact, TableKeyOrders};
use crate::options::StreamOptions;
use crate::request::plan;
use tracing::Instrument;

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
        // A consumer that plans by key orders (the SQL connector, at planning) learns here too
        // that a declared column is not in the table, instead of when the job starts.
        client
            .check_columns(&options.keyspace, &options.tables, &options.columns)
            .await?;
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
