// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! MySQL character sets → UTF-8, exactly as MySQL 9.7 converts them (`CONVERT(x USING utf8mb4)`).
//!
//! VStream sends a text column's bytes in the column's character set, named by its collation id
//! (`query.Field.charset`). Every collation of MySQL 9.7 maps to its character set here
//! ([`of_collation`]); each character set decodes as MySQL does:
//!
//! - `utf8mb4`, `utf8mb3`: UTF-8, shared with the received message (no copy). Invalid UTF-8 is
//!   an error (MySQL never stores it).
//! - The single-byte sets (`latin1` — which is Windows-1252 in MySQL, not ISO-8859-1 —,
//!   `latin2`, `latin5`, `latin7`, `cp1250`, `cp1251`, `cp1256`, `cp1257`, `cp850`, `cp852`,
//!   `cp866`, `koi8r`, `koi8u`, `greek`, `hebrew`, `macroman`, `macce`, `tis620`, `swe7`,
//!   `armscii8`, `geostd8`, `keybcs2`, `dec8`, `hp8`, `ascii`): MySQL's own 256-entry tables
//!   ([`tables`], read from MySQL 9.7's conversions), because MySQL's tables differ from the
//!   WHATWG ones (`encoding_rs`) in places (C1 controls, undefined bytes, `swe7`'s 7-bit letters).
//! - The multi-byte sets (`big5`, `sjis`, `cp932`, `euckr`, `gb2312`, `gbk`, `gb18030`, `ujis`,
//!   `eucjpms`): split into characters by MySQL's byte ranges, decoded by `encoding_rs`, except
//!   the codes where MySQL's table says otherwise ([`tables`]: e.g. `sjis` is JIS X 0208 without
//!   Microsoft's extensions, `gb18030` is the 2005 edition, `eucjpms`' user-defined area maps to
//!   the private use area).
//! - `utf16`, `utf16le`, `utf32`, `ucs2`: decoded by hand (`char::decode_utf16`,
//!   `char::from_u32`).
//! - A code MySQL's table leaves unmapped, or a byte sequence that is not a character of the set
//!   (MySQL stores neither from a valid statement), decodes as `?`, as MySQL's conversion does.
//! - `binary` (collation 63) is not text: such columns are bytes ([`crate::decode`]).

use std::borrow::Cow;

pub mod tables;

/// How a character set decodes.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Utf8,
    Binary,
    /// Bytes 0x00–0x7F are ASCII unless patched; the high half maps through the table.
    Single {
        high: &'static [u16; 128],
        low_patch: &'static [(u8, u16)],
    },
    Multi {
        encoding: &'static encoding_rs::Encoding,
        split: fn(&[u8]) -> usize,
        /// Where MySQL differs from `encoding_rs`: runs (first code, last code, first
        /// character, step), sorted; code `c` of a run is `first character + step × (c − first
        /// code)`. A code is its bytes big-endian (0xA145, 0x8FA2AF, 0x81308130).
        overrides: &'static [(u32, u32, u32, u32)],
    },
    Utf16Be,
    Utf16Le,
    Utf32,
    Ucs2,
}

/// A MySQL character set.
#[derive(Debug, Clone, Copy)]
pub struct Charset {
    /// MySQL's name (`information_schema.CHARACTER_SETS`).
    pub name: &'static str,
    kind: Kind,
}

/// Text that is not text of its character set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

impl Charset {
    /// `binary`: bytes, not characters.
    pub fn is_binary(&self) -> bool {
        matches!(self.kind, Kind::Binary)
    }

    /// Text of this set is UTF-8 as it is (`utf8mb4`, `utf8mb3`; and `binary`, which a JSON
    /// column is announced with).
    pub fn is_utf8(&self) -> bool {
        matches!(self.kind, Kind::Utf8 | Kind::Binary)
    }

