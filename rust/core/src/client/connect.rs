// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The channel to VTGate: the address as a URI, TLS and mTLS, credentials on every call (static
//! auth or HTTP Basic), keepalive within VTGate's ping policy, message limits, and a connect that fails within
//! `connect_timeout` with the cause and the fix.

use super::classify::{transport_error, TlsMode};
use super::{VtgateClient, MIN_KEEPALIVE};
use crate::error::{Error, ErrorCode, Result};
use crate::options::{AuthMode, StreamOptions, TlsOptions};
use crate::proto::vtgateservice::vitess_client::VitessClient;
use base64::Engine;
use std::time::Duration;
use tonic::metadata::AsciiMetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity};

/// Adds the credentials to every call: Vitess's static auth (`username` / `password`
/// metadata) or HTTP Basic (`authorization`), as [`AuthMode`] says.
#[derive(Clone, Default)]
pub struct CallCredentials {
    headers: Vec<(&'static str, AsciiMetadataValue)>,
}

impl CallCredentials {
    fn from_options(options: &StreamOptions) -> Result<Self> {
        let invalid = |message: String| Error::config(message).with_code(ErrorCode::InvalidOption);
        let ascii = |what: &str, v: &str| {
            AsciiMetadataValue::try_from(v).map_err(|_| {
                invalid(format!(
                    "the {what} for VTGate must be printable ASCII (it travels as gRPC metadata)"
                ))
            })
        };
        let (user, password) =
            match (&options.username, &options.password) {
                (None, None) => return Ok(CallCredentials::default()),
                (Some(u), p) => (u.as_str(), p.as_deref().unwrap_or("")),
                (None, Some(_)) => return Err(invalid(
                    "a password was given without a username: set both for VTGate's authentication"
                        .into(),
                )),
            };
        let headers = match options.auth_mode {
            AuthMode::Static => vec![
                ("username", ascii("username", user)?),
                ("password", ascii("password", password)?),
            ],
            AuthMode::Basic => {
                if options.tls.is_none() {
                    return Err(invalid(
                        "auth mode basic sends the password with every call: turn TLS on (tls options; \
                         PlanetScale serves VTGate over TLS only, on port 443)"
                            .into(),
                    ));
                }
                if user.contains(':') {
                    return Err(invalid(
                        "a username for auth mode basic cannot contain ':' (it separates user and password)".into(),
                    ));
                }
                let token =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                vec![(
                    "authorization",
                    ascii("username and password", &format!("Basic {token}"))?,
                )]
            }
        };
        Ok(CallCredentials { headers })
    }
}

impl tonic::service::Interceptor for CallCredentials {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> std::result::Result<tonic::Request<()>, tonic::Status> {
        for (name, value) in &self.headers {
            request.metadata_mut().insert(*name, value.clone());
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
        let auth = CallCredentials::from_options(options)?;
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
            answered: Default::default(),
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

/// The TLS settings of `tls` (also those of the throttler check's vtctld, over https).
pub(crate) fn tls_config(tls: &TlsOptions) -> Result<ClientTlsConfig> {
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
        assert!(CallCredentials::from_options(&o).is_err());
    }

    fn headers(o: &StreamOptions) -> Vec<(&'static str, String)> {
        CallCredentials::from_options(o)
            .unwrap()
            .headers
            .into_iter()
            .map(|(n, v)| (n, v.to_str().unwrap().to_string()))
            .collect()
    }

    #[test]
    fn static_auth_sends_vitess_metadata_and_basic_an_authorization_header() {
        let mut o = StreamOptions::new("x:1", "ks");
        o.username = Some("app".into());
        o.password = Some("pscale_pw_x".into());
        assert_eq!(
            headers(&o),
            vec![
                ("username", "app".into()),
                ("password", "pscale_pw_x".into())
            ]
        );
        o.auth_mode = AuthMode::Basic;
        o.tls = Some(TlsOptions::default());
        // base64("app:pscale_pw_x")
        assert_eq!(
            headers(&o),
            vec![("authorization", "Basic YXBwOnBzY2FsZV9wd194".into())]
        );
        o.username = None;
        o.password = None;
        assert!(headers(&o).is_empty(), "no credentials, no header");
    }

    #[test]
    fn basic_auth_needs_tls_and_a_user_without_a_colon() {
        let mut o = StreamOptions::new("x:1", "ks");
        o.username = Some("app".into());
        o.password = Some("p".into());
        o.auth_mode = AuthMode::Basic;
        let err = CallCredentials::from_options(&o).err().unwrap();
        assert!(err.message.contains("turn TLS on"), "{}", err.message);
        o.tls = Some(TlsOptions::default());
        o.username = Some("a:b".into());
        let err = CallCredentials::from_options(&o).err().unwrap();
        assert!(
            err.message.contains("cannot contain ':'"),
            "{}",
            err.message
        );
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
