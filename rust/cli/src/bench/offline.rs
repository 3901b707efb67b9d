// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Offline measurements, on synthetic rows shaped like `customer.customer` and
//! `customer.all_types`: decode (`query.Row` text → typed `Value`s), batch encode (the bytes
//! that cross JNI), and the streaming path of the core (decode + `Machine` + encode) against a
//! count-only baseline.

use crate::report::{print_table, Measurement, Meter};
use crate::Args;
use std::sync::Arc;
use vitess_cdc_core::batch::{BatchEncoder, EncodeError};
use vitess_cdc_core::decode::{schema_from_field_event, RowDecoder};
use vitess_cdc_core::event::TableSchema;
use vitess_cdc_core::proto::binlogdata::{FieldEvent, ShardGtid, VEventType, VGtid};
use vitess_cdc_core::proto::query::{Field, MySqlFlag, Row, Type};
use vitess_cdc_core::{ChangeEvent, Event, RowKind, ShardPosition};

fn field(name: &str, ty: Type, column_type: &str, charset: u32, flags: u32) -> Field {
    Field {
        name: name.into(),
        r#type: ty as i32,
        column_type: column_type.into(),
        charset,
        flags,
        ..Default::default()
    }
}

const PK: u32 = MySqlFlag::PriKeyFlag as u32 | MySqlFlag::NotNullFlag as u32;
const NOT_NULL: u32 = MySqlFlag::NotNullFlag as u32;

pub(crate) fn customer_fields() -> Vec<Field> {
    vec![
        field("customer_id", Type::Int64, "bigint", 63, PK),
        field("email", Type::Varchar, "varchar(128)", 255, NOT_NULL),
        field("name", Type::Varchar, "varchar(64)", 255, 0),
        field("balance", Type::Decimal, "decimal(12,2)", 63, NOT_NULL),
        field("visits", Type::Int32, "int", 63, NOT_NULL),
        field("updated_at", Type::Datetime, "datetime(6)", 63, NOT_NULL),
    ]
}

pub(crate) fn customer_cells(i: usize) -> Vec<Option<Vec<u8>>> {
    let id = 1_000_000 + i as i64;
    vec![
        Some(id.to_string().into_bytes()),
        Some(format!("user{id}@example.com").into_bytes()),
        Some(format!("user {id}").into_bytes()),
        Some(format!("{}.{:02}", i % 100_000, i % 100).into_bytes()),
        Some((i % 1000).to_string().into_bytes()),
        Some(
            format!(
                "2026-11-29 12:{:02}:{:02}.{:06}",
                i % 60,
                (i / 60) % 60,
                i % 1_000_000
            )
            .into_bytes(),
        ),
    ]
}

