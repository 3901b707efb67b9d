// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! A synchronous face for the stream (CLI, JNI): a small private tokio runtime reads VTGate and
//! hands decoded events over a crossbeam channel bounded in *bytes*.
//!
//! Backpressure: a reader task reads the next message only when the byte budget
//! (`buffer_bytes`, [`Budget`]) has room for a batch as large as its last one, and the consumer
//! gives the bytes back when `poll` takes the batch (or, for the JNI bridge, when it recycles
//! the events it wrote for Java). When the consumer stops polling, the reader stops reading the
//! gRPC stream, HTTP/2 flow control stops VTGate, and memory stays flat. Tokio threads never
//! call into the consumer: everything crosses the channel.

use super::budget::Budget;
use crate::error::{Error, ErrorCode, ErrorKind, Result};
use crate::event::Event;
use crate::keyorder::TableKeyOrders;
use crate::metrics::{Metrics, MetricsSnapshot};
use crate::options::{InitialSnapshot, SnapshotOptions, StartMode, StreamOptions};
use crate::position::{ShardPosition, StreamPosition};
use crate::snapshot::{Capture, CaptureProgress, CaptureStream};
use crate::stream::EventStream;
use crate::supervise::Task;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// Most events one `poll` returns (it drains what is ready up to this).
const MAX_EVENTS_PER_POLL: usize = 8192;

enum Msg {
    /// `bytes`: what the reader counted them as against the budget.
    Events {
        events: Vec<Event>,
        bytes: usize,
    },
    Failed(Error),
    Wake,
}

#[derive(Default)]
struct PollState {
    positions: BTreeMap<(String, String), ShardPosition>,
    failed: Option<(ErrorKind, ErrorCode, String)>,
    ended: bool,
    /// Shards that reached their reshard journal: later marks for them (with follow_reshard, the
    /// journal transaction's own VGTID still lists them) must not bring them back.
    retired: std::collections::BTreeSet<(String, String)>,
    /// Keyspaces whose reader sent its End (a stream of several keyspaces ends when all did).
    parts_ended: usize,
}

pub struct BlockingStream {
    runtime: Mutex<Option<tokio::runtime::Runtime>>,
    rx: Receiver<Msg>,
    wake_tx: Sender<Msg>,
    /// Events a consumer is done with, going back to the reader to be freed there (see
    /// [`Self::recycle`]).
    spent_tx: Sender<Vec<Event>>,
    budget: Arc<Budget>,
    cancel: watch::Sender<bool>,
    state: Mutex<PollState>,
    closed: AtomicBool,
    metrics: Arc<Metrics>,
    /// Each keyspace's capture progress, in the order of the parts.
    progress: Arc<Mutex<Vec<Option<CaptureProgress>>>>,
    /// The keyspaces read side by side ([`Self::open_keyspaces`]), in the order of the parts.
    keyspaces: Vec<String>,
    /// What this stream's log lines say it is (set on the caller's thread during `poll`).
    label: std::sync::Arc<str>,
}

/// One keyspace of a stream that reads several ([`BlockingStream::open_keyspaces`]): its options
/// (from [`crate::keyspaces::per_keyspace`]) and the tables to capture in it.
#[derive(Debug, Clone)]
pub struct KeyspacePart {
    pub options: StreamOptions,
    pub captures: Vec<Capture>,
}

/// [`crate::stream::selected_key_orders`] for a synchronous caller (JNI, CLI): runs it on a
/// private single-threaded runtime that ends (and closes the connection) before this returns.
/// Must not be called from inside a tokio runtime.
pub fn selected_key_orders(options: &StreamOptions) -> Result<TableKeyOrders> {
    one_shot(
        "vitess-cdc-keyorders",
        "read key orders",
        crate::stream::selected_key_orders(options),
    )
}

/// [`crate::stream::plan_start`] for a synchronous caller (JNI, CLI), on a private runtime like
/// [`selected_key_orders`]. Must not be called from inside a tokio runtime.
pub fn plan_start(
    options: &StreamOptions,
    specific_offsets: Option<&str>,
) -> Result<Vec<crate::position::ShardPosition>> {
    one_shot(
        "vitess-cdc-plan",
        "plan start positions",
        crate::stream::plan_start(options, specific_offsets),
    )
}

