// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Generated Vitess v24 protobuf subset (see `proto/` at the repository root): the crate every
//! other one takes the wire types from (core's client, the testkit's fake VTGate and its event
//! builders), so they are one set of types wherever they meet.
//!
//! Package names match Vitess exactly, so the gRPC paths are `/vtgateservice.Vitess/VStream`
//! and `/vtgateservice.Vitess/Execute`. The server (`vtgateservice::vitess_server`) needs the
//! `server` feature.

#![allow(clippy::all, missing_docs)]

pub mod vtrpc {
    tonic::include_proto!("vtrpc");
}
pub mod topodata {
    tonic::include_proto!("topodata");
}
pub mod query {
    tonic::include_proto!("query");
}
pub mod binlogdata {
    tonic::include_proto!("binlogdata");
}
pub mod vtgate {
    tonic::include_proto!("vtgate");
}
pub mod vtgateservice {
    tonic::include_proto!("vtgateservice");
}
pub mod tabletmanagerdata {
    tonic::include_proto!("tabletmanagerdata");
}
pub mod vtctldata {
    tonic::include_proto!("vtctldata");
}
pub mod vtctlservice {
    tonic::include_proto!("vtctlservice");
}
pub mod queryservice {
    tonic::include_proto!("queryservice");
}

mod row;
pub use row::{encode_lengths, CellLengths};
