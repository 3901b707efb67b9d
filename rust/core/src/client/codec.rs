// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The VStream call's codec: prost's, plus each response's size on the wire, taken as it is
//! decoded. The bytes metric needs that size, and prost's `encoded_len` afterwards walked every
//! event, row and length of the response again (3 % of the stream thread in a copy's profile).

use super::row_runs::{fields, starts_as_row, RowEventShape};
use crate::proto::binlogdata::{RowChange, VEvent, VEventType};
use crate::proto::vtgate::{VStreamRequest, VStreamResponse};
use prost::encoding::WireType;
use prost::Message;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::Status;
use tonic_prost::ProstEncoder;

/// A VStream response, the bytes it took on the wire (its protobuf encoding) and how many
/// events it had there (a run of row events may arrive joined into one, [`decode_response`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReceivedResponse {
    pub response: VStreamResponse,
    pub encoded_len: usize,
    pub events_on_wire: usize,
}

/// `VStreamResponse.events`.
const EVENTS_TAG: u32 = 1;

/// [`tonic_prost::ProstCodec`] for the VStream call, decoding into [`ReceivedResponse`]s.
#[derive(Debug, Default, Clone, Copy)]
pub struct VStreamCodec;

impl Codec for VStreamCodec {
    type Encode = VStreamRequest;
    type Decode = ReceivedResponse;
    type Encoder = ProstEncoder<VStreamRequest>;
    type Decoder = SizedDecoder;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::default()
    }

    fn decoder(&mut self) -> Self::Decoder {
        SizedDecoder
    }
}

/// Prost's decoding, noting the size of the message it decodes.
///
/// The message is first taken whole as one [`Bytes`](bytes::Bytes), then decoded from that:
/// every `bytes` field (a row's values and lengths, the names of every event) becomes a slice of
/// it by a reference-count increment. Decoded straight from tonic's buffer, each was a
/// `BytesMut::split_to` and a `freeze`, the native stream thread's hottest function in a copy's
/// profile (docs/benchmarks.md, "Rust core").
#[derive(Debug, Default)]
pub struct SizedDecoder;

