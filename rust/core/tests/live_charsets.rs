// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Every character set of MySQL 9.7 decoded exactly as the server converts it.
//!
//! 1. The decoder against the server itself: every byte of every single-byte set, and every
//!    double-byte code of every multi-byte set (every three-byte code of `ujis`/`eucjpms`, the
//!    four-byte BMP codes of `gb18030`), each `CONVERT(x USING utf32)` by the server, must decode
//!    to what the server says.
//! 2. Real columns of each family (CJK multi-byte, single-byte code pages, UTF-16/32 and UCS-2,
//!    binary collations, a `binary` column) in a table this test creates (and drops), read through
//!    a VStream in the copy phase and in the binlog (rows written after the stream started): each
//!    value must equal the server's `CONVERT(column USING utf8mb4)` of the stored value, and the
//!    named texts must read back as written.
//!
//! Needs the local Vitess (`bash tests/vitess/up.sh && source tests/vitess/env.sh`); run with
//! `cargo test -p vitess-cdc-core --features integration --test live_charsets`.
#![cfg(feature = "integration")]

mod common;

use common::live::{mysql_opts, vtgate};
use common::{poll_until, timeouts, Materialized};
use std::collections::BTreeMap;
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::charset;
use vitess_cdc_core::{Event, StartMode, StreamOptions, Value};

const KEYSPACE: &str = "commerce";

struct Sql {
    rt: tokio::runtime::Runtime,
    conn: Option<mysql_async::Conn>,
}

impl Sql {
    fn new() -> Sql {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let conn = rt
            .block_on(mysql_async::Conn::new(mysql_opts(KEYSPACE)))
            .expect("connect to VTGate's MySQL port");
        Sql {
            rt,
            conn: Some(conn),
        }
    }

    fn run(&mut self, statement: &str) {
        use mysql_async::prelude::Queryable;
        let conn = self.conn.as_mut().unwrap();
        self.rt
            .block_on(conn.query_drop(statement))
            .unwrap_or_else(|e| panic!("{}: {e:.300}", &statement[..statement.len().min(300)]));
    }

    fn rows(&mut self, query: &str) -> Vec<Vec<Option<String>>> {
        use mysql_async::prelude::Queryable;
        let conn = self.conn.as_mut().unwrap();
        let rows: Vec<mysql_async::Row> = self
            .rt
            .block_on(conn.query(query))
            .unwrap_or_else(|e| panic!("{}: {e:.300}", &query[..query.len().min(300)]));
        rows.into_iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| r.get::<Option<String>, _>(i).flatten())
                    .collect()
            })
            .collect()
    }
}

