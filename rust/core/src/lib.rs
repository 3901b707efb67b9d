// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! vitess-cdc core: a VStream client that copies Vitess tables consistently, then streams every
//! change after the copy, and knows at every moment an exact position to resume from.
//!
//! The crate knows nothing of JNI or Flink. Its folders follow the data path
//! (docs/architecture.md):
//! - [`proto`]: the wire-compatible subset of the Vitess v24 protos (the `vitess-cdc-protos`
//!   crate, re-exported).
//! - [`client`]: the wire — the tonic channel (TLS, auth, limits, keepalive), the VStream and
//!   `Execute` RPCs, and the keyspace metadata read over SQL.
//! - [`machine`]: the VStream grammar as a pure state machine, with what it needs: row decoding
//!   into typed values ([`machine::decode`], [`machine::value`], every MySQL character set to
//!   UTF-8 in [`machine::charset`], column collations in [`machine::collations`]), MySQL's primary-key order
//!   ([`machine::keyorder`], [`machine::uca900`]) and the copy phase's exact-changelog rule
//!   ([`machine::copyfilter`]).
//! - [`position`]: per-shard positions (GTID sets in [`position::gtid`], copy progress, capture
//!   cursors), their JSON and binary forms.
//! - [`stream`]: one VStream with its plan and request ([`stream::request`]), reconnects and
//!   exact resume.
//! - [`snapshot`]: chunked snapshots beside the log (side streams merged by GTID membership).
//! - [`handoff`]: what leaves the core — a bounded, byte-budgeted hand-off to a synchronous
//!   consumer ([`handoff::blocking`]), background tasks whose panics become the stream's fatal
//!   error ([`handoff::supervise`]), and the binary batch format that crosses JNI
//!   ([`handoff::batch`]).
//!
//! Across all of them: [`event`] (what a consumer sees: typed changes, table schemas, position
//! marks), [`error`] (every error with its class and code), [`options`] (every knob, with its
//! documented default, in one place) and [`metrics`].

pub mod client;
pub mod error;
pub mod event;
pub mod handoff;
pub mod keyspaces;
pub mod machine;
pub mod metrics;
pub mod options;
pub mod position;
pub mod snapshot;
pub mod stream;

pub use vitess_cdc_protos as proto;

// The paths the crate's users (rust/jni, rust/cli, the tests, benches and fuzz targets) and its
// own modules name: each module where it lived before the folders, so they stay valid.
pub use handoff::{batch, blocking, supervise};
pub use machine::{charset, collations, copyfilter, decode, keyorder, uca900, value};
pub use position::gtid;
pub use stream::request;

pub use error::{Error, ErrorCode, ErrorKind, Result};
pub use event::{ChangeEvent, Column, Event, RowKind, TableSchema};
pub use options::{DestructiveDdl, InitialSnapshot, SnapshotOptions, StartMode, StreamOptions};
pub use position::{ShardPosition, StreamPosition};
pub use value::Value;
