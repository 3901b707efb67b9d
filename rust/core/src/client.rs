//! The gRPC connection to VTGate: channel setup (plaintext, TLS, mTLS), static auth, message
//! limits, keepalive, and the two RPCs the core uses (`VStream`, and `Execute` for discovery).
//!
//! Every failure here is turned into an [`Error`] whose message names the cause and the fix,
//! because these are the errors users hit first (wrong port, TLS mismatch, credentials).

use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::options::{StreamOptions, TabletType, TlsOptions};
use crate::proto::query::{BoundQuery, QueryResult};
use crate::proto::topodata;
use crate::proto::vtgate::{ExecuteRequest, Session, VStreamRequest, VStreamResponse};
use crate::proto::vtgateservice::vitess_client::VitessClient;
use std::time::Duration;
use tonic::metadata::AsciiMetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

/// VTGate enforces a minimum ping interval of 10 s and answers faster pings with GOAWAY
/// `too_many_pings`, so the client never pings more often than this.
pub const MIN_KEEPALIVE: Duration = Duration::from_secs(10);

/// Adds VTGate static-auth credentials (`username` / `password` metadata) to every call.
#[derive(Clone, Default)]
pub struct StaticAuth {
    credentials: Option<(AsciiMetadataValue, AsciiMetadataValue)>,
}

impl StaticAuth {
    fn from_options(options: &StreamOptions) -> Result<Self> {
        let ascii = |what: &str, v: &str| {
            AsciiMetadataValue::try_from(v).map_err(|_| {
                Error::config(format!(
                    "the {what} for VTGate static auth must be printable ASCII (gRPC metadata)"
                ))
                .with_code(ErrorCode::InvalidOption)
            })
        };
        let credentials = match (&options.username, &options.password) {
            (None, None) => None,
            (Some(u), p) => Some((
                ascii("username", u)?,
                ascii("password", p.as_deref().unwrap_or(""))?,
            )),
            (None, Some(_)) => {
                return Err(Error::config(
                    "a password was given without a username: set both for VTGate static auth",
                )
                .with_code(ErrorCode::InvalidOption))
            }
        };
        Ok(StaticAuth { credentials })
    }
}

impl tonic::service::Interceptor for StaticAuth {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> std::result::Result<tonic::Request<()>, tonic::Status> {
        if let Some((user, password)) = &self.credentials {
            request.metadata_mut().insert("username", user.clone());
            request.metadata_mut().insert("password", password.clone());
        }
        Ok(request)
    }
}

type Inner = VitessClient<InterceptedService<Channel, StaticAuth>>;

/// A connected VTGate client. Cheap to clone (one HTTP/2 connection underneath).
#[derive(Clone)]
pub struct VtgateClient {
    inner: Inner,
    address: String,
    rpc_timeout: Duration,
    tls: TlsMode,
}

/// How the connection is secured: decides the hints in connection errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    Off,
    /// TLS without a client certificate.
    ServerOnly,
    /// TLS with a client certificate (mTLS).
    Mutual,
}

impl TlsMode {
    fn of(options: &StreamOptions) -> TlsMode {
        match &options.tls {
            None => TlsMode::Off,
            Some(t) if t.client_cert_path.is_some() => TlsMode::Mutual,
            Some(_) => TlsMode::ServerOnly,
        }
    }
}

/// What `Execute`-based discovery learned about a keyspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyspaceInfo {
    pub shards: Vec<String>,
    /// Base tables of the keyspace, with whether each has a primary key, sorted by name.
    pub tables: Vec<(String, bool)>,
}

/// A Vitess server version as reported by `@@version_comment` (e.g. `Version: 24.0.4 (...)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ServerVersion {
    pub major: u32,
    pub minor: u32,
}

