// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! `reshard-vtgate`: serves the scripted reshard scenario of `vitess_cdc_testkit::reshard` on
//! 127.0.0.1 (a fake VTGate for tests of consumers in other languages, e.g. the Flink ITCase).
//!
//! ```text
//! reshard-vtgate [--port N] [--keys N] [--before N] [--after N] [--batch N] [--pace-ms N]
//! ```
//!
//! Prints `listening on 127.0.0.1:<port>` on stdout once it accepts connections, then serves
//! until stdin is closed (so it never outlives the process that started it) or it is killed.

use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::time::Duration;
use vitess_cdc_testkit::reshard::Scenario;
use vitess_cdc_testkit::FakeVtgate;

fn main() {
    let mut scenario = Scenario::default();
    let mut port: u16 = 0;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().unwrap_or_default();
        let number = || -> u64 {
            value.parse().unwrap_or_else(|_| {
                eprintln!("{flag} needs a number, got '{value}'");
                std::process::exit(2)
            })
        };
        match flag.as_str() {
            "--port" => port = number() as u16,
            "--keys" => scenario.keys = number() as i64,
            "--before" => scenario.before = number() as i64,
            "--after" => scenario.after = number() as i64,
            "--batch" => scenario.batch = number().max(1) as usize,
            "--pace-ms" => scenario.pace = Duration::from_millis(number()),
            _ => {
                eprintln!("unknown flag {flag}; see the doc comment of rust/testkit/src/bin/reshard-vtgate.rs");
                std::process::exit(2)
            }
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let keyspace = scenario.keyspace();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let fake = runtime
        .block_on(FakeVtgate::serve_with_responder(
            addr,
            keyspace,
            scenario.responder(),
        ))
        .unwrap_or_else(|e| {
            eprintln!("cannot listen on {addr}: {e}");
            std::process::exit(1)
        });
    println!("listening on {}", fake.address());
    let _ = std::io::stdout().flush();
    // Serve until stdin closes.
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        if line.is_err() {
            break;
        }
    }
    drop(fake);
    runtime.shutdown_timeout(Duration::from_secs(1));
}
