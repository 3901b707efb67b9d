// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! TLS and mTLS against the scripted VTGate serving real certificates: a CA, a server and a
//! client certificate are generated per test run (rcgen), written to a temporary directory and
//! handed to the core through `TlsOptions` paths, exactly as a user would.

mod common;

use common::certs::{Ca, TempDir};
use rcgen::ExtendedKeyUsagePurpose;
use std::time::{Duration, Instant};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::options::TlsOptions;
use vitess_cdc_core::{ErrorKind, Event, StartMode, StreamOptions, Value};
use vitess_cdc_testkit::events::*;
use vitess_cdc_testkit::{FakeVtgate, Keyspace, ServerTls, Session};

/// Everything one TLS scenario needs: certificates on disk and a TLS fake VTGate.
struct Setup {
    dir: TempDir,
    ca_path: String,
    client_cert: String,
    client_key: String,
    /// A CA that did not sign anything here.
    other_ca_path: String,
    /// A client certificate from the other CA.
    foreign_client_cert: String,
    foreign_client_key: String,
    fake: FakeVtgate,
    _rt: tokio::runtime::Runtime,
}

fn setup(mtls: bool) -> Setup {
    let dir = TempDir::new();
    let ca = Ca::new("vitess-cdc test CA");
    let other = Ca::new("some other CA");
    let (server_cert, server_key) = ca.leaf(
        &["localhost", "127.0.0.1"],
        ExtendedKeyUsagePurpose::ServerAuth,
    );
    let (client_cert, client_key) = ca.leaf(&["cdc-client"], ExtendedKeyUsagePurpose::ClientAuth);
    let (foreign_cert, foreign_key) =
        other.leaf(&["intruder"], ExtendedKeyUsagePurpose::ClientAuth);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let session = Session::new()
        .send(vec![
            begin(),
            field("t"),
            insert("t", 7),
            vgtid("pos1"),
            commit(),
        ])
        .hold();
    let fake = rt.block_on(FakeVtgate::start_tls(
        Keyspace::new(KS, &[SHARD], &[("t", true)]),
        vec![session.clone(), session.clone(), session],
        ServerTls {
            cert_pem: server_cert,
            key_pem: server_key,
            client_ca_pem: mtls.then(|| ca.pem()),
        },
    ));
    Setup {
        ca_path: dir.write("ca.pem", &ca.pem()),
        other_ca_path: dir.write("other-ca.pem", &other.pem()),
        client_cert: dir.write("client.pem", &client_cert),
        client_key: dir.write("client.key", &client_key),
        foreign_client_cert: dir.write("foreign.pem", &foreign_cert),
        foreign_client_key: dir.write("foreign.key", &foreign_key),
        dir,
        fake,
        _rt: rt,
    }
}

fn options(s: &Setup, tls: TlsOptions) -> StreamOptions {
    let mut o = StreamOptions::new(s.fake.address(), KS);
    o.tables = vec!["t".into()];
    o.start = StartMode::Latest;
    o.heartbeat_interval_secs = 0;
    o.connect_timeout = Duration::from_secs(5);
    o.retry_initial_backoff = Duration::from_millis(10);
    o.retry_max_backoff = Duration::from_millis(50);
    o.retry_max_attempts = 2;
    o.tls = Some(tls);
    o
}

fn tls(ca: Option<&str>, client: Option<(&str, &str)>) -> TlsOptions {
    TlsOptions {
        ca_cert_path: ca.map(str::to_string),
        client_cert_path: client.map(|c| c.0.to_string()),
        client_key_path: client.map(|c| c.1.to_string()),
        server_name: None,
    }
}

/// Opens a stream and expects the scripted insert of id 7.
fn assert_streams(o: StreamOptions) {
    let stream = BlockingStream::open(o).unwrap_or_else(|e| panic!("open: {}", e.full_message()));
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no row over TLS"
        );
        let events = stream.poll(Duration::from_millis(100)).expect("poll");
        if events
            .iter()
            .any(|e| matches!(e, Event::Change(c) if c.values[0] == Value::Int(7)))
        {
            break;
        }
    }
    stream.close();
}

