// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! vitess-cdc core: a VStream client that copies Vitess tables consistently, then streams every
//! change after the copy, and knows at every moment an exact position to resume from.
//!
//! The crate knows nothing of JNI or Flink. Layers, bottom up:
//! - [`proto`]: the wire-compatible subset of the Vitess v24 protos (the `vitess-cdc-protos`
//!   crate, re-exported).
//! - [`value`], [`decode`]: MySQL text-encoded row values → typed [`value::Value`]s;
//!   [`charset`]: every MySQL character set → UTF-8, as MySQL converts it.
//! - [`keyorder`], [`copyfilter`]: MySQL's primary-key order and the exact-changelog rule of the
//!   copy phase (changes beyond the copy position are dropped).
//! - [`gtid`]: GTID sets of Vitess positions (containment, membership).
//! - [`position`]: per-shard positions (GTID set, copy progress), JSON and binary forms.
//! - [`event`]: what a consumer sees: typed changes, table schemas, position marks.
//! - [`options`]: every knob, with documented defaults, in one place.
//! - [`snapshot`]: chunked snapshots beside the log (side streams merged by GTID membership).
//! - [`client`]: the tonic channel (TLS, auth, limits, keepalive) and the VStream request.
//! - [`stream`]: the copy/replicate state machine with reconnect and exact resume.
//! - [`blocking`]: a bounded, byte-budgeted hand-off to a synchronous consumer (JNI, CLI).
//! - [`supervise`]: background tasks whose panics become the stream's fatal error.
//! - [`batch`]: the binary batch format that crosses JNI.

pub mod batch;
pub mod blocking;
pub mod charset;
pub mod client;
pub mod collations;
pub mod copyfilter;
pub mod decode;
pub mod error;
pub mod event;
pub mod gtid;
pub mod keyorder;
pub mod machine;
pub mod metrics;
pub mod options;
pub mod position;
pub mod request;
pub mod snapshot;
pub mod stream;
pub mod supervise;
pub mod uca900;
pub mod value;

pub use vitess_cdc_protos as proto;

pub use error::{Error, ErrorCode, ErrorKind, Result};
pub use event::{ChangeEvent, Column, Event, RowKind, TableSchema};
pub use options::{InitialSnapshot, SnapshotOptions, StartMode, StreamOptions};
pub use position::{ShardPosition, StreamPosition};
pub use value::Value;
