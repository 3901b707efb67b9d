//! One error type for the core. Every error carries a kind that tells the caller what to do
//! (fix the configuration, retry, or give up) and a message that names the cause and the fix.

use std::fmt;

/// What the caller should do about an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The user asked for something invalid (bad option, unknown keyspace/table, table without
    /// primary key, bad position JSON). Retrying does not help; the message names the fix.
    Config,
    /// A transient failure (network, VTGate restart, tablet failover). The stream reconnects
    /// by itself within its retry budget; surfaced only when the budget is exhausted.
    Retryable,
    /// Anything else: protocol violations, corrupt state, server refusals. Not retried.
    Fatal,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Config => "configuration error",
            ErrorKind::Retryable => "retryable error",
            ErrorKind::Fatal => "fatal error",
        })
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    pub fn config(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Config,
            message: message.into(),
            source: None,
        }
    }
    pub fn retryable(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Retryable,
            message: message.into(),
            source: None,
        }
    }
    pub fn fatal(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Fatal,
            message: message.into(),
            source: None,
        }
    }
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }
    /// The message followed by every cause in the chain, `: `-separated.
    pub fn full_message(&self) -> String {
        let mut out = self.message.clone();
        let mut cur: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(self);
        while let Some(e) = cur {
            let s = e.to_string();
            if !out.contains(&s) {
                out.push_str(": ");
                out.push_str(&s);
            }
            cur = e.source();
        }
        out
    }
}

pub type Result<T> = std::result::Result<T, Error>;
