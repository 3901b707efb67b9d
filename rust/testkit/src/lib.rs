// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A scripted fake VTGate: a tonic server on 127.0.0.1:0 that answers `Execute` discovery
//! queries from a fixed keyspace description and plays a script of VStream responses, one
//! script *session* per VStream call. It produces what a real Vitess cannot on demand: grammar
//! corner cases, streams cut mid-transaction or mid-copy-batch, malformed and oversized events.
//!
//! ```text
//! let fake = FakeVtgate::start(Keyspace::single("ks", &[("t", true)]), vec![
//!     Session::new().send(vec![begin(), field("t"), insert("t", 1), vgtid("pos1"), commit()]).fail_unavailable(),
//!     Session::new().send(vec![/* replay from pos1 */]).hold(),
//! ]).await;
//! ```

pub mod events;
pub mod front;
pub mod reshard;

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};
use vitess_cdc_protos::query::{Field, QueryResult, Row, Type};
use vitess_cdc_protos::vtgate::{ExecuteRequest, ExecuteResponse, VStreamRequest, VStreamResponse};
use vitess_cdc_protos::vtrpc::{Code, RpcError};

use vitess_cdc_protos::vtgateservice::vitess_server::{Vitess, VitessServer};

/// What `Execute` discovery reports.
#[derive(Debug, Clone)]
pub struct Keyspace {
    pub name: String,
    pub shards: Vec<String>,
    /// (table, has primary key)
    pub tables: Vec<(String, bool)>,
    /// `@@version_comment`
    pub version_comment: String,
    /// Static auth the fake enforces like VTGate's `--grpc-auth-mode=static`: missing
    /// credentials → UNAUTHENTICATED, wrong ones → PERMISSION_DENIED.
    pub credentials: Option<(String, String)>,
    /// Answers of the first `Execute` calls, in order: the refusal VTGate puts in the response
    /// (not a gRPC status), e.g. a tablet's interrupted query. Later calls are answered.
    pub refusals: Vec<RpcError>,
}

impl Keyspace {
    /// The next `n` `Execute` calls are refused with `code` and `message` in the response.
    pub fn refusing(mut self, n: usize, code: Code, message: &str) -> Self {
        self.refusals.extend((0..n).map(|_| RpcError {
            code: code as i32,
            message: message.into(),
        }));
        self
    }

    pub fn with_credentials(mut self, user: &str, password: &str) -> Self {
        self.credentials = Some((user.into(), password.into()));
        self
    }

    pub fn new(name: &str, shards: &[&str], tables: &[(&str, bool)]) -> Self {
        Keyspace {
            name: name.into(),
            shards: shards.iter().map(|s| s.to_string()).collect(),
            tables: tables.iter().map(|(t, pk)| (t.to_string(), *pk)).collect(),
            version_comment: "Version: 24.0.4 (Git revision testkit)".into(),
            credentials: None,
            refusals: Vec::new(),
        }
    }
}

/// Server-side TLS material (PEM).
#[derive(Debug, Clone)]
pub struct ServerTls {
    pub cert_pem: String,
    pub key_pem: String,
    /// CA that client certificates must chain to; `Some` = mTLS (clients without a valid
    /// certificate are refused).
    pub client_ca_pem: Option<String>,
}

/// One step of a VStream session.
#[derive(Debug, Clone)]
pub enum Step {
    /// One `VStreamResponse` with these events.
    Send(Vec<vitess_cdc_protos::binlogdata::VEvent>),
    /// End the RPC with this status (e.g. UNAVAILABLE = connection trouble).
    Fail(tonic::Code, String),
    /// End the RPC with OK status (EOF).
    End,
    /// Keep the RPC open without sending anything until the client goes away.
    Hold,
    /// Wait this long before the next step.
    Pause(std::time::Duration),
    /// Keep the RPC open, sending a VTGate heartbeat at this interval, until the client goes
    /// away (what VTGate does on an idle stream with `heartbeat_interval`).
    Idle(std::time::Duration),
}

/// The responses of one VStream call.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub steps: Vec<Step>,
}