/// [`crate::stream::copy_estimates`] for a synchronous caller (JNI, CLI), on a private runtime
/// like [`selected_key_orders`]. Must not be called from inside a tokio runtime.
pub fn copy_estimates(options: &StreamOptions) -> Result<crate::stream::CopyEstimates> {
    one_shot(
        "vitess-cdc-estimates",
        "read copy estimates",
        crate::stream::copy_estimates(options),
    )
}

/// Runs `work` on a private single-threaded runtime that ends (closing its connections) before
/// this returns.
fn one_shot<T>(
    thread_name: &str,
    what: &str,
    work: impl std::future::Future<Output = Result<T>>,
) -> Result<T> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .thread_name(thread_name)
        .enable_all()
        .build()
        .map_err(|e| {
            Error::fatal(format!("cannot start a runtime to {what}: {e}")).with_source(e)
        })?;
    let result = runtime.block_on(work);
    // Bounded, like a stream's close: a DNS lookup still running must not hold the caller.
    runtime.shutdown_timeout(Duration::from_secs(5));
    result
}

/// What the background task reads: the log alone, or the log with chunked snapshots beside it.
enum Reader {
    Log(Box<EventStream>),
    Capture(Box<CaptureStream>),
}

impl Reader {
    async fn next_events(&mut self) -> Result<Vec<Event>> {
        match self {
            Reader::Log(s) => s.next_events().await,
            Reader::Capture(s) => s.next_events().await,
        }
    }

    fn positions(&self) -> StreamPosition {
        match self {
            Reader::Log(s) => s.positions(),
            Reader::Capture(s) => s.positions(),
        }
    }

    fn progress(&self) -> Option<CaptureProgress> {
        match self {
            Reader::Log(_) => None,
            Reader::Capture(s) => Some(s.progress()),
        }
    }
}

/// Whether these options need a [`CaptureStream`]: tables to capture, a chunked initial
/// snapshot, or saved positions that carry a capture's cursor (a plain log stream would drop it).
pub fn needs_capture(
    options: &StreamOptions,
    captures: &[Capture],
    snap: &SnapshotOptions,
) -> bool {
    // A signal table is read by the capture's log (a snapshot-only stream has no log).
    let signals = snap.signal_table.is_some() && options.start != StartMode::SnapshotOnly;
    !captures.is_empty()
        || signals
        || match &options.start {
            StartMode::Initial => options.initial_snapshot == InitialSnapshot::Chunked,
            StartMode::Positions(p) => p.iter().any(|s| !s.snapshots.is_empty()),
            StartMode::Latest | StartMode::SnapshotOnly => false,
        }
}

impl BlockingStream {
    /// Connects and validates (failing within `connect_timeout` for an unreachable VTGate or an
    /// unknown keyspace/table), then starts reading in the background. Must not be called from
    /// inside a tokio runtime. A chunked initial snapshot, or positions with a capture in
    /// progress, open a [`CaptureStream`] (see [`Self::open_capturing`]).
    pub fn open(options: StreamOptions) -> Result<BlockingStream> {
        Self::open_capturing(options, Vec::new(), SnapshotOptions::default())
    }

    /// [`Self::open`], capturing `captures` in chunks beside the log (tables not already being
    /// captured by the saved positions). The same batches, marks and backpressure either way;
    /// with a capture, marks carry its cursors and [`Self::capture_progress`] reports it.
    pub fn open_capturing(
        options: StreamOptions,
        captures: Vec<Capture>,
        snap: SnapshotOptions,
    ) -> Result<BlockingStream> {
        Self::open_keyspaces(vec![KeyspacePart { options, captures }], snap)
    }