pub(crate) fn all_types_fields() -> Vec<Field> {
    use Type::*;
    vec![
        field("id", Int64, "bigint", 63, PK),
        field("c_tinyint", Int8, "tinyint", 63, 0),
        field("c_tinyint_u", Uint8, "tinyint unsigned", 63, 0),
        field("c_smallint", Int16, "smallint", 63, 0),
        field("c_smallint_u", Uint16, "smallint unsigned", 63, 0),
        field("c_mediumint", Int24, "mediumint", 63, 0),
        field("c_mediumint_u", Uint24, "mediumint unsigned", 63, 0),
        field("c_int", Int32, "int", 63, 0),
        field("c_int_u", Uint32, "int unsigned", 63, 0),
        field("c_bigint", Int64, "bigint", 63, 0),
        field("c_bigint_u", Uint64, "bigint unsigned", 63, 0),
        field("c_bool", Int8, "tinyint(1)", 63, 0),
        field("c_decimal", Decimal, "decimal(30,10)", 63, 0),
        field("c_decimal0", Decimal, "decimal(20,0)", 63, 0),
        field("c_float", Float32, "float", 63, 0),
        field("c_double", Float64, "double", 63, 0),
        field("c_bit1", Bit, "bit(1)", 63, 0),
        field("c_bit64", Bit, "bit(64)", 63, 0),
        field("c_date", Date, "date", 63, 0),
        field("c_datetime", Datetime, "datetime", 63, 0),
        field("c_datetime6", Datetime, "datetime(6)", 63, 0),
        field("c_timestamp", Timestamp, "timestamp(3)", 63, 0),
        field("c_time", Time, "time", 63, 0),
        field("c_time6", Time, "time(6)", 63, 0),
        field("c_year", Year, "year", 63, 0),
        field("c_char", Char, "char(10)", 255, 0),
        field("c_varchar", Varchar, "varchar(255)", 255, 0),
        field("c_varchar_bin", Varbinary, "varbinary(64)", 63, 0),
        field("c_tinytext", Text, "tinytext", 255, 0),
        field("c_text", Text, "text", 255, 0),
        field("c_mediumtext", Text, "mediumtext", 255, 0),
        field("c_longtext", Text, "longtext", 255, 0),
        field("c_latin1", Varchar, "varchar(32)", 8, 0),
        field("c_binary", Binary, "binary(16)", 63, 0),
        field("c_varbinary", Varbinary, "varbinary(255)", 63, 0),
        field("c_tinyblob", Blob, "tinyblob", 63, 0),
        field("c_blob", Blob, "blob", 63, 0),
        field("c_mediumblob", Blob, "mediumblob", 63, 0),
        field("c_longblob", Blob, "longblob", 63, 0),
        field("c_enum", Enum, "enum('small','medium','large')", 255, 0),
        field("c_set", Set, "set('a','b','c','d')", 255, 0),
        field("c_json", Json, "json", 63, 0),
        field("c_geometry", Geometry, "geometry", 63, 0),
        field("c_point", Geometry, "point", 63, 0),
    ]
}

pub(crate) fn all_types_cells(i: usize) -> Vec<Option<Vec<u8>>> {
    let t = |s: String| Some(s.into_bytes());
    let mut point = vec![0u8, 0, 0, 0, 1, 1, 0, 0, 0];
    point.extend_from_slice(&(i as f64).to_le_bytes());
    point.extend_from_slice(&2.5f64.to_le_bytes());
    vec![
        t((1_000_000 + i).to_string()),
        t(format!("{}", (i % 256) as i64 - 128)),
        t(format!("{}", i % 256)),
        t(format!("{}", (i % 65536) as i64 - 32768)),
        t(format!("{}", i % 65536)),
        t(format!("-{}", i % 8_388_608)),
        t(format!("{}", i % 16_777_216)),
        t(format!(
            "{}",
            i as i64 * 7919 % 2_147_483_647 - 1_000_000_000
        )),
        t(format!("{}", i as u64 * 7919 % 4_294_967_295)),
        t(format!("{}", (i as i64).wrapping_mul(-2_654_435_761))),
        t(format!(
            "{}",
            (i as u64).wrapping_mul(11_400_714_819_323_198_485)
        )),
        t(format!("{}", i % 2)),
        t(format!("{}.{:010}", i * 31, i % 10_000_000_000)),
        t(format!("-{}", i * 17)),
        t(if i.is_multiple_of(2) {
            format!("{}.25", i % 1000)
        } else {
            format!("{}E-01", i % 1000 + 1)
        }),
        t(format!("{}.{}", i, i % 997)),
        Some(vec![(i % 2) as u8]),
        Some((i as u64).to_be_bytes().to_vec()),
        t(format!(
            "20{:02}-{:02}-{:02}",
            i % 100,
            i % 12 + 1,
            i % 28 + 1
        )),
        t(format!(
            "2026-{:02}-{:02} {:02}:{:02}:{:02}",
            i % 12 + 1,
            i % 28 + 1,
            i % 24,
            i % 60,
            i % 60
        )),
        t(format!(
            "2026-{:02}-{:02} {:02}:{:02}:{:02}.{:06}",
            i % 12 + 1,
            i % 28 + 1,
            i % 24,
            i % 60,
            i % 60,
            i % 1_000_000
        )),
        t(format!("2026-11-29 10:00:{:02}.{:03}", i % 60, i % 1000)),
        t(format!(
            "{}{}:{:02}:{:02}",
            if i.is_multiple_of(3) { "-" } else { "" },
            i % 839,
            i % 60,
            i % 60
        )),
        t(format!(
            "{}:{:02}:{:02}.{:06}",
            i % 100,
            i % 60,
            i % 60,
            i % 1_000_000
        )),
        t(format!("{}", 1901 + i % 255)),
        t(format!("c{}", i % 1000)),
        t(format!("varchar value {i} with ünïcödé 😀")),
        Some(format!("bin{i}").into_bytes()),
        t(format!("tiny {i}")),
        t(format!("text {i} ").repeat(8)),
        t(format!("medium text {i}")),
        t(format!("long text {i}")),
        Some(b"caf\xe9 \x80".to_vec()),
        Some({
            let mut b = (i as u64).to_le_bytes().to_vec();
            b.resize(16, 0);
            b
        }),
        Some(vec![0, 1, 2, (i % 256) as u8]),
        Some(vec![(i % 256) as u8; 8]),
        Some(vec![7u8; 64]),
        Some(vec![9u8; 32]),
        Some(vec![1u8; 16]),
        t(["small", "medium", "large"][i % 3].to_string()),
        t(["a", "a,b", "b,c,d", ""][i % 4].to_string()),
        t(format!(
            r#"{{"id": {i}, "tags": ["x", "y"], "nested": {{"k": {}}}}}"#,
            i % 100
        )),
        Some(point.clone()),
        Some(point),
    ]
}

