// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The scripted-VTGate harness shared by the tests that play event sequences through
//! `rust/testkit`: a fake VTGate on its own small runtime, and stream options with fast retries.

use std::time::Duration;
use vitess_cdc_core::{StartMode, StreamOptions};
use vitess_cdc_testkit::{FakeVtgate, Keyspace, Session};

/// A running fake VTGate; dropping it stops the server and its runtime.
pub struct Harness {
    pub fake: FakeVtgate,
    _rt: tokio::runtime::Runtime,
}

impl Harness {
    pub fn start(keyspace: Keyspace, sessions: Vec<Session>) -> Harness {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime for the fake VTGate");
        let fake = rt.block_on(FakeVtgate::start(keyspace, sessions));
        Harness { fake, _rt: rt }
    }

    /// Options for table `t` of `keyspace`: no heartbeats, retries in milliseconds, so a
    /// scripted fault is retried at once and a test stays fast.
    pub fn options(&self, keyspace: &str, start: StartMode) -> StreamOptions {
        let mut o = StreamOptions::new(self.fake.address(), keyspace);
        o.tables = vec!["t".into()];
        o.start = start;
        o.heartbeat_interval_secs = 0;
        o.retry_initial_backoff = Duration::from_millis(10);
        o.retry_max_backoff = Duration::from_millis(50);
        o.connect_timeout = Duration::from_secs(5);
        o
    }
}
