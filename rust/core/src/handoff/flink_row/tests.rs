// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The layout by hand for a few rows; every type and edge value is compared byte by byte with
//! Flink's own `BinaryRowWriter` by the Java test `NativeFlinkRowsTest`.

use super::*;
use crate::event::Column;
use std::sync::Arc;

fn column(name: &str, column_type: ColumnType) -> Column {
    Column {
        name: name.into(),
        column_type,
        mysql_type: String::new(),
        vitess_type: 0,
        charset: 0,
        length: 0,
        decimals: 0,
        nullable: true,
        primary_key: false,
    }
}

fn schema(columns: Vec<Column>) -> Arc<TableSchema> {
    Arc::new(TableSchema {
        keyspace: "ks".into(),
        shard: "-80".into(),
        table: "t".into(),
        columns,
        version: 1,
    })
}

fn change(schema: &Arc<TableSchema>, kind: RowKind, values: Vec<Value>) -> ChangeEvent {
    ChangeEvent {
        schema: schema.clone(),
        kind,
        values,
        commit_ts_millis: 1_700_000_000_123,
        is_snapshot: false,
        gtid: None,
    }
}

fn layout(fields: &[(&str, FlinkType)], metadata: &[MetadataField]) -> RowLayout {
    RowLayout {
        fields: fields
            .iter()
            .map(|(name, flink_type)| DeclaredField {
                name: name.to_string(),
                flink_type: *flink_type,
            })
            .collect(),
        metadata: metadata.to_vec(),
        upsert: false,
    }
}

fn row(layout: &RowLayout, change: &ChangeEvent) -> Option<Vec<u8>> {
    let plan = RowPlan::new(layout, &change.schema)?;
    let mut out = vec![0xAA]; // a row starts anywhere in the batch
    plan.write(change, &mut out).then(|| out[1..].to_vec())
}

fn slot(row: &[u8], pos: usize) -> [u8; 8] {
    row[8 + 8 * pos..16 + 8 * pos].try_into().unwrap()
}

#[test]
fn a_bigint_a_short_and_a_long_string_and_a_null() {
    let s = schema(vec![
        column("id", ColumnType::Int),
        column("name", ColumnType::String),
        column("note", ColumnType::String),
        column("gone", ColumnType::String),
    ]);
    let l = layout(
        &[
            ("id", FlinkType::Bigint),
            ("NAME", FlinkType::Varchar), // matched without regard to case, as Java does
            ("note", FlinkType::Varchar),
            ("gone", FlinkType::Varchar),
        ],
        &[],
    );
    let c = change(
        &s,
        RowKind::UpdateAfter,
        vec![
            Value::Int(-2),
            Value::String("abc".into()),
            Value::String("ünïcødé!".into()),
            Value::Null,
        ],
    );
    let r = row(&l, &c).unwrap();
    // header: kind byte, null bit of field 3 = bit 11 = byte 1 bit 3
    assert_eq!(&r[..8], &[2, 0b1000, 0, 0, 0, 0, 0, 0]);
    assert_eq!(slot(&r, 0), (-2i64).to_le_bytes());
    assert_eq!(slot(&r, 1), [b'a', b'b', b'c', 0, 0, 0, 0, 0x83]);
    let note = "ünïcødé!".as_bytes();
    assert_eq!(
        slot(&r, 2),
        ((40i64 << 32) | note.len() as i64).to_le_bytes()
    );
    assert_eq!(slot(&r, 3), [0; 8]);
    assert_eq!(&r[40..40 + note.len()], note);
    assert_eq!(r.len(), 40 + note.len().div_ceil(8) * 8);
    assert!(r[40 + note.len()..].iter().all(|&b| b == 0));
}

