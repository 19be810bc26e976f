//! Protobuf's wire encoding, for the one message this crate reads and writes field by field:
//! the `Serialized` envelope (`envelope.rs`), whose payload is borrowed rather than copied.
//!
//! This is the crate's only user of `prost::encoding`, which prost documents as "only for
//! Message implementations" and hides from its docs: it is outside prost's semver promise (the
//! workspace pins prost exactly for that reason). Every other module encodes and decodes whole
//! messages through [`prost::Message`]. No public signature names a `prost::encoding` type:
//! errors carry this module's own [`WireType`].

use std::fmt;

use prost::DecodeError;
use prost::encoding::{self, DecodeContext};

/// How a protobuf field's value is framed on the wire: the low three bits of its tag.
///
/// The six wire types of the protobuf encoding; it displays as its variant name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WireType {
    /// 0: a base-128 varint (`int32`, `int64`, `bool`, enums...).
    Varint = 0,
    /// 1: eight little-endian bytes (`fixed64`, `double`...).
    SixtyFourBit = 1,
    /// 2: a varint length, then that many bytes (strings, bytes, messages, packed repeated).
    LengthDelimited = 2,
    /// 3: the start of a group (deprecated).
    StartGroup = 3,
    /// 4: the end of a group (deprecated).
    EndGroup = 4,
    /// 5: four little-endian bytes (`fixed32`, `float`...).
    ThirtyTwoBit = 5,
}

impl WireType {
    /// The number the wire type has in a tag, 0 to 5.
    pub const fn number(self) -> u8 {
        self as u8
    }

    const fn from_prost(wire_type: encoding::WireType) -> Self {
        use encoding::WireType as Prost;
        match wire_type {
            Prost::Varint => WireType::Varint,
            Prost::SixtyFourBit => WireType::SixtyFourBit,
            Prost::LengthDelimited => WireType::LengthDelimited,
            Prost::StartGroup => WireType::StartGroup,
            Prost::EndGroup => WireType::EndGroup,
            Prost::ThirtyTwoBit => WireType::ThirtyTwoBit,
        }
    }

    const fn to_prost(self) -> encoding::WireType {
        use encoding::WireType as Prost;
        match self {
            WireType::Varint => Prost::Varint,
            WireType::SixtyFourBit => Prost::SixtyFourBit,
            WireType::LengthDelimited => Prost::LengthDelimited,
            WireType::StartGroup => Prost::StartGroup,
            WireType::EndGroup => Prost::EndGroup,
            WireType::ThirtyTwoBit => Prost::ThirtyTwoBit,
        }
    }
}

impl fmt::Display for WireType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Appends the tag of field `field` with `wire_type`.
#[inline]
pub(crate) fn put_key(field: u32, wire_type: WireType, out: &mut Vec<u8>) {
    encoding::encode_key(field, wire_type.to_prost(), out);
}

/// Appends `value` as a varint.
#[inline]
pub(crate) fn put_varint(value: u64, out: &mut Vec<u8>) {
    encoding::encode_varint(value, out);
}

/// Writes `value` as a varint over the start of `out`, which must hold
/// [`varint_len`]`(value)` bytes.
#[inline]
pub(crate) fn put_varint_at(value: u64, mut out: &mut [u8]) {
    encoding::encode_varint(value, &mut out);
}

/// How many bytes `value` takes as a varint.
#[inline]
pub(crate) fn varint_len(value: u64) -> usize {
    encoding::encoded_len_varint(value)
}

/// Reads a field's tag: its number and wire type.
#[inline]
pub(crate) fn read_key(buf: &mut &[u8]) -> Result<(u32, WireType), DecodeError> {
    encoding::decode_key(buf).map(|(field, wire_type)| (field, WireType::from_prost(wire_type)))
}

/// Reads a varint.
#[inline]
pub(crate) fn read_varint(buf: &mut &[u8]) -> Result<u64, DecodeError> {
    encoding::decode_varint(buf)
}

/// Skips the value of a field whose tag was just read, as prost skips unknown fields.
#[inline]
pub(crate) fn skip_field(
    wire_type: WireType,
    field: u32,
    buf: &mut &[u8],
) -> Result<(), DecodeError> {
    encoding::skip_field(wire_type.to_prost(), field, buf, DecodeContext::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_types_keep_their_numbers() {
        for number in 0..6u64 {
            let mut tag = Vec::new();
            put_varint(1 << 3 | number, &mut tag);
            let (field, wire_type) = read_key(&mut tag.as_slice()).unwrap();
            assert_eq!((field, u64::from(wire_type.number())), (1, number));
            assert_eq!(WireType::from_prost(wire_type.to_prost()), wire_type);
        }
        assert_eq!(WireType::LengthDelimited.to_string(), "LengthDelimited");
    }

    #[test]
    fn varints_written_in_place_read_back() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut bytes = vec![0; varint_len(value)];
            put_varint_at(value, &mut bytes);
            let mut appended = Vec::new();
            put_varint(value, &mut appended);
            assert_eq!(bytes, appended);
            assert_eq!(read_varint(&mut bytes.as_slice()).unwrap(), value);
        }
    }
}