impl Session {
    pub fn new() -> Self {
        Session::default()
    }
    pub fn send(mut self, events: Vec<vitess_cdc_protos::binlogdata::VEvent>) -> Self {
        self.steps.push(Step::Send(events));
        self
    }
    pub fn fail_unavailable(mut self) -> Self {
        self.steps.push(Step::Fail(
            tonic::Code::Unavailable,
            "connection reset by peer".into(),
        ));
        self
    }
    pub fn fail(mut self, code: tonic::Code, message: &str) -> Self {
        self.steps.push(Step::Fail(code, message.into()));
        self
    }
    pub fn end(mut self) -> Self {
        self.steps.push(Step::End);
        self
    }
    pub fn hold(mut self) -> Self {
        self.steps.push(Step::Hold);
        self
    }
    pub fn pause(mut self, d: std::time::Duration) -> Self {
        self.steps.push(Step::Pause(d));
        self
    }
    pub fn idle(mut self, heartbeat_every: std::time::Duration) -> Self {
        self.steps.push(Step::Idle(heartbeat_every));
        self
    }
}

/// Builds the session of each VStream call from its request (for scenarios that depend on the
/// shards and positions asked for, e.g. several readers of one keyspace in any order).
pub type Responder = Arc<dyn Fn(&VStreamRequest) -> Session + Send + Sync>;

#[derive(Default)]
struct Shared {
    sessions: Vec<Session>,
    next: usize,
    requests: Vec<VStreamRequest>,
    refusals: std::collections::VecDeque<RpcError>,
    executes: usize,
}

struct Service {
    keyspace: Keyspace,
    shared: Arc<Mutex<Shared>>,
    responder: Option<Responder>,
}

/// A running fake VTGate. Dropping it stops the server.
pub struct FakeVtgate {
    pub addr: SocketAddr,
    shared: Arc<Mutex<Shared>>,
    _shutdown: oneshot::Sender<()>,
}

impl FakeVtgate {
    /// Starts the server (call inside a tokio runtime). `sessions` are played in order, one per
    /// VStream call; calls beyond the script hold the stream open.
    pub async fn start(keyspace: Keyspace, sessions: Vec<Session>) -> FakeVtgate {
        Self::start_with_limit(keyspace, sessions, 64 * 1024 * 1024).await
    }

    /// Like [`FakeVtgate::start`], sending messages up to `max_message_bytes`.
    pub async fn start_with_limit(
        keyspace: Keyspace,
        sessions: Vec<Session>,
        max_message_bytes: usize,
    ) -> FakeVtgate {
        Self::start_inner(keyspace, sessions, max_message_bytes, None, None).await
    }

    /// Like [`FakeVtgate::start`], answering every VStream call with `responder(request)`.
    pub async fn start_with_responder(keyspace: Keyspace, responder: Responder) -> FakeVtgate {
        Self::start_inner(
            keyspace,
            Vec::new(),
            64 * 1024 * 1024,
            None,
            Some(responder),
        )
        .await
    }

