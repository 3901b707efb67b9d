// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The natives of `io.vitesscdc.nativeio.NativeDiagnostics`: synthetic streams for the round-trip
//! tests, entry points for the bridge benchmark, errors of every class and a panic raised on
//! demand, and panics injected into a stream's background tasks (the core's `fault-injection`).
//! Synthetic streams run no server; a synthetic stream is an ordinary handle in [`STREAMS`], read
//! with the real `nativePoll`. Compiled only with the `diagnostics` feature, which the library a
//! jar bundles never has: the Maven build of the connector makes a second library with it for its
//! tests and benchmark (java/vitess-cdc-connector/pom.xml, `cargo.test.features`).

pub mod synth;
pub mod typed_rows;

use crate::error::{BridgeError, BridgeResult, ThrowVitessException};
use crate::handle::Registry;
use crate::natives::{hot, poll_result, poll_timeout, raw_direct_buffer, STREAMS};
use crate::stream::StreamHandle;
use jni::objects::{JByteBuffer, JClass, JString};
use jni::strings::JNIString;
use jni::sys::{jboolean, jint, jlong};
use jni::{jni_str, Env, EnvUnowned, NativeMethod};
use std::ffi::c_void;
use std::sync::Arc;
use synth::PreEncoded;
use vitess_cdc_core::handoff::flink_row::RowLayout;
use vitess_cdc_core::supervise::{faults, Task};
use vitess_cdc_core::Error as CoreError;

/// Simple name of the class, in the (possibly relocated) package of the natives class.
pub const CLASS_SIMPLE_NAME: &str = "NativeDiagnostics";

/// Pre-encoded benchmark batches.
pub static BENCH: Registry<PreEncoded> = Registry::new();

/// Registers the natives on `NativeDiagnostics`, found next to `natives_class`, where the loading
/// class loader can see it: the class lives with the Java tests, so a loader of the packaged jar
/// alone (a test's throwaway "job" loader) gets only the product's natives.
pub fn register(env: &mut Env<'_>, natives_class: &str) -> jni::errors::Result<()> {
    let name = match natives_class.rsplit_once('/') {
        Some((package, _)) => format!("{package}/{CLASS_SIMPLE_NAME}"),
        None => CLASS_SIMPLE_NAME.to_string(),
    };
    let class = match env.find_class(JNIString::new(name)) {
        Ok(class) => class,
        // find_class caught and cleared the JVM's exception.
        Err(jni::errors::Error::NoClassDefFound { .. }) => return Ok(()),
        Err(e) => return Err(e),
    };
    // SAFETY: each function pointer below has exactly the parameter and return types its JNI
    // signature describes, with `JClass` as the second parameter (all methods are static).
    let methods = unsafe {
        [
            NativeMethod::from_raw_parts(
                jni_str!("nativeOpenSynthetic"),
                jni_str!("(JI)J"),
                native_open_synthetic as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeOpenTypedRows"),
                jni_str!("(JILjava/lang/String;)J"),
                native_open_typed_rows as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeOpenSyntheticAs"),
                jni_str!("(JILjava/lang/String;)J"),
                native_open_synthetic_as as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeSyntheticExpected"),
                jni_str!("(JI)Ljava/lang/String;"),
                native_synthetic_expected as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeBenchOpen"),
                jni_str!("(II)J"),
                native_bench_open as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeBenchRows"),
                jni_str!("(J)I"),
                native_bench_rows as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeBenchPoll"),
                jni_str!("(JLjava/nio/ByteBuffer;J)I"),
                native_bench_poll as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeBenchClose"),
                jni_str!("(J)V"),
                native_bench_close as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeNoop"),
                jni_str!("()V"),
                native_noop as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeNoopRaw"),
                jni_str!("()V"),
                native_noop_raw as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeRaise"),
                jni_str!("(I)Ljava/lang/String;"),
                native_raise as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeInjectPanic"),
                jni_str!("(I)V"),
                native_inject_panic as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePanicArmed"),
                jni_str!("(I)Z"),
                native_panic_armed as *mut c_void,
            ),
        ]
    };
    // SAFETY: see above; the methods are declared `static native` in NativeDiagnostics.
    unsafe { env.register_native_methods(&class, &methods) }
}

