// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `vstream signal`: one row in the signal table, through VTGate; the stream that reads it on
//! the shard it lands on relays it to the keyspace's other shards (docs/snapshots.md,
//! "Signals"). With `--shards`, one row straight to each of those shards instead.

use crate::args::StreamArgs;
use crate::runtime;
use clap::{Args, ValueEnum};
use vitess_cdc_core::snapshot::Capture;
use vitess_cdc_core::{Error, StartMode};

/// The arguments of `vstream signal`.
#[derive(Args)]
pub struct SignalArgs {
    #[command(flatten)]
    pub stream: StreamArgs,
    /// What to ask: capture --tables again (the rows matching --where, if given; stop-snapshot
    /// without --tables stops every capture), or pause / resume the captures
    #[arg(value_enum)]
    pub kind: SignalKind,
    /// The signal table
    #[arg(long, default_value = vitess_cdc_core::snapshot::signal::DEFAULT_SIGNAL_TABLE)]
    pub signal_table: String,
    /// The rows' id (unique in the table) [default: vstream-<time>]
    #[arg(long)]
    pub id: Option<String>,
}

/// `vstream signal`.
pub fn run(args: SignalArgs) -> Result<(), Error> {
    let SignalArgs {
        stream,
        kind,
        signal_table,
        id,
    } = args;
    send_signal(&stream, kind, &signal_table, id)
}

/// The signal types, spelled as the signal table's `type` column takes them.
#[derive(Clone, Copy, ValueEnum)]
#[allow(clippy::enum_variant_names)]
pub enum SignalKind {
    ExecuteSnapshot,
    PauseSnapshot,
    ResumeSnapshot,
    StopSnapshot,
}

/// `vstream signal`: the signal's one row (or its row on each of `--shards`); prints one JSON
/// line per row written.
fn send_signal(
    stream: &StreamArgs,
    kind: SignalKind,
    signal_table: &str,
    id: Option<String>,
) -> Result<(), Error> {
    use vitess_cdc_core::snapshot::signal::{insert_statement, shard_row_id, write_signal, Signal};
    let options = stream.to_options(StartMode::Latest)?;
    let signal = match kind {
        SignalKind::ExecuteSnapshot => {
            if options.tables.is_empty() {
                return Err(Error::config(
                    "execute-snapshot needs the tables to capture: --tables TABLE[,TABLE…] (and --where for a key range)",
                ));
            }
            Signal::Execute(
                options
                    .tables
                    .iter()
                    .map(|t| Capture {
                        table: t.clone(),
                        filter: options.row_filter.clone(),
                        shards: Vec::new(),
                    })
                    .collect(),
            )
        }
        SignalKind::PauseSnapshot => Signal::Pause,
        SignalKind::ResumeSnapshot => Signal::Resume,
        SignalKind::StopSnapshot => Signal::Stop(options.tables.clone()),
    };
    let id = id.unwrap_or_else(|| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        format!("vstream-{}", now.as_nanos())
    });
    let rt = runtime()?;
    rt.block_on(async {
        let client = vitess_cdc_core::client::VtgateClient::connect(&options).await?;
        let (kind, data) = signal.to_row();
        let shards = &options.shards;
        if shards.is_empty() {
            let sql = insert_statement(signal_table, &id, &signal);
            client
                .execute_on(&options.keyspace, &sql)
                .await
                .map_err(|e| Error {
                    message: format!(
                        "{} — the signal table must exist in keyspace '{}' (with a vindex when it is sharded): docs/snapshots.md, \"Signals\"",
                        e.message, options.keyspace
                    ),
                    ..e
                })?;
            println!(
                "{}",
                serde_json::json!({"keyspace": options.keyspace, "table": signal_table,
                    "id": id, "type": kind, "data": data})
            );
            return Ok(());
        }
        write_signal(&client, &options.keyspace, signal_table, shards, &id, &signal).await?;
        for shard in shards {
            println!(
                "{}",
                serde_json::json!({"keyspace": options.keyspace, "shard": shard, "table": signal_table,
                    "id": shard_row_id(&id, shard), "type": kind, "data": data})
            );
        }
        Ok(())
    })
}