impl VtgateClient {
    /// Opens the HTTP/2 connection, failing within `options.connect_timeout`.
    pub async fn connect(options: &StreamOptions) -> Result<Self> {
        let uri = endpoint_uri(&options.address, options.tls.is_some())?;
        let mut endpoint = Endpoint::from_shared(uri.clone())
            .map_err(|e| {
                Error::config(format!(
                    "invalid VTGate address '{}': {e} — use host:port, e.g. 127.0.0.1:15991",
                    options.address
                ))
            })?
            .connect_timeout(options.connect_timeout)
            .tcp_nodelay(true)
            .http2_keep_alive_interval(options.keepalive_interval.max(MIN_KEEPALIVE))
            .keep_alive_timeout(Duration::from_secs(20))
            // VTGate's policy is permit-without-stream=false: idle pings would get GOAWAY.
            .keep_alive_while_idle(false)
            .http2_adaptive_window(true);
        if let Some(tls) = &options.tls {
            endpoint = endpoint.tls_config(tls_config(tls)?).map_err(|e| {
                Error::config(format!("invalid TLS configuration for VTGate: {e}"))
                    .with_code(ErrorCode::TlsMismatch)
                    .with_source(e)
            })?;
        }
        let auth = StaticAuth::from_options(options)?;
        let span = tracing::info_span!("connect", address = %options.address);
        let _enter = span.enter();
        let channel = match tokio::time::timeout(options.connect_timeout, endpoint.connect()).await
        {
            Ok(Ok(channel)) => channel,
            Ok(Err(e)) => return Err(transport_error(&options.address, options.tls.is_some(), &e)),
            Err(_) => {
                return Err(Error::retryable(format!(
                    "cannot reach VTGate at {}: no connection within {:?} — check the address, \
                     firewalls, and that VTGate's gRPC port is open",
                    options.address, options.connect_timeout
                ))
                .with_code(ErrorCode::Unreachable))
            }
        };
        tracing::debug!("connected");
        let inner = VitessClient::with_interceptor(channel, auth)
            .max_decoding_message_size(options.max_message_bytes)
            .max_encoding_message_size(options.max_message_bytes);
        Ok(VtgateClient {
            inner,
            address: options.address.clone(),
            rpc_timeout: options.connect_timeout,
            tls: TlsMode::of(options),
        })
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    /// Classifies a failed call: TLS problems that only show after the handshake (a server
    /// refusing the client certificate, or requiring one) get a message naming the fix; the
    /// rest goes through [`status_error`]. `discovery` = a call made while opening the stream,
    /// where a plaintext connection broken off before any answer hints at a TLS port.
    pub fn rpc_error(&self, status: &tonic::Status, discovery: bool) -> Error {
        tls_status_error(&self.address, self.tls, status, discovery)
            .unwrap_or_else(|| status_error(&self.address, status))
    }

    /// Starts a VStream. Returns once VTGate answered with response headers (or an error).
    /// VTGate (grpc-go) sends its headers together with the first events, which can take a
    /// while during a copy, so the wait is given separately from the connect timeout.
    pub async fn vstream(
        &self,
        request: VStreamRequest,
        wait: Duration,
    ) -> Result<tonic::Streaming<VStreamResponse>> {
        let mut client = self.inner.clone();
        match tokio::time::timeout(wait, client.v_stream(request)).await {
            Ok(Ok(response)) => Ok(response.into_inner()),
            // Starting the VStream is still part of opening: a plaintext connection broken off
            // before any answer gets the TLS hint here too (retryable unless certainly TLS).
            Ok(Err(status)) => Err(self.rpc_error(&status, true)),
            Err(_) => Err(Error::retryable(format!(
                "VTGate at {} did not start the VStream within {wait:?}",
                self.address
            ))),
        }
    }

    /// Runs one autocommit statement through VTGate and returns its result.
    pub async fn execute(&self, sql: &str) -> Result<QueryResult> {
        let mut client = self.inner.clone();
        let request = ExecuteRequest {
            caller_id: None,
            session: Some(Session {
                autocommit: true,
                ..Default::default()
            }),
            query: Some(BoundQuery {
                sql: sql.to_string(),
            }),
        };
        let response = match tokio::time::timeout(self.rpc_timeout, client.execute(request)).await {
            Ok(Ok(r)) => r.into_inner(),
            Ok(Err(status)) => return Err(self.rpc_error(&status, true)),
            Err(_) => {
                return Err(Error::retryable(format!(
                    "VTGate at {} did not answer `{sql}` within {:?}",
                    self.address, self.rpc_timeout
                )))
            }
        };
        if let Some(err) = response.error {
            return Err(Error::fatal(format!(
                "VTGate refused `{sql}`: {}",
                err.message
            )));
        }
        response
            .result
            .ok_or_else(|| Error::fatal(format!("VTGate returned no result for `{sql}`")))
    }

    /// The Vitess version of the VTGate, if it reports one.
    pub async fn server_version(&self) -> Result<Option<ServerVersion>> {
        let result = self.execute("select @@version_comment").await?;
        Ok(first_cell_text(&result).and_then(|s| parse_version_comment(&s)))
    }

    /// Shards and tables of `keyspace`. Fails with a config error naming the known keyspaces
    /// when the keyspace does not exist.
    pub async fn describe_keyspace(&self, keyspace: &str) -> Result<KeyspaceInfo> {
        let shards_result = self.execute("show vitess_shards").await?;
        let mut keyspaces = std::collections::BTreeSet::new();
        let mut shards = Vec::new();
        for cell in text_column(&shards_result, 0)? {
            if let Some((ks, shard)) = cell.split_once('/') {
                keyspaces.insert(ks.to_string());
                if ks == keyspace {
                    shards.push(shard.to_string());
                }
            }
        }
        if shards.is_empty() {
            let known: Vec<_> = keyspaces.into_iter().collect();
            return Err(Error::config(format!(
                "keyspace '{keyspace}' not found in VTGate at {} (known keyspaces: {}) — check the keyspace option",
                self.address,
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ))
            .with_code(ErrorCode::UnknownKeyspace));
        }
        let ks = sql_string(keyspace);
        let tables = self
            .execute(&format!(
                "select table_name from information_schema.tables where table_schema = {ks} and table_type = 'BASE TABLE'"
            ))
            .await?;
        let pks = self
            .execute(&format!(
                "select distinct table_name from information_schema.columns where table_schema = {ks} and column_key = 'PRI'"
            ))
            .await?;
        let with_pk: std::collections::BTreeSet<String> =
            text_column(&pks, 0)?.into_iter().collect();
        let mut tables: Vec<(String, bool)> = text_column(&tables, 0)?
            .into_iter()
            .map(|t| {
                let has_pk = with_pk.contains(&t);
                (t, has_pk)
            })
            .collect();
        tables.sort();
        tables.dedup();
        Ok(KeyspaceInfo { shards, tables })
    }

    /// Whether the core reproduces the primary-key order of each table of `keyspace` exactly (see
    /// [`crate::keyorder`]): the tables whose changelog stays exact while a copy resumes, and, for
    /// the others, the column and reason. Read from `information_schema` before streaming, so a
    /// consumer can declare a table's changelog mode at job start.
    pub async fn key_orders(&self, keyspace: &str) -> Result<crate::keyorder::TableKeyOrders> {
        use crate::keyorder::{ColumnOrder, KeyOrder};
        let ks = sql_string(keyspace);
        let result = self
            .execute(&format!(
                "select table_name, column_name, data_type, column_type, collation_name, seq_in_index \
                 from information_schema.columns join information_schema.statistics using (table_schema, table_name, column_name) \
                 where table_schema = {ks} and index_name = 'PRIMARY' order by table_name, seq_in_index"
            ))
            .await?;
        let mut tables = crate::keyorder::TableKeyOrders::new();
        for row in &result.rows {
            let cells = crate::decode::split_row(row)?;
            let text = |i: usize| {
                cells
                    .get(i)
                    .copied()
                    .flatten()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
            };
            let (Some(table), Some(column), Some(data_type), Some(column_type)) =
                (text(0), text(1), text(2), text(3))
            else {
                continue;
            };
            let collation = text(4);
            let entry = tables.entry(table).or_insert_with(|| {
                Ok(KeyOrder {
                    columns: Vec::new(),
                })
            });
            if let Ok(order) = entry {
                match ColumnOrder::of_declared(
                    &column,
                    &data_type,
                    &column_type,
                    collation.as_deref(),
                ) {
                    Ok(c) => order.columns.push(c),
                    Err(why) => *entry = Err(why),
                }
            }
        }
        Ok(tables)
    }
}

pub(crate) fn tablet_type(t: TabletType) -> topodata::TabletType {
    match t {
        TabletType::Primary => topodata::TabletType::Primary,
        TabletType::Replica => topodata::TabletType::Replica,
        TabletType::Rdonly => topodata::TabletType::Rdonly,
    }
}

fn sql_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

fn first_cell_text(result: &QueryResult) -> Option<String> {
    text_column(result, 0).ok()?.into_iter().next()
}

/// Every row's `col`-th value as UTF-8 text (NULLs skipped).
fn text_column(result: &QueryResult, col: usize) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(result.rows.len());
    for row in &result.rows {
        let cells = crate::decode::split_row(row)?;
        if let Some(Some(bytes)) = cells.get(col) {
            out.push(String::from_utf8_lossy(bytes).into_owned());
        }
    }
    Ok(out)
}