impl Drop for Sql {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            self.rt.block_on(conn.disconnect()).ok();
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// `00000041…` (the server's UTF-32 hex) → text.
fn from_utf32_hex(hex: &str) -> String {
    (0..hex.len())
        .step_by(8)
        .map(|i| char::from_u32(u32::from_str_radix(&hex[i..i + 8], 16).unwrap()).unwrap())
        .collect()
}

/// Codes `prefix·b` for `b` in `lo..=hi`, `width` bytes in all: (prefix, lo, hi, width).
type Group = (u32, u32, u32, usize);

/// The server's conversion of each code `prefix·b` for `b` in `lo..=hi` (`width` bytes in all, a
/// code's bytes big-endian): one query per prefix. Codes the server does not accept as a character
/// of `charset` are left out.
fn server_conversions(sql: &mut Sql, charset: &str, groups: &[Group]) -> BTreeMap<u32, String> {
    let mut out = BTreeMap::new();
    for &(prefix, lo, hi, width) in groups {
        let code = format!("{prefix} * 256 + b");
        let bytes = format!("lpad(hex({code}), {}, '0')", width * 2);
        let query = format!(
            "with recursive t(b) as (select {lo} union all select b + 1 from t where b < {hi}) \
             select group_concat(concat({bytes}, ':', \
             hex(convert(convert(unhex({bytes}) using {charset}) using utf32))) separator ' ') from t"
        );
        for row in sql.rows(&query) {
            for pair in row[0]
                .as_deref()
                .unwrap_or("")
                .split(' ')
                .filter(|p| !p.is_empty())
            {
                let (code, utf32) = pair.split_once(':').expect("code:utf32");
                if !utf32.is_empty() {
                    out.insert(
                        u32::from_str_radix(code, 16).unwrap(),
                        from_utf32_hex(utf32),
                    );
                }
            }
        }
    }
    out
}

fn code_bytes(code: u32) -> Vec<u8> {
    let b = code.to_be_bytes();
    let skip = b.iter().take_while(|&&x| x == 0).count().min(3);
    b[skip..].to_vec()
}

#[test]
fn every_code_of_every_charset_decodes_as_the_server_converts_it() {
    let mut sql = Sql::new();
    let mut checked = 0usize;
    let mut wrong = Vec::new();
    let single = [
        "ascii", "latin1", "latin2", "latin5", "latin7", "cp1250", "cp1251", "cp1256", "cp1257",
        "cp850", "cp852", "cp866", "koi8r", "koi8u", "greek", "hebrew", "macroman", "macce",
        "tis620", "swe7", "armscii8", "geostd8", "keybcs2", "dec8", "hp8",
    ];
    sql.run("set session group_concat_max_len = 1000000");
    let mut sets: Vec<(&str, Vec<Group>)> =
        single.iter().map(|c| (*c, vec![(0, 0, 255, 1)])).collect();
    for c in [
        "big5", "sjis", "cp932", "euckr", "gb2312", "gbk", "gb18030", "ujis", "eucjpms",
    ] {
        let mut groups = vec![(0, 0x80, 0xFF, 1)];
        groups.extend((0x81..=0xFE).map(|lead| (lead, 0x40, 0xFE, 2)));
        if c == "ujis" || c == "eucjpms" {
            groups.extend((0xA1..=0xFE).map(|second| (0x8F00 | second, 0xA1, 0xFE, 3)));
        }
        if c == "gb18030" {
            // The four-byte codes of the BMP, and the first and last beyond it.
            for b1 in 0x81..=0x84u32 {
                for b2 in 0x30..=0x39u32 {
                    for b3 in 0x81..=0xFEu32 {
                        groups.push(((b1 << 16) | (b2 << 8) | b3, 0x30, 0x39, 4));
                    }
                }
            }
            groups.push((0x903081, 0x30, 0x39, 4));
            groups.push((0xE3329A, 0x30, 0x35, 4));
        }
        sets.push((c, groups));
    }
    for (name, all) in &sets {
        let cs = charset::by_name(name).expect(name);
        let server = server_conversions(&mut sql, name, all);

        assert!(!server.is_empty(), "{name}: the server converted nothing");
        for (code, want) in &server {
            checked += 1;
            let bytes = code_bytes(*code);
            let got = cs.decode(&bytes).expect("decodes");
            if got != *want {
                wrong.push(format!("{name} {code:X}: server {want:?}, ours {got:?}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} codes differ: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(20)]
    );
    assert!(checked > 200_000, "checked {checked}");
}

/// A column of the test table: its SQL type and texts to write (SQL literals).
struct Probe {
    name: &'static str,
    ddl: &'static str,
    /// (SQL literal, the text it must read back as: None = whatever the server converts it to)
    values: Vec<(String, Option<&'static str>)>,
}

fn probes() -> Vec<Probe> {
    let text = |s: &'static str| (format!("_utf8mb4'{s}'"), Some(s));
    let raw = |bytes: &[u8]| (format!("x'{}'", hex(bytes)), None);
    let high: Vec<u8> = (0x80..=0xFF).collect();
    let mut v = vec![
        Probe {
            name: "c_big5",
            ddl: "varchar(64) character set big5",
            values: vec![text("中文 Big5"), raw(b"\xa1\x45\xa1\xc2\xf9\xd5")],
        },
        Probe {
            name: "c_sjis",
            ddl: "varchar(64) character set sjis",
            values: vec![text("日本語ｱｲ"), raw(b"\x81\x5f\x81\x60\x88\x9f")],
        },
        Probe {
            name: "c_cp932",
            ddl: "varchar(64) character set cp932",
            values: vec![text("①日本＼"), raw(b"\x87\x40\xed\x40\xfa\x40")],
        },
        Probe {
            name: "c_euckr",
            ddl: "varchar(64) character set euckr",
            values: vec![text("한국어"), raw(b"\xb0\xa1\x81\x41")],
        },
        Probe {
            name: "c_gb2312",
            ddl: "varchar(64) character set gb2312",
            values: vec![text("中文简体"), raw(b"\xa1\xa4\xa1\xaa")],
        },
        Probe {
            name: "c_gbk",
            ddl: "text character set gbk",
            values: vec![text("中文丂"), raw(b"\x81\x40\xa1\x40\xfe\x4f")],
        },
        Probe {
            name: "c_gb18030",
            ddl: "varchar(64) character set gb18030",
            values: vec![
                text("中文€😀"),
                raw(b"\xa6\xd9\xfe\x59\x81\x30\x81\x30\x94\x39\xfc\x36"),
            ],
        },
        Probe {
            name: "c_ujis",
            ddl: "varchar(64) character set ujis",
            values: vec![text("日本ｱ丂"), raw(b"\xa1\xc0\x8f\xa2\xaf\xf5\xa1")],
        },
        Probe {
            name: "c_eucjpms",
            ddl: "varchar(64) character set eucjpms",
            values: vec![text("日本①"), raw(b"\xf5\xa1\x8f\xf3\xf3")],
        },
        Probe {
            name: "c_utf16",
            ddl: "varchar(32) character set utf16",
            values: vec![text("aé中𝄞")],
        },
        Probe {
            name: "c_utf16le",
            ddl: "varchar(32) character set utf16le",
            values: vec![text("aé中𝄞")],
        },
        Probe {
            name: "c_utf32",
            ddl: "varchar(32) character set utf32",
            values: vec![text("aé中𝄞")],
        },
        Probe {
            name: "c_ucs2",
            ddl: "varchar(32) character set ucs2",
            values: vec![text("aé中")],
        },
        Probe {
            name: "c_utf8mb3",
            ddl: "varchar(32) character set utf8mb3",
            values: vec![text("café ☕")],
        },
        Probe {
            name: "c_utf8mb4_bin",
            ddl: "varchar(32) character set utf8mb4 collate utf8mb4_bin",
            values: vec![text("café 𝄞")],
        },
        Probe {
            name: "c_latin1_bin",
            ddl: "varchar(300) character set latin1 collate latin1_bin",
            values: vec![text("café €"), raw(&high)],
        },
        Probe {
            name: "c_gbk_bin",
            ddl: "varchar(64) character set gbk collate gbk_bin",
            values: vec![text("中文")],
        },
        Probe {
            name: "c_cp1251_enum",
            ddl: "enum('Да','Нет') character set cp1251",
            values: vec![text("Да")],
        },
        Probe {
            name: "c_sjis_char",
            ddl: "char(8) character set sjis",
            values: vec![text("日本")],
        },
    ];
    let single: [(&str, &str); 25] = [
        ("latin1", "café €"),
        ("latin2", "Łódź"),
        ("latin5", "İş"),
        ("latin7", "Šą"),
        ("cp1250", "Šž"),
        ("cp1251", "Привет"),
        ("cp1256", "مرحبا"),
        ("cp1257", "Šą"),
        ("cp850", "éçß"),
        ("cp852", "Łó"),
        ("cp866", "Привет"),
        ("koi8r", "Привет"),
        ("koi8u", "єЄ"),
        ("greek", "αβγ"),
        ("hebrew", "שלום"),
        ("macroman", "éß"),
        ("macce", "Ąą"),
        ("tis620", "สวัสดี"),
        ("swe7", "ÅÄÖ"),
        ("armscii8", "Աա"),
        ("geostd8", "აბ"),
        ("keybcs2", "Čč"),
        ("dec8", "éß"),
        ("hp8", "éß"),
        ("ascii", "plain"),
    ];
    for (cs, sample) in single {
        let name: &'static str = Box::leak(format!("c_{cs}").into_boxed_str());
        let ddl: &'static str =
            Box::leak(format!("varchar(300) character set {cs}").into_boxed_str());
        let mut values = vec![text(sample)];
        if cs != "ascii" && cs != "swe7" {
            values.push(raw(&high)); // every byte above 0x7F (as stored; the server decides what each is)
        }
        v.push(Probe { name, ddl, values });
    }
    v
}

fn rows_of(probes: &[Probe]) -> usize {
    probes.iter().map(|p| p.values.len()).max().unwrap_or(0)
}

/// Inserts rows `first..` with each probe's i-th value (NULL where a probe has fewer).
fn insert(sql: &mut Sql, table: &str, probes: &[Probe], first: i64) -> Vec<i64> {
    let mut ids = Vec::new();
    for i in 0..rows_of(probes) {
        let id = first + i as i64;
        let names: Vec<&str> = probes.iter().map(|p| p.name).collect();
        let values: Vec<String> = probes
            .iter()
            .map(|p| {
                p.values
                    .get(i)
                    .map_or("NULL".into(), |(lit, _)| lit.clone())
            })
            .collect();
        sql.run(&format!(
            "insert into `{table}` (id, {}, c_binary) values ({id}, {}, x'00ff80')",
            names.join(", "),
            values.join(", ")
        ));
        ids.push(id);
    }
    ids
}

/// The server's reading of each row: `CONVERT(column USING utf8mb4)` by probe name.
fn server_rows(
    sql: &mut Sql,
    table: &str,
    probes: &[Probe],
) -> BTreeMap<i64, BTreeMap<String, Option<String>>> {
    let columns: Vec<String> = probes
        .iter()
        .map(|p| format!("convert(`{}` using utf8mb4)", p.name))
        .collect();
    sql.rows(&format!("select id, {} from `{table}`", columns.join(", ")))
        .into_iter()
        .map(|r| {
            let id: i64 = r[0].as_deref().unwrap().parse().unwrap();
            let values = probes
                .iter()
                .zip(&r[1..])
                .map(|(p, v)| (p.name.to_string(), v.clone()))
                .collect();
            (id, values)
        })
        .collect()
}

fn check(
    phase: &str,
    events: &[Event],
    ids: &[i64],
    probes: &[Probe],
    server: &BTreeMap<i64, BTreeMap<String, Option<String>>>,
    problems: &mut Vec<String>,
) -> usize {
    let mut compared = 0;
    for (row, id) in ids.iter().enumerate() {
        let change = events.iter().rev().find_map(|e| match e {
            Event::Change(c) if c.values.first() == Some(&Value::Int(*id)) => Some(c),
            _ => None,
        });
        let Some(change) = change else {
            problems.push(format!("{phase}: row {id} did not arrive"));
            continue;
        };
        let column = |name: &str| {
            let i = change
                .schema
                .columns
                .iter()
                .position(|c| c.name == name)
                .unwrap_or_else(|| panic!("column {name}"));
            change.values[i].clone()
        };
        for p in probes {
            let want = server[id][p.name].clone();
            let got = match column(p.name) {
                Value::String(s) => Some(s.to_string()),
                Value::Null => None,
                other => {
                    problems.push(format!("{phase} {id} {}: not text: {other:?}", p.name));
                    continue;
                }
            };
            compared += usize::from(want.is_some());
            if got != want {
                problems.push(format!(
                    "{phase} {id} {}: stream {got:?}, server {want:?}",
                    p.name
                ));
            }
            if let Some((_, Some(text))) = p.values.get(row) {
                if got.as_deref() != Some(*text) {
                    problems.push(format!(
                        "{phase} {id} {}: {got:?}, written {text:?}",
                        p.name
                    ));
                }
            }
        }
        if column("c_binary") != Value::Bytes(vec![0x00, 0xFF, 0x80].into()) {
            problems.push(format!("{phase} {id} c_binary: {:?}", column("c_binary")));
        }
    }
    compared
}

#[test]
fn columns_of_every_charset_family_stream_exactly_in_the_copy_and_the_binlog() {
    let mut sql = Sql::new();
    let table = format!("charsets_{}", std::process::id());
    let probes = probes();
    sql.run(&format!("drop table if exists `{table}`"));
    let columns: Vec<String> = probes
        .iter()
        .map(|p| format!("`{}` {}", p.name, p.ddl))
        .collect();
    sql.run(&format!(
        "create table `{table}` (id bigint not null primary key, {}, c_binary varbinary(8)) \
         default character set utf8mb4",
        columns.join(", ")
    ));
    let copy_ids = insert(&mut sql, &table, &probes, 1);

    let mut options = StreamOptions::new(vtgate(), KEYSPACE);
    options.tables = vec![table.clone()];
    options.start = StartMode::Initial;
    let stream = BlockingStream::open(options).expect("open");
    let mut view = Materialized::default();
    let mut events = poll_until(&stream, &mut view, timeouts::copy(), |e, _| {
        matches!(e, Event::CopyCompleted)
    });
    // Rows written after the copy: read from the binlog.
    let binlog_ids = insert(&mut sql, &table, &probes, 100);
    let last = *binlog_ids.last().unwrap();
    events.extend(poll_until(
        &stream,
        &mut view,
        timeouts::events(),
        |e, _| matches!(e, Event::Change(c) if c.values.first() == Some(&Value::Int(last))),
    ));
    stream.close();

    let server = server_rows(&mut sql, &table, &probes);
    let copied: Vec<Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Change(c) if c.is_snapshot))
        .cloned()
        .collect();
    let streamed: Vec<Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Change(c) if !c.is_snapshot))
        .cloned()
        .collect();
    let mut problems = Vec::new();
    let copy = check("copy", &copied, &copy_ids, &probes, &server, &mut problems);
    let binlog = check(
        "binlog",
        &streamed,
        &binlog_ids,
        &probes,
        &server,
        &mut problems,
    );
    sql.run(&format!("drop table `{table}`"));
    // Every probe's values (the second only where a probe has one), in each phase.
    let values: usize = probes.iter().map(|p| p.values.len()).sum();
    assert_eq!((copy, binlog), (values, values), "values compared");
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