#[test]
fn wide_decimals_and_timestamps_keep_their_bytes_also_when_null() {
    let s = schema(vec![
        column("d", ColumnType::Decimal),
        column("dn", ColumnType::Decimal),
        column("ts", ColumnType::DateTime),
        column("tn", ColumnType::DateTime),
    ]);
    let wide = FlinkType::Decimal {
        precision: 38,
        scale: 2,
    };
    let micros = FlinkType::TimestampWithoutTimeZone { precision: 6 };
    let l = layout(
        &[("d", wide), ("dn", wide), ("ts", micros), ("tn", micros)],
        &[],
    );
    let c = change(
        &s,
        RowKind::Insert,
        vec![
            Value::Decimal("-1.5".into()),
            Value::Null,
            Value::DateTime {
                year: 1970,
                month: 1,
                day: 1,
                hour: 0,
                minute: 0,
                second: 1,
                micros: 2_345,
            },
            Value::Null,
        ],
    );
    let r = row(&l, &c).unwrap();
    let fixed = 8 + 4 * 8;
    // -150 = 0xff6a in two's complement, the shortest form
    assert_eq!(slot(&r, 0), (((fixed as i64) << 32) | 2).to_le_bytes());
    assert_eq!(
        &r[fixed..fixed + 16],
        &[0xff, 0x6a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(slot(&r, 1), ((fixed as i64 + 16) << 32).to_le_bytes());
    assert_eq!(
        slot(&r, 2),
        (((fixed as i64 + 32) << 32) | 345_000).to_le_bytes()
    );
    assert_eq!(&r[fixed + 32..fixed + 40], &1002i64.to_le_bytes());
    assert_eq!(slot(&r, 3), ((fixed as i64 + 40) << 32).to_le_bytes());
    assert_eq!(r[1], 0b1010, "null bits of fields 1 and 3");
    assert_eq!(r.len(), fixed + 48);
}

#[test]
fn values_java_must_judge_leave_the_row_unwritten() {
    let s = schema(vec![
        column("small", ColumnType::Int),
        column("d", ColumnType::Decimal),
        column("t", ColumnType::Time),
    ]);
    let l = layout(
        &[
            ("small", FlinkType::Tinyint),
            (
                "d",
                FlinkType::Decimal {
                    precision: 5,
                    scale: 1,
                },
            ),
            ("t", FlinkType::TimeWithoutTimeZone),
        ],
        &[],
    );
    let ok = vec![
        Value::Int(127),
        Value::Decimal("1234.50".into()),
        Value::Time {
            negative: false,
            hours: 23,
            minute: 59,
            second: 59,
            micros: 999_000,
        },
    ];
    assert!(row(&l, &change(&s, RowKind::Insert, ok.clone())).is_some());
    for (i, bad) in [
        Value::Int(128),
        Value::Decimal("1234.56".into()),
        Value::Time {
            negative: true,
            hours: 1,
            minute: 0,
            second: 0,
            micros: 0,
        },
    ]
    .into_iter()
    .enumerate()
    {
        let mut values = ok.clone();
        values[i] = bad;
        let c = change(&s, RowKind::Insert, values);
        let plan = RowPlan::new(&l, &s).unwrap();
        let mut out = vec![7u8; 3];
        assert!(!plan.write(&c, &mut out), "value {i}");
        assert_eq!(out, vec![7u8; 3], "the buffer is left as it was");
    }
    // a retract changelog cannot carry a chunked snapshot's read: Java says so
    assert!(row(&l, &change(&s, RowKind::SnapshotRead, ok.clone())).is_none());
    let upsert = RowLayout { upsert: true, ..l };
    assert_eq!(
        row(&upsert, &change(&s, RowKind::SnapshotRead, ok)).unwrap()[0],
        2
    );
}

#[test]
fn tables_without_a_declared_column_or_with_a_mismatched_one_get_no_plan() {
    let s = schema(vec![column("id", ColumnType::Int)]);
    assert!(RowPlan::new(&layout(&[("missing", FlinkType::Bigint)], &[]), &s).is_none());
    assert!(RowPlan::new(&layout(&[("id", FlinkType::Date)], &[]), &s).is_none());
    assert!(RowPlan::new(&layout(&[("id", FlinkType::Other)], &[]), &s).is_none());
}

#[test]
fn metadata_follows_the_physical_fields() {
    let s = schema(vec![column("id", ColumnType::Int)]);
    let l = layout(
        &[("id", FlinkType::Integer)],
        &[
            MetadataField::TableName,
            MetadataField::OpTs,
            MetadataField::RowKind,
            MetadataField::IsSnapshot,
            MetadataField::Epoch,
        ],
    );
    let r = row(&l, &change(&s, RowKind::Delete, vec![Value::Int(7)])).unwrap();
    assert_eq!(r[0], 3);
    assert_eq!(slot(&r, 0), [7, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(slot(&r, 1), [b't', 0, 0, 0, 0, 0, 0, 0x81]);
    assert_eq!(slot(&r, 2), 1_700_000_000_123i64.to_le_bytes());
    assert_eq!(slot(&r, 3), [b'-', b'D', 0, 0, 0, 0, 0, 0x82]);
    assert_eq!(slot(&r, 4), [0; 8]);
    assert_eq!(slot(&r, 5), [0; 8]);
}

#[test]
fn the_shortest_twos_complement_is_java_big_integers() {
    assert_eq!(big_endian_minimal(0), vec![0]);
    assert_eq!(big_endian_minimal(127), vec![0x7f]);
    assert_eq!(big_endian_minimal(128), vec![0x00, 0x80]);
    assert_eq!(big_endian_minimal(-1), vec![0xff]);
    assert_eq!(big_endian_minimal(-128), vec![0x80]);
    assert_eq!(big_endian_minimal(-129), vec![0xff, 0x7f]);
    assert_eq!(big_endian_minimal(i128::MAX).len(), 16);
}
