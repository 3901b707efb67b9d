// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `vstream positions`: the position every shard reaches from `--start`, as JSON (and in the
//! compact binary form with `--binary-out`).

use crate::args::StreamArgs;
use clap::Args;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{Error, Event, StartMode, StreamOptions};

/// The arguments of `vstream positions`.
#[derive(Args)]
pub struct PositionsArgs {
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Give up waiting for a mark of every shard after this many seconds.
    #[arg(long, default_value_t = 30)]
    pub wait_secs: u64,
    /// Also write the positions in the compact binary form to this file (`--start @file`
    /// reads either form).
    #[arg(long)]
    pub binary_out: Option<String>,
}

/// `vstream positions`.
pub fn run(args: PositionsArgs) -> Result<(), Error> {
    let PositionsArgs {
        stream,
        wait_secs,
        binary_out,
    } = args;
    let opts = stream.to_options(StartMode::Latest)?;
    positions(opts, Duration::from_secs(wait_secs), binary_out.as_deref())
}

fn positions(
    options: StreamOptions,
    wait: Duration,
    binary_out: Option<&str>,
) -> Result<(), Error> {
    let stream = BlockingStream::open(options)?;
    let started = Instant::now();
    let mut marked = std::collections::BTreeSet::new();
    let shards = stream.positions().shards.len();
    while marked.len() < shards {
        if started.elapsed() > wait {
            return Err(Error::retryable(format!(
                "only {} of {shards} shards reported a position within {wait:?}",
                marked.len()
            )));
        }
        for e in stream.poll(Duration::from_millis(500))? {
            if let Event::Mark(p) = e {
                marked.insert((p.keyspace, p.shard));
            }
        }
    }
    let reached = stream.positions();
    stream.close();
    if let Some(path) = binary_out {
        std::fs::write(path, reached.to_bytes()).map_err(|e| {
            Error::config(format!(
                "cannot write the binary positions file '{path}': {e}"
            ))
        })?;
    }
    println!("{}", reached.to_json());
    Ok(())
}