#[test]
fn tls_with_the_right_ca_streams() {
    let s = setup(false);
    assert_streams(options(&s, tls(Some(&s.ca_path), None)));
    // the server name can be given explicitly (certificate is for localhost)
    let mut t = tls(Some(&s.ca_path), None);
    t.server_name = Some("localhost".into());
    assert_streams(options(&s, t));
}

#[test]
fn tls_with_a_wrong_ca_names_tls_and_the_ca() {
    let s = setup(false);
    let err = common::assert_stream_fails(
        options(&s, tls(Some(&s.other_ca_path), None)),
        &["tls", "ca certificate", &s.fake.address()],
    );
    assert_eq!(err.kind, ErrorKind::Config, "{}", err.full_message());
    // web PKI roots (no --tls-ca) do not know the test CA either
    common::assert_stream_fails(options(&s, tls(None, None)), &["tls", "ca certificate"]);
}

#[test]
fn tls_with_a_wrong_server_name_says_so() {
    let s = setup(false);
    let mut t = tls(Some(&s.ca_path), None);
    t.server_name = Some("vtgate.example.com".into());
    common::assert_stream_fails(options(&s, t), &["tls", "server name"]);
}

#[test]
fn plaintext_client_against_a_tls_server_fails_clearly() {
    let s = setup(false);
    let mut o = options(&s, tls(None, None));
    o.tls = None;
    let err = common::assert_stream_fails(o, &[&s.fake.address(), "turn TLS on"]);
    // certain (config) when HTTP/2 saw TLS bytes; a bare close could also be a restart
    let expected = if err.message.contains("protocol error") || err.message.contains("frame") {
        ErrorKind::Config
    } else {
        ErrorKind::Retryable
    };
    assert_eq!(err.kind, expected, "{}", err.full_message());
}

#[test]
fn mtls_with_a_client_certificate_streams() {
    let s = setup(true);
    assert_streams(options(
        &s,
        tls(Some(&s.ca_path), Some((&s.client_cert, &s.client_key))),
    ));
}

#[test]
fn mtls_without_a_client_certificate_names_the_fix() {
    let s = setup(true);
    let err = common::assert_stream_fails(
        options(&s, tls(Some(&s.ca_path), None)),
        &["client certificate", "tls"],
    );
    assert_alert_is_config(&err);
}

/// A TLS alert from the server is certain (config error); when the alert is lost in the
/// connection teardown, the bare close is retryable (a restart looks the same), with the hint.
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

#[test]
fn mtls_with_a_certificate_from_another_ca_is_refused() {
    let s = setup(true);
    let err = common::assert_stream_fails(
        options(
            &s,
            tls(
                Some(&s.ca_path),
                Some((&s.foreign_client_cert, &s.foreign_client_key)),
            ),
        ),
        &["client certificate", "tls"],
    );
    assert_alert_is_config(&err);
    assert!(s.dir.path().exists());
}

#[test]
fn unreadable_tls_files_are_config_errors() {
    let s = setup(false);
    let missing = s.dir.path().join("missing.pem");
    let err = BlockingStream::open(options(&s, tls(Some(&missing.to_string_lossy()), None)))
        .err()
        .expect("must fail");
    assert_eq!(err.kind, ErrorKind::Config);
    assert!(
        err.message.contains("TLS CA certificate"),
        "{}",
        err.message
    );
    let err = BlockingStream::open(options(
        &s,
        tls(
            Some(&s.ca_path),
            Some((&s.client_cert, &missing.to_string_lossy())),
        ),
    ))
    .err()
    .expect("must fail");
    assert!(err.message.contains("TLS client key"), "{}", err.message);
}

#[test]
fn tls_client_against_a_plaintext_port_says_so() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let plain = rt.block_on(FakeVtgate::start(
        Keyspace::new(KS, &[SHARD], &[("t", true)]),
        vec![],
    ));
    let dir = TempDir::new();
    let ca = dir.write("ca.pem", &Ca::new("some CA").pem());
    let mut o = StreamOptions::new(plain.address(), KS);
    o.tables = vec!["t".into()];
    o.start = StartMode::Latest;
    o.connect_timeout = Duration::from_secs(5);
    o.tls = Some(tls(Some(&ca), None));
    let err = common::assert_stream_fails(o, &["does not speak TLS", &plain.address()]);
    assert_eq!(err.kind, ErrorKind::Config, "{}", err.full_message());
}