    /// `bytes` as UTF-8: borrowed when they already are (UTF-8 sets, ASCII text of an
    /// ASCII-compatible set), else transcoded.
    pub fn decode<'a>(&self, bytes: &'a [u8]) -> Result<Cow<'a, str>, Invalid> {
        match self.kind {
            Kind::Utf8 | Kind::Binary => std::str::from_utf8(bytes)
                .map(Cow::Borrowed)
                .map_err(|e| Invalid(format!("not valid UTF-8 ({e})"))),
            Kind::Single { high, low_patch } => {
                if low_patch.is_empty() && bytes.is_ascii() {
                    return Ok(Cow::Borrowed(ascii(bytes)));
                }
                Ok(Cow::Owned(single(bytes, high, low_patch)))
            }
            Kind::Multi {
                encoding,
                split,
                overrides,
            } => {
                if bytes.is_ascii() {
                    return Ok(Cow::Borrowed(ascii(bytes)));
                }
                Ok(Cow::Owned(multi(bytes, encoding, split, overrides)))
            }
            Kind::Utf16Be => Ok(Cow::Owned(utf16(bytes, u16::from_be_bytes, true))),
            Kind::Utf16Le => Ok(Cow::Owned(utf16(bytes, u16::from_le_bytes, true))),
            Kind::Ucs2 => Ok(Cow::Owned(utf16(bytes, u16::from_be_bytes, false))),
            Kind::Utf32 => Ok(Cow::Owned(utf32(bytes))),
        }
    }
}

fn ascii(bytes: &[u8]) -> &str {
    // ASCII is UTF-8.
    std::str::from_utf8(bytes).unwrap_or_default()
}

fn single(bytes: &[u8], high: &[u16; 128], low_patch: &[(u8, u16)]) -> String {
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 2);
    for &b in bytes {
        let u = if b >= 0x80 {
            high[usize::from(b - 0x80)]
        } else {
            low_patch
                .iter()
                .find(|(from, _)| *from == b)
                .map_or(u16::from(b), |(_, to)| *to)
        };
        out.push(char::from_u32(u32::from(u)).unwrap_or('?'));
    }
    out
}

fn multi(
    bytes: &[u8],
    encoding: &'static encoding_rs::Encoding,
    split: fn(&[u8]) -> usize,
    overrides: &[(u32, u32, u32, u32)],
) -> String {
    let mut out = String::with_capacity(bytes.len() * 3 / 2);
    let mut rest = bytes;
    while let Some(&b) = rest.first() {
        if b < 0x80 {
            out.push(char::from(b));
            rest = &rest[1..];
            continue;
        }
        let len = split(rest);
        if len == 0 {
            out.push('?'); // not a character of the set: MySQL's conversion writes '?'
            rest = &rest[1..];
            continue;
        }
        let (one, tail) = rest.split_at(len);
        rest = tail;
        let code = one.iter().fold(0u32, |c, &b| (c << 8) | u32::from(b));
        if let Some(c) = overridden(overrides, code) {
            out.push(c);
            continue;
        }
        let mut decoder = encoding.new_decoder_without_bom_handling();
        let mut buf = [0u8; 16];
        let (_, _, written, _) = decoder.decode_to_utf8(one, &mut buf, true);
        match std::str::from_utf8(&buf[..written]) {
            Ok(s) if !s.is_empty() && !s.contains('\u{FFFD}') => out.push_str(s),
            _ => out.push('?'), // unmapped in MySQL's table too (the overrides list the others)
        }
    }
    out
}

/// MySQL's character for `code` where it differs from `encoding_rs`.
fn overridden(runs: &[(u32, u32, u32, u32)], code: u32) -> Option<char> {
    let i = runs
        .partition_point(|&(first, ..)| first <= code)
        .checked_sub(1)?;
    let (first, last, c0, step) = runs[i];
    (code <= last).then(|| char::from_u32(c0 + step * (code - first)).unwrap_or('?'))
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16, surrogates: bool) -> String {
    let chunks = bytes.chunks_exact(2);
    let cut = !chunks.remainder().is_empty();
    let units = chunks.map(|c| unit([c[0], c[1]]));
    let mut out: String = if surrogates {
        char::decode_utf16(units)
            .map(|r| r.unwrap_or('?'))
            .collect()
    } else {
        units
            .map(|u| char::from_u32(u32::from(u)).unwrap_or('?'))
            .collect()
    };
    if cut {
        out.push('?');
    }
    out
}

