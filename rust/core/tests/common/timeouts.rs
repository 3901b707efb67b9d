// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Every wait of the live tests, in one place, by what is waited for; a slow machine scales them
//! all with `VITESSCDC_TEST_TIMEOUT_FACTOR=2` (the same variable as the Java tests' `TestTimeouts`).
//! Bounds that are assertions ("fails within 10 s") are named here too, as constants that are not
//! scaled: scaling them would loosen what they assert.

use std::time::Duration;

/// The factor every wait is multiplied by (default 1).
pub fn factor() -> f64 {
    match std::env::var("VITESSCDC_TEST_TIMEOUT_FACTOR") {
        Err(_) => 1.0,
        Ok(v) if v.trim().is_empty() => 1.0,
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(f) if f > 0.0 => f,
            _ => panic!("VITESSCDC_TEST_TIMEOUT_FACTOR must be a positive number, got '{v}'"),
        },
    }
}

fn scaled(secs: u64) -> Duration {
    Duration::from_secs(secs).mul_f64(factor())
}

/// A few events or a mark arrive (a resumed stream, a small copy).
pub fn events() -> Duration {
    scaled(30)
}

/// A stream makes progress: a copy of a few hundred rows, changes after a write.
pub fn progress() -> Duration {
    scaled(60)
}

/// A copy of thousands of rows, or its resume, reaches its end.
pub fn copy() -> Duration {
    scaled(120)
}

/// A stream left idle is watched this long for an error it must not raise.
pub fn idle_stream_watched() -> Duration {
    scaled(3)
}

/// Assertion: an input the plan refuses (wrong port, unknown table or column, no primary key)
/// fails the stream within this. Not scaled.
pub const REFUSED_WITHIN: Duration = Duration::from_secs(10);

/// Assertion: a connection that must fail (bad TLS, bad credentials) fails within this, before
/// any row. Not scaled.
pub const CONNECTION_FAILS_WITHIN: Duration = Duration::from_secs(20);
