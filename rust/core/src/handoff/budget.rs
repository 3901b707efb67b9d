// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The byte budget between the background readers and the consumer of a [`BlockingStream`]
//! (`buffer_bytes`, the source's `buffer.size`).
//!
//! A reader asks for room *before* it reads the next message, for as many bytes as its last
//! batch held, and counts what it read once it has it. The consumer gives bytes back when it
//! takes events, or — when it says so with [`Budget::hold_until_recycled`] — only once it is
//! done with them (the JNI bridge: after the events were written into Java's buffer). So a
//! reader never holds a message it has no room for, and the consumer's events count until
//! they are freed: a stream of rows near VTGate's 16 MiB message limit holds one message while
//! Java holds the previous one, not three (docs/benchmarks.md, "Huge transactions").
//!
//! Every count is [`Event::approx_bytes`], the same function on both sides, so what is given
//! back is exactly what was counted.
//!
//! [`BlockingStream`]: super::blocking::BlockingStream

use crate::event::Event;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tokio::sync::Notify;

#[derive(Debug)]
pub struct Budget {
    limit: usize,
    outstanding: AtomicUsize,
    room: Notify,
    until_recycled: AtomicBool,
}

impl Budget {
    pub fn new(limit: usize) -> Self {
        Budget {
            limit: limit.max(1),
            outstanding: AtomicUsize::new(0),
            room: Notify::new(),
            until_recycled: AtomicBool::new(false),
        }
    }

    /// Events count until the consumer recycles them, not until it takes them.
    pub fn hold_until_recycled(&self) {
        self.until_recycled.store(true, Ordering::Release);
    }

    pub fn holds_until_recycled(&self) -> bool {
        self.until_recycled.load(Ordering::Acquire)
    }

    /// Bytes counted and not given back yet.
    pub fn outstanding(&self) -> usize {
        self.outstanding.load(Ordering::Acquire)
    }

    /// Whether a batch of `expected` bytes may be read now: it fits beside what is outstanding,
    /// or nothing is (a batch larger than the whole budget is read alone).
    pub fn has_room_for(&self, expected: usize) -> bool {
        let outstanding = self.outstanding();
        outstanding == 0 || outstanding.saturating_add(expected.min(self.limit)) <= self.limit
    }

    /// Waits until [`has_room_for`](Self::has_room_for) `expected` bytes.
    pub async fn room_for(&self, expected: usize) {
        // The common case, without registering a waiter (a lock in `Notify`) per message.
        if self.has_room_for(expected) {
            return;
        }
        loop {
            let notified = self.room.notified();
            tokio::pin!(notified);
            // Registered before the check: a give-back between the check and the wait wakes it.
            notified.as_mut().enable();
            if self.has_room_for(expected) {
                return;
            }
            notified.await;
        }
    }

    /// Counts a batch a reader read.
    pub fn take(&self, bytes: usize) {
        self.outstanding.fetch_add(bytes, Ordering::AcqRel);
    }

    /// Gives `bytes` back and wakes the readers waiting for room.
    pub fn give_back(&self, bytes: usize) {
        if bytes == 0 {
            return;
        }
        // Saturating: a count given back twice must not wrap into a budget that never has room
        // again (a reader stalled for good); tests catch the miscount itself.
        let before = self
            .outstanding
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |o| {
                Some(o.saturating_sub(bytes))
            })
            .unwrap_or_default();
        debug_assert!(before >= bytes, "gave back {bytes} of {before} bytes");
        self.room.notify_waiters();
    }

    /// What `events` count as: the reader's count of them, to the byte.
    pub fn bytes_of(events: &[Event]) -> usize {
        events.iter().map(Event::approx_bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_batch_is_read_when_it_fits_or_nothing_is_outstanding() {
        let b = Budget::new(100);
        assert!(
            b.has_room_for(1_000),
            "nothing outstanding: even a batch beyond the budget"
        );
        b.take(60);
        assert!(b.has_room_for(40));
        assert!(!b.has_room_for(41));
        assert!(
            !b.has_room_for(1_000),
            "counted as the whole budget, which does not fit"
        );
        b.give_back(60);
        assert_eq!(b.outstanding(), 0);
        assert!(b.has_room_for(1_000));
    }

    #[test]
    fn events_are_given_back_by_the_bytes_they_were_counted_with() {
        let b = Budget::new(1 << 20);
        let events = vec![
            Event::CopyCompleted,
            Event::Heartbeat {
                timestamp_millis: 1,
            },
        ];
        let bytes: usize = events.iter().map(Event::approx_bytes).sum();
        assert_eq!(Budget::bytes_of(&events), bytes);
        b.take(Budget::bytes_of(&events));
        b.give_back(Budget::bytes_of(&events));
        assert_eq!(b.outstanding(), 0);
    }

    #[tokio::test]
    async fn a_reader_waiting_for_room_wakes_when_bytes_come_back() {
        let b = Budget::new(100);
        b.take(90);
        let mut wait = Box::pin(b.room_for(50));
        assert!(
            futures::poll!(&mut wait).is_pending(),
            "no room for 50 beside 90"
        );
        b.give_back(90);
        tokio::time::timeout(Duration::from_secs(5), wait)
            .await
            .expect("woken by the give-back");
    }
}
