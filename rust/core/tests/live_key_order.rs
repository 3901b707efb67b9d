// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The core's primary-key order ([`vitess_cdc_core::keyorder`]) checked against MySQL itself.
//!
//! The copy filter drops changes of rows beyond the copy position, so its comparison must be
//! MySQL's index order exactly — a key the core misorders loses or duplicates a row. For every
//! key type and collation the core claims to reproduce, this test creates a table in the
//! unsharded `commerce` keyspace, inserts a few hundred seeded-random keys aimed at the hard
//! cases, reads them back through a snapshot-only VStream (the values and FIELD columns the
//! copy filter sees), sorts them with the core's [`KeyOrder`], and requires:
//! - the same order as MySQL's `ORDER BY <primary key>`, element by element;
//! - neighbours in MySQL's order to be strictly ordered by the core too (distinct keys are never
//!   "equal": a shuffled stable sort alone could put such a pair right by chance);
//! - every key that `INSERT IGNORE` dropped as a duplicate to be equal, for the core, to a
//!   stored key (PAD SPACE, BINARY padding, -0 = 0, ENUM case);
//! - every stored key to equal what was written (guards the test's own generators);
//! - `of_declared` (information_schema) to agree with `of_column` (FIELD event);
//! - the orders the core does not reproduce to be reported `Inexact`, naming why.
//!
//! Text in a `_bin` collation reaches the core as VARBINARY / BINARY / BLOB with the text's
//! collation id (MySQL flags such columns BINARY), so its values are bytes: the order must still
//! be the collation's (PAD SPACE, latin1 bytes), not plain byte order.
//!
//! Needs the local Vitess (`bash tests/vitess/up.sh && source tests/vitess/env.sh`); run with
//! `cargo test -p vitess-cdc-core --features integration --test live_key_order`.
#![cfg(feature = "integration")]

mod common;

use common::live::{mysql_opts, vtgate};
use common::timeouts;
use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::keyorder::{ColumnOrder, KeyOrder};
use vitess_cdc_core::{Event, StartMode, StreamOptions, TableSchema, Value};

const KEYSPACE: &str = "commerce";
/// Every table of this test starts with it, then `<unix seconds>_<pid>_`: unique per run, and
/// old enough leftovers (a run killed before its guard ran) are recognisable and dropped.
const PREFIX: &str = "keyorder_";
/// Candidates per single-column table (fewer survive where the type has fewer distinct keys).
const KEYS: usize = 300;
const SEED: u64 = 0x6b65_796f_7264_6572;

/// One session on VTGate's MySQL port, `sql_mode=''` (zero dates, invalid ENUM values become
/// the error value) and UTC (TIMESTAMP literals are the UTC values the core decodes).
struct Sql {
    rt: tokio::runtime::Runtime,
    conn: Option<mysql_async::Conn>,
}

impl Sql {
    fn connect() -> Result<Sql, String> {
        use mysql_async::prelude::Queryable;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        let conn = rt.block_on(async {
            let opts = mysql_opts(KEYSPACE);
            let mut conn = mysql_async::Conn::new(opts)
                .await
                .map_err(|e| format!("connect to VTGate's MySQL port: {e}"))?;
            conn.query_drop("set sql_mode = ''")
                .await
                .map_err(|e| e.to_string())?;
            conn.query_drop("set time_zone = '+00:00'")
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(conn)
        })?;
        Ok(Sql {
            rt,
            conn: Some(conn),
        })
    }

    fn try_run(&mut self, statement: &str) -> Result<(), String> {
        use mysql_async::prelude::Queryable;
        let conn = self.conn.as_mut().expect("open");
        self.rt
            .block_on(conn.query_drop(statement))
            .map_err(|e| format!("{}: {e:.300}", &statement[..statement.len().min(200)]))
    }

    fn run(&mut self, statement: &str) {
        self.try_run(statement).unwrap_or_else(|e| panic!("{e}"))
    }

    fn query<T: mysql_async::prelude::FromRow + Send + 'static>(&mut self, q: &str) -> Vec<T> {
        use mysql_async::prelude::Queryable;
        let conn = self.conn.as_mut().expect("open");
        self.rt
            .block_on(conn.query(q))
            .unwrap_or_else(|e| panic!("{q}: {e:.300}"))
    }
}

impl Drop for Sql {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            self.rt.block_on(conn.disconnect()).ok();
        }
    }
}

/// Drops the run's tables when the test ends, passed or failed. Never panics (it runs while a
/// failed assertion unwinds, where a second panic would abort and hide the first).
struct DropTables(Vec<String>);

impl Drop for DropTables {
    fn drop(&mut self) {
        let Ok(mut sql) = Sql::connect() else {
            eprintln!("could not connect to drop {:?}", self.0);
            return;
        };
        for t in &self.0 {
            if let Err(e) = sql.try_run(&format!("drop table if exists `{t}`")) {
                eprintln!("{e}");
            }
        }
    }
}

