// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The channel to VTGate: the address as a URI, TLS and mTLS, static-auth credentials on every
//! call, keepalive within VTGate's ping policy, message limits, and a connect that fails within
//! `connect_timeout` with the cause and the fix.

use super::classify::{transport_error, TlsMode};
use super::{VtgateClient, MIN_KEEPALIVE};
use crate::error::{Error, ErrorCode, Result};
use crate::options::{StreamOptions, TlsOptions};
use crate::proto::vtgateservice::vitess_client::VitessClient;
use std::time::Duration;
use tonic::metadata::AsciiMetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};

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
