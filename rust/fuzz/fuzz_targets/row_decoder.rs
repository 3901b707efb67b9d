// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The typed row decoder, per MySQL type: a table of 1..=23 columns chosen from every type family
//! (first bytes of the input), then a row of arbitrary cell lengths (−1 = NULL) and bytes, with an
//! optional presence bitmap. Decoding returns `Ok` with one value per column, or `Err`; no panic.
#![no_main]

#[path = "common.rs"]
mod common;

use std::sync::Arc;
use vitess_cdc_core::decode::{schema_from_field_event, RowDecoder};
use vitess_cdc_core::proto::binlogdata::{row_change::Bitmap, FieldEvent};
use vitess_cdc_core::proto::query::Row;
use vitess_cdc_core::Value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let all = common::fields();
    let n = (head as usize % all.len()) + 1;
    if rest.len() < n + 1 {
        return;
    }
    let (picks, rest) = rest.split_at(n);
    let fields: Vec<_> = picks
        .iter()
        .map(|p| all[*p as usize % all.len()].clone())
        .collect();
    let flags = rest[0];
    let rest = &rest[1..];
    let event = FieldEvent {
        table_name: "ks.t".into(),
        fields,
        ..Default::default()
    };
    let schema = Arc::new(schema_from_field_event(&event, "ks", "0", 1));
    let decoder = RowDecoder::new(schema, flags & 1 == 1);
    // Lengths: one signed byte per column (−1 NULL, others as given, possibly too long).
    if rest.len() < n {
        return;
    }
    let (lengths, values) = rest.split_at(n);
    let row = Row {
        lengths: vitess_cdc_core::proto::encode_lengths(lengths.iter().map(|l| *l as i8 as i64)),
        values: values.to_vec().into(),
    };
    let bitmap = (flags & 2 == 2).then(|| Bitmap {
        count: n as i64,
        cols: values.iter().take(n.div_ceil(8)).copied().collect(),
    });
    if let Ok(decoded) = decoder.decode(&row, bitmap.as_ref()) {
        assert_eq!(decoded.len(), n);
        if bitmap.is_none() {
            assert!(!decoded.iter().any(|v| matches!(v, Value::Absent)));
        }
    }
});
