// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Fuzzing of the event decoder: whatever bytes VTGate (or a corrupted connection) sends, decoding
//! them into `VEvent`s, running them through the state machine, and decoding row values must end
//! in `Ok` or `Err`, never in a panic (a panic in the core would be a dead Flink task).
//!
//! Three levels: raw bytes as a protobuf `VStreamResponse`; structurally valid events for a table
//! with a column of every MySQL type whose rows carry arbitrary lengths and bytes; and bit flips
//! in encoded valid events.

use proptest::prelude::*;
use prost::Message;
use std::sync::Arc;
use vitess_cdc_core::decode::{schema_from_field_event, RowDecoder};
use vitess_cdc_core::machine::{Machine, MachineConfig};
use vitess_cdc_core::metrics::Metrics;
use vitess_cdc_core::proto::binlogdata::{
    row_change::Bitmap, FieldEvent, RowChange, RowEvent, VEvent, VEventType,
};
use vitess_cdc_core::proto::query::{Field, Row, Type};
use vitess_cdc_core::proto::vtgate::VStreamResponse;
use vitess_cdc_core::ShardPosition;
use vitess_cdc_testkit::events::{ev, vgtid, KS, SHARD};

/// A column of every type family, declared as MySQL declares them.
fn fields() -> Vec<Field> {
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
        f("i16", Type::Int16, "smallint", 63, 0),
        f("u16", Type::Uint16, "smallint unsigned", 63, 0),
        f("i24", Type::Int24, "mediumint", 63, 0),
        f("u24", Type::Uint24, "mediumint unsigned", 63, 0),
        f("i32", Type::Int32, "int", 63, 0),
        f("u32", Type::Uint32, "int unsigned", 63, 0),
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
        f("ch", Type::Char, "char(4)", 8, 0),
        f("tx", Type::Text, "text", 255, 0),
        f("bl", Type::Blob, "blob", 63, 0),
        f("vb", Type::Varbinary, "varbinary(8)", 63, 0),
        f("bn", Type::Binary, "binary(4)", 63, 0),
        f("bit", Type::Bit, "bit(12)", 63, 0),
        f("en", Type::Enum, "enum('a','b','c')", 255, 0),
        f("st", Type::Set, "set('x','y')", 255, 0),
        f("js", Type::Json, "json", 63, 0),
        f("geo", Type::Geometry, "geometry", 63, 0),
    ]
}

fn field_event(enum_set_strings: bool) -> VEvent {
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

fn row_event(changes: Vec<RowChange>) -> VEvent {
    VEvent {
        timestamp: 1_700_000_000,
        row_event: Some(RowEvent {
            table_name: format!("{KS}.t").into(),
            row_changes: changes,
            keyspace: KS.into(),
            shard: SHARD.into(),
            ..Default::default()
        }),
        ..ev(VEventType::Row)
    }
}

fn machine(snapshot_only: bool) -> Machine {
    let start = ShardPosition {
        keyspace: KS.into(),
        shard: SHARD.into(),
        gtid: "MySQL56/00000000-0000-0000-0000-000000000001:1-5".into(),
        table_p_ks: Vec::new(),
        tables_to_copy: Vec::new(),
        copy_completed: true,
        snapshots: Vec::new(),
    };
    let config = MachineConfig {
        allow_tables_without_primary_key: true,
        transaction_buffer_bytes: 1 << 16,
        snapshot_only,
        follow_reshard: false,
        narrowed_selection: false,
        selected: Default::default(),
        destructive_ddl: vitess_cdc_core::DestructiveDdl::Fail,
    };
    Machine::new(config, vec![start], Arc::new(Metrics::default()))
}

/// Runs events through a machine; each one may fail, none may panic.
fn run(m: &mut Machine, events: Vec<VEvent>) -> usize {
    let mut out = Vec::new();
    let mut errors = 0;
    for e in events {
        if m.handle(e, &mut out).is_err() {
            errors += 1;
        }
    }
    errors
}

/// A valid transaction around one ROW event.
fn transaction(changes: Vec<RowChange>, enum_set_strings: bool) -> Vec<VEvent> {
    vec![
        ev(VEventType::Begin),
        field_event(enum_set_strings),
        row_event(changes),
        vgtid("MySQL56/00000000-0000-0000-0000-000000000001:1-6"),
        ev(VEventType::Commit),
    ]
}

/// Cells: a mix of plausible MySQL text for every type and arbitrary bytes.
fn cell() -> impl Strategy<Value = Option<Vec<u8>>> {
    let text = prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("18446744073709551615".to_string()),
        Just("18446744073709551616".to_string()),
        Just("-9223372036854775809".to_string()),
        Just("1.5e308".to_string()),
        Just("nan".to_string()),
        Just("-12.3400000000".to_string()),
        Just("0000-00-00".to_string()),
        Just("2024-02-30 25:61:61.9999999".to_string()),
        Just("-838:59:59.000000".to_string()),
        Just("839:00:00".to_string()),
        Just("2155".to_string()),
        Just("a,b,x".to_string()),
        Just("7".to_string()),
        Just("{\"k\": [1, 2".to_string()),
        "[0-9:. -]{0,30}",
        any::<String>(),
    ];
    prop_oneof![
        1 => Just(None),
        6 => text.prop_map(|s| Some(s.into_bytes())),
        3 => proptest::collection::vec(any::<u8>(), 0..40).prop_map(Some),
    ]
}

