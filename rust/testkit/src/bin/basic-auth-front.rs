// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `basic-auth-front`: PlanetScale's way in (TLS only, per-call HTTP Basic credentials, a cell of
//! its own name) in front of a real VTGate, as a child process for tests in other languages (the
//! Flink ITCase of docs/tls.md, "PlanetScale"). The front is `vitess_cdc_testkit::front`.
//!
//! ```text
//! basic-auth-front --upstream HOST:PORT --dir DIR [--user U] [--password P] [--cell C]
//!                  [--upstream-cell C]
//! ```
//!
//! Makes a CA and a server certificate for `localhost`/`127.0.0.1` signed by it, writes the CA to
//! `DIR/ca.pem` (what a client trusts), prints `listening on 127.0.0.1:<port>` on stdout once it
//! accepts connections, then serves until stdin is closed (so it never outlives the process that
//! started it) or it is killed.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Duration;
use vitess_cdc_testkit::front::{BasicAuthFront, FrontConfig};
use vitess_cdc_testkit::ServerTls;

fn main() {
    let mut config = FrontConfig {
        upstream: String::new(),
        user: "cdc-reader".into(),
        password: "pscale_pw_s3cr3t".into(),
        cell: "planetscale_operator_default".into(),
        upstream_cell: "test".into(),
    };
    let mut dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_else(|| {
            eprintln!("{flag} needs a value");
            std::process::exit(2)
        });
        match flag.as_str() {
            "--upstream" => config.upstream = value,
            "--user" => config.user = value,
            "--password" => config.password = value,
            "--cell" => config.cell = value,
            "--upstream-cell" => config.upstream_cell = value,
            "--dir" => dir = Some(PathBuf::from(value)),
            _ => {
                eprintln!("unknown flag {flag}; see the doc comment of rust/testkit/src/bin/basic-auth-front.rs");
                std::process::exit(2)
            }
        }
    }
    let (Some(dir), false) = (dir, config.upstream.is_empty()) else {
        eprintln!("--upstream and --dir are required");
        std::process::exit(2)
    };
    let (ca_pem, tls) = certificates();
    let ca_path = dir.join("ca.pem");
    std::fs::write(&ca_path, ca_pem).unwrap_or_else(|e| {
        eprintln!("cannot write {}: {e}", ca_path.display());
        std::process::exit(1)
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let front = runtime.block_on(BasicAuthFront::start(config, tls));
    println!("listening on {}", front.address());
    let _ = std::io::stdout().flush();
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        if line.is_err() {
            break;
        }
    }
    drop(front);
    runtime.shutdown_timeout(Duration::from_secs(1));
}

/// A CA (its PEM) and the front's certificate for `localhost` and `127.0.0.1`, signed by it.
fn certificates() -> (String, ServerTls) {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(DnType::CommonName, "vitess-cdc front CA");
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().expect("CA key"))
        .expect("self-signed CA");
    let mut leaf = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
        .expect("server params");
    leaf.distinguished_name
        .push(DnType::CommonName, "localhost");
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let key = KeyPair::generate().expect("server key");
    let cert = leaf.signed_by(&key, &ca).expect("server certificate");
    (
        ca.pem(),
        ServerTls {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            client_ca_pem: None,
        },
    )
}
