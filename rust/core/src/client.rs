// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The gRPC connection to VTGate: channel setup (plaintext, TLS, mTLS), static auth, message
//! limits, keepalive, and the two RPCs the core uses (`VStream`, and `Execute` for discovery).
//!
//! Every failure here is turned into an [`Error`] whose message names the cause and the fix,
//! because these are the errors users hit first (wrong port, TLS mismatch, credentials).

use crate::error::{Error, ErrorCode, Result};
use crate::options::{StreamOptions, TabletType, TlsOptions};
use crate::proto::query::{BoundQuery, QueryResult};
use crate::proto::topodata;
use crate::proto::vtgate::{ExecuteRequest, Session, VStreamRequest};
use crate::proto::vtgateservice::vitess_client::VitessClient;
use std::time::Duration;
use tonic::metadata::AsciiMetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

mod classify;
mod codec;
use classify::{refusal_error, tls_status_error, transport_error};
pub use classify::{status_error, TlsMode};
pub use codec::ReceivedResponse;

/// Attempts of a read ([`VtgateClient::execute`]) that VTGate refused for a passing reason.
const READ_ATTEMPTS: u32 = 3;
/// Pause before the second attempt of such a read; the third waits twice as long.
const READ_RETRY_PAUSE: Duration = Duration::from_millis(50);

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

type Service = InterceptedService<Channel, StaticAuth>;
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
}

/// What `Execute`-based discovery learned about a keyspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyspaceInfo {
    pub shards: Vec<String>,
    /// Base tables of the keyspace, with whether each has a primary key, sorted by name.
    pub tables: Vec<(String, bool)>,
    /// The primary-key columns of each table that has one, in index order: a narrowed
    /// selection keeps them (see [`crate::request::filter_rules`]).
    pub primary_keys: PrimaryKeys,
}

