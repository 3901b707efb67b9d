// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Where the local Vitess of the live tests is (`bash tests/vitess/up.sh`, then
//! `source tests/vitess/env.sh`): VTGate's gRPC address and a MySQL connection to VTGate.

pub fn vtgate() -> String {
    std::env::var("VTGATE_GRPC_ADDR").unwrap_or_else(|_| {
        panic!(
            "VTGATE_GRPC_ADDR is not set: these tests need the local Vitess cluster. Start it with \
             `bash tests/vitess/up.sh && source tests/vitess/env.sh` (installs with tests/vitess/install.sh)"
        )
    })
}

pub fn mysql_port() -> u16 {
    std::env::var("VTGATE_MYSQL_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(15993)
}

/// Connection options for VTGate's MySQL port, in `keyspace` (any user, no password locally).
pub fn mysql_opts(keyspace: &str) -> mysql_async::OptsBuilder {
    mysql_async::OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(mysql_port())
        .user(Some("root"))
        .db_name(Some(keyspace))
}
