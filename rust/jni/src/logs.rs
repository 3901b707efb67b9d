// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Native `tracing` events into the JVM's SLF4J, without any native thread calling into Java.
//!
//! A [`JavaLogLayer`] formats each event that passes the level Java asked for (level, target,
//! message with its fields, thread name, time) and pushes it into a bounded lock-free queue
//! ([`LogBuffer`]); when the queue is full the event is dropped and counted. Java drains the
//! queue on its own threads (`NativeStream.poll`, `open`, `close`) with one JNI call that copies
//! the records into a direct buffer, and forwards them to `org.slf4j` loggers named
//! `vitesscdc.native.<target with :: replaced by .>`.
//!
//! Cheap checks on both sides:
//! - Native: Java sets the most verbose level enabled in SLF4J ([`LogBuffer::set_max_level`]);
//!   callsites above it are disabled in `tracing`'s interest cache (a disabled `debug!` costs a
//!   load and a branch). Until Java configures it, the level is OFF.
//! - Java: the buffer's two counters (pending records, dropped records) live in memory that
//!   Java reads through a direct `ByteBuffer` ([`LogBuffer::state_ptr`]), so the poll path
//!   calls into native code to drain only when something is there.
//!
//! Drain format (little-endian), written by [`LogBuffer::drain`]:
//!
//! | type | field |
//! |---|---|
//! | u32 | record count |
//! | u32 | reserved (0) |
//! | u64 | records dropped since the previous drain (buffer full) |
//! | per record: | |
//! | u8 | level: 1 ERROR, 2 WARN, 3 INFO, 4 DEBUG, 5 TRACE |
//! | i64 | time, ms since the epoch |
//! | u16 + bytes | target (UTF-8), e.g. `vitess_cdc_core::stream` |
//! | u16 + bytes | native thread name |
//! | u32 + bytes | message, then ` key=value` per field |

use crossbeam_channel::{Receiver, Sender, TrySendError};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use tracing::field::{Field, Visit};
use tracing::level_filters::LevelFilter;
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Filter, Layer};

pub const LEVEL_OFF: u8 = 0;
pub const LEVEL_ERROR: u8 = 1;
pub const LEVEL_WARN: u8 = 2;
pub const LEVEL_INFO: u8 = 3;
pub const LEVEL_DEBUG: u8 = 4;
pub const LEVEL_TRACE: u8 = 5;

/// Records the queue holds before it drops new ones.
pub const DEFAULT_CAPACITY: usize = 4096;
/// Longest message kept (longer ones are cut at a character boundary and marked).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;
/// Size of the drain header.
pub const DRAIN_HEADER_LEN: usize = 16;

/// The level code of a `tracing` level.
pub fn level_code(level: &Level) -> u8 {
    match *level {
        Level::ERROR => LEVEL_ERROR,
        Level::WARN => LEVEL_WARN,
        Level::INFO => LEVEL_INFO,
        Level::DEBUG => LEVEL_DEBUG,
        Level::TRACE => LEVEL_TRACE,
    }
}

fn level_filter(code: u8) -> LevelFilter {
    match code {
        LEVEL_OFF => LevelFilter::OFF,
        LEVEL_ERROR => LevelFilter::ERROR,
        LEVEL_WARN => LevelFilter::WARN,
        LEVEL_INFO => LevelFilter::INFO,
        LEVEL_DEBUG => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    }
}

/// One formatted event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRecord {
    pub level: u8,
    pub timestamp_millis: i64,
    pub target: &'static str,
    pub thread: String,
    pub message: String,
}

impl LogRecord {
    fn encoded_len(&self) -> usize {
        1 + 8
            + 2
            + self.target.len().min(u16::MAX as usize)
            + 2
            + self.thread.len().min(u16::MAX as usize)
            + 4
            + self.message.len()
    }