    /// One stream over several keyspaces (docs/positions.md, "Several keyspaces"): each part is
    /// read as [`Self::open_capturing`] reads one keyspace — its own VStream, copy, journals,
    /// signals and captures — and their events arrive through this one consumer, under one byte
    /// budget. Each shard's events keep their order; shards of different keyspaces interleave as
    /// they arrive, as shards of one keyspace do. A failure of any part fails the stream; a
    /// bounded stream ends when every part has ended.
    pub fn open_keyspaces(
        parts: Vec<KeyspacePart>,
        snap: SnapshotOptions,
    ) -> Result<BlockingStream> {
        if parts.is_empty() {
            return Err(
                Error::config("a stream needs at least one keyspace to read")
                    .with_code(ErrorCode::InvalidOption),
            );
        }
        // Before any task starts: a panic's location is known to the hook alone.
        crate::supervise::install_panic_hook();
        let label = parts_label(&parts);
        let _labelled = super::log_label::scoped(&label);
        let thread_label = label.clone();
        // One worker: the HTTP/2 connection, the read loop (decoding) and the frees of spent
        // events all run on one thread, so a wake-up is no futex hop to another worker, and
        // glibc frees each block in the cache of the thread that allocated it. A stream's work
        // is sequential anyway; a second worker only moved it between threads. Several keyspaces
        // share the worker: their reads interleave at each await.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(2)
            .thread_name("vitess-cdc-worker")
            .on_thread_start(move || super::log_label::set(thread_label.clone()))
            .enable_all()
            .build()
            .map_err(|e| {
                Error::fatal(format!("cannot start the stream's runtime: {e}")).with_source(e)
            })?;
        let metrics = Arc::new(Metrics::default());
        let budget = Arc::new(Budget::new(parts[0].options.buffer_bytes));
        let keyspaces: Vec<String> = parts.iter().map(|p| p.options.keyspace.clone()).collect();
        // Every part connects and validates before any reads, side by side: a keyspace VTGate
        // refuses fails the open, not a stream already half delivered.
        let opens = parts.into_iter().map(|KeyspacePart { options, captures }| {
            let (snap, metrics) = (snap.clone(), metrics.clone());
            async move {
                Ok::<_, Error>(if needs_capture(&options, &captures, &snap) {
                    Reader::Capture(Box::new(
                        CaptureStream::open_with_metrics(options, captures, snap, metrics).await?,
                    ))
                } else {
                    Reader::Log(Box::new(
                        EventStream::open_with_metrics(options, metrics).await?,
                    ))
                })
            }
        });
        let readers = runtime.block_on(futures::future::try_join_all(opens))?;
        let progress = Arc::new(Mutex::new(
            readers.iter().map(Reader::progress).collect::<Vec<_>>(),
        ));
        let positions = readers
            .iter()
            .flat_map(|r| r.positions().shards)
            .map(|p| ((p.keyspace.clone(), p.shard.clone()), p))
            .collect();
        let (tx, rx) = crossbeam_channel::unbounded();
        let (spent_tx, spent_rx) = crossbeam_channel::unbounded();
        let (cancel, cancelled) = watch::channel(false);
        for (index, reader) in readers.into_iter().enumerate() {
            // The reader never dies silently: its panic reaches `poll` as a fatal error (the
            // channel alone would not tell, `wake_tx` keeps it open).
            let failed = tx.clone();
            let work = read_loop(
                reader,
                tx.clone(),
                // Every part's loop frees spent events: all parts allocate on the one worker
                // thread, so whichever loop runs next frees them where they were made.
                spent_rx.clone(),
                budget.clone(),
                cancelled.clone(),
                progress.clone(),
                index,
            );
            runtime.spawn(async move {
                if let Err(panic) = crate::supervise::catch(Task::Reader, work).await {
                    let _ = failed.send(Msg::Failed(panic.into_error()));
                }
            });
        }
        Ok(BlockingStream {
            runtime: Mutex::new(Some(runtime)),
            rx,
            wake_tx: tx,
            spent_tx,
            budget,
            cancel,
            state: Mutex::new(PollState {
                positions,
                ..Default::default()
            }),
            closed: AtomicBool::new(false),
            metrics,
            progress,
            keyspaces,
            label,
        })
    }