fn make_row(cells: &[Option<Vec<u8>>]) -> Row {
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
    Row::with_lengths(lengths, values)
}

/// A row's text in: its values, and 8 bytes per cell length (as the figures have always counted).
fn row_bytes(row: &Row) -> u64 {
    (row.values.len() + row.cell_lengths().count() * 8) as u64
}

/// Decode and encode throughput of one table shape.
pub(crate) fn offline_shape(
    shape: &str,
    fields: Vec<Field>,
    cells: impl Fn(usize) -> Vec<Option<Vec<u8>>>,
    n: usize,
) -> Vec<Measurement> {
    let event = FieldEvent {
        table_name: format!("customer.{shape}"),
        fields,
        keyspace: "customer".into(),
        shard: "-80".into(),
        ..Default::default()
    };
    let schema: Arc<TableSchema> = Arc::new(schema_from_field_event(&event, "customer", "-80", 1));
    let decoder = RowDecoder::new(schema.clone(), true);
    // 1024 distinct rows, cycled: realistic values without measuring the generator
    let rows: Vec<Row> = (0..1024).map(|i| make_row(&cells(i))).collect();
    let input_bytes: u64 = (0..n).map(|i| row_bytes(&rows[i % rows.len()])).sum();

    let meter = Meter::start();
    let mut checksum = 0usize;
    for i in 0..n {
        let values = decoder
            .decode(&rows[i % rows.len()], None)
            .expect("synthetic rows decode");
        checksum += values.len();
    }
    let (wall, cpu) = meter.stop();
    assert_eq!(checksum, n * schema.columns.len());
    let decode = Measurement {
        name: format!("decode query.Row → Values ({shape})"),
        events: n as u64,
        bytes: input_bytes,
        wall_s: wall,
        cpu_s: cpu,
    };

    // Encode: pre-decoded change events, batches of up to 1 MiB (as the JNI poll uses).
    let events: Vec<Event> = rows
        .iter()
        .map(|r| {
            Event::Change(ChangeEvent {
                schema: schema.clone(),
                kind: RowKind::Insert,
                values: decoder.decode(r, None).unwrap(),
                commit_ts_millis: 1_795_996_391_000,
                is_snapshot: false,
                gtid: None,
            })
        })
        .collect();
    let mut encoder = BatchEncoder::new();
    let limit = 1 << 20;
    encoder.begin(limit);
    let mut out_bytes = 0u64;
    let meter = Meter::start();
    for i in 0..n {
        let e = &events[i % events.len()];
        match encoder.encode(e) {
            Ok(()) => {}
            Err(EncodeError::Full { .. }) => {
                out_bytes += encoder.finish().len() as u64;
                encoder.begin(limit);
                encoder.encode(e).expect("fits an empty batch");
            }
            Err(EncodeError::Unrepresentable(m)) => panic!("{m}"),
        }
    }
    out_bytes += encoder.finish().len() as u64;
    let (wall, cpu) = meter.stop();
    let encode = Measurement {
        name: format!("batch encode Values → bytes ({shape})"),
        events: n as u64,
        bytes: out_bytes,
        wall_s: wall,
        cpu_s: cpu,
    };
    vec![decode, encode]
}

