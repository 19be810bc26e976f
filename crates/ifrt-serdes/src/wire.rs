//! Protobuf's wire encoding, for the one message this crate reads and writes field by field:
//! the `Serialized` envelope (`envelope.rs`), whose payload is borrowed rather than copied.
//!
//! Written here on purpose, in a few lines, rather than taken from prost's `encoding` module:
//! prost documents that module as "only for Message implementations", hides it from its docs and
//! keeps it outside its semver promise, so a crate that used it would have to pin prost exactly
//! (and a user with another prost 0.14 release could not build). Everything else in the crate
//! encodes and decodes whole messages through [`prost::Message`], prost's public API; the tests
//! below hold these helpers to what prost's own encoder writes and its decoder accepts.
//!
//! The encoding (protobuf's "Encoding" guide): a field is a *key*, the varint
//! `field_number << 3 | wire_type`, then its value: a varint, 8 or 4 bytes, or a varint length
//! and that many bytes. A varint is little-endian base 128, at most 10 bytes for 64 bits.

use std::fmt;

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

    /// The wire type numbered `number`, if there is one.
    pub const fn from_number(number: u64) -> Option<Self> {
        Some(match number {
            0 => WireType::Varint,
            1 => WireType::SixtyFourBit,
            2 => WireType::LengthDelimited,
            3 => WireType::StartGroup,
            4 => WireType::EndGroup,
            5 => WireType::ThirtyTwoBit,
            _ => return None,
        })
    }
}

impl fmt::Display for WireType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Why bytes are not protobuf: the same cases, and the same words, as prost's decoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// A varint runs past the end of the input or past ten bytes.
    #[error("invalid varint")]
    InvalidVarint,
    /// A key does not fit in 32 bits.
    #[error("invalid key value: {key}")]
    InvalidKey {
        /// The key read.
        key: u64,
    },
    /// A key's low three bits name no wire type (6 or 7).
    #[error("invalid wire type value: {wire_type}")]
    InvalidWireType {
        /// The bits read.
        wire_type: u64,
    },
    /// A key names field 0, which no message has.
    #[error("invalid tag value: 0")]
    InvalidTag,
    /// An end-group key without its start, or closing another group.
    #[error("unexpected end group tag")]
    UnexpectedEndGroup,
    /// A value runs past the end of the input.
    #[error("buffer underflow")]
    BufferUnderflow,
    /// Groups are nested deeper than prost allows (100).
    #[error("recursion limit reached")]
    RecursionLimit,
}

/// How deeply groups may nest while they are skipped: prost's default recursion limit.
const RECURSION_LIMIT: u32 = 100;

/// Appends the key of field `field` with `wire_type`.
#[inline]
pub(crate) fn put_key(field: u32, wire_type: WireType, out: &mut Vec<u8>) {
    put_varint(u64::from(field) << 3 | u64::from(wire_type.number()), out);
}