    /// The chunked snapshot's progress as of the events read so far (`None` for a plain log
    /// stream). The background reader updates it; it may run ahead of what `poll` returned.
    pub fn capture_progress(&self) -> Option<CaptureProgress> {
        let parts = self
            .progress
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if parts.len() == 1 {
            return parts[0].clone();
        }
        merged_progress(&self.keyspaces, &parts)
    }

    /// Waits up to `timeout` for events. Empty on timeout or `wake`; ends with [`Event::End`]
    /// at the end of a snapshot-only stream. After a fatal error (or exhausted retries) this and
    /// every later call return an error of the same kind.
    pub fn poll(&self, timeout: Duration) -> Result<Vec<Event>> {
        let _labelled = super::log_label::scoped(&self.label);
        if let Some(e) = self.sticky_error() {
            return Err(e);
        }
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::fatal("the stream is closed"));
        }
        if self.lock_state().ended {
            return Ok(Vec::new());
        }
        let first = match self.rx.recv_timeout(timeout) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => return Ok(Vec::new()),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::fatal("the stream is closed"))
            }
        };
        let mut out = Vec::new();
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            match msg {
                Msg::Events { events, bytes } => {
                    if !self.budget.holds_until_recycled() {
                        self.budget.give_back(bytes);
                    }
                    if out.is_empty() {
                        out = events;
                    } else {
                        out.extend(events);
                    }
                }
                Msg::Wake => break,
                Msg::Failed(e) => {
                    self.lock_state().failed = Some((e.kind, e.code, e.message.clone()));
                    if out.is_empty() {
                        return Err(e);
                    }
                    break; // deliver what came before; the error is returned next time
                }
            }
            if out.len() >= MAX_EVENTS_PER_POLL || matches!(out.last(), Some(Event::End)) {
                break;
            }
            next = self.rx.try_recv().ok();
        }
        self.track(&mut out);
        Ok(out)
    }

    /// Hands events the caller is done with back to the background reader, which frees them on
    /// its own thread. The reader allocated their values, and glibc frees a block fastest on the
    /// thread that allocated it (its per-thread cache); a free on the consumer's thread goes to
    /// the reader's arena under its lock, the reader's next allocations miss its cache, and on
    /// the copy path these frees were a large part of both threads' time. Once the reader has
    /// ended, they are freed here.
    ///
    /// After [`hold_budget_until_recycled`](Self::hold_budget_until_recycled), this is also where
    /// their bytes go back to the budget: sent first, so the reader frees them before it reads on.
    pub fn recycle(&self, spent: Vec<Event>) {
        if spent.is_empty() {
            return;
        }
        let bytes = if self.budget.holds_until_recycled() {
            Budget::bytes_of(&spent)
        } else {
            0
        };
        let _ = self.spent_tx.send(spent);
        self.budget.give_back(bytes);
    }

    /// Events count against the byte budget until [`recycle`](Self::recycle)d, not until taken:
    /// for a consumer that recycles every event it took once it is done with it (the JNI bridge,
    /// once the event is in Java's buffer). The reader then holds no message beside those the
    /// consumer still holds beyond the budget (docs/benchmarks.md, "Huge transactions").
    pub fn hold_budget_until_recycled(&self) {
        self.budget.hold_until_recycled();
    }

    /// Makes a blocked (or the next) `poll` return early with an empty Vec.
    pub fn wake(&self) {
        let _ = self.wake_tx.send(Msg::Wake);
    }

    /// The mark of every shard as last returned by `poll` (start positions before any mark).
    pub fn positions(&self) -> StreamPosition {
        StreamPosition {
            shards: self.lock_state().positions.values().cloned().collect(),
        }
    }

    pub fn metrics(&self) -> MetricsSnapshot {
        self.metrics.snapshot()
    }

    /// Stops reading and shuts the runtime down; all its threads end. Idempotent, and safe
    /// while another thread polls (that poll returns promptly).
    pub fn close(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        let _ = self.cancel.send(true);
        self.wake();
        let runtime = self.runtime.lock().ok().and_then(|mut r| r.take());
        if let Some(rt) = runtime {
            rt.shutdown_timeout(Duration::from_secs(5));
        }
    }

    fn lock_state(&self) -> std::sync::MutexGuard<'_, PollState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn sticky_error(&self) -> Option<Error> {
        self.lock_state()
            .failed
            .as_ref()
            .map(|(kind, code, message)| Error {
                kind: *kind,
                code: *code,
                message: message.clone(),
                source: None,
            })
    }

    fn track(&self, events: &mut Vec<Event>) {
        let mut state = self.lock_state();
        if self.keyspaces.len() > 1 && events.iter().any(|e| matches!(e, Event::End)) {
            // A keyspace that ended (its snapshot done) leaves the others running: only the
            // last part's End ends the stream.
            let parts = self.keyspaces.len();
            let before = events.len();
            events.retain(|e| {
                if !matches!(e, Event::End) {
                    return true;
                }
                state.parts_ended += 1;
                state.parts_ended == parts
            });
            // Never recycled: what they counted goes back now.
            if self.budget.holds_until_recycled() {
                self.budget
                    .give_back((before - events.len()) * Event::End.approx_bytes());
            }
        }
        for e in events.iter() {
            match e {
                Event::Mark(p) => {
                    let key = (p.keyspace.clone(), p.shard.clone());
                    if !state.retired.contains(&key) {
                        state.positions.insert(key, p.clone());
                    }
                }
                Event::Journal {
                    shard,
                    ended,
                    started,
                    ..
                } => {
                    state.positions.remove(shard);
                    state.retired.insert(shard.clone());
                    // The new shards start where the journal says once every participant
                    // ended: resuming them earlier could reorder a key's changes.
                    if ended.iter().all(|k| state.retired.contains(k)) {
                        for p in started {
                            state
                                .positions
                                .insert((p.keyspace.clone(), p.shard.clone()), p.clone());
                        }
                    }
                }
                Event::End => state.ended = true,
                _ => {}
            }
        }
    }
}

