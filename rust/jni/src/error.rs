// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! One error type for the bridge and one policy that turns it into a Java exception.
//!
//! | Rust | Java |
//! |---|---|
//! | core `ErrorKind::Config` | `ConfigurationException` (non-recoverable for Flink: no restart) |
//! | core `ErrorKind::Retryable` | `RetryableException` |
//! | core `ErrorKind::Fatal`, unrepresentable data, JNI failures, panics | `FatalException` |
//! | closed / foreign / garbage handle | `java.lang.IllegalStateException` |
//! | bad argument (heap buffer, negative timeout) | `java.lang.IllegalArgumentException` |
//!
//! Every exception of a core error carries the core's [`vitess_cdc_core::ErrorCode`] by name
//! (`VitessCdcException.code()`), so Java decides on the code, never on the message text.
//!
//! The exception message is the error's full message (cause messages appended), and every cause
//! of the Rust chain is also rebuilt as a `NativeCause` below it, so both `getMessage()` and a
//! printed stack trace tell the whole story. A Java exception that is already pending (thrown by
//! a JNI call) is left as it is.

use jni::errors::ErrorPolicy;
use jni::objects::{JObject, JThrowable, JValue};
use jni::strings::JNIString;
use jni::{jni_sig, Env};
use std::any::Any;
use std::fmt;
use std::sync::OnceLock;
use vitess_cdc_core::{Error as CoreError, ErrorKind};

/// Everything a native entry point can fail with.
#[derive(Debug)]
pub enum BridgeError {
    /// An error of the core (or one the bridge raises with a core kind).
    Core(CoreError),
    /// A handle that is not (or no longer) registered.
    InvalidHandle(i64),
    /// A Java argument the bridge cannot use.
    IllegalArgument(String),
    /// A JNI call failed; `JavaException` means a Java exception is already pending.
    Jni(jni::errors::Error),
}

pub type BridgeResult<T> = std::result::Result<T, BridgeError>;

impl fmt::Display for BridgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BridgeError::Core(e) => f.write_str(&e.full_message()),
            BridgeError::InvalidHandle(h) => write!(
                f,
                "native stream handle {h:#x} is closed or was never opened by this library"
            ),
            BridgeError::IllegalArgument(m) => f.write_str(m),
            BridgeError::Jni(e) => write!(f, "JNI call failed: {e}"),
        }
    }
}

impl std::error::Error for BridgeError {}

impl From<jni::errors::Error> for BridgeError {
    fn from(e: jni::errors::Error) -> Self {
        BridgeError::Jni(e)
    }
}

impl From<CoreError> for BridgeError {
    fn from(e: CoreError) -> Self {
        BridgeError::Core(e)
    }
}

/// JVM name of the package holding the connector's exception classes, derived from the natives
/// class `JNI_OnLoad` registered (so it follows a relocation). One library copy serves one class
/// loader, so a process-wide static per copy is exact.
static EXCEPTION_PACKAGE: OnceLock<String> = OnceLock::new();

const DEFAULT_PACKAGE: &str = "io/vitesscdc/nativeio";

pub(crate) fn set_exception_package(natives_class: &str) {
    let package = natives_class
        .rsplit_once('/')
        .map(|(p, _)| p)
        .unwrap_or(DEFAULT_PACKAGE);
    let _ = EXCEPTION_PACKAGE.set(package.to_string());
}

fn exception_class(simple_name: &str) -> JNIString {
    let package = EXCEPTION_PACKAGE
        .get()
        .map(String::as_str)
        .unwrap_or(DEFAULT_PACKAGE);
    JNIString::new(format!("{package}/{simple_name}"))
}