/// A VEvent of shard `customer/-80`, as VTGate stamps every event of a shard's stream.
fn ev(ty: VEventType) -> vitess_cdc_core::proto::binlogdata::VEvent {
    vitess_cdc_core::proto::binlogdata::VEvent {
        r#type: ty as i32,
        keyspace: "customer".into(),
        shard: "-80".into(),
        ..Default::default()
    }
}

/// The FIELD event of `customer.customer` on `-80`.
fn customer_field_event() -> vitess_cdc_core::proto::binlogdata::VEvent {
    vitess_cdc_core::proto::binlogdata::VEvent {
        field_event: Some(Box::new(FieldEvent {
            table_name: "customer.customer".into(),
            fields: customer_fields(),
            keyspace: "customer".into(),
            shard: "-80".into(),
            enum_set_string_values: true,
            ..Default::default()
        })),
        ..ev(VEventType::Field)
    }
}

/// The streaming path without a server: encoded `VStreamResponse`s (one 50-row transaction of
/// `customer` rows each) → protobuf decode → count (baseline) or → protobuf decode →
/// `Machine` (grammar, typed decoding, positions) → batch encoding (core). Separates the core's
/// own CPU from the server's, which shares the machine in the live runs.
pub(crate) fn offline_pipeline(n: usize, rows_per_txn: usize, shards: usize) -> Vec<Measurement> {
    use prost::Message;
    use vitess_cdc_core::proto::binlogdata::{RowChange, RowEvent, VEvent};
    use vitess_cdc_core::proto::vtgate::VStreamResponse;

    let txns = 64usize;
    // The stream's other shards (named after `-80` in key order, as VTGate keeps the request's
    // order): listed in every VGTID with a GTID that does not move.
    let others: Vec<ShardGtid> = (1..shards.max(1))
        .map(|i| ShardGtid {
            keyspace: "customer".into(),
            shard: format!("x{i:03}").into(),
            gtid: format!("MySQL56/87d2a132-ec4c-11f1-bbd3-{i:012}:1-77").into(),
            table_p_ks: vec![],
        })
        .collect();
    // As tonic hands them to prost: one shared buffer per message, so `bytes` fields decode as
    // slices of it.
    let responses: Vec<prost::bytes::Bytes> = (0..txns)
        .map(|t| {
            let mut events = vec![ev(VEventType::Begin)];
            if t == 0 {
                events.push(customer_field_event());
            }
            events.push(VEvent {
                timestamp: 1_795_996_391,
                row_event: Some(RowEvent {
                    table_name: "customer.customer".into(),
                    keyspace: "customer".into(),
                    shard: "-80".into(),
                    row_changes: (0..rows_per_txn)
                        .map(|i| RowChange {
                            after: Some(make_row(&customer_cells(t * rows_per_txn + i))),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                }),
                ..ev(VEventType::Row)
            });
            events.push(VEvent {
                vgtid: Some(VGtid {
                    shard_gtids: std::iter::once(ShardGtid {
                        keyspace: "customer".into(),
                        shard: "-80".into(),
                        gtid: format!(
                            "MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000001:1-{}",
                            1000 + t
                        )
                        .into(),
                        table_p_ks: vec![],
                    })
                    .chain(others.iter().cloned())
                    .collect(),
                }),
                ..ev(VEventType::Vgtid)
            });
            events.push(ev(VEventType::Commit));
            VStreamResponse { events }.encode_to_vec().into()
        })
        .collect();
    let n_txns = n.div_ceil(rows_per_txn);
    let start = ShardPosition {
        keyspace: "customer".into(),
        shard: "-80".into(),
        gtid: "MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000001:1-999".into(),
        table_p_ks: vec![],
        tables_to_copy: vec![],
        copy_completed: true,
        snapshots: Vec::new(),
    };
    let starts = std::iter::once(start)
        .chain(others.iter().map(|o| ShardPosition {
            keyspace: String::from_utf8_lossy(&o.keyspace).into_owned(),
            shard: String::from_utf8_lossy(&o.shard).into_owned(),
            gtid: String::from_utf8_lossy(&o.gtid).into_owned(),
            table_p_ks: vec![],
            tables_to_copy: vec![],
            copy_completed: true,
            snapshots: Vec::new(),
        }))
        .collect();
    measure_pipeline(&responses, n_txns, rows_per_txn, starts)
}

/// The copy phase's shape, which differs from the binlog's: VTGate sends one ROW event per
/// copied row (each with its keyspace, shard and table names), `rows_per_batch` of them between
/// a BEGIN and a VGTID carrying the batch's last primary key. So per-event work of the core is
/// per-row work here.
pub(crate) fn offline_copy_pipeline(n: usize, rows_per_batch: usize) -> Vec<Measurement> {
    use prost::Message;
    use vitess_cdc_core::proto::binlogdata::{RowChange, RowEvent, TableLastPk, VEvent};
    use vitess_cdc_core::proto::query::QueryResult;
    use vitess_cdc_core::proto::vtgate::VStreamResponse;

    let batches = 64usize;
    let responses: Vec<prost::bytes::Bytes> = (0..batches)
        .map(|b| {
            let mut events = vec![ev(VEventType::Begin)];
            if b == 0 {
                events.push(customer_field_event());
            }
            let first = b * rows_per_batch;
            events.extend((first..first + rows_per_batch).map(|i| VEvent {
                row_event: Some(RowEvent {
                    table_name: "customer.customer".into(),
                    keyspace: "customer".into(),
                    shard: "-80".into(),
                    row_changes: vec![RowChange {
                        after: Some(make_row(&customer_cells(i))),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
                ..ev(VEventType::Row)
            }));
            let last_id = (1_000_000 + first + rows_per_batch - 1).to_string();
            events.push(VEvent {
                vgtid: Some(VGtid {
                    shard_gtids: vec![ShardGtid {
                        keyspace: "customer".into(),
                        shard: "-80".into(),
                        gtid: "MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000001:1-999".into(),
                        table_p_ks: vec![TableLastPk {
                            table_name: "customer".into(),
                            lastpk: Some(QueryResult {
                                fields: vec![customer_fields().swap_remove(0)],
                                rows: vec![make_row(&[Some(last_id.into_bytes())])],
                                ..Default::default()
                            }),
                        }],
                    }],
                }),
                ..ev(VEventType::Vgtid)
            });
            events.push(ev(VEventType::Commit));
            VStreamResponse { events }.encode_to_vec().into()
        })
        .collect();
    let start = ShardPosition {
        keyspace: "customer".into(),
        shard: "-80".into(),
        gtid: String::new(),
        table_p_ks: vec![],
        tables_to_copy: vec!["customer".into()],
        copy_completed: false,
        snapshots: Vec::new(),
    };
    measure_pipeline(
        &responses,
        n.div_ceil(rows_per_batch),
        rows_per_batch,
        vec![start],
    )
}

/// Decodes `count` of `responses` (cycling) twice: counting rows (the baseline) and through a
/// [`Machine`] started at `starts` and the batch encoder (the core).
fn measure_pipeline(
    responses: &[prost::bytes::Bytes],
    count: usize,
    rows_per_response: usize,
    starts: Vec<ShardPosition>,
) -> Vec<Measurement> {
    use prost::Message;
    use vitess_cdc_core::machine::{Machine, MachineConfig};
    use vitess_cdc_core::metrics::Metrics;
    use vitess_cdc_core::proto::vtgate::VStreamResponse;

    let rows_total = (count * rows_per_response) as u64;
    let wire_bytes: u64 = (0..count)
        .map(|i| responses[i % responses.len()].len() as u64)
        .sum();

    let meter = Meter::start();
    let mut counted = 0u64;
    for i in 0..count {
        let r = VStreamResponse::decode(responses[i % responses.len()].clone()).expect("decodes");
        for e in &r.events {
            if let Some(re) = &e.row_event {
                counted += re.row_changes.len() as u64;
            }
        }
    }
    let (wall, cpu) = meter.stop();
    assert_eq!(counted, rows_total);
    let baseline = Measurement {
        name: "baseline: protobuf decode + count".into(),
        events: counted,
        bytes: wire_bytes,
        wall_s: wall,
        cpu_s: cpu,
    };

    let mut machine = Machine::new(
        MachineConfig {
            allow_tables_without_primary_key: false,
            transaction_buffer_bytes: 4 << 20,
            snapshot_only: false,
            follow_reshard: false,
            narrowed_selection: false,
            selected: Default::default(),
            destructive_ddl: vitess_cdc_core::DestructiveDdl::Fail,
        },
        starts,
        Arc::new(Metrics::default()),
    );
    let mut encoder = BatchEncoder::new();
    let limit = 1 << 20;
    encoder.begin(limit);
    let mut out = Vec::new();
    let mut changes = 0u64;
    let meter = Meter::start();
    for i in 0..count {
        let r =
            vitess_cdc_core::client::codec::decode_response(responses[i % responses.len()].clone())
                .expect("decodes");
        for e in r.events {
            machine.handle(e, &mut out).expect("valid grammar");
        }
        for e in out.drain(..) {
            if matches!(e, Event::Change(_)) {
                changes += 1;
            }
            match encoder.encode(&e) {
                Ok(()) => {}
                Err(EncodeError::Full { .. }) => {
                    encoder.finish();
                    encoder.begin(limit);
                    encoder.encode(&e).expect("fits an empty batch");
                }
                Err(EncodeError::Unrepresentable(m)) => panic!("{m}"),
            }
        }
    }
    encoder.finish();
    let (wall, cpu) = meter.stop();
    assert_eq!(changes, rows_total);
    let core = Measurement {
        name: "core: decode + Machine + batch encode".into(),
        events: changes,
        bytes: wire_bytes,
        wall_s: wall,
        cpu_s: cpu,
    };
    vec![baseline, core]
}

/// Every offline measurement, printed as two tables.
pub(crate) fn run(args: &Args) -> Vec<Measurement> {
    let mut offline = Vec::new();
    offline.extend(offline_shape(
        "customer",
        customer_fields(),
        customer_cells,
        args.offline_rows,
    ));
    offline.extend(offline_shape(
        "all_types",
        all_types_fields(),
        all_types_cells,
        args.offline_rows / 4,
    ));
    print_table(
        "Offline (single thread; MB/s = row text in for decode, batch bytes out for encode)",
        &offline,
        "MB/s",
    );
    let pipeline = offline_pipeline(args.offline_rows, args.writer_batch, args.offline_shards);
    print_table(
        &format!(
            "Offline streaming path (single thread, customer rows, {} rows/txn, VGTIDs of {} shard(s); MB/s = VStream protobuf bytes in)",
            args.writer_batch, args.offline_shards
        ),
        &pipeline,
        "MB/s",
    );
    println!(
        "{:<44} core/baseline: CPU per event ×{:.2}",
        "",
        pipeline[1].cpu_per_million() / pipeline[0].cpu_per_million().max(1e-12)
    );
    offline.extend(pipeline);
    let copy = offline_copy_pipeline(args.offline_rows, args.copy_batch_rows);
    print_table(
        &format!(
            "Offline copy path (single thread, customer rows, one ROW event per row, {} rows per copy batch; MB/s = VStream protobuf bytes in)",
            args.copy_batch_rows
        ),
        &copy,
        "MB/s",
    );
    println!(
        "{:<44} core/baseline: CPU per event ×{:.2}",
        "",
        copy[1].cpu_per_million() / copy[0].cpu_per_million().max(1e-12)
    );
    offline.extend(copy.into_iter().map(|mut m| {
        m.name = format!("copy path: {}", m.name);
        m
    }));
    offline
}