/// Drops tables of runs that ended without their guard (killed) more than an hour ago; younger
/// ones may belong to a run in progress.
fn drop_stale_tables(sql: &mut Sql, now_secs: u64) {
    let tables: Vec<String> = sql.query(&format!(
        "select table_name from information_schema.tables where table_schema = '{KEYSPACE}' \
         and table_name like '{}%'",
        PREFIX.replace('_', "\\_")
    ));
    for t in tables {
        let secs = t[PREFIX.len()..]
            .split('_')
            .next()
            .and_then(|s| s.parse::<u64>().ok());
        if secs.is_some_and(|s| s + 3600 < now_secs) {
            sql.run(&format!("drop table if exists `{t}`"));
        }
    }
}

/// A key value as written (SQL literal) and as the core should decode it.
#[derive(Clone, Debug)]
struct Lit {
    sql: String,
    value: Value,
}

fn lit(sql: impl Into<String>, value: Value) -> Lit {
    Lit {
        sql: sql.into(),
        value,
    }
}

/// One table: key columns `k0, k1, …` (+ `seq`, the candidate's number), a primary key over
/// them in `primary_key` order (index parts, e.g. `k1`, `k0(12)`), and candidate keys (one
/// literal per column, in column order).
struct Case {
    name: &'static str,
    columns: Vec<String>,
    primary_key: Vec<(usize, Option<u32>)>,
    keys: Vec<Vec<Lit>>,
}

fn single(name: &'static str, sql_type: &str, keys: Vec<Lit>) -> Case {
    Case {
        name,
        columns: vec![sql_type.to_string()],
        primary_key: vec![(0, None)],
        keys: keys.into_iter().map(|k| vec![k]).collect(),
    }
}

/// Hard cases first, then random values up to `KEYS`.
fn fill(mut hard: Vec<Lit>, mut random: impl FnMut() -> Lit) -> Vec<Lit> {
    while hard.len() < KEYS {
        hard.push(random());
    }
    hard
}

fn ints(rng: &mut StdRng, min: i64, max: i64) -> Vec<Lit> {
    let hard = [min, min + 1, -1, 0, 1, max - 1, max]
        .into_iter()
        .map(|v| lit(v.to_string(), Value::Int(v)))
        .collect();
    fill(hard, || {
        // Half over the whole range, half near zero (duplicates and sign changes).
        let v = if rng.random_bool(0.5) {
            rng.random_range(min..=max)
        } else {
            rng.random_range(-50..=50i64).clamp(min, max)
        };
        lit(v.to_string(), Value::Int(v))
    })
}

fn uints(rng: &mut StdRng, max: u64) -> Vec<Lit> {
    let mut hard = vec![0, 1, max - 1, max];
    if max == u64::MAX {
        // Above 2^63: wrong as soon as anything goes through i64.
        hard.extend([(1 << 63) - 1, 1 << 63, (1 << 63) + 1]);
    }
    let hard = hard
        .into_iter()
        .map(|v| lit(v.to_string(), Value::UInt(v)))
        .collect();
    fill(hard, || {
        let v = if rng.random_bool(0.5) {
            rng.random_range(0..=max)
        } else {
            rng.random_range(0..=100u64)
        };
        lit(v.to_string(), Value::UInt(v))
    })
}

fn years(rng: &mut StdRng) -> Vec<Lit> {
    // Numeric 0 is the zero year 0000 (the string '0' would be 2000).
    let hard = [0i64, 1901, 1969, 1970, 1999, 2000, 2069, 2070, 2155]
        .into_iter()
        .map(|y| lit(y.to_string(), Value::Int(y)))
        .collect();
    fill(hard, || {
        let y = rng.random_range(1901..=2155i64);
        lit(y.to_string(), Value::Int(y))
    })
}

fn doubles(rng: &mut StdRng) -> Vec<Lit> {
    let hard = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.1,
        -0.1,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        1e-300,
        -1e-300,
        9007199254740992.0,
        9007199254740994.0,
        -9007199254740992.0,
    ];
    let d = |v: f64| lit(format!("{v:e}"), Value::Float(v));
    fill(hard.into_iter().map(d).collect(), || {
        if rng.random_bool(0.5) {
            // Any finite bit pattern with a normal exponent (MySQL refuses subnormals in some
            // paths; their order is not what this test is about).
            loop {
                let v = f64::from_bits(rng.random());
                if v.is_normal() {
                    return d(v);
                }
            }
        }
        d(rng.random_range(-40..=40) as f64 / 8.0)
    })
}

fn decimals(rng: &mut StdRng) -> Vec<Lit> {
    // DECIMAL(30,10): 20 integer and 10 fraction digits.
    let hard = [
        "0",
        "-0",
        "0.0000000001",
        "-0.0000000001",
        "1",
        "-1",
        "1.5",
        "1.50",
        "-1.5",
        "007.50",
        "-007.5000",
        ".5",
        "-.5",
        "10",
        "9.9999999999",
        "-10",
        "-9.9999999999",
        "99999999999999999999.9999999999",
        "-99999999999999999999.9999999999",
        "12345678901234567890",
        "-12345678901234567890",
    ]
    .into_iter()
    .map(|v| lit(v, Value::Decimal(v.to_string().into())))
    .collect();
    fill(hard, || {
        let int_digits = rng.random_range(0..=20usize);
        let frac_digits = rng.random_range(0..=10usize);
        // Small digit alphabet: many values share prefixes and differ only in scale.
        let digit = |rng: &mut StdRng| *[b'0', b'1', b'5', b'9'].choose(rng).unwrap() as char;
        let mut v = String::new();
        if rng.random_bool(0.5) {
            v.push('-');
        }
        v.extend((0..int_digits).map(|_| digit(rng)));
        if int_digits == 0 {
            v.push('0');
        }
        if frac_digits > 0 {
            v.push('.');
            v.extend((0..frac_digits).map(|_| digit(rng)));
        }
        lit(v.clone(), Value::Decimal(v.into()))
    })
}

