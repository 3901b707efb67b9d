// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The tablet throttler's verdict per shard, for the chunk scheduler.
//!
//! Vitess throttles VStream itself: on a shard whose throttler refuses, the tablet's vstreamer
//! (the log, app `vstreamer`) and rowstreamer (a chunk's rows, app `rowstreamer`) wait until it
//! allows them again (docs/snapshots.md, "The tablet throttler", shows both on the multi-process
//! cluster). A chunk that starts on a refused shard still takes its consistent snapshot first,
//! then holds that read view open for as long as the refusal lasts. So, given a vtctld to ask,
//! the capture checks the throttler as an app of its own (`vitess-cdc` by default) on the
//! primary of each shard it has chunks to start on, about once a second, and starts no chunk on
//! a shard it refuses. The log is never held back by this check.
//!
//! Checks renew the primary's on-demand heartbeat lease, as Vitess's own apps do, so the lag they
//! measure is current; a shard with nothing left to start is not checked (no heartbeats are
//! requested for it). A check that fails (vtctld unreachable, a shard without a primary) leaves
//! the shard's chunks unchecked, and the capture says so once per episode.

use super::CaptureStream;
use crate::client::connect::tls_config;
use crate::error::{Error, ErrorCode, Result};
use crate::options::{ThrottlerOptions, TlsOptions};
use crate::proto::tabletmanagerdata::CheckThrottlerResponseCode;
use crate::proto::topodata::TabletAlias;
use crate::proto::vtctldata::{CheckThrottlerRequest, GetShardRequest};
use crate::proto::vtctlservice::vtctld_client::VtctldClient;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};

/// How often a shard with chunks to start is checked.
pub(super) const CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// One check (or the primary's lookup) that takes longer failed.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The throttler's last answer for a shard.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Verdict {
    /// No check since the shard had chunks to start: none starts before the first answer.
    Unchecked,
    Allowed,
    /// Refused, with the throttler's summary ("vitess-cdc is denied access due to shard/lag
    /// metric value 12.3 exceeding threshold 1").
    Refused(String),
    /// The check failed; chunks go on unchecked.
    Failed(String),
}

/// The background checks of one capture stream: it says which shards have chunks to start
/// ([`ThrottleWatch::want`]), the task checks those and publishes the verdicts.
pub(super) struct ThrottleWatch {
    wanted: watch::Sender<BTreeSet<String>>,
    verdicts: watch::Receiver<BTreeMap<String, Verdict>>,
    task: tokio::task::JoinHandle<()>,
    /// For messages: where the checks go and as which app.
    pub(super) vtctld: String,
    pub(super) app: String,
}

impl Drop for ThrottleWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ThrottleWatch {
    /// Starts the checks of `keyspace`'s shards; none is checked until wanted. Fails only on an
    /// address that cannot be one (the connection itself is made on the first check).
    pub(super) fn start(
        options: &ThrottlerOptions,
        keyspace: &str,
        tls: Option<&TlsOptions>,
        connect_timeout: Duration,
    ) -> Result<ThrottleWatch> {
        if options.app.trim().is_empty() {
            return Err(Error::config(
                "the throttler app name is empty — leave it unset for 'vitess-cdc', or name the app \
                 UpdateThrottlerConfig --throttle-app should hold back",
            )
            .with_code(ErrorCode::InvalidOption));
        }
        let client = vtctld_client(&options.vtctld, tls, connect_timeout, "the throttler check")?;
        let (wanted, wanted_rx) = watch::channel(BTreeSet::new());
        let (verdicts_tx, verdicts) = watch::channel(BTreeMap::new());
        let task = tokio::spawn(run(
            client,
            keyspace.to_string(),
            options.app.clone(),
            wanted_rx,
            verdicts_tx,
        ));
        Ok(ThrottleWatch {
            wanted,
            verdicts,
            task,
            vtctld: options.vtctld.clone(),
            app: options.app.clone(),
        })
    }

