// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Where the multi-process local Vitess of the cluster tests is (`bash tests/vitess/cluster/up.sh`,
//! then `source tests/vitess/cluster/env.sh`): its three VTGates (plaintext; TLS with static auth;
//! mutual TLS with static auth), the certificates and the user the scripts made.

/// A variable `tests/vitess/cluster/env.sh` exports; panics with the fix when it is missing.
pub fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: these tests need the multi-process local Vitess. Start it with \
             `bash tests/vitess/cluster/up.sh && source tests/vitess/cluster/env.sh` (installs \
             with tests/vitess/cluster/install.sh)"
        )
    })
}

/// `vtctldclient` against the cluster (tests/vitess/cluster/ctl.sh); its output. Panics with
/// vtctldclient's error when it fails.
#[allow(dead_code)] // not every cluster test binary runs vtctldclient
pub fn ctl(args: &[&str]) -> String {
    let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::process::Command::new("bash")
        .arg(repo.join("tests/vitess/cluster/ctl.sh"))
        .args(args)
        .output()
        .expect("run tests/vitess/cluster/ctl.sh");
    assert!(
        out.status.success(),
        "vtctldclient {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The plaintext VTGate, without authentication.
pub fn vtgate_plain() -> String {
    env("VT_CLUSTER_GRPC_ADDR")
}
/// The VTGate serving TLS (server certificate signed by the cluster CA) with static auth.
pub fn vtgate_tls() -> String {
    env("VT_CLUSTER_TLS_GRPC_ADDR")
}
/// The VTGate requiring a client certificate signed by the cluster CA, with static auth.
pub fn vtgate_mtls() -> String {
    env("VT_CLUSTER_MTLS_GRPC_ADDR")
}
pub fn ca_path() -> String {
    env("VT_CLUSTER_TLS_CA")
}
pub fn client_cert_path() -> String {
    env("VT_CLUSTER_TLS_CLIENT_CERT")
}
pub fn client_key_path() -> String {
    env("VT_CLUSTER_TLS_CLIENT_KEY")
}
pub fn user() -> String {
    env("VT_CLUSTER_TLS_USER")
}
pub fn password() -> String {
    env("VT_CLUSTER_TLS_PASSWORD")
}

/// Connection options for the plaintext VTGate's MySQL port (any user, no password).
pub fn mysql_opts(keyspace: &str) -> mysql_async::OptsBuilder {
    let port = env("VT_CLUSTER_MYSQL_PORT")
        .parse()
        .expect("VT_CLUSTER_MYSQL_PORT is a port number");
    mysql_async::OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(port)
        .user(Some("root"))
        .db_name(Some(keyspace))
}
