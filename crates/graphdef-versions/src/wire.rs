//! The protobuf wire format, read and written straight from bytes: the crate's one field reader.
//!
//! [`Fields`] walks the fields of one message, borrowing every length-delimited payload from the
//! input (no allocation). Every length is checked against the bytes that remain before it is
//! used, and anything unexpected becomes a typed [`DecodeError`] naming the byte offset. The
//! writers ([`put_varint`], [`put_key`], [`put_bytes_field`]) are the few that rewriting a
//! VersionDef in place needs.
//!
//! Everything here is written on the wire format's definition, not on `prost::encoding` (which
//! prost hides from its documentation and keeps out of its semver promise); prost's public
//! `Message` API is what the tests compare it with. Where the protobuf runtimes differ, this
//! module reads as TensorFlow's own parsers do (upb in Python, protobuf's C++ runtime):
//!
//! - a varint value takes at most ten bytes, and the bits past the 64th are dropped (an `int32`
//!   written as ten bytes ending in `7f` is -1);
//! - a field key is a varint whose value fits in 32 bits, with a field number above 0 and one
//!   of the six wire types;
//! - a group is skipped with everything in it, and must end with its own end tag, at most 100
//!   groups deep.

use std::fmt;

use crate::error::{DecodeError, Error, WireError};

/// The largest input accepted: protobuf messages are limited to 2 GiB.
pub const MAX_MESSAGE_LEN: usize = i32::MAX as usize;

