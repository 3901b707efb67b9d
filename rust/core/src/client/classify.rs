// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! How the client classifies what went wrong: a transport error while connecting, a TLS failure
//! (during the handshake or only at the first call), or a gRPC status from VTGate, into an
//! [`Error`] of the right kind (retryable, configuration, fatal) and code, with a message that
//! names the cause and the fix. The only place that reads the words of VTGate's and the TLS
//! stack's messages.

use crate::error::{Error, ErrorCode, ErrorKind};
use crate::options::StreamOptions;
use crate::proto::vtrpc::{Code, RpcError};

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
    pub(super) fn of(options: &StreamOptions) -> TlsMode {
        match &options.tls {
            None => TlsMode::Off,
            Some(t) if t.client_cert_path.is_some() => TlsMode::Mutual,
            Some(_) => TlsMode::ServerOnly,
        }
    }
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

pub(super) fn transport_error(address: &str, tls: bool, err: &tonic::transport::Error) -> Error {
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

pub(super) fn tls_status_error(
    address: &str,
    tls: TlsMode,
    status: &tonic::Status,
    discovery: bool,
    never_answered: bool,
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
        // A close is a restart, not a TLS port, once the same port answered in plaintext.
        let closed = never_answered && broke_off(status, &lower);
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
                "VTGate at {address} refused the stream: {msg} — {} is not in the table: \
                 the selection names it by mistake, or it was dropped or renamed in Vitess while the \
                 stream ran. Fix: remove it from the selection (the columns option, or the Flink \
                 table's declared columns) or select its new name, then start again; a Flink job \
                 restores from its latest checkpoint or savepoint and loses nothing",
                missing_column(msg).map_or_else(|| "a selected column".to_string(), |c| format!("column '{c}'"))
            ),
        ),
        // A saved position names a shard the topology no longer has: a reshard was completed (its
        // old shards deleted) before the stream read that shard up to its reshard journal. The
        // changes between the position and the journal went with the shard, so no retry can
        // resume exactly; restarting would meet it again forever.
        _ if lower.contains("shard provided in vgtid") && lower.contains("not found") => (
            ErrorKind::Config,
            ErrorCode::UnknownShard,
            format!(
                "VTGate at {address} cannot resume a shard of the saved position: {msg} — the shard was deleted \
                 by a completed reshard (Reshard complete / MoveTables complete) before this stream read it up \
                 to its reshard journal, so its changes between the saved position and the journal are gone \
                 with it and the stream cannot go on exactly. Fix: start the job again without its state, with \
                 a fresh snapshot (startup mode initial), or from the current position and re-snapshot the \
                 tables with a signal; next time complete a reshard only after every CDC job passed its journal \
                 and checkpointed since (its reader logs \"ended at reshard journal\" for each old shard)"
            ),
        ),
        // VTGate answers NOT_FOUND while its health check still holds a tablet that went away
        // (a tablet restarted under the same alias, a reparent, the new shards right after a
        // reshard), or "no healthy tablet" before it saw the new one: the next attempt finds it.
        _ if is_tablet_gone_message(&lower) => (
            ErrorKind::Retryable,
            ErrorCode::Unspecified,
            format!(
                "VStream from {address} interrupted: VTGate has no connection to a shard's tablet yet ({msg}) — \
                 retrying; this passes once VTGate sees the shard's tablet healthy again"
            ),
        ),
        // A front that serves named cells only (PlanetScale) refuses the others.
        Code::FailedPrecondition | Code::InvalidArgument | Code::NotFound
            if lower.contains("cell") && lower.contains("not served") =>
        {
            (
                ErrorKind::Config,
                ErrorCode::InvalidOption,
                format!("VTGate at {address} does not serve the cells asked for ({msg}) — set the cells option to the cell it serves (PlanetScale: planetscale_operator_default), or leave it unset for VTGate's own"),
            )
        }
        // HTTP Basic fronts (PlanetScale) answer wrong credentials with UNAUTHENTICATED too.
        Code::Unauthenticated
            if lower.contains("invalid") || lower.contains("incorrect") || lower.contains("wrong") =>
        {
            (
                ErrorKind::Config,
                ErrorCode::AuthFailed,
                format!("VTGate at {address} rejected the credentials ({msg}) — check username and password, and the auth mode (static: Vitess's static auth; basic: PlanetScale)"),
            )
        }
        Code::Unauthenticated => (
            ErrorKind::Config,
            ErrorCode::AuthFailed,
            format!("VTGate at {address} requires credentials ({msg}) — set username and password (with auth mode basic for PlanetScale)"),
        ),
        Code::PermissionDenied => (
            ErrorKind::Config,
            ErrorCode::AuthFailed,
            format!("VTGate at {address} rejected the credentials ({msg}) — check username and password, and the auth mode (static: Vitess's static auth; basic: PlanetScale)"),
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
        // The tablet reloads its schema at every DDL it streams; a table dropped (or renamed)
        // meanwhile makes that reload fail although nothing is wrong with the stream. The next
        // attempt resumes from the last position and reloads against the current schema.
        Code::Unknown if lower.contains("failed to reload schema after ddl") => (
            ErrorKind::Retryable,
            ErrorCode::Unspecified,
            format!(
                "VStream from {address} interrupted: the tablet could not reload its schema after a DDL in the \
                 stream (a table changed again meanwhile); resuming from the last position: {msg}"
            ),
        ),
        // Rows of a table written before its DROP and not streamed yet: the tablet decodes them
        // with its current schema, which no longer has the table, and VTGate gives up. Every
        // retry meets the same rows; only the user can decide what to do.
        Code::Unknown if lower.contains("unknown table") && lower.contains("replication plan") => (
            ErrorKind::Config,
            ErrorCode::UnknownTable,
            format!(
                "VTGate at {address} cannot stream past a table that was dropped (or renamed) while the stream \
                 read it: the tablet decodes the table's last rows with its current schema, which no longer has \
                 the table ({msg}). Fix: run the tablets with schema version tracking (vttablet \
                 --track-schema-versions), which decodes old rows with the schema of their time, and restart \
                 from the last checkpoint; or start again from a position after the DROP (its last changes are \
                 then not read); next time stop the job before dropping a table it reads"
            ),
        ),
        // Rows written before a DDL that dropped, renamed or reordered a column, replayed (a
        // restore from a checkpoint before the DDL) by a tablet that knows only the table's
        // current schema: it cannot match them to the selected column names. A tablet that
        // tracks schema versions can say so too for a moment, right after the DDL (its tracker
        // has not stored the new version yet): the stream retries a few times, then gives up
        // as a configuration error (stream/reconnect.rs, SCHEMA_MISMATCH_ATTEMPTS).
        _ if is_schema_mismatch_message(&lower) => (
            ErrorKind::Retryable,
            ErrorCode::SchemaMismatch,
            format!(
                "VTGate at {address} cannot decode rows written before a schema change of a selected table: \
                 the tablet decodes them with the table's current schema, whose columns no longer match \
                 them ({msg}). Fix: run the tablets with schema version tracking (vttablet \
                 --track-schema-versions), which decodes old rows with the schema of their time, and restore \
                 again; or start again from a position after the schema change and re-snapshot the table \
                 (its changes between the checkpoint and the DDL are then not read)"
            ),
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

/// The error VTGate put in an answered `Execute` (the statement reached VTGate and was refused
/// there or by a tablet). Retryable when the cause passes on its own: a tablet query killed
/// under it (errno 1317, CANCELED: vttablet kills a query whose context ended, and a kill can
/// reach a pooled connection that moved on to the next query), a tablet restarting or being
/// reparented (UNAVAILABLE, CLUSTER_EVENT), a full pool (RESOURCE_EXHAUSTED), a deadline, an
/// aborted transaction, a context VTGate canceled. Everything else (a syntax error, an unknown table) is fatal, with the
/// statement named.
pub(super) fn refusal_error(sql: &str, error: &RpcError) -> Error {
    let transient = matches!(
        Code::try_from(error.code),
        Ok(Code::Canceled
            | Code::DeadlineExceeded
            | Code::ResourceExhausted
            | Code::Aborted
            | Code::Unavailable
            | Code::ClusterEvent)
    ) || is_tablet_gone_message(&error.message.to_lowercase())
        || error.message.contains("errno 1317")
        // VTGate v22 answers a discovery query with this, without a code, while many streams
        // open at once (`keyspace names fetch error: context canceled`).
        || error.message.contains("context canceled");
    let message = format!("VTGate refused `{sql}`: {}", error.message);
    if transient {
        Error::retryable(message)
    } else {
        Error::fatal(message)
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

/// The tablet's words when a row event's columns do not match the table's current schema.
fn is_schema_mismatch_message(lower: &str) -> bool {
    lower.contains("not compatible with the current event")
        || lower.contains("cannot determine table columns")
}

/// The column VTGate names in "column X not found in table T" (the tablet's plan builder's words).
fn missing_column(msg: &str) -> Option<&str> {
    let (_, rest) = msg.split_once("column ")?;
    let (name, _) = rest.split_once(" not found")?;
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
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

/// VTGate's words for a tablet its health check no longer (or not yet) reaches.
fn is_tablet_gone_message(lower: &str) -> bool {
    lower.contains("is either down or nonexistent")
        || lower.contains("failed to get tablet connection")
        // right after a reparent or a reshard, until VTGate's health check sees the new tablet
        || lower.contains("no healthy tablet available")
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
    fn refusals_that_pass_are_retried_and_others_are_not() {
        let refusal = |code: Code, message: &str| {
            refusal_error(
                "show vitess_shards",
                &RpcError {
                    code: code as i32,
                    message: message.into(),
                },
            )
            .kind
        };
        // Vitess v22 under many opens at once.
        assert_eq!(
            refusal(
                Code::Unknown,
                "keyspace names fetch error: context canceled"
            ),
            ErrorKind::Retryable
        );
        assert_eq!(
            refusal(
                Code::Unknown,
                "target: ks.0.primary: errno 1317 (Query execution was interrupted)"
            ),
            ErrorKind::Retryable
        );
        assert_eq!(
            refusal(Code::Unavailable, "tablet restarting"),
            ErrorKind::Retryable
        );
        assert_eq!(
            refusal(Code::InvalidArgument, "syntax error at position 5"),
            ErrorKind::Fatal
        );
    }

    #[test]
    fn rows_of_a_dropped_table_are_a_configuration_error_naming_the_fix() {
        let e = status_error(
            "vtgate:15991",
            &tonic::Status::new(
                tonic::Code::Unknown,
                "persistent error in vstream for ks/-80; giving up: stream (at source tablet) error @ x: \
                 unknown table t in schema\nfailed to build table replication plan for table t",
            ),
        );
        assert_eq!(e.kind, ErrorKind::Config, "{}", e.message);
        assert_eq!(e.code, ErrorCode::UnknownTable);
        assert!(
            e.message.contains("--track-schema-versions"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_column_dropped_under_the_stream_is_named_with_both_fixes() {
        let e = status_error(
            "vtgate:15991",
            &tonic::Status::new(
                tonic::Code::Unknown,
                "stream (at source tablet) error @ x: Code: FAILED_PRECONDITION\ncolumn qty not found in \
                 table t\n\nfailed to build table replication plan for table t",
            ),
        );
        assert_eq!(e.kind, ErrorKind::Config, "{}", e.message);
        assert_eq!(e.code, ErrorCode::UnknownColumn);
        for part in [
            "column 'qty' is not in the table",
            "dropped or renamed",
            "select its new name",
            "checkpoint",
        ] {
            assert!(e.message.contains(part), "'{part}' in: {}", e.message);
        }
        assert_eq!(missing_column("column a b not found"), None);
        assert_eq!(missing_column("unknown"), None);
    }

    #[test]
    fn rows_older_than_the_tables_schema_are_a_configuration_error_naming_schema_tracking() {
        let e = status_error(
            "vtgate:15991",
            &tonic::Status::new(
                tonic::Code::Unknown,
                "stream (at source tablet) error @ x: Code: FAILED_PRECONDITION\ncannot use column names in \
                 vstream filter as the current table schema for table t is not compatible with the current \
                 event for this table in the stream\n\nfailed to build table replication plan for table t",
            ),
        );
        assert_eq!(e.kind, ErrorKind::Retryable, "{}", e.message);
        assert_eq!(e.code, ErrorCode::SchemaMismatch);
        for part in ["--track-schema-versions", "restore again", "re-snapshot"] {
            assert!(e.message.contains(part), "'{part}' in: {}", e.message);
        }
    }

    #[test]
    fn a_schema_reload_failing_after_a_ddl_is_retried() {
        let e = status_error(
            "vtgate:15991",
            &tonic::Status::new(
                tonic::Code::Unknown,
                "stream (at source tablet) error @ x: in Engine.reload(), reading table t: Table 'vt_ks.t' \
                 doesn't exist (errno 1146)\nfailed to reload schema after DDL encountered in stream",
            ),
        );
        assert_eq!(e.kind, ErrorKind::Retryable, "{}", e.message);
        assert!(e.message.contains("resuming from the last position"));
    }

    #[test]
    fn a_saved_shard_deleted_by_a_completed_reshard_is_not_retried() {
        // VTGate v24's words, seen by the chaos soak: a merge completed while the job was restoring
        let e = status_error(
            "127.0.0.1:17105",
            &tonic::Status::failed_precondition(
                "error starting stream from shard GTID keyspace:\"customer\" shard:\"c0-\" \
                 gtid:\"MySQL56/a5fe54e0-f136-11f1-9802-02fc00000001:1-647\": failed to determine if keyspace \
                 customer has been resharded: shard provided in VGTID, c0-, not found in the customer keyspace",
            ),
        );
        assert_eq!(e.kind, ErrorKind::Config, "{}", e.message);
        assert_eq!(e.code, ErrorCode::UnknownShard);
        for part in [
            "completed reshard",
            "fresh snapshot",
            "ended at reshard journal",
        ] {
            assert!(e.message.contains(part), "'{part}' in: {}", e.message);
        }
    }

    #[test]
    fn status_classification() {
        let s = tonic::Status::unavailable("connection reset");
        assert_eq!(status_error("a", &s).kind, ErrorKind::Retryable);
        let s = tonic::Status::unauthenticated("missing");
        assert_eq!(status_error("a", &s).kind, ErrorKind::Config);
        let s = tonic::Status::invalid_argument("GTIDSet Mismatch");
        assert_eq!(status_error("a", &s).kind, ErrorKind::Fatal);
        // seen on a real cluster right after a reshard whose new shard reused a tablet alias
        let s = tonic::Status::not_found(
            "error starting stream from shard GTID keyspace:\"customer\" shard:\"80-\" gtid:\"MySQL56/42d6:1-86\": \
             failed to get tablet connection to zone1-0000000300: target: customer.80-.primary: \
             tablet: cell:\"zone1\" uid:300 is either down or nonexistent",
        );
        let e = status_error("a", &s);
        assert_eq!(e.kind, ErrorKind::Retryable, "{}", e.message);
        assert!(e.message.contains("retrying"), "{}", e.message);
        // VTGate before its health check saw a shard's new tablet (a reparent, a reshard, a
        // replaced replica), under whatever code: retried
        for s in [
            tonic::Status::unavailable(
                "target: customer.80-.replica: no healthy tablet available for 'keyspace:\"customer\" shard:\"80-\" tablet_type:REPLICA'",
            ),
            tonic::Status::not_found(
                "error starting stream: no healthy tablet available for 'keyspace:\"customer\" shard:\"-40\" tablet_type:PRIMARY'",
            ),
        ] {
            let e = status_error("a", &s);
            assert_eq!(e.kind, ErrorKind::Retryable, "{}", e.message);
        }
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
}