    fn write(&self, out: &mut [u8]) -> usize {
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            out[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        put(&[self.level]);
        put(&self.timestamp_millis.to_le_bytes());
        let target = truncate(self.target, u16::MAX as usize);
        put(&(target.len() as u16).to_le_bytes());
        put(target.as_bytes());
        let thread = truncate(&self.thread, u16::MAX as usize);
        put(&(thread.len() as u16).to_le_bytes());
        put(thread.as_bytes());
        put(&(self.message.len() as u32).to_le_bytes());
        put(self.message.as_bytes());
        at
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends at a character boundary.
fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Counters Java reads through a direct `ByteBuffer`: 8-byte aligned, native byte order.
#[repr(C, align(8))]
#[derive(Debug, Default)]
pub struct LogState {
    /// Records queued and not yet drained (including one held back by a full drain buffer).
    pub pending: AtomicU64,
    /// Records dropped because the queue was full, since the previous drain.
    pub dropped: AtomicU64,
}

/// The bounded queue between the layer (any thread) and Java's drain.
#[derive(Debug)]
pub struct LogBuffer {
    tx: Sender<LogRecord>,
    rx: Receiver<LogRecord>,
    /// A record taken from the queue that did not fit into the last drain buffer.
    carry: Mutex<Option<LogRecord>>,
    max_level: AtomicU8,
    state: LogState,
}

impl LogBuffer {
    pub fn new(capacity: usize) -> Self {
        let (tx, rx) = crossbeam_channel::bounded(capacity.max(1));
        LogBuffer {
            tx,
            rx,
            carry: Mutex::new(None),
            max_level: AtomicU8::new(LEVEL_OFF),
            state: LogState::default(),
        }
    }

    pub fn max_level(&self) -> u8 {
        self.max_level.load(Ordering::Relaxed)
    }

    /// Sets the most verbose level to capture (`LEVEL_OFF`..`LEVEL_TRACE`) and refreshes
    /// `tracing`'s callsite cache so disabled callsites cost nothing. Returns the previous level.
    pub fn set_max_level(&self, level: u8) -> u8 {
        let level = level.min(LEVEL_TRACE);
        let previous = self.max_level.swap(level, Ordering::Relaxed);
        if previous != level {
            tracing::callsite::rebuild_interest_cache();
        }
        previous
    }

    pub fn pending(&self) -> u64 {
        self.state.pending.load(Ordering::Acquire)
    }

    pub fn dropped(&self) -> u64 {
        self.state.dropped.load(Ordering::Acquire)
    }

    /// Address of the 16-byte [`LogState`] (pending, dropped as native-endian `u64`s).
    pub fn state_ptr(&self) -> *mut u8 {
        &self.state as *const LogState as *mut u8
    }

    /// Queues a record; never blocks. A full queue drops it and counts the drop.
    pub fn push(&self, record: LogRecord) {
        match self.tx.try_send(record) {
            Ok(()) => {
                self.state.pending.fetch_add(1, Ordering::Release);
            }
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.state.dropped.fetch_add(1, Ordering::Release);
            }
        }
    }

    /// Copies as many queued records as fit into `out` (format in the module docs). Returns the
    /// bytes written, 0 when there was nothing to report (or `out` is shorter than a header). A
    /// record larger than all of `out` has its message cut to fit.
    pub fn drain(&self, out: &mut [u8]) -> usize {
        if out.len() < DRAIN_HEADER_LEN {
            return 0;
        }
        let mut carry = self.carry.lock().unwrap_or_else(|e| e.into_inner());
        let dropped = self.state.dropped.swap(0, Ordering::AcqRel);
        let mut at = DRAIN_HEADER_LEN;
        let mut count: u32 = 0;
        while let Some(mut record) = carry.take().or_else(|| self.rx.try_recv().ok()) {
            let mut len = record.encoded_len();
            if at + len > out.len() {
                if count > 0 {
                    *carry = Some(record);
                    break;
                }
                // Alone it does not fit either: cut the message.
                let room = out.len() - at - (len - record.message.len());
                let keep = truncate(&record.message, room).len();
                record.message.truncate(keep);
                len = record.encoded_len();
                if at + len > out.len() {
                    // Not even the target and thread fit: drop it, counted.
                    self.state.pending.fetch_sub(1, Ordering::AcqRel);
                    self.state.dropped.fetch_add(1, Ordering::AcqRel);
                    continue;
                }
            }
            at += record.write(&mut out[at..]);
            count += 1;
            self.state.pending.fetch_sub(1, Ordering::AcqRel);
            if count == u32::MAX {
                break;
            }
        }
        if count == 0 && dropped == 0 {
            return 0;
        }
        out[0..4].copy_from_slice(&count.to_le_bytes());
        out[4..8].copy_from_slice(&0u32.to_le_bytes());
        out[8..16].copy_from_slice(&dropped.to_le_bytes());
        at
    }
}

/// The process-wide buffer of this library copy (one copy per Java class loader).
pub static LOGS: LazyLock<Arc<LogBuffer>> =
    LazyLock::new(|| Arc::new(LogBuffer::new(DEFAULT_CAPACITY)));

/// Formats events into a [`LogBuffer`]. Pair it with [`JavaLevelFilter`] on the same buffer.
#[derive(Debug, Clone)]
pub struct JavaLogLayer {
    buffer: Arc<LogBuffer>,
}

impl JavaLogLayer {
    pub fn new(buffer: Arc<LogBuffer>) -> Self {
        JavaLogLayer { buffer }
    }
}

impl<S: Subscriber> Layer<S> for JavaLogLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let meta = event.metadata();
        let level = level_code(meta.level());
        if level > self.buffer.max_level() {
            return;
        }
        let mut visitor = MessageVisitor::default();
        event.record(&mut visitor);
        // Name the stream the line is about: the forwarding Java thread says nothing of it.
        let mut message = match vitess_cdc_core::handoff::log_label::current() {
            Some(label) => format!("[{label}] {}", visitor.message),
            None => visitor.message,
        };
        if !visitor.fields.is_empty() {
            if !message.is_empty() {
                message.push(' ');
            }
            message.push_str(&visitor.fields);
        }
        if message.len() > MAX_MESSAGE_BYTES {
            let keep = truncate(&message, MAX_MESSAGE_BYTES).len();
            message.truncate(keep);
            message.push_str("…(truncated)");
        }
        let thread = thread_name();
        let timestamp_millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        self.buffer.push(LogRecord {
            level,
            timestamp_millis,
            target: meta.target(),
            thread,
            message,
        });
    }
}

