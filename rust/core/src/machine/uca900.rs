// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! MySQL's `utf8mb4_0900_ai_ci` order (MySQL's default collation): the Unicode Collation
//! Algorithm with the DUCET of UCA 9.0.0, compared at the primary level only (accent- and
//! case-insensitive), without padding. Like MySQL, strings are not normalized first: the DUCET
//! lists precomposed letters with the weights of their decompositions.
//!
//! The weights come from `data/uca900_primary.bin`, generated from the Unicode Consortium's
//! allkeys.txt 9.0.0 by `data/gen_uca900.py`. Characters the table does not list get the
//! implicit weights of UCA 9.0 §10.1.3 (Tangut, Han, everything else), Hangul syllables the
//! weights of their jamo (§10.1.5), as MySQL computes them.

use std::collections::HashMap;
use std::sync::OnceLock;

static DATA: &[u8] = include_bytes!("../../data/uca900_primary.bin");

struct Table {
    singles: HashMap<u32, Box<[u16]>>,
    contractions: HashMap<Box<[u32]>, Box<[u16]>>,
    /// First code point of a contraction → its longest length.
    starters: HashMap<u32, usize>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| parse(DATA))
}

fn parse(data: &[u8]) -> Table {
    assert_eq!(&data[..4], b"UCA9", "uca900_primary.bin: bad magic");
    let u32_at = |i: usize| u32::from_le_bytes(data[i..i + 4].try_into().unwrap());
    let count = u32_at(4) as usize;
    let mut t = Table {
        singles: HashMap::with_capacity(count),
        contractions: HashMap::new(),
        starters: HashMap::new(),
    };
    let mut i = 8;
    for _ in 0..count {
        let n = data[i] as usize;
        i += 1;
        let cps: Box<[u32]> = (0..n).map(|k| u32_at(i + 4 * k)).collect();
        i += 4 * n;
        let m = data[i] as usize;
        i += 1;
        let weights: Box<[u16]> = (0..m)
            .map(|k| u16::from_le_bytes([data[i + 2 * k], data[i + 2 * k + 1]]))
            .collect();
        i += 2 * m;
        if n == 1 {
            t.singles.insert(cps[0], weights);
        } else {
            let longest = t.starters.entry(cps[0]).or_insert(0);
            *longest = (*longest).max(n);
            t.contractions.insert(cps, weights);
        }
    }
    t
}

/// The primary weights of `s`, in order (ignorable characters contribute none).
pub fn primary_weights(s: &str) -> Vec<u16> {
    let t = table();
    let cps: Vec<u32> = s.chars().map(u32::from).collect();
    let mut out = Vec::with_capacity(cps.len() + 4);
    let mut i = 0;
    while i < cps.len() {
        let c = cps[i];
        if let Some(&longest) = t.starters.get(&c) {
            let matched = (2..=longest.min(cps.len() - i))
                .rev()
                .find_map(|len| t.contractions.get(&cps[i..i + len]).map(|w| (len, w)));
            if let Some((len, weights)) = matched {
                out.extend_from_slice(weights);
                i += len;
                continue;
            }
        }
        push_char(t, c, &mut out);
        i += 1;
    }
    out
}

fn push_char(t: &Table, c: u32, out: &mut Vec<u16>) {
    if let Some(weights) = t.singles.get(&c) {
        out.extend_from_slice(weights);
        return;
    }
    // Hangul syllables: the weights of their jamo (L V [T]).
    const S_BASE: u32 = 0xAC00;
    const S_COUNT: u32 = 11172;
    if (S_BASE..S_BASE + S_COUNT).contains(&c) {
        let index = c - S_BASE;
        let l = 0x1100 + index / 588;
        let v = 0x1161 + (index % 588) / 28;
        let trailing = index % 28;
        for jamo in [l, v] {
            push_char(t, jamo, out);
        }
        if trailing != 0 {
            push_char(t, 0x11A7 + trailing, out);
        }
        return;
    }
    let (page, low) = implicit(c);
    out.push(page);
    out.push(low);
}

/// UCA 9.0 implicit weights `[AAAA][BBBB]` for a character the DUCET does not list.
fn implicit(c: u32) -> (u16, u16) {
    if (0x17000..=0x18AFF).contains(&c) {
        // Tangut and Tangut Components (@implicitweights 17000..18AFF; FB00).
        return (0xFB00, ((c - 0x17000) | 0x8000) as u16);
    }
    let base = if (0x4E00..=0x9FD5).contains(&c) || (0xFA0E..=0xFA29).contains(&c) {
        // Unified ideographs of the CJK Unified / Compatibility Ideographs blocks.
        0xFB40
    } else if (0x3400..=0x4DB5).contains(&c)
        || (0x20000..=0x2A6D6).contains(&c)
        || (0x2A700..=0x2B734).contains(&c)
        || (0x2B740..=0x2B81D).contains(&c)
        || (0x2B820..=0x2CEA1).contains(&c)
    {
        // The other unified ideographs (extensions A–E).
        0xFB80
    } else {
        // Unassigned and everything else.
        0xFBC0
    };
    ((base + (c >> 15)) as u16, ((c & 0x7FFF) | 0x8000) as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    fn cmp(a: &str, b: &str) -> Ordering {
        primary_weights(a).cmp(&primary_weights(b))
    }

    #[test]
    fn accents_and_case_do_not_count_but_letters_and_spaces_do() {
        assert_eq!(cmp("a", "A"), Ordering::Equal);
        assert_eq!(cmp("résumé", "RESUME"), Ordering::Equal);
        assert_eq!(cmp("a", "b"), Ordering::Less);
        assert_eq!(cmp("a", "a "), Ordering::Less, "NO PAD: the space weighs");
        assert_eq!(cmp("ß", "ss"), Ordering::Equal);
        assert_eq!(cmp("", "a"), Ordering::Less);
    }

    #[test]
    fn contractions_hangul_and_implicit_weights() {
        // Cyrillic Й written decomposed is one contraction, equal to the precomposed letter.
        assert_eq!(cmp("\u{0418}\u{0306}", "\u{0419}"), Ordering::Equal);
        // A Hangul syllable weighs as its jamo.
        assert_eq!(cmp("\u{AC00}", "\u{1100}\u{1161}"), Ordering::Equal);
        // Han before unassigned code points; core Han before extension A.
        assert_eq!(cmp("\u{4E00}", "\u{3400}"), Ordering::Less);
        assert_eq!(cmp("\u{9FD5}", "\u{E0080}"), Ordering::Less);
        // Letters before Han.
        assert_eq!(cmp("z", "\u{4E00}"), Ordering::Less);
    }
}
