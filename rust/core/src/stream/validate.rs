// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The checks on stream options made before anything connects, each naming its fix.

use crate::error::{Error, ErrorCode, Result};
use crate::options::{StartMode, StreamOptions};
use std::time::Duration;

/// Checks the options before anything connects: every mistake is an [`ErrorCode::InvalidOption`].
/// Checks options without a server: the checks every stream, plan and read makes first, public
/// so a caller can fail early (the SQL connector at planning).
pub fn validate_options(o: &StreamOptions) -> Result<()> {
    check_options(o).map_err(|e| e.or_code(ErrorCode::InvalidOption))
}

fn check_options(o: &StreamOptions) -> Result<()> {
    if o.keyspace.trim().is_empty() {
        return Err(Error::config(
            "keyspace is empty — name the Vitess keyspace to stream",
        ));
    }
    if o.keyspace.starts_with('/') {
        return Err(Error::config(
            "keyspace regexes are not supported — name one keyspace",
        ));
    }
    if o.connect_timeout.is_zero() {
        return Err(Error::config(
            "connect_timeout (SQL 'connect.timeout') must be greater than zero: give VTGate a few seconds, \
             e.g. 10 s",
        ));
    }
    if o.max_message_bytes < 4 * 1024 * 1024 {
        return Err(Error::config(
            "max_message_bytes (SQL 'grpc.max-message-size') must be at least 4 MiB: VTGate sends messages up to \
             its --grpc-max-message-size (16 MiB by default); set it to that size or more",
        ));
    }
    if o.buffer_bytes < 1024 * 1024 {
        return Err(Error::config(
            "buffer_bytes (SQL 'buffer.size') must be at least 1 MiB: it holds the decoded events between \
             gRPC and the consumer; keep the default 16 MiB or set 1 MiB or more",
        ));
    }
    if o.retry_initial_backoff > o.retry_max_backoff {
        return Err(Error::config(
            "retry_initial_backoff (SQL 'retry.initial-backoff') must not exceed retry_max_backoff \
             ('retry.max-backoff'): lower the first or raise the second",
        ));
    }
    if o.heartbeat_interval_secs > 0
        && o.idle_timeout <= Duration::from_secs(o.heartbeat_interval_secs as u64)
    {
        return Err(Error::config(
            "idle_timeout (SQL 'stream.idle-timeout') must be longer than the heartbeat interval \
             ('heartbeat.interval'), or every quiet stream would count as dead: raise it or shorten the heartbeat",
        ));
    }
    Ok(())
}

/// A plain log stream cannot take a chunked snapshot: it would start streaming and silently
/// drop the capture. [`crate::blocking::BlockingStream`] routes such options to
/// [`crate::snapshot::CaptureStream`], which strips its part before opening the log.
pub(super) fn refuse_captures(options: &StreamOptions) -> Result<()> {
    let chunked_initial = matches!(options.start, StartMode::Initial)
        && options.initial_snapshot == crate::options::InitialSnapshot::Chunked;
    let saved_capture = matches!(&options.start, StartMode::Positions(p) if p.iter().any(|s| !s.snapshots.is_empty()));
    if chunked_initial || saved_capture {
        return Err(Error::config(
            "these options take a chunked snapshot (a chunked initial snapshot, or positions that carry a \
             capture's cursor): open them as a capture stream (snapshot::CaptureStream, or BlockingStream::open)",
        )
        .with_code(ErrorCode::InvalidOption));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_validated() {
        let mut o = StreamOptions::new("x:1", "");
        assert!(validate_options(&o).is_err());
        o.keyspace = "ks".into();
        assert!(validate_options(&o).is_ok());
        o.max_message_bytes = 1024;
        assert!(validate_options(&o).unwrap_err().message.contains("4 MiB"));
    }
}
