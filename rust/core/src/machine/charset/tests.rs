// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

use super::*;

fn decode(charset: &str, bytes: &[u8]) -> String {
    by_name(charset)
        .unwrap_or_else(|| panic!("charset {charset}"))
        .decode(bytes)
        .unwrap_or_else(|e| panic!("{charset}: {e}"))
        .into_owned()
}

#[test]
fn every_collation_of_mysql_9_7_has_its_charset() {
    // A sample of information_schema.COLLATIONS (the table is generated from all 286).
    for (id, name) in [
        (1, "big5"),
        (2, "latin2"),
        (5, "latin1"),
        (8, "latin1"),
        (10, "swe7"),
        (13, "sjis"),
        (28, "gbk"),
        (33, "utf8mb3"),
        (35, "ucs2"),
        (45, "utf8mb4"),
        (54, "utf16"),
        (56, "utf16le"),
        (60, "utf32"),
        (63, "binary"),
        (95, "cp932"),
        (97, "eucjpms"),
        (159, "ucs2"),
        (183, "utf32"),
        (223, "utf8mb3"),
        (248, "gb18030"),
        (255, "utf8mb4"),
        (323, "utf8mb4"),
    ] {
        assert_eq!(of_collation(id).map(|c| c.name), Some(name), "{id}");
    }
    assert!(of_collation(0).is_none());
    assert!(of_collation(400).is_none());
    let ids = (0..400).filter(|&id| of_collation(id).is_some()).count();
    assert_eq!(ids, 286, "MySQL 9.7 has 286 collations");
    // Every charset is reachable from a collation, and named once.
    for c in CHARSETS {
        assert!((0..400).any(|id| of_collation(id).is_some_and(|o| o.name == c.name)));
        assert_eq!(CHARSETS.iter().filter(|o| o.name == c.name).count(), 1);
    }
    assert_eq!(CHARSETS.len(), 41);
}

#[test]
fn utf8_is_shared_and_checked() {
    let text = "café ☕ 𝄞".as_bytes();
    assert!(matches!(UTF8MB4.decode(text), Ok(Cow::Borrowed(_))));
    assert!(matches!(UTF8MB3.decode(b"abc"), Ok(Cow::Borrowed("abc"))));
    let e = UTF8MB4.decode(b"caf\xe9").unwrap_err();
    assert!(e.0.contains("not valid UTF-8"), "{}", e.0);
}

#[test]
fn latin1_is_windows_1252_with_mysqls_five_c1_controls() {
    assert_eq!(decode("latin1", b"caf\xe9 \x80 \x9f \xff"), "café € Ÿ ÿ");
    // cp1252 leaves 0x81, 0x8D, 0x8F, 0x90, 0x9D undefined; MySQL maps them to C1 controls.
    assert_eq!(
        decode("latin1", b"\x81\x8d\x8f\x90\x9d"),
        "\u{81}\u{8d}\u{8f}\u{90}\u{9d}"
    );
    assert!(matches!(
        LATIN1.decode(b"plain"),
        Ok(Cow::Borrowed("plain"))
    ));
}