/// The Rust name of the current thread; for threads Rust did not start (Java threads calling in)
/// the OS thread name, which HotSpot sets to the Java thread's name (cut to 15 bytes on Linux).
fn thread_name() -> String {
    let current = std::thread::current();
    if let Some(name) = current.name() {
        return name.to_string();
    }
    #[cfg(any(target_os = "linux", target_os = "macos"))]
    {
        let mut buf = [0u8; 64];
        // SAFETY: `buf` is writable for its length; pthread_getname_np NUL-terminates within it.
        let rc = unsafe {
            libc::pthread_getname_np(
                libc::pthread_self(),
                buf.as_mut_ptr().cast::<libc::c_char>(),
                buf.len(),
            )
        };
        if rc == 0 {
            let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            if len > 0 {
                return String::from_utf8_lossy(&buf[..len]).into_owned();
            }
        }
    }
    format!("{:?}", current.id())
}

/// The per-layer filter: the level Java set on the buffer.
#[derive(Debug, Clone)]
pub struct JavaLevelFilter {
    buffer: Arc<LogBuffer>,
}

impl JavaLevelFilter {
    pub fn new(buffer: Arc<LogBuffer>) -> Self {
        JavaLevelFilter { buffer }
    }

    fn allows(&self, meta: &Metadata<'_>) -> bool {
        meta.is_event() && level_code(meta.level()) <= self.buffer.max_level()
    }
}

impl<S> Filter<S> for JavaLevelFilter {
    fn enabled(&self, meta: &Metadata<'_>, _cx: &Context<'_, S>) -> bool {
        self.allows(meta)
    }

    fn callsite_enabled(&self, meta: &'static Metadata<'static>) -> Interest {
        // Cached until the level changes (`set_max_level` rebuilds the cache).
        if self.allows(meta) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(level_filter(self.buffer.max_level()))
    }
}

