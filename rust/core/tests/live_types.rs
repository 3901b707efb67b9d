// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Every MySQL type family, with edge values, written through VTGate's MySQL port into
//! `customer.all_types` and read back through both phases of a VStream: the copy phase (MySQL
//! `SELECT` text) and the streaming phase (binlog, inserts and updates after starting from
//! `latest`). The decoded [`Value`]s must equal what was written, in both phases.
//!
//! Needs the local Vitess (`bash tests/vitess/up.sh && source tests/vitess/env.sh`); run with
//! `cargo test -p vitess-cdc-core --features integration --test live_types`.
#![cfg(feature = "integration")]

mod common;

use common::live::{mysql_opts, vtgate};
use common::timeouts;

use common::{poll_until, Materialized};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::{ChangeEvent, Event, RowKind, StartMode, StreamOptions, Value};

/// Runs statements in one session with `sql_mode=''` (zero dates, clipping) and UTC.
fn sql(statements: &[String]) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        use mysql_async::prelude::Queryable;
        let opts = mysql_opts("customer");
        let mut conn = mysql_async::Conn::new(opts)
            .await
            .expect("connect to VTGate's MySQL port");
        conn.query_drop("set sql_mode = ''").await.unwrap();
        conn.query_drop("set time_zone = '+00:00'").await.unwrap();
        for s in statements {
            conn.query_drop(s)
                .await
                .unwrap_or_else(|e| panic!("{}: {e:.300}", &s[..s.len().min(300)]));
        }
        conn.disconnect().await.ok();
    });
}

fn id_base() -> i64 {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    // 2e15 + …: far from the ids other tests and the load generator use
    2_000_000_000_000_000 + (millis % 1_000_000_000) * 1000 + (std::process::id() as i64 % 10) * 100
}

fn date(year: u16, month: u8, day: u8) -> Value {
    Value::Date { year, month, day }
}

#[allow(clippy::too_many_arguments)]
fn dt(year: u16, month: u8, day: u8, hour: u8, minute: u8, second: u8, micros: u32) -> Value {
    Value::DateTime {
        year,
        month,
        day,
        hour,
        minute,
        second,
        micros,
    }
}

fn time(negative: bool, hours: u32, minute: u8, second: u8, micros: u32) -> Value {
    Value::Time {
        negative,
        hours,
        minute,
        second,
        micros,
    }
}

fn s(v: &str) -> Value {
    Value::String(v.to_string().into())
}

fn b(v: &[u8]) -> Value {
    Value::Bytes(v.to_vec().into())
}

