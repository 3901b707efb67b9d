// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The native methods of `io.vitesscdc.nativeio.NativeStream` and their registration.
//!
//! Each entry point is a two-liner: `with_env` (catches panics) around an `inner_*` function that
//! returns a [`BridgeResult`], resolved by [`ThrowVitessException`].

use crate::error::{set_exception_package, BridgeError, BridgeResult, ThrowVitessException};
use crate::handle::Registry;
use crate::stream::{DynStreamHandle, PollOutcome, StreamHandle};
use jni::objects::{JByteArray, JByteBuffer, JClass, JObjectArray, JString, JValue};
use jni::strings::JNIString;
use jni::sys::{jint, jlong};
use jni::{jni_sig, jni_str, Env, EnvUnowned, NativeMethod};
use std::ffi::c_void;
use std::sync::Arc;
use std::time::Duration;
use vitess_cdc_core::batch::BatchOut;
use vitess_cdc_core::Error as CoreError;

/// Default JVM name of the class declaring the natives (before any relocation).
pub const DEFAULT_NATIVES_CLASS: &str = "io/vitesscdc/nativeio/NativeStream";

/// System property through which `NativeLibrary` names the (possibly relocated) natives class.
/// It must not start with the connector's package name: shading would relocate the Java string.
pub const NATIVES_CLASS_PROPERTY: &str = "vitesscdc.jni.natives-class";

/// System property in which a failed `JNI_OnLoad` leaves its reason for `NativeLibrary` (the JVM
/// itself only reports "unsupported JNI version").
pub const LOAD_ERROR_PROPERTY: &str = "vitesscdc.jni.load-error";

/// Every open stream of this library copy.
pub static STREAMS: Registry<DynStreamHandle> = Registry::new();

/// Registers the natives; called from `JNI_OnLoad` on the thread running `System.load`, where
/// `FindClass` uses the class loader that is loading the library. Returns the JVM name of the
/// (possibly relocated) natives class.
pub fn register(env: &mut Env<'_>) -> jni::errors::Result<String> {
    let class_name = natives_class_name(env)?;
    set_exception_package(&class_name);
    let class = env.find_class(JNIString::new(&class_name))?;
    // SAFETY: each function pointer below has exactly the parameter and return types its JNI
    // signature describes, with `JClass` as the second parameter (all methods are static).
    let methods = unsafe {
        [
            NativeMethod::from_raw_parts(
                jni_str!("nativeOpen"),
                jni_str!("(Ljava/lang/String;[[B)J"),
                native_open as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePoll"),
                jni_str!("(JLjava/nio/ByteBuffer;J)I"),
                native_poll as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePollHeap"),
                jni_str!("(J[BJ)I"),
                native_poll_heap as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePositionsJson"),
                jni_str!("(J)Ljava/lang/String;"),
                native_positions_json as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeMetricsJson"),
                jni_str!("(J)Ljava/lang/String;"),
                native_metrics_json as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeWake"),
                jni_str!("(J)V"),
                native_wake as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeClose"),
                jni_str!("(J)V"),
                native_close as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeOpenStreams"),
                jni_str!("()I"),
                native_open_streams as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeSetLogLevel"),
                jni_str!("(I)V"),
                native_set_log_level as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeLogState"),
                jni_str!("()Ljava/nio/ByteBuffer;"),
                native_log_state as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeDrainLogs"),
                jni_str!("(Ljava/nio/ByteBuffer;)I"),
                native_drain_logs as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeKeyOrders"),
                jni_str!("(Ljava/lang/String;)Ljava/lang/String;"),
                native_key_orders as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePlanStart"),
                jni_str!("(Ljava/lang/String;Ljava/lang/String;)[Ljava/lang/Object;"),
                native_plan_start as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePositionFacts"),
                jni_str!("([B)I"),
                native_position_facts as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePositionTransactionCount"),
                jni_str!("([B)J"),
                native_position_transaction_count as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePositionCopyTables"),
                jni_str!("([B)Ljava/lang/String;"),
                native_position_copy_tables as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeCopyEstimates"),
                jni_str!("(Ljava/lang/String;)Ljava/lang/String;"),
                native_copy_estimates as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePositionJson"),
                jni_str!("([B)Ljava/lang/String;"),
                native_position_json as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativePositionFromJson"),
                jni_str!("(Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;)[B"),
                native_position_from_json as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeCarryCaptures"),
                jni_str!("([B[[B)[B"),
                native_carry_captures as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeCheckSpecificOffsets"),
                jni_str!("(Ljava/lang/String;Ljava/lang/String;)V"),
                native_check_specific_offsets as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeCheckOptions"),
                jni_str!("(Ljava/lang/String;)V"),
                native_check_options as *mut c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("nativeLibraryVersion"),
                jni_str!("()Ljava/lang/String;"),
                native_library_version as *mut c_void,
            ),
        ]
    };
    // SAFETY: see above; the methods are declared `static native` in NativeStream.
    unsafe { env.register_native_methods(&class, &methods)? };
    Ok(class_name)
}

