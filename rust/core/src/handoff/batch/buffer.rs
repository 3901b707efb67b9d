// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The bytes of a batch being encoded: a buffer of the encoder's own, and large values that stay
//! where they are until the batch is written out.
//!
//! A text or binary value of at least [`SPLICE_MIN_BYTES`] is not copied into the buffer: the
//! batch keeps a reference to it (a slice of the gRPC message it was decoded from) and the
//! position it belongs at, and [`BatchBuf::write_into`] copies it once, straight into the
//! consumer's buffer. A row near VTGate's 16 MiB message limit then exists twice while it
//! crosses — its message and Java's copy — instead of three times with the encoder's buffer in
//! between, and the encoder keeps no 16 MiB buffer afterwards (docs/benchmarks.md, "Huge
//! transactions").
//!
//! Offsets are of two kinds: *logical* ([`BatchBuf::len`], [`Mark`]) count the spliced values,
//! as the batch's bytes will; *physical* ([`BatchBuf::physical_len`], indexing) are positions in
//! the encoder's own buffer, where lengths are patched.

use super::super::copy::copy_batch;
use bytes::Bytes;
use std::ops::{Index, IndexMut};

/// Values this long or longer are spliced in instead of copied into the encoder's buffer. Below
/// it, a copy is cheaper than keeping the reference.
pub const SPLICE_MIN_BYTES: usize = 64 * 1024;

/// Capacity the buffer keeps between batches; a larger one (an event of many medium values) is
/// given back at the next batch rather than held for the stream's life.
const RETAINED_CAPACITY: usize = 4 << 20;

/// A value to be copied in at `at`, a physical offset: before the buffer's bytes from `at` on.
#[derive(Debug)]
struct Splice {
    at: usize,
    bytes: Bytes,
}

/// Where the batch stood, to go back to ([`BatchBuf::truncate`]).
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    physical: usize,
    splices: usize,
    spliced: usize,
}

impl Mark {
    /// The batch's length at the mark.
    pub fn len(&self) -> usize {
        self.physical + self.spliced
    }
}

#[derive(Debug)]
pub struct BatchBuf {
    own: Vec<u8>,
    splices: Vec<Splice>,
    /// Bytes of all splices.
    spliced: usize,
}

impl BatchBuf {
    pub fn with_capacity(capacity: usize) -> Self {
        BatchBuf {
            own: Vec::with_capacity(capacity),
            splices: Vec::new(),
            spliced: 0,
        }
    }

    /// The batch's length: the buffer's bytes and the spliced values.
    pub fn len(&self) -> usize {
        self.own.len() + self.spliced
    }

    /// The length of the encoder's own buffer: the offset its next byte is written at.
    pub fn physical_len(&self) -> usize {
        self.own.len()
    }

    /// Empties the batch and lets go of the spliced values.
    pub fn clear(&mut self) {
        if self.own.capacity() > RETAINED_CAPACITY {
            self.own = Vec::with_capacity(64 * 1024);
        }
        self.own.clear();
        self.splices.clear();
        self.spliced = 0;
    }

    pub fn mark(&self) -> Mark {
        Mark {
            physical: self.own.len(),
            splices: self.splices.len(),
            spliced: self.spliced,
        }
    }

    /// Drops everything written after `mark`.
    pub fn truncate(&mut self, mark: Mark) {
        self.own.truncate(mark.physical);
        self.splices.truncate(mark.splices);
        self.spliced = mark.spliced;
    }