/// `message` first, then ` key=value` for every other field.
#[derive(Default)]
struct MessageVisitor {
    message: String,
    fields: String,
}

impl MessageVisitor {
    fn field_prefix(&mut self, field: &Field) {
        if !self.fields.is_empty() {
            self.fields.push(' ');
        }
        self.fields.push_str(field.name());
        self.fields.push('=');
    }
}

impl Visit for MessageVisitor {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            self.field_prefix(field);
            let _ = write!(self.fields, "{value:?}");
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            self.field_prefix(field);
            let _ = write!(self.fields, "{value:?}");
        }
    }
}

/// Installs the process-wide subscriber of this library copy: the Java layer (level OFF until
/// Java sets one) plus, when the environment variable `VITESS_CDC_LOG` holds a filter (`info`,
/// `vitess_cdc_core=debug`, …), a copy of every matching event on stderr.
pub fn init() {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let buffer = LOGS.clone();
    let java = JavaLogLayer::new(buffer.clone()).with_filter(JavaLevelFilter::new(buffer));
    let stderr = std::env::var("VITESS_CDC_LOG").ok().map(|filter| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_filter(tracing_subscriber::EnvFilter::new(filter))
    });
    let _ = tracing_subscriber::registry()
        .with(java)
        .with(stderr)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    fn subscriber(buffer: &Arc<LogBuffer>) -> impl Subscriber + Send + Sync {
        tracing_subscriber::registry().with(
            JavaLogLayer::new(buffer.clone()).with_filter(JavaLevelFilter::new(buffer.clone())),
        )
    }

    /// Parses a drain buffer back into records.
    fn parse(buf: &[u8]) -> (u64, Vec<(u8, String, String, String)>) {
        let count = u32::from_le_bytes(buf[0..4].try_into().unwrap());
        let dropped = u64::from_le_bytes(buf[8..16].try_into().unwrap());
        let mut at = 16;
        let mut out = Vec::new();
        let mut take = |n: usize| {
            let s = &buf[at..at + n];
            at += n;
            s
        };
        for _ in 0..count {
            let level = take(1)[0];
            let _ts = take(8);
            let n = u16::from_le_bytes(take(2).try_into().unwrap()) as usize;
            let target = String::from_utf8(take(n).to_vec()).unwrap();
            let n = u16::from_le_bytes(take(2).try_into().unwrap()) as usize;
            let thread = String::from_utf8(take(n).to_vec()).unwrap();
            let n = u32::from_le_bytes(take(4).try_into().unwrap()) as usize;
            let message = String::from_utf8(take(n).to_vec()).unwrap();
            out.push((level, target, thread, message));
        }
        (dropped, out)
    }

    #[test]
    fn events_at_or_below_the_level_are_captured_with_target_fields_and_thread() {
        let buffer = Arc::new(LogBuffer::new(16));
        buffer.set_max_level(LEVEL_INFO);
        tracing::subscriber::with_default(subscriber(&buffer), || {
            tracing::info!(shard = "-80", n = 3, "stream plan");
            tracing::debug!("not captured at INFO");
            tracing::warn!(error = %"boom", "reconnecting");
        });
        assert_eq!(buffer.pending(), 2);
        let mut out = vec![0u8; 4096];
        let n = buffer.drain(&mut out);
        let (dropped, records) = parse(&out[..n]);
        assert_eq!(dropped, 0);
        assert_eq!(records.len(), 2);
        let (level, target, thread, message) = &records[0];
        assert_eq!(*level, LEVEL_INFO);
        assert_eq!(target, module_path!());
        assert!(!thread.is_empty());
        assert_eq!(message, "stream plan shard=\"-80\" n=3");
        assert_eq!(records[1].0, LEVEL_WARN);
        assert_eq!(records[1].3, "reconnecting error=boom");
        assert_eq!(buffer.pending(), 0);
        assert_eq!(buffer.drain(&mut out), 0, "nothing left");
    }

    #[test]
    fn level_off_captures_nothing() {
        let buffer = Arc::new(LogBuffer::new(16));
        tracing::subscriber::with_default(subscriber(&buffer), || {
            tracing::error!("dropped at OFF");
        });
        assert_eq!(buffer.pending(), 0);
        buffer.set_max_level(LEVEL_TRACE);
        tracing::subscriber::with_default(subscriber(&buffer), || {
            tracing::trace!("kept at TRACE");
        });
        assert_eq!(buffer.pending(), 1);
    }

    #[test]
    fn a_full_buffer_drops_and_counts() {
        let buffer = Arc::new(LogBuffer::new(4));
        buffer.set_max_level(LEVEL_INFO);
        tracing::subscriber::with_default(subscriber(&buffer), || {
            for i in 0..10 {
                tracing::info!(i, "event");
            }
        });
        assert_eq!(buffer.pending(), 4);
        assert_eq!(buffer.dropped(), 6);
        let mut out = vec![0u8; 4096];
        let n = buffer.drain(&mut out);
        let (dropped, records) = parse(&out[..n]);
        assert_eq!(dropped, 6);
        assert_eq!(records.len(), 4);
        assert_eq!(records[3].3, "event i=3");
        assert_eq!(buffer.dropped(), 0, "reported once");
    }

    #[test]
    fn records_that_do_not_fit_wait_for_the_next_drain() {
        let buffer = Arc::new(LogBuffer::new(64));
        for i in 0..10 {
            buffer.push(LogRecord {
                level: LEVEL_INFO,
                timestamp_millis: i,
                target: "t",
                thread: "th".into(),
                message: format!("message number {i}"),
            });
        }
        let mut out = vec![0u8; 100];
        let mut seen = Vec::new();
        loop {
            let n = buffer.drain(&mut out);
            if n == 0 {
                break;
            }
            let (_, records) = parse(&out[..n]);
            assert!(!records.is_empty());
            seen.extend(records.into_iter().map(|r| r.3));
        }
        let expected: Vec<String> = (0..10).map(|i| format!("message number {i}")).collect();
        assert_eq!(seen, expected, "all, in order");
        assert_eq!(buffer.pending(), 0);
    }

    #[test]
    fn a_record_larger_than_the_drain_buffer_is_cut_at_a_char_boundary() {
        let buffer = Arc::new(LogBuffer::new(4));
        buffer.push(LogRecord {
            level: LEVEL_ERROR,
            timestamp_millis: 0,
            target: "t",
            thread: "th".into(),
            message: "☕".repeat(100),
        });
        let mut out = vec![0u8; 64];
        let n = buffer.drain(&mut out);
        let (_, records) = parse(&out[..n]);
        assert_eq!(records.len(), 1);
        assert!(records[0].3.chars().all(|c| c == '☕'));
        assert!(!records[0].3.is_empty());
        assert_eq!(buffer.pending(), 0);
        assert_eq!(buffer.drain(&mut [0u8; 8]), 0, "too small for a header");
    }

    #[test]
    fn long_messages_are_truncated_when_formatted() {
        let buffer = Arc::new(LogBuffer::new(4));
        buffer.set_max_level(LEVEL_INFO);
        let long = "x".repeat(MAX_MESSAGE_BYTES * 2);
        tracing::subscriber::with_default(subscriber(&buffer), || {
            tracing::info!("{long}");
        });
        let mut out = vec![0u8; MAX_MESSAGE_BYTES * 4];
        let n = buffer.drain(&mut out);
        let (_, records) = parse(&out[..n]);
        assert!(records[0].3.ends_with("…(truncated)"));
        assert!(records[0].3.len() < MAX_MESSAGE_BYTES + 32);
    }

    #[test]
    fn state_is_readable_as_two_native_u64() {
        let buffer = LogBuffer::new(4);
        buffer.push(LogRecord {
            level: LEVEL_INFO,
            timestamp_millis: 0,
            target: "t",
            thread: String::new(),
            message: String::new(),
        });
        let ptr = buffer.state_ptr();
        assert_eq!(ptr as usize % 8, 0);
        // SAFETY: LogState is two AtomicU64 in repr(C); reading them as u64 is what Java does.
        let pending = unsafe { std::ptr::read_volatile(ptr as *const u64) };
        assert_eq!(pending, 1);
    }
}