/// Leaves `message` in [`LOAD_ERROR_PROPERTY`]; best effort.
pub fn report_load_error(env: &mut Env<'_>, message: &str) {
    if env.exception_check() {
        env.exception_clear();
    }
    let result = (|| -> jni::errors::Result<()> {
        let key = env.new_string(LOAD_ERROR_PROPERTY)?;
        let value = env.new_string(message)?;
        env.call_static_method(
            jni_str!("java/lang/System"),
            jni_str!("setProperty"),
            jni_sig!("(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;"),
            &[JValue::Object(&key), JValue::Object(&value)],
        )?;
        Ok(())
    })();
    if result.is_err() && env.exception_check() {
        env.exception_clear();
    }
}

/// Reads [`NATIVES_CLASS_PROPERTY`]; falls back to the unrelocated name.
fn natives_class_name(env: &mut Env<'_>) -> jni::errors::Result<String> {
    let key = env.new_string(NATIVES_CLASS_PROPERTY)?;
    let value = env
        .call_static_method(
            jni_str!("java/lang/System"),
            jni_str!("getProperty"),
            jni_sig!("(Ljava/lang/String;)Ljava/lang/String;"),
            &[JValue::Object(&key)],
        )?
        .l()?;
    if value.is_null() {
        return Ok(DEFAULT_NATIVES_CLASS.to_string());
    }
    let value = env.cast_local::<JString>(value)?;
    let name = value.try_to_string(env)?;
    Ok(if name.is_empty() {
        DEFAULT_NATIVES_CLASS.to_string()
    } else {
        name.replace('.', "/")
    })
}

extern "system" fn native_open<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    options: JString<'l>,
    positions: JObjectArray<'l, JByteArray<'l>>,
) -> jlong {
    env.with_env(|env| inner_open(env, &options, &positions))
        .resolve::<ThrowVitessException>()
}

/// Start positions come as `byte[][]`, each the core's binary form exactly as a mark carried it:
/// no JSON (and no base64 inside JSON) between a checkpoint and the stream, so nothing on the way
/// can read, re-encode or alter a position.
fn inner_open(
    env: &mut Env<'_>,
    options: &JString<'_>,
    positions: &JObjectArray<'_, JByteArray<'_>>,
) -> BridgeResult<jlong> {
    let positions = crate::positions::decode_all(env, positions)?;
    let json = crate::positions::string(env, options, "optionsJson")?;
    let stream = StreamHandle::open_capturing(crate::options::parse_with_start(&json, positions)?)?;
    Ok(STREAMS.insert(Arc::new(stream)))
}

