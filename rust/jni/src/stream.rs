// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A stream behind a JNI handle: the core's [`BlockingStream`] plus the batch encoder and the
//! events that did not fit into the caller's buffer yet.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use vitess_cdc_core::batch::{BatchEncoder, BatchOut, EncodeError};
use vitess_cdc_core::blocking::BlockingStream;
use vitess_cdc_core::handoff::flink_row::RowLayout;
use vitess_cdc_core::metrics::MetricsSnapshot;
use vitess_cdc_core::snapshot::CaptureProgress;
use vitess_cdc_core::{Error, Event, Result, StreamOptions, StreamPosition};

/// What one poll produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollOutcome {
    /// A batch of this many bytes was written.
    Batch(usize),
    /// No event within the timeout (or woken, or closed meanwhile).
    Timeout,
    /// The stream ended and everything was delivered.
    End,
    /// The next event alone needs a buffer of this many bytes; nothing was consumed.
    NeedCapacity(usize),
}

/// The source of events; the real one is [`BlockingStream`], tests and the synthetic streams of
/// `diagnostics::synth` (feature `diagnostics`) script their own.
pub trait EventSource: Send + Sync {
    fn poll(&self, timeout: Duration) -> Result<Vec<Event>>;
    fn close(&self);
    /// Takes back events already encoded for Java (to free them where they were made).
    fn recycle(&self, spent: Vec<Event>) {
        drop(spent);
    }
    /// Makes a poll waiting in another thread return early.
    fn wake(&self) {}
    /// Positions after the last event handed out.
    fn positions(&self) -> StreamPosition {
        StreamPosition::default()
    }
    fn metrics(&self) -> MetricsSnapshot {
        MetricsSnapshot::default()
    }
    /// A chunked snapshot's progress; `None` when the stream captures nothing.
    fn capture_progress(&self) -> Option<CaptureProgress> {
        None
    }
}

impl EventSource for BlockingStream {
    fn poll(&self, timeout: Duration) -> Result<Vec<Event>> {
        BlockingStream::poll(self, timeout)
    }
    fn close(&self) {
        BlockingStream::close(self)
    }
    fn recycle(&self, spent: Vec<Event>) {
        BlockingStream::recycle(self, spent)
    }
    fn wake(&self) {
        BlockingStream::wake(self)
    }
    fn positions(&self) -> StreamPosition {
        BlockingStream::positions(self)
    }
    fn metrics(&self) -> MetricsSnapshot {
        BlockingStream::metrics(self)
    }
    fn capture_progress(&self) -> Option<CaptureProgress> {
        BlockingStream::capture_progress(self)
    }
}

impl<S: EventSource + ?Sized> EventSource for Box<S> {
    fn poll(&self, timeout: Duration) -> Result<Vec<Event>> {
        (**self).poll(timeout)
    }
    fn close(&self) {
        (**self).close()
    }
    fn recycle(&self, spent: Vec<Event>) {
        (**self).recycle(spent)
    }
    fn wake(&self) {
        (**self).wake()
    }
    fn positions(&self) -> StreamPosition {
        (**self).positions()
    }
    fn metrics(&self) -> MetricsSnapshot {
        (**self).metrics()
    }
    fn capture_progress(&self) -> Option<CaptureProgress> {
        (**self).capture_progress()
    }
}

/// What the handle registry holds: a real stream or a synthetic one, behind one vtable call per
/// poll.
pub type DynStreamHandle = StreamHandle<Box<dyn EventSource>>;

/// Encoder state and events received from the source but not yet delivered to Java.
struct Pending {
    encoder: BatchEncoder,
    events: VecDeque<Event>,
    /// The End event was delivered: every later poll reports `End`.
    ended: bool,
    /// An error the source raised while a batch was being topped up; reported by the next poll,
    /// after the events received before it.
    deferred: Option<Error>,
}

/// One open stream.
pub struct StreamHandle<S: EventSource = Box<dyn EventSource>> {
    source: S,
    closed: AtomicBool,
    pending: Mutex<Pending>,
}

impl StreamHandle<Box<dyn EventSource>> {
    /// Connects a real stream (see [`BlockingStream::open`]).
    pub fn open(options: StreamOptions) -> Result<Self> {
        Ok(Self::new(Box::new(recycled_by_the_bridge(
            BlockingStream::open(options)?,
        ))))
    }