/// `Version: 24.0.4 (Git revision ...)` → 24.0.
pub fn parse_version_comment(comment: &str) -> Option<ServerVersion> {
    let rest = comment.trim().strip_prefix("Version:")?.trim_start();
    let mut parts = rest.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some(ServerVersion { major, minor })
}

fn endpoint_uri(address: &str, tls: bool) -> Result<String> {
    let address = address.trim();
    if address.is_empty() {
        return Err(Error::config(
            "the VTGate address is empty — use host:port, e.g. 127.0.0.1:15991",
        ));
    }
    if address.starts_with("http://") || address.starts_with("https://") {
        if tls && address.starts_with("http://") {
            return Err(Error::config(format!(
                "TLS options were given but the address '{address}' says http:// — use https:// or host:port"
            )));
        }
        return Ok(address.to_string());
    }
    Ok(format!(
        "{}://{address}",
        if tls { "https" } else { "http" }
    ))
}

fn read_file(what: &str, path: &str) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| {
        Error::config(format!("cannot read the {what} file '{path}': {e}")).with_source(e)
    })
}

fn tls_config(tls: &TlsOptions) -> Result<ClientTlsConfig> {
    let mut config = ClientTlsConfig::new();
    config = match &tls.ca_cert_path {
        Some(path) => config.ca_certificate(Certificate::from_pem(read_file(
            "TLS CA certificate",
            path,
        )?)),
        None => config.with_webpki_roots(),
    };
    match (&tls.client_cert_path, &tls.client_key_path) {
        (Some(cert), Some(key)) => {
            config = config.identity(Identity::from_pem(
                read_file("TLS client certificate", cert)?,
                read_file("TLS client key", key)?,
            ));
        }
        (None, None) => {}
        _ => {
            return Err(Error::config(
                "mTLS needs both a client certificate and a client key",
            ))
        }
    }
    if let Some(name) = &tls.server_name {
        config = config.domain_name(name.clone());
    }
    Ok(config)
}

