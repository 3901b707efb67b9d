// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `vstream tail`: every row change as a JSON line, copy phase first unless `--start` says
//! otherwise; with `--resnapshot` (or saved capture positions) the log with chunked snapshots
//! beside it.

use crate::args::{ChunkArgs, StreamArgs};
use crate::capture::capture;
use crate::json;
use crate::printed::PrintedPositions;
use crate::progress::CopyProgress;
use crate::state::StateFile;
use crate::stop::{install_signal_handler, Limits, ProgressArg, STOP};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::{BlockingStream, KeyspacePart};
use vitess_cdc_core::snapshot::Capture;
use vitess_cdc_core::stream::CopyEstimates;
use vitess_cdc_core::{Error, Event, SnapshotOptions, StartMode, StreamOptions};

/// The arguments of `vstream tail`.
#[derive(Args)]
pub struct TailArgs {
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Also print a {"op":"mark"} line with the resumable position after every commit.
    #[arg(long)]
    pub positions: bool,
    /// Also print {"op":"schema"} lines when a table's shape is (re)announced.
    #[arg(long)]
    pub schemas: bool,
    /// Exit after this many row changes (an update counts once).
    #[arg(long)]
    pub max_changes: Option<u64>,
    /// Exit after this many seconds without a row change.
    #[arg(long)]
    pub idle_exit_secs: Option<u64>,
    /// Exit after this many seconds in total (after the batch being printed; SIGINT/SIGTERM
    /// stop the same way). The final position goes to stderr.
    #[arg(long)]
    pub duration: Option<u64>,
    /// Capture TABLE (or the rows of TABLE matching WHERE) in chunks beside the log, while
    /// every change keeps streaming; repeatable. Its rows print as {"op":"read"}. Needs
    /// --start latest or saved positions (which also resume a capture) [docs/snapshots.md]
    #[arg(long = "resnapshot", value_name = "TABLE[:WHERE]")]
    pub resnapshot: Vec<String>,
    #[command(flatten)]
    pub chunks: ChunkArgs,
    /// Keep the position in FILE: saved as lines are printed (atomically, about once a second
    /// and at exit) and resumed from when FILE exists, --start then ignored; a restartable pipe
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// The copy's progress on stderr: auto (a bar on a terminal, a line every 5 s when piped),
    /// lines, off
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: ProgressArg,
}

/// `vstream tail`.
pub fn run(args: TailArgs) -> Result<(), Error> {
    let TailArgs {
        stream,
        positions,
        schemas,
        max_changes,
        idle_exit_secs,
        duration,
        resnapshot,
        chunks,
        state,
        progress,
    } = args;
    let mut opts = stream.options(StartMode::Initial)?;
    let state = match state {
        None => None,
        Some(path) => {
            let mut file = StateFile::new(&path);
            if let Some(start) = file.start()? {
                eprintln!(
                    "vstream: resuming from the position in {} (--start ignored)",
                    path.display()
                );
                opts.start = start;
            }
            Some(file)
        }
    };
    let printer = json::Printer {
        marks: positions,
        schemas,
    };
    let limits = Limits {
        state,
        progress,
        max_changes,
        idle_exit: idle_exit_secs.map(Duration::from_secs),
        duration: duration.map(Duration::from_secs),
        report_position: true,
    };
    let resumes_capture =
        matches!(&opts.start, StartMode::Positions(p) if p.iter().any(|s| !s.snapshots.is_empty()));
    let mut keyspaces = stream.split_keyspaces(&opts)?;
    if keyspaces.len() > 1 {
        if !resnapshot.is_empty() || resumes_capture || chunks.signal_table.is_some() {
            return Err(Error::config(
                "--resnapshot and --signal-table read one keyspace: run vstream tail once per keyspace for them",
            ));
        }
        return tail(keyspaces, printer, limits);
    }
    let opts = keyspaces.remove(0);
    if !resnapshot.is_empty() || resumes_capture || chunks.signal_table.is_some() {
        let captures = resnapshot
            .iter()
            .map(|c| Capture::parse(c))
            .collect::<Result<Vec<_>, _>>()?;
        return capture(opts, captures, chunks.to_options(), printer, limits, false);
    }
    tail(vec![opts], printer, limits)
}