fn hex(v: &[u8]) -> String {
    if v.is_empty() {
        return "x''".into();
    }
    format!(
        "x'{}'",
        v.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

/// Little-endian WKB, as the stream delivers GEOMETRY (MySQL's 4-byte SRID prefix removed).
fn wkb_point(x: f64, y: f64) -> Vec<u8> {
    let mut v = vec![1, 1, 0, 0, 0];
    v.extend_from_slice(&x.to_le_bytes());
    v.extend_from_slice(&y.to_le_bytes());
    v
}

fn wkb_linestring(points: &[(f64, f64)]) -> Vec<u8> {
    let mut v = vec![1, 2, 0, 0, 0];
    v.extend_from_slice(&(points.len() as u32).to_le_bytes());
    for (x, y) in points {
        v.extend_from_slice(&x.to_le_bytes());
        v.extend_from_slice(&y.to_le_bytes());
    }
    v
}

fn padded16(v: &[u8]) -> Vec<u8> {
    let mut out = v.to_vec();
    out.resize(16, 0);
    out
}

/// One row: (column, SQL literal, expected decoded value), every column but `id`.
type Row = Vec<(&'static str, String, Value)>;

fn c(name: &'static str, sql: impl Into<String>, v: Value) -> (&'static str, String, Value) {
    (name, sql.into(), v)
}

const COLUMNS: [&str; 43] = [
    "c_tinyint",
    "c_tinyint_u",
    "c_smallint",
    "c_smallint_u",
    "c_mediumint",
    "c_mediumint_u",
    "c_int",
    "c_int_u",
    "c_bigint",
    "c_bigint_u",
    "c_bool",
    "c_decimal",
    "c_decimal0",
    "c_float",
    "c_double",
    "c_bit1",
    "c_bit64",
    "c_date",
    "c_datetime",
    "c_datetime6",
    "c_timestamp",
    "c_time",
    "c_time6",
    "c_year",
    "c_char",
    "c_varchar",
    "c_varchar_bin",
    "c_tinytext",
    "c_text",
    "c_mediumtext",
    "c_longtext",
    "c_latin1",
    "c_binary",
    "c_varbinary",
    "c_tinyblob",
    "c_blob",
    "c_mediumblob",
    "c_longblob",
    "c_enum",
    "c_set",
    "c_json",
    "c_geometry",
    "c_point",
];

/// Largest values of every column (and text/binary content that stresses encodings).
fn row_max() -> Row {
    let all_bytes: Vec<u8> = (0..=255u8).collect();
    let long_text = format!("{}𝄞", "a".repeat(1000));
    vec![
        c("c_tinyint", "127", Value::Int(127)),
        c("c_tinyint_u", "255", Value::UInt(255)),
        c("c_smallint", "32767", Value::Int(32767)),
        c("c_smallint_u", "65535", Value::UInt(65535)),
        c("c_mediumint", "8388607", Value::Int(8388607)),
        c("c_mediumint_u", "16777215", Value::UInt(16777215)),
        c("c_int", "2147483647", Value::Int(i32::MAX as i64)),
        c("c_int_u", "4294967295", Value::UInt(u32::MAX as u64)),
        c("c_bigint", "9223372036854775807", Value::Int(i64::MAX)),
        c("c_bigint_u", "18446744073709551615", Value::UInt(u64::MAX)),
        c("c_bool", "1", Value::Int(1)),
        c(
            "c_decimal",
            "99999999999999999999.9999999999",
            Value::Decimal("99999999999999999999.9999999999".into()),
        ),
        c(
            "c_decimal0",
            "99999999999999999999",
            Value::Decimal("99999999999999999999".into()),
        ),
        // FLT_MAX: MySQL shows (and the copy phase carries) 6 significant digits
        c(
            "c_float",
            "3.4028234663852886e38",
            Value::Float(3.40282e38f32 as f64),
        ),
        c("c_double", "1.7976931348623157e308", Value::Float(f64::MAX)),
        c("c_bit1", "b'1'", b(&[1])),
        c("c_bit64", format!("b'{}'", "1".repeat(64)), b(&[0xff; 8])),
        c("c_date", "'9999-12-31'", date(9999, 12, 31)),
        c(
            "c_datetime",
            "'9999-12-31 23:59:59'",
            dt(9999, 12, 31, 23, 59, 59, 0),
        ),
        c(
            "c_datetime6",
            "'9999-12-31 23:59:59.999999'",
            dt(9999, 12, 31, 23, 59, 59, 999_999),
        ),
        c(
            "c_timestamp",
            "'2038-01-19 03:14:07.999'",
            dt(2038, 1, 19, 3, 14, 7, 999_000),
        ),
        c("c_time", "'838:59:59'", time(false, 838, 59, 59, 0)),
        c("c_time6", "'123:45:06.5'", time(false, 123, 45, 6, 500_000)),
        c("c_year", "2155", Value::Int(2155)),
        c("c_char", "'abc'", s("abc")),
        c("c_varchar", "'😀 ünïcödé 𝄞 中文'", s("😀 ünïcödé 𝄞 中文")),
        c("c_varchar_bin", "x'00ff00'", b(&[0, 0xff, 0])),
        c("c_tinytext", "'😀'", s("😀")),
        c("c_text", format!("'{long_text}'"), s(&long_text)),
        c(
            "c_mediumtext",
            r#"'line1\nline2\ttab "quote" \\ backslash'"#,
            s("line1\nline2\ttab \"quote\" \\ backslash"),
        ),
        c("c_longtext", "''", s("")),
        c("c_latin1", "'café € ÿ Œ'", s("café € ÿ Œ")),
        c("c_binary", "x'0001'", b(&padded16(&[0, 1]))),
        c("c_varbinary", "x'00000000'", b(&[0, 0, 0, 0])),
        c("c_tinyblob", "x''", b(&[])),
        c("c_blob", "x'00ff'", b(&[0, 0xff])),
        c("c_mediumblob", hex(&all_bytes), b(&all_bytes)),
        c("c_longblob", "x'00'", b(&[0])),
        c("c_enum", "'large'", s("large")),
        c("c_set", "'a,b,c,d'", s("a,b,c,d")),
        c(
            "c_json",
            r#"'{"a":[1,2.5,null,true,false,1e300,0.1,-7],"b":{"c":"😀","d":[[],{}]},"long_key":12345678901234567890}'"#,
            s(
                r#"{"a": [1, 2.5, null, true, false, 1e300, 0.1, -7], "b": {"c": "😀", "d": [[], {}]}, "long_key": 12345678901234567890}"#,
            ),
        ),
        c(
            "c_geometry",
            "ST_GeomFromText('LINESTRING(0 0, 1 1.5, -2 1e10)')",
            b(&wkb_linestring(&[(0.0, 0.0), (1.0, 1.5), (-2.0, 1e10)])),
        ),
        c(
            "c_point",
            "ST_GeomFromText('POINT(1 2)')",
            b(&wkb_point(1.0, 2.0)),
        ),
    ]
}

/// Smallest values, zero dates, empty strings and binaries.
fn row_min() -> Row {
    vec![
        c("c_tinyint", "-128", Value::Int(-128)),
        c("c_tinyint_u", "0", Value::UInt(0)),
        c("c_smallint", "-32768", Value::Int(-32768)),
        c("c_smallint_u", "0", Value::UInt(0)),
        c("c_mediumint", "-8388608", Value::Int(-8388608)),
        c("c_mediumint_u", "0", Value::UInt(0)),
        c("c_int", "-2147483648", Value::Int(i32::MIN as i64)),
        c("c_int_u", "0", Value::UInt(0)),
        c("c_bigint", "-9223372036854775808", Value::Int(i64::MIN)),
        c("c_bigint_u", "0", Value::UInt(0)),
        c("c_bool", "0", Value::Int(0)),
        c(
            "c_decimal",
            "-99999999999999999999.9999999999",
            Value::Decimal("-99999999999999999999.9999999999".into()),
        ),
        c(
            "c_decimal0",
            "-99999999999999999999",
            Value::Decimal("-99999999999999999999".into()),
        ),
        c(
            "c_float",
            "-1.17549e-38",
            Value::Float(-1.17549e-38f32 as f64),
        ),
        c(
            "c_double",
            "-2.2250738585072014e-308",
            Value::Float(-2.2250738585072014e-308),
        ),
        c("c_bit1", "b'0'", b(&[0])),
        c("c_bit64", "b'0'", b(&[0; 8])),
        c("c_date", "'0000-00-00'", date(0, 0, 0)),
        c(
            "c_datetime",
            "'0000-00-00 00:00:00'",
            dt(0, 0, 0, 0, 0, 0, 0),
        ),
        c(
            "c_datetime6",
            "'1000-01-01 00:00:00.000001'",
            dt(1000, 1, 1, 0, 0, 0, 1),
        ),
        c(
            "c_timestamp",
            "'1970-01-01 00:00:01.001'",
            dt(1970, 1, 1, 0, 0, 1, 1000),
        ),
        c("c_time", "'-838:59:59'", time(true, 838, 59, 59, 0)),
        c("c_time6", "'-25:00:00.000001'", time(true, 25, 0, 0, 1)),
        c("c_year", "1901", Value::Int(1901)),
        c("c_char", "''", s("")),
        c("c_varchar", "''", s("")),
        c("c_varchar_bin", "x''", b(&[])),
        c("c_tinytext", "''", s("")),
        c("c_text", "''", s("")),
        c("c_mediumtext", "''", s("")),
        c("c_longtext", "'x'", s("x")),
        c("c_latin1", "''", s("")),
        c("c_binary", "x''", b(&[0; 16])),
        c("c_varbinary", "x''", b(&[])),
        c("c_tinyblob", "x'00'", b(&[0])),
        c("c_blob", "x''", b(&[])),
        c("c_mediumblob", "x''", b(&[])),
        c("c_longblob", "x''", b(&[])),
        c("c_enum", "'small'", s("small")),
        c("c_set", "''", s("")),
        c("c_json", "'{}'", s("{}")),
        c(
            "c_geometry",
            "ST_GeomFromText('POINT(0 0)')",
            b(&wkb_point(0.0, 0.0)),
        ),
        c(
            "c_point",
            "ST_GeomFromText('POINT(-1.5 1e10)')",
            b(&wkb_point(-1.5, 1e10)),
        ),
    ]
}

/// In-between values: zero TIMESTAMP and YEAR, fractions, JSON scalars.
fn row_misc() -> Row {
    vec![
        c("c_tinyint", "0", Value::Int(0)),
        c("c_tinyint_u", "1", Value::UInt(1)),
        c("c_smallint", "-1", Value::Int(-1)),
        c("c_smallint_u", "1", Value::UInt(1)),
        c("c_mediumint", "-1", Value::Int(-1)),
        c("c_mediumint_u", "1", Value::UInt(1)),
        c("c_int", "-1", Value::Int(-1)),
        c("c_int_u", "1", Value::UInt(1)),
        c("c_bigint", "-1", Value::Int(-1)),
        c("c_bigint_u", "9223372036854775808", Value::UInt(1 << 63)),
        c("c_bool", "127", Value::Int(127)),
        c(
            "c_decimal",
            "0.0000000001",
            Value::Decimal("0.0000000001".into()),
        ),
        c("c_decimal0", "0", Value::Decimal("0".into())),
        c("c_float", "0.1", Value::Float(0.1f32 as f64)),
        c("c_double", "0.1", Value::Float(0.1)),
        c("c_bit1", "1", b(&[1])),
        c("c_bit64", "b'101'", b(&[0, 0, 0, 0, 0, 0, 0, 5])),
        c("c_date", "'2024-02-29'", date(2024, 2, 29)),
        c(
            "c_datetime",
            "'2024-02-29 12:00:00'",
            dt(2024, 2, 29, 12, 0, 0, 0),
        ),
        c(
            "c_datetime6",
            "'0000-00-00 00:00:00.000000'",
            dt(0, 0, 0, 0, 0, 0, 0),
        ),
        c(
            "c_timestamp",
            "'0000-00-00 00:00:00'",
            dt(0, 0, 0, 0, 0, 0, 0),
        ),
        c("c_time", "'00:00:00'", time(false, 0, 0, 0, 0)),
        c("c_time6", "'-00:00:00.5'", time(true, 0, 0, 0, 500_000)),
        c("c_year", "0", Value::Int(0)),
        c("c_char", "'ü'", s("ü")),
        c(
            "c_varchar",
            "'\\'single\\' and \"double\"'",
            s("'single' and \"double\""),
        ),
        c("c_varchar_bin", "'text as bytes'", b(b"text as bytes")),
        c("c_tinytext", "'tiny'", s("tiny")),
        c("c_text", "'𝄞😀'", s("𝄞😀")),
        c("c_mediumtext", "'medium'", s("medium")),
        c("c_longtext", "'long'", s("long")),
        c("c_latin1", "'plain ascii'", s("plain ascii")),
        c(
            "c_binary",
            "x'ffffffffffffffffffffffffffffffff'",
            b(&[0xff; 16]),
        ),
        c("c_varbinary", "x'ff'", b(&[0xff])),
        c("c_tinyblob", "x'01'", b(&[1])),
        c("c_blob", "x'00'", b(&[0])),
        c("c_mediumblob", "x'0000'", b(&[0, 0])),
        c("c_longblob", "x'000000'", b(&[0, 0, 0])),
        c("c_enum", "'medium'", s("medium")),
        c("c_set", "'d,a'", s("a,d")),
        c("c_json", "'null'", s("null")),
        // A non-zero SRID (Web Mercator, x-y axis order): the WKB alone arrives, SRID removed.
        c(
            "c_geometry",
            "ST_GeomFromText('POINT(3 4)', 3857)",
            b(&wkb_point(3.0, 4.0)),
        ),
        c(
            "c_point",
            "ST_GeomFromText('POINT(0 0)')",
            b(&wkb_point(0.0, 0.0)),
        ),
    ]
}

/// JSON edge cases and a string scalar; every other column NULL.
fn row_json() -> Row {
    row_null()
        .into_iter()
        .map(|col| match col.0 {
            "c_json" => c(
                "c_json",
                r#"'[[], {}, "", "a \\"quoted\\" ,: text", {"k": {"k": {"k": [1.5, -0.0, 1e-7]}}}]'"#,
                s(r#"[[], {}, "", "a \"quoted\" ,: text", {"k": {"k": {"k": [1.5, -0.0, 0.0000001]}}}]"#),
            ),
            _ => col,
        })
        .collect()
}

fn row_null() -> Row {
    COLUMNS
        .iter()
        .map(|name| c(name, "NULL", Value::Null))
        .collect()
}

fn insert(id: i64, row: &Row) -> String {
    let cols: Vec<&str> = row.iter().map(|c| c.0).collect();
    let vals: Vec<&str> = row.iter().map(|c| c.1.as_str()).collect();
    format!(
        "insert into all_types (id, {}) values ({id}, {})",
        cols.join(", "),
        vals.join(", ")
    )
}

fn update(id: i64, row: &Row) -> String {
    let set: Vec<String> = row.iter().map(|c| format!("{} = {}", c.0, c.1)).collect();
    format!("update all_types set {} where id = {id}", set.join(", "))
}

/// Compares a decoded row with the expected one column by column; returns every mismatch.
fn mismatches(phase: &str, change: &ChangeEvent, id: i64, row: &Row) -> Vec<String> {
    let by_name: BTreeMap<&str, &Value> = change
        .schema
        .columns
        .iter()
        .zip(&change.values)
        .map(|(c, v)| (c.name.as_str(), v))
        .collect();
    let mut out = Vec::new();
    if by_name.get("id") != Some(&&Value::Int(id)) {
        out.push(format!("{phase} id {id}: id is {:?}", by_name.get("id")));
    }
    for (name, sql, expected) in row {
        match by_name.get(name) {
            Some(got) if *got == expected => {}
            got => out.push(format!(
                "{phase} id {id} {name} (written as {sql:.80}): expected {expected:?}, got {got:?}"
            )),
        }
    }
    assert_eq!(
        by_name.len(),
        row.len() + 1,
        "all_types has columns this test does not know"
    );
    out
}

fn id_of(c: &ChangeEvent) -> Option<i64> {
    match c.values.first() {
        Some(Value::Int(i)) => Some(*i),
        _ => None,
    }
}

struct Cleanup(i64);
impl Drop for Cleanup {
    fn drop(&mut self) {
        sql(&[format!(
            "delete from all_types where id >= {} and id < {}",
            self.0,
            self.0 + 100
        )]);
    }
}

fn options(start: StartMode) -> StreamOptions {
    let mut o = StreamOptions::new(vtgate(), "customer");
    o.tables = vec!["all_types".into()];
    o.start = start;
    o.heartbeat_interval_secs = 1;
    o.idle_timeout = Duration::from_secs(30);
    o
}

#[test]
fn every_type_round_trips_through_copy_and_streaming() {
    let base = id_base();
    let _cleanup = Cleanup(base);
    let rows: Vec<(&str, Row)> = vec![
        ("max", row_max()),
        ("min", row_min()),
        ("misc", row_misc()),
        ("json", row_json()),
        ("null", row_null()),
    ];
    assert!(rows.iter().all(|(_, r)| r.len() == 43));

    // --- copy phase
    let copy_ids: Vec<i64> = (0..rows.len() as i64).map(|i| base + 1 + i).collect();
    sql(&rows
        .iter()
        .zip(&copy_ids)
        .map(|((_, r), id)| insert(*id, r))
        .collect::<Vec<_>>());
    let stream = BlockingStream::open(options(StartMode::Initial)).unwrap();
    let mut view = Materialized::default();
    let events = poll_until(&stream, &mut view, timeouts::copy(), |e, _| {
        matches!(e, Event::CopyCompleted)
    });
    stream.close();
    let mut problems = Vec::new();
    let copied: BTreeMap<i64, &ChangeEvent> = events
        .iter()
        .filter_map(|e| match e {
            Event::Change(c) if c.is_snapshot => id_of(c).map(|id| (id, c)),
            _ => None,
        })
        .collect();
    for ((name, row), id) in rows.iter().zip(&copy_ids) {
        match copied.get(id) {
            Some(c) => problems.extend(mismatches(&format!("copy/{name}"), c, *id, row)),
            None => problems.push(format!("copy/{name}: row {id} was not copied")),
        }
    }

    // --- streaming phase: inserts, then updates (each row becomes the next one)
    let stream = BlockingStream::open(options(StartMode::Latest)).unwrap();
    let mut marked = BTreeSet::new();
    poll_until(&stream, &mut view, timeouts::events(), |e, _| {
        if let Event::Mark(p) = e {
            marked.insert(p.shard.clone());
        }
        marked.len() == 2
    });
    let live_ids: Vec<i64> = (0..rows.len() as i64).map(|i| base + 51 + i).collect();
    let mut statements: Vec<String> = rows
        .iter()
        .zip(&live_ids)
        .map(|((_, r), id)| insert(*id, r))
        .collect();
    for (i, id) in live_ids.iter().enumerate() {
        let next = &rows[(i + 1) % rows.len()].1;
        statements.push(update(*id, next));
    }
    sql(&statements);
    let mut inserts = BTreeMap::new();
    let mut befores = BTreeMap::new();
    let mut afters = BTreeMap::new();
    poll_until(&stream, &mut view, timeouts::progress(), |e, _| {
        if let Event::Change(c) = e {
            if let Some(id) = id_of(c).filter(|id| live_ids.contains(id)) {
                assert!(!c.is_snapshot);
                match c.kind {
                    RowKind::Insert => inserts.insert(id, c.clone()),
                    RowKind::UpdateBefore => befores.insert(id, c.clone()),
                    RowKind::UpdateAfter => afters.insert(id, c.clone()),
                    RowKind::Delete | RowKind::SnapshotRead => None,
                };
            }
        }
        afters.len() == live_ids.len()
    });
    stream.close();
    for (i, ((name, row), id)) in rows.iter().zip(&live_ids).enumerate() {
        let (next_name, next) = &rows[(i + 1) % rows.len()];
        match inserts.get(id) {
            Some(c) => problems.extend(mismatches(&format!("insert/{name}"), c, *id, row)),
            None => problems.push(format!("insert/{name}: no insert for {id}")),
        }
        match befores.get(id) {
            Some(c) => problems.extend(mismatches(&format!("update-before/{name}"), c, *id, row)),
            None => problems.push(format!("update-before/{name}: none for {id}")),
        }
        match afters.get(id) {
            Some(c) => problems.extend(mismatches(
                &format!("update-after/{name}→{next_name}"),
                c,
                *id,
                next,
            )),
            None => problems.push(format!("update-after/{name}: none for {id}")),
        }
    }
    assert!(
        problems.is_empty(),
        "{} mismatches:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
