// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The JNI bridge: everything Java calls lives here, nothing else in the workspace knows JNI.
//!
//! Rules (docs/native-bridge.md; docs/architecture.md, invariants 4 and 5):
//! - Java pulls. Every entry point runs on the calling Java thread; no native thread ever calls
//!   into Java, so there is no attaching, no class lookup from foreign threads, no upcall.
//! - Natives are registered from `JNI_OnLoad` on the class Java names in a system property, not
//!   exported as mangled `Java_...` symbols, so the connector can be shaded and relocated.
//! - Every entry point goes through [`EnvUnowned::with_env`] (which catches panics) and resolves
//!   errors with [`error::ThrowVitessException`]: a Rust error becomes a typed Java exception
//!   carrying its message and cause chain; a panic becomes a `FatalException`.
//! - Native `tracing` events reach Java's SLF4J through [`logs`]: formatted into a bounded
//!   lock-free queue on whatever thread logs, drained by Java threads (never an upcall).
//! - Handles are `Box::into_raw` pointers validated through [`handle`]'s registry before use: a
//!   closed, foreign or garbage handle throws `IllegalStateException`, it is never dereferenced.
//!
//! Modules depend one way: [`natives`] (the product's entry points) on [`stream`], [`handle`],
//! [`error`] and the option, key-order and log modules; `diagnostics` (the feature of that
//! name: synthetic streams and benchmark entry points for the bridge's own tests) on
//! [`natives`]; this root registers both and nothing below it knows `diagnostics`.

#[cfg(feature = "diagnostics")]
pub mod diagnostics;
pub mod error;
pub mod handle;
pub mod keyorders;
pub mod logs;
pub mod natives;
pub mod options;
pub mod positions;
pub mod stream;

use jni::sys::{jint, JNI_ERR, JNI_VERSION_1_8};
use jni::{Env, JavaVM};
use std::ffi::c_void;

/// Called by the JVM when `System.load` links this library (once per extracted copy, so once per
/// Java class loader).
///
/// # Safety
/// Called by the JVM with a valid `JavaVM` pointer.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn JNI_OnLoad(
    vm: *mut jni::sys::JavaVM,
    _reserved: *mut c_void,
) -> jint {
    let result = std::panic::catch_unwind(|| {
        if vm.is_null() {
            return JNI_ERR;
        }
        logs::init();
        // Every panic of this library copy is logged through the bridge (and a background
        // task's panic reaches its stream's next poll, docs/reliability.md).
        vitess_cdc_core::supervise::install_panic_hook();
        // SAFETY: the JVM passes a valid, non-null JavaVM pointer to JNI_OnLoad.
        let vm = unsafe { JavaVM::from_raw(vm) };
        let outcome = vm.attach_current_thread(|env| -> jni::errors::Result<bool> {
            match register(env) {
                Ok(()) => Ok(true),
                Err(e) => {
                    let message = format!("registering the native methods failed: {e}");
                    eprintln!("vitess-cdc: {message}");
                    natives::report_load_error(env, &message);
                    Ok(false)
                }
            }
        });
        match outcome {
            Ok(true) => JNI_VERSION_1_8,
            _ => JNI_ERR,
        }
    });
    result.unwrap_or(JNI_ERR)
}

/// Registers the natives of `NativeStream` and, with the `diagnostics` feature, those of
/// `NativeDiagnostics` next to it.
fn register(env: &mut Env<'_>) -> jni::errors::Result<()> {
    #[cfg_attr(not(feature = "diagnostics"), allow(unused_variables))]
    let natives_class = natives::register(env)?;
    #[cfg(feature = "diagnostics")]
    diagnostics::register(env, &natives_class)?;
    Ok(())
}

/// Called by the JVM when the class loader that loaded this library copy is garbage collected,
/// right before it unmaps the library. Streams a job forgot to close would still have runtime
/// threads executing this library's code, which would crash the JVM once it is unmapped; close
/// them here (each close waits for its threads, bounded by the core's shutdown timeout).
///
/// # Safety
/// Called by the JVM with a valid `JavaVM` pointer.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn JNI_OnUnload(_vm: *mut jni::sys::JavaVM, _reserved: *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        let leaked = natives::STREAMS.drain();
        if !leaked.is_empty() {
            eprintln!(
                "vitess-cdc: closing {} native stream(s) that were never closed, before the library unloads",
                leaked.len()
            );
        }
        for stream in leaked {
            stream.close();
        }
    });
}