/// Throws the Java exception for `err` unless one is pending already.
pub fn throw(env: &mut Env<'_>, err: BridgeError) {
    if env.exception_check() {
        return;
    }
    let outcome = match &err {
        BridgeError::Core(e) => {
            let class = match e.kind {
                ErrorKind::Config => "ConfigurationException",
                ErrorKind::Retryable => "RetryableException",
                ErrorKind::Fatal => "FatalException",
            };
            throw_with_causes(
                env,
                &exception_class(class),
                &e.full_message(),
                e.code.as_str(),
                &causes(e),
            )
        }
        BridgeError::InvalidHandle(_) => throw_plain(
            env,
            &JNIString::new("java/lang/IllegalStateException"),
            &err.to_string(),
        ),
        BridgeError::IllegalArgument(m) => throw_plain(
            env,
            &JNIString::new("java/lang/IllegalArgumentException"),
            m,
        ),
        BridgeError::Jni(jni::errors::Error::JavaException) => Ok(()),
        BridgeError::Jni(_) => throw_with_causes(
            env,
            &exception_class("FatalException"),
            &err.to_string(),
            vitess_cdc_core::ErrorCode::Unspecified.as_str(),
            &[],
        ),
    };
    if outcome.is_err() && !env.exception_check() {
        // Building the typed exception failed (class missing?): still never return silently.
        let _ = env.throw_new(
            JNIString::new("java/lang/RuntimeException"),
            JNIString::new(format!("vitess-cdc native error: {err}")),
        );
    }
}

/// The messages of `e`'s sources, outermost first.
fn causes(e: &CoreError) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = std::error::Error::source(e);
    while let Some(c) = cur {
        out.push(c.to_string());
        cur = c.source();
    }
    out
}

fn throw_plain(env: &mut Env<'_>, class: &JNIString, message: &str) -> jni::errors::Result<()> {
    match env.throw_new(class, JNIString::new(message)) {
        Ok(()) | Err(jni::errors::Error::JavaException) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Builds `class(message, cause, code)` with `causes` as a `NativeCause` chain and throws it.
///
/// Classes are resolved with JNI `FindClass`, which inside a native method uses the class loader
/// of the class declaring that method: the connector's own loader, whatever the thread's context
/// class loader is (name-based lookups in `jni` would consult the context loader first and could
/// pick up another job's copy of the exception classes).
fn throw_with_causes(
    env: &mut Env<'_>,
    class: &JNIString,
    message: &str,
    code: &str,
    causes: &[String],
) -> jni::errors::Result<()> {
    let sig = jni_sig!("(Ljava/lang/String;Ljava/lang/Throwable;)V");
    let coded = jni_sig!("(Ljava/lang/String;Ljava/lang/Throwable;Ljava/lang/String;)V");
    let mut cause = JObject::null();
    if !causes.is_empty() {
        let cause_class = env.find_class(exception_class("NativeCause"))?;
        for m in causes.iter().rev() {
            let jm = env.new_string(m)?;
            cause = env.new_object(
                &cause_class,
                &sig,
                &[JValue::Object(&jm), JValue::Object(&cause)],
            )?;
        }
    }
    let class = env.find_class(class)?;
    let jm = env.new_string(message)?;
    let jc = env.new_string(code)?;
    let ex = env.new_object(
        &class,
        &coded,
        &[
            JValue::Object(&jm),
            JValue::Object(&cause),
            JValue::Object(&jc),
        ],
    )?;
    let ex: JThrowable = env.cast_local::<JThrowable>(ex)?;
    match env.throw(ex) {
        Ok(()) | Err(jni::errors::Error::JavaException) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Text of a panic payload (`panic!("literal")` or `panic!("{}", x)`).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// The error policy of every entry point: typed exception for errors, `FatalException` for
/// panics, default return value (0 / null) in both cases.
pub struct ThrowVitessException;

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowVitessException {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: BridgeError,
    ) -> jni::errors::Result<T> {
        throw(env, err);
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let message = panic_message(payload.as_ref());
        // Dropping a payload can panic in theory; never let that escape.
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(payload))) {
            std::mem::forget(p);
        }
        throw(
            env,
            BridgeError::Core(CoreError::fatal(format!(
                "panic in the vitess-cdc native library (a bug, please report it): {message}"
            ))),
        );
        Ok(T::default())
    }
}