/// Appends `value` as a varint.
#[inline]
pub(crate) fn put_varint(mut value: u64, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Writes `value` as a varint over the start of `out`, which must hold [`varint_len`]`(value)`
/// bytes.
#[inline]
pub(crate) fn put_varint_at(mut value: u64, out: &mut [u8]) {
    let mut i = 0;
    while value >= 0x80 {
        out[i] = (value as u8 & 0x7f) | 0x80;
        value >>= 7;
        i += 1;
    }
    out[i] = value as u8;
}

/// How many bytes `value` takes as a varint: one per started group of 7 bits, at least one.
#[inline]
pub(crate) const fn varint_len(value: u64) -> usize {
    let bits = 64 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Reads a field's key: its number and wire type.
#[inline]
pub(crate) fn read_key(buf: &mut &[u8]) -> Result<(u32, WireType), WireError> {
    let key = read_varint(buf)?;
    let key32 = u32::try_from(key).map_err(|_| WireError::InvalidKey { key })?;
    let wire_type =
        WireType::from_number(key & 7).ok_or(WireError::InvalidWireType { wire_type: key & 7 })?;
    let field = key32 >> 3;
    if field == 0 {
        return Err(WireError::InvalidTag);
    }
    Ok((field, wire_type))
}

/// Reads a varint. As prost does, a tenth byte may only carry the 64th bit.
#[inline]
pub(crate) fn read_varint(buf: &mut &[u8]) -> Result<u64, WireError> {
    let mut value = 0u64;
    for (i, &byte) in buf.iter().take(10).enumerate() {
        if i == 9 && byte > 1 {
            return Err(WireError::InvalidVarint);
        }
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            *buf = &buf[i + 1..];
            return Ok(value);
        }
    }
    Err(WireError::InvalidVarint)
}

/// Skips the value of a field whose key was just read, as prost skips unknown fields
/// (groups included, nested at most [`RECURSION_LIMIT`] deep).
pub(crate) fn skip_field(
    wire_type: WireType,
    field: u32,
    buf: &mut &[u8],
) -> Result<(), WireError> {
    skip_nested(wire_type, field, buf, RECURSION_LIMIT)
}

fn skip_nested(
    wire_type: WireType,
    field: u32,
    buf: &mut &[u8],
    depth_left: u32,
) -> Result<(), WireError> {
    if depth_left == 0 {
        return Err(WireError::RecursionLimit);
    }
    let len = match wire_type {
        WireType::Varint => {
            read_varint(buf)?;
            0
        }
        WireType::SixtyFourBit => 8,
        WireType::ThirtyTwoBit => 4,
        WireType::LengthDelimited => read_varint(buf)?,
        WireType::StartGroup => loop {
            let (inner, inner_type) = read_key(buf)?;
            if inner_type == WireType::EndGroup {
                if inner != field {
                    return Err(WireError::UnexpectedEndGroup);
                }
                break 0;
            }
            skip_nested(inner_type, inner, buf, depth_left - 1)?;
        },
        WireType::EndGroup => return Err(WireError::UnexpectedEndGroup),
    };
    let len = usize::try_from(len)
        .ok()
        .filter(|len| *len <= buf.len())
        .ok_or(WireError::BufferUnderflow)?;
    *buf = &buf[len..];
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::xla::ifrt::{ShapeProto, ShardingParamProto};
    use proptest::prelude::*;
    use prost::Message;

    #[test]
    fn wire_types_keep_their_numbers() {
        for number in 0..6u64 {
            let mut key = Vec::new();
            put_varint(1 << 3 | number, &mut key);
            let (field, wire_type) = read_key(&mut key.as_slice()).unwrap();
            assert_eq!((field, u64::from(wire_type.number())), (1, number));
            assert_eq!(WireType::from_number(number), Some(wire_type));
        }
        assert_eq!(WireType::from_number(6), None);
        assert_eq!(WireType::LengthDelimited.to_string(), "LengthDelimited");
    }

    #[test]
    fn varints_at_their_edges() {
        for (value, len) in [
            (0, 1),
            (1, 1),
            (127, 1),
            (128, 2),
            (300, 2),
            (16_383, 2),
            (16_384, 3),
            (u64::from(u32::MAX), 5),
            (1 << 63, 10),
            (u64::MAX, 10),
        ] {
            assert_eq!(varint_len(value), len, "{value}");
            let mut appended = Vec::new();
            put_varint(value, &mut appended);
            assert_eq!(appended.len(), len, "{value}");
            let mut in_place = vec![0; len];
            put_varint_at(value, &mut in_place);
            assert_eq!(in_place, appended);
            let mut rest = &appended[..];
            assert_eq!(read_varint(&mut rest), Ok(value));
            assert!(rest.is_empty());
        }
        assert_eq!(put(300), [0xac, 0x02]);
        // Cut short, eleven bytes long, a tenth byte above 1: not varints.
        for bad in [
            &[0x80][..],
            &[0xff; 11],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
        ] {
            assert_eq!(
                read_varint(&mut &bad[..]),
                Err(WireError::InvalidVarint),
                "{bad:?}"
            );
        }
    }

    fn put(value: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(value, &mut out);
        out
    }

    #[test]
    fn keys_and_skips_refused_as_prost_refuses_them() {
        assert_eq!(read_key(&mut &[0x00][..]), Err(WireError::InvalidTag));
        assert_eq!(
            read_key(&mut &[0x0f][..]),
            Err(WireError::InvalidWireType { wire_type: 7 })
        );
        let too_big = put(u64::from(u32::MAX) + 1);
        assert!(matches!(
            read_key(&mut too_big.as_slice()),
            Err(WireError::InvalidKey { .. })
        ));
        assert_eq!(
            skip_field(WireType::EndGroup, 1, &mut &[][..]),
            Err(WireError::UnexpectedEndGroup)
        );
        assert_eq!(
            skip_field(WireType::LengthDelimited, 1, &mut &[5, 1][..]),
            Err(WireError::BufferUnderflow)
        );
        // A group of field 1 closed as field 2.
        assert_eq!(
            skip_field(WireType::StartGroup, 1, &mut &[0x14][..]),
            Err(WireError::UnexpectedEndGroup)
        );
        // Groups of field 7 (unknown to `ShapeProto`) nested 100 deep are skipped, 101 are too
        // deep, for prost as here.
        for (depth, ok) in [(1, true), (100, true), (101, false)] {
            let mut bytes = vec![0x3b; depth - 1];
            bytes.extend(vec![0x3c; depth]);
            let skipped = skip_field(WireType::StartGroup, 7, &mut bytes.as_slice());
            assert_eq!(skipped.is_ok(), ok, "{depth}");
            let mut message = vec![0x3b];
            message.extend(&bytes);
            assert_eq!(
                ShapeProto::decode(message.as_slice()).is_ok(),
                ok,
                "{depth}"
            );
        }
    }

    /// One field of a hand-made message: any number, any wire type, well or badly formed.
    fn field() -> impl Strategy<Value = Vec<u8>> {
        (
            0u32..8,
            0u8..8,
            proptest::collection::vec(any::<u8>(), 0..12),
            any::<bool>(),
        )
            .prop_map(|(number, wire, payload, well_formed)| {
                let mut out = Vec::new();
                put_varint(u64::from(number << 3 | u32::from(wire)), &mut out);
                match (wire, well_formed) {
                    (0, true) => put_varint(payload.len() as u64 * 1000, &mut out),
                    (2, true) => {
                        put_varint(payload.len() as u64, &mut out);
                        out.extend(&payload);
                    }
                    (1, true) => out.extend([7; 8]),
                    (5, true) => out.extend([7; 4]),
                    _ => out.extend(&payload),
                }
                out
            })
    }

    /// Reads a whole message the way a decoder that knows none of its fields does.
    fn skip_all(mut buf: &[u8]) -> Result<(), WireError> {
        while !buf.is_empty() {
            let (field, wire_type) = read_key(&mut buf)?;
            skip_field(wire_type, field, &mut buf)?;
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Varints and keys written here are the bytes prost's encoder writes for the same
        /// numbers (through a generated message, prost's public API).
        #[test]
        fn writes_what_prost_writes(version in any::<i32>(), dims in proptest::collection::vec(any::<i64>(), 0..4)) {
            let proto = ShapeProto { version_number: version, dims: dims.clone() };
            let mut ours = Vec::new();
            if !dims.is_empty() {
                let mut packed = Vec::new();
                for dim in &dims {
                    put_varint(*dim as u64, &mut packed);
                }
                put_key(1, WireType::LengthDelimited, &mut ours);
                put_varint(packed.len() as u64, &mut ours);
                ours.extend(packed);
            }
            if version != 0 {
                put_key(2, WireType::Varint, &mut ours);
                // int32 is sign-extended to 64 bits on the wire.
                put_varint(i64::from(version) as u64, &mut ours);
            }
            prop_assert_eq!(ours, proto.encode_to_vec());
        }

        /// Bytes made of arbitrary fields are accepted exactly when prost accepts them as a
        /// message whose fields are all unknown to it.
        #[test]
        fn skips_what_prost_skips(fields in proptest::collection::vec(field(), 0..5)) {
            let bytes = fields.concat();
            // Field numbers 6 and 7 are unknown to `ShardingParamProto` (1 to 5 are its own):
            // compare only messages made of them, which prost skips as this module does.
            let unknown_only = {
                let mut buf = bytes.as_slice();
                let mut all = true;
                while !buf.is_empty() {
                    match read_key(&mut buf) {
                        Ok((field, wire_type)) => {
                            all &= field >= 6;
                            if skip_field(wire_type, field, &mut buf).is_err() { break; }
                        }
                        Err(_) => break,
                    }
                }
                all
            };
            if unknown_only {
                prop_assert_eq!(
                    skip_all(&bytes).is_ok(),
                    ShardingParamProto::decode(bytes.as_slice()).is_ok(),
                    "{:?}", bytes
                );
            }
        }

        #[test]
        fn arbitrary_varints_read_as_prost_reads_them(bytes in proptest::collection::vec(any::<u8>(), 0..12)) {
            // A message of one `int64` field (field 1 of `ShapeProto`, unpacked form).
            let mut message = vec![0x08];
            message.extend(&bytes);
            let ours = read_varint(&mut &bytes[..]);
            let prost = ShapeProto::decode(message.as_slice());
            if let Ok(value) = ours {
                let rest_len = bytes.len() - varint_len(value).min(bytes.len());
                if rest_len == 0 && varint_len(value) == bytes.len() {
                    prop_assert_eq!(prost.map(|p| p.dims), Ok(vec![value as i64]));
                }
            } else {
                prop_assert!(prost.is_err());
            }
        }
    }
}