    /// Like [`FakeVtgate::start_with_responder`] on a given address (`127.0.0.1:0` = any port).
    pub async fn serve_with_responder(
        addr: SocketAddr,
        keyspace: Keyspace,
        responder: Responder,
    ) -> std::io::Result<FakeVtgate> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        Ok(Self::serve(
            listener,
            keyspace,
            Vec::new(),
            64 * 1024 * 1024,
            None,
            Some(responder),
        ))
    }

    /// Like [`FakeVtgate::start`], serving TLS (and verifying client certificates when
    /// `tls.client_ca_pem` is set, like VTGate's `--grpc-ca`). Clients connect to
    /// `https://` + [`address`](Self::address).
    pub async fn start_tls(
        keyspace: Keyspace,
        sessions: Vec<Session>,
        tls: ServerTls,
    ) -> FakeVtgate {
        let mut config = tonic::transport::ServerTlsConfig::new().identity(
            tonic::transport::Identity::from_pem(&tls.cert_pem, &tls.key_pem),
        );
        if let Some(ca) = &tls.client_ca_pem {
            config = config.client_ca_root(tonic::transport::Certificate::from_pem(ca));
        }
        Self::start_inner(keyspace, sessions, 64 * 1024 * 1024, Some(config), None).await
    }

    async fn start_inner(
        keyspace: Keyspace,
        sessions: Vec<Session>,
        max_message_bytes: usize,
        tls: Option<tonic::transport::ServerTlsConfig>,
        responder: Option<Responder>,
    ) -> FakeVtgate {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        Self::serve(
            listener,
            keyspace,
            sessions,
            max_message_bytes,
            tls,
            responder,
        )
    }

    fn serve(
        listener: tokio::net::TcpListener,
        keyspace: Keyspace,
        sessions: Vec<Session>,
        max_message_bytes: usize,
        tls: Option<tonic::transport::ServerTlsConfig>,
        responder: Option<Responder>,
    ) -> FakeVtgate {
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Mutex::new(Shared {
            sessions,
            refusals: keyspace.refusals.iter().cloned().collect(),
            ..Default::default()
        }));
        let service = Service {
            keyspace,
            shared: shared.clone(),
            responder,
        };
        let (tx, rx) = oneshot::channel::<()>();
        let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
        tokio::spawn(async move {
            let svc = VitessServer::new(service)
                .max_encoding_message_size(max_message_bytes)
                .max_decoding_message_size(max_message_bytes);
            let mut builder = tonic::transport::Server::builder();
            if let Some(tls) = tls {
                builder = match builder.tls_config(tls) {
                    Ok(b) => b,
                    Err(e) => panic!("testkit: invalid server TLS config: {e}"),
                };
            }
            let _ = builder
                .add_service(svc)
                .serve_with_incoming_shutdown(incoming, async {
                    let _ = rx.await;
                })
                .await;
        });
        FakeVtgate {
            addr,
            shared,
            _shutdown: tx,
        }
    }

    pub fn address(&self) -> String {
        self.addr.to_string()
    }

    /// How many `Execute` calls arrived so far (refused ones included).
    pub fn executes(&self) -> usize {
        self.shared.lock().map(|s| s.executes).unwrap_or_default()
    }

    /// Every VStream request received so far (to check resume positions).
    pub fn requests(&self) -> Vec<VStreamRequest> {
        self.shared
            .lock()
            .map(|s| s.requests.clone())
            .unwrap_or_default()
    }
}

fn text_result(column: &str, values: &[String]) -> QueryResult {
    let rows: Vec<Vec<String>> = values.iter().map(|v| vec![v.clone()]).collect();
    text_rows(&[column], &rows)
}

/// A result of text columns, one `Vec` of cells per row.
fn text_rows(columns: &[&str], rows: &[Vec<String>]) -> QueryResult {
    QueryResult {
        fields: columns
            .iter()
            .map(|c| Field {
                name: (*c).into(),
                r#type: Type::Varchar as i32,
                ..Default::default()
            })
            .collect(),
        rows: rows
            .iter()
            .map(|cells| {
                Row::with_lengths(
                    cells.iter().map(|c| c.len() as i64),
                    cells.concat().into_bytes(),
                )
            })
            .collect(),
        ..Default::default()
    }
}

