// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A front that speaks PlanetScale's way in to a real VTGate: TLS only, per-call HTTP Basic
//! credentials (`authorization: Basic base64(user:password)`) instead of Vitess's static-auth
//! metadata, and a cell of its own name (PlanetScale's is `planetscale_operator_default`). Each
//! call that passes is forwarded, unchanged but for the cell, to the VTGate behind it, whose
//! answers and errors come back as they are. A real Vitess does none of this by itself, and
//! PlanetScale is not reachable from the tests.

use base64::Engine;
use std::net::SocketAddr;
use std::pin::Pin;
use tokio::sync::oneshot;
use tokio_stream::{Stream, StreamExt};
use tonic::metadata::MetadataMap;
use tonic::{Request, Response, Status};
use vitess_cdc_protos::vtgate::{ExecuteRequest, ExecuteResponse, VStreamRequest, VStreamResponse};
use vitess_cdc_protos::vtgateservice::vitess_client::VitessClient;
use vitess_cdc_protos::vtgateservice::vitess_server::{Vitess, VitessServer};

use crate::ServerTls;

/// Who the front lets in and where it forwards to.
#[derive(Debug, Clone)]
pub struct FrontConfig {
    /// The real VTGate's gRPC address (`host:port`, plaintext).
    pub upstream: String,
    pub user: String,
    pub password: String,
    /// The cell name clients must ask for, and the upstream cell it stands for.
    pub cell: String,
    pub upstream_cell: String,
}

/// A running front; stops when dropped.
pub struct BasicAuthFront {
    addr: SocketAddr,
    _shutdown: oneshot::Sender<()>,
}

impl BasicAuthFront {
    /// Serves TLS with `tls` on 127.0.0.1:0.
    pub async fn start(config: FrontConfig, tls: ServerTls) -> BasicAuthFront {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let server_tls = tonic::transport::ServerTlsConfig::new().identity(
            tonic::transport::Identity::from_pem(&tls.cert_pem, &tls.key_pem),
        );
        let token = base64::engine::general_purpose::STANDARD
            .encode(format!("{}:{}", config.user, config.password));
        let service = Front {
            expected: format!("Basic {token}"),
            config,
            upstream: tokio::sync::OnceCell::new(),
        };
        let (tx, rx) = oneshot::channel::<()>();
        let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
        tokio::spawn(async move {
            let _ = tonic::transport::Server::builder()
                .tls_config(server_tls)
                .expect("testkit: valid server TLS config")
                .add_service(
                    VitessServer::new(service)
                        .max_decoding_message_size(64 << 20)
                        .max_encoding_message_size(64 << 20),
                )
                .serve_with_incoming_shutdown(incoming, async {
                    let _ = rx.await;
                })
                .await;
        });
        BasicAuthFront {
            addr,
            _shutdown: tx,
        }
    }

    /// `127.0.0.1:port`.
    pub fn address(&self) -> String {
        self.addr.to_string()
    }
}

struct Front {
    config: FrontConfig,
    expected: String,
    /// One connection to the upstream VTGate for every call, as a real front keeps (VTGate v22
    /// cancels discovery queries of connections that come and go: "keyspace names fetch error:
    /// context canceled").
    upstream: tokio::sync::OnceCell<VitessClient<tonic::transport::Channel>>,
}

impl Front {
    /// What a Basic-auth front answers: no header, or the wrong one.
    fn check(&self, metadata: &MetadataMap) -> Result<(), Status> {
        match metadata.get("authorization").and_then(|v| v.to_str().ok()) {
            Some(given) if given == self.expected => Ok(()),
            Some(_) => Err(Status::unauthenticated(
                "invalid credentials: the username or password is incorrect",
            )),
            None => Err(Status::unauthenticated(
                "missing credentials: an Authorization header is required",
            )),
        }
    }

    async fn upstream(&self) -> Result<VitessClient<tonic::transport::Channel>, Status> {
        self.upstream
            .get_or_try_init(|| async {
                VitessClient::connect(format!("http://{}", self.config.upstream))
                    .await
                    .map(|c| {
                        c.max_decoding_message_size(64 << 20)
                            .max_encoding_message_size(64 << 20)
                    })
                    .map_err(|e| {
                        Status::unavailable(format!("front: upstream VTGate unreachable: {e}"))
                    })
            })
            .await
            .cloned()
    }
}

type VStreamStream = Pin<Box<dyn Stream<Item = Result<VStreamResponse, Status>> + Send>>;

#[tonic::async_trait]
impl Vitess for Front {
    async fn execute(
        &self,
        request: Request<ExecuteRequest>,
    ) -> Result<Response<ExecuteResponse>, Status> {
        self.check(request.metadata())?;
        let answer = self
            .upstream()
            .await?
            .execute(Request::new(request.into_inner()))
            .await?;
        Ok(Response::new(answer.into_inner()))
    }

    type VStreamStream = VStreamStream;

    async fn v_stream(
        &self,
        request: Request<VStreamRequest>,
    ) -> Result<Response<Self::VStreamStream>, Status> {
        self.check(request.metadata())?;
        let mut request = request.into_inner();
        if let Some(flags) = request.flags.as_mut() {
            // The front serves its own cell (named for the upstream's) and no other. A real VTGate
            // v24 quietly streams from its own cell when asked for one it does not have.
            match flags.cells.as_str() {
                "" => {}
                cell if cell == self.config.cell => flags.cells = self.config.upstream_cell.clone(),
                other => {
                    return Err(Status::failed_precondition(format!(
                        "cell '{other}' is not served here: this database's cell is '{}'",
                        self.config.cell
                    )))
                }
            }
        }
        let answers = self
            .upstream()
            .await?
            .v_stream(Request::new(request))
            .await?
            .into_inner();
        Ok(Response::new(Box::pin(answers.map(|r| r))))
    }
}