fn utf32(bytes: &[u8]) -> String {
    let chunks = bytes.chunks_exact(4);
    let cut = !chunks.remainder().is_empty();
    let mut out: String = chunks
        .map(|c| char::from_u32(u32::from_be_bytes([c[0], c[1], c[2], c[3]])).unwrap_or('?'))
        .collect();
    if cut {
        out.push('?');
    }
    out
}

fn within(b: u8, ranges: &[(u8, u8)]) -> bool {
    ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&b))
}

/// A double-byte character `lead`×`trail` at the start of `s`: 2, else 0.
fn double(s: &[u8], lead: &[(u8, u8)], trail: &[(u8, u8)]) -> usize {
    match s {
        [l, t, ..] if within(*l, lead) && within(*t, trail) => 2,
        _ => 0,
    }
}

fn split_big5(s: &[u8]) -> usize {
    double(s, &[(0xA1, 0xF9)], &[(0x40, 0x7E), (0xA1, 0xFE)])
}

fn split_sjis(s: &[u8]) -> usize {
    if (0xA1..=0xDF).contains(&s[0]) {
        return 1; // half-width katakana
    }
    double(
        s,
        &[(0x81, 0x9F), (0xE0, 0xFC)],
        &[(0x40, 0x7E), (0x80, 0xFC)],
    )
}

fn split_euckr(s: &[u8]) -> usize {
    double(
        s,
        &[(0x81, 0xFE)],
        &[(0x41, 0x5A), (0x61, 0x7A), (0x81, 0xFE)],
    )
}

fn split_gb2312(s: &[u8]) -> usize {
    double(s, &[(0xA1, 0xF7)], &[(0xA1, 0xFE)])
}

fn split_gbk(s: &[u8]) -> usize {
    double(s, &[(0x81, 0xFE)], &[(0x40, 0x7E), (0x80, 0xFE)])
}

fn split_gb18030(s: &[u8]) -> usize {
    match s {
        [0x81..=0xFE, 0x30..=0x39, 0x81..=0xFE, 0x30..=0x39, ..] => 4,
        _ => split_gbk(s),
    }
}

fn split_ujis(s: &[u8]) -> usize {
    match s {
        [0x8E, 0xA1..=0xDF, ..] => 2,
        [0x8F, 0xA1..=0xFE, 0xA1..=0xFE, ..] => 3,
        [0xA1..=0xFE, 0xA1..=0xFE, ..] => 2,
        _ => 0,
    }
}

const fn single_byte(name: &'static str, high: &'static [u16; 128]) -> Charset {
    Charset {
        name,
        kind: Kind::Single {
            high,
            low_patch: &[],
        },
    }
}

const fn multi_byte(
    name: &'static str,
    encoding: &'static encoding_rs::Encoding,
    split: fn(&[u8]) -> usize,
    overrides: &'static [(u32, u32, u32, u32)],
) -> Charset {
    Charset {
        name,
        kind: Kind::Multi {
            encoding,
            split,
            overrides,
        },
    }
}

