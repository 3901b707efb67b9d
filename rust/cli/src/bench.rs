//! `vitess-cdc-bench`: throughput and CPU cost of the Rust core. Prints a table and writes the
//! figures as JSON. Not a test: nothing here asserts a speed.
//!
//! * offline: decode (`query.Row` text → typed `Value`s) and batch encode (the bytes that cross
//!   JNI) on synthetic rows shaped like `customer.customer` and `customer.all_types`;
//! * live, against the local VTGate: a count-only baseline consumer (raw tonic VStream, counts
//!   row changes without decoding them) versus the full core (`BlockingStream` → typed events →
//!   batch encoding), for the copy of a seeded table, for streaming while a writer process
//!   inserts, and for a streaming catch-up (replaying that binlog from a saved position).
//!
//! CPU is this process's user + system time (`getrusage`), so the writer runs as a child
//! process and is not counted; VTGate, vttablet and MySQL share the same 2 cores.

use clap::Parser;
use serde_json::{json, Value as Json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use vitess_cdc_core::batch::{BatchEncoder, EncodeError};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::client::VtgateClient;
use vitess_cdc_core::decode::{schema_from_field_event, RowDecoder};
use vitess_cdc_core::event::TableSchema;
use vitess_cdc_core::proto::binlogdata::{FieldEvent, Filter, Rule, ShardGtid, VEventType, VGtid};
use vitess_cdc_core::proto::query::{Field, MySqlFlag, Row, Type};
use vitess_cdc_core::proto::vtgate::{VStreamFlags, VStreamRequest};
use vitess_cdc_core::{ChangeEvent, Event, RowKind, ShardPosition, StartMode, StreamOptions};

#[derive(Parser, Debug)]
#[command(
    name = "vitess-cdc-bench",
    about = "Throughput and CPU cost of the vitess-cdc Rust core (offline and against a live VTGate)"
)]
struct Args {
    /// Synthetic rows per offline measurement
    #[arg(long, default_value_t = 500_000)]
    offline_rows: usize,
    /// Rows seeded into the bench table and copied by each consumer
    #[arg(long, default_value_t = 200_000)]
    copy_rows: usize,
    /// Rows the writer inserts during each streaming measurement
    #[arg(long, default_value_t = 50_000)]
    stream_rows: usize,
    /// Rows per INSERT statement (= per transaction) of the streaming writer
    #[arg(long, default_value_t = 50)]
    writer_batch: usize,
    /// Only the offline measurements
    #[arg(long)]
    offline_only: bool,
    /// VTGate gRPC address
    #[arg(long, env = "VTGATE_GRPC_ADDR", default_value = "127.0.0.1:15991")]
    address: String,
    /// VTGate MySQL host and port (for seeding and writing)
    #[arg(long, env = "VTGATE_MYSQL_HOST", default_value = "127.0.0.1")]
    mysql_host: String,
    #[arg(long, env = "VTGATE_MYSQL_PORT", default_value_t = 15993)]
    mysql_port: u16,
    /// Unsharded keyspace that holds the (temporary) bench table
    #[arg(long, default_value = "commerce")]
    keyspace: String,
    /// The bench table: created, seeded, and dropped at the end
    #[arg(long, default_value = "bench_events")]
    table: String,
    /// Where to write the results as JSON
    #[arg(long, default_value = "target/vitess-cdc-bench.json")]
    json: String,
    /// Runs of every live scenario per consumer; the median (by wall time) is reported
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Keep the bench table afterwards, and reuse it when it already holds --copy-rows rows
    #[arg(long)]
    keep_table: bool,
    /// Internal: run as the streaming writer child process (`--writer FIRST_ID`)
    #[arg(long, hide = true)]
    writer: Option<i64>,
}

// ---------------------------------------------------------------- measurement

/// User + system CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    if rc != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

struct Meter {
    wall: Instant,
    cpu: f64,
}

impl Meter {
    fn start() -> Meter {
        Meter {
            wall: Instant::now(),
            cpu: cpu_seconds(),
        }
    }
    /// (wall seconds, cpu seconds)
    fn stop(&self) -> (f64, f64) {
        (self.wall.elapsed().as_secs_f64(), cpu_seconds() - self.cpu)
    }
}

