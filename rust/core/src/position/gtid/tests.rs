// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

use super::*;
use proptest::prelude::*;
use std::collections::BTreeSet;

const A: &str = "87d2a132-ec4c-11f1-bbd3-02fc00000001";
const B: &str = "0c9f6a5e-ec4d-11f1-9a3e-02fc00000002";

fn set(text: &str) -> GtidSet {
    GtidSet::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

fn gtid(text: &str) -> Gtid {
    Gtid::parse(text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn parses_vitess_positions_with_several_servers() {
    let s = set(&format!("MySQL56/{A}:1-5:7-9,{B}:1-3"));
    assert_eq!(s.transaction_count(), 5 + 3 + 3);
    assert!(s.contains_gtid(&gtid(&format!("{A}:5"))));
    assert!(!s.contains_gtid(&gtid(&format!("{A}:6"))));
    assert!(s.contains_gtid(&gtid(&format!("{A}:7"))));
    assert!(s.contains_gtid(&gtid(&format!("{B}:3"))));
    assert!(!s.contains_gtid(&gtid(&format!("{B}:4"))));
    assert!(!s.contains_gtid(&gtid(&format!(
        "{}:1",
        "00000000-0000-0000-0000-000000000000"
    ))));
}

#[test]
fn display_is_canonical() {
    // Sources by UUID, intervals merged and sorted, single transactions without '-', lowercase.
    let s = set(&format!(
        "MySQL56/{}:7-9:1-3:4-6:11, {}:2:1",
        A.to_uppercase(),
        B
    ));
    assert_eq!(s.to_string(), format!("MySQL56/{B}:1-2,{A}:1-9:11"));
    assert_eq!(set(&s.to_string()), s);
    assert_eq!(set(&s.to_bare_string()), s);
    // MySQL prints long sets with a newline after each comma.
    assert_eq!(set(&format!("{B}:1-2,\n{A}:1-9:11")), s);
}

#[test]
fn empty_sets() {
    assert!(set("").is_empty());
    assert!(set("MySQL56/").is_empty());
    assert_eq!(set("").to_string(), "MySQL56/");
    assert_eq!(set("").transaction_count(), 0);
    assert!(set(&format!("{A}:1")).is_superset(&set("")));
    assert!(!set("").is_superset(&set(&format!("{A}:1"))));
}

#[test]
fn superset_needs_every_interval_covered() {
    let big = set(&format!("{A}:1-100,{B}:1-10"));
    assert!(big.is_superset(&set(&format!("{A}:5-50:99"))));
    assert!(big.is_superset(&big));
    assert!(!big.is_superset(&set(&format!("{A}:90-101"))));
    assert!(!big.is_superset(&set(&format!("{B}:11"))));
    // A server the big set does not know.
    assert!(!big.is_superset(&set("11111111-1111-1111-1111-111111111111:1")));
    // Gaps matter: 1-5:7-9 does not contain 1-9.
    assert!(!set(&format!("{A}:1-5:7-9")).is_superset(&set(&format!("{A}:1-9"))));
}

#[test]
fn add_and_union_merge_touching_intervals() {
    let mut s = set(&format!("{A}:1-5:7-9"));
    s.add(&gtid(&format!("{A}:6")));
    assert_eq!(s.to_bare_string(), format!("{A}:1-9"));
    s.add(&gtid(&format!("{B}:3")));
    s.union(&set(&format!("{B}:1-2:4,{A}:20")));
    assert_eq!(s.to_bare_string(), format!("{B}:1-4,{A}:1-9:20"));
    assert_eq!(s.transaction_count(), 4 + 9 + 1);
}

#[test]
fn tags_are_their_own_sources() {
    let s = set(&format!("MySQL56/{A}:1-3:Audit:1-2:5,{A}:_x:1"));
    assert_eq!(s.to_bare_string(), format!("{A}:1-3:_x:1:audit:1-2:5"));
    assert!(s.contains_gtid(&gtid(&format!("{A}:audit:5"))));
    assert!(!s.contains_gtid(&gtid(&format!("{A}:audit:3"))));
    assert!(s.contains_gtid(&gtid(&format!("{A}:3"))));
    assert_eq!(s.transaction_count(), 3 + 1 + 3);
    assert_eq!(
        gtid(&format!("{A}:audit:5")).to_string(),
        format!("{A}:audit:5")
    );
}

#[test]
fn malformed_sets_name_the_bad_part() {
    let cases: &[(&str, &str)] = &[
        ("MariaDB/0-1-5", "flavor 'MariaDB' is not supported"),
        (
            "FilePos/binlog.000001:4",
            "flavor 'FilePos' is not supported",
        ),
        ("u:1-5", "'u' is not a server UUID"),
        (A, "no interval"),
        (&format!("{A}:5-3"), "'5-3' ends before it starts"),
        (&format!("{A}:0-3"), "'0' is not a transaction number"),
        (&format!("{A}:1-x"), "'x' is not a transaction number"),
        (
            &format!("{A}:9223372036854775808"),
            "not a transaction number",
        ),
        (&format!("{A}:1:tag"), "no interval"),
        (
            &format!("{A}:1:t-g:1"),
            "neither an interval nor a GTID tag",
        ),
        (
            "87d2a132ec4c11f1bbd302fc00000001aaaa:1",
            "not a server UUID",
        ),
    ];
    for (input, expected) in cases {
        let e = GtidSet::parse(input).unwrap_err();
        assert!(
            e.to_string().contains(expected) && e.to_string().contains(input),
            "{input}: {e}"
        );
    }
    let e = Gtid::parse(&format!("{A}:1-5")).unwrap_err();
    assert!(e.to_string().contains("not a transaction number"), "{e}");
    assert!(Gtid::parse(A).is_err());
    let core: crate::Error = e.into();
    assert_eq!(core.code, crate::ErrorCode::InvalidPosition);
}

#[test]
fn event_gtid_form_parses() {
    // VStream's event_gtid: bare, no flavor; the prefixed form is accepted too.
    let g = gtid(&format!("{A}:42"));
    assert_eq!(g.seq, 42);
    assert_eq!(gtid(&format!("MySQL56/{A}:42")), g);
    assert_eq!(g.to_string(), format!("{A}:42"));
}

const UUIDS: [&str; 3] = [A, B, "ffffffff-0000-0000-0000-00000000000f"];
const TAGS: [&str; 2] = ["", "t"];

type Model = BTreeSet<(usize, usize, u64)>;

fn model_gtid(&(u, t, n): &(usize, usize, u64)) -> Gtid {
    let text = if TAGS[t].is_empty() {
        format!("{}:{n}", UUIDS[u])
    } else {
        format!("{}:{}:{n}", UUIDS[u], TAGS[t])
    };
    gtid(&text)
}

fn build(model: &Model) -> GtidSet {
    let mut s = GtidSet::new();
    for g in model {
        s.add(&model_gtid(g));
    }
    s
}

fn model() -> impl Strategy<Value = Model> {
    proptest::collection::btree_set((0..UUIDS.len(), 0..TAGS.len(), 1u64..40), 0..60)
}

proptest! {
    #[test]
    fn behaves_like_a_set_of_transactions(a in model(), b in model(), probe in (0..3usize, 0..2usize, 1u64..42)) {
        let sa = build(&a);
        let sb = build(&b);
        prop_assert_eq!(sa.transaction_count(), a.len() as u64);
        prop_assert_eq!(sa.contains_gtid(&model_gtid(&probe)), a.contains(&probe));
        // Printing and parsing gives the same set, and the printed form is canonical.
        let again = GtidSet::parse(&sa.to_string()).unwrap();
        prop_assert_eq!(&again, &sa);
        prop_assert_eq!(again.to_string(), sa.to_string());
        prop_assert_eq!(sa.is_superset(&sb), b.is_subset(&a));
        let mut u = sa.clone();
        u.union(&sb);
        let mu: Model = a.union(&b).cloned().collect();
        prop_assert_eq!(&u, &build(&mu));
        prop_assert!(u.is_superset(&sa) && u.is_superset(&sb));
        prop_assert_eq!(u.transaction_count(), mu.len() as u64);
    }
}
