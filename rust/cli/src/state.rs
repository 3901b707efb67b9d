// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `--state FILE`: the position as of the lines printed so far, saved as the run goes and read
//! back by the next run, so `vstream tail --state f | consumer` is a restartable pipe. A save
//! replaces the file atomically (a temporary file beside it, synced, then renamed over it), so a
//! crash or a kill at any moment leaves either the old position or the new one, never a torn
//! file; at most one save a second, and one at the end.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use vitess_cdc_core::{Error, StartMode, StreamPosition};

/// How often the position is saved while lines are printed.
const SAVE_EVERY: Duration = Duration::from_secs(1);

/// The state file of a run.
pub struct StateFile {
    path: PathBuf,
    saved: Option<String>,
    last_save: Instant,
}

impl StateFile {
    pub fn new(path: impl Into<PathBuf>) -> StateFile {
        StateFile {
            path: path.into(),
            saved: None,
            last_save: Instant::now(),
        }
    }

    /// Where to start: the saved position when the file exists, else `None` (the run's
    /// `--start` then applies).
    pub fn start(&mut self) -> Result<Option<StartMode>, Error> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(Error::config(format!(
                    "cannot read the state file '{}': {e}",
                    self.path.display()
                )))
            }
        };
        let position = StreamPosition::from_json(&text).map_err(|e| {
            Error::config(format!(
                "the state file '{}' does not hold a position ({}) — it is written by vstream --state; \
                 delete it to start as --start says",
                self.path.display(),
                e.message
            ))
        })?;
        self.saved = Some(text);
        Ok(Some(StartMode::Positions(position.shards)))
    }

    /// Whether the last save is a second old: time to save again.
    pub fn due(&self) -> bool {
        self.last_save.elapsed() >= SAVE_EVERY
    }

    /// Saves `position` if it changed.
    pub fn save(&mut self, position: &str) -> Result<(), Error> {
        self.last_save = Instant::now();
        if self.saved.as_deref() == Some(position) {
            return Ok(());
        }
        write_atomically(&self.path, position).map_err(|e| {
            Error::config(format!(
                "cannot save the position to the state file '{}': {e}",
                self.path.display()
            ))
        })?;
        self.saved = Some(position.to_string());
        Ok(())
    }
}

fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "state".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    // The rename itself reaches the disk with the directory.
    std::fs::File::open(&dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(gtid: &str) -> String {
        StreamPosition::from_json(&format!(
            r#"{{"shards":[{{"keyspace":"ks","shard":"-80","gtid":"{gtid}"}}]}}"#
        ))
        .unwrap()
        .to_json()
    }

    #[test]
    fn a_saved_position_is_where_the_next_run_starts() {
        let dir = std::env::temp_dir().join(format!("vstream-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tail.state");
        let _ = std::fs::remove_file(&path);
        let mut state = StateFile::new(&path);
        assert!(state.start().unwrap().is_none(), "no file: --start applies");
        state.save(&position("MySQL56/a:1-5")).unwrap();
        state.save(&position("MySQL56/a:1-9")).unwrap();
        match StateFile::new(&path).start().unwrap() {
            Some(StartMode::Positions(shards)) => assert_eq!(shards[0].gtid, "MySQL56/a:1-9"),
            other => panic!("{other:?}"),
        }
        let leftovers: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
        std::fs::write(&path, "not a position").unwrap();
        let err = StateFile::new(&path).start().err().unwrap();
        assert!(err.message.contains("delete it"), "{}", err.message);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