#[derive(Debug, Clone)]
struct Measurement {
    name: String,
    events: u64,
    bytes: u64,
    wall_s: f64,
    cpu_s: f64,
}

impl Measurement {
    fn events_per_s(&self) -> f64 {
        self.events as f64 / self.wall_s.max(1e-9)
    }
    fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.wall_s.max(1e-9)
    }
    fn cpu_per_million(&self) -> f64 {
        self.cpu_s / (self.events as f64 / 1e6).max(1e-12)
    }
    fn json(&self) -> Json {
        json!({
            "name": self.name, "events": self.events, "bytes": self.bytes,
            "wall_seconds": self.wall_s, "cpu_seconds": self.cpu_s,
            "events_per_second": self.events_per_s(), "mb_per_second": self.mb_per_s(),
            "cpu_seconds_per_million_events": self.cpu_per_million(),
        })
    }
}

fn print_table(title: &str, rows: &[Measurement], bytes_label: &str) {
    println!("\n{title}");
    println!(
        "{:<44} {:>10} {:>10} {:>12} {:>9} {:>12}",
        "measurement", "events", "wall s", "events/s", bytes_label, "CPU s/M ev"
    );
    println!("{}", "-".repeat(102));
    for m in rows {
        println!(
            "{:<44} {:>10} {:>10.2} {:>12.0} {:>9.1} {:>12.2}",
            m.name,
            m.events,
            m.wall_s,
            m.events_per_s(),
            m.mb_per_s(),
            m.cpu_per_million()
        );
    }
}

// ---------------------------------------------------------------- offline

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

fn customer_fields() -> Vec<Field> {
    vec![
        field("customer_id", Type::Int64, "bigint", 63, PK),
        field("email", Type::Varchar, "varchar(128)", 255, NOT_NULL),
        field("name", Type::Varchar, "varchar(64)", 255, 0),
        field("balance", Type::Decimal, "decimal(12,2)", 63, NOT_NULL),
        field("visits", Type::Int32, "int", 63, NOT_NULL),
        field("updated_at", Type::Datetime, "datetime(6)", 63, NOT_NULL),
    ]
}

