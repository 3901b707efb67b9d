// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

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

/// What went wrong, as a stable code a consumer can decide on (the message is for people and
/// may change). Crosses JNI as [`ErrorCode::as_str`]; Java's `io.vitesscdc.nativeio.ErrorCode`
/// has the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// No more specific code applies.
    Unspecified,
    /// An option value is invalid or contradicts another.
    InvalidOption,
    UnknownKeyspace,
    UnknownTable,
    UnknownShard,
    /// A column the stream selects (e.g. a declared SQL column) is not in the table.
    UnknownColumn,
    /// A selected table has no primary key.
    NoPrimaryKey,
    /// A saved position (or its copy progress) is corrupt, foreign or of another keyspace.
    InvalidPosition,
    /// The binlogs a saved position needs are purged on every tablet.
    PositionTooOld,
    /// VTGate wants credentials or rejected them.
    AuthFailed,
    /// TLS is misconfigured on one side (plaintext vs TLS, unknown CA, client certificate).
    TlsMismatch,
    /// VTGate could not be reached or did not answer in time.
    Unreachable,
    /// The server is not a supported Vitess (too old, not VTGate).
    UnsupportedServer,
    /// A message was larger than the client accepts.
    MessageTooLarge,
    /// VTGate copied a table again that this stream had finished copying (its own retry):
    /// the stream must restart from an earlier position.
    CopyRepeated,
    /// Rows written before a schema change of a selected table that the tablet cannot decode
    /// with the table's current schema (it does not track schema versions, or not yet).
    SchemaMismatch,
    /// DDL took a selected table's rows away without row events (TRUNCATE, DROP, a RENAME away)
    /// or changed its primary key: what the consumer holds no longer matches the table.
    DestructiveDdl,
    /// A bug in vitess-cdc: a background task of the stream panicked (the message says where).
    /// Fatal: restarting from the last checkpoint may meet it again.
    Internal,
}

impl ErrorCode {
    /// The stable wire name (SCREAMING_SNAKE_CASE), e.g. `UNKNOWN_TABLE`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Unspecified => "UNSPECIFIED",
            ErrorCode::InvalidOption => "INVALID_OPTION",
            ErrorCode::UnknownKeyspace => "UNKNOWN_KEYSPACE",
            ErrorCode::UnknownTable => "UNKNOWN_TABLE",
            ErrorCode::UnknownShard => "UNKNOWN_SHARD",
            ErrorCode::UnknownColumn => "UNKNOWN_COLUMN",
            ErrorCode::NoPrimaryKey => "NO_PRIMARY_KEY",
            ErrorCode::InvalidPosition => "INVALID_POSITION",
            ErrorCode::PositionTooOld => "POSITION_TOO_OLD",
            ErrorCode::AuthFailed => "AUTH_FAILED",
            ErrorCode::TlsMismatch => "TLS_MISMATCH",
            ErrorCode::Unreachable => "UNREACHABLE",
            ErrorCode::UnsupportedServer => "UNSUPPORTED_SERVER",
            ErrorCode::MessageTooLarge => "MESSAGE_TOO_LARGE",
            ErrorCode::CopyRepeated => "COPY_REPEATED",
            ErrorCode::SchemaMismatch => "SCHEMA_MISMATCH",
            ErrorCode::DestructiveDdl => "DESTRUCTIVE_DDL",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub kind: ErrorKind,
    /// What went wrong, for programs (the message is for people).
    pub code: ErrorCode,
    pub message: String,
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    pub fn config(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Config,
            code: ErrorCode::Unspecified,
            message: message.into(),
            source: None,
        }
    }
    pub fn retryable(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Retryable,
            code: ErrorCode::Unspecified,
            message: message.into(),
            source: None,
        }
    }
    pub fn fatal(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Fatal,
            code: ErrorCode::Unspecified,
            message: message.into(),
            source: None,
        }
    }
    pub fn is_retryable(&self) -> bool {
        self.kind == ErrorKind::Retryable
    }
    pub fn with_code(mut self, code: ErrorCode) -> Self {
        self.code = code;
        self
    }
    /// Sets `code` unless a more specific one is set already.
    pub fn or_code(self, code: ErrorCode) -> Self {
        if self.code == ErrorCode::Unspecified {
            self.with_code(code)
        } else {
            self
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
