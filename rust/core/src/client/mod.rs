// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The gRPC connection to VTGate: channel setup (plaintext, TLS, mTLS), static auth, message
//! limits, keepalive, and the two RPCs the core uses (`VStream`, and `Execute` for discovery).
//!
//! Every failure here is turned into an [`Error`] whose message names the cause and the fix,
//! because these are the errors users hit first (wrong port, TLS mismatch, credentials).
//!
//! - this file: the client and its RPCs (`VStream`, `Execute` with retries of passing refusals);
//! - `connect`: the channel (address, TLS and mTLS, static auth, keepalive, limits);
//! - `metadata`: what the SQL of `information_schema` and `@@version_comment` tells about a
//!   keyspace (shards, tables, primary keys and their order, columns, row estimates, version);
//! - `classify`: failures turned into errors that name cause and fix;
//! - `codec`: the VStream response decoder that keeps each message's encoded size;
//! - `row_runs`: which ROW events of a response the decoder joins (the same but for their rows).

mod classify;
pub mod codec;
pub(crate) mod connect;
mod metadata;
mod row_runs;
use classify::{refusal_error, tls_status_error};
pub use classify::{status_error, TlsMode};
pub use codec::ReceivedResponse;
pub use connect::CallCredentials;
pub(crate) use metadata::sql_string;
pub use metadata::{
    parse_version_comment, KeyspaceInfo, PrimaryKeys, ServerVersion, TableRowEstimates,
};

use crate::error::{Error, Result};
use crate::options::TabletType;
use crate::proto::query::{BoundQuery, QueryResult};
use crate::proto::topodata;
use crate::proto::vtgate::{ExecuteRequest, Session, VStreamRequest};
use crate::proto::vtgateservice::vitess_client::VitessClient;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

/// Attempts of a read ([`VtgateClient::execute`]) that VTGate refused for a passing reason.
/// Enough to outlast VTGate v22's refusals of discovery queries while dozens of streams open at
/// once (`keyspace names fetch error: context canceled`), about 3.5 s of pauses in all.
const READ_ATTEMPTS: u32 = 8;
/// Pause before the second attempt of such a read; each later one doubles it, up to
/// [`READ_RETRY_MAX_PAUSE`], with jitter so that streams refused together retry apart.
const READ_RETRY_PAUSE: Duration = Duration::from_millis(50);
const READ_RETRY_MAX_PAUSE: Duration = Duration::from_secs(1);

/// VTGate enforces a minimum ping interval of 10 s and answers faster pings with GOAWAY
/// `too_many_pings`, so the client never pings more often than this.
pub const MIN_KEEPALIVE: Duration = Duration::from_secs(10);

type Service = InterceptedService<Channel, CallCredentials>;
type Inner = VitessClient<Service>;

/// A connected VTGate client. Cheap to clone (one HTTP/2 connection underneath).
#[derive(Clone)]
pub struct VtgateClient {
    inner: Inner,
    /// The same connection for the VStream call, with its own codec ([`codec::VStreamCodec`]).
    vstream_grpc: tonic::client::Grpc<Service>,
    address: String,
    rpc_timeout: Duration,
    tls: TlsMode,
    /// Whether VTGate ever answered a call on this connection (shared by the clones). A
    /// plaintext connection broken off before an answer hints at a TLS port only while none
    /// came: once one did, the port speaks plaintext, and a broken-off call is a restart.
    answered: Arc<AtomicBool>,
}

