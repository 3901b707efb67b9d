// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Progress of a copy on stderr: rows copied against the tables' estimated rows (InnoDB's
//! statistics, asked of every shard before the stream opens), shards done, rate and time left. A
//! progress bar (indicatif) when stderr is a terminal; a plain line every few seconds when it is
//! piped or `--progress` asks for lines, so logs keep a readable trace. Stdout, the JSON lines,
//! is never touched.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};
use vitess_cdc_core::stream::CopyEstimates;
use vitess_cdc_core::Event;

/// How often a plain line is printed.
const LINE_EVERY: Duration = Duration::from_secs(5);

/// The display of one copy.
pub struct CopyProgress {
    estimated: u64,
    shards: usize,
    shards_done: usize,
    tables: usize,
    rows: u64,
    started: Instant,
    last_line: Instant,
    bar: Option<ProgressBar>,
    done: bool,
}

impl CopyProgress {
    /// A display for a copy of the tables `estimates` lists; a bar when `bar` (stderr a
    /// terminal), lines otherwise.
    pub fn new(estimates: &CopyEstimates, bar: bool) -> CopyProgress {
        let estimated: u64 = estimates
            .shards
            .values()
            .flat_map(|tables| tables.values())
            .map(|rows| rows.unwrap_or(0))
            .sum();
        let bar = bar.then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(estimated.max(1)),
                ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                ProgressStyle::with_template(
                    "copy {bar:30} {human_pos}/~{human_len} rows {percent}% · {per_sec} · {msg} · {eta} left",
                )
                .expect("a valid template"),
            );
            bar
        });
        let progress = CopyProgress {
            estimated,
            shards: estimates.shards.len(),
            shards_done: 0,
            tables: estimates.tables.len(),
            rows: 0,
            started: Instant::now(),
            last_line: Instant::now(),
            bar,
            done: false,
        };
        progress.set_message();
        progress
    }

    /// Whether stderr is a terminal (then a bar, else lines).
    pub fn stderr_is_terminal() -> bool {
        std::io::stderr().is_terminal()
    }

    /// Counts what `events` carry: copied rows and shards whose copy completed.
    pub fn observe(&mut self, events: &[Event]) {
        if self.done {
            return;
        }
        for event in events {
            match event {
                Event::Change(c) if c.is_snapshot => self.rows += 1,
                Event::ShardCopyCompleted { .. } => {
                    self.shards_done += 1;
                    self.set_message();
                }
                Event::CopyCompleted | Event::End => {
                    self.finish();
                    return;
                }
                _ => {}
            }
        }
        match &self.bar {
            Some(bar) => {
                // Estimates lag: a copy that outgrows them stretches the bar instead of overflowing.
                if self.rows > bar.length().unwrap_or(0) {
                    bar.set_length(self.rows);
                }
                bar.set_position(self.rows);
            }
            None if self.last_line.elapsed() >= LINE_EVERY => {
                eprintln!("vstream: {}", self.line());
                self.last_line = Instant::now();
            }
            None => {}
        }
    }

    fn set_message(&self) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "{} tables · shards {}/{}",
                self.tables, self.shards_done, self.shards
            ));
        }
    }

    /// `copy: 12345 of ~100000 rows (12%), 3 tables, shards 1/2 done, 4100 rows/s, ~21 s left`.
    fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(0.001);
        let rate = self.rows as f64 / secs;
        let mut line = format!("copy: {} of ~{} rows", self.rows, self.estimated);
        if self.estimated > 0 {
            line += &format!(" ({}%)", (self.rows * 100 / self.estimated.max(1)).min(100));
        }
        line += &format!(
            ", {} tables, shards {}/{} done, {:.0} rows/s",
            self.tables, self.shards_done, self.shards, rate
        );
        if rate > 0.0 && self.estimated > self.rows {
            line += &format!(
                ", ~{:.0} s left",
                (self.estimated - self.rows) as f64 / rate
            );
        }
        line
    }

    /// The copy completed: the bar is cleared and one line says what it took.
    pub fn finish(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        eprintln!(
            "vstream: copy done: {} rows of {} tables from {} shards in {:.1} s",
            self.rows,
            self.tables,
            self.shards,
            self.started.elapsed().as_secs_f64()
        );
    }
}
