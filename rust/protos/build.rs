// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Generates the Vitess protobuf subset (../../proto) into Rust: prost messages, the tonic clients
//! for `vtgateservice.Vitess`, `vtctlservice.Vtctld` (the throttler check of chunked snapshots,
//! and their tablets) and `queryservice.Query` (chunks read from tablets directly) and their servers (compiled only with the `server` feature, which the fakes of
//! rust/testkit enable). protoc comes from `protoc-bin-vendored`, so building
//! needs no system protoc.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    // SAFETY-free in edition 2021; build scripts are single-threaded here.
    std::env::set_var("PROTOC", protoc);

    let proto_dir = "../../proto";
    let files = [
        "vtrpc.proto",
        "topodata.proto",
        "query.proto",
        "binlogdata.proto",
        "vtgate.proto",
        "vtgateservice.proto",
        "tabletmanagerdata.proto",
        "vtctldata.proto",
        "vtctlservice.proto",
        "queryservice.proto",
    ]
    .map(|f| format!("{proto_dir}/{f}"));

    tonic_prost_build::configure()
        // A row's values as `Bytes`: decoded as a slice of the received message (no copy, no
        // allocation per row); every value is decoded from it before the message is dropped.
        .bytes(".query.Row.values")
        // Its packed lengths likewise (proto/query.proto declares them `bytes`; row.rs reads them).
        .bytes(".query.Row.lengths")
        // A row change's column bitmaps likewise: every row change of a v24 ROW event carries
        // them, and as `Vec<u8>` each was an allocation and a copy per row.
        .bytes(".binlogdata.RowChange.Bitmap.cols")
        // The names every ROW event (RowEvent) and every event (VEvent) carries, `bytes` in
        // ../../proto for this: slices of the message, not a String each.
        .bytes(".binlogdata.RowEvent.table_name")
        .bytes(".binlogdata.RowEvent.keyspace")
        .bytes(".binlogdata.RowEvent.shard")
        .bytes(".binlogdata.VEvent.keyspace")
        .bytes(".binlogdata.VEvent.shard")
        // A VGTID's shard entries likewise: one VGTID per transaction lists every shard of the
        // stream, three strings each.
        .bytes(".binlogdata.ShardGtid.keyspace")
        .bytes(".binlogdata.ShardGtid.shard")
        .bytes(".binlogdata.ShardGtid.gtid")
        // A VEvent holds every kind of event inline; these three rare ones made it 728 bytes,
        // and the copy sends one VEvent per row, built, pushed and moved by value several times
        // each. Boxed, a VEvent is half as large; a ROW event's own part stays inline.
        .boxed(".binlogdata.VEvent.field_event")
        .boxed(".binlogdata.VEvent.journal")
        .boxed(".binlogdata.VEvent.last_p_k_event")
        .build_client(true)
        .build_server(true)
        .server_mod_attribute(".", "#[cfg(feature = \"server\")]")
        .compile_protos(&files, &[proto_dir.to_string()])?;

    println!("cargo:rerun-if-changed={proto_dir}");
    Ok(())
}
