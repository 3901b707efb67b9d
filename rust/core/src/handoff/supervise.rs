// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Background tasks that cannot die silently.
//!
//! A stream's work runs in tokio tasks nobody joins: the [`crate::blocking`] reader, a capture's
//! log task and its chunk tasks. A panic in one of them used to end the task and nothing else: its
//! channel stayed open (other senders held it), so the consumer polled empty batches forever. Each
//! such task now runs inside [`catch`], which turns a panic into a [`Panic`] carrying the panic's
//! message and location; the task's owner sends it on as a fatal error
//! ([`ErrorCode::Internal`]) to whoever reads the task's output, so the next `poll` fails with it.
//!
//! The location is not in a panic's payload; the panic hook installed by [`install_panic_hook`]
//! (chained before the previous hook, which still runs) leaves it in a thread-local that [`catch`]
//! reads on the same thread, and logs every panic through `tracing` (the JNI library forwards
//! that to Java's SLF4J). [`catch`] costs one `catch_unwind` frame per poll: nothing on the
//! happy path.
//!
//! With the `fault-injection` feature (tests only: the JNI `diagnostics` feature enables it),
//! [`faults`] makes the next poll of a chosen task panic, to prove all of this end to end.

use crate::error::{Error, ErrorCode};
use futures::FutureExt;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::panic::AssertUnwindSafe;

/// The background tasks of the core, by what they do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// The reader of a [`crate::blocking::BlockingStream`]: reads VTGate and queues batches.
    Reader,
    /// A capture's log: the change stream beside the chunks.
    CaptureLog,
    /// A capture's chunk: one side stream reading a key range.
    CaptureChunk,
}

impl Task {
    pub fn name(self) -> &'static str {
        match self {
            Task::Reader => "the stream's reader task",
            Task::CaptureLog => "the capture's log task",
            Task::CaptureChunk => "a capture's chunk task",
        }
    }
}

/// A task's panic: what it said and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Panic {
    pub task: Task,
    pub message: String,
    /// `file:line:column`, when the panic hook saw it.
    pub location: Option<String>,
}

impl Panic {
    /// The fatal error a consumer gets: a bug, never retried.
    pub fn into_error(self) -> Error {
        Error::fatal(format!(
            "{} panicked at {}: {} — a bug in vitess-cdc; the stream stopped (please report it with this message)",
            self.task.name(),
            self.location.as_deref().unwrap_or("an unknown location"),
            self.message
        ))
        .with_code(ErrorCode::Internal)
    }
}

thread_local! {
    /// Where the last panic on this thread happened (set by the hook, taken by [`catch`]).
    static LAST_LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The hook is logging: a panic inside the logging must not log again.
    static IN_HOOK: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once per process, or per copy of a library that links the core) a panic hook that
/// logs the panic through `tracing` and remembers its location for [`catch`], then calls the hook
/// that was installed before it.
pub fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()));
            let _ = LAST_LOCATION.try_with(|l| *l.borrow_mut() = location.clone());
            if !IN_HOOK.with(|h| h.replace(true)) {
                let message = payload_message(info.payload());
                let thread = std::thread::current();
                tracing::error!(
                    target: "vitess_cdc_core::panic",
                    thread = thread.name().unwrap_or("<unnamed>"),
                    location = location.as_deref().unwrap_or("unknown"),
                    "panic: {message}"
                );
                IN_HOOK.with(|h| h.set(false));
            }
            previous(info);
        }));
    });
}

fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Runs `work` as `task`; a panic while polling it ends it with `Err` (its state is dropped).
pub async fn catch<F: Future>(task: Task, work: F) -> Result<F::Output, Panic> {
    let mut work = std::pin::pin!(work);
    let polled = std::future::poll_fn(move |cx| {
        #[cfg(feature = "fault-injection")]
        faults::hit(task);
        work.as_mut().poll(cx)
    });
    match AssertUnwindSafe(polled).catch_unwind().await {
        Ok(out) => Ok(out),
        Err(payload) => {
            let location = LAST_LOCATION.with(|l| l.borrow_mut().take());
            let message = payload_message(payload.as_ref());
            // Dropping a payload can panic too; it must not take the caller with it.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(|| drop(payload)));
            Err(Panic {
                task,
                message,
                location,
            })
        }
    }
}

