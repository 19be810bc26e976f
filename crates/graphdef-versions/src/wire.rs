//! Reading and writing protobuf fields straight from bytes, without decoding whole messages.
//!
//! [`Fields`] walks the fields of one message, borrowing every length-delimited payload from the
//! input (no allocation). Every length is checked against the bytes that remain before it is
//! used, varints and tags are decoded by prost's own helpers, and anything unexpected becomes a
//! typed [`Error`] naming the byte offset.

use prost::encoding::{DecodeContext, WireType, decode_key, decode_varint, skip_field};

use crate::error::Error;

/// The largest input accepted: protobuf messages are limited to 2 GiB.
pub const MAX_MESSAGE_LEN: usize = i32::MAX as usize;

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
    pub(crate) fn wire_type(&self) -> WireType {
        match self.value {
            Value::Varint(_) => WireType::Varint,
            Value::Bytes(..) => WireType::LengthDelimited,
            Value::Other(wire_type) => wire_type,
        }
    }

    /// The payload of a length-delimited field; a typed error for any other wire type.
    pub(crate) fn bytes(&self, message: &'static str) -> Result<(&'a [u8], usize), Error> {
        match self.value {
            Value::Bytes(bytes, offset) => Ok((bytes, offset)),
            _ => Err(self.wrong_type(message, WireType::LengthDelimited)),
        }
    }

    /// The value of a varint field; a typed error for any other wire type.
    pub(crate) fn varint(&self, message: &'static str) -> Result<u64, Error> {
        match self.value {
            Value::Varint(value) => Ok(value),
            _ => Err(self.wrong_type(message, WireType::Varint)),
        }
    }

    /// The value of a `string` field.
    pub(crate) fn string(
        &self,
        message: &'static str,
        what: &'static str,
    ) -> Result<&'a str, Error> {
        let (bytes, offset) = self.bytes(message)?;
        std::str::from_utf8(bytes).map_err(|_| Error::NotUtf8 { what, offset })
    }

    pub(crate) fn wrong_type(&self, message: &'static str, wanted: WireType) -> Error {
        Error::WrongWireType {
            message,
            field: self.number,
            offset: self.start,
            found: self.wire_type(),
            wanted,
        }
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

    fn read(&mut self) -> Result<Field<'a>, Error> {
        let start = self.offset;
        let mut buf = self.rest;
        let malformed = |source| Error::Malformed {
            offset: start,
            expected: self.message,
            source,
        };
        let (number, wire_type) = decode_key(&mut buf).map_err(malformed)?;
        let key_len = self.rest.len() - buf.len();
        let value = match wire_type {
            WireType::Varint => Value::Varint(decode_varint(&mut buf).map_err(malformed)?),
            WireType::LengthDelimited => {
                let len = decode_varint(&mut buf).map_err(malformed)?;
                let payload_offset = start + (self.rest.len() - buf.len());
                if len > buf.len() as u64 {
                    return Err(Error::Truncated {
                        what: "a length-delimited field",
                        offset: start,
                        needed: len,
                        available: buf.len(),
                        expected: self.message,
                    });
                }
                // len <= buf.len(), so it fits in usize.
                let (payload, after) = buf.split_at(len as usize);
                buf = after;
                Value::Bytes(payload, payload_offset)
            }
            other => {
                skip_field(other, number, &mut buf, DecodeContext::default()).map_err(malformed)?;
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

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() || self.failed {
            return None;
        }
        let field = self.read();
        self.failed = field.is_err();
        Some(field)
    }
}

/// Checks that `bytes` may be a protobuf message at all: not above 2 GiB.
pub(crate) fn check_size(bytes: &[u8]) -> Result<(), Error> {
    check_len(bytes.len() as u64)
}

/// Checks that a message of `len` bytes is within protobuf's 2 GiB limit.
pub(crate) fn check_len(len: u64) -> Result<(), Error> {
    if len > MAX_MESSAGE_LEN as u64 {
        return Err(Error::TooLarge { len });
    }
    Ok(())
}

/// Appends a length-delimited field `number` holding `payload`.
pub(crate) fn put_bytes_field(out: &mut Vec<u8>, number: u32, payload: &[u8]) {
    prost::encoding::encode_key(number, WireType::LengthDelimited, out);
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
        assert_eq!(fields[0].varint("Test").unwrap(), 150);
        assert_eq!(fields[1].bytes("Test").unwrap(), (&b"hi"[..], 105));
        assert_eq!(fields[1].string("Test", "s").unwrap(), "hi");
        assert_eq!(fields[1].key_len, 1);
        assert_eq!(fields[2].wire_type(), WireType::ThirtyTwoBit);
        assert_eq!(fields[2].end, 112);
        assert!(matches!(
            fields[2].varint("Test"),
            Err(Error::WrongWireType {
                field: 3,
                offset: 107,
                ..
            })
        ));
    }

    #[test]
    fn the_iterator_stops_after_an_error() {
        let bytes = [0x12, 0x09, 1, 2];
        let mut fields = Fields::new(&bytes, 0, "Test");
        assert!(matches!(
            fields.next(),
            Some(Err(Error::Truncated {
                needed: 9,
                available: 2,
                ..
            }))
        ));
        assert!(fields.next().is_none());
    }

    #[test]
    fn inputs_above_two_gib_are_refused() {
        assert!(check_len(MAX_MESSAGE_LEN as u64).is_ok());
        let error = check_len(MAX_MESSAGE_LEN as u64 + 1).unwrap_err();
        assert_eq!(error, Error::TooLarge { len: 2_147_483_648 });
        assert!(error.to_string().contains("at most 2 GiB"));
    }
}