    pub fn push(&mut self, b: u8) {
        self.own.push(b);
    }

    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.own.extend_from_slice(bytes);
    }

    /// Appends `bytes`: copied when short, referred to when long ([`SPLICE_MIN_BYTES`]).
    pub fn append_shared(&mut self, bytes: &Bytes) {
        if bytes.len() < SPLICE_MIN_BYTES {
            self.own.extend_from_slice(bytes);
            return;
        }
        self.spliced += bytes.len();
        self.splices.push(Splice {
            at: self.own.len(),
            bytes: bytes.clone(),
        });
    }

    /// The encoder's own buffer, for writers that append to a `Vec` (row layouts). Bytes they
    /// append land after every splice so far.
    pub fn own_mut(&mut self) -> &mut Vec<u8> {
        &mut self.own
    }

    /// Copies the batch into the start of `out` and lets go of the spliced values; `None` (and
    /// nothing written) when `out` is shorter than the batch.
    pub fn write_into(&mut self, out: &mut [u8]) -> Option<usize> {
        self.write_to(out)
            .expect("writing into a slice cannot fail")
    }

    /// Copies the batch into the start of `out`, run by run (the encoder's bytes, then each
    /// spliced value from where it was decoded), and lets go of the spliced values; `Ok(None)`
    /// (and nothing written) when `out` is shorter than the batch.
    pub fn write_to<O: BatchOut + ?Sized>(&mut self, out: &mut O) -> crate::Result<Option<usize>> {
        let len = self.len();
        if out.capacity() < len {
            return Ok(None);
        }
        let (mut from, mut to) = (0, 0);
        for splice in self.splices.drain(..) {
            let own = &self.own[from..splice.at];
            out.put(to, own)?;
            to += own.len();
            out.put(to, &splice.bytes)?;
            to += splice.bytes.len();
            from = splice.at;
        }
        out.put(to, &self.own[from..])?;
        self.clear();
        Ok(Some(len))
    }

    /// The batch as one slice: spliced values are copied into the buffer first.
    pub fn contiguous(&mut self) -> &[u8] {
        if !self.splices.is_empty() {
            let mut whole = vec![0; self.len()];
            self.write_into(&mut whole);
            self.own = whole;
        }
        &self.own
    }
}

/// Where a finished batch is copied: Java's direct buffer (a slice, [`copy_batch`]), or a Java
/// heap array, which the JNI bridge writes region by region (an event too large for the direct
/// buffer: docs/batch-format.md, "Batch boundaries and sizes").
pub trait BatchOut {
    /// The bytes it holds.
    fn capacity(&self) -> usize;
    /// Copies `bytes` to offset `at`; the caller keeps `at + bytes.len() <= capacity()`.
    fn put(&mut self, at: usize, bytes: &[u8]) -> crate::Result<()>;
}

impl BatchOut for [u8] {
    fn capacity(&self) -> usize {
        self.len()
    }

    fn put(&mut self, at: usize, bytes: &[u8]) -> crate::Result<()> {
        copy_batch(&mut self[at..at + bytes.len()], bytes);
        Ok(())
    }
}

impl Index<usize> for BatchBuf {
    type Output = u8;
    fn index(&self, at: usize) -> &u8 {
        &self.own[at]
    }
}

impl IndexMut<usize> for BatchBuf {
    fn index_mut(&mut self, at: usize) -> &mut u8 {
        &mut self.own[at]
    }
}

impl Index<std::ops::Range<usize>> for BatchBuf {
    type Output = [u8];
    fn index(&self, at: std::ops::Range<usize>) -> &[u8] {
        &self.own[at]
    }
}

