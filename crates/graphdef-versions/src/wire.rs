//! Reading and writing protobuf fields straight from bytes, without decoding whole messages.
//!
//! [`Fields`] walks the fields of one message, borrowing every length-delimited payload from the
//! input (no allocation). Every length is checked against the bytes that remain before it is
//! used, varints and tags are decoded by prost's own helpers, and anything unexpected becomes a
//! typed [`DecodeError`] naming the byte offset.
//!
//! This is the crate's only user of `prost::encoding`, which prost documents as "only for
//! Message implementations" and hides from its docs: it is outside prost's semver promise (the
//! workspace pins prost exactly for that reason). No public signature names one of its types;
//! errors carry this module's own [`WireType`].

use std::fmt;

use prost::encoding::{DecodeContext, decode_key, decode_varint, skip_field};

use crate::error::{DecodeError, Error};

/// The largest input accepted: protobuf messages are limited to 2 GiB.
pub const MAX_MESSAGE_LEN: usize = i32::MAX as usize;

/// How a protobuf field's value is framed on the wire: the low three bits of its tag.
///
/// The six wire types of the protobuf encoding; it displays as its variant name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WireType {
    /// 0: a base-128 varint (`int32`, `int64`, `bool`, enums...).
    Varint,
    /// 1: eight little-endian bytes (`fixed64`, `double`...).
    SixtyFourBit,
    /// 2: a varint length, then that many bytes (strings, bytes, messages, packed repeated).
    LengthDelimited,
    /// 3: the start of a group (deprecated).
    StartGroup,
    /// 4: the end of a group (deprecated).
    EndGroup,
    /// 5: four little-endian bytes (`fixed32`, `float`...).
    ThirtyTwoBit,
}

impl WireType {
    /// The number the wire type has in a tag, 0 to 5.
    pub const fn number(self) -> u8 {
        match self {
            WireType::Varint => 0,
            WireType::SixtyFourBit => 1,
            WireType::LengthDelimited => 2,
            WireType::StartGroup => 3,
            WireType::EndGroup => 4,
            WireType::ThirtyTwoBit => 5,
        }
    }

    const fn from_prost(wire_type: prost::encoding::WireType) -> Self {
        use prost::encoding::WireType as Prost;
        match wire_type {
            Prost::Varint => WireType::Varint,
            Prost::SixtyFourBit => WireType::SixtyFourBit,
            Prost::LengthDelimited => WireType::LengthDelimited,
            Prost::StartGroup => WireType::StartGroup,
            Prost::EndGroup => WireType::EndGroup,
            Prost::ThirtyTwoBit => WireType::ThirtyTwoBit,
        }
    }
}

impl fmt::Display for WireType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// One field of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field<'a> {
    /// The field number.
    pub number: u32,
    /// Offset of the field's tag, from the start of the whole input.
    pub start: usize,
    /// Offset just past the field, from the start of the whole input.
    pub end: usize,
    /// Length of the field's tag (key) as written, which may be longer than needed.
    pub key_len: usize,
    /// The field's value.
    pub value: Value<'a>,
}

/// The value of a field, by wire type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    Varint(u64),
    /// A length-delimited payload and the offset where it starts.
    Bytes(&'a [u8], usize),
    /// A fixed-width or group field, skipped.
    Other(WireType),
}

impl<'a> Field<'a> {
    /// The payload of a length-delimited field and the offset where it starts; `None` when
    /// the field arrived with another wire type.
    ///
    /// A known field whose wire type does not match its declaration is an unknown field to
    /// protobuf's own parsers (upb, which `GraphDef.FromString` uses, and the C++ runtime):
    /// they skip it and keep reading. TensorFlow 2.21 reads a NodeDef whose `op` is sent as a
    /// varint as a node without an op. So every reader of this crate skips such a field too.
    pub(crate) fn payload(&self) -> Option<(&'a [u8], usize)> {
        match self.value {
            Value::Bytes(bytes, offset) => Some((bytes, offset)),
            _ => None,
        }
    }

