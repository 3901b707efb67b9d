// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The log with chunked snapshots beside it (`tail --resnapshot`, `snapshot --chunked`): rows and
//! changes as JSON lines, progress on stderr every few seconds and at the end.

use crate::json;
use crate::printed::PrintedPositions;
use crate::runtime;
use crate::stop::{install_signal_handler, Limits, STOP};
use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use vitess_cdc_core::snapshot::{Capture, CaptureStream};
use vitess_cdc_core::SnapshotOptions;
use vitess_cdc_core::{Error, Event, StreamOptions};

/// `tail --resnapshot` and `snapshot --chunked`: the log with chunked snapshots beside it.
/// Progress goes to stderr every few seconds and at the end.
pub fn capture(
    options: StreamOptions,
    captures: Vec<Capture>,
    snap: SnapshotOptions,
    printer: json::Printer,
    mut limits: Limits,
    exit_when_captured: bool,
) -> Result<(), Error> {
    install_signal_handler();
    let rt = runtime()?;
    let started = Instant::now();
    let mut stream = rt.block_on(CaptureStream::open(options, captures, snap))?;
    let mut printed = PrintedPositions::new(stream.positions());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut changes = 0u64;
    let mut last_change = Instant::now();
    let mut last_report = Instant::now();
    let mut pending_before = None;
    let mut captured_after = None;
    let report = |stream: &CaptureStream, what: &str| {
        let t = stream.progress().total();
        eprintln!(
            "vstream: {what}: {} of ~{} chunks, {} rows captured, {} table-shards remaining, {} chunks discarded, {} failed, \
             {:.1} s held back by the tablet throttler{} ({:.1} s)",
            t.chunks_done, t.chunks_planned, t.rows, t.tables_remaining, t.chunks_discarded, t.chunks_failed,
            t.throttled_ms as f64 / 1000.0,
            if t.throttled { ", held now" } else { "" },
            started.elapsed().as_secs_f64()
        );
    };
    let stop_reason = 'outer: loop {
        if STOP.load(Ordering::SeqCst) {
            break "interrupted";
        }
        let events = match rt.block_on(async {
            tokio::time::timeout(Duration::from_millis(200), stream.next_events()).await
        }) {
            Ok(events) => events?,
            Err(_) => Vec::new(),
        };
        for (i, event) in events.iter().enumerate() {
            if matches!(event, Event::Change(_)) {
                last_change = Instant::now();
            }
            if let Some(line) = printer.line(event, &mut pending_before, &mut changes) {
                if writeln!(out, "{line}").is_err() {
                    return Ok(());
                }
            }
            printed.apply(event);
            if limits.max_changes.is_some_and(|m| changes >= m) {
                printed.apply_commit_after(&events[i + 1..]);
                break 'outer "max changes reached";
            }
        }
        if out.flush().is_err() {
            return Ok(());
        }
        limits.keep_position(&printed, false)?;
        if let Some(Event::Journal { shard, started, .. }) =
            events.iter().find(|e| matches!(e, Event::Journal { .. }))
        {
            // The core ends the shard with its captures' cursors in its final mark; following
            // the new shards with them is the Flink source's (its enumerator carries them over).
            limits.keep_position(&printed, true)?;
            return Err(Error::fatal(format!(
                "shard {}/{} was resharded during a chunked snapshot (new shards: {}) — the CLI does not follow \
                 a reshard with captures: start the capture again on the new shards (the Flink source goes on \
                 by itself)",
                shard.0,
                shard.1,
                started
                    .iter()
                    .map(|p| p.shard.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        if captured_after.is_none() && stream.capture_done() {
            captured_after = Some(started.elapsed());
            report(&stream, "capture done");
            if exit_when_captured {
                break "capture done";
            }
        } else if captured_after.is_some() && !stream.capture_done() {
            // A signal started another capture.
            captured_after = None;
        }
        if last_report.elapsed() >= Duration::from_secs(5) && captured_after.is_none() {
            report(&stream, "capturing");
            last_report = Instant::now();
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
    if captured_after.is_none() {
        report(&stream, "stopped while capturing");
    }
    limits.keep_position(&printed, true)?;
    if limits.report_position {
        eprintln!(
            "vstream: stopped ({stop_reason}) after {changes} changes; final position (resume with --start):\n{}",
            printed.to_json()
        );
    }
    Ok(())
}
