// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A row by hand; every value kind is compared with the Java reader's Jackson text by the Java
//! test `NativeJsonRowsTest`.

use super::*;
use crate::event::{Column, ColumnType, RowKind, TableSchema};
use std::sync::Arc;

fn column(name: &str) -> Column {
    Column {
        name: name.into(),
        column_type: ColumnType::String,
        mysql_type: String::new(),
        vitess_type: 0,
        charset: 0,
        length: 0,
        decimals: 0,
        nullable: true,
        primary_key: false,
    }
}

#[test]
fn a_row_as_jackson_writes_it() {
    let names = ["id", "na\"me", "gone", "d", "f", "b", "day", "nothing"];
    let schema = Arc::new(TableSchema {
        keyspace: "ks".into(),
        shard: "0".into(),
        table: "t".into(),
        columns: names.iter().map(|n| column(n)).collect(),
        version: 1,
    });
    let change = ChangeEvent {
        schema,
        kind: RowKind::Insert,
        values: vec![
            Value::UInt(u64::MAX),
            Value::String("tab\there \u{1} 😀 \\ /".into()),
            Value::Absent,
            Value::Decimal("-0.0000001".into()),
            Value::Float(f64::NEG_INFINITY),
            Value::Bytes(vec![0xff, 0, 1].into()),
            Value::Date {
                year: 0,
                month: 0,
                day: 0,
            },
            Value::Null,
        ],
        commit_ts_millis: 0,
        is_snapshot: false,
        gtid: None,
    };
    let mut out = b"x".to_vec();
    assert!(write_row(&change, &mut out));
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "x{\"id\":18446744073709551615,\"na\\\"me\":\"tab\\there \\u0001 😀 \\\\ /\",\
         \"d\":-1E-7,\"f\":\"-Infinity\",\"b\":\"/wAB\",\"day\":null,\"nothing\":null}"
    );
}

#[test]
fn a_decimal_that_is_not_plain_digits_is_left_to_java() {
    let schema = Arc::new(TableSchema {
        keyspace: "ks".into(),
        shard: "0".into(),
        table: "t".into(),
        columns: vec![column("d")],
        version: 1,
    });
    let change = ChangeEvent {
        schema,
        kind: RowKind::Insert,
        values: vec![Value::Decimal("1e5".into())],
        commit_ts_millis: 0,
        is_snapshot: false,
        gtid: None,
    };
    let mut out = b"x".to_vec();
    assert!(!write_row(&change, &mut out));
    assert_eq!(out, b"x");
}