fn customer_cells(i: usize) -> Vec<Option<Vec<u8>>> {
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

fn all_types_fields() -> Vec<Field> {
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

fn all_types_cells(i: usize) -> Vec<Option<Vec<u8>>> {
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
    let mut row = Row::default();
    for c in cells {
        match c {
            None => row.lengths.push(-1),
            Some(b) => {
                row.lengths.push(b.len() as i64);
                row.values.extend_from_slice(b);
            }
        }
    }
    row
}

fn row_bytes(row: &Row) -> u64 {
    (row.values.len() + row.lengths.len() * 8) as u64
}

/// Decode and encode throughput of one table shape.
fn offline_shape(
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

/// The streaming path without a server: encoded `VStreamResponse`s (one 50-row transaction of
/// `customer` rows each) → protobuf decode → count (baseline) or → protobuf decode →
/// `Machine` (grammar, typed decoding, positions) → batch encoding (core). Separates the core's
/// own CPU from the server's, which shares the machine in the live runs.
fn offline_pipeline(n: usize, rows_per_txn: usize) -> Vec<Measurement> {
    use prost::Message;
    use vitess_cdc_core::machine::{Machine, MachineConfig};
    use vitess_cdc_core::metrics::Metrics;
    use vitess_cdc_core::proto::binlogdata::{RowChange, RowEvent, VEvent};
    use vitess_cdc_core::proto::vtgate::VStreamResponse;

    let ev = |ty: VEventType| VEvent {
        r#type: ty as i32,
        keyspace: "customer".into(),
        shard: "-80".into(),
        ..Default::default()
    };
    let field = VEvent {
        field_event: Some(FieldEvent {
            table_name: "customer.customer".into(),
            fields: customer_fields(),
            keyspace: "customer".into(),
            shard: "-80".into(),
            enum_set_string_values: true,
            ..Default::default()
        }),
        ..ev(VEventType::Field)
    };
    let txns = 64usize;
    let responses: Vec<Vec<u8>> = (0..txns)
        .map(|t| {
            let mut events = vec![ev(VEventType::Begin)];
            if t == 0 {
                events.push(field.clone());
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
                    shard_gtids: vec![ShardGtid {
                        keyspace: "customer".into(),
                        shard: "-80".into(),
                        gtid: format!(
                            "MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000001:1-{}",
                            1000 + t
                        ),
                        table_p_ks: vec![],
                    }],
                }),
                ..ev(VEventType::Vgtid)
            });
            events.push(ev(VEventType::Commit));
            VStreamResponse { events }.encode_to_vec()
        })
        .collect();
    let n_txns = n.div_ceil(rows_per_txn);
    let rows_total = (n_txns * rows_per_txn) as u64;
    let wire_bytes: u64 = (0..n_txns).map(|i| responses[i % txns].len() as u64).sum();

    let meter = Meter::start();
    let mut counted = 0u64;
    for i in 0..n_txns {
        let r = VStreamResponse::decode(responses[i % txns].as_slice()).expect("decodes");
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

    let start = ShardPosition {
        keyspace: "customer".into(),
        shard: "-80".into(),
        gtid: "MySQL56/87d2a132-ec4c-11f1-bbd3-02fc00000001:1-999".into(),
        table_p_ks: vec![],
        tables_to_copy: vec![],
        copy_completed: true,
    };
    let mut machine = Machine::new(
        MachineConfig {
            allow_tables_without_primary_key: false,
            transaction_buffer_bytes: 4 << 20,
            snapshot_only: false,
            follow_reshard: false,
        },
        vec![start],
        Arc::new(Metrics::default()),
    );
    let mut encoder = BatchEncoder::new();
    let limit = 1 << 20;
    encoder.begin(limit);
    let mut out = Vec::new();
    let mut changes = 0u64;
    let meter = Meter::start();
    for i in 0..n_txns {
        let r = VStreamResponse::decode(responses[i % txns].as_slice()).expect("decodes");
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

// ---------------------------------------------------------------- live

fn mysql_opts(args: &Args) -> mysql_async::Opts {
    mysql_async::OptsBuilder::default()
        .ip_or_hostname(args.mysql_host.clone())
        .tcp_port(args.mysql_port)
        .user(Some("root"))
        .db_name(Some(args.keyspace.clone()))
        .into()
}

async fn sql(args: &Args, statements: &[String]) -> Result<(), String> {
    use mysql_async::prelude::Queryable;
    let mut conn = mysql_async::Conn::new(mysql_opts(args))
        .await
        .map_err(|e| {
            format!(
                "cannot connect to VTGate's MySQL port {}:{}: {e}",
                args.mysql_host, args.mysql_port
            )
        })?;
    for s in statements {
        conn.query_drop(s)
            .await
            .map_err(|e| format!("{}: {e}", &s[..s.len().min(120)]))?;
    }
    conn.disconnect().await.ok();
    Ok(())
}

/// Rows of an earlier seeding (ids below the writer's), if the table exists.
async fn seeded_rows(args: &Args) -> Option<i64> {
    use mysql_async::prelude::Queryable;
    let mut conn = mysql_async::Conn::new(mysql_opts(args)).await.ok()?;
    let n: Option<i64> = conn
        .query_first(format!(
            "select count(*) from `{}` where customer_id < 1000000000",
            args.table
        ))
        .await
        .ok()
        .flatten();
    conn.disconnect().await.ok();
    n
}

fn insert_rows(table: &str, ids: std::ops::Range<i64>) -> String {
    let values: Vec<String> = ids
        .map(|id| {
            format!(
                "({id}, 'user{id}@example.com', 'user {id}', {}.{:02}, {}, '2026-11-29 12:00:00.{:06}')",
                id % 100_000,
                id % 100,
                id % 1000,
                id % 1_000_000
            )
        })
        .collect();
    format!(
        "insert into `{table}` (customer_id, email, name, balance, visits, updated_at) values {}",
        values.join(",")
    )
}

fn create_table(table: &str) -> String {
    format!(
        "create table if not exists `{table}` (
           customer_id BIGINT NOT NULL, email VARCHAR(128) NOT NULL, name VARCHAR(64),
           balance DECIMAL(12, 2) NOT NULL DEFAULT 0, visits INT NOT NULL DEFAULT 0,
           updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
           PRIMARY KEY (customer_id)) ENGINE = InnoDB"
    )
}

/// The writer child: inserts `stream_rows` rows from `first_id`, `writer_batch` per statement.
fn run_writer(args: &Args, first_id: i64) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        use mysql_async::prelude::Queryable;
        let mut conn = mysql_async::Conn::new(mysql_opts(args))
            .await
            .map_err(|e| e.to_string())?;
        let end = first_id + args.stream_rows as i64;
        let mut id = first_id;
        while id < end {
            let to = (id + args.writer_batch as i64).min(end);
            conn.query_drop(insert_rows(&args.table, id..to))
                .await
                .map_err(|e| e.to_string())?;
            id = to;
        }
        conn.disconnect().await.ok();
        Ok(())
    })
}

