// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! TLS, mutual TLS and static authentication against real VTGates: the multi-process local
//! Vitess (`bash tests/vitess/cluster/up.sh`, then `source tests/vitess/cluster/env.sh`) runs a
//! plaintext VTGate, one with TLS + static auth and one with mutual TLS + static auth, with a CA
//! and certificates its scripts generate. Run with
//! `cargo test -p vitess-cdc-core --features cluster --test cluster_tls`.
//!
//! Each working setup must stream a row inserted after the stream opened; each mistake must fail
//! the open (or the first poll) with a message that names the cause and the fix, as a
//! configuration error where the cause is certain. `tests/tls.rs` checks the same against the
//! scripted VTGate, with certificates made by rcgen.
#![cfg(feature = "cluster")]

mod common;

use common::certs::{Ca, TempDir};
use common::cluster;
use rcgen::ExtendedKeyUsagePurpose;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::options::TlsOptions;
use vitess_cdc_core::{ErrorKind, Event, StartMode, StreamOptions};

const KEYSPACE: &str = "commerce";

/// Options for a stream of `commerce.product` from `address`, failing fast: a mistake must be
/// reported, not retried for minutes.
fn options(
    address: &str,
    tls: Option<TlsOptions>,
    credentials: Option<(&str, &str)>,
) -> StreamOptions {
    let mut o = StreamOptions::new(address, KEYSPACE);
    o.tables = vec!["product".into()];
    o.start = StartMode::Latest;
    o.connect_timeout = Duration::from_secs(5);
    o.retry_initial_backoff = Duration::from_millis(10);
    o.retry_max_backoff = Duration::from_millis(50);
    o.retry_max_attempts = 2;
    o.tls = tls;
    o.username = credentials.map(|c| c.0.to_string());
    o.password = credentials.map(|c| c.1.to_string());
    o
}

fn tls(ca: &str, client: Option<(&str, &str)>) -> Option<TlsOptions> {
    Some(TlsOptions {
        ca_cert_path: Some(ca.to_string()),
        client_cert_path: client.map(|c| c.0.to_string()),
        client_key_path: client.map(|c| c.1.to_string()),
        server_name: None,
    })
}

fn the_user() -> (String, String) {
    (cluster::user(), cluster::password())
}

/// Inserts a product through the plaintext VTGate's MySQL port.
fn insert_product(sku: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use mysql_async::prelude::Queryable;
        let mut conn = mysql_async::Conn::new(cluster::mysql_opts(KEYSPACE))
            .await
            .expect("connect to the cluster VTGate's MySQL port");
        conn.exec_drop(
            "INSERT INTO product (sku, description, price) VALUES (?, 'over TLS', 1)",
            (sku,),
        )
        .await
        .expect("insert a product");
        conn.disconnect().await.ok();
    });
}

fn unique_sku(case: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("tls-{case}-{}", nanos % 1_000_000_000_000)
}

/// Opens the stream, inserts a product after the open, and expects that row from the stream.
fn assert_streams(o: StreamOptions, case: &str) {
    let address = o.address.clone();
    let stream = BlockingStream::open(o)
        .unwrap_or_else(|e| panic!("open {address} ({case}): {}", e.full_message()));
    let sku = unique_sku(case);
    insert_product(&sku);
    let started = Instant::now();
    let deadline = common::timeouts::events();
    loop {
        assert!(
            started.elapsed() < deadline,
            "{case}: the inserted row did not arrive from {address} within {deadline:?}"
        );
        let events = stream
            .poll(Duration::from_millis(200))
            .unwrap_or_else(|e| panic!("poll {address} ({case}): {}", e.full_message()));
        if events.iter().any(|e| {
            matches!(e, Event::Change(c) if c.schema.table == "product"
                && format!("{:?}", c.values[0]).contains(&sku))
        }) {
            break;
        }
    }
    stream.close();
}

#[test]
fn server_verified_tls_with_the_password_streams() {
    let (user, password) = the_user();
    let o = options(
        &cluster::vtgate_tls(),
        tls(&cluster::ca_path(), None),
        Some((&user, &password)),
    );
    assert_streams(o, "tls");
}

#[test]
fn mutual_tls_with_the_password_streams() {
    let (user, password) = the_user();
    let o = options(
        &cluster::vtgate_mtls(),
        tls(
            &cluster::ca_path(),
            Some((&cluster::client_cert_path(), &cluster::client_key_path())),
        ),
        Some((&user, &password)),
    );
    assert_streams(o, "mtls");
}