/// Where each shard of a stream with these options (and the user's specific offsets, or null)
/// starts: `Object[]` pairs of shard and position bytes (see [`crate::positions::plan_start`]).
/// Connects and plans like `nativeOpen`; opens a VStream only to resolve `current`.
extern "system" fn native_plan_start<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    options: JString<'l>,
    specific_offsets: JString<'l>,
) -> JObjectArray<'l> {
    env.with_env(|env| {
        let options = stream_options(env, &options)?;
        let offsets = if specific_offsets.is_null() {
            None
        } else {
            Some(specific_offsets.try_to_string(env)?)
        };
        crate::positions::plan_start(env, &options, offsets.as_deref())
    })
    .resolve::<ThrowVitessException>()
}

/// The fact bits of a position (`vitess_cdc_core::position::facts`); also checks the bytes.
extern "system" fn native_position_facts<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    position: JByteArray<'l>,
) -> jint {
    env.with_env(|env| {
        let p = crate::positions::decode(env, &position)?;
        Ok::<_, BridgeError>(jint::from(vitess_cdc_core::position::facts::of(&p)))
    })
    .resolve::<ThrowVitessException>()
}

/// The transactions in a position's GTID set (the base of a record's order rank); -1 for a
/// position that is not a MySQL GTID set (MariaDB, file positions: no count exists). Corrupt
/// bytes throw.
extern "system" fn native_position_transaction_count<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    position: JByteArray<'l>,
) -> jlong {
    env.with_env(|env| {
        let p = crate::positions::decode(env, &position)?;
        // A count beyond i64 cannot occur in practice; it saturates rather than turn negative.
        let count = p
            .transaction_count()
            .map_or(-1, |n| jlong::try_from(n).unwrap_or(jlong::MAX));
        Ok::<_, BridgeError>(count)
    })
    .resolve::<ThrowVitessException>()
}

/// The copy progress of a position for metrics, as JSON (`crate::positions::copy_tables_json`).
extern "system" fn native_position_copy_tables<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    position: JByteArray<'l>,
) -> JString<'l> {
    env.with_env(|env| {
        let p = crate::positions::decode(env, &position)?;
        Ok::<_, BridgeError>(env.new_string(crate::positions::copy_tables_json(&p))?)
    })
    .resolve::<ThrowVitessException>()
}

/// The tables a stream with these options would copy and their estimated rows per shard, as
/// JSON (`crate::positions::copy_estimates_json`). Connects and closes; opens no VStream.
extern "system" fn native_copy_estimates<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    options: JString<'l>,
) -> JString<'l> {
    env.with_env(|env| {
        let options = stream_options(env, &options)?;
        let estimates = vitess_cdc_core::blocking::copy_estimates(&options)?;
        Ok::<_, BridgeError>(env.new_string(crate::positions::copy_estimates_json(&estimates))?)
    })
    .resolve::<ThrowVitessException>()
}

/// The JSON rendering of a position, for people and logs.
extern "system" fn native_position_json<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    position: JByteArray<'l>,
) -> JString<'l> {
    env.with_env(|env| {
        let p = crate::positions::decode(env, &position)?;
        Ok::<_, BridgeError>(env.new_string(crate::positions::json(&p)?)?)
    })
    .resolve::<ThrowVitessException>()
}

/// A position JSON an older checkpoint stored as text (of `keyspace`/`shard`), as bytes.
extern "system" fn native_position_from_json<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    keyspace: JString<'l>,
    shard: JString<'l>,
    json: JString<'l>,
) -> JByteArray<'l> {
    env.with_env(|env| {
        let keyspace = crate::positions::string(env, &keyspace, "keyspace")?;
        let shard = crate::positions::string(env, &shard, "shard")?;
        let json = crate::positions::string(env, &json, "positionJson")?;
        let bytes = crate::positions::from_saved_json(&keyspace, &shard, &json)?;
        Ok::<_, BridgeError>(env.byte_array_from_slice(&bytes)?)
    })
    .resolve::<ThrowVitessException>()
}