#[test]
fn single_byte_code_pages() {
    for (charset, bytes, text) in [
        ("latin2", &b"\xa3\xf3d\xbc"[..], "Łódź"),
        ("latin5", b"\xdd\xfe", "İş"),
        ("latin7", b"\xd0\xe0", "Šą"),
        ("cp1250", b"\x8a\x9e", "Šž"),
        ("cp1251", b"\xcf\xf0\xe8\xe2\xe5\xf2", "Привет"),
        ("cp1256", b"\xe3\xd1\xcd\xc8\xc7", "مرحبا"),
        ("cp1257", b"\xd0\xe0", "Šą"),
        ("cp850", b"\x82\x87\xe1", "éçß"),
        ("cp852", b"\x9d\xa2", "Łó"),
        ("cp866", b"\x8f\xe0\xa8\xa2\xa5\xe2", "Привет"),
        ("koi8r", b"\xf0\xd2\xc9\xd7\xc5\xd4", "Привет"),
        ("koi8u", b"\xa4\xb4", "єЄ"),
        ("greek", b"\xe1\xe2\xe3", "αβγ"),
        ("hebrew", b"\xf9\xec\xe5\xed", "שלום"),
        ("macroman", b"\x8e\xa7", "éß"),
        ("macce", b"\x84\x88", "Ąą"),
        ("tis620", b"\xca\xc7\xd1\xca\xb4\xd5", "สวัสดี"),
        ("armscii8", b"\xb2\xb3", "Աա"),
        ("geostd8", b"\xc0\xc1", "აბ"),
        ("keybcs2", b"\x80\x87", "Čč"),
        ("dec8", b"\xe9\xdf", "éß"),
        ("hp8", b"\xc5\xde", "éß"),
    ] {
        assert_eq!(decode(charset, bytes), text, "{charset}");
    }
}

#[test]
fn swe7_has_swedish_letters_in_seven_bits() {
    assert_eq!(decode("swe7", b"@[\\]^`{|}~"), "ÉÄÖÅÜéäöåü");
    assert_eq!(decode("swe7", b"abc"), "abc");
}

#[test]
fn undefined_bytes_read_as_mysql_shows_them() {
    // cp1250 leaves 0x81 undefined, ascii everything above 0x7F: MySQL converts them to '?'.
    assert_eq!(decode("cp1250", b"a\x81b"), "a?b");
    assert_eq!(decode("ascii", b"a\xe9"), "a?");
}

#[test]
fn our_single_byte_tables_agree_with_encoding_rs_where_both_define_a_byte() {
    // MySQL's tables (ours) and WHATWG's (encoding_rs) are independent sources: where both map
    // a byte to a character, it is the same one, except where MySQL is known to differ.
    let mut all = Vec::new();
    for (charset, encoding) in [
        ("latin1", encoding_rs::WINDOWS_1252),
        ("latin2", encoding_rs::ISO_8859_2),
        ("latin7", encoding_rs::ISO_8859_13),
        ("cp1250", encoding_rs::WINDOWS_1250),
        ("cp1251", encoding_rs::WINDOWS_1251),
        ("cp1256", encoding_rs::WINDOWS_1256),
        ("cp1257", encoding_rs::WINDOWS_1257),
        ("cp866", encoding_rs::IBM866),
        ("koi8r", encoding_rs::KOI8_R),
        ("koi8u", encoding_rs::KOI8_U),
        ("greek", encoding_rs::ISO_8859_7),
        ("hebrew", encoding_rs::ISO_8859_8),
        ("macroman", encoding_rs::MACINTOSH),
    ] {
        let mut differ = Vec::new();
        for b in 0xA0..=0xFFu8 {
            let ours = decode(charset, &[b]);
            let byte = [b];
            let (theirs, _) = encoding.decode_without_bom_handling(&byte);
            if ours != "?" && theirs != "\u{FFFD}" && ours != theirs {
                differ.push(format!("{b:02X}: {ours} / {theirs}"));
            }
        }
        all.push((charset, differ));
    }
    // Known: some of MySQL's tables are other editions of their code pages, a few symbols apart
    // (e.g. cp866's 0xFC/0xFD are ⁿ/² in MySQL, №/¤ in WHATWG's IBM866; koi8u's 0xAE/0xBE are box
    // drawings in MySQL, ў/Ў in WHATWG's KOI8-U; greek's 0xA1/0xA2 are ʽ/ʼ, hebrew's 0xAF is ‾).
    // MySQL's are the ones decoded (the live test checks every byte against the server).
    let differing: Vec<String> = all
        .iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|(c, d)| format!("{c}: {}", d.join(", ")))
        .collect();
    assert_eq!(differing, KNOWN_DIFFERENCES, "{differing:#?}");
}

