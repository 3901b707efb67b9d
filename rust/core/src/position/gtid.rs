// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! GTID sets as Vitess writes them in positions: `MySQL56/<uuid>:1-5:7-9,<uuid2>:1-3`.
//!
//! A position is a set of transactions, not a point: "has the log passed snapshot G" is
//! `position ⊇ G`, and "is transaction T in snapshot G" is `g_T ∈ G` (a string or VGTID
//! comparison answers neither). The chunked snapshot's merge ([`crate::snapshot`]) is built on
//! these two tests.
//!
//! Why not a crate: `mysql-binlog-connector-rust` and `mysql_cdc` parse MySQL's bare sets but
//! not Vitess's flavor prefix, and carry a binlog client this crate does not need.
//!
//! Accepted: the `MySQL56/` prefix (optional), several server UUIDs separated by `,` (spaces
//! and newlines around them are ignored, as MySQL prints them), intervals `a-b` or `a`
//! (1 ≤ a ≤ b < 2⁶³), MySQL 8.4 tags (`uuid:tag:1-3`, a tag applies to the intervals after it),
//! and single GTIDs `uuid:N` / `uuid:tag:N` as VStream's `event_gtid` carries them. MariaDB
//! positions (`MariaDB/0-1-5`) and file positions (`FilePos/…`) are refused with the reason.

use std::collections::BTreeMap;
use std::fmt;

/// The prefix Vitess puts before a MySQL GTID set.
pub const MYSQL56_FLAVOR: &str = "MySQL56/";

/// A malformed GTID set or GTID; the message names the offending part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid GTID set '{input}': {reason}")]
pub struct GtidError {
    pub input: String,
    pub reason: String,
}

/// The source of a transaction: a server UUID and an optional MySQL 8.4 tag.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sid {
    pub uuid: u128,
    /// Lowercase tag, empty for untagged GTIDs.
    pub tag: String,
}

/// One transaction: `uuid[:tag]:seq`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Gtid {
    pub sid: Sid,
    pub seq: u64,
}

/// A set of transactions, kept canonical: per source, sorted intervals that neither overlap
/// nor touch. Two sets are equal iff they hold the same transactions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GtidSet {
    sources: BTreeMap<Sid, Vec<(u64, u64)>>,
}

impl Gtid {
    /// `uuid:N` or `uuid:tag:N` (VStream's `event_gtid`, without the flavor prefix).
    pub fn parse(text: &str) -> Result<Gtid, GtidError> {
        let err = |reason: String| GtidError {
            input: text.to_string(),
            reason,
        };
        let body = text
            .trim()
            .strip_prefix(MYSQL56_FLAVOR)
            .unwrap_or(text.trim());
        let parts: Vec<&str> = body.split(':').collect();
        let (uuid, tag, seq) = match parts.as_slice() {
            [u, n] => (*u, "", *n),
            [u, t, n] => (*u, *t, *n),
            _ => return Err(err("expected 'uuid:N' or 'uuid:tag:N'".into())),
        };
        let sid = Sid {
            uuid: parse_uuid(uuid).map_err(err)?,
            tag: parse_tag(tag).map_err(err)?,
        };
        let seq = parse_seq(seq).map_err(err)?;
        Ok(Gtid { sid, seq })
    }
}

impl GtidSet {
    /// The empty set.
    pub fn new() -> GtidSet {
        GtidSet::default()
    }