impl VtgateClient {
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Classifies a failed call: TLS problems that only show after the handshake (a server
    /// refusing the client certificate, or requiring one) get a message naming the fix; the
    /// rest goes through [`status_error`]. `discovery` = a call made while opening the stream,
    /// where a plaintext connection broken off before any answer hints at a TLS port.
    pub fn rpc_error(&self, status: &tonic::Status, discovery: bool) -> Error {
        let never_answered = !self.answered.load(Ordering::Relaxed);
        tls_status_error(&self.address, self.tls, status, discovery, never_answered)
            .unwrap_or_else(|| status_error(&self.address, status))
    }

    /// VTGate answered a call: the connection's port speaks this client's protocol.
    fn answered(&self) {
        self.answered.store(true, Ordering::Relaxed);
    }

    /// Starts a VStream. Returns once VTGate answered with response headers (or an error).
    /// VTGate (grpc-go) sends its headers together with the first events, which can take a
    /// while during a copy, so the wait is given separately from the connect timeout.
    pub async fn vstream(
        &self,
        request: VStreamRequest,
        wait: Duration,
    ) -> Result<tonic::Streaming<ReceivedResponse>> {
        let mut grpc = self.vstream_grpc.clone();
        let call = async move {
            // As the generated client words it, which the error classification reads.
            grpc.ready()
                .await
                .map_err(|e| tonic::Status::unknown(format!("Service was not ready: {e}")))?;
            let mut request = tonic::IntoRequest::into_request(request);
            request
                .extensions_mut()
                .insert(tonic::GrpcMethod::new("vtgateservice.Vitess", "VStream"));
            let path = tonic::codegen::http::uri::PathAndQuery::from_static(
                "/vtgateservice.Vitess/VStream",
            );
            grpc.server_streaming(request, path, codec::VStreamCodec)
                .await
        };
        match tokio::time::timeout(wait, call).await {
            Ok(Ok(response)) => {
                self.answered();
                Ok(response.into_inner())
            }
            // Starting the VStream is still part of opening: a plaintext connection broken off
            // before any answer gets the TLS hint here too (retryable unless certainly TLS).
            Ok(Err(status)) => Err(self.rpc_error(&status, true)),
            Err(_) => Err(Error::retryable(format!(
                "VTGate at {} did not start the VStream within {wait:?}",
                self.address
            ))),
        }
    }

    /// Runs one read-only autocommit statement through VTGate and returns its result. A
    /// refusal that is over by the next attempt ([`classify::refusal_error`]: an interrupted
    /// tablet query, a tablet that is restarting or being reparented, VTGate v22's canceled
    /// keyspace fetch) is retried [`READ_ATTEMPTS`] times in all, with growing pauses: discovery runs these when every reader opens, and one
    /// interrupted `information_schema` query must not fail a job. Not for writes, which
    /// [`execute_on`](Self::execute_on) runs once.
    pub async fn execute(&self, sql: &str) -> Result<QueryResult> {
        let mut attempt = 1;
        loop {
            match self.execute_once("", sql).await? {
                Ok(result) => return Ok(result),
                Err(refused) if refused.is_retryable() && attempt < READ_ATTEMPTS => {
                    tracing::debug!(attempt, error = %refused.message, "retrying a refused read");
                    tokio::time::sleep(read_retry_pause(attempt)).await;
                    attempt += 1;
                }
                Err(refused) => return Err(refused),
            }
        }
    }

    /// Runs one autocommit statement with the session's target set to `target` (`""` = VTGate
    /// plans it; `keyspace:shard` = one shard's tablet answers), once.
    pub async fn execute_on(&self, target: &str, sql: &str) -> Result<QueryResult> {
        self.execute_once(target, sql).await?
    }

    /// One `Execute` call. The outer error is the call's (no answer, a broken connection); the
    /// inner one is VTGate's refusal, which it puts in an answered response.
    async fn execute_once(&self, target: &str, sql: &str) -> Result<Result<QueryResult>> {
        let mut client = self.inner.clone();
        let request = ExecuteRequest {
            caller_id: None,
            session: Some(Session {
                autocommit: true,
                target_string: target.to_string(),
                ..Default::default()
            }),
            query: Some(BoundQuery {
                sql: sql.to_string(),
            }),
        };
        let response = match tokio::time::timeout(self.rpc_timeout, client.execute(request)).await {
            Ok(Ok(r)) => {
                self.answered();
                r.into_inner()
            }
            Ok(Err(status)) => return Err(self.rpc_error(&status, true)),
            Err(_) => {
                return Err(Error::retryable(format!(
                    "VTGate at {} did not answer `{sql}` within {:?}",
                    self.address, self.rpc_timeout
                )))
            }
        };
        if let Some(err) = response.error {
            return Ok(Err(refusal_error(sql, &err)));
        }
        Ok(response
            .result
            .ok_or_else(|| Error::fatal(format!("VTGate returned no result for `{sql}`"))))
    }
}

/// The pause after the `attempt`-th refused read: 50 ms doubled per attempt up to 1 s, drawn
/// uniformly from its upper half.
fn read_retry_pause(attempt: u32) -> Duration {
    use rand::Rng;
    let full = (READ_RETRY_PAUSE * 2u32.saturating_pow(attempt.saturating_sub(1)))
        .min(READ_RETRY_MAX_PAUSE);
    let half = full / 2;
    half + Duration::from_millis(rand::rng().random_range(0..=half.as_millis().max(1) as u64))
}

pub(crate) fn tablet_type(t: TabletType) -> topodata::TabletType {
    match t {
        TabletType::Primary => topodata::TabletType::Primary,
        TabletType::Replica => topodata::TabletType::Replica,
        TabletType::Rdonly => topodata::TabletType::Rdonly,
    }
}