/// The copy's display; without estimates (VTGate refused the statistics query) the copy just
/// runs without it.
fn copy_progress(keyspaces: &[StreamOptions], progress: ProgressArg) -> Option<CopyProgress> {
    match all_copy_estimates(keyspaces) {
        Ok(estimates) => Some(CopyProgress::new(
            &estimates,
            progress == ProgressArg::Auto && CopyProgress::stderr_is_terminal(),
        )),
        Err(e) => {
            tracing::warn!("no copy progress: the row estimates could not be read ({e})");
            None
        }
    }
}

/// The copy estimates of every keyspace; with several, tables are `keyspace.table` and shards
/// `keyspace/shard`.
fn all_copy_estimates(keyspaces: &[StreamOptions]) -> Result<CopyEstimates, Error> {
    if let [one] = keyspaces {
        return vitess_cdc_core::blocking::copy_estimates(one);
    }
    let mut all = CopyEstimates {
        tables: Vec::new(),
        shards: Default::default(),
    };
    for options in keyspaces {
        let k = &options.keyspace;
        let estimates = vitess_cdc_core::blocking::copy_estimates(options)?;
        all.tables
            .extend(estimates.tables.iter().map(|t| format!("{k}.{t}")));
        for (shard, tables) in estimates.shards {
            all.shards.insert(format!("{k}/{shard}"), tables);
        }
    }
    Ok(all)
}

/// The stream's events printed as JSON lines until a limit, the end of a snapshot, a reshard
/// (with `--stop-on-reshard`) or SIGINT/SIGTERM; the final position goes to stderr. One
/// keyspace, or several read side by side.
pub fn tail(
    keyspaces: Vec<StreamOptions>,
    printer: json::Printer,
    mut limits: Limits,
) -> Result<(), Error> {
    if limits.report_position {
        install_signal_handler();
    }
    let started = Instant::now();
    // After the open: a VTGate that cannot be reached or a selection it refuses fails there,
    // once, before the estimates would ask it again.
    let copies = matches!(
        keyspaces[0].start,
        StartMode::Initial | StartMode::SnapshotOnly
    );
    let progress_options =
        (copies && limits.progress != ProgressArg::Off).then(|| keyspaces.clone());
    let parts = keyspaces
        .into_iter()
        .map(|options| KeyspacePart {
            options,
            captures: Vec::new(),
        })
        .collect();
    let stream = BlockingStream::open_keyspaces(parts, SnapshotOptions::default())?;
    let mut progress = progress_options.and_then(|o| copy_progress(&o, limits.progress));
    let mut printed = PrintedPositions::new(stream.positions());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut changes = 0u64;
    let mut last_change = Instant::now();
    let mut pending_before = None;
    // With --stop-on-reshard the stream's End follows a reshard journal, not a snapshot.
    let mut journal_seen = false;
    let stop_reason = 'outer: loop {
        if STOP.load(Ordering::SeqCst) {
            break "interrupted";
        }
        let events = stream.poll(Duration::from_millis(200))?;
        let mut ended = false;
        for (i, event) in events.iter().enumerate() {
            if matches!(event, Event::Change(_)) {
                last_change = Instant::now();
            }
            ended |= matches!(event, Event::End);
            journal_seen |= matches!(event, Event::Journal { .. });
            if let Some(line) = printer.line(event, &mut pending_before, &mut changes) {
                if writeln!(out, "{line}").is_err() {
                    stream.close();
                    return Ok(()); // stdout closed (e.g. piped into `head`)
                }
            }
            printed.apply(event);
            if limits.max_changes.is_some_and(|m| changes >= m) {
                printed.apply_commit_after(&events[i + 1..]);
                break 'outer "max changes reached";
            }
        }
        if out.flush().is_err() {
            stream.close();
            return Ok(());
        }
        if let Some(p) = progress.as_mut() {
            p.observe(&events);
        }
        limits.keep_position(&printed, false)?;
        if ended {
            break if journal_seen {
                "reshard journal reached (--stop-on-reshard); resume on the new shards from the journal's positions"
            } else {
                "end of snapshot"
            };
        }
        if limits.idle_exit.is_some_and(|d| last_change.elapsed() >= d) {
            break "idle";
        }
        if limits.duration.is_some_and(|d| started.elapsed() >= d) {
            break "duration reached";
        }
    };
    let _ = out.flush();
    drop(out);
    stream.close();
    limits.keep_position(&printed, true)?;
    if limits.report_position {
        eprintln!(
            "vstream: stopped ({stop_reason}) after {changes} changes; final position (resume with --start):\n{}",
            printed.to_json()
        );
    }
    Ok(())
}
