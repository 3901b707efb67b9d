// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! Runs of ROW events that differ only in their row changes, found on the wire.
//!
//! A copy sends one ROW event per row: the tablet wraps each row of its copy query in a `VEvent`
//! with the same type, keyspace, shard and table name (vttablet's `uvstreamer`). Decoded as they
//! come, every row costs a `VEvent` (≈ 350 bytes), a `Vec` of one row change, five reference
//! counts for names the row before already had, and a pass through the state machine. The
//! decoder instead appends such a row's changes to the ROW event before it: the state machine
//! handles a ROW event with many changes exactly as the same changes one event each (a binlog
//! ROW event carries a whole statement's rows), so nothing downstream can tell.
//!
//! Two events join only when every field but the row changes is the same *on the wire*: byte
//! for byte and in the same order, at both the event's level and its row event's. Equal bytes
//! decode to equal values, so the joined event is what prost makes of the first one with the
//! later row changes appended; anything unusual (a malformed field, a second row event, other
//! timestamps) simply does not join and is decoded as it is.

use prost::encoding::{decode_key, decode_varint, skip_field, DecodeContext, WireType};
use std::ops::Range;

/// `VEvent.type` as it is encoded for a ROW event (field 1: key 0x08, varint 12).
const TYPE_ROW_FIELD: [u8; 2] = [0x08, 12];
/// `VEvent.row_event`.
const ROW_EVENT_TAG: u32 = 5;
/// `RowEvent.row_changes`.
const ROW_CHANGES_TAG: u32 = 2;

/// Where a ROW event's parts lie in the message: byte ranges of `message`, so two events of
/// one response compare without copying either.
#[derive(Debug, Default)]
pub(super) struct RowEventShape {
    /// Every field but the row changes (its key and value), in wire order; `None` marks where
    /// the row event's own fields begin and end, so a field of the event never matches one of
    /// its row event that happens to encode alike.
    header: Vec<Option<Range<usize>>>,
    /// The value of every `row_changes` field: an encoded `RowChange`.
    pub(super) changes: Vec<Range<usize>>,
}

/// Whether the encoded event starts as a ROW event does: Go writes the type, field 1, first.
/// Anything else is not read further (an event that is not a ROW event joins nothing).
pub(super) fn starts_as_row(event: &[u8]) -> bool {
    event.starts_with(&TYPE_ROW_FIELD)
}

impl RowEventShape {
    /// Reads the shape of the event encoded at `event` of `message`: false when it is not one
    /// event with exactly one row event, or anything in it is malformed (prost then decodes it
    /// and reports what is wrong).
    pub(super) fn read(&mut self, message: &[u8], event: Range<usize>) -> bool {
        self.header.clear();
        self.changes.clear();
        let mut row_events = 0;
        let complete = fields(message, event, |tag, wire_type, field, value| {
            if tag != ROW_EVENT_TAG {
                self.header.push(Some(field));
                return true;
            }
            row_events += 1;
            if wire_type != WireType::LengthDelimited || row_events > 1 {
                return false;
            }
            self.header.push(None);
            let read = fields(message, value, |tag, wire_type, field, value| {
                if tag != ROW_CHANGES_TAG {
                    self.header.push(Some(field));
                    return true;
                }
                if wire_type != WireType::LengthDelimited {
                    return false;
                }
                self.changes.push(value);
                true
            });
            self.header.push(None);
            read
        });
        complete && row_events == 1
    }

    /// Whether both events have the same fields, byte for byte, but their row changes.
    pub(super) fn same_but_changes(&self, other: &RowEventShape, message: &[u8]) -> bool {
        self.header.len() == other.header.len()
            && self
                .header
                .iter()
                .zip(&other.header)
                .all(|(a, b)| match (a, b) {
                    (None, None) => true,
                    (Some(a), Some(b)) => message[a.clone()] == message[b.clone()],
                    _ => false,
                })
    }
}

/// Walks the fields encoded at `range` of `message`, calling `field(tag, wire type, the field's
/// whole range, its value's range)` for each (the value of a length-delimited field is its
/// bytes, of any other the whole field); false when `field` returned false or a field is
/// malformed. The one walk over encoded fields: the codec's over a response's events too.
pub(super) fn fields(
    message: &[u8],
    range: Range<usize>,
    mut field: impl FnMut(u32, WireType, Range<usize>, Range<usize>) -> bool,
) -> bool {
    let end = range.end;
    let Some(mut rest) = message.get(range) else {
        return false;
    };
    while !rest.is_empty() {
        let start = end - rest.len();
        let Ok((tag, wire_type)) = decode_key(&mut rest) else {
            return false;
        };
        let value = if wire_type == WireType::LengthDelimited {
            let Ok(len) = decode_varint(&mut rest) else {
                return false;
            };
            let Some(len) = usize::try_from(len).ok().filter(|&len| len <= rest.len()) else {
                return false;
            };
            let value_start = end - rest.len();
            rest = &rest[len..];
            value_start..value_start + len
        } else {
            if skip_field(wire_type, tag, &mut rest, DecodeContext::default()).is_err() {
                return false;
            }
            start..end - rest.len()
        };
        if !field(tag, wire_type, start..end - rest.len(), value) {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::binlogdata::{VEvent, VEventType};
    use prost::Message;

    #[test]
    fn a_row_events_type_field_is_encoded_as_the_shape_expects() {
        let event = VEvent {
            r#type: VEventType::Row as i32,
            ..Default::default()
        };
        assert_eq!(event.encode_to_vec(), TYPE_ROW_FIELD);
        let other = VEvent {
            r#type: VEventType::Vgtid as i32,
            row_event: Some(Default::default()),
            ..Default::default()
        }
        .encode_to_vec();
        assert!(!starts_as_row(&other));
        let mut row = other.clone();
        row[..2].copy_from_slice(&TYPE_ROW_FIELD);
        assert!(starts_as_row(&row));
        assert!(RowEventShape::default().read(&row, 0..row.len()));
    }
}