/// Table name → its primary-key column names, in index order.
pub type PrimaryKeys = std::collections::BTreeMap<String, Vec<String>>;

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
        let vstream_grpc =
            tonic::client::Grpc::new(InterceptedService::new(channel.clone(), auth.clone()))
                .max_decoding_message_size(options.max_message_bytes)
                .max_encoding_message_size(options.max_message_bytes);
        let inner = VitessClient::with_interceptor(channel, auth)
            .max_decoding_message_size(options.max_message_bytes)
            .max_encoding_message_size(options.max_message_bytes);
        Ok(VtgateClient {
            inner,
            vstream_grpc,
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

    /// Runs one read-only autocommit statement through VTGate and returns its result. A
    /// refusal that is over by the next attempt ([`classify::refusal_error`]: an interrupted
    /// tablet query, a tablet that is restarting or being reparented) is retried
    /// [`READ_ATTEMPTS`] times in all: discovery runs these when every reader opens, and one
    /// interrupted `information_schema` query must not fail a job. Not for writes, which
    /// [`execute_on`](Self::execute_on) runs once.
    pub async fn execute(&self, sql: &str) -> Result<QueryResult> {
        let mut attempt = 1;
        loop {
            match self.execute_once("", sql).await? {
                Ok(result) => return Ok(result),
                Err(refused) if refused.is_retryable() && attempt < READ_ATTEMPTS => {
                    tracing::debug!(attempt, error = %refused.message, "retrying a refused read");
                    tokio::time::sleep(READ_RETRY_PAUSE * attempt).await;
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
            return Ok(Err(refusal_error(sql, &err)));
        }
        Ok(response
            .result
            .ok_or_else(|| Error::fatal(format!("VTGate returned no result for `{sql}`"))))
    }

    /// The Vitess version of the VTGate, if it reports one.
    pub async fn server_version(&self) -> Result<Option<ServerVersion>> {
        let result = self.execute("select @@version_comment").await?;
        Ok(first_cell_text(&result).and_then(|s| parse_version_comment(&s)))
    }

    /// Shards and tables of `keyspace`. Fails with a config error naming the known keyspaces
    /// when the keyspace does not exist.
    pub async fn describe_keyspace(&self, keyspace: &str) -> Result<KeyspaceInfo> {
        let ks = sql_string(keyspace);
        let tables_sql = format!(
            "select table_name from information_schema.tables where table_schema = {ks} and table_type = 'BASE TABLE'"
        );
        let pks_sql = format!(
            "select table_name, column_name from information_schema.statistics \
             where table_schema = {ks} and index_name = 'PRIMARY' order by table_name, seq_in_index"
        );
        // Three round trips through VTGate, side by side on the one connection: a stream waits
        // for them before it starts. The shards' answer is looked at first, so an unknown
        // keyspace is told as such whatever the other two answered.
        let (shards_result, tables, pks) = tokio::join!(
            self.execute("show vitess_shards"),
            self.execute(&tables_sql),
            self.execute(&pks_sql)
        );
        let shards_result = shards_result?;
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
        let (tables, pks) = (tables?, pks?);
        let primary_keys = primary_key_columns_of(&pks)?;
        let mut tables: Vec<(String, bool)> = text_column(&tables, 0)?
            .into_iter()
            .map(|t| {
                let has_pk = primary_keys.contains_key(&t);
                (t, has_pk)
            })
            .collect();
        tables.sort();
        tables.dedup();
        Ok(KeyspaceInfo {
            shards,
            tables,
            primary_keys,
        })
    }

    /// Fails with [`ErrorCode::UnknownColumn`] when a selected column is not in one of `tables`
    /// of `keyspace`, naming the column, the table, its columns and the fix. Read from
    /// `information_schema` when a stream is planned, so a mistyped column fails the job once, at
    /// planning, instead of every reader's stream being refused by the tablets (a restart loop).
    pub async fn check_columns(
        &self,
        keyspace: &str,
        tables: &[String],
        columns: &[String],
    ) -> Result<()> {
        if columns.is_empty() || tables.is_empty() {
            return Ok(());
        }
        let ks = sql_string(keyspace);
        // Only the selected tables' columns: a keyspace may hold thousands of tables.
        let names: Vec<String> = tables.iter().map(|t| sql_string(t)).collect();
        let result = self
            .execute(&format!(
                "select table_name, column_name from information_schema.columns where table_schema = {ks} \
                 and table_name in ({}) order by table_name, ordinal_position",
                names.join(", ")
            ))
            .await?;
        let mut by_table: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for row in &result.rows {
            let text = text_cells(row)?;
            if let (Some(table), Some(column)) = (text(0), text(1)) {
                by_table.entry(table).or_default().push(column);
            }
        }
        for table in tables {
            let Some(known) = by_table.get(table) else {
                continue;
            };
            // MySQL column names are case-insensitive.
            if let Some(missing) = columns
                .iter()
                .find(|c| !known.iter().any(|k| k.eq_ignore_ascii_case(c)))
            {
                return Err(Error::config(format!(
                    "column '{missing}' is not in Vitess table {keyspace}.{table} (its columns: {}) — remove it \
                     from the selection (the columns option, or the Flink table's declared columns) or fix its name",
                    known.join(", ")
                ))
                .with_code(ErrorCode::UnknownColumn));
            }
        }
        Ok(())
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
            let text = text_cells(row)?;
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

impl VtgateClient {
    /// The primary-key column names of every table of `keyspace`, in index order (the order
    /// the key compares in, which is not always the order of the table's columns).
    pub async fn primary_key_columns(&self, keyspace: &str) -> Result<PrimaryKeys> {
        let ks = sql_string(keyspace);
        let result = self
            .execute(&format!(
                "select table_name, column_name from information_schema.statistics \
                 where table_schema = {ks} and index_name = 'PRIMARY' order by table_name, seq_in_index"
            ))
            .await?;
        primary_key_columns_of(&result)
    }
}

/// Table → key columns from rows of `(table_name, column_name)` in index order.
fn primary_key_columns_of(result: &QueryResult) -> Result<PrimaryKeys> {
    let mut tables = PrimaryKeys::new();
    for row in &result.rows {
        let text = text_cells(row)?;
        if let (Some(table), Some(column)) = (text(0), text(1)) {
            tables.entry(table).or_default().push(column);
        }
    }
    Ok(tables)
}

/// Row counts of every table of one shard, as its MySQL's table statistics estimate them
/// (`information_schema.tables.table_rows`; `None` when the statistics have none).
pub type TableRowEstimates = std::collections::BTreeMap<String, Option<u64>>;

impl VtgateClient {
    /// The estimated row count of every base table of `keyspace` on `shard`, asked of that shard
    /// (the session targets `keyspace:shard`). Estimates: InnoDB samples pages, and MySQL caches
    /// the statistics (`information_schema_stats_expiry`), so they may lag recent writes.
    pub async fn table_rows(&self, keyspace: &str, shard: &str) -> Result<TableRowEstimates> {
        let result = self
            .execute_on(
                &format!("{keyspace}:{shard}"),
                "select table_name, table_rows from information_schema.tables \
                 where table_schema = database() and table_type = 'BASE TABLE'",
            )
            .await?;
        let mut rows = TableRowEstimates::new();
        for row in &result.rows {
            let text = text_cells(row)?;
            if let Some(table) = text(0) {
                rows.insert(table, text(1).and_then(|n| n.trim().parse().ok()));
            }
        }
        Ok(rows)
    }
}

pub(crate) fn tablet_type(t: TabletType) -> topodata::TabletType {
    match t {
        TabletType::Primary => topodata::TabletType::Primary,
        TabletType::Replica => topodata::TabletType::Replica,
        TabletType::Rdonly => topodata::TabletType::Rdonly,
    }
}

pub(crate) fn sql_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

fn first_cell_text(result: &QueryResult) -> Option<String> {
    text_column(result, 0).ok()?.into_iter().next()
}

/// Every row's `col`-th value as UTF-8 text (NULLs skipped).
/// The cells of one result row as text, by column index (`None` for NULL or a missing column).
fn text_cells(row: &crate::proto::query::Row) -> Result<impl Fn(usize) -> Option<String> + '_> {
    let cells = crate::decode::split_row(row)?;
    Ok(move |i: usize| {
        cells
            .get(i)
            .copied()
            .flatten()
            .map(|b| String::from_utf8_lossy(b).into_owned())
    })
}

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