/// A new shard's start position (from a reshard journal) with the captures it goes on with, from
/// the final positions of the shards that ended at the journal (`vitess_cdc_core::snapshot::carry`).
extern "system" fn native_carry_captures<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    started: JByteArray<'l>,
    ended: JObjectArray<'l, JByteArray<'l>>,
) -> JByteArray<'l> {
    env.with_env(|env| {
        let started = crate::positions::decode(env, &started)?;
        let ended = crate::positions::decode_all(env, &ended)?;
        let carried = vitess_cdc_core::snapshot::carry::carry_captures(&started, &ended)?;
        Ok::<_, BridgeError>(env.byte_array_from_slice(&carried.to_bytes())?)
    })
    .resolve::<ThrowVitessException>()
}

/// Checks the user's specific offsets (VGTID JSON) for `keyspace` without a server.
extern "system" fn native_check_specific_offsets<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    keyspace: JString<'l>,
    json: JString<'l>,
) {
    env.with_env(|env| {
        let keyspace = crate::positions::string(env, &keyspace, "keyspace")?;
        let json = crate::positions::string(env, &json, "specificOffsets")?;
        crate::positions::check_specific_offsets(&keyspace, &json)
    })
    .resolve::<ThrowVitessException>()
}

/// Checks stream options (the JSON `NativeStream.open` takes) without a server: the same checks
/// every stream makes when it opens, for failing at planning instead of when the job starts.
extern "system" fn native_check_options<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    options: JString<'l>,
) {
    env.with_env(|env| {
        let json = crate::positions::string(env, &options, "optionsJson")?;
        let options = crate::options::parse(&json)?;
        vitess_cdc_core::stream::validate_options(&options)?;
        Ok::<_, BridgeError>(())
    })
    .resolve::<ThrowVitessException>()
}

/// Which selected tables have an exactly reproduced primary-key order (JSON, see
/// [`crate::keyorders`]); connects, queries and closes, without opening a VStream.
extern "system" fn native_key_orders<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    options: JString<'l>,
) -> JString<'l> {
    env.with_env(|env| inner_key_orders(env, &options))
        .resolve::<ThrowVitessException>()
}

fn inner_key_orders<'l>(env: &mut Env<'l>, options: &JString<'_>) -> BridgeResult<JString<'l>> {
    let answer = crate::keyorders::read(&stream_options(env, options)?)?;
    Ok(env.new_string(answer)?)
}

/// The options JSON Java passes to `nativeOpen` and `nativeKeyOrders`, parsed.
fn stream_options(
    env: &mut Env<'_>,
    options: &JString<'_>,
) -> BridgeResult<vitess_cdc_core::StreamOptions> {
    if options.is_null() {
        return Err(BridgeError::IllegalArgument("optionsJson is null".into()));
    }
    let json = options.try_to_string(env)?;
    Ok(crate::options::parse(&json)?)
}

/// The hot path: one call per batch. It builds no `Env` (see [`hot`]).
extern "system" fn native_poll<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    handle: jlong,
    mut buffer: JByteBuffer<'l>,
    timeout_millis: jlong,
) -> jint {
    let raw = env.as_raw();
    hot(&mut env, || {
        let stream = STREAMS.get(handle)?;
        let timeout = poll_timeout(timeout_millis)?;
        // SAFETY: `raw` is this native call's JNIEnv and `buffer` one of its local references.
        let out = unsafe { raw_direct_buffer(raw, &mut buffer)? };
        poll_result(stream.poll(out, timeout)?)
    })
}