    /// The value of a varint field; `None` for any other wire type (see [`Field::payload`]).
    pub(crate) fn varint(&self) -> Option<u64> {
        match self.value {
            Value::Varint(value) => Some(value),
            _ => None,
        }
    }

    /// The value of a `string` field; `None` for another wire type (see [`Field::payload`]),
    /// a typed error when it is not UTF-8 (protobuf's parsers refuse such a proto3 string).
    pub(crate) fn string(&self, what: &'static str) -> Result<Option<&'a str>, Error> {
        let Some((bytes, offset)) = self.payload() else {
            return Ok(None);
        };
        std::str::from_utf8(bytes)
            .map(Some)
            .map_err(|_| DecodeError::NotUtf8 { what, offset }.into())
    }
}

/// The fields of one message, in wire order.
pub(crate) struct Fields<'a> {
    rest: &'a [u8],
    /// Offset of `rest` from the start of the whole input.
    offset: usize,
    /// The message being read, for error messages.
    message: &'static str,
    failed: bool,
}

impl<'a> Fields<'a> {
    /// The fields of `bytes`, a `message` that starts at `offset` in the whole input.
    pub(crate) fn new(bytes: &'a [u8], offset: usize, message: &'static str) -> Self {
        Fields {
            rest: bytes,
            offset,
            message,
            failed: false,
        }
    }

    /// Any field, by the general decoder; every malformed input ends here.
    #[inline(never)]
    fn read(&mut self) -> Result<Field<'a>, Error> {
        let start = self.offset;
        let mut buf = self.rest;
        let malformed = |source| malformed(start, self.message, source);
        let (number, wire_type) = decode_key(&mut buf).map_err(malformed)?;
        let key_len = self.rest.len() - buf.len();
        let value = match wire_type {
            prost::encoding::WireType::Varint => {
                Value::Varint(read_varint(&mut buf).map_err(malformed)?)
            }
            prost::encoding::WireType::LengthDelimited => {
                let len = decode_varint(&mut buf).map_err(malformed)?;
                let payload_offset = start + (self.rest.len() - buf.len());
                if len > buf.len() as u64 {
                    return Err(DecodeError::Truncated {
                        what: "a length-delimited field",
                        offset: start,
                        needed: len,
                        available: buf.len(),
                        expected: self.message,
                    }
                    .into());
                }
                // len <= buf.len(), so it fits in usize.
                let (payload, after) = buf.split_at(len as usize);
                buf = after;
                Value::Bytes(payload, payload_offset)
            }
            other => {
                skip_other(other, number, &mut buf).map_err(malformed)?;
                Value::Other(WireType::from_prost(other))
            }
        };
        let consumed = self.rest.len() - buf.len();
        self.rest = buf;
        self.offset += consumed;
        Ok(Field {
            number,
            start,
            end: self.offset,
            key_len,
            value,
        })
    }
}

impl<'a> Fields<'a> {
    /// The common case, read without the general decoder: a one-byte tag (fields 1 to 15)
    /// followed by a one-byte varint or a one-byte length (values and lengths below 128). A
    /// graph's nodes and almost all of their fields look like this. Anything else, including
    /// every malformed input, is left to [`Fields::read`]'s general path.
    #[inline]
    fn read_short(&mut self) -> Option<Field<'a>> {
        let [key, first, rest @ ..] = self.rest else {
            return None;
        };
        let (key, first) = (*key, *first);
        // Field number 0 (key below 8) and two-byte values take the general path.
        if !(8..0x80).contains(&key) || first >= 0x80 {
            return None;
        }
        let start = self.offset;
        let (value, consumed) = match key & 7 {
            0 => (Value::Varint(u64::from(first)), 2),
            2 => {
                let payload = rest.get(..usize::from(first))?;
                (Value::Bytes(payload, start + 2), 2 + payload.len())
            }
            _ => return None,
        };
        self.rest = &self.rest[consumed..];
        self.offset += consumed;
        Some(Field {
            number: u32::from(key >> 3),
            start,
            end: self.offset,
            key_len: 1,
            value,
        })
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, Error>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() || self.failed {
            return None;
        }
        if let Some(field) = self.read_short() {
            return Some(Ok(field));
        }
        let field = self.read();
        self.failed = field.is_err();
        Some(field)
    }
}

