// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Which stream a log line is about. A job may run many streams (a source per table, a reader
//! per subtask), and the threads that log — a stream's own runtime worker, or the consumer's
//! thread inside `open` and `poll` — say nothing of it. Each [`crate::blocking::BlockingStream`]
//! sets its label on its runtime's threads and, for the duration of a call, on the caller's; a
//! log layer (the JNI bridge's) reads [`current`] and names the stream in every line.

use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    static LABEL: RefCell<Option<Arc<str>>> = const { RefCell::new(None) };
}

/// The label of the stream this thread works for now, if any.
pub fn current() -> Option<Arc<str>> {
    LABEL.with(|l| l.borrow().clone())
}

/// Labels this thread for good (a stream's runtime threads, from `on_thread_start`).
pub fn set(label: Arc<str>) {
    LABEL.with(|l| *l.borrow_mut() = Some(label));
}

/// Labels this thread until the guard drops, then restores what it had (a consumer's thread may
/// call into several streams in turn).
pub fn scoped(label: &Arc<str>) -> Scoped {
    let previous = LABEL.with(|l| l.borrow_mut().replace(label.clone()));
    Scoped { previous }
}

/// Restores the thread's previous label when dropped.
pub struct Scoped {
    previous: Option<Arc<str>>,
}

impl Drop for Scoped {
    fn drop(&mut self) {
        let previous = self.previous.take();
        LABEL.with(|l| *l.borrow_mut() = previous);
    }
}

/// A stream's label: the consumer's name for it (a Flink operator and subtask), then what it
/// reads, e.g. `Source: orders (1/2) customer/-80,80- orders`.
pub fn of(
    consumer: Option<&str>,
    keyspace: &str,
    shards: &[String],
    tables: &[String],
    patterns: &[String],
) -> Arc<str> {
    let mut label = String::new();
    if let Some(c) = consumer.filter(|c| !c.is_empty()) {
        label.push_str(c);
        label.push(' ');
    }
    label.push_str(keyspace);
    label.push('/');
    label.push_str(if shards.is_empty() { "*" } else { "" });
    label.push_str(&shards.join(","));
    let selection: Vec<&str> = tables
        .iter()
        .map(String::as_str)
        .chain(patterns.iter().map(String::as_str))
        .collect();
    if !selection.is_empty() {
        label.push(' ');
        label.push_str(&selection.join(","));
    }
    label.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scoped_label_is_restored_and_threads_keep_their_own() {
        assert!(current().is_none());
        let a: Arc<str> = "a".into();
        let b: Arc<str> = "b".into();
        {
            let _a = scoped(&a);
            assert_eq!(current().as_deref(), Some("a"));
            {
                let _b = scoped(&b);
                assert_eq!(current().as_deref(), Some("b"));
            }
            assert_eq!(current().as_deref(), Some("a"));
            std::thread::spawn(|| assert!(current().is_none()))
                .join()
                .unwrap();
        }
        assert!(current().is_none());
    }

    #[test]
    fn a_label_names_the_consumer_and_what_the_stream_reads() {
        let shards = vec!["-80".to_string(), "80-".to_string()];
        assert_eq!(
            &*of(
                Some("Source: orders (1/2)"),
                "customer",
                &shards,
                &["orders".into()],
                &[]
            ),
            "Source: orders (1/2) customer/-80,80- orders"
        );
        assert_eq!(&*of(None, "ks", &[], &[], &["t_.*".into()]), "ks/* t_.*");
    }
}