    /// The shards with chunks to start; only these are checked.
    pub(super) fn want(&self, shards: BTreeSet<String>) {
        self.wanted.send_if_modified(|w| {
            let changed = *w != shards;
            *w = shards;
            changed
        });
    }

    pub(super) fn verdict(&self, shard: &str) -> Verdict {
        self.verdicts
            .borrow()
            .get(shard)
            .cloned()
            .unwrap_or(Verdict::Unchecked)
    }

    /// Waits for new verdicts (forever once the checks ended).
    pub(super) async fn changed(&mut self) {
        if self.verdicts.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl CaptureStream {
    /// Tells the checks which shards have chunks to start, and holds back the chunks of those the
    /// throttler refuses (or has not answered for yet). Counts the time refused per shard.
    pub(super) fn follow_throttler(&mut self, now: Instant) {
        let Some(watch) = &self.throttle else {
            return;
        };
        let waiting: BTreeSet<String> = self
            .shards
            .iter()
            .filter(|(_, s)| {
                s.log.copy_completed
                    && !s.ended
                    && s.tables.values().any(|t| !t.paused && t.has_next())
            })
            .map(|(shard, _)| shard.clone())
            .collect();
        watch.want(waiting.clone());
        let keyspace = &self.options.keyspace;
        for (shard, s) in self.shards.iter_mut() {
            // A shard with nothing to start holds nothing back.
            let verdict = if waiting.contains(shard) {
                watch.verdict(shard)
            } else {
                Verdict::Allowed
            };
            s.throttle_held = matches!(verdict, Verdict::Unchecked | Verdict::Refused(_));
            match (&verdict, s.throttled_since) {
                (Verdict::Refused(reason), None) => {
                    s.throttled_since = Some(now);
                    tracing::info!(
                        "chunks of shard {keyspace}/{shard} held back: the tablet throttler refuses app '{}' ({reason}); \
                         they start once it allows them (the log goes on) — to let them through now: \
                         vtctldclient UpdateThrottlerConfig --unthrottle-app {} {keyspace}, or a higher --threshold",
                        watch.app,
                        watch.app
                    );
                }
                (Verdict::Refused(_), Some(_)) => {}
                (_, Some(since)) => {
                    s.throttled_since = None;
                    let held = now.saturating_duration_since(since);
                    s.progress.throttled_ms += held.as_millis() as u64;
                    tracing::info!(
                        "chunks of shard {keyspace}/{shard} go on: the tablet throttler held them back for {:.1} s",
                        held.as_secs_f64()
                    );
                }
                (_, None) => {}
            }
            match &verdict {
                Verdict::Failed(cause) if !s.throttle_check_failed => {
                    s.throttle_check_failed = true;
                    tracing::warn!(
                        "{cause}; the chunks of shard {keyspace}/{shard} go on without the throttler's verdict until a \
                         check answers — is vtctld's gRPC port {} reachable, and does the shard have a primary?",
                        watch.vtctld
                    );
                }
                Verdict::Allowed | Verdict::Refused(_) => s.throttle_check_failed = false,
                _ => {}
            }
        }
    }
}

/// A client of vtctld at `address` (`host:port`, or `http(s)://host:port`; https uses VTGate's
/// TLS settings or the system's roots), connected on first use. `purpose` names the caller in
/// errors.
pub(crate) fn vtctld_client(
    address: &str,
    tls: Option<&TlsOptions>,
    connect_timeout: Duration,
    purpose: &str,
) -> Result<VtctldClient<Channel>> {
    let uri = if address.starts_with("http://") || address.starts_with("https://") {
        address.to_string()
    } else {
        format!("http://{address}")
    };
    let https = uri.starts_with("https://");
    let mut endpoint = Endpoint::from_shared(uri)
        .map_err(|e| {
            Error::config(format!(
                "invalid vtctld address '{address}' for {purpose}: {e} — use host:port of vtctld's \
                 gRPC port, e.g. 127.0.0.1:15999"
            ))
            .with_code(ErrorCode::InvalidOption)
        })?
        .connect_timeout(connect_timeout)
        .timeout(CALL_TIMEOUT);
    if https {
        let config = match tls {
            Some(tls) => tls_config(tls)?,
            None => ClientTlsConfig::new().with_webpki_roots(),
        };
        endpoint = endpoint.tls_config(config).map_err(|e| {
            Error::config(format!(
                "invalid TLS configuration for vtctld at '{address}': {e}"
            ))
            .with_code(ErrorCode::TlsMismatch)
        })?;
    }
    Ok(VtctldClient::new(endpoint.connect_lazy()))
}

async fn run(
    client: VtctldClient<Channel>,
    keyspace: String,
    app: String,
    mut wanted: watch::Receiver<BTreeSet<String>>,
    verdicts: watch::Sender<BTreeMap<String, Verdict>>,
) {
    let mut primaries: BTreeMap<String, TabletAlias> = BTreeMap::new();
    loop {
        let shards: Vec<String> = wanted.borrow_and_update().iter().cloned().collect();
        if !shards.is_empty() {
            let checks = shards.iter().map(|shard| {
                let mut client = client.clone();
                let primary = primaries.get(shard).cloned();
                let (keyspace, app) = (&keyspace, &app);
                async move {
                    let (verdict, primary) =
                        check(&mut client, keyspace, shard, app, primary).await;
                    (shard.clone(), verdict, primary)
                }
            });
            let results = futures::future::join_all(checks).await;
            let mut round = BTreeMap::new();
            for (shard, verdict, primary) in results {
                match primary {
                    Some(p) => primaries.insert(shard.clone(), p),
                    // A failed call may mean a new primary: look it up again next time.
                    None => primaries.remove(&shard),
                };
                round.insert(shard, verdict);
            }
            // Shards no longer wanted drop out: wanted again, they wait for a fresh answer.
            verdicts.send_if_modified(|v| {
                let changed = *v != round;
                *v = round;
                changed
            });
        }
        tokio::select! {
            _ = tokio::time::sleep(CHECK_INTERVAL), if !shards.is_empty() => {}
            r = wanted.changed() => if r.is_err() { return },
        }
    }
}

/// Checks one shard: its primary (looked up unless known) asked about `app`. Returns the verdict
/// and the primary to remember (None after a failure).
async fn check(
    client: &mut VtctldClient<Channel>,
    keyspace: &str,
    shard: &str,
    app: &str,
    primary: Option<TabletAlias>,
) -> (Verdict, Option<TabletAlias>) {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        (
            Verdict::Failed(format!("{what} of shard {keyspace}/{shard} failed: {e}")),
            None,
        )
    };
    let primary = match primary {
        Some(p) => p,
        None => {
            let request = GetShardRequest {
                keyspace: keyspace.to_string(),
                shard_name: shard.to_string(),
            };
            match client.get_shard(request).await {
                Ok(r) => match r.into_inner().shard.and_then(|s| s.shard?.primary_alias) {
                    Some(p) => p,
                    None => {
                        return failed(
                            "the primary lookup",
                            &"the shard has no primary in the topology",
                        )
                    }
                },
                Err(status) => return failed("the primary lookup", &status.message()),
            }
        }
    };
    let request = CheckThrottlerRequest {
        tablet_alias: Some(primary.clone()),
        app_name: app.to_string(),
        ..CheckThrottlerRequest::default()
    };
    match client.check_throttler(request).await {
        Ok(r) => {
            let answer = r.into_inner().check.unwrap_or_default();
            (verdict_of(&answer), Some(primary))
        }
        Err(status) => failed("the throttler check", &status.message()),
    }
}

/// What a throttler's answer means for the chunks.
fn verdict_of(answer: &crate::proto::tabletmanagerdata::CheckThrottlerResponse) -> Verdict {
    let reason = || {
        [&answer.summary, &answer.message, &answer.error]
            .into_iter()
            .find(|s| !s.is_empty())
            .cloned()
            .unwrap_or_else(|| {
                format!("value {} over threshold {}", answer.value, answer.threshold)
            })
    };
    match CheckThrottlerResponseCode::try_from(answer.response_code) {
        Ok(CheckThrottlerResponseCode::Ok) => Verdict::Allowed,
        Ok(
            CheckThrottlerResponseCode::ThresholdExceeded | CheckThrottlerResponseCode::AppDenied,
        ) => Verdict::Refused(reason()),
        // An unknown metric, an error inside the throttler, or an answer without a code (no
        // verdict to act on): the chunks go on, and the capture says so.
        _ => Verdict::Failed(format!("the throttler gave no verdict: {}", reason())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::tabletmanagerdata::CheckThrottlerResponse;

    fn answer(code: CheckThrottlerResponseCode, summary: &str) -> CheckThrottlerResponse {
        CheckThrottlerResponse {
            response_code: code as i32,
            summary: summary.to_string(),
            value: 12.5,
            threshold: 1.0,
            ..CheckThrottlerResponse::default()
        }
    }

    #[test]
    fn an_ok_allows_and_a_refusal_keeps_the_throttlers_summary() {
        assert_eq!(
            verdict_of(&answer(CheckThrottlerResponseCode::Ok, "")),
            Verdict::Allowed
        );
        let summary =
            "vitess-cdc is denied access due to shard/lag metric value 12.5 exceeding threshold 1";
        assert_eq!(
            verdict_of(&answer(
                CheckThrottlerResponseCode::ThresholdExceeded,
                summary
            )),
            Verdict::Refused(summary.into())
        );
        assert_eq!(
            verdict_of(&answer(CheckThrottlerResponseCode::AppDenied, "")),
            Verdict::Refused("value 12.5 over threshold 1".into())
        );
    }

    #[test]
    fn an_answer_without_a_verdict_is_a_failed_check_not_an_allowance() {
        for code in [
            CheckThrottlerResponseCode::Undefined,
            CheckThrottlerResponseCode::UnknownMetric,
            CheckThrottlerResponseCode::InternalError,
        ] {
            match verdict_of(&answer(code, "metric not collected")) {
                Verdict::Failed(m) => assert!(m.contains("metric not collected"), "{m}"),
                v => panic!("{code:?} gave {v:?}"),
            }
        }
    }

    #[tokio::test]
    async fn an_address_that_cannot_be_one_is_a_configuration_error() {
        let e = ThrottleWatch::start(
            &ThrottlerOptions::new("not an address\n"),
            "ks",
            None,
            Duration::from_secs(1),
        )
        .err()
        .expect("refused");
        assert_eq!(e.code, ErrorCode::InvalidOption);
        assert!(e.message.contains("vtctld address"), "{}", e.message);
        let mut empty_app = ThrottlerOptions::new("127.0.0.1:1");
        empty_app.app = " ".into();
        assert!(ThrottleWatch::start(&empty_app, "ks", None, Duration::from_secs(1)).is_err());
    }

    #[tokio::test]
    async fn an_unreachable_vtctld_fails_the_checks_of_the_wanted_shards_only() {
        // A port nothing listens on: the check fails fast, naming the shard.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let mut watch = ThrottleWatch::start(
            &ThrottlerOptions::new(format!("127.0.0.1:{port}")),
            "ks",
            None,
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!(watch.verdict("-80"), Verdict::Unchecked);
        watch.want(BTreeSet::from(["-80".to_string()]));
        tokio::time::timeout(Duration::from_secs(10), watch.changed())
            .await
            .expect("a verdict within 10 s");
        match watch.verdict("-80") {
            Verdict::Failed(m) => assert!(m.contains("ks/-80"), "{m}"),
            v => panic!("{v:?}"),
        }
        assert_eq!(watch.verdict("80-"), Verdict::Unchecked);
    }
}
