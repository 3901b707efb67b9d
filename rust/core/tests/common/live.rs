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

/// Runs SQL statements through VTGate's MySQL port in `keyspace`, on a runtime of its own (the
/// tests are synchronous); a refused statement fails the test, naming it.
pub fn sql(keyspace: &str, statements: &[String]) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use mysql_async::prelude::Queryable;
        let mut conn = mysql_async::Conn::new(mysql_opts(keyspace))
            .await
            .expect("connect to VTGate's MySQL port");
        for s in statements {
            conn.query_drop(s)
                .await
                .unwrap_or_else(|e| panic!("{}: {e:.300}", &s[..s.len().min(200)]));
        }
        conn.disconnect().await.ok();
    });
}

/// Ids between two calls' bases: a test adds up to 900 000 to its base and reads a range of up
/// to 1 000 000 from there.
const ID_RANGE_SPACING: i64 = 10_000_000;

/// A fresh id base for a test: time and process based, so runs do not meet, and at least
/// [`ID_RANGE_SPACING`] above the base any earlier call of this process got. Tests of one binary
/// run in parallel and may ask within the same millisecond; with the clock alone they shared a
/// base, and one test's range held the other's rows (and its cleanup deleted them).
pub fn id_base() -> i64 {
    use std::sync::atomic::{AtomicI64, Ordering};
    static LAST: AtomicI64 = AtomicI64::new(i64::MIN);
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let from_clock =
        (millis % 1_000_000_000_000) * 1_000_000 + (std::process::id() as i64 % 1000) * 1000;
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        let base = from_clock.max(last.saturating_add(ID_RANGE_SPACING));
        match LAST.compare_exchange_weak(last, base, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return base,
            Err(now) => last = now,
        }
    }
}
