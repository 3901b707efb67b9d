// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Position bytes as a restore reads them from a checkpoint (the split state carries them
//! unread): arbitrary bytes decode to `Ok` or a clean `Err`, never a panic or a huge allocation,
//! and whatever decodes encodes to bytes that decode to the same position.
#![no_main]

use vitess_cdc_core::{ShardPosition, StreamPosition};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(p) = ShardPosition::from_bytes(data) {
        let again = ShardPosition::from_bytes(&p.to_bytes()).expect("re-encoded shard position");
        assert_eq!(again, p);
    }
    if let Ok(p) = StreamPosition::from_bytes(data) {
        let again = StreamPosition::from_bytes(&p.to_bytes()).expect("re-encoded stream position");
        assert_eq!(again, p);
    }
});