/// A poll into a Java heap array: for an event too large for the reader's direct buffer (a row
/// near VTGate's message limit), so that it crosses into Java's heap, which Flink's memory
/// budget holds, instead of into a direct buffer grown for it (docs/batch-format.md, "Batch
/// boundaries and sizes"). Not the hot path: it builds an `Env` for the region writes.
extern "system" fn native_poll_heap<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    handle: jlong,
    array: JByteArray<'l>,
    timeout_millis: jlong,
) -> jint {
    env.with_env(|env| -> BridgeResult<jint> {
        let stream = STREAMS.get(handle)?;
        let timeout = poll_timeout(timeout_millis)?;
        if array.is_null() {
            return Err(BridgeError::IllegalArgument("array is null".into()));
        }
        let capacity = array.len(env)?.min(i32::MAX as usize);
        let mut out = HeapArrayOut {
            env,
            array: &array,
            capacity,
        };
        poll_result(stream.poll_to(&mut out, timeout)?)
    })
    .resolve::<ThrowVitessException>()
}

/// A Java `byte[]` as a batch's destination, written with `SetByteArrayRegion`: no pinning and
/// no critical region, so a poll that waits or takes the stream's lock never holds up the GC.
struct HeapArrayOut<'a, 'e, 'l> {
    env: &'a mut Env<'e>,
    array: &'a JByteArray<'l>,
    capacity: usize,
}

impl BatchOut for HeapArrayOut<'_, '_, '_> {
    fn capacity(&self) -> usize {
        self.capacity
    }

    fn put(&mut self, at: usize, bytes: &[u8]) -> vitess_cdc_core::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        // SAFETY: `u8` and `i8` (`jbyte`) have the same size and alignment; the slice is only read.
        let signed =
            unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<i8>(), bytes.len()) };
        let start = i32::try_from(at).map_err(|_| {
            CoreError::fatal(format!(
                "internal error: a batch offset {at} beyond a Java array"
            ))
        })?;
        self.array.set_region(self.env, start, signed).map_err(|e| {
            CoreError::fatal(format!(
                "copying {} bytes of a batch into Java's array at {at} failed: {e}",
                bytes.len()
            ))
        })
    }
}

/// Runs an entry point's work without building a `jni` `Env` on the success path.
///
/// `EnvUnowned::with_env(..).resolve()` creates two attach guards, each a few thread-local
/// round trips (general-dynamic TLS in a cdylib): about 100 ns of a call that otherwise costs
/// 15 ns. Work that needs no JNI calls, or only [`raw_direct_buffer`], runs here inside
/// `catch_unwind`; only an error or a panic goes through `with_env` and the usual policy
/// ([`ThrowVitessException`]), so it is thrown exactly as from any other entry point.
pub(crate) fn hot<'l, T: Default>(
    env: &mut EnvUnowned<'l>,
    work: impl FnOnce() -> BridgeResult<T>,
) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
        Ok(Ok(value)) => value,
        Ok(Err(e)) => env
            .with_env(|_env| Err::<T, BridgeError>(e))
            .resolve::<ThrowVitessException>(),
        // Re-raised inside `with_env`, whose `catch_unwind` hands it to the policy's `on_panic`
        // (`resume_unwind` does not run the panic hook again).
        Err(payload) => env
            .with_env(|_env| -> BridgeResult<T> { std::panic::resume_unwind(payload) })
            .resolve::<ThrowVitessException>(),
    }
}

/// The memory of a direct buffer, read through the raw JNI function table: no `Env`, and no
/// `ExceptionCheck` before each call (a native method is entered without a pending exception,
/// and these two functions throw none). At most `i32::MAX` bytes, so lengths fit a Java int.
///
/// # Safety
/// `raw` must be the `JNIEnv` of the running native call and `buffer` one of its local
/// references. The slice must not outlive the call; Java must not touch the buffer meanwhile.
pub(crate) unsafe fn raw_direct_buffer<'b>(
    raw: *mut jni::sys::JNIEnv,
    buffer: &'b mut JByteBuffer<'_>,
) -> BridgeResult<&'b mut [u8]> {
    if buffer.is_null() {
        return Err(BridgeError::IllegalArgument("buffer is null".into()));
    }
    // SAFETY: `raw` is a valid JNIEnv (caller), whose function table is valid for JNI >= 1.4.
    let (address, capacity) = unsafe {
        let interface = *raw;
        let address = ((*interface).v1_4.GetDirectBufferAddress)(raw, buffer.as_raw());
        let capacity = ((*interface).v1_4.GetDirectBufferCapacity)(raw, buffer.as_raw());
        (address.cast::<u8>(), capacity)
    };
    if address.is_null() || capacity < 0 {
        return Err(BridgeError::IllegalArgument(
            "a direct ByteBuffer is needed".into(),
        ));
    }
    let capacity = usize::try_from(capacity)
        .unwrap_or(0)
        .min(i32::MAX as usize);
    // SAFETY: the JVM guarantees `capacity` bytes at `address` for a direct buffer, and the
    // buffer object (a local reference of this call) keeps the memory alive until we return.
    Ok(unsafe { std::slice::from_raw_parts_mut(address, capacity) })
}

