// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Writes the seed corpus of the fuzz targets in `rust/fuzz` (committed under
//! `rust/fuzz/corpus/<target>/`): valid VStream sequences (a streamed transaction of every type,
//! a copy phase with its last-pk marks, updates and deletes, DDL, heartbeats), row inputs per type
//! family and position bytes. libFuzzer mutates from these, so the targets explore past the
//! first checks from the first second.
//!
//! `cargo run -p vitess-cdc-core --example fuzz_seeds -- rust/fuzz/corpus`

#[path = "../../fuzz/fuzz_targets/common.rs"]
mod common;

use prost::Message;
use std::path::Path;
use vitess_cdc_core::position::TableLastPk;
use vitess_cdc_core::proto::binlogdata::{RowChange, RowEvent, VEvent, VEventType};
use vitess_cdc_core::proto::query::Row;
use vitess_cdc_core::proto::vtgate::VStreamResponse;
use vitess_cdc_core::{ShardPosition, StreamPosition};
use vitess_cdc_testkit::events::*;

fn typed_row(cells: &[&[u8]]) -> Row {
    Row {
        lengths: vitess_cdc_core::proto::encode_lengths(cells.iter().map(|c| c.len() as i64)),
        values: cells.concat().into(),
    }
}

fn typed_rows(timestamp: i64, changes: Vec<(Option<Row>, Option<Row>)>) -> VEvent {
    VEvent {
        timestamp,
        row_event: Some(RowEvent {
            table_name: format!("{KS}.t").into(),
            keyspace: KS.into(),
            shard: SHARD.into(),
            row_changes: changes
                .into_iter()
                .map(|(before, after)| RowChange {
                    before,
                    after,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }),
        ..ev(VEventType::Row)
    }
}

fn response(events: Vec<VEvent>) -> VStreamResponse {
    VStreamResponse { events }
}

fn write(dir: &Path, target: &str, name: &str, bytes: &[u8]) {
    let d = dir.join(target);
    std::fs::create_dir_all(&d).expect("corpus directory");
    std::fs::write(d.join(name), bytes).expect("seed file");
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: fuzz_seeds <corpus dir>");
    let dir = Path::new(&dir);
    let row = typed_row(&common::CELLS);
    let mut other = common::CELLS;
    other[0] = b"2";
    let row2 = typed_row(&other);
    let next = "MySQL56/00000000-0000-0000-0000-000000000001:1-6";
    let streamed = vec![
        response(vec![begin(), common::field_event(true)]),
        response(vec![
            typed_rows(1_700_000_000, vec![(None, Some(row.clone()))]),
            typed_rows(1_700_000_000, vec![(Some(row.clone()), Some(row2.clone()))]),
            typed_rows(1_700_000_000, vec![(Some(row2.clone()), None)]),
            vgtid(next),
            commit(),
        ]),
        response(vec![ev(VEventType::Heartbeat)]),
        response(vec![
            VEvent {
                statement: "ALTER TABLE t ADD COLUMN z INT".into(),
                ..ev(VEventType::Ddl)
            },
            vgtid("MySQL56/00000000-0000-0000-0000-000000000001:1-7"),
        ]),
    ];
    let copy = vec![
        response(vec![begin(), common::field_event(false)]),
        response(vec![
            typed_rows(
                0,
                vec![(None, Some(row.clone())), (None, Some(row2.clone()))],
            ),
            vgtid_with(common::GTID, vec![lastpk("t", 2)]),
            commit(),
        ]),
        response(vec![copy_completed()]),
        response(vec![
            begin(),
            typed_rows(1_700_000_001, vec![(Some(row2), None)]),
            vgtid(next),
            commit(),
        ]),
    ];
    // vstream_machine / batch_roundtrip: first byte 0 = resume, 1 = copy.
    for (name, mode, messages) in [("streamed", 0u8, &streamed), ("copy", 1u8, &copy)] {
        let framed = [vec![mode], common::frame(messages)].concat();
        write(dir, "vstream_machine", name, &framed);
        // batch_roundtrip: a size byte first (0 = tiny batches, 255 = roomy ones).
        write(
            dir,
            "batch_roundtrip",
            &format!("{name}-tiny"),
            &[&[0u8][..], &framed].concat(),
        );
        write(
            dir,
            "batch_roundtrip",
            &format!("{name}-roomy"),
            &[&[255u8][..], &framed].concat(),
        );
    }
    // row_decoder: n-1, the column picks, flags, one length per column, the values.
    let n = common::CELLS.len();
    let mut all = vec![(n - 1) as u8];
    all.extend(0..n as u8);
    all.push(1);
    all.extend(common::CELLS.iter().map(|c| c.len() as u8));
    all.extend(common::CELLS.concat());
    write(dir, "row_decoder", "every-type", &all);
    for (i, cell) in common::CELLS.iter().enumerate() {
        let one = [&[0u8, i as u8, 0, cell.len() as u8][..], cell].concat();
        write(dir, "row_decoder", &format!("type-{i:02}"), &one);
        let null = [0u8, i as u8, 2, 0xff, 0x01];
        write(dir, "row_decoder", &format!("null-{i:02}"), &null);
    }
    // position_bytes: a finished copy, one in progress with a last pk, a stream of both.
    let done = ShardPosition {
        keyspace: "customer".into(),
        shard: "-80".into(),
        gtid: common::GTID.into(),
        table_p_ks: Vec::new(),
        tables_to_copy: Vec::new(),
        copy_completed: true,
        snapshots: Vec::new(),
    };
    let copying = ShardPosition {
        keyspace: "customer".into(),
        shard: "80-".into(),
        gtid: common::GTID.into(),
        table_p_ks: vec![TableLastPk {
            table_name: "customer".into(),
            lastpk: lastpk("customer", 42)
                .lastpk
                .expect("a last pk")
                .encode_to_vec(),
        }],
        tables_to_copy: vec!["corder".into()],
        copy_completed: false,
        snapshots: Vec::new(),
    };
    write(dir, "position_bytes", "done", &done.to_bytes());
    write(dir, "position_bytes", "copying", &copying.to_bytes());
    let stream = StreamPosition {
        shards: vec![done, copying],
    };
    write(dir, "position_bytes", "stream", &stream.to_bytes());
}