impl Drop for BlockingStream {
    fn drop(&mut self) {
        self.close();
    }
}

/// A label naming every keyspace of the stream: the consumer's name once, then each part.
fn parts_label(parts: &[KeyspacePart]) -> Arc<str> {
    let consumer = parts[0].options.log_label.as_deref();
    let each: Vec<Arc<str>> = parts
        .iter()
        .map(|p| {
            let o = &p.options;
            super::log_label::of(None, &o.keyspace, &o.shards, &o.tables, &o.table_patterns)
        })
        .collect();
    let joined = each.iter().map(|l| &**l).collect::<Vec<_>>().join(" + ");
    match consumer.filter(|c| !c.is_empty()) {
        Some(c) => format!("{c} {joined}").into(),
        None => joined.into(),
    }
}

/// The capture progress of several keyspaces as one: shards named `keyspace/shard` (two
/// keyspaces may both have a shard `-80`), signals of all. `None` when no part captures.
fn merged_progress(
    keyspaces: &[String],
    parts: &[Option<CaptureProgress>],
) -> Option<CaptureProgress> {
    let mut merged: Option<CaptureProgress> = None;
    for (keyspace, p) in keyspaces.iter().zip(parts) {
        let Some(p) = p else { continue };
        let m = merged.get_or_insert_with(CaptureProgress::default);
        for (shard, s) in &p.shards {
            m.shards.insert(format!("{keyspace}/{shard}"), s.clone());
        }
        m.signals_elsewhere
            .extend(p.signals_elsewhere.iter().cloned());
    }
    merged
}