pub(crate) fn poll_timeout(timeout_millis: jlong) -> BridgeResult<Duration> {
    u64::try_from(timeout_millis)
        .map(Duration::from_millis)
        .map_err(|_| {
            BridgeError::IllegalArgument(format!(
                "timeoutMillis must be >= 0, was {timeout_millis}"
            ))
        })
}

/// The Java return code of a poll (docs/native-bridge.md).
pub(crate) fn poll_result(outcome: PollOutcome) -> BridgeResult<jint> {
    Ok(match outcome {
        PollOutcome::Batch(n) => n as jint,
        PollOutcome::Timeout => 0,
        PollOutcome::End => -1,
        PollOutcome::NeedCapacity(n) => {
            let n = i32::try_from(n).map_err(|_| {
                BridgeError::Core(CoreError::fatal(format!(
                    "a single event needs {n} bytes, more than a Java buffer can hold"
                )))
            })?;
            -n.max(2)
        }
    })
}

extern "system" fn native_positions_json<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> JString<'l> {
    env.with_env(|env| {
        let stream = STREAMS.get(handle)?;
        let json = serde_json::to_string(&stream.source().positions())
            .map_err(|e| CoreError::fatal(format!("cannot render positions as JSON: {e}")))?;
        Ok::<_, BridgeError>(env.new_string(json)?)
    })
    .resolve::<ThrowVitessException>()
}

extern "system" fn native_metrics_json<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    handle: jlong,
) -> JString<'l> {
    env.with_env(|env| {
        let stream = STREAMS.get(handle)?;
        let json = metrics_json(
            &stream.source().metrics(),
            stream.source().capture_progress().as_ref(),
        );
        Ok::<_, BridgeError>(env.new_string(json)?)
    })
    .resolve::<ThrowVitessException>()
}

/// The metrics snapshot as a flat JSON object (field names as in `MetricsSnapshot`), with the
/// chunked snapshot's progress per shard under `capture` when the stream captures (field names
/// as in `ShardProgress`).
fn metrics_json(
    m: &vitess_cdc_core::metrics::MetricsSnapshot,
    capture: Option<&vitess_cdc_core::snapshot::CaptureProgress>,
) -> String {
    let mut json = serde_json::json!({
        "events": m.events,
        "bytes": m.bytes,
        "changes": m.changes,
        "transactions": m.transactions,
        "reconnects": m.reconnects,
        "copy_resumes": m.copy_resumes,
        "lag_millis": m.lag_millis,
        "last_event_millis": m.last_event_millis,
        "rows_copied": m.rows_copied,
    });
    if let Some(c) = capture {
        json["capture"] = serde_json::json!(c.shards);
        json["signals_elsewhere"] = serde_json::json!(c.signals_elsewhere);
    }
    json.to_string()
}

/// A no-op for an unknown handle: a wake that races a close (Flink's fetcher does this at
/// shutdown) must not fail.
extern "system" fn native_wake<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, handle: jlong) {
    env.with_env(|_env| {
        if let Ok(stream) = STREAMS.get(handle) {
            stream.source().wake();
        }
        Ok::<_, BridgeError>(())
    })
    .resolve::<ThrowVitessException>()
}