/// Walks an error's source chain looking for an I/O error kind and the innermost message.
fn root_cause(err: &(dyn std::error::Error + 'static)) -> (Option<std::io::ErrorKind>, String) {
    let mut io_kind = None;
    let mut last = err.to_string();
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            io_kind.get_or_insert(io.kind());
        }
        last = e.to_string();
        cur = e.source();
    }
    (io_kind, last)
}

fn transport_error(address: &str, tls: bool, err: &tonic::transport::Error) -> Error {
    use std::io::ErrorKind as Io;
    let (io_kind, cause) = root_cause(err);
    let lower = cause.to_lowercase();
    if let Some(e) = tls_handshake_error(address, tls, &cause) {
        return e;
    }
    let message = match io_kind {
        Some(Io::ConnectionRefused) => format!(
            "cannot reach VTGate at {address}: connection refused — check the address and that VTGate's gRPC port is open"
        ),
        Some(Io::TimedOut) => format!(
            "cannot reach VTGate at {address}: connection timed out — check the address, firewalls, and that VTGate is running"
        ),
        _ if lower.contains("dns") || lower.contains("resolve") || lower.contains("name or service") => format!(
            "cannot resolve the VTGate host in '{address}': {cause} — check the host name"
        ),
        _ => format!("cannot connect to VTGate at {address}: {cause} — check the address and that VTGate is running"),
    };
    Error::retryable(message).with_code(ErrorCode::Unreachable)
}

