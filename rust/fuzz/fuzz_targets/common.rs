// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! What the fuzz targets share: the input framing (a fuzz input is a list of length-prefixed
//! protobuf messages), a table with a column of every MySQL type family, a state machine that
//! starts from a valid position, and the seed corpus's event sequences.

#![allow(dead_code)]

use prost::Message;
use std::sync::Arc;
use vitess_cdc_core::machine::{Machine, MachineConfig};
use vitess_cdc_core::metrics::Metrics;
use vitess_cdc_core::proto::binlogdata::{FieldEvent, VEvent, VEventType};
use vitess_cdc_core::proto::query::{Field, Type};
use vitess_cdc_core::proto::vtgate::VStreamResponse;
use vitess_cdc_core::{Event, ShardPosition};
use vitess_cdc_testkit::events::{ev, KS, SHARD};

pub const GTID: &str = "MySQL56/00000000-0000-0000-0000-000000000001:1-5";

/// Splits `data` into `u16`-length-prefixed frames (a short last frame is taken as it is).
pub fn frames(mut data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while data.len() >= 2 {
        let n = u16::from_le_bytes([data[0], data[1]]) as usize;
        let rest = &data[2..];
        let n = n.min(rest.len());
        out.push(&rest[..n]);
        data = &rest[n..];
    }
    out
}

/// The framing of [`frames`], for writing seeds.
pub fn frame(messages: &[VStreamResponse]) -> Vec<u8> {
    let mut out = Vec::new();
    for m in messages {
        let bytes = m.encode_to_vec();
        out.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    out
}

/// A column of every type family, declared as MySQL declares them.
pub fn fields() -> Vec<Field> {
    let f = |name: &str, t: Type, column_type: &str, charset: u32, decimals: u32| Field {
        name: name.into(),
        r#type: t as i32,
        column_type: column_type.into(),
        charset,
        decimals,
        column_length: 20,
        flags: if name == "id" { 2 | 1 } else { 0 },
        ..Default::default()
    };
    vec![
        f("id", Type::Int64, "bigint", 63, 0),
        f("i8", Type::Int8, "tinyint", 63, 0),
        f("u8", Type::Uint8, "tinyint unsigned", 63, 0),
        f("i24", Type::Int24, "mediumint", 63, 0),
        f("u64", Type::Uint64, "bigint unsigned", 63, 0),
        f("f32", Type::Float32, "float", 63, 31),
        f("f64", Type::Float64, "double", 63, 31),
        f("dec", Type::Decimal, "decimal(30,10)", 63, 10),
        f("d", Type::Date, "date", 63, 0),
        f("dt", Type::Datetime, "datetime(6)", 63, 6),
        f("ts", Type::Timestamp, "timestamp(3)", 63, 3),
        f("t", Type::Time, "time(6)", 63, 6),
        f("y", Type::Year, "year", 63, 0),
        f("vc", Type::Varchar, "varchar(10)", 255, 0),
        f("l1", Type::Varchar, "varchar(10)", 8, 0),
        f("tx", Type::Text, "text", 255, 0),
        f("bl", Type::Blob, "blob", 63, 0),
        f("bn", Type::Binary, "binary(4)", 63, 0),
        f("bit", Type::Bit, "bit(12)", 63, 0),
        f("en", Type::Enum, "enum('a','b','c')", 255, 0),
        f("st", Type::Set, "set('x','y')", 255, 0),
        f("js", Type::Json, "json", 63, 0),
        f("geo", Type::Geometry, "geometry", 63, 0),
    ]
}

/// Plausible MySQL text for each column of [`fields`], in order.
pub const CELLS: [&[u8]; 23] = [
    b"1",
    b"-5",
    b"250",
    b"-8000000",
    b"18446744073709551615",
    b"1.5",
    b"-2.25e10",
    b"12.3400000000",
    b"2024-02-29",
    b"2025-01-02 03:04:05.678901",
    b"2025-01-02 03:04:05.678",
    b"-838:59:59.000000",
    b"2024",
    "héllo".as_bytes(),
    b"caf\xe9",
    b"text",
    b"\x00\xff",
    b"bn\0\0",
    b"\x05\x01",
    b"b",
    b"x,y",
    b"{\"k\": [1, 2.5, null]}",
    b"\0\0\0\0\x01\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
];

pub fn field_event(enum_set_strings: bool) -> VEvent {
    VEvent {
        field_event: Some(Box::new(FieldEvent {
            table_name: format!("{KS}.t"),
            fields: fields(),
            keyspace: KS.into(),
            shard: SHARD.into(),
            enum_set_string_values: enum_set_strings,
            ..Default::default()
        })),
        ..ev(VEventType::Field)
    }
}

/// A machine resuming a finished copy (`copy = false`) or copying table `t` (`copy = true`).
pub fn machine(copy: bool) -> Machine {
    let start = ShardPosition {
        keyspace: KS.into(),
        shard: SHARD.into(),
        gtid: if copy { String::new() } else { GTID.into() },
        table_p_ks: Vec::new(),
        tables_to_copy: if copy { vec!["t".into()] } else { Vec::new() },
        copy_completed: !copy,
        snapshots: Vec::new(),
    };
    let config = MachineConfig {
        allow_tables_without_primary_key: true,
        transaction_buffer_bytes: 1 << 14,
        snapshot_only: false,
        follow_reshard: false,
        narrowed_selection: false,
        selected: Default::default(),
        destructive_ddl: vitess_cdc_core::DestructiveDdl::Fail,
    };
    Machine::new(config, vec![start], Arc::new(Metrics::default()))
}

/// Runs every event of every frame through a machine until the first error (the stream stops
/// there too) and returns what it emitted. Checks what every consumer relies on.
pub fn run_machine(data: &[u8]) -> Vec<Event> {
    let copy = data.first().is_some_and(|b| b & 1 == 1);
    let mut m = machine(copy);
    let mut out = Vec::new();
    'frames: for f in frames(data.get(1..).unwrap_or(&[])) {
        let Ok(response) = VStreamResponse::decode(f) else {
            continue;
        };
        for e in response.events {
            if m.handle(e, &mut out).is_err() {
                break 'frames;
            }
        }
    }
    for e in &out {
        if let Event::Change(c) = e {
            assert_eq!(
                c.values.len(),
                c.schema.columns.len(),
                "a change's values must match its schema"
            );
        }
    }
    out
}