/// Idempotent: an unknown handle (already closed) is a no-op.
extern "system" fn native_close<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, handle: jlong) {
    env.with_env(|_env| {
        if let Some(stream) = STREAMS.remove(handle) {
            stream.close();
        }
        Ok::<_, BridgeError>(())
    })
    .resolve::<ThrowVitessException>()
}

/// Streams opened and not yet closed in this library copy (leak checks).
extern "system" fn native_open_streams<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>) -> jint {
    env.with_env(|_env| Ok::<_, BridgeError>(STREAMS.len().min(i32::MAX as usize) as jint))
        .resolve::<ThrowVitessException>()
}

/// The most verbose level SLF4J has enabled for native loggers (0 off, 1 error .. 5 trace).
extern "system" fn native_set_log_level<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, level: jint) {
    env.with_env(|_env| {
        crate::logs::LOGS.set_max_level(level.clamp(0, i32::from(crate::logs::LEVEL_TRACE)) as u8);
        Ok::<_, BridgeError>(())
    })
    .resolve::<ThrowVitessException>()
}

/// A direct buffer over the log queue's counters (pending, dropped: native-endian `u64`s), so
/// Java can check for logs without a native call. Valid as long as this library copy is loaded,
/// which outlives every class of the loader that loaded it.
extern "system" fn native_log_state<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
) -> JByteBuffer<'l> {
    env.with_env(|env| {
        let state = crate::logs::LOGS.state_ptr();
        // SAFETY: `state` points to the 16-byte LogState inside the process-wide LOGS buffer,
        // which is never freed while the library is loaded. Java only reads it.
        let buffer = unsafe { env.new_direct_byte_buffer(state, 16)? };
        Ok::<_, BridgeError>(buffer)
    })
    .resolve::<ThrowVitessException>()
}

/// Copies queued log records into `buffer` (format in `logs`); returns the bytes written, 0 when
/// there was nothing.
extern "system" fn native_drain_logs<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    mut buffer: JByteBuffer<'l>,
) -> jint {
    env.with_env(|env| {
        let out = direct_buffer(env, &mut buffer)?;
        Ok::<_, BridgeError>(crate::logs::LOGS.drain(out) as jint)
    })
    .resolve::<ThrowVitessException>()
}

/// The memory of a direct buffer (at most `i32::MAX` bytes, so lengths fit a Java int).
///
/// The slice borrows the local reference to `buffer` exclusively and lives no longer than the
/// native call. Java must not touch the buffer concurrently (callers document single-thread use).
pub(crate) fn direct_buffer<'b>(
    env: &mut Env<'_>,
    buffer: &'b mut JByteBuffer<'_>,
) -> BridgeResult<&'b mut [u8]> {
    if buffer.is_null() {
        return Err(BridgeError::IllegalArgument("buffer is null".into()));
    }
    let address = env
        .get_direct_buffer_address(buffer)
        .map_err(|_| BridgeError::IllegalArgument("a direct ByteBuffer is needed".into()))?;
    let capacity = env
        .get_direct_buffer_capacity(buffer)?
        .min(i32::MAX as usize);
    // SAFETY: the JVM guarantees `capacity` bytes at `address` for a direct buffer, and the
    // buffer object (a local reference of this call) keeps the memory alive until we return.
    Ok(unsafe { std::slice::from_raw_parts_mut(address, capacity) })
}

/// The library's name and version, e.g. `vitess-cdc-jni 0.1.0`.
extern "system" fn native_library_version<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
) -> JString<'l> {
    env.with_env(|env| {
        Ok::<_, BridgeError>(env.new_string(concat!("vitess-cdc-jni ", env!("CARGO_PKG_VERSION")))?)
    })
    .resolve::<ThrowVitessException>()
}