/// TLS failures seen by the client during the handshake (its view of the server's certificate,
/// or a server that does not speak TLS). Retrying does not help: these are configuration errors.
fn tls_handshake_error(address: &str, tls: bool, cause: &str) -> Option<Error> {
    let lower = cause.to_lowercase();
    let fix = |what: String| Some(Error::config(what).with_code(ErrorCode::TlsMismatch));
    if lower.contains("unknownissuer") || lower.contains("unknown issuer") {
        return fix(format!(
            "TLS handshake with VTGate at {address} failed: VTGate's certificate is not signed by a CA this client \
             trusts ({cause}) — set the CA certificate (tls.ca_cert_path, --tls-ca) to the CA that signed \
             VTGate's certificate"
        ));
    }
    if lower.contains("not valid for name") || lower.contains("notvalidforname") {
        return fix(format!(
            "TLS handshake with VTGate at {address} failed: VTGate's certificate does not match the server name \
             ({cause}) — connect by a name the certificate lists, or set the server name to verify \
             (tls.server_name, --tls-server-name)"
        ));
    }
    if lower.contains("expired") || lower.contains("notvalidyet") || lower.contains("not valid yet")
    {
        return fix(format!(
            "TLS handshake with VTGate at {address} failed: VTGate's certificate is outside its validity period \
             ({cause}) — renew VTGate's certificate or check this machine's clock"
        ));
    }
    if lower.contains("received fatal alert") {
        return fix(alert_message(address, cause));
    }
    if lower.contains("invalidcontenttype")
        || lower.contains("corrupt message")
        || lower.contains("wrong version number")
        || (tls && lower.contains("invalidmessage"))
    {
        return fix(format!(
            "TLS handshake with VTGate at {address} failed: the server does not speak TLS on this port ({cause}) — \
             drop the TLS options (VTGate serves TLS only with --grpc-cert/--grpc-key) or use its TLS port"
        ));
    }
    if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake") {
        return fix(format!(
            "TLS handshake with VTGate at {address} failed: {cause} — check the CA certificate (tls.ca_cert_path), \
             the server name and whether VTGate serves TLS ({})",
            if tls { "TLS is on" } else { "TLS is off" }
        ));
    }
    None
}

/// A TLS alert the server sent: about our client certificate, almost always.
fn alert_message(address: &str, cause: &str) -> String {
    let lower = cause.to_lowercase();
    if lower.contains("certificaterequired") {
        return format!(
            "VTGate at {address} requires a TLS client certificate (mTLS) and none was sent ({cause}) — set the \
             client certificate and key (tls.client_cert_path/client_key_path, --tls-cert/--tls-key)"
        );
    }
    if [
        "unknownca",
        "badcertificate",
        "certificateunknown",
        "unsupportedcertificate",
        "certificaterevoked",
        "certificateexpired",
        "accessdenied",
    ]
    .iter()
    .any(|a| lower.contains(a))
    {
        return format!(
            "VTGate at {address} refused the TLS client certificate ({cause}) — use a client certificate signed by \
             the CA VTGate trusts for clients (its --grpc-ca), not expired, with client-auth usage \
             (tls.client_cert_path, --tls-cert)"
        );
    }
    format!("TLS with VTGate at {address} failed: the server sent {cause} — check the TLS options on both sides")
}