    /// Connects a real stream with its captures, over one keyspace or several (see
    /// [`BlockingStream::open_keyspaces`]).
    pub fn open_capturing(options: crate::options::OpenOptions) -> Result<Self> {
        let stream = Self::new(Box::new(recycled_by_the_bridge(
            BlockingStream::open_keyspaces(options.parts, options.snapshot)?,
        )));
        stream.set_row_layout(options.flink_rows)?;
        stream.set_json_rows(options.json_rows)?;
        Ok(stream)
    }
}

/// Every event a poll took is recycled once it is in Java's buffer (or the stream ends): the
/// budget counts it until then, so the reader does not read on while Java's copy and the
/// undelivered events already fill it (docs/benchmarks.md, "Huge transactions").
fn recycled_by_the_bridge(stream: BlockingStream) -> BlockingStream {
    stream.hold_budget_until_recycled();
    stream
}

impl<S: EventSource> StreamHandle<S> {
    pub fn new(source: S) -> Self {
        StreamHandle {
            source,
            closed: AtomicBool::new(false),
            pending: Mutex::new(Pending {
                encoder: BatchEncoder::new(),
                events: VecDeque::new(),
                ended: false,
                deferred: None,
            }),
        }
    }

    /// Records of tables that can give `layout` are written as Flink rows from now on
    /// ([`BatchEncoder::set_row_layout`]).
    pub fn set_row_layout(&self, layout: Option<RowLayout>) -> Result<()> {
        self.lock()?.encoder.set_row_layout(layout);
        Ok(())
    }

    /// Records carry their rows as Debezium JSON objects from now on
    /// ([`BatchEncoder::set_json_rows`]).
    pub fn set_json_rows(&self, json_rows: bool) -> Result<()> {
        self.lock()?.encoder.set_json_rows(json_rows);
        Ok(())
    }

    pub fn source(&self) -> &S {
        &self.source
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Closes the source; a poll blocked in another thread returns. Idempotent.
    pub fn close(&self) {
        if !self.closed.swap(true, Ordering::AcqRel) {
            self.source.close();
        }
    }

    fn lock(&self) -> Result<MutexGuard<'_, Pending>> {
        self.pending.lock().map_err(|_| {
            Error::fatal(
                "the native stream's state was corrupted by an earlier panic; reopen the stream",
            )
        })
    }

    /// Waits up to `timeout` for events and encodes as many whole events as fit into `out`.
    pub fn poll(&self, out: &mut [u8], timeout: Duration) -> Result<PollOutcome> {
        self.poll_to(out, timeout)
    }

    /// [`poll`](Self::poll) into any [`BatchOut`] (a Java heap array).
    pub fn poll_to<O: BatchOut + ?Sized>(
        &self,
        out: &mut O,
        timeout: Duration,
    ) -> Result<PollOutcome> {
        let mut guard = self.lock()?;
        let p = &mut *guard;
        if p.events.is_empty() {
            if let Some(e) = p.deferred.take() {
                return Err(e);
            }
            if p.ended {
                return Ok(PollOutcome::End);
            }
            if self.is_closed() {
                return Ok(PollOutcome::Timeout);
            }
            let events = match self.source.poll(timeout) {
                // Closed by another thread while this poll waited: not an error for the poller.
                Err(_) if self.is_closed() => return Ok(PollOutcome::Timeout),
                other => other?,
            };
            if events.is_empty() || self.is_closed() {
                return Ok(PollOutcome::Timeout);
            }
            p.events.extend(events);
        }

        p.encoder.begin(out.capacity());
        // Encoded events go back to the source in one piece at the end of this call.
        let mut spent = Vec::with_capacity(p.events.len());
        let outcome = self.encode_pending(p, out, &mut spent);
        self.source.recycle(spent);
        outcome
    }

