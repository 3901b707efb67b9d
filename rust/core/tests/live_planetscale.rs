// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! PlanetScale-style connections against the real local Vitess (`tests/vitess/up.sh`): a front
//! (`vitess_cdc_testkit::front`) that, like PlanetScale's edge, serves TLS only, takes per-call
//! HTTP Basic credentials and a cell of its own name, and forwards to the real VTGate. Run with
//! `cargo test -p vitess-cdc-core --features integration --test live_planetscale`.
//!
//! The settings that work stream a row written after the open; each mistake (wrong password,
//! Vitess's static auth sent instead, no TLS, the wrong cell) fails with a message naming it.
#![cfg(feature = "integration")]

mod common;

use common::certs::{Ca, TempDir};
use common::live::{mysql_opts, vtgate};
use common::{assert_stream_fails, poll_until, timeouts, Materialized};
use mysql_async::prelude::Queryable;
use rcgen::ExtendedKeyUsagePurpose;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::options::{AuthMode, TabletType, TlsOptions};
use vitess_cdc_core::{ErrorKind, Event, StartMode, StreamOptions, Value};
use vitess_cdc_testkit::front::{BasicAuthFront, FrontConfig};
use vitess_cdc_testkit::ServerTls;

const KEYSPACE: &str = "customer";
/// The cell PlanetScale's VTGates serve (docs/tls.md, "PlanetScale").
const CELL: &str = "planetscale_operator_default";
/// vttestserver's one cell, which the front's cell stands for.
const LOCAL_CELL: &str = "test";
const USER: &str = "cdc-reader";
const PASSWORD: &str = "pscale_pw_s3cr3t";

struct Front {
    front: BasicAuthFront,
    ca_path: String,
    _dir: TempDir,
    rt: tokio::runtime::Runtime,
}

fn front() -> Front {
    let dir = TempDir::new();
    let ca = Ca::new("vitess-cdc front CA");
    let (cert_pem, key_pem) = ca.leaf(
        &["localhost", "127.0.0.1"],
        ExtendedKeyUsagePurpose::ServerAuth,
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let front = rt.block_on(BasicAuthFront::start(
        FrontConfig {
            upstream: vtgate(),
            user: USER.into(),
            password: PASSWORD.into(),
            cell: CELL.into(),
            upstream_cell: LOCAL_CELL.into(),
        },
        ServerTls {
            cert_pem,
            key_pem,
            client_ca_pem: None,
        },
    ));
    Front {
        front,
        ca_path: dir.write("ca.pem", &ca.pem()),
        _dir: dir,
        rt,
    }
}

/// The settings docs/tls.md gives for PlanetScale.
fn planetscale_options(f: &Front) -> StreamOptions {
    let mut o = StreamOptions::new(f.front.address(), KEYSPACE);
    o.tables = vec!["customer".into()];
    o.start = StartMode::Latest;
    o.tablet_type = TabletType::Primary;
    o.cells = Some(CELL.into());
    o.username = Some(USER.into());
    o.password = Some(PASSWORD.into());
    o.auth_mode = AuthMode::Basic;
    o.tls = Some(TlsOptions {
        ca_cert_path: Some(f.ca_path.clone()),
        ..Default::default()
    });
    o.connect_timeout = Duration::from_secs(5);
    o.retry_initial_backoff = Duration::from_millis(10);
    o.retry_max_backoff = Duration::from_millis(50);
    o.retry_max_attempts = 2;
    o
}

fn unique_id() -> i64 {
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64;
    9_000_000_000_000 + micros % 1_000_000_000_000
}

#[test]
fn basic_auth_over_tls_in_the_fronts_cell_streams() {
    let f = front();
    let stream = BlockingStream::open(planetscale_options(&f)).expect("open through the front");
    let id = unique_id();
    f.rt.block_on(async {
        let mut conn = mysql_async::Conn::new(mysql_opts(KEYSPACE)).await.unwrap();
        conn.query_drop(format!(
            "insert into customer (customer_id, email, name, visits) values ({id}, 'ps@example.com', 'through the front', 1)"
        ))
        .await
        .unwrap();
        conn.query_drop(format!("delete from customer where customer_id = {id}"))
            .await
            .unwrap();
        conn.disconnect().await.ok();
    });
    let mut view = Materialized::default();
    poll_until(&stream, &mut view, timeouts::events(), |e, _| {
        matches!(e, Event::Change(c) if c.values.first() == Some(&Value::Int(id)) && !c.is_snapshot
            && c.kind == vitess_cdc_core::RowKind::Delete)
    });
    view.assert_strict();
    stream.close();
}

#[test]
fn a_wrong_password_is_named() {
    let f = front();
    let mut o = planetscale_options(&f);
    o.password = Some("not-the-password".into());
    let err = assert_stream_fails(
        o,
        &["rejected the credentials", "check username and password"],
    );
    assert_eq!(err.kind, ErrorKind::Config);
}

#[test]
fn static_auth_against_a_basic_auth_front_points_to_the_auth_mode() {
    let f = front();
    let mut o = planetscale_options(&f);
    o.auth_mode = AuthMode::Static;
    let err = assert_stream_fails(o, &["requires credentials", "auth mode basic"]);
    assert_eq!(err.kind, ErrorKind::Config);
}

#[test]
fn basic_auth_without_tls_is_refused_before_it_sends_the_password() {
    let f = front();
    let mut o = planetscale_options(&f);
    o.tls = None;
    let err = assert_stream_fails(o, &["auth mode basic", "turn TLS on"]);
    assert_eq!(err.kind, ErrorKind::Config);
}

#[test]
fn a_cell_vtgate_does_not_have_is_named() {
    let f = front();
    let mut o = planetscale_options(&f);
    o.cells = Some("planetscale_wrong_cell".into());
    let err = assert_stream_fails(o, &["planetscale_wrong_cell", "set the cells option"]);
    assert_eq!(err.kind, ErrorKind::Config);
}
