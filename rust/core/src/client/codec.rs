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
        let response = VStreamResponse::decode(message)
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
