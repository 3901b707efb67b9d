// Copyright 2026 The vitess-cdc Authors
// SPDX-License-Identifier: Apache-2.0

//! The VStream call's codec: prost's, plus each response's size on the wire, taken as it is
//! decoded. The bytes metric needs that size, and prost's `encoded_len` afterwards walked every
//! event, row and length of the response again (3 % of the stream thread in a copy's profile).

use crate::proto::vtgate::{VStreamRequest, VStreamResponse};
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::Status;
use tonic_prost::{ProstDecoder, ProstEncoder};

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
        SizedDecoder(ProstDecoder::default())
    }
}

/// Prost's decoder, noting the size of the message it decodes.
#[derive(Debug)]
pub struct SizedDecoder(ProstDecoder<VStreamResponse>);

impl Decoder for SizedDecoder {
    type Item = ReceivedResponse;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<ReceivedResponse>, Status> {
        // The buffer holds exactly this message (gRPC frames each one with its length).
        let encoded_len = bytes::Buf::remaining(buf);
        Ok(self.0.decode(buf)?.map(|response| ReceivedResponse {
            response,
            encoded_len,
        }))
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}
