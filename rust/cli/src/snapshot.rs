// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `vstream snapshot`: copy the selected tables (a consistent snapshot), print the rows, exit;
//! with `--chunked`, read them in chunks beside a log stream started now.

use crate::args::{ChunkArgs, StreamArgs};
use crate::capture::capture;
use crate::json;
use crate::runtime;
use crate::stop::{Limits, ProgressArg};
use crate::tail::tail;
use clap::Args;
use vitess_cdc_core::snapshot::Capture;
use vitess_cdc_core::{Error, StartMode, StreamOptions};

/// The arguments of `vstream snapshot`.
#[derive(Args)]
pub struct SnapshotArgs {
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Also print {"op":"mark"} lines.
    #[arg(long)]
    pub positions: bool,
    /// Read the tables in chunks beside a log stream started now (instead of VStream's
    /// copy, one table after another): prints the rows ({"op":"read"}) and the changes
    /// made meanwhile, then exits when every chunk is merged [docs/snapshots.md]
    #[arg(long)]
    pub chunked: bool,
    #[command(flatten)]
    pub chunks: ChunkArgs,
    /// The copy's progress on stderr: auto (a bar on a terminal, a line every 5 s when piped),
    /// lines, off
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: ProgressArg,
}

/// `vstream snapshot`.
pub fn run(args: SnapshotArgs) -> Result<(), Error> {
    let SnapshotArgs {
        stream,
        positions,
        chunked,
        chunks,
        progress,
    } = args;
    if chunked {
        let mut opts = stream.to_options(StartMode::Latest)?;
        if stream.start.is_none() {
            opts.start = StartMode::Latest;
        }
        let captures = chunked_tables(&opts)?;
        return capture(
            opts,
            captures,
            chunks.to_options(),
            json::Printer {
                marks: positions,
                schemas: false,
            },
            Limits {
                report_position: true,
                ..Limits::default()
            },
            true,
        );
    }
    let mut opts = stream.options(StartMode::SnapshotOnly)?;
    if stream.start.is_none() || opts.start == StartMode::Initial {
        opts.start = StartMode::SnapshotOnly;
    }
    tail(
        stream.split_keyspaces(&opts)?,
        json::Printer {
            marks: positions,
            schemas: false,
        },
        Limits {
            progress,
            ..Limits::default()
        },
    )
}

/// The tables `snapshot --chunked` captures: those the options select.
fn chunked_tables(options: &StreamOptions) -> Result<Vec<Capture>, Error> {
    let rt = runtime()?;
    let estimates = rt.block_on(vitess_cdc_core::stream::copy_estimates(options))?;
    Ok(estimates
        .tables
        .into_iter()
        .map(|table| Capture {
            table,
            filter: None,
            shards: Vec::new(),
        })
        .collect())
}