/// Groups nest at most this deep, as in upb's and prost's default limit.
const GROUP_DEPTH_LIMIT: u32 = 100;

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

    /// The wire type numbered `number` in a tag; `None` for 6 and 7, which protobuf does not
    /// define.
    const fn from_number(number: u8) -> Option<Self> {
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

    /// The common case, read without the general path: a one-byte tag (fields 1 to 15)
    /// followed by a one-byte varint or a one-byte length (values and lengths below 128). A
    /// graph's nodes and almost all of their fields look like this. Anything else, including
    /// every malformed input, is left to [`Fields::read`].
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

    /// Any field; every malformed input ends here.
    #[inline(never)]
    fn read(&mut self) -> Result<Field<'a>, Error> {
        let start = self.offset;
        let mut buf = self.rest;
        let malformed = |source| malformed(start, self.message, source);
        let (number, wire_type) = read_key(&mut buf).map_err(malformed)?;
        let key_len = self.rest.len() - buf.len();
        let value = match wire_type {
            WireType::Varint => Value::Varint(read_varint(&mut buf).map_err(malformed)?),
            WireType::LengthDelimited => {
                let len = read_varint(&mut buf).map_err(malformed)?;
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
                skip(other, number, &mut buf, 0).map_err(malformed)?;
                Value::Other(other)
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
    /// For a reader that gives up on a message at its first malformed field: the next field;
    /// `None` at the end of the message, and at a malformed field, after which
    /// [`Fields::malformed`] says so. (It hands over a plain field, not a `Result`: the
    /// reading of a graph's nodes spends its time here.)
    #[inline]
    pub(crate) fn next_well_formed(&mut self) -> Option<Field<'a>> {
        if self.rest.is_empty() || self.failed {
            return None;
        }
        if let Some(field) = self.read_short() {
            return Some(field);
        }
        let field = self.read().ok();
        self.failed = field.is_none();
        field
    }

    /// Whether a malformed field stopped the reading.
    pub(crate) fn malformed(&self) -> bool {
        self.failed
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

/// A varint: at most ten bytes, the bits past the 64th dropped.
fn read_varint(buf: &mut &[u8]) -> Result<u64, WireError> {
    let mut value = 0u64;
    for (at, &byte) in buf.iter().take(10).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * at);
        if byte < 0x80 {
            *buf = &buf[at + 1..];
            return Ok(value);
        }
    }
    Err(if buf.len() < 10 {
        WireError::VarintCutShort
    } else {
        WireError::VarintTooLong
    })
}

/// A field key: its field number and wire type.
fn read_key(buf: &mut &[u8]) -> Result<(u32, WireType), WireError> {
    let key = u32::try_from(read_varint(buf)?).map_err(|_| WireError::KeyTooLarge)?;
    let number = key >> 3;
    if number == 0 {
        return Err(WireError::FieldNumberZero);
    }
    // The low three bits: at most 7.
    let wire_type = (key & 7) as u8;
    let wire_type = WireType::from_number(wire_type).ok_or(WireError::NoSuchWireType(wire_type))?;
    Ok((number, wire_type))
}

/// Steps over the value of a field `number` written as `wire_type` (a group with everything in
/// it, nested groups too), `depth` groups deep.
fn skip(wire_type: WireType, number: u32, buf: &mut &[u8], depth: u32) -> Result<(), WireError> {
    let advance = |buf: &mut &[u8], len: u64| {
        let rest = usize::try_from(len)
            .ok()
            .and_then(|len| buf.get(len..))
            .ok_or(WireError::ValueCutShort)?;
        *buf = rest;
        Ok(())
    };
    match wire_type {
        WireType::Varint => read_varint(buf).map(drop),
        WireType::SixtyFourBit => advance(buf, 8),
        WireType::ThirtyTwoBit => advance(buf, 4),
        WireType::LengthDelimited => {
            let len = read_varint(buf)?;
            advance(buf, len)
        }
        WireType::StartGroup => {
            if depth >= GROUP_DEPTH_LIMIT {
                return Err(WireError::GroupsTooDeep);
            }
            loop {
                if buf.is_empty() {
                    return Err(WireError::GroupNotEnded);
                }
                let (inner, inner_type) = read_key(buf)?;
                if inner_type == WireType::EndGroup {
                    return if inner == number {
                        Ok(())
                    } else {
                        Err(WireError::GroupEndMismatch {
                            started: number,
                            ended: inner,
                        })
                    };
                }
                skip(inner_type, inner, buf, depth + 1)?;
            }
        }
        WireType::EndGroup => Err(WireError::EndGroupOutsideGroup),
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
fn malformed(offset: usize, message: &'static str, source: WireError) -> Error {
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

/// Appends `value` as a varint, in its shortest form.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends the key of field `number` written as `wire_type`.
pub(crate) fn put_key(out: &mut Vec<u8>, number: u32, wire_type: WireType) {
    put_varint(out, u64::from(number) << 3 | u64::from(wire_type.number()));
}

/// Appends a length-delimited field `number` holding `payload`.
pub(crate) fn put_bytes_field(out: &mut Vec<u8>, number: u32, payload: &[u8]) {
    put_key(out, number, WireType::LengthDelimited);
    put_payload(out, payload);
}

/// Appends a length prefix and `payload` (after a key already written).
pub(crate) fn put_payload(out: &mut Vec<u8>, payload: &[u8]) {
    put_varint(out, payload.len() as u64);
    out.extend_from_slice(payload);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{AttrValue, NodeDef, VersionDef, attr_value};
    use proptest::prelude::*;
    use prost::Message;

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

    /// The one fault of `bytes` read as a single field.
    fn fault(bytes: &[u8]) -> WireError {
        match Fields::new(bytes, 0, "Test").next() {
            Some(Err(Error::Decode(DecodeError::Malformed { source, .. }))) => source,
            other => panic!("{bytes:02x?}: {other:?}"),
        }
    }

    #[test]
    fn each_framing_fault_is_named() {
        assert_eq!(fault(&[0x08, 0x80]), WireError::VarintCutShort);
        assert_eq!(fault(&[0x08, 0xff, 0xff]), WireError::VarintCutShort);
        assert_eq!(
            fault(&[
                0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01
            ]),
            WireError::VarintTooLong
        );
        // A key of more than 32 bits, though its field number would fit.
        assert_eq!(
            fault(&[0xf8, 0xfa, 0x9b, 0x8b, 0x79, 0x00]),
            WireError::KeyTooLarge
        );
        assert_eq!(fault(&[0x02, 0x00]), WireError::FieldNumberZero);
        assert_eq!(fault(&[0x0e]), WireError::NoSuchWireType(6));
        assert_eq!(fault(&[0x0f]), WireError::NoSuchWireType(7));
        assert_eq!(fault(&[0x0c]), WireError::EndGroupOutsideGroup);
        assert_eq!(fault(&[0x09, 1, 2]), WireError::ValueCutShort);
        assert_eq!(fault(&[0x0b, 0x08, 0x01]), WireError::GroupNotEnded);
        assert_eq!(
            fault(&[0x0b, 0x14]),
            WireError::GroupEndMismatch {
                started: 1,
                ended: 2
            }
        );
        let deep: Vec<u8> = [0x0b; 101].into_iter().chain([0x0c; 101]).collect();
        assert_eq!(fault(&deep), WireError::GroupsTooDeep);
        // A hundred groups deep is still read.
        let hundred: Vec<u8> = [0x0b; 100].into_iter().chain([0x0c; 100]).collect();
        assert_eq!(Fields::new(&hundred, 0, "Test").count(), 1);
        assert!(Fields::new(&hundred, 0, "Test").all(|f| f.is_ok()));
    }

    #[test]
    fn varints_read_as_tensorflow_reads_them() {
        // Ten bytes, the tenth above 1: the bits past the 64th are dropped (prost refuses it).
        let minus_one = [
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
        ];
        let field = Fields::new(&minus_one, 0, "Test").next().unwrap().unwrap();
        assert_eq!(field.varint(), Some(u64::MAX));
        // A key written longer than needed, zero-padded: still field 1.
        let padded = [0x88, 0x80, 0x80, 0x00, 0x05];
        let field = Fields::new(&padded, 0, "Test").next().unwrap().unwrap();
        assert_eq!(
            (field.number, field.key_len, field.varint()),
            (1, 4, Some(5))
        );
    }

    #[test]
    fn writers_write_what_prost_writes() {
        let mut ours = Vec::new();
        put_bytes_field(&mut ours, 1, b"node");
        put_key(&mut ours, 2, WireType::LengthDelimited);
        put_payload(&mut ours, b"Op");
        let node = NodeDef {
            name: "node".into(),
            op: "Op".into(),
            ..NodeDef::default()
        };
        assert_eq!(ours, node.encode_to_vec());
    }

    proptest! {
        /// A VersionDef written by prost reads back field by field, each varint at its value
        /// and in its place, and written again by the crate's own writers, byte for byte.
        #[test]
        fn prosts_version_defs_read_and_write_alike(
            producer in any::<i32>(),
            min_consumer in any::<i32>(),
            bad_consumers in proptest::collection::vec(any::<i32>(), 0..4),
        ) {
            let versions = VersionDef { producer, min_consumer, bad_consumers: bad_consumers.clone() };
            let bytes = versions.encode_to_vec();
            let mut rewritten = Vec::new();
            let mut read = VersionDef::default();
            for field in Fields::new(&bytes, 0, "VersionDef") {
                let field = field.unwrap();
                prop_assert_eq!(field.end - field.start, {
                    let mut one = Vec::new();
                    match field.value {
                        Value::Varint(value) => {
                            put_key(&mut one, field.number, WireType::Varint);
                            put_varint(&mut one, value);
                        }
                        Value::Bytes(payload, _) => put_bytes_field(&mut one, field.number, payload),
                        Value::Other(_) => unreachable!("a VersionDef has no such field"),
                    }
                    rewritten.extend_from_slice(&one);
                    one.len()
                });
                match (field.number, field.value) {
                    (1, Value::Varint(value)) => read.producer = value as i32,
                    (2, Value::Varint(value)) => read.min_consumer = value as i32,
                    (3, Value::Bytes(packed, at)) => {
                        packed_varints(packed, at, "VersionDef", |v| read.bad_consumers.push(v as i32)).unwrap();
                    }
                    other => prop_assert!(false, "unexpected field {:?}", other),
                }
            }
            prop_assert_eq!(read, versions);
            prop_assert_eq!(rewritten, bytes);
        }

        /// Any NodeDef prost writes is read field by field to its end, its strings where
        /// prost put them; a cut anywhere inside a field is an error, never a panic.
        #[test]
        fn prosts_node_defs_are_walked_to_their_end(
            name in "[a-z/_]{0,40}",
            inputs in proptest::collection::vec("[a-z:^0-9]{0,200}", 0..4),
            dtype in any::<i32>(),
            cut in any::<prop::sample::Index>(),
        ) {
            let node = NodeDef {
                name: name.clone(),
                op: "Op".into(),
                input: inputs.clone(),
                attr: [("T".to_string(), AttrValue { value: Some(attr_value::Value::Type(dtype)) })].into(),
                ..NodeDef::default()
            };
            let bytes = node.encode_to_vec();
            let fields: Vec<Field<'_>> = Fields::new(&bytes, 0, "NodeDef").map(Result::unwrap).collect();
            prop_assert_eq!(fields.last().map_or(0, |f| f.end), bytes.len());
            let strings = |number| -> Vec<&str> {
                fields.iter().filter(|f| f.number == number).filter_map(|f| f.string("s").unwrap()).collect()
            };
            prop_assert_eq!(strings(3), inputs.iter().map(String::as_str).collect::<Vec<_>>());
            let named = if name.is_empty() { vec![] } else { vec![name.as_str()] };
            prop_assert_eq!(strings(1), named);
            let cut = cut.index(bytes.len() + 1);
            let read: Result<Vec<_>, _> = Fields::new(&bytes[..cut], 0, "NodeDef").collect();
            let at_boundary = cut == 0 || fields.iter().any(|f| f.end == cut);
            prop_assert_eq!(read.is_ok(), at_boundary);
        }
    }
}