fn spawn_writer(args: &Args, first_id: i64) -> Result<std::process::Child, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    std::process::Command::new(exe)
        .args([
            "--writer",
            &first_id.to_string(),
            "--stream-rows",
            &args.stream_rows.to_string(),
            "--writer-batch",
            &args.writer_batch.to_string(),
            "--mysql-host",
            &args.mysql_host,
            "--mysql-port",
            &args.mysql_port.to_string(),
            "--keyspace",
            &args.keyspace,
            "--table",
            &args.table,
        ])
        .spawn()
        .map_err(|e| format!("cannot start the writer process: {e}"))
}

fn stream_options(args: &Args, start: StartMode) -> StreamOptions {
    let mut o = StreamOptions::new(args.address.clone(), args.keyspace.clone());
    o.tables = vec![args.table.clone()];
    o.start = start;
    o.heartbeat_interval_secs = 1;
    o
}

/// How a consumer run ends.
#[derive(Clone, Copy)]
enum Until {
    CopyCompleted,
    Rows(u64),
}

/// The count-only baseline: raw VStream responses, row changes of the bench table counted
/// from the protobuf without looking at the values.
fn baseline(
    args: &Args,
    positions: Vec<ShardPosition>,
    until: Until,
    writer_from: Option<i64>,
) -> Result<Measurement, String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    rt.block_on(async {
        let meter = Meter::start();
        let options = stream_options(args, StartMode::Latest);
        let client = VtgateClient::connect(&options)
            .await
            .map_err(|e| e.full_message())?;
        let request = VStreamRequest {
            caller_id: None,
            tablet_type: 1, // PRIMARY
            vgtid: Some(VGtid {
                shard_gtids: positions
                    .iter()
                    .map(|p| ShardGtid {
                        keyspace: p.keyspace.clone(),
                        shard: p.shard.clone(),
                        gtid: p.gtid.clone(),
                        table_p_ks: vec![],
                    })
                    .collect(),
            }),
            filter: Some(Filter {
                rules: vec![Rule {
                    r#match: args.table.clone(),
                    filter: format!("select * from `{}`", args.table),
                }],
                ..Default::default()
            }),
            flags: Some(VStreamFlags {
                heartbeat_interval: 1,
                ..Default::default()
            }),
        };
        // The writer starts before the stream (which resumes from a position taken before
        // it): VTGate answers the VStream call only with its first events.
        let mut writer = match writer_from {
            Some(first) => Some(spawn_writer(args, first)?),
            None => None,
        };
        let mut stream = client
            .vstream(request, Duration::from_secs(60))
            .await
            .map_err(|e| e.full_message())?;
        let mut rows = 0u64;
        let mut bytes = 0u64;
        'outer: loop {
            let Some(response) = stream
                .message()
                .await
                .map_err(|s| format!("baseline VStream: {s}"))?
            else {
                return Err("baseline VStream ended early".into());
            };
            bytes += prost::Message::encoded_len(&response) as u64;
            for e in &response.events {
                match VEventType::try_from(e.r#type) {
                    Ok(VEventType::Row) => {
                        rows += e
                            .row_event
                            .as_ref()
                            .map_or(0, |r| r.row_changes.len() as u64);
                    }
                    Ok(VEventType::CopyCompleted)
                        if matches!(until, Until::CopyCompleted) && e.keyspace.is_empty() =>
                    {
                        break 'outer; // the stream-wide COPY_COMPLETED
                    }
                    _ => {}
                }
                if let Until::Rows(n) = until {
                    if rows >= n {
                        break 'outer;
                    }
                }
            }
        }
        let (wall, cpu) = meter.stop();
        if let Some(w) = writer.as_mut() {
            let _ = w.wait();
        }
        Ok(Measurement {
            name: String::new(),
            events: rows,
            bytes,
            wall_s: wall,
            cpu_s: cpu,
        })
    })
}

