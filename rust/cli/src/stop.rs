// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! How a printing run (`tail`, `snapshot`, a capture) goes: when it stops (its limits, and
//! SIGINT/SIGTERM, which finish the batch being printed first), where it keeps its position and
//! whether it shows the copy's progress.

use crate::printed::PrintedPositions;
use crate::state::StateFile;
use clap::ValueEnum;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use vitess_cdc_core::Error;

/// The copy's progress on stderr.
#[derive(Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    /// A bar when stderr is a terminal, a line every 5 s when it is not.
    #[default]
    Auto,
    /// A line every 5 s, also on a terminal.
    Lines,
    /// Nothing.
    Off,
}

/// When `tail` stops (besides the end of a snapshot), and what it keeps and shows meanwhile.
#[derive(Default)]
pub struct Limits {
    /// Where the printed position is kept as the run goes (`--state`).
    pub state: Option<StateFile>,
    /// The copy's progress (`--progress`).
    pub progress: ProgressArg,
    /// After this many row changes (an update counts once).
    pub max_changes: Option<u64>,
    /// After this long without a row change.
    pub idle_exit: Option<Duration>,
    /// After this long in total.
    pub duration: Option<Duration>,
    /// Print the final position to stderr when stopping.
    pub report_position: bool,
}

impl Limits {
    /// Saves `printed` to the state file (`--state`), if there is one: when a save is due (about
    /// once a second), or at once when the run `finished`.
    pub fn keep_position(
        &mut self,
        printed: &PrintedPositions,
        finished: bool,
    ) -> Result<(), Error> {
        match self.state.as_mut() {
            Some(state) if finished || state.due() => state.save(&printed.to_json()),
            _ => Ok(()),
        }
    }
}

/// Set by SIGINT/SIGTERM: `tail` finishes the batch it is printing, flushes and stops.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// SIGINT/SIGTERM ask `tail` to stop after the current batch; a second signal exits at once.
pub fn install_signal_handler() {
    let result = ctrlc::set_handler(|| {
        if STOP.swap(true, Ordering::SeqCst) {
            eprintln!("interrupted again: exiting without waiting");
            std::process::exit(130);
        }
    });
    if let Err(e) = result {
        tracing::warn!("cannot install the Ctrl-C handler: {e}");
    }
}