impl Decoder for SizedDecoder {
    type Item = ReceivedResponse;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<ReceivedResponse>, Status> {
        // The buffer holds exactly this message (gRPC frames each one with its length).
        let encoded_len = bytes::Buf::remaining(buf);
        let message = bytes::Buf::copy_to_bytes(buf, encoded_len);
        let (response, events_on_wire) = decode_counted(message)
            .map_err(|e| Status::internal(format!("cannot decode a VStream response: {e}")))?;
        Ok(Some(ReceivedResponse {
            response,
            encoded_len,
            events_on_wire,
        }))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// Decodes a VStream response into a list of events sized for it up front, each run of ROW
/// events that differ only in their row changes joined into its first ([`row_runs`]).
///
/// prost pushes a repeated message field's items one by one. A copy batch carries one `VEvent`
/// (≈ 350 bytes) per row, a thousand or more per response, and the growing `Vec` moved every
/// event it held at each doubling: twice the events' size in `memmove` per response, about a
/// tenth of the native stream thread in a copy's profile. Counting the events first is a walk
/// over field keys and lengths only.
pub fn decode_response(message: bytes::Bytes) -> Result<VStreamResponse, prost::DecodeError> {
    decode_counted(message).map(|(response, _)| response)
}

/// [`decode_response`], and how many events the response had on the wire.
fn decode_counted(message: bytes::Bytes) -> Result<(VStreamResponse, usize), prost::DecodeError> {
    let on_wire = events_in(&message);
    let mut events: Vec<VEvent> = Vec::with_capacity(on_wire);
    // The last event while it is a ROW event, and its shape once read (only when a ROW event
    // follows it: a binlog transaction's ROW event is followed by its VGTID); the shape of the
    // event being read.
    let mut last_row: Option<std::ops::Range<usize>> = None;
    let (mut last_shape, mut last_shape_read) = (RowEventShape::default(), false);
    let mut next = RowEventShape::default();
    // The row changes of the events that join the last one, decoded when the run ends: then
    // its list of changes grows once, to the run's size.
    let mut joining: Vec<std::ops::Range<usize>> = Vec::new();
    let mut failed = None;
    let whole = fields(&message, 0..message.len(), |tag, wire_type, _, event| {
        if tag != EVENTS_TAG {
            return true;
        }
        if wire_type != WireType::LengthDelimited {
            return false;
        }
        if let Some(last) = last_row
            .clone()
            .filter(|_| starts_as_row(&message[event.clone()]))
        {
            if !last_shape_read {
                last_shape_read = true;
                if !last_shape.read(&message, last) {
                    last_row = None;
                }
            }
            if last_row.is_some()
                && next.read(&message, event.clone())
                && next.same_but_changes(&last_shape, &message)
            {
                joining.append(&mut next.changes);
                return true;
            }
        }
        let decoded = join_run(&mut events, &mut joining, &message)
            .and_then(|()| VEvent::decode(message.slice(event.clone())));
        match decoded {
            Ok(decoded) => {
                let is_row =
                    decoded.r#type == VEventType::Row as i32 && decoded.row_event.is_some();
                last_row = is_row.then_some(event);
                last_shape_read = false;
                events.push(decoded);
                true
            }
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    if !whole {
        // Malformed: prost's decoding says how.
        return Ok((decode_by_prost(message, on_wire)?, on_wire));
    }
    join_run(&mut events, &mut joining, &message)?;
    Ok((VStreamResponse { events }, on_wire))
}

/// Appends the row changes at `joining` (encoded in `message`) to the last event's row event.
fn join_run(
    events: &mut [VEvent],
    joining: &mut Vec<std::ops::Range<usize>>,
    message: &bytes::Bytes,
) -> Result<(), prost::DecodeError> {
    if joining.is_empty() {
        return Ok(());
    }
    let Some(row_event) = events.last_mut().and_then(|e| e.row_event.as_mut()) else {
        unreachable!("changes join only a ROW event with its row event");
    };
    row_event.row_changes.reserve_exact(joining.len());
    for change in joining.drain(..) {
        row_event
            .row_changes
            .push(RowChange::decode(message.slice(change))?);
    }
    Ok(())
}

/// The whole response by prost, as one message (what a malformed one is decoded by, for its error).
fn decode_by_prost(
    message: bytes::Bytes,
    on_wire: usize,
) -> Result<VStreamResponse, prost::DecodeError> {
    let mut response = VStreamResponse {
        events: Vec::with_capacity(on_wire),
    };
    response.merge(message)?;
    Ok(response)
}

/// The `events` fields (number 1, length-delimited) at the top level of an encoded
/// `VStreamResponse`; the count so far at anything malformed, which the decoding then reports.
fn events_in(message: &[u8]) -> usize {
    let mut events = 0;
    fields(message, 0..message.len(), |tag, wire_type, _, _| {
        events += usize::from(tag == EVENTS_TAG && wire_type == WireType::LengthDelimited);
        true
    });
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use vitess_cdc_testkit::events::{row, rows};

    fn response(events: usize) -> VStreamResponse {
        VStreamResponse {
            events: (0..events)
                .map(|i| VEvent {
                    r#type: VEventType::Row as i32,
                    timestamp: i as i64,
                    ..Default::default()
                })
                .collect(),
        }
    }

    #[test]
    fn decodes_what_prost_decodes_with_the_events_counted_first() {
        for n in [0, 1, 2, 1000] {
            let encoded = bytes::Bytes::from(response(n).encode_to_vec());
            assert_eq!(events_in(&encoded), n);
            let decoded = decode_response(encoded.clone()).unwrap();
            assert_eq!(decoded, VStreamResponse::decode(encoded).unwrap());
            assert_eq!(decoded.events.capacity(), n, "sized once, not grown");
        }
    }

    #[test]
    fn a_malformed_response_is_an_error_not_a_miscount() {
        let mut encoded = response(3).encode_to_vec();
        encoded.truncate(encoded.len() - 1);
        assert_eq!(events_in(&encoded), 2, "the cut event is not counted");
        assert!(decode_response(bytes::Bytes::from(encoded)).is_err());
        // Unknown fields are skipped, as prost skips them.
        let mut with_unknown = vec![0x10, 0x05]; // field 2, varint 5
        with_unknown.extend(response(2).encode_to_vec());
        assert_eq!(events_in(&with_unknown), 2);
        assert_eq!(
            decode_response(bytes::Bytes::from(with_unknown)).unwrap(),
            response(2)
        );
    }

    /// What [`decode_response`] must give: prost's decoding of the whole response, with every
    /// ROW event that differs from the ROW event before it only in its row changes appended to it.
    fn joined_by_prost(encoded: &[u8]) -> Vec<VEvent> {
        let without_changes = |e: &VEvent| {
            let mut e = e.clone();
            if let Some(r) = e.row_event.as_mut() {
                r.row_changes.clear();
            }
            e
        };
        let mut joined: Vec<VEvent> = Vec::new();
        for event in VStreamResponse::decode(encoded).unwrap().events {
            if let Some(last) = joined.last_mut() {
                let rows = |e: &VEvent| e.r#type == VEventType::Row as i32 && e.row_event.is_some();
                if rows(last) && rows(&event) && without_changes(last) == without_changes(&event) {
                    let changes = event.row_event.unwrap().row_changes;
                    last.row_event.as_mut().unwrap().row_changes.extend(changes);
                    continue;
                }
            }
            joined.push(event);
        }
        joined
    }

    fn copy_row(table: &str, id: i64) -> VEvent {
        let mut event = rows(table, 0, vec![(None, Some(row(id, "copied")))]);
        event.keyspace = "ks".into();
        event.shard = "-80".into();
        event
    }

    #[test]
    fn a_copy_batchs_row_events_arrive_as_one_with_every_row_in_order() {
        let mut events = vec![VEvent {
            r#type: VEventType::Begin as i32,
            ..Default::default()
        }];
        events.extend((1..=500).map(|id| copy_row("a", id)));
        events.extend((1..=3).map(|id| copy_row("b", id)));
        events.push(VEvent {
            r#type: VEventType::Commit as i32,
            ..Default::default()
        });
        let encoded = bytes::Bytes::from(VStreamResponse { events }.encode_to_vec());
        let (decoded, on_wire) = decode_counted(encoded.clone()).unwrap();
        assert_eq!(on_wire, 505, "the metrics count what came on the wire");
        assert_eq!(decoded.events, joined_by_prost(&encoded));
        let changes: Vec<usize> = decoded
            .events
            .iter()
            .map(|e| e.row_event.as_ref().map_or(0, |r| r.row_changes.len()))
            .collect();
        assert_eq!(
            changes,
            [0, 500, 3, 0],
            "one ROW event per table of the batch"
        );
        for event in &decoded.events[1..3] {
            let changes = &event.row_event.as_ref().unwrap().row_changes;
            // Sized once to its run (the allocator's smallest capacity is 4), never doubled.
            assert!(
                changes.capacity() <= changes.len().max(4),
                "{}",
                changes.capacity()
            );
        }
    }

    #[test]
    fn row_events_differing_in_anything_but_their_changes_stay_apart() {
        let base = copy_row("a", 1);
        let mut later = base.clone();
        later.timestamp = 1700000000;
        let mut other_shard = base.clone();
        other_shard.row_event.as_mut().unwrap().shard = "80-".into();
        let mut timed = base.clone();
        timed.current_time = 5;
        let mut internal = base.clone();
        internal.row_event.as_mut().unwrap().is_internal_table = true;
        let mut no_row_event = base.clone();
        no_row_event.row_event = None;
        let mut not_a_row = base.clone();
        not_a_row.r#type = VEventType::Other as i32;
        let variants = [
            later,
            other_shard,
            timed,
            internal,
            no_row_event,
            not_a_row,
            base.clone(),
        ];
        for variant in variants {
            let events = vec![base.clone(), variant.clone(), base.clone()];
            let encoded = VStreamResponse { events }.encode_to_vec();
            let decoded = decode_response(bytes::Bytes::from(encoded.clone())).unwrap();
            assert_eq!(decoded.events, joined_by_prost(&encoded), "{variant:?}");
        }
        // A field this build does not know joins only the events that carry it alike.
        let with_unknown = |value: u8| {
            let mut bytes = base.encode_to_vec();
            bytes.extend([0xf8, 0x06, value]); // field 111, varint
            bytes
        };
        let mut encoded = Vec::new();
        for event in [
            with_unknown(1),
            with_unknown(1),
            with_unknown(2),
            base.encode_to_vec(),
        ] {
            prost::encoding::bytes::encode(1, &event, &mut encoded);
        }
        let decoded = decode_response(bytes::Bytes::from(encoded)).unwrap();
        let changes: Vec<usize> = decoded
            .events
            .iter()
            .map(|e| e.row_event.as_ref().unwrap().row_changes.len())
            .collect();
        assert_eq!(changes, [2, 1, 1]);
    }

    proptest::proptest! {
        #[test]
        fn any_response_decodes_as_prost_with_row_runs_joined(
            shapes in proptest::collection::vec(
                (0u8..5, 0u8..2, 0u8..2, 0u8..2, proptest::collection::vec((0u8..3, 0i64..100), 0..3)),
                0..40,
            ),
            cut in proptest::option::of(0usize..4000),
        ) {
            let events: Vec<VEvent> = shapes
                .into_iter()
                .map(|(kind, table, timestamp, shard, changes)| {
                    let changes = changes
                        .into_iter()
                        .map(|(images, id)| match images {
                            0 => (None, Some(row(id, "a"))),
                            1 => (Some(row(id, "b")), None),
                            _ => (Some(row(id, "c")), Some(row(id + 1, "d"))),
                        })
                        .collect();
                    let mut event = rows(["a", "b"][table as usize], i64::from(timestamp), changes);
                    event.shard = ["-80", "80-"][shard as usize].into();
                    match kind {
                        0 => event.r#type = VEventType::Begin as i32,
                        1 => event.row_event = None,
                        _ => {}
                    }
                    event
                })
                .collect();
            let mut encoded = VStreamResponse { events }.encode_to_vec();
            match cut {
                // A cut response fails as prost's decoding fails.
                Some(cut) if cut < encoded.len() => {
                    encoded.truncate(cut);
                    let ours = decode_response(bytes::Bytes::from(encoded.clone()));
                    proptest::prop_assert_eq!(ours.is_err(), VStreamResponse::decode(&encoded[..]).is_err());
                    if ours.is_ok() {
                        proptest::prop_assert_eq!(ours.unwrap().events, joined_by_prost(&encoded));
                    }
                }
                _ => {
                    let (decoded, on_wire) = decode_counted(bytes::Bytes::from(encoded.clone())).unwrap();
                    proptest::prop_assert_eq!(on_wire, VStreamResponse::decode(&encoded[..]).unwrap().events.len());
                    proptest::prop_assert_eq!(decoded.events, joined_by_prost(&encoded));
                }
            }
        }
    }
}