impl Service {
    fn check_auth(&self, metadata: &tonic::metadata::MetadataMap) -> Result<(), Status> {
        let Some((user, password)) = &self.keyspace.credentials else {
            return Ok(());
        };
        let get = |k: &str| {
            metadata
                .get(k)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        match (get("username"), get("password")) {
            (Some(u), Some(p)) if &u == user && &p == password => Ok(()),
            (Some(u), _) => Err(Status::permission_denied(format!(
                "auth failure: caller \"{u}\" provided invalid credentials"
            ))),
            _ => Err(Status::unauthenticated(
                "username and password must be provided",
            )),
        }
    }
}

type VStreamStream = Pin<Box<dyn Stream<Item = Result<VStreamResponse, Status>> + Send>>;

#[tonic::async_trait]
impl Vitess for Service {
    async fn execute(
        &self,
        request: Request<ExecuteRequest>,
    ) -> Result<Response<ExecuteResponse>, Status> {
        let sql = request
            .into_inner()
            .query
            .map(|q| q.sql)
            .unwrap_or_default()
            .to_lowercase();
        let refusal = {
            let mut shared = self
                .shared
                .lock()
                .map_err(|_| Status::internal("poisoned"))?;
            shared.executes += 1;
            shared.refusals.pop_front()
        };
        if let Some(error) = refusal {
            return Ok(Response::new(ExecuteResponse {
                error: Some(error),
                session: None,
                result: None,
            }));
        }
        let ks = &self.keyspace;
        let result = if sql.contains("@@version_comment") {
            text_result(
                "@@version_comment",
                std::slice::from_ref(&ks.version_comment),
            )
        } else if sql.contains("show vitess_shards") {
            text_result(
                "Shards",
                &ks.shards
                    .iter()
                    .map(|s| format!("{}/{s}", ks.name))
                    .collect::<Vec<_>>(),
            )
        } else if sql.contains("information_schema.tables") {
            let tables = if sql.contains(&format!("'{}'", ks.name)) {
                ks.tables.iter().map(|t| t.0.clone()).collect()
            } else {
                vec![]
            };
            text_result("TABLE_NAME", &tables)
        } else if sql.contains("information_schema.statistics") {
            // Primary-key columns: every keyed table's key is `id`, as the event builders' rows.
            let keys: Vec<Vec<String>> = if sql.contains(&format!("'{}'", ks.name)) {
                ks.tables
                    .iter()
                    .filter(|t| t.1)
                    .map(|t| vec![t.0.clone(), "id".to_string()])
                    .collect()
            } else {
                vec![]
            };
            text_rows(&["TABLE_NAME", "COLUMN_NAME"], &keys)
        } else if sql.contains("information_schema.columns") {
            let tables = if sql.contains(&format!("'{}'", ks.name)) {
                ks.tables
                    .iter()
                    .filter(|t| t.1)
                    .map(|t| t.0.clone())
                    .collect()
            } else {
                vec![]
            };
            text_result("TABLE_NAME", &tables)
        } else {
            return Err(Status::unimplemented(format!(
                "testkit: unexpected query {sql}"
            )));
        };
        Ok(Response::new(ExecuteResponse {
            error: None,
            session: None,
            result: Some(result),
        }))
    }

    type VStreamStream = VStreamStream;

    async fn v_stream(
        &self,
        request: Request<VStreamRequest>,
    ) -> Result<Response<Self::VStreamStream>, Status> {
        self.check_auth(request.metadata())?;
        let session = {
            let mut shared = self
                .shared
                .lock()
                .map_err(|_| Status::internal("poisoned"))?;
            let request = request.into_inner();
            let session = self.responder.as_ref().map(|respond| respond(&request));
            shared.requests.push(request);
            let i = shared.next;
            shared.next += 1;
            session.unwrap_or_else(|| {
                shared
                    .sessions
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| Session::new().hold())
            })
        };
        let stream = async_stream(session.steps);
        Ok(Response::new(Box::pin(stream)))
    }
}

/// Turns the steps into a response stream (without extra dependencies).
fn async_stream(steps: Vec<Step>) -> impl Stream<Item = Result<VStreamResponse, Status>> + Send {
    futures::stream::unfold((steps.into_iter(), false), |(mut steps, done)| async move {
        if done {
            return None;
        }
        match steps.next() {
            None | Some(Step::Hold) => {
                futures::future::pending::<()>().await;
                None
            }
            Some(Step::Send(events)) => Some((Ok(VStreamResponse { events }), (steps, false))),
            Some(Step::Fail(code, message)) => {
                Some((Err(Status::new(code, message)), (steps, true)))
            }
            Some(Step::End) => None,
            Some(Step::Pause(d)) => {
                tokio::time::sleep(d).await;
                Some((Ok(VStreamResponse { events: vec![] }), (steps, false)))
            }
            Some(Step::Idle(every)) => {
                tokio::time::sleep(every).await;
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default();
                let heartbeat = vitess_cdc_protos::binlogdata::VEvent {
                    r#type: vitess_cdc_protos::binlogdata::VEventType::Heartbeat as i32,
                    timestamp: now.as_secs() as i64,
                    current_time: now.as_nanos() as i64,
                    ..Default::default()
                };
                // the same step again, forever
                let rest: Vec<Step> = std::iter::once(Step::Idle(every)).chain(steps).collect();
                Some((
                    Ok(VStreamResponse {
                        events: vec![heartbeat],
                    }),
                    (rest.into_iter(), false),
                ))
            }
        }
    })
}