/// The payload of the last length-delimited field `number` of a message, and where it starts;
/// `None` when there is none. Every field's framing is checked as [`Fields`] checks it.
///
/// This is the op scan's inner loop, run once per node: fields with a one-byte tag and a
/// one-byte length or value (nearly every field of a NodeDef) are stepped over without
/// building a [`Field`]; from the first other field on, [`Fields`] reads the rest.
pub(crate) fn last_payload<'a>(
    bytes: &'a [u8],
    offset: usize,
    message: &'static str,
    number: u32,
) -> Result<Option<(&'a [u8], usize)>, Error> {
    let mut found = None;
    let mut at = 0;
    while let (Some(&key), Some(&first)) = (bytes.get(at), bytes.get(at + 1)) {
        if !(8..0x80).contains(&key) || first >= 0x80 {
            break;
        }
        match key & 7 {
            0 => at += 2,
            2 => {
                let end = at + 2 + usize::from(first);
                let Some(payload) = bytes.get(at + 2..end) else {
                    break;
                };
                if u32::from(key >> 3) == number {
                    found = Some((payload, offset + at + 2));
                }
                at = end;
            }
            _ => break,
        }
    }
    for field in Fields::new(&bytes[at..], offset + at, message) {
        let field = field?;
        if field.number == number
            && let Some(payload) = field.payload()
        {
            found = Some(payload);
        }
    }
    Ok(found)
}

/// A varint value as protobuf's own parsers read it (upb's `_upb_Decoder_DecodeVarint`, and
/// the C++ runtime): at most ten bytes, the bits past the 64th dropped. prost refuses a tenth
/// byte above 1, which TensorFlow 2.21 reads (an int32 field written as ten bytes ending in
/// `7f` is -1). Anything else prost's reader would refuse is refused, with prost's error.
fn read_varint(buf: &mut &[u8]) -> Result<u64, prost::DecodeError> {
    let mut value = 0u64;
    for (at, &byte) in buf.iter().take(10).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * at);
        if byte < 0x80 {
            *buf = &buf[at + 1..];
            return Ok(value);
        }
    }
    // Cut short, or longer than ten bytes: prost says which.
    decode_varint(buf)
}

/// Steps over a fixed-width field or a group (with everything in it, nested groups too), as
/// [`skip_field`] does but reading varints as [`read_varint`] does; where that fails, prost's
/// own skip gives the error.
fn skip_other(
    wire_type: prost::encoding::WireType,
    number: u32,
    buf: &mut &[u8],
) -> Result<(), prost::DecodeError> {
    let mut rest = *buf;
    if skip_lenient(wire_type, number, &mut rest, 0).is_some() {
        *buf = rest;
        return Ok(());
    }
    skip_field(wire_type, number, buf, DecodeContext::default())
}

/// Groups nest at most this deep, as in prost's and upb's default limit.
const GROUP_DEPTH_LIMIT: u32 = 100;

fn skip_lenient(
    wire_type: prost::encoding::WireType,
    number: u32,
    buf: &mut &[u8],
    depth: u32,
) -> Option<()> {
    use prost::encoding::WireType as Prost;
    let advance = |buf: &mut &[u8], len: u64| {
        let len = usize::try_from(len).ok()?;
        *buf = buf.get(len..)?;
        Some(())
    };
    match wire_type {
        Prost::Varint => read_varint(buf).ok().map(drop),
        Prost::SixtyFourBit => advance(buf, 8),
        Prost::ThirtyTwoBit => advance(buf, 4),
        Prost::LengthDelimited => {
            let len = decode_varint(buf).ok()?;
            advance(buf, len)
        }
        Prost::StartGroup => {
            if depth >= GROUP_DEPTH_LIMIT {
                return None;
            }
            loop {
                let (inner, inner_type) = decode_key(buf).ok()?;
                if inner_type == Prost::EndGroup {
                    return (inner == number).then_some(());
                }
                skip_lenient(inner_type, inner, buf, depth + 1)?;
            }
        }
        Prost::EndGroup => None,
    }
}