    /// Encodes pending events (topping them up from the source) into `out`; every event encoded
    /// is moved to `spent`.
    fn encode_pending<O: BatchOut + ?Sized>(
        &self,
        p: &mut Pending,
        out: &mut O,
        spent: &mut Vec<Event>,
    ) -> Result<PollOutcome> {
        loop {
            while let Some(event) = p.events.front() {
                match p.encoder.encode(event) {
                    Ok(()) => {
                        let is_end = matches!(event, Event::End);
                        if let Some(done) = p.events.pop_front() {
                            spent.push(done);
                        }
                        if is_end {
                            p.ended = true;
                            // Nothing can follow the end of the stream.
                            p.events.clear();
                            break;
                        }
                    }
                    Err(EncodeError::Full { needed }) => {
                        if p.encoder.is_empty() {
                            return Ok(PollOutcome::NeedCapacity(needed));
                        }
                        break;
                    }
                    Err(EncodeError::Unrepresentable(m)) => {
                        return Err(Error::fatal(format!(
                            "cannot encode an event for Java: {m}"
                        )))
                    }
                }
            }
            // Top the batch up with whatever the source already has, without waiting: fewer,
            // fuller batches per JNI call. Stop at half the buffer, the end, or a deferred error.
            if !p.events.is_empty()
                || p.ended
                || p.deferred.is_some()
                || self.is_closed()
                || p.encoder.len() > out.capacity() / 2
            {
                break;
            }
            match self.source.poll(Duration::ZERO) {
                Ok(more) if more.is_empty() => break,
                Ok(more) => p.events.extend(more),
                Err(e) => {
                    p.deferred = Some(e);
                    break;
                }
            }
        }
        // Straight into Java's buffer, long values from where they were decoded.
        match p.encoder.finish_to(out)? {
            Some(len) => Ok(PollOutcome::Batch(len)),
            // Unreachable: the encoder's limit is `out.len()`. Checked anyway, because a slice
            // panic here would poison the stream.
            None => Err(Error::fatal(format!(
                "internal error: a {}-byte batch for a {}-byte buffer",
                p.encoder.len(),
                out.capacity()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use vitess_cdc_core::batch::{HEADER_LEN, MAGIC};
    use vitess_cdc_core::event::{ChangeEvent, Column, ColumnType, RowKind, TableSchema};
    use vitess_cdc_core::Value;

    /// Hands out scripted poll results in order, then timeouts; keeps what comes back.
    struct Script(Mutex<VecDeque<Result<Vec<Event>>>>, Mutex<Vec<Event>>);

    impl EventSource for Script {
        fn poll(&self, _timeout: Duration) -> Result<Vec<Event>> {
            self.0.lock().unwrap().pop_front().unwrap_or(Ok(Vec::new()))
        }
        fn close(&self) {}
        fn recycle(&self, spent: Vec<Event>) {
            self.1.lock().unwrap().extend(spent);
        }
    }

    fn handle(script: Vec<Result<Vec<Event>>>) -> StreamHandle<Script> {
        StreamHandle::new(Script(Mutex::new(script.into()), Mutex::default()))
    }

    /// The texts of the rows the handle gave back to its source so far.
    fn recycled(h: &StreamHandle<Script>) -> Vec<String> {
        h.source
            .1
            .lock()
            .unwrap()
            .iter()
            .map(|e| match e {
                Event::Change(c) => match &c.values[0] {
                    Value::String(t) => t[..1].to_string(),
                    v => panic!("{v:?}"),
                },
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn encoded_events_go_back_to_the_source_once_and_waiting_ones_stay() {
        let h = handle(vec![Ok(vec![row("a"), row(&"b".repeat(300)), row("c")])]);
        let d = Duration::from_millis(1);
        let mut small = vec![0u8; 150];
        assert!(matches!(
            h.poll(&mut small, d).unwrap(),
            PollOutcome::Batch(_)
        ));
        assert_eq!(recycled(&h), ["a"], "only the row that was encoded");
        assert!(matches!(
            h.poll(&mut small, d).unwrap(),
            PollOutcome::NeedCapacity(_)
        ));
        assert_eq!(recycled(&h), ["a"], "the row waiting for room stays");
        let mut big = vec![0u8; 4096];
        assert!(matches!(
            h.poll(&mut big, d).unwrap(),
            PollOutcome::Batch(_)
        ));
        assert_eq!(recycled(&h), ["a", "b", "c"]);
    }

    fn row(text: &str) -> Event {
        let schema = Arc::new(TableSchema {
            keyspace: "k".into(),
            shard: "0".into(),
            table: "t".into(),
            columns: vec![Column {
                name: "c".into(),
                column_type: ColumnType::String,
                mysql_type: "text".into(),
                vitess_type: 0,
                charset: 255,
                length: 0,
                decimals: 0,
                nullable: true,
                primary_key: false,
            }],
            version: 1,
        });
        Event::Change(ChangeEvent {
            schema,
            kind: RowKind::Insert,
            values: vec![Value::String(text.into())],
            commit_ts_millis: 0,
            is_snapshot: false,
            gtid: None,
        })
    }

    fn entries(batch: &[u8]) -> u32 {
        assert_eq!(&batch[..4], &MAGIC);
        u32::from_le_bytes(batch[8..12].try_into().unwrap())
    }

    #[test]
    fn timeout_batch_and_end() {
        let h = handle(vec![
            Ok(vec![]),
            Ok(vec![row("a"), row("b")]),
            Ok(vec![Event::End]),
        ]);
        let mut buf = vec![0u8; 4096];
        let d = Duration::from_millis(1);
        assert_eq!(h.poll(&mut buf, d).unwrap(), PollOutcome::Timeout);
        // Two rows plus the End picked up by the top-up in the same call.
        match h.poll(&mut buf, d).unwrap() {
            PollOutcome::Batch(n) => assert_eq!(entries(&buf[..n]), 4, "table + 2 rows + end"),
            other => panic!("{other:?}"),
        }
        assert_eq!(h.poll(&mut buf, d).unwrap(), PollOutcome::End);
        assert_eq!(h.poll(&mut buf, d).unwrap(), PollOutcome::End);
    }

    #[test]
    fn events_that_do_not_fit_wait_for_the_next_poll() {
        let h = handle(vec![Ok(vec![row("a"), row(&"b".repeat(300)), row("c")])]);
        let d = Duration::from_millis(1);
        let mut small = vec![0u8; 150];
        let first = match h.poll(&mut small, d).unwrap() {
            PollOutcome::Batch(n) => entries(&small[..n]),
            other => panic!("{other:?}"),
        };
        assert_eq!(first, 2, "table + first row");
        let needed = match h.poll(&mut small, d).unwrap() {
            PollOutcome::NeedCapacity(n) => n,
            other => panic!("{other:?}"),
        };
        assert!(needed > 300 && needed < 400, "{needed}");
        let mut big = vec![0u8; needed + 64];
        match h.poll(&mut big, d).unwrap() {
            PollOutcome::Batch(n) => assert_eq!(entries(&big[..n]), 2, "big row + last row"),
            other => panic!("{other:?}"),
        }
        assert_eq!(h.poll(&mut big, d).unwrap(), PollOutcome::Timeout);
    }

    #[test]
    fn buffers_smaller_than_a_header_ask_for_more() {
        let h = handle(vec![Ok(vec![row("a")])]);
        for size in [0usize, 1, 15, 16, 17] {
            let mut tiny = vec![0u8; size];
            match h.poll(&mut tiny, Duration::ZERO).unwrap() {
                PollOutcome::NeedCapacity(n) => assert!(n > HEADER_LEN),
                other => panic!("{size}: {other:?}"),
            }
        }
        let mut buf = vec![0u8; 4096];
        assert!(matches!(
            h.poll(&mut buf, Duration::ZERO).unwrap(),
            PollOutcome::Batch(_)
        ));
    }

    #[test]
    fn errors_after_events_are_reported_after_those_events() {
        let h = handle(vec![
            Ok(vec![row("a")]),
            Err(Error::retryable("VTGate went away")),
        ]);
        let mut buf = vec![0u8; 4096];
        let d = Duration::from_millis(1);
        assert!(matches!(
            h.poll(&mut buf, d).unwrap(),
            PollOutcome::Batch(_)
        ));
        let e = h.poll(&mut buf, d).unwrap_err();
        assert!(e.message.contains("went away"));
    }

    #[test]
    fn closed_stream_polls_return_timeout() {
        let h = handle(vec![Ok(vec![row("a")])]);
        h.close();
        h.close();
        let mut buf = vec![0u8; HEADER_LEN + 100];
        assert_eq!(
            h.poll(&mut buf, Duration::ZERO).unwrap(),
            PollOutcome::Timeout
        );
    }
}