fn event_count(events: jint) -> BridgeResult<usize> {
    usize::try_from(events)
        .map_err(|_| BridgeError::IllegalArgument(format!("events must be >= 0, was {events}")))
}

/// A synthetic stream of `events` random events (and END) for `seed`, read with `nativePoll`.
extern "system" fn native_open_synthetic<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    seed: jlong,
    events: jint,
) -> jlong {
    env.with_env(|_env| {
        let source = synth::random_stream(seed as u64, event_count(events)?);
        Ok::<_, BridgeError>(STREAMS.insert(Arc::new(StreamHandle::new(Box::new(source)))))
    })
    .resolve::<ThrowVitessException>()
}

/// The row form a synthetic stream's records are written in: the stream options `flink_rows`
/// and `json_rows` (what a deserializer's `nativeOptionsJson` gives).
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RowForm {
    flink_rows: Option<RowLayout>,
    #[serde(default)]
    json_rows: bool,
}

/// Opens `source` with the row form `row_form` (a JSON object; null: values).
fn open_as(
    env: &mut Env<'_>,
    source: synth::Scripted,
    row_form: &JString<'_>,
) -> BridgeResult<jlong> {
    let form: RowForm = if row_form.is_null() {
        RowForm::default()
    } else {
        let json = row_form.try_to_string(env)?;
        serde_json::from_str(&json)
            .map_err(|e| BridgeError::IllegalArgument(format!("not a row form ({json}): {e}")))?
    };
    let stream: crate::stream::DynStreamHandle = StreamHandle::new(Box::new(source));
    stream.set_row_layout(form.flink_rows)?;
    stream.set_json_rows(form.json_rows)?;
    Ok(STREAMS.insert(Arc::new(stream)))
}

/// A synthetic stream of `rows` typed rows for `seed` (see `typed_rows`), its records written in
/// the row form `row_form`.
extern "system" fn native_open_typed_rows<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    seed: jlong,
    rows: jint,
    row_form: JString<'l>,
) -> jlong {
    env.with_env(|env| {
        let source = typed_rows::typed_stream(seed as u64, event_count(rows)?);
        open_as(env, source, &row_form)
    })
    .resolve::<ThrowVitessException>()
}

/// The random synthetic stream `(seed, events)` with its records written in the row form
/// `row_form`.
extern "system" fn native_open_synthetic_as<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    seed: jlong,
    events: jint,
    row_form: JString<'l>,
) -> jlong {
    env.with_env(|env| {
        let source = synth::random_stream(seed as u64, event_count(events)?);
        open_as(env, source, &row_form)
    })
    .resolve::<ThrowVitessException>()
}

/// The canonical rendering of the synthetic stream `(seed, events)` (see `synth::expected`).
extern "system" fn native_synthetic_expected<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    seed: jlong,
    events: jint,
) -> JString<'l> {
    env.with_env(|env| {
        let text = synth::expected(&synth::random_events(seed as u64, event_count(events)?));
        Ok::<_, BridgeError>(env.new_string(text)?)
    })
    .resolve::<ThrowVitessException>()
}

/// A pre-encoded batch of `shape` (1 customer, 2 all_types) of at most `batch_bytes` bytes.
extern "system" fn native_bench_open<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    shape: jint,
    batch_bytes: jint,
) -> jlong {
    env.with_env(|_env| {
        let bytes = usize::try_from(batch_bytes).map_err(|_| {
            BridgeError::IllegalArgument(format!("batchBytes must be > 0, was {batch_bytes}"))
        })?;
        Ok::<_, BridgeError>(BENCH.insert(Arc::new(PreEncoded::new(shape, bytes)?)))
    })
    .resolve::<ThrowVitessException>()
}

extern "system" fn native_bench_rows<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> jint {
    env.with_env(|_env| {
        let bench = BENCH.get(handle)?;
        Ok::<_, BridgeError>(bench.rows().min(i32::MAX as usize) as jint)
    })
    .resolve::<ThrowVitessException>()
}

