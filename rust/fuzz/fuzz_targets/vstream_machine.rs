// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The event state machine fed VStream responses in any order and shape: whatever VTGate (or a
//! corrupted connection) sends, `Machine::handle` returns `Ok` or `Err`, never panics, and every
//! change it emits has one value per column of its schema.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::run_machine(data);
});