pub static UTF8MB4: Charset = Charset {
    name: "utf8mb4",
    kind: Kind::Utf8,
};
pub static UTF8MB3: Charset = Charset {
    name: "utf8mb3",
    kind: Kind::Utf8,
};
pub static BINARY: Charset = Charset {
    name: "binary",
    kind: Kind::Binary,
};
pub static ASCII: Charset = single_byte("ascii", &tables::ASCII);
pub static LATIN1: Charset = single_byte("latin1", &tables::LATIN1);
pub static LATIN2: Charset = single_byte("latin2", &tables::LATIN2);
pub static LATIN5: Charset = single_byte("latin5", &tables::LATIN5);
pub static LATIN7: Charset = single_byte("latin7", &tables::LATIN7);
pub static CP1250: Charset = single_byte("cp1250", &tables::CP1250);
pub static CP1251: Charset = single_byte("cp1251", &tables::CP1251);
pub static CP1256: Charset = single_byte("cp1256", &tables::CP1256);
pub static CP1257: Charset = single_byte("cp1257", &tables::CP1257);
pub static CP850: Charset = single_byte("cp850", &tables::CP850);
pub static CP852: Charset = single_byte("cp852", &tables::CP852);
pub static CP866: Charset = single_byte("cp866", &tables::CP866);
pub static KOI8R: Charset = single_byte("koi8r", &tables::KOI8R);
pub static KOI8U: Charset = single_byte("koi8u", &tables::KOI8U);
pub static GREEK: Charset = single_byte("greek", &tables::GREEK);
pub static HEBREW: Charset = single_byte("hebrew", &tables::HEBREW);
pub static MACROMAN: Charset = single_byte("macroman", &tables::MACROMAN);
pub static MACCE: Charset = single_byte("macce", &tables::MACCE);
pub static TIS620: Charset = single_byte("tis620", &tables::TIS620);
pub static ARMSCII8: Charset = single_byte("armscii8", &tables::ARMSCII8);
pub static GEOSTD8: Charset = single_byte("geostd8", &tables::GEOSTD8);
pub static KEYBCS2: Charset = single_byte("keybcs2", &tables::KEYBCS2);
pub static DEC8: Charset = single_byte("dec8", &tables::DEC8);
pub static HP8: Charset = single_byte("hp8", &tables::HP8);
pub static SWE7: Charset = Charset {
    name: "swe7",
    kind: Kind::Single {
        high: &tables::SWE7,
        low_patch: tables::SWE7_LOW,
    },
};
pub static BIG5: Charset = multi_byte("big5", encoding_rs::BIG5, split_big5, tables::BIG5);
pub static SJIS: Charset = multi_byte("sjis", encoding_rs::SHIFT_JIS, split_sjis, tables::SJIS);
pub static CP932: Charset = multi_byte("cp932", encoding_rs::SHIFT_JIS, split_sjis, tables::CP932);
pub static EUCKR: Charset = multi_byte("euckr", encoding_rs::EUC_KR, split_euckr, tables::EUCKR);
pub static GB2312: Charset = multi_byte("gb2312", encoding_rs::GBK, split_gb2312, tables::GB2312);
pub static GBK: Charset = multi_byte("gbk", encoding_rs::GBK, split_gbk, tables::GBK);
pub static GB18030: Charset = multi_byte(
    "gb18030",
    encoding_rs::GB18030,
    split_gb18030,
    tables::GB18030,
);
pub static UJIS: Charset = multi_byte("ujis", encoding_rs::EUC_JP, split_ujis, tables::UJIS);
pub static EUCJPMS: Charset =
    multi_byte("eucjpms", encoding_rs::EUC_JP, split_ujis, tables::EUCJPMS);
pub static UTF16: Charset = Charset {
    name: "utf16",
    kind: Kind::Utf16Be,
};
pub static UTF16LE: Charset = Charset {
    name: "utf16le",
    kind: Kind::Utf16Le,
};
pub static UTF32: Charset = Charset {
    name: "utf32",
    kind: Kind::Utf32,
};
pub static UCS2: Charset = Charset {
    name: "ucs2",
    kind: Kind::Ucs2,
};

/// Every character set of MySQL 9.7.
pub static CHARSETS: [&Charset; 41] = [
    &UTF8MB4, &UTF8MB3, &BINARY, &ASCII, &LATIN1, &LATIN2, &LATIN5, &LATIN7, &CP1250, &CP1251,
    &CP1256, &CP1257, &CP850, &CP852, &CP866, &KOI8R, &KOI8U, &GREEK, &HEBREW, &MACROMAN, &MACCE,
    &TIS620, &ARMSCII8, &GEOSTD8, &KEYBCS2, &DEC8, &HP8, &SWE7, &BIG5, &SJIS, &CP932, &EUCKR,
    &GB2312, &GBK, &GB18030, &UJIS, &EUCJPMS, &UTF16, &UTF16LE, &UTF32, &UCS2,
];

/// The character set named `name` (MySQL's name).
pub fn by_name(name: &str) -> Option<&'static Charset> {
    CHARSETS.iter().copied().find(|c| c.name == name)
}

/// The character set of MySQL 9.7's collation `id` (`information_schema.COLLATIONS.ID`).
pub fn of_collation(id: u32) -> Option<&'static Charset> {
    tables::collation(id)
}

#[cfg(test)]
mod tests;