/// Checks that `bytes` may be a protobuf message at all: not above 2 GiB.
pub(crate) fn check_size(bytes: &[u8]) -> Result<(), Error> {
    check_len(bytes.len() as u64)
}

/// Checks that a message of `len` bytes is within protobuf's 2 GiB limit.
pub(crate) fn check_len(len: u64) -> Result<(), Error> {
    if len > MAX_MESSAGE_LEN as u64 {
        return Err(DecodeError::TooLarge { len }.into());
    }
    Ok(())
}

/// A [`DecodeError::Malformed`] for a field of `message` starting at `offset`.
fn malformed(offset: usize, message: &'static str, source: prost::DecodeError) -> Error {
    DecodeError::Malformed {
        offset,
        expected: message,
        source,
    }
    .into()
}

/// Calls `each` with every varint of a packed repeated field's payload, which starts at `offset`
/// of the whole input and belongs to `message`.
pub(crate) fn packed_varints(
    mut payload: &[u8],
    offset: usize,
    message: &'static str,
    mut each: impl FnMut(u64),
) -> Result<(), Error> {
    let whole = payload.len();
    while !payload.is_empty() {
        let start = offset + (whole - payload.len());
        each(read_varint(&mut payload).map_err(|source| malformed(start, message, source))?);
    }
    Ok(())
}

/// Appends a length-delimited field `number` holding `payload`.
pub(crate) fn put_bytes_field(out: &mut Vec<u8>, number: u32, payload: &[u8]) {
    prost::encoding::encode_key(number, prost::encoding::WireType::LengthDelimited, out);
    put_payload(out, payload);
}

/// Appends a length prefix and `payload` (after a key already written).
pub(crate) fn put_payload(out: &mut Vec<u8>, payload: &[u8]) {
    prost::encoding::encode_varint(payload.len() as u64, out);
    out.extend_from_slice(payload);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_report_absolute_offsets() {
        // field 1 varint 150 (08 96 01), field 2 bytes "hi" (12 02 68 69), fixed32 field 3.
        let bytes = [0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1d, 1, 2, 3, 4];
        let fields: Vec<Field<'_>> = Fields::new(&bytes, 100, "Test")
            .map(Result::unwrap)
            .collect();
        assert_eq!(fields.len(), 3);
        assert_eq!(
            (fields[0].number, fields[0].start, fields[0].end),
            (1, 100, 103)
        );
        assert_eq!(fields[0].varint(), Some(150));
        assert_eq!(fields[1].payload(), Some((&b"hi"[..], 105)));
        assert_eq!(fields[1].string("s").unwrap(), Some("hi"));
        assert_eq!(fields[1].key_len, 1);
        assert_eq!(fields[2].value, Value::Other(WireType::ThirtyTwoBit));
        assert_eq!(fields[2].end, 112);
        // Another wire type than the one asked for is an unknown field, not an error.
        assert_eq!(fields[2].varint(), None);
        assert_eq!(fields[0].payload(), None);
        assert_eq!(fields[0].string("s"), Ok(None));
    }

    #[test]
    fn the_iterator_stops_after_an_error() {
        let bytes = [0x12, 0x09, 1, 2];
        let mut fields = Fields::new(&bytes, 0, "Test");
        assert!(matches!(
            fields.next(),
            Some(Err(Error::Decode(DecodeError::Truncated {
                needed: 9,
                available: 2,
                ..
            })))
        ));
        assert!(fields.next().is_none());
    }

    #[test]
    fn inputs_above_two_gib_are_refused() {
        assert!(check_len(MAX_MESSAGE_LEN as u64).is_ok());
        let error = check_len(MAX_MESSAGE_LEN as u64 + 1).unwrap_err();
        assert_eq!(
            error,
            Error::Decode(DecodeError::TooLarge { len: 2_147_483_648 })
        );
        assert!(error.to_string().contains("at most 2 GiB"));
    }
}
