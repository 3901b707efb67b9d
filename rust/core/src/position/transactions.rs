// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! How many transactions a position's GTID set holds: one more per commit of the shard, so it
//! ranks a shard's positions the same way for every reader.

use super::ShardPosition;

impl ShardPosition {
    /// The number of transactions in the position's GTID set: it grows by one per commit of
    /// the shard, in binlog order, whichever server is primary, so it ranks the shard's
    /// positions the same way for every reader (the base of a record's order rank,
    /// docs/positions.md "Order across reshards"). 0 for an empty set (before a copy's first
    /// snapshot).
    pub fn transaction_count(&self) -> crate::Result<u64> {
        // Every mark is counted, so the usual case (the canonical set MySQL and VTGate print)
        // is summed without building the set; anything else goes through the full parser.
        if let Some(n) = count_canonical_gtid_set(&self.gtid) {
            return Ok(n);
        }
        crate::gtid::GtidSet::parse(&self.gtid)
            .map(|set| set.transaction_count())
            .map_err(|e| {
                crate::Error::config(format!(
                    "the position of {}/{} has no countable GTID set ({e}): order ranks need a MySQL \
                     GTID position",
                    self.keyspace, self.shard
                ))
                .with_code(crate::ErrorCode::InvalidPosition)
            })
    }
}

/// The transactions of a GTID set in the canonical form MySQL prints (`[MySQL56/]uuid:a-b:c-d,…`:
/// sources in strictly ascending UUID order, each with ascending intervals that neither overlap
/// nor touch, no tags), summed without allocating; `None` for anything else (the caller then
/// parses the set, which also merges overlaps), so the count is exact either way.
fn count_canonical_gtid_set(text: &str) -> Option<u64> {
    let body = text
        .strip_prefix(crate::gtid::MYSQL56_FLAVOR)
        .unwrap_or(text);
    if body.is_empty() {
        return Some(0);
    }
    let mut total = 0u64;
    let mut previous_uuid: Option<&str> = None;
    for source in body.split(',') {
        let mut parts = source.split(':');
        let uuid = parts.next()?;
        if uuid.len() != 36 || previous_uuid.is_some_and(|p| p >= uuid) {
            return None;
        }
        previous_uuid = Some(uuid);
        let mut previous_end = 0u64;
        let mut any = false;
        for interval in parts {
            let (a, b) = match interval.split_once('-') {
                Some((a, b)) => (digits(a)?, digits(b)?),
                None => {
                    let n = digits(interval)?;
                    (n, n)
                }
            };
            // Touching or overlapping intervals, or a zero, are not canonical: let the parser
            // decide.
            if a == 0 || b < a || (any && a <= previous_end.saturating_add(1)) {
                return None;
            }
            total = total.checked_add(b - a + 1)?;
            previous_end = b;
            any = true;
        }
        if !any {
            return None;
        }
    }
    Some(total)
}

/// A plain decimal number (no sign, no spaces), or `None`.
fn digits(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::super::tests::pos;
    use super::*;

    proptest::proptest! {
        /// The allocation-free count agrees with the full parser wherever it answers, and it
        /// answers for every set the parser prints back (the canonical form).
        #[test]
        fn the_fast_count_agrees_with_the_gtid_set(
            sources in proptest::collection::vec(
                (0u8..6, proptest::collection::vec((1u64..50, 0u64..30), 1..5)), 0..4),
            prefixed in proptest::bool::ANY,
        ) {
            let text = sources
                .iter()
                .map(|(u, intervals)| {
                    let mut start = 0;
                    let parts: Vec<String> = intervals
                        .iter()
                        .map(|(gap, len)| {
                            let a = start + gap;
                            start = a + len;
                            format!("{a}-{}", a + len)
                        })
                        .collect();
                    format!("3e11fa47-71ca-11e1-9e33-c80aa942956{u}:{}", parts.join(":"))
                })
                .collect::<Vec<_>>()
                .join(",");
            let text = if prefixed { format!("MySQL56/{text}") } else { text };
            let set = crate::gtid::GtidSet::parse(&text).unwrap();
            if let Some(fast) = count_canonical_gtid_set(&text) {
                proptest::prop_assert_eq!(fast, set.transaction_count(), "{}", text);
            }
            let canonical = set.to_bare_string();
            proptest::prop_assert_eq!(count_canonical_gtid_set(&canonical), Some(set.transaction_count()));
        }
    }

    #[test]
    fn transaction_count_sums_every_server_uuid_and_refuses_what_is_not_a_mysql_set() {
        let mut p = pos("MySQL56/3e11fa47-71ca-11e1-9e33-c80aa9429562:1-40:45,\
                         4e11fa47-71ca-11e1-9e33-c80aa9429562:1-2");
        assert_eq!(p.transaction_count().unwrap(), 43);
        p.gtid = String::new();
        assert_eq!(p.transaction_count().unwrap(), 0);
        p.gtid = "MariaDB/0-1-5".into();
        let e = p.transaction_count().unwrap_err();
        assert_eq!(e.code, crate::ErrorCode::InvalidPosition);
        assert!(e.message.contains("MariaDB"), "{}", e.message);
    }
}
