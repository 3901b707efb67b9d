// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The VStream call's codec: prost's, plus each response's size on the wire, taken as it is
//! decoded. The bytes metric needs that size, and prost's `encoded_len` afterwards walked every
//! event, row and length of the response again (3 % of the stream thread in a copy's profile).

use crate::proto::vtgate::{VStreamRequest, VStreamResponse};
use prost::Message;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::Status;
use tonic_prost::ProstEncoder;

/// A VStream response and the bytes it took on the wire (its protobuf encoding).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReceivedResponse {
    pub response: VStreamResponse,
    pub encoded_len: usize,
}

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
        let response = decode_response(message)
            .map_err(|e| Status::internal(format!("cannot decode a VStream response: {e}")))?;
        Ok(Some(ReceivedResponse {
            response,
            encoded_len,
        }))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// Decodes a VStream response into a list of events sized for it up front.
///
/// prost pushes a repeated message field's items one by one. A copy batch carries one `VEvent`
/// (≈ 350 bytes) per row, a thousand or more per response, and the growing `Vec` moved every
/// event it held at each doubling: twice the events' size in `memmove` per response, about a
/// tenth of the native stream thread in a copy's profile. Counting the events first is a walk
/// over field keys and lengths only.
pub fn decode_response(message: bytes::Bytes) -> Result<VStreamResponse, prost::DecodeError> {
    let mut response = VStreamResponse {
        events: Vec::with_capacity(events_in(&message)),
    };
    response.merge(message)?;
    Ok(response)
}

/// The `events` fields (number 1, length-delimited) at the top level of an encoded
/// `VStreamResponse`; the count so far at anything malformed, which the decoding then reports.
fn events_in(mut message: &[u8]) -> usize {
    use prost::encoding::{decode_key, skip_field, DecodeContext, WireType};
    let mut events = 0;
    while !message.is_empty() {
        let Ok((tag, wire_type)) = decode_key(&mut message) else {
            break;
        };
        if skip_field(wire_type, tag, &mut message, DecodeContext::default()).is_err() {
            break;
        }
        if tag == 1 && wire_type == WireType::LengthDelimited {
            events += 1;
        }
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::binlogdata::{VEvent, VEventType};

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
}