impl IndexMut<std::ops::Range<usize>> for BatchBuf {
    fn index_mut(&mut self, at: std::ops::Range<usize>) -> &mut [u8] {
        &mut self.own[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(byte: u8) -> Bytes {
        Bytes::from(vec![byte; SPLICE_MIN_BYTES + 3])
    }

    #[test]
    fn spliced_values_land_where_they_were_appended() {
        let mut b = BatchBuf::with_capacity(16);
        b.extend_from_slice(b"ab");
        b.append_shared(&long(1));
        b.push(b'c');
        b.append_shared(&Bytes::from_static(b"short"));
        b.append_shared(&long(2));
        let mut expected = b"ab".to_vec();
        expected.extend_from_slice(&long(1));
        expected.push(b'c');
        expected.extend_from_slice(b"short");
        expected.extend_from_slice(&long(2));
        assert_eq!(b.len(), expected.len());
        assert_eq!(
            b.physical_len(),
            2 + 1 + 5,
            "the long values were not copied"
        );
        assert_eq!(b.contiguous(), &expected[..]);

        let mut b2 = BatchBuf::with_capacity(16);
        b2.extend_from_slice(b"ab");
        b2.append_shared(&long(1));
        let mut out = vec![0xee; expected.len() + 7];
        let n = b2.write_into(&mut out).expect("fits");
        assert_eq!(&out[..n], &expected[..2 + SPLICE_MIN_BYTES + 3]);
        assert_eq!(out[n], 0xee, "nothing written past the batch");
        assert_eq!(b2.len(), 0, "written out: the references are let go");
    }

    /// A destination that records every write, as the JNI bridge's heap array receives them.
    struct Regions {
        bytes: Vec<u8>,
        writes: Vec<(usize, usize)>,
    }

    impl BatchOut for Regions {
        fn capacity(&self) -> usize {
            self.bytes.len()
        }
        fn put(&mut self, at: usize, bytes: &[u8]) -> crate::Result<()> {
            self.writes.push((at, bytes.len()));
            self.bytes[at..at + bytes.len()].copy_from_slice(bytes);
            Ok(())
        }
    }

    #[test]
    fn a_region_writer_gets_the_same_bytes_in_runs_and_spliced_values_whole() {
        let build = || {
            let mut b = BatchBuf::with_capacity(16);
            b.extend_from_slice(b"head");
            b.append_shared(&long(1));
            b.append_shared(&long(2));
            b.extend_from_slice(b"tail");
            b
        };
        let expected = build().contiguous().to_vec();

        let mut out = Regions {
            bytes: vec![0xee; expected.len() + 3],
            writes: Vec::new(),
        };
        let n = build().write_to(&mut out).unwrap().expect("fits");
        assert_eq!(&out.bytes[..n], &expected[..]);
        assert_eq!(out.bytes[n..], [0xee; 3], "nothing written past the batch");
        let long_len = SPLICE_MIN_BYTES + 3;
        assert_eq!(
            out.writes,
            vec![
                (0, 4),
                (4, long_len),
                (4 + long_len, 0),
                (4 + long_len, long_len),
                (4 + 2 * long_len, 4)
            ],
            "the encoder's runs and each spliced value, in order, each once"
        );

        let mut short = Regions {
            bytes: vec![0; expected.len() - 1],
            writes: Vec::new(),
        };
        let mut b = build();
        assert_eq!(b.write_to(&mut short).unwrap(), None);
        assert!(short.writes.is_empty(), "a short destination gets no write");
        assert_eq!(b.len(), expected.len(), "kept for a larger destination");
    }

    #[test]
    fn truncating_to_a_mark_drops_later_splices_only() {
        let mut b = BatchBuf::with_capacity(16);
        b.append_shared(&long(1));
        let mark = b.mark();
        assert_eq!(mark.len(), SPLICE_MIN_BYTES + 3);
        b.push(9);
        b.append_shared(&long(2));
        b.truncate(mark);
        assert_eq!(b.len(), mark.len());
        assert_eq!(b.contiguous(), &long(1)[..]);
    }

    #[test]
    fn a_short_destination_is_refused_without_writing() {
        let mut b = BatchBuf::with_capacity(16);
        b.append_shared(&long(1));
        let mut out = vec![7u8; SPLICE_MIN_BYTES];
        assert_eq!(b.write_into(&mut out), None);
        assert!(out.iter().all(|&x| x == 7));
        assert_eq!(b.len(), SPLICE_MIN_BYTES + 3, "kept for a larger buffer");
    }

    #[test]
    fn a_large_buffer_is_not_kept_past_its_batch() {
        let mut b = BatchBuf::with_capacity(16);
        b.extend_from_slice(&vec![0; RETAINED_CAPACITY + 1]);
        b.clear();
        assert!(b.own.capacity() <= RETAINED_CAPACITY);
    }
}