/// TLS trouble that surfaces only as a failed call after the handshake: with TLS 1.3 the server
/// checks the client certificate after the client considers the handshake done.
/// Whether a failed call means the server broke the connection off. The root cause varies with
/// timing (closed, reset, broken pipe, EOF, or hyper cancelling the call); tonic's own message
/// says "transport error" for most of them.
fn broke_off(status: &tonic::Status, lower_cause: &str) -> bool {
    status.code() == tonic::Code::Cancelled
        || status.message().to_lowercase().contains("transport error")
        || [
            "transport error",
            "connection closed",
            "connection reset",
            "broken pipe",
            "eof",
            "operation was canceled",
        ]
        .iter()
        .any(|s| lower_cause.contains(s))
}

fn tls_status_error(
    address: &str,
    tls: TlsMode,
    status: &tonic::Status,
    discovery: bool,
) -> Option<Error> {
    if tls == TlsMode::Off {
        // A plaintext HTTP/2 client talking to a TLS port sees its preface answered with TLS
        // bytes: an HTTP/2 protocol error (certain) or a closed connection (could also be a
        // restart, so it stays retryable) before any answer.
        let (_, cause) = root_cause(status);
        let lower = cause.to_lowercase();
        let garbled = lower.contains("h2 protocol error")
            || lower.contains("http2 error")
            || lower.contains("frame with invalid size");
        let closed = broke_off(status, &lower);
        if discovery && (garbled || closed) {
            let message = format!(
                "VTGate at {address} broke off the connection before answering ({}: {}) — check that the address \
                 is VTGate's gRPC port; if VTGate serves TLS (--grpc-cert), turn TLS on (--tls, tls options)",
                status.message(),
                cause
            );
            return Some(
                if garbled {
                    Error::config(message)
                } else {
                    Error::retryable(message)
                }
                .with_code(ErrorCode::TlsMismatch),
            );
        }
        return None;
    }
    let (_, cause) = root_cause(status);
    let lower = cause.to_lowercase();
    if lower.contains("received fatal alert") {
        let mut message = alert_message(address, &cause);
        if tls == TlsMode::ServerOnly && !lower.contains("certificaterequired") {
            message = format!(
                "VTGate at {address} refused the TLS connection ({cause}) — it probably requires a client certificate \
             (mTLS, VTGate's --grpc-ca): set the client certificate and key (tls.client_cert_path/client_key_path, \
             --tls-cert/--tls-key)"
            );
        }
        return Some(Error::config(message).with_code(ErrorCode::TlsMismatch));
    }
    if let Some(e) = tls_handshake_error(address, true, &cause) {
        return Some(e);
    }
    // Before any answer (`discovery`), any broken-off connection may be the TLS refusal that
    // TLS 1.3 delivers after the client's handshake; later only a plain close is read that way.
    let closed = if discovery {
        broke_off(status, &lower)
    } else {
        matches!(
            status.code(),
            tonic::Code::Cancelled | tonic::Code::Unavailable | tonic::Code::Unknown
        ) && (lower.contains("connection closed")
            || lower.contains("connection reset")
            || lower.contains("broken pipe"))
    };
    if closed && tls == TlsMode::Mutual {
        let message = format!(
            "VTGate at {address} closed the TLS connection without answering ({cause}) — if VTGate refused the \
             client certificate, use one signed by the CA VTGate trusts for clients (its --grpc-ca), not expired, \
             with client-auth usage (tls.client_cert_path, --tls-cert)"
        );
        // A closed connection is also what a restart looks like: retryable, with the hint.
        return Some(Error::retryable(message).with_code(ErrorCode::TlsMismatch));
    }
    if closed && tls == TlsMode::ServerOnly {
        let message = format!(
            "VTGate at {address} closed the TLS connection without answering ({cause}) — if VTGate requires a TLS \
             client certificate (mTLS, its --grpc-ca), set the client certificate and key \
             (tls.client_cert_path/client_key_path, --tls-cert/--tls-key)"
        );
        return Some(Error::retryable(message).with_code(ErrorCode::TlsMismatch));
    }
    None
}