const KNOWN_DIFFERENCES: [&str; 4] = [
    "cp866: FC: ⁿ / №, FD: ² / ¤",
    "koi8u: AE: ╝ / ў, BE: ╬ / Ў",
    "greek: A1: ʽ / ‘, A2: ʼ / ’",
    "hebrew: AF: ‾ / ¯",
];

#[test]
fn cjk_multi_byte_sets() {
    for (charset, bytes, text) in [
        ("big5", &b"\xa4\xa4\xa4\xe5 abc"[..], "中文 abc"),
        ("sjis", b"\x93\xfa\x96\x7b\x8c\xea", "日本語"),
        ("sjis", b"\xb1\xb2", "ｱｲ"), // half-width katakana, one byte each
        ("cp932", b"\x87\x40", "①"), // NEC's extension: cp932 only
        ("euckr", b"\xc7\xd1\xb1\xb9\xbe\xee", "한국어"),
        ("gb2312", b"\xd6\xd0\xce\xc4", "中文"),
        ("gbk", b"\xd6\xd0\xce\xc4\x81\x40", "中文丂"),
        ("gb18030", b"\xd6\xd0\x81\x30\x81\x30", "中\u{80}"),
        ("gb18030", b"\x94\x39\xfc\x36", "\u{1F600}"), // 4 bytes, beyond the BMP
        ("ujis", b"\xc6\xfc\xcb\xdc", "日本"),
        ("ujis", b"\x8e\xb1", "ｱ"),
        ("ujis", b"\x8f\xb0\xa1", "丂"), // JIS X 0212, three bytes
        ("eucjpms", b"\xc6\xfc\xcb\xdc", "日本"),
    ] {
        assert_eq!(decode(charset, bytes), text, "{charset} {bytes:02X?}");
    }
}

#[test]
fn cjk_sets_follow_mysqls_table_where_it_differs_from_encoding_rs() {
    // sjis is JIS X 0208: NEC's ① (0x8740) is cp932's only; 0x815F is '\' in MySQL's sjis.
    assert_eq!(decode("sjis", b"\x87\x40"), "?");
    assert_eq!(decode("sjis", b"\x81\x5f"), "\\");
    assert_eq!(decode("cp932", b"\x81\x5f"), "＼");
    // big5 is plain Big5, not HKSCS: 0xA145 is U+2022 (encoding_rs: U+2027).
    assert_eq!(decode("big5", b"\xa1\x45"), "\u{2022}");
    // gb18030 is the 2005 edition: 0xA6D9 is in the private use area (2022: U+FE10).
    assert_eq!(decode("gb18030", b"\xa6\xd9"), "\u{E78D}");
    // eucjpms' user-defined area is the private use area.
    assert_eq!(decode("eucjpms", b"\xf5\xa1"), "\u{E000}");
    // A byte that starts no character of the set reads as MySQL's conversion shows it.
    assert_eq!(decode("big5", b"a\x80b"), "a?b");
    assert_eq!(decode("gbk", b"\xd6"), "?");
}

#[test]
fn utf16_utf32_and_ucs2_by_hand() {
    let text = "aé中𝄞";
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let utf32: Vec<u8> = text
        .chars()
        .flat_map(|c| (c as u32).to_be_bytes())
        .collect();
    assert_eq!(decode("utf16", &be), text);
    assert_eq!(decode("utf16le", &le), text);
    assert_eq!(decode("utf32", &utf32), text);
    assert_eq!(decode("ucs2", &be[..6]), "aé中");
    // Not characters: a lone surrogate, a code point beyond U+10FFFF, a cut unit.
    assert_eq!(decode("utf16", &[0xD8, 0x34, 0x00, 0x61]), "?a");
    assert_eq!(decode("utf32", &[0x00, 0x11, 0x00, 0x00]), "?");
    assert_eq!(decode("utf16le", &[0x61, 0x00, 0x62]), "a?");
}