/// Exactly what `nativePoll` does around the stream (handle lookup, timeout check, direct
/// buffer address and capacity, result code), with the stream replaced by a copy of the
/// pre-encoded batch: the cost of the JNI boundary itself.
extern "system" fn native_bench_poll<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    handle: jlong,
    mut buffer: JByteBuffer<'l>,
    timeout_millis: jlong,
) -> jint {
    let raw = env.as_raw();
    hot(&mut env, || {
        let bench = BENCH.get(handle)?;
        let _timeout = poll_timeout(timeout_millis)?;
        // SAFETY: `raw` is this native call's JNIEnv and `buffer` one of its local references.
        let out = unsafe { raw_direct_buffer(raw, &mut buffer)? };
        poll_result(bench.poll(out))
    })
}

extern "system" fn native_bench_close<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, handle: jlong) {
    env.with_env(|_env| {
        BENCH.remove(handle);
        Ok::<_, BridgeError>(())
    })
    .resolve::<ThrowVitessException>()
}

/// The cheapest entry point with the bridge's usual wrapper (panic catching, error policy).
extern "system" fn native_noop<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>) {
    env.with_env(|_env| Ok::<_, BridgeError>(()))
        .resolve::<ThrowVitessException>()
}

/// A bare JNI call: nothing at all on the native side.
extern "system" fn native_noop_raw<'l>(_env: EnvUnowned<'l>, _c: JClass<'l>) {}

/// Raises an error of `kind` inside the library, mapped like any other: 1 configuration error,
/// 2 retryable, 3 fatal with a two-level cause chain, 4 a panic in this call; 5 logs one event
/// per level (and one from a native thread) and returns "logged".
extern "system" fn native_raise<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    kind: jint,
) -> JString<'l> {
    env.with_env(|env| {
        let err = match kind {
            1 => CoreError::config("self-test configuration error: option `x` is wrong"),
            2 => CoreError::retryable("self-test retryable error: VTGate unreachable"),
            3 => CoreError::fatal("self-test fatal error").with_source(
                CoreError::fatal("middle cause").with_source(std::io::Error::other("root cause")),
            ),
            4 => panic!("self-test panic"),
            5 => {
                // One event per level, for the log forwarding tests; from a native thread too.
                tracing::error!(kind, "self-test error");
                tracing::warn!(kind, "self-test warn");
                tracing::info!(kind, text = "☕ 𝄞", "self-test info");
                tracing::debug!(kind, "self-test debug");
                tracing::trace!(kind, "self-test trace");
                std::thread::Builder::new()
                    .name("vitess-cdc-selftest".into())
                    .spawn(|| tracing::info!("self-test info from a native thread"))
                    .map_err(|e| CoreError::fatal(format!("cannot spawn: {e}")))?
                    .join()
                    .map_err(|_| CoreError::fatal("self-test thread panicked"))?;
                return Ok(env.new_string("logged")?);
            }
            _ => {
                return Err(BridgeError::IllegalArgument(format!(
                    "kind must be 1 to 5, was {kind}"
                )))
            }
        };
        Err(BridgeError::Core(err))
    })
    .resolve::<ThrowVitessException>()
}

/// 0 the stream's reader, 1 a capture's log task, 2 a capture's chunk task.
fn task(task: jint) -> BridgeResult<Task> {
    Ok(match task {
        0 => Task::Reader,
        1 => Task::CaptureLog,
        2 => Task::CaptureChunk,
        _ => {
            return Err(BridgeError::IllegalArgument(format!(
                "task must be 0 (reader), 1 (capture log) or 2 (capture chunk), was {task}"
            )))
        }
    })
}

/// The next poll of a background task of `task`'s kind, in any stream of this library copy,
/// panics (once): the fault-injection hook of the core (`supervise::faults`).
extern "system" fn native_inject_panic<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, kind: jint) {
    env.with_env(|_env| {
        faults::panic_next(task(kind)?);
        Ok::<_, BridgeError>(())
    })
    .resolve::<ThrowVitessException>()
}

/// Whether a panic injected for `task` still waits for a task of that kind to run.
extern "system" fn native_panic_armed<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    kind: jint,
) -> jboolean {
    env.with_env(|_env| Ok::<_, BridgeError>(faults::armed(task(kind)?)))
        .resolve::<ThrowVitessException>()
}