/// Classifies a gRPC status from VTGate into an actionable error.
pub fn status_error(address: &str, status: &tonic::Status) -> Error {
    use tonic::Code;
    let msg = status.message();
    let lower = msg.to_lowercase();
    let (kind, code, text) = match status.code() {
        // A selected column the table lacks comes under several gRPC codes (FailedPrecondition
        // once VTGate gave up retrying): it is a mistake in the selection, whatever the code.
        _ if refusal_code(&lower) == ErrorCode::UnknownColumn => (
            ErrorKind::Config,
            ErrorCode::UnknownColumn,
            format!(
                "VTGate at {address} refused the stream: {msg} — a selected column is not in the table: \
                 remove it from the selection (the columns option, or the Flink table's declared columns)"
            ),
        ),
        Code::Unauthenticated => (
            ErrorKind::Config,
            ErrorCode::AuthFailed,
            format!("VTGate at {address} requires credentials ({msg}) — set username and password (static auth)"),
        ),
        Code::PermissionDenied => (
            ErrorKind::Config,
            ErrorCode::AuthFailed,
            format!("VTGate at {address} rejected the credentials ({msg}) — check username and password"),
        ),
        Code::ResourceExhausted | Code::OutOfRange
            if lower.contains("message")
                && (lower.contains("larger") || lower.contains("too large")) =>
        {
            (
            ErrorKind::Config,
            ErrorCode::MessageTooLarge,
            format!(
                "a VStream message from {address} is larger than the client limit ({msg}) — raise max_message_bytes \
                 to at least VTGate's --grpc-max-message-size"
            ),
        )
        }
        Code::Unimplemented => (
            ErrorKind::Fatal,
            ErrorCode::UnsupportedServer,
            format!("the server at {address} does not implement the Vitess VTGate service ({msg}) — is this VTGate's gRPC port?"),
        ),
        Code::InvalidArgument | Code::NotFound | Code::OutOfRange => (
            ErrorKind::Fatal,
            refusal_code(&lower),
            format!("VTGate at {address} refused the stream: {msg}"),
        ),
        Code::Internal if !is_transport_message(&lower) => (
            ErrorKind::Fatal,
            refusal_code(&lower),
            format!("VTGate at {address} failed the stream: {msg}"),
        ),
        Code::Unknown if !is_transport_message(&lower) && is_refusal_message(&lower) => (
            ErrorKind::Fatal,
            refusal_code(&lower),
            format!("VTGate at {address} refused the stream: {msg}"),
        ),
        _ => (
            ErrorKind::Retryable,
            ErrorCode::Unspecified,
            format!("VStream from {address} interrupted ({:?}): {msg}", status.code()),
        ),
    };
    Error {
        kind,
        code,
        message: text,
        source: None,
    }
}

/// The code of a refusal, from the server's words: the one place that reads VTGate's message
/// text, so that consumers decide on codes.
fn refusal_code(lower: &str) -> ErrorCode {
    if lower.contains("column") && lower.contains("not found") {
        ErrorCode::UnknownColumn
    } else if lower.contains("purged") || lower.contains("cannot replicate") {
        ErrorCode::PositionTooOld
    } else if lower.contains("table")
        && lower.contains("not")
        && (lower.contains("found") || lower.contains("present"))
    {
        ErrorCode::UnknownTable
    } else {
        ErrorCode::Unspecified
    }
}