/// The full core: BlockingStream → typed events → batch encoding (1 MiB batches).
fn core(
    args: &Args,
    start: StartMode,
    until: Until,
    writer_from: Option<i64>,
) -> Result<Measurement, String> {
    let meter = Meter::start();
    let mut writer = match writer_from {
        Some(first) => Some(spawn_writer(args, first)?),
        None => None,
    };
    let stream = BlockingStream::open(stream_options(args, start)).map_err(|e| e.full_message())?;
    let opened = meter.wall.elapsed().as_secs_f64();
    let mut first_change = None;
    let mut encoder = BatchEncoder::new();
    let limit = 1 << 20;
    encoder.begin(limit);
    let mut changes = 0u64;
    let mut out_bytes = 0u64;
    'outer: loop {
        let events = stream
            .poll(Duration::from_millis(200))
            .map_err(|e| e.full_message())?;
        for e in &events {
            match encoder.encode(e) {
                Ok(()) => {}
                Err(EncodeError::Full { .. }) => {
                    out_bytes += encoder.finish().len() as u64;
                    encoder.begin(limit);
                    encoder
                        .encode(e)
                        .map_err(|e| format!("event larger than a batch: {e:?}"))?;
                }
                Err(EncodeError::Unrepresentable(m)) => return Err(m),
            }
            match e {
                Event::Change(c) if c.schema.table == args.table => {
                    changes += 1;
                    first_change.get_or_insert_with(|| meter.wall.elapsed().as_secs_f64());
                }
                Event::CopyCompleted | Event::End if matches!(until, Until::CopyCompleted) => {
                    break 'outer;
                }
                _ => {}
            }
            if let Until::Rows(n) = until {
                if changes >= n {
                    break 'outer;
                }
            }
        }
    }
    out_bytes += encoder.finish().len() as u64;
    let (wall, cpu) = meter.stop();
    if std::env::var_os("BENCH_DEBUG").is_some() {
        eprintln!(
            "core: open {opened:.3}s, first change {:.3}s, end {wall:.3}s, metrics {:?}",
            first_change.unwrap_or(0.0),
            stream.metrics()
        );
    }
    stream.close();
    if let Some(w) = writer.as_mut() {
        let _ = w.wait();
    }
    Ok(Measurement {
        name: String::new(),
        events: changes,
        bytes: out_bytes,
        wall_s: wall,
        cpu_s: cpu,
    })
}

/// Every shard's current position (marks after starting from `latest`).
fn current_positions(args: &Args) -> Result<Vec<ShardPosition>, String> {
    let stream = BlockingStream::open(stream_options(args, StartMode::Latest))
        .map_err(|e| e.full_message())?;
    let shards = stream.positions().shards.len();
    let started = Instant::now();
    let mut marked = std::collections::BTreeSet::new();
    while marked.len() < shards {
        if started.elapsed() > Duration::from_secs(30) {
            return Err("no position from VTGate within 30 s".into());
        }
        for e in stream
            .poll(Duration::from_millis(200))
            .map_err(|e| e.full_message())?
        {
            if let Event::Mark(p) = e {
                marked.insert(p.shard);
            }
        }
    }
    let p = stream.positions().shards;
    stream.close();
    Ok(p)
}

struct DropTable<'a>(&'a Args);
impl Drop for DropTable<'_> {
    fn drop(&mut self) {
        if self.0.keep_table {
            return;
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        if let Err(e) = rt.block_on(sql(
            self.0,
            &[format!("drop table if exists `{}`", self.0.table)],
        )) {
            eprintln!("warning: could not drop the bench table: {e}");
        }
    }
}

fn named(mut m: Measurement, name: &str) -> Measurement {
    m.name = name.to_string();
    m
}