fn hex(v: &[u8]) -> String {
    format!(
        "x'{}'",
        v.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

/// Byte strings up to `max` bytes from bytes around the interesting boundaries, each also with
/// trailing zero bytes added (equal to it in BINARY(n), greater in VARBINARY).
fn byte_strings(rng: &mut StdRng, max: usize) -> Vec<Lit> {
    const BYTES: [u8; 8] = [0x00, 0x01, 0x20, 0x61, 0x7f, 0x80, 0xfe, 0xff];
    let b = |v: Vec<u8>| lit(hex(&v), Value::Bytes(v.into()));
    let mut out = vec![b(vec![]), b(vec![0]), b(vec![0, 0]), b(vec![0xff; max])];
    while out.len() < KEYS {
        let len = rng.random_range(0..=max - 1);
        let v: Vec<u8> = (0..len).map(|_| *BYTES.choose(rng).unwrap()).collect();
        let zeros = rng.random_range(1..=max - len);
        let mut padded = v.clone();
        padded.resize(len + zeros, 0);
        out.push(b(v));
        out.push(b(padded));
    }
    out
}

/// BLOB keys under a 12-byte prefix index: longer values, but no two with the same prefix
/// (MySQL would refuse them as duplicates; the core compares whole values, which orders rows
/// with distinct prefixes the same way).
fn blobs(rng: &mut StdRng) -> Vec<Lit> {
    let mut prefixes = std::collections::BTreeSet::new();
    byte_strings(rng, 20)
        .into_iter()
        .filter(|l| match &l.value {
            Value::Bytes(v) => prefixes.insert(v[..v.len().min(12)].to_vec()),
            _ => false,
        })
        .collect()
}

fn bits(rng: &mut StdRng, width: u32) -> Vec<Lit> {
    let max = if width == 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    let bytes = width.div_ceil(8) as usize;
    let b = |v: u64| {
        lit(
            format!("b'{v:b}'"),
            Value::Bytes(v.to_be_bytes()[8 - bytes..].to_vec().into()),
        )
    };
    let hard = [0, 1, max, max - 1, max >> 1, (max >> 1) + 1]
        .into_iter()
        .map(b)
        .collect();
    fill(hard, || b(rng.random_range(0..=max)))
}

/// Text keys from `alphabet`, up to `max` characters. Besides random strings: trailing-space
/// variants (equal under PAD SPACE), and characters below the space (TAB, NUL, 0x01: they sort
/// below the pad space, so `a\t` < `a` < `a!`).
fn texts(rng: &mut StdRng, alphabet: &[char], max: usize) -> Vec<Lit> {
    let t = |v: String| {
        let sql = if v.is_empty() {
            "''".to_string()
        } else {
            // Hex with an introducer: no escaping, and the server converts to the column's
            // character set (so '€' is byte 0x80 in latin1).
            format!("_utf8mb4 {}", hex(v.as_bytes()))
        };
        lit(sql, Value::String(v.into()))
    };
    let mut out: Vec<Lit> = [
        "", " ", "  ", "a", "a ", "a  ", "a\t", "a\u{0}", "a\u{1}", "a!",
    ]
    .into_iter()
    .map(|s| t(s.to_string()))
    .collect();
    while out.len() < KEYS {
        let len = rng.random_range(0..=max - 2);
        let v: String = (0..len).map(|_| *alphabet.choose(rng).unwrap()).collect();
        out.push(t(v.clone()));
        if rng.random_bool(0.3) {
            let spaces = rng.random_range(1..=2);
            out.push(t(format!("{v}{}", " ".repeat(spaces))));
        }
    }
    out
}

const ASCII: &[char] = &[
    'a', 'b', 'A', 'B', 'z', ' ', '!', '~', '\t', '\n', '\u{0}', '\u{1}', '\u{1f}', '\u{7f}',
];
const UTF8MB3: &[char] = &[
    'a', 'b', 'A', 'Z', ' ', '~', '\t', '\u{0}', '\u{1}', '\u{7f}', '\u{80}', '\u{a0}', 'é', 'ÿ',
    'Ā', '€', '中', '\u{ffff}',
];
const UTF8MB4: &[char] = &[
    'a',
    'b',
    'A',
    'Z',
    ' ',
    '~',
    '\t',
    '\u{0}',
    '\u{1}',
    '\u{7f}',
    '\u{80}',
    '\u{a0}',
    'é',
    'ÿ',
    '€',
    '中',
    '\u{ffff}',
    '😀',
    '𝄞',
    '\u{10ffff}',
];
/// For utf8mb4_0900_ai_ci (UCA 9.0.0 primary weights): letters in both cases and with accents
/// (equal at the primary level), ß (= ss), Cyrillic Й precomposed and as a contraction (И +
/// breve), combining marks and controls (ignorable), Hangul syllables and jamo, core Han and
/// extension A (implicit weights), Tangut, an unassigned code point, emoji, space and punctuation.
const AI_CI: &[char] = &[
    'a',
    'A',
    'á',
    'Ä',
    'b',
    's',
    'S',
    'ß',
    'z',
    'Ž',
    'И',
    'Й',
    '\u{306}',
    '\u{301}',
    '\u{0}',
    '\u{1}',
    ' ',
    '-',
    '_',
    '!',
    '1',
    '9',
    '가',
    '각',
    '\u{1100}',
    '\u{1161}',
    '中',
    '一',
    '\u{3400}',
    '\u{17000}',
    '\u{378}',
    '😀',
    'ж',
    'Ж',
    'ñ',
    'ø',
    'æ',
    'Œ',
    '\u{e0080}',
];
/// latin1 (MySQL's: cp1252 with 0x81, 0x8d, 0x8f, 0x90, 0x9d kept as C1 controls): characters
/// whose byte order differs from their code-point order ('€' = 0x80 < 'é' = 0xe9).
const LATIN1: &[char] = &[
    'a', 'A', 'z', ' ', '~', '\t', '\u{0}', '\u{1}', '\u{7f}', '\u{81}', '\u{8d}', '\u{a0}', 'é',
    'ÿ', '×', '€', 'ƒ', '‰', 'Œ', 'Ÿ', 'ž', '™',
];

/// ENUM members out of alphabetical order, compared by their index; written in other letter
/// cases (they match case-insensitively), and invalid values (stored as the error value '',
/// index 0).
fn enum_case(rng: &mut StdRng) -> Case {
    let mut members: Vec<String> = Vec::new();
    while members.len() < 40 {
        let len = rng.random_range(1..=6);
        let m: String = (0..len)
            .map(|_| rng.random_range(b'a'..=b'z') as char)
            .collect();
        if !members.contains(&m) {
            members.push(m);
        }
    }
    let declared = format!(
        "enum({})",
        members
            .iter()
            .map(|m| format!("'{m}'"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut keys = vec![
        lit("'no such member'", Value::String(String::new().into())),
        lit("''", Value::String(String::new().into())),
    ];
    while keys.len() < KEYS {
        let m = members.choose(rng).unwrap();
        let written = if rng.random_bool(0.3) {
            m.to_uppercase()
        } else {
            m.clone()
        };
        keys.push(lit(format!("'{written}'"), Value::String(written.into())));
    }
    single("enum", &declared, keys)
}

/// SET members out of alphabetical order, compared by their bit value; written in any order.
fn set_case(rng: &mut StdRng) -> Case {
    let members = ["m", "d", "x", "a", "q", "b", "z", "c", "k", "e", "y", "f"];
    let declared = format!(
        "set({})",
        members
            .iter()
            .map(|m| format!("'{m}'"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let keys = fill(vec![lit("''", Value::String(String::new().into()))], || {
        let mut chosen: Vec<&str> = members
            .iter()
            .copied()
            .filter(|_| rng.random_bool(0.25))
            .collect();
        chosen.shuffle(rng);
        let v = chosen.join(",");
        lit(format!("'{v}'"), Value::String(v.into()))
    });
    single("set", &declared, keys)
}

fn date_value(year: u16, month: u8, day: u8) -> Value {
    Value::Date { year, month, day }
}

fn dates(rng: &mut StdRng) -> Vec<Lit> {
    let d =
        |y: u16, m: u8, day: u8| lit(format!("'{y:04}-{m:02}-{day:02}'"), date_value(y, m, day));
    // Zero dates and zero parts (sql_mode '' allows them); they sort first / within their year.
    let hard = vec![
        d(0, 0, 0),
        d(0, 1, 1),
        d(1, 1, 1),
        d(1000, 1, 1),
        d(2024, 0, 0),
        d(2024, 0, 15),
        d(2024, 5, 0),
        d(2024, 2, 29),
        d(9999, 12, 31),
    ];
    fill(hard, || {
        let y = if rng.random_bool(0.5) {
            *[1999u16, 2000, 2024].choose(rng).unwrap()
        } else {
            rng.random_range(0..=9999)
        };
        d(y, rng.random_range(1..=12), rng.random_range(1..=28))
    })
}

#[allow(clippy::too_many_arguments)]
fn datetime_lit(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, micros: u32) -> Lit {
    lit(
        format!("'{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{micros:06}'"),
        Value::DateTime {
            year: y,
            month: mo,
            day: d,
            hour: h,
            minute: mi,
            second: s,
            micros,
        },
    )
}

fn random_datetime(rng: &mut StdRng) -> Lit {
    // Few distinct dates, so the time parts decide often; micros near the second's edges.
    let y = *[0u16, 1000, 2024, 9999].choose(rng).unwrap();
    let micros = *[0, 1, 500_000, 999_999, rng.random_range(0..1_000_000)]
        .choose(rng)
        .unwrap();
    datetime_lit(
        y,
        rng.random_range(1..=12),
        rng.random_range(1..=3),
        rng.random_range(0..=23),
        rng.random_range(0..=59),
        rng.random_range(0..=59),
        micros,
    )
}

fn datetimes(rng: &mut StdRng) -> Vec<Lit> {
    let hard = vec![
        datetime_lit(0, 0, 0, 0, 0, 0, 0),
        datetime_lit(0, 0, 0, 0, 0, 0, 1),
        datetime_lit(1000, 1, 1, 0, 0, 0, 0),
        datetime_lit(2024, 2, 29, 23, 59, 59, 999_999),
        datetime_lit(2024, 3, 1, 0, 0, 0, 0),
        datetime_lit(9999, 12, 31, 23, 59, 59, 999_999),
    ];
    fill(hard, || random_datetime(rng))
}

/// Civil UTC date and time of a Unix timestamp (Howard Hinnant's days-to-civil).
fn utc(secs: i64) -> (u16, u8, u8, u8, u8, u8) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year as u16,
        month as u8,
        day as u8,
        (rem / 3600) as u8,
        (rem / 60 % 60) as u8,
        (rem % 60) as u8,
    )
}

fn timestamps(rng: &mut StdRng) -> Vec<Lit> {
    let ts = |secs: i64, millis: u32| {
        let (y, mo, d, h, mi, s) = utc(secs);
        datetime_lit(y, mo, d, h, mi, s, millis * 1000)
    };
    let hard = vec![
        // The zero TIMESTAMP sorts below every real instant.
        datetime_lit(0, 0, 0, 0, 0, 0, 0),
        ts(1, 0),
        ts(1, 1),
        ts(i32::MAX as i64, 999),
    ];
    fill(hard, || {
        let secs = if rng.random_bool(0.5) {
            rng.random_range(1..=i32::MAX as i64)
        } else {
            1_700_000_000 + rng.random_range(0..=3)
        };
        ts(
            secs,
            *[0, 1, 999, rng.random_range(0..1000)].choose(rng).unwrap(),
        )
    })
}

fn time_lit(negative: bool, hours: u32, minute: u8, second: u8, micros: u32) -> Lit {
    lit(
        format!(
            "'{}{hours:02}:{minute:02}:{second:02}.{micros:06}'",
            if negative { "-" } else { "" }
        ),
        Value::Time {
            negative,
            hours,
            minute,
            second,
            micros,
        },
    )
}

fn times(rng: &mut StdRng) -> Vec<Lit> {
    let hard = vec![
        time_lit(true, 838, 59, 59, 0),
        time_lit(false, 838, 59, 59, 0),
        time_lit(true, 0, 0, 0, 1),
        time_lit(false, 0, 0, 0, 0),
        // -0 is 0.
        time_lit(true, 0, 0, 0, 0),
        time_lit(false, 0, 0, 0, 1),
        time_lit(false, 24, 0, 0, 0),
        time_lit(true, 25, 0, 0, 500_000),
        time_lit(true, 1, 0, 0, 0),
        time_lit(true, 0, 59, 59, 999_999),
    ];
    fill(hard, || {
        let hours = if rng.random_bool(0.5) {
            rng.random_range(0..=837)
        } else {
            rng.random_range(0..=2)
        };
        time_lit(
            rng.random_bool(0.5),
            hours,
            rng.random_range(0..=59),
            rng.random_range(0..=59),
            *[0, 1, 999_999, rng.random_range(0..1_000_000)]
                .choose(rng)
                .unwrap(),
        )
    })
}

/// BIGINT UNSIGNED + VARBINARY: few first values (above 2^63 among them), so the second column
/// decides often.
fn composite_uint_bytes(rng: &mut StdRng) -> Case {
    let firsts: Vec<Lit> = uints(rng, u64::MAX).into_iter().take(10).collect();
    let seconds = byte_strings(rng, 8);
    let keys = (0..KEYS)
        .map(|_| {
            vec![
                firsts.choose(rng).unwrap().clone(),
                seconds.choose(rng).unwrap().clone(),
            ]
        })
        .collect();
    Case {
        name: "u64_varbinary",
        columns: vec!["bigint unsigned".into(), "varbinary(8)".into()],
        primary_key: vec![(0, None), (1, None)],
        keys,
    }
}

/// utf8mb4_bin VARCHAR + DATETIME(6), with the primary key in the other order than the
/// columns: `(k1, k0)` — the core must compare in index order, not column order.
fn composite_text_datetime(rng: &mut StdRng) -> Case {
    let texts = texts(rng, UTF8MB4, 8);
    let datetimes: Vec<Lit> = (0..8).map(|_| random_datetime(rng)).collect();
    let keys = (0..KEYS)
        .map(|_| {
            vec![
                texts.choose(rng).unwrap().clone(),
                datetimes.choose(rng).unwrap().clone(),
            ]
        })
        .collect();
    Case {
        name: "text_datetime",
        columns: vec![
            "varchar(8) character set utf8mb4 collate utf8mb4_bin".into(),
            "datetime(6)".into(),
        ],
        primary_key: vec![(1, None), (0, None)],
        keys,
    }
}

fn cases() -> Vec<Case> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let rng = &mut rng;
    let text = |collation: &str| format!("varchar(8) collate {collation}");
    vec![
        single("tinyint", "tinyint", ints(rng, -128, 127)),
        single("bigint", "bigint", ints(rng, i64::MIN, i64::MAX)),
        single("int_u", "int unsigned", uints(rng, u32::MAX as u64)),
        single("bigint_u", "bigint unsigned", uints(rng, u64::MAX)),
        single("year", "year", years(rng)),
        single("double", "double", doubles(rng)),
        single("decimal", "decimal(30,10)", decimals(rng)),
        single("binary", "binary(8)", byte_strings(rng, 8)),
        single("varbinary", "varbinary(8)", byte_strings(rng, 8)),
        Case {
            primary_key: vec![(0, Some(12))],
            ..single("blob", "blob", blobs(rng))
        },
        single("bit12", "bit(12)", bits(rng, 12)),
        single("bit64", "bit(64)", bits(rng, 64)),
        single("utf8mb4_bin", &text("utf8mb4_bin"), texts(rng, UTF8MB4, 8)),
        single(
            "char_utf8mb4_bin",
            "char(6) collate utf8mb4_bin",
            texts(rng, UTF8MB4, 6),
        ),
        single(
            "utf8mb3_bin",
            "varchar(8) character set utf8mb3 collate utf8mb3_bin",
            texts(rng, UTF8MB3, 8),
        ),
        single(
            "ascii_bin",
            "varchar(8) character set ascii collate ascii_bin",
            texts(rng, ASCII, 8),
        ),
        single(
            "utf8mb4_0900_bin",
            &text("utf8mb4_0900_bin"),
            texts(rng, UTF8MB4, 8),
        ),
        single(
            "latin1_bin",
            "varchar(8) character set latin1 collate latin1_bin",
            texts(rng, LATIN1, 8),
        ),
        single(
            "utf8mb4_0900_ai_ci",
            &text("utf8mb4_0900_ai_ci"),
            texts(rng, AI_CI, 8),
        ),
        enum_case(rng),
        set_case(rng),
        single("date", "date", dates(rng)),
        single("datetime6", "datetime(6)", datetimes(rng)),
        single("timestamp3", "timestamp(3)", timestamps(rng)),
        single("time6", "time(6)", times(rng)),
        composite_uint_bytes(rng),
        composite_text_datetime(rng),
    ]
}

/// Keys whose order the core does not reproduce: `of_column` must say so, naming why.
fn inexact_cases() -> Vec<(Case, &'static str)> {
    let t = |s: &str| lit(format!("'{s}'"), Value::String(s.to_string().into()));
    vec![
        (
            single(
                "general_ci",
                "varchar(8) collate utf8mb4_general_ci",
                vec![t("a"), t("B"), t("é")],
            ),
            "utf8mb4_general_ci",
        ),
        (
            single(
                "float",
                "float",
                vec![lit("0.1", Value::Float(0.1)), lit("2", Value::Float(2.0))],
            ),
            "FLOAT",
        ),
    ]
}

fn create_and_fill(sql: &mut Sql, table: &str, case: &Case) {
    let columns: Vec<String> = case
        .columns
        .iter()
        .enumerate()
        .map(|(i, t)| format!("k{i} {t} not null"))
        .collect();
    let key: Vec<String> = case
        .primary_key
        .iter()
        .map(|(i, prefix)| match prefix {
            Some(n) => format!("k{i}({n})"),
            None => format!("k{i}"),
        })
        .collect();
    sql.run(&format!(
        "create table `{table}` ({}, seq int not null, primary key ({}))",
        columns.join(", "),
        key.join(", ")
    ));
    let rows: Vec<String> = case
        .keys
        .iter()
        .enumerate()
        .map(|(seq, key)| {
            let values: Vec<&str> = key.iter().map(|l| l.sql.as_str()).collect();
            format!("({}, {seq})", values.join(", "))
        })
        .collect();
    let names: Vec<String> = (0..case.columns.len()).map(|i| format!("k{i}")).collect();
    // IGNORE: keys equal to an earlier one in MySQL's collation ('a' and 'a ', -0 and 0) are
    // dropped; the test then requires the core to find them equal to a stored key.
    sql.run(&format!(
        "insert ignore into `{table}` ({}, seq) values {}",
        names.join(", "),
        rows.join(", ")
    ));
}

/// A table's rows and the schema of its FIELD event, as the core decoded them.
type Copied = (Arc<TableSchema>, Vec<Vec<Value>>);

/// Every copied row of every table. One snapshot stream per table, all at once: VStream's copy
/// spends about a second between two tables of one stream (its catch-up), which for this many
/// tables would make the test slow.
fn snapshot(tables: &[String]) -> BTreeMap<String, Copied> {
    std::thread::scope(|scope| {
        let readers: Vec<_> = tables
            .iter()
            .map(|t| scope.spawn(move || (t.clone(), snapshot_of(t))))
            .collect();
        readers
            .into_iter()
            .filter_map(|r| {
                let (t, rows) = r.join().expect("snapshot reader");
                rows.map(|rows| (t, rows))
            })
            .collect()
    })
}

/// The table's copied rows (None: the copy sent none).
fn snapshot_of(table: &str) -> Option<Copied> {
    let mut o = StreamOptions::new(vtgate(), KEYSPACE);
    o.tables = vec![table.to_string()];
    o.start = StartMode::SnapshotOnly;
    o.heartbeat_interval_secs = 1;
    o.idle_timeout = Duration::from_secs(30);
    let stream = BlockingStream::open(o).expect("open the snapshot stream");
    let started = Instant::now();
    let mut copied: Option<Copied> = None;
    'read: loop {
        assert!(
            started.elapsed() < timeouts::progress(),
            "the snapshot of {table} did not end within {:?}",
            timeouts::progress()
        );
        for e in stream.poll(Duration::from_millis(200)).expect("poll") {
            match e {
                Event::Change(c) => {
                    assert!(c.is_snapshot, "a snapshot-only stream sent {c:?}");
                    assert_eq!(c.schema.table, table);
                    copied
                        .get_or_insert_with(|| (c.schema.clone(), Vec::new()))
                        .1
                        .push(c.values);
                }
                Event::End => break 'read,
                _ => {}
            }
        }
    }
    stream.close();
    copied
}

/// The primary-key columns of each table in index order, as information_schema declares them:
/// (column, data_type, column_type, collation).
type Declared = (String, String, String, Option<String>);

fn declared_keys(sql: &mut Sql, run: &str) -> BTreeMap<String, Vec<Declared>> {
    let rows: Vec<(String, String, String, String, Option<String>)> = sql.query(&format!(
        "select table_name, column_name, data_type, column_type, collation_name \
         from information_schema.columns join information_schema.statistics \
         using (table_schema, table_name, column_name) \
         where table_schema = '{KEYSPACE}' and table_name like '{}%' and index_name = 'PRIMARY' \
         order by table_name, seq_in_index",
        run.replace('_', "\\_")
    ));
    let mut out: BTreeMap<String, Vec<Declared>> = BTreeMap::new();
    for (table, column, data_type, column_type, collation) in rows {
        out.entry(table)
            .or_default()
            .push((column, data_type, column_type, collation));
    }
    out
}

fn refs(k: &[Value]) -> Vec<&Value> {
    k.iter().collect()
}

/// Checks one table (adding to `problems`); returns how many keys MySQL stored.
fn check_case(
    sql: &mut Sql,
    table: &str,
    case: &Case,
    copied: Option<&Copied>,
    declared: Option<&Vec<Declared>>,
    problems: &mut Vec<String>,
) -> usize {
    let mut problem = |p: String| problems.push(format!("{}: {p}", case.name));
    let Some((schema, rows)) = copied else {
        problem("the snapshot sent no row of the table".into());
        return 0;
    };
    let Some(declared) = declared else {
        problem("information_schema shows no primary key".into());
        return 0;
    };
    let index_of = |name: &str| {
        schema
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
            .unwrap_or_else(|| panic!("{}: no column {name} in the FIELD event", case.name))
    };
    // The key in index order, each column's order from the FIELD event's Column.
    let key_columns: Vec<usize> = declared.iter().map(|d| index_of(&d.0)).collect();
    let mut columns = Vec::new();
    for ((column, data_type, column_type, collation), &i) in declared.iter().zip(&key_columns) {
        let from_field = match ColumnOrder::of_column(&schema.columns[i]) {
            Ok(o) => o,
            Err(e) => {
                problem(format!("of_column: {e}"));
                return 0;
            }
        };
        let from_declared =
            ColumnOrder::of_declared(column, data_type, column_type, collation.as_deref());
        if from_declared.as_ref() != Ok(&from_field) {
            problem(format!(
                "{column}: of_declared({data_type}, {column_type}, {collation:?}) = \
                 {from_declared:?}, of_column({:?}) = {from_field:?}",
                schema.columns[i]
            ));
        }
        columns.push(from_field);
    }
    let order = KeyOrder { columns };
    let seq_column = index_of("seq");
    let seq_of = |row: &Vec<Value>| match row[seq_column] {
        Value::Int(s) => s as usize,
        ref other => panic!("{}: seq is {other:?}", case.name),
    };
    let key_of =
        |row: &Vec<Value>| -> Vec<Value> { key_columns.iter().map(|&i| row[i].clone()).collect() };
    // The candidate's key in index order, as written.
    let written = |seq: usize| -> Vec<Value> {
        case.primary_key
            .iter()
            .map(|(i, _)| case.keys[seq][*i].value.clone())
            .collect()
    };
    let cmp = |a: &[Value], b: &[Value]| order.compare(&refs(a), &refs(b));

    let stored: BTreeMap<usize, Vec<Value>> = rows.iter().map(|r| (seq_of(r), key_of(r))).collect();
    let shown = |seq: usize| -> String {
        let sql: Vec<&str> = case.keys[seq].iter().map(|l| l.sql.as_str()).collect();
        format!("#{seq} {} = {:?}", sql.join(" , "), stored.get(&seq))
    };

    // A handful of rows would prove little (e.g. an INSERT that silently stored nothing).
    if stored.len() < 20 {
        problem(format!("only {} keys stored", stored.len()));
    }

    // 1. What was stored is what was written (the generators are right about MySQL).
    for (&seq, key) in &stored {
        if cmp(key, &written(seq)) != Some(Ordering::Equal) {
            problem(format!(
                "stored key {} is not the written {:?}",
                shown(seq),
                written(seq)
            ));
        }
    }

    // 2. Sort with the core, from a shuffled start (the stored order is already MySQL's).
    let mut sorted: Vec<(usize, Vec<Value>)> = stored.clone().into_iter().collect();
    sorted.shuffle(&mut StdRng::seed_from_u64(SEED));
    let mut incomparable = None;
    sorted.sort_by(|a, b| {
        cmp(&a.1, &b.1).unwrap_or_else(|| {
            incomparable.get_or_insert((a.0, b.0));
            Ordering::Equal
        })
    });
    if let Some((a, b)) = incomparable {
        problem(format!(
            "the core cannot compare {} with {}",
            shown(a),
            shown(b)
        ));
    }
    let core_order: Vec<usize> = sorted.iter().map(|(s, _)| *s).collect();

    // 3. MySQL's order.
    let by: Vec<String> = declared.iter().map(|d| format!("`{}`", d.0)).collect();
    let mysql_order: Vec<usize> = sql
        .query::<i64>(&format!(
            "select seq from `{table}` order by {}",
            by.join(", ")
        ))
        .into_iter()
        .map(|s| s as usize)
        .collect();
    if mysql_order.len() != core_order.len() {
        problem(format!(
            "MySQL has {} rows, the snapshot {}",
            mysql_order.len(),
            core_order.len()
        ));
    }
    if let Some(i) =
        (0..mysql_order.len().min(core_order.len())).find(|&i| mysql_order[i] != core_order[i])
    {
        let around = |order: &[usize]| -> String {
            (i.saturating_sub(1)..(i + 2).min(order.len()))
                .map(|j| format!("\n    [{j}] {}", shown(order[j])))
                .collect()
        };
        problem(format!(
            "orders differ at position {i} of {}:\n  MySQL:{}\n  core:{}",
            mysql_order.len(),
            around(&mysql_order),
            around(&core_order)
        ));
    }

    // 4. Distinct keys are never equal for the core: MySQL's neighbours are strictly ordered.
    for pair in mysql_order.windows(2) {
        if let (Some(a), Some(b)) = (stored.get(&pair[0]), stored.get(&pair[1])) {
            if cmp(a, b) != Some(Ordering::Less) {
                problem(format!(
                    "MySQL orders {} before {}, the core says {:?}",
                    shown(pair[0]),
                    shown(pair[1]),
                    cmp(a, b)
                ));
            }
        }
    }

    // 5. Keys MySQL refused as duplicates are equal to a stored key for the core too.
    for seq in (0..case.keys.len()).filter(|s| !stored.contains_key(s)) {
        let key = written(seq);
        let found = sorted
            .binary_search_by(|(_, k)| cmp(k, &key).unwrap_or(Ordering::Less))
            .is_ok();
        if !found {
            problem(format!(
                "MySQL refused {} as a duplicate, the core finds no equal stored key",
                case.keys[seq]
                    .iter()
                    .map(|l| format!("{} ({:?})", l.sql, l.value))
                    .collect::<Vec<_>>()
                    .join(" , ")
            ));
        }
    }
    stored.len()
}

#[test]
fn the_core_orders_primary_keys_as_mysql_does() {
    let started = Instant::now();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let run = format!("{PREFIX}{now}_{}_", std::process::id());
    let cases = cases();
    let inexact = inexact_cases();
    let table = |name: &str| format!("{run}{name}");
    let tables: Vec<String> = cases
        .iter()
        .map(|c| table(c.name))
        .chain(inexact.iter().map(|(c, _)| table(c.name)))
        .collect();

    let mut sql = Sql::connect().unwrap_or_else(|e| panic!("{e}"));
    drop_stale_tables(&mut sql, now);
    let _drop = DropTables(tables.clone());
    for case in cases.iter().chain(inexact.iter().map(|(c, _)| c)) {
        create_and_fill(&mut sql, &table(case.name), case);
    }
    let filled = started.elapsed();

    let copied = snapshot(&tables);
    let streamed = started.elapsed() - filled;
    let declared = declared_keys(&mut sql, &run);

    let mut problems = Vec::new();
    let mut summary = Vec::new();
    for case in &cases {
        let t = table(case.name);
        let n = check_case(
            &mut sql,
            &t,
            case,
            copied.get(&t),
            declared.get(&t),
            &mut problems,
        );
        summary.push(format!("{} {n}/{}", case.name, case.keys.len()));
    }

    for (case, why) in &inexact {
        let t = table(case.name);
        let Some((schema, _)) = copied.get(&t) else {
            problems.push(format!("{}: the snapshot sent no row", case.name));
            continue;
        };
        let column = &schema.columns[0];
        match ColumnOrder::of_column(column) {
            Err(e) if e.column == "k0" && e.reason.contains(why) => {}
            other => problems.push(format!(
                "{}: of_column({column:?}) = {other:?}, expected Inexact naming {why}",
                case.name
            )),
        }
        let d = declared.get(&t).and_then(|d| d.first());
        match d.map(|(c, dt, ct, coll)| ColumnOrder::of_declared(c, dt, ct, coll.as_deref())) {
            Some(Err(e)) if e.column == "k0" && e.to_string().contains(why) => {}
            other => problems.push(format!(
                "{}: of_declared({d:?}) = {other:?}, expected Inexact naming {why}",
                case.name
            )),
        }
    }

    println!(
        "stored keys per table (of candidates): {}\nfill {filled:.1?}, snapshot {streamed:.1?}, \
         total {:.1?}",
        summary.join(", "),
        started.elapsed()
    );
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