#[test]
fn a_wrong_password_is_rejected_naming_the_credentials() {
    let (user, _) = the_user();
    let address = cluster::vtgate_tls();
    let o = options(
        &address,
        tls(&cluster::ca_path(), None),
        Some((&user, "not-the-password")),
    );
    let err = common::assert_stream_fails(
        o,
        &[
            &address,
            "rejected the credentials",
            "check username and password",
        ],
    );
    assert_eq!(err.kind, ErrorKind::Config, "{}", err.full_message());
}

#[test]
fn no_credentials_for_a_static_auth_vtgate_names_the_fix() {
    let address = cluster::vtgate_tls();
    let o = options(&address, tls(&cluster::ca_path(), None), None);
    let err = common::assert_stream_fails(
        o,
        &[
            &address,
            "requires credentials",
            "set username and password",
        ],
    );
    assert_eq!(err.kind, ErrorKind::Config, "{}", err.full_message());
}

#[test]
fn a_wrong_ca_names_the_ca_certificate_option() {
    let dir = TempDir::new();
    let other_ca = dir.write("other-ca.pem", &Ca::new("not the cluster CA").pem());
    let (user, password) = the_user();
    let address = cluster::vtgate_tls();
    let o = options(&address, tls(&other_ca, None), Some((&user, &password)));
    let err = common::assert_stream_fails(
        o,
        &[
            &address,
            "not signed by a CA this client trusts",
            "tls.ca_cert_path",
        ],
    );
    assert_eq!(err.kind, ErrorKind::Config, "{}", err.full_message());
}

#[test]
fn a_plaintext_client_against_the_tls_port_is_told_to_turn_tls_on() {
    let (user, password) = the_user();
    let address = cluster::vtgate_tls();
    let o = options(&address, None, Some((&user, &password)));
    let err = common::assert_stream_fails(o, &[&address, "turn TLS on"]);
    // Certain (configuration) when HTTP/2 read TLS bytes; a bare close could also be a restart.
    let expected = if err.message.contains("protocol error") || err.message.contains("frame") {
        ErrorKind::Config
    } else {
        ErrorKind::Retryable
    };
    assert_eq!(err.kind, expected, "{}", err.full_message());
}

#[test]
fn a_tls_client_against_the_plaintext_port_is_told_it_does_not_speak_tls() {
    let address = cluster::vtgate_plain();
    let o = options(&address, tls(&cluster::ca_path(), None), None);
    let err = common::assert_stream_fails(o, &[&address, "does not speak TLS"]);
    assert_eq!(err.kind, ErrorKind::Config, "{}", err.full_message());
}

#[test]
fn mutual_tls_without_a_client_certificate_names_the_client_certificate() {
    let (user, password) = the_user();
    let address = cluster::vtgate_mtls();
    let o = options(
        &address,
        tls(&cluster::ca_path(), None),
        Some((&user, &password)),
    );
    let err = common::assert_stream_fails(o, &[&address, "client certificate"]);
    assert_alert_is_config(&err);
}

#[test]
fn mutual_tls_with_a_certificate_from_another_ca_is_refused() {
    let dir = TempDir::new();
    let (cert, key) =
        Ca::new("not the cluster CA").leaf(&["intruder"], ExtendedKeyUsagePurpose::ClientAuth);
    let cert = dir.write("intruder.pem", &cert);
    let key = dir.write("intruder.key", &key);
    let (user, password) = the_user();
    let address = cluster::vtgate_mtls();
    let o = options(
        &address,
        tls(&cluster::ca_path(), Some((&cert, &key))),
        Some((&user, &password)),
    );
    let err = common::assert_stream_fails(o, &[&address, "client certificate"]);
    assert_alert_is_config(&err);
}

/// A TLS alert from VTGate is certain (configuration error); when the alert is lost in the
/// connection teardown, the bare close stays retryable (a restart looks the same) but carries
/// the hint.
fn assert_alert_is_config(err: &vitess_cdc_core::Error) {
    let expected = if err.message.contains("alert") {
        ErrorKind::Config
    } else {
        assert!(
            err.message.contains("closed the TLS connection"),
            "{}",
            err.full_message()
        );
        ErrorKind::Retryable
    };
    assert_eq!(err.kind, expected, "{}", err.full_message());
}
