// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `vstream`: tail a Vitess keyspace as JSON lines, snapshot it, or print resumable positions.
//! Every option maps 1:1 to a field of `vitess_cdc_core::StreamOptions`.
//!
//! One module per subcommand (`tail`, `snapshot`, `signal`, `positions`), each with its
//! arguments; `args` holds the options they share, `capture` the log with chunked snapshots
//! beside it (`tail --resnapshot`, `snapshot --chunked`), `stop` when a printing run ends,
//! `printed` the positions it reports, `state` where it keeps them (`--state`) and `progress`
//! the copy's progress on stderr.

mod args;
mod capture;
mod json;
#[cfg(test)]
mod options_doc;
mod positions;
mod printed;
mod progress;
mod signal;
mod snapshot;
mod state;
mod stop;
mod tail;

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use vitess_cdc_core::{Error, ErrorKind};

#[derive(Parser)]
#[command(
    name = "vstream",
    version,
    about = "Stream changes of a Vitess keyspace (VStream) as JSON lines"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print one JSON line per row change (copy phase first unless --start says otherwise).
    Tail(tail::TailArgs),
    /// Copy the selected tables (consistent snapshot), print the rows, then exit.
    Snapshot(snapshot::SnapshotArgs),
    /// Send a signal to the streams reading the keyspace: one row in the signal table, which the
    /// stream of the shard it lands on relays to the others (--shards: a row straight to each of
    /// those instead) [docs/snapshots.md]
    Signal(signal::SignalArgs),
    /// Print the positions every shard reaches from --start (default: latest), as JSON, then exit.
    Positions(positions::PositionsArgs),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VSTREAM_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", e.full_message());
            ExitCode::from(if e.kind == ErrorKind::Config { 2 } else { 1 })
        }
    }
}

fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Tail(args) => tail::run(args),
        Command::Snapshot(args) => snapshot::run(args),
        Command::Signal(args) => signal::run(args),
        Command::Positions(args) => positions::run(args),
    }
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::fatal(format!("cannot start the async runtime: {e}")))
}