    /// A set in Vitess's form (`MySQL56/…`) or MySQL's bare form (`uuid:1-5,…`); `""` and
    /// `MySQL56/` are the empty set.
    pub fn parse(text: &str) -> Result<GtidSet, GtidError> {
        let err = |reason: String| GtidError {
            input: text.to_string(),
            reason,
        };
        let trimmed = text.trim();
        let body = match trimmed.split_once('/') {
            None => trimmed,
            Some(("MySQL56", body)) => body,
            Some((flavor, _)) => {
                return Err(err(format!(
                    "flavor '{flavor}' is not supported: chunked snapshots compare MySQL GTID sets \
                     (MySQL56/…); MariaDB and file positions have no set containment"
                )))
            }
        };
        let mut set = GtidSet::new();
        for source in body.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let mut parts = source.split(':');
            let uuid = parse_uuid(parts.next().unwrap_or_default()).map_err(err)?;
            let mut sid = Sid {
                uuid,
                tag: String::new(),
            };
            let mut any = false;
            for part in parts {
                let part = part.trim();
                if part.starts_with(|c: char| c.is_ascii_digit()) {
                    let (a, b) = match part.split_once('-') {
                        Some((a, b)) => (parse_seq(a).map_err(err)?, parse_seq(b).map_err(err)?),
                        None => {
                            let n = parse_seq(part).map_err(err)?;
                            (n, n)
                        }
                    };
                    if a > b {
                        return Err(err(format!("interval '{part}' ends before it starts")));
                    }
                    set.insert(&sid, a, b);
                    any = true;
                } else {
                    sid.tag = parse_tag(part).map_err(err)?;
                    any = false;
                }
            }
            if !any {
                return Err(err(format!(
                    "'{source}' has no interval after its last uuid or tag"
                )));
            }
        }
        Ok(set)
    }

    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    pub fn contains_gtid(&self, gtid: &Gtid) -> bool {
        self.sources.get(&gtid.sid).is_some_and(|iv| {
            // The last interval starting at or before seq is the only candidate.
            let i = iv.partition_point(|&(a, _)| a <= gtid.seq);
            i > 0 && iv[i - 1].1 >= gtid.seq
        })
    }

    /// `self ⊇ other`: every transaction of `other` is in `self`.
    pub fn is_superset(&self, other: &GtidSet) -> bool {
        other.sources.iter().all(|(sid, theirs)| {
            let Some(mine) = self.sources.get(sid) else {
                return false;
            };
            theirs.iter().all(|&(a, b)| {
                let i = mine.partition_point(|&(s, _)| s <= a);
                i > 0 && mine[i - 1].1 >= b
            })
        })
    }

    /// Adds one transaction.
    pub fn add(&mut self, gtid: &Gtid) {
        self.insert(&gtid.sid, gtid.seq, gtid.seq);
    }

    /// Adds every transaction of `other`.
    pub fn union(&mut self, other: &GtidSet) {
        for (sid, intervals) in &other.sources {
            for &(a, b) in intervals {
                self.insert(sid, a, b);
            }
        }
    }

    /// How many transactions the set holds (saturating at `u64::MAX`). A log stream's position
    /// only grows, so along one shard's stream this count is a monotone rank of positions.
    pub fn transaction_count(&self) -> u64 {
        self.sources
            .values()
            .flatten()
            .fold(0u64, |n, &(a, b)| n.saturating_add(b - a + 1))
    }

    /// The set without the flavor prefix, as MySQL prints it.
    pub fn to_bare_string(&self) -> String {
        let mut out = String::new();
        let mut uuid = None;
        // Sources are ordered by (uuid, tag): a UUID's untagged intervals come first, then its
        // tags in order, all under one `uuid:` as MySQL prints them.
        for (sid, intervals) in &self.sources {
            if uuid != Some(sid.uuid) {
                if uuid.is_some() {
                    out.push(',');
                }
                out.push_str(&format_uuid(sid.uuid));
                uuid = Some(sid.uuid);
            }
            if !sid.tag.is_empty() {
                out.push(':');
                out.push_str(&sid.tag);
            }
            for &(a, b) in intervals {
                out.push(':');
                if a == b {
                    out.push_str(&a.to_string());
                } else {
                    out.push_str(&format!("{a}-{b}"));
                }
            }
        }
        out
    }

    /// Inserts `[a, b]`, merging with every interval it overlaps or touches.
    fn insert(&mut self, sid: &Sid, a: u64, b: u64) {
        let iv = self.sources.entry(sid.clone()).or_default();
        // First interval that could merge: its end reaches a - 1.
        let lo = iv.partition_point(|&(_, e)| e.saturating_add(1) < a);
        // One past the last that could merge: its start is at most b + 1.
        let hi = iv.partition_point(|&(s, _)| s <= b.saturating_add(1));
        if lo >= hi {
            iv.insert(lo, (a, b));
        } else {
            let merged = (iv[lo].0.min(a), iv[hi - 1].1.max(b));
            iv.splice(lo..hi, [merged]);
        }
    }
}

/// Canonical: `MySQL56/` then the sources by UUID, intervals ascending, `a` for `a-a`.
impl fmt::Display for GtidSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{MYSQL56_FLAVOR}{}", self.to_bare_string())
    }
}

impl fmt::Display for Gtid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_uuid(self.sid.uuid))?;
        if !self.sid.tag.is_empty() {
            write!(f, ":{}", self.sid.tag)?;
        }
        write!(f, ":{}", self.seq)
    }
}

impl std::str::FromStr for GtidSet {
    type Err = GtidError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GtidSet::parse(s)
    }
}

impl From<GtidError> for crate::Error {
    fn from(e: GtidError) -> Self {
        crate::Error::fatal(e.to_string()).with_code(crate::ErrorCode::InvalidPosition)
    }
}

/// 36 characters `8-4-4-4-12` of hex digits (either case).
fn parse_uuid(text: &str) -> Result<u128, String> {
    let text = text.trim();
    let dashes_ok = text.len() == 36
        && text
            .char_indices()
            .all(|(i, c)| (c == '-') == matches!(i, 8 | 13 | 18 | 23));
    let hex: String = text.chars().filter(|&c| c != '-').collect();
    if !dashes_ok || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!(
            "'{text}' is not a server UUID (8-4-4-4-12 hex digits)"
        ));
    }
    u128::from_str_radix(&hex, 16).map_err(|e| e.to_string())
}

fn format_uuid(u: u128) -> String {
    let h = format!("{u:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..]
    )
}

/// MySQL's tag: a letter or `_`, then up to 31 letters, digits or `_`; case-insensitive.
fn parse_tag(text: &str) -> Result<String, String> {
    let ok = text.is_empty()
        || (text.len() <= 32
            && text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    if !ok {
        return Err(format!("'{text}' is neither an interval nor a GTID tag"));
    }
    Ok(text.to_ascii_lowercase())
}

/// A transaction number: 1 ≤ n < 2⁶³ (MySQL's range).
fn parse_seq(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=i64::MAX as u64).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{text}' is not a transaction number (1 to 9223372036854775807)"
        )),
    }
}

#[cfg(test)]
mod tests;