#[allow(clippy::too_many_arguments)] // one loop per keyspace; each argument is its own channel
async fn read_loop(
    mut stream: Reader,
    tx: Sender<Msg>,
    spent: Receiver<Vec<Event>>,
    budget: Arc<Budget>,
    mut cancelled: watch::Receiver<bool>,
    progress: Arc<Mutex<Vec<Option<CaptureProgress>>>>,
    part: usize,
) {
    // Room is asked for as many bytes as the last batch held: the next is likely alike.
    let mut expected = 0;
    loop {
        // What the consumer is done with is freed here, where it was allocated (`recycle`).
        free_spent(&spent);
        tokio::select! {
            _ = cancelled.changed() => return,
            _ = budget.room_for(expected) => {}
        }
        // The events given back while this waited came back first: freed before more arrive.
        free_spent(&spent);
        let next = tokio::select! {
            _ = cancelled.changed() => return,
            r = stream.next_events() => r,
        };
        if let Some(p) = stream.progress() {
            progress
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())[part] = Some(p);
        }
        let events = match next {
            Ok(events) if events.is_empty() => continue,
            Ok(events) => events,
            Err(e) => {
                tracing::error!(error = %e.full_message(), "stream failed");
                let _ = tx.send(Msg::Failed(e));
                return;
            }
        };
        let bytes = Budget::bytes_of(&events);
        expected = bytes;
        budget.take(bytes);
        let ended = matches!(events.last(), Some(Event::End));
        if tx.send(Msg::Events { events, bytes }).is_err() || ended {
            return;
        }
    }
}

fn free_spent(spent: &Receiver<Vec<Event>>) {
    while let Ok(events) = spent.try_recv() {
        drop(events);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocking_stream_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<BlockingStream>();
    }

    #[test]
    fn captures_chunked_initial_snapshots_and_saved_cursors_need_a_capture_stream() {
        use crate::position::TableSnapshot;
        let mut o = StreamOptions::new("127.0.0.1:1", "ks");
        let mut snap = SnapshotOptions::default();
        assert!(!needs_capture(&o, &[], &snap));
        let capture = Capture {
            table: "t".into(),
            filter: None,
            shards: Vec::new(),
        };
        assert!(needs_capture(&o, std::slice::from_ref(&capture), &snap));
        o.initial_snapshot = InitialSnapshot::Chunked;
        assert!(needs_capture(&o, &[], &snap));
        o.start = StartMode::SnapshotOnly;
        assert!(
            !needs_capture(&o, &[], &snap),
            "a bounded snapshot copies in-stream"
        );
        let mut p = ShardPosition {
            keyspace: "ks".into(),
            shard: "0".into(),
            gtid: "MySQL56/u:1-3".into(),
            table_p_ks: Vec::new(),
            tables_to_copy: Vec::new(),
            copy_completed: true,
            snapshots: Vec::new(),
        };
        o.start = StartMode::Positions(vec![p.clone()]);
        assert!(!needs_capture(&o, &[], &snap));
        p.snapshots.push(TableSnapshot::whole("t"));
        o.start = StartMode::Positions(vec![p]);
        assert!(
            needs_capture(&o, &[], &snap),
            "a capture saved mid-way resumes"
        );
        o.start = StartMode::Latest;
        assert!(!needs_capture(&o, &[], &snap));
        snap.signal_table = Some("vitess_cdc_signal".into());
        assert!(
            needs_capture(&o, &[], &snap),
            "signals are read by a capture stream"
        );
        o.start = StartMode::SnapshotOnly;
        assert!(
            !needs_capture(&o, &[], &snap),
            "a bounded snapshot has no log to signal in"
        );
    }

    #[test]
    fn a_plain_log_stream_refuses_options_that_capture() {
        let mut o = StreamOptions::new("127.0.0.1:1", "ks");
        o.initial_snapshot = InitialSnapshot::Chunked;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let e = rt.block_on(EventStream::open(o)).err().expect("refused");
        assert_eq!(e.code, ErrorCode::InvalidOption);
        assert!(e.message.contains("capture stream"), "{}", e.message);
    }

    #[test]
    fn unreachable_vtgate_fails_within_connect_timeout() {
        let mut o = StreamOptions::new("127.0.0.1:1", "ks");
        o.connect_timeout = Duration::from_secs(2);
        let started = std::time::Instant::now();
        let err = BlockingStream::open(o).err().expect("must fail");
        assert!(started.elapsed() < Duration::from_secs(3));
        assert!(
            err.message.contains("connection refused"),
            "{}",
            err.message
        );
    }
}