fn live(args: &Args) -> Result<Vec<Scenario>, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let _drop = DropTable(args);
    eprintln!(
        "seeding {}.{} with {} rows…",
        args.keyspace, args.table, args.copy_rows
    );
    let seed_started = Instant::now();
    rt.block_on(async {
        if args.keep_table && seeded_rows(args).await == Some(args.copy_rows as i64) {
            // reuse: only forget earlier writer runs (VTGate caps a DML at 10 000 rows)
            use mysql_async::prelude::Queryable;
            let mut conn = mysql_async::Conn::new(mysql_opts(args))
                .await
                .map_err(|e| e.to_string())?;
            loop {
                conn.query_drop(format!(
                    "delete from `{}` where customer_id >= 1000000000 limit 5000",
                    args.table
                ))
                .await
                .map_err(|e| e.to_string())?;
                if conn.affected_rows() == 0 {
                    break;
                }
            }
            conn.disconnect().await.ok();
            return Ok(());
        }
        sql(
            args,
            &[
                format!("drop table if exists `{}`", args.table),
                create_table(&args.table),
            ],
        )
        .await?;
        let chunk = 2000i64;
        let mut statements = Vec::new();
        let mut id = 0i64;
        while id < args.copy_rows as i64 {
            let to = (id + chunk).min(args.copy_rows as i64);
            statements.push(insert_rows(&args.table, id..to));
            id = to;
        }
        sql(args, &statements).await
    })?;
    eprintln!("seeded in {:.1} s", seed_started.elapsed().as_secs_f64());
    // let the tablet's schema engine see the new table
    std::thread::sleep(Duration::from_secs(2));

    let copy_from_scratch = |shards: &[ShardPosition]| -> Vec<ShardPosition> {
        shards
            .iter()
            .map(|p| ShardPosition {
                gtid: String::new(),
                table_p_ks: vec![],
                tables_to_copy: vec![],
                copy_completed: false,
                ..p.clone()
            })
            .collect()
    };
    let now = current_positions(args)?;
    let rows = args.stream_rows as u64;
    let mut results = Vec::new();
    let mut copy = (Vec::new(), Vec::new());
    for r in 1..=args.repeat {
        eprintln!("copy {r}/{}: baseline, core…", args.repeat);
        copy.0.push(baseline(
            args,
            copy_from_scratch(&now),
            Until::CopyCompleted,
            None,
        )?);
        copy.1.push(core(
            args,
            StartMode::SnapshotOnly,
            Until::CopyCompleted,
            None,
        )?);
    }
    results.push(scenario(format!("copy of {} rows", args.copy_rows), copy));

    // streaming while a writer process inserts; every run gets its own writer run of the same
    // shape (fresh ids), baseline and core alternating
    let before_load = current_positions(args)?;
    let mut live = (Vec::new(), Vec::new());
    for r in 0..args.repeat {
        eprintln!(
            "streaming {}/{}: baseline, core (with writer)…",
            r + 1,
            args.repeat
        );
        let first_id = 1_000_000_000i64 + (2 * r) as i64 * args.stream_rows as i64;
        let start = current_positions(args)?;
        live.0
            .push(baseline(args, start, Until::Rows(rows), Some(first_id))?);
        let start = current_positions(args)?;
        live.1.push(core(
            args,
            StartMode::Positions(start),
            Until::Rows(rows),
            Some(first_id + args.stream_rows as i64),
        )?);
    }
    results.push(scenario(
        format!(
            "streaming {} rows written concurrently ({} rows/txn)",
            args.stream_rows, args.writer_batch
        ),
        live,
    ));

    // catch-up: replay the first writer run's binlog from the saved position, as fast as possible
    let mut replay = (Vec::new(), Vec::new());
    for r in 1..=args.repeat {
        eprintln!("catch-up {r}/{}: baseline, core…", args.repeat);
        replay.0.push(baseline(
            args,
            before_load.clone(),
            Until::Rows(rows),
            None,
        )?);
        replay.1.push(core(
            args,
            StartMode::Positions(before_load.clone()),
            Until::Rows(rows),
            None,
        )?);
    }
    results.push(scenario(
        format!(
            "streaming catch-up of {} rows (binlog replay)",
            args.stream_rows
        ),
        replay,
    ));
    Ok(results)
}