/// [`catch`] for a task that reports on a channel: a panic is sent on `tx` as `on_panic` of its
/// fatal error, so the receiver fails with it instead of waiting for a report that never comes.
pub async fn reporting<F, T>(
    task: Task,
    work: F,
    tx: tokio::sync::mpsc::Sender<T>,
    on_panic: impl FnOnce(Error) -> T,
) where
    F: Future<Output = ()>,
{
    if let Err(panic) = catch(task, work).await {
        let _ = tx.send(on_panic(panic.into_error())).await;
    }
}

/// Makes a chosen task panic, for tests (feature `fault-injection`).
#[cfg(feature = "fault-injection")]
pub mod faults {
    use super::Task;
    use std::sync::atomic::{AtomicBool, Ordering};

    static ARMED: [AtomicBool; 3] = [
        AtomicBool::new(false),
        AtomicBool::new(false),
        AtomicBool::new(false),
    ];

    fn slot(task: Task) -> &'static AtomicBool {
        &ARMED[match task {
            Task::Reader => 0,
            Task::CaptureLog => 1,
            Task::CaptureChunk => 2,
        }]
    }

    /// The next poll of any task of this kind (in this process) panics, once.
    pub fn panic_next(task: Task) {
        slot(task).store(true, Ordering::Release);
    }

    /// Whether a panic is still armed for `task` (no task of that kind was polled since).
    pub fn armed(task: Task) -> bool {
        slot(task).load(Ordering::Acquire)
    }

    pub(super) fn hit(task: Task) {
        let s = slot(task);
        if s.load(Ordering::Relaxed) && s.swap(false, Ordering::AcqRel) {
            panic!("injected panic in {} (fault injection)", task.name());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn a_panic_becomes_a_fatal_internal_error_with_its_message_and_location() {
        install_panic_hook();
        let line = line!() + 3;
        let out = rt().block_on(catch(Task::Reader, async {
            tokio::task::yield_now().await;
            panic!("boom {}", 42);
        }));
        let panic = out.expect_err("caught");
        assert_eq!(panic.message, "boom 42");
        let location = panic.location.clone().expect("the hook saw where");
        assert!(
            location.ends_with(&format!("supervise.rs:{line}:13")),
            "{location}"
        );
        let e = panic.into_error();
        assert_eq!(e.kind, crate::ErrorKind::Fatal);
        assert_eq!(e.code, ErrorCode::Internal);
        assert!(
            e.message
                .starts_with("the stream's reader task panicked at ")
                && e.message.contains("supervise.rs:")
                && e.message.contains(": boom 42"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_task_that_ends_normally_is_untouched() {
        let out = rt().block_on(catch(Task::CaptureLog, async { 7 }));
        assert_eq!(out, Ok(7));
    }

    #[test]
    fn a_reporting_task_sends_its_panic_to_the_receiver() {
        install_panic_hook();
        let rt = rt();
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Result<(), Error>>(1);
        // The receiver also holds a sender (as a capture does): only the report can end the wait.
        let _kept = tx.clone();
        rt.spawn(reporting(
            Task::CaptureChunk,
            async { panic!("chunk bug") },
            tx,
            Err,
        ));
        let got = rt
            .block_on(async {
                tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv()).await
            })
            .expect("reported in time")
            .expect("a report");
        let e = got.expect_err("a failure");
        assert!(
            e.message.contains("a capture's chunk task panicked at")
                && e.message.contains("chunk bug"),
            "{}",
            e.message
        );
    }
}