/// Messages of errors that come from the connection, not from VTGate's logic.
fn is_transport_message(lower: &str) -> bool {
    [
        "transport",
        "connection",
        "broken pipe",
        "eof",
        "h2 protocol",
        "reset",
        "stream no longer needed",
        "goaway",
    ]
    .iter()
    .any(|m| lower.contains(m))
}

/// VTGate answers some configuration mistakes with UNKNOWN status.
fn is_refusal_message(lower: &str) -> bool {
    [
        "not found",
        "not present in the database",
        "unknown table",
        "doesn't exist",
        "no primary key",
        "failed to build table",
        "query was empty",
        "syntax error",
    ]
    .iter()
    .any(|m| lower.contains(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_comment_is_parsed() {
        assert_eq!(
            parse_version_comment(
                "Version: 24.0.4 (Git revision  branch '') built on  by @ using go1.25 linux/amd64"
            ),
            Some(ServerVersion {
                major: 24,
                minor: 0
            })
        );
        assert_eq!(
            parse_version_comment("Version: 22.1.0-SNAPSHOT"),
            Some(ServerVersion {
                major: 22,
                minor: 1
            })
        );
        assert_eq!(parse_version_comment("MySQL Community Server"), None);
    }

    #[test]
    fn endpoint_uri_adds_scheme() {
        assert_eq!(
            endpoint_uri("127.0.0.1:15991", false).unwrap(),
            "http://127.0.0.1:15991"
        );
        assert_eq!(
            endpoint_uri("vtgate:443", true).unwrap(),
            "https://vtgate:443"
        );
        assert!(endpoint_uri("http://x:1", true).is_err());
        assert!(endpoint_uri(" ", false).is_err());
    }

    #[test]
    fn status_classification() {
        let s = tonic::Status::unavailable("connection reset");
        assert_eq!(status_error("a", &s).kind, ErrorKind::Retryable);
        let s = tonic::Status::unauthenticated("missing");
        assert_eq!(status_error("a", &s).kind, ErrorKind::Config);
        let s = tonic::Status::invalid_argument("GTIDSet Mismatch");
        assert_eq!(status_error("a", &s).kind, ErrorKind::Fatal);
        let s = tonic::Status::internal("h2 protocol error: stream reset");
        assert_eq!(status_error("a", &s).kind, ErrorKind::Retryable);
        let refused = |msg: &str| {
            status_error(
                "x:1",
                &tonic::Status::new(tonic::Code::Unknown, msg.to_string()),
            )
            .code
        };
        assert_eq!(
            refused("target: ks.-80.primary: vttablet: rpc error: code = InvalidArgument desc = column `nope` not found in table `t`"),
            ErrorCode::UnknownColumn
        );
        let gave_up = status_error(
            "x:1",
            &tonic::Status::failed_precondition(
                "persistent error in vstream for ks/80-; giving up: column nope not found in table t",
            ),
        );
        assert_eq!(
            (gave_up.kind, gave_up.code),
            (ErrorKind::Config, ErrorCode::UnknownColumn)
        );
        assert_eq!(
            status_error(
                "x:1",
                &tonic::Status::new(tonic::Code::Unauthenticated, "no credentials")
            )
            .code,
            ErrorCode::AuthFailed
        );
    }

    #[test]
    fn password_without_user_is_refused() {
        let mut o = StreamOptions::new("x:1", "ks");
        o.password = Some("p".into());
        assert!(StaticAuth::from_options(&o).is_err());
    }

    #[tokio::test]
    async fn connection_refused_names_cause_and_fix() {
        let mut o = StreamOptions::new("127.0.0.1:1", "ks");
        o.connect_timeout = Duration::from_secs(2);
        let started = std::time::Instant::now();
        let err = VtgateClient::connect(&o)
            .await
            .err()
            .expect("port 1 must refuse");
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(
            err.message.contains("connection refused"),
            "{}",
            err.message
        );
        assert!(err.message.contains("127.0.0.1:1"), "{}", err.message);
    }
}