/// One live scenario: the median run (by wall time) of each consumer, plus every run.
struct Scenario {
    name: String,
    baseline: Measurement,
    core: Measurement,
    runs: (Vec<Measurement>, Vec<Measurement>),
}

fn median(runs: &[Measurement], name: &str) -> Measurement {
    let mut sorted = runs.to_vec();
    sorted.sort_by(|a, b| a.wall_s.total_cmp(&b.wall_s));
    named(sorted[sorted.len() / 2].clone(), name)
}

fn scenario(name: String, runs: (Vec<Measurement>, Vec<Measurement>)) -> Scenario {
    Scenario {
        baseline: median(&runs.0, "baseline (raw VStream, count only)"),
        core: median(&runs.1, "core (BlockingStream + batch encode)"),
        name,
        runs,
    }
}

fn machine() -> Json {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_default();
    json!({"cpus": cpus, "cpu_model": model, "os": std::env::consts::OS, "arch": std::env::consts::ARCH})
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    if let Some(first) = args.writer {
        return match run_writer(&args, first) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("writer: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    if cfg!(debug_assertions) {
        eprintln!("warning: this is a debug build; build with --release for meaningful figures");
    }
    let machine = machine();
    println!(
        "vitess-cdc-bench — {} CPUs ({}), {}",
        machine["cpus"],
        machine["cpu_model"].as_str().unwrap_or(""),
        env!("CARGO_PKG_VERSION")
    );

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
    let pipeline = offline_pipeline(args.offline_rows, args.writer_batch);
    print_table(
        &format!(
            "Offline streaming path (single thread, customer rows, {} rows/txn; MB/s = VStream protobuf bytes in)",
            args.writer_batch
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

    let mut live_json = Vec::new();
    let mut failed = None;
    if !args.offline_only {
        match live(&args) {
            Ok(results) => {
                println!(
                    "\nLive against VTGate {} ({}.{}; MB/s = gRPC bytes for the baseline, batch bytes for the core)",
                    args.address, args.keyspace, args.table
                );
                for sc in &results {
                    let (b, c) = (&sc.baseline, &sc.core);
                    print_table(
                        &format!("{} — median of {} runs", sc.name, args.repeat),
                        &[b.clone(), c.clone()],
                        "MB/s",
                    );
                    let cpu_ratio = c.cpu_per_million() / b.cpu_per_million().max(1e-12);
                    let rate_ratio = c.events_per_s() / b.events_per_s().max(1e-12);
                    println!(
                        "{:<44} core/baseline: events/s ×{rate_ratio:.2}, CPU per event ×{cpu_ratio:.2}",
                        ""
                    );
                    live_json.push(json!({
                        "scenario": sc.name, "baseline": b.json(), "core": c.json(),
                        "core_over_baseline_events_per_second": rate_ratio,
                        "core_over_baseline_cpu_per_event": cpu_ratio,
                        "runs": {
                            "baseline": sc.runs.0.iter().map(Measurement::json).collect::<Vec<_>>(),
                            "core": sc.runs.1.iter().map(Measurement::json).collect::<Vec<_>>(),
                        },
                    }));
                }
            }
            Err(e) => {
                eprintln!("live benchmark failed: {e}");
                failed = Some(e);
            }
        }
    }

    let report = json!({
        "tool": "vitess-cdc-bench",
        "version": env!("CARGO_PKG_VERSION"),
        "profile": if cfg!(debug_assertions) { "debug" } else { "release" },
        "machine": machine,
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "args": {
            "offline_rows": args.offline_rows, "copy_rows": args.copy_rows,
            "stream_rows": args.stream_rows, "writer_batch": args.writer_batch, "repeat": args.repeat,
            "address": args.address, "keyspace": args.keyspace, "table": args.table,
        },
        "offline": offline.iter().map(Measurement::json).collect::<Vec<_>>(),
        "live": live_json,
        "live_error": failed,
    });
    if let Some(dir) = std::path::Path::new(&args.json).parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    match std::fs::write(&args.json, serde_json::to_string_pretty(&report).unwrap()) {
        Ok(()) => println!("\nresults written to {}", args.json),
        Err(e) => eprintln!("cannot write {}: {e}", args.json),
    }
    if failed.is_some() {
        std::process::ExitCode::FAILURE
    } else {
        std::process::ExitCode::SUCCESS
    }
}