fn row_of(cells: &[Option<Vec<u8>>], length_noise: i64) -> Row {
    let mut lengths = Vec::with_capacity(cells.len());
    let mut values = Vec::new();
    for c in cells {
        match c {
            None => lengths.push(-1),
            Some(b) => {
                lengths.push(b.len() as i64);
                values.extend_from_slice(b);
            }
        }
    }
    if let Some(last) = lengths.last_mut() {
        *last = last.saturating_add(length_noise);
    }
    Row::with_lengths(lengths, values)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        if let Ok(response) = VStreamResponse::decode(&bytes[..]) {
            run(&mut machine(false), response.events);
        }
        if let Ok(event) = VEvent::decode(&bytes[..]) {
            run(&mut machine(true), vec![field_event(true), event]);
        }
        if let Ok(row) = Row::decode(&bytes[..]) {
            let schema = Arc::new(schema_from_field_event(
                field_event(true).field_event.as_ref().unwrap(), KS, SHARD, 1));
            let _ = RowDecoder::new(schema.clone(), true).decode(&row, None);
            let _ = RowDecoder::new(schema, false).decode(&row, None);
        }
    }

    #[test]
    fn arbitrary_rows_of_every_type_never_panic(
        cells in proptest::collection::vec(cell(), 29),
        before in proptest::option::of(proptest::collection::vec(cell(), 0..32)),
        noise in prop_oneof![Just(0i64), -3i64..3, Just(i64::MAX), Just(i64::MIN)],
        bitmap in proptest::option::of((any::<i64>(), proptest::collection::vec(any::<u8>(), 0..6))),
        enum_set_strings in any::<bool>(),
    ) {
        let schema = Arc::new(schema_from_field_event(
            field_event(enum_set_strings).field_event.as_ref().unwrap(), KS, SHARD, 1));
        let decoder = RowDecoder::new(schema, enum_set_strings);
        let after = row_of(&cells, noise);
        let present = bitmap.clone().map(|(count, cols)| Bitmap { count, cols: cols.into() });
        let _ = decoder.decode(&after, present.as_ref());

        let change = RowChange {
            before: before.as_ref().map(|b| row_of(b, 0)),
            after: Some(after),
            data_columns: present,
            ..Default::default()
        };
        run(&mut machine(false), transaction(vec![change], enum_set_strings));
    }

    #[test]
    fn bit_flips_in_valid_events_never_panic(
        cells in proptest::collection::vec(cell(), 29),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..6),
        enum_set_strings in any::<bool>(),
    ) {
        let change = RowChange { after: Some(row_of(&cells, 0)), ..Default::default() };
        let response = VStreamResponse { events: transaction(vec![change], enum_set_strings) };
        let mut bytes = response.encode_to_vec();
        for (at, bit) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= 1 << bit;
        }
        if let Ok(response) = VStreamResponse::decode(&bytes[..]) {
            run(&mut machine(false), response.events);
        }
    }
}

#[test]
fn the_valid_transaction_decodes() {
    // The fuzzed shapes start from events the machine accepts, so the properties above explore
    // past the first check.
    let cells: Vec<Option<Vec<u8>>> = [
        "1",
        "-5",
        "250",
        "-300",
        "60000",
        "-8000000",
        "16000000",
        "-2000000000",
        "4000000000",
        "18446744073709551615",
        "1.5",
        "-2.25",
        "12.3400000000",
        "2024-02-29",
        "2025-01-02 03:04:05.678901",
        "2025-01-02 03:04:05.678",
        "-838:59:59.000000",
        "2024",
        "héllo",
        "abcd",
        "text",
        "blob",
        "vb",
        "bn\0\0",
        "\x05\x01",
        "b",
        "x,y",
        "{\"k\": 1}",
        // MySQL's internal POINT(0 0): SRID 0, then WKB (byte order, type 1, x, y).
        "\0\0\0\0\x01\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
    ]
    .iter()
    .map(|s| Some(s.as_bytes().to_vec()))
    .collect();
    let change = RowChange {
        after: Some(row_of(&cells, 0)),
        ..Default::default()
    };
    let mut m = machine(false);
    let mut out = Vec::new();
    for e in transaction(vec![change], true) {
        m.handle(e, &mut out).unwrap();
    }
    assert!(
        out.iter()
            .any(|e| matches!(e, vitess_cdc_core::Event::Change(_))),
        "{out:?}"
    );
}
