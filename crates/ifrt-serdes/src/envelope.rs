//! The `Serialized { type_name = 1, data = 2 }` envelope on the wire, read and written without
//! copying its payload.
//!
//! prost's generated `Serialized` owns a `String` and a `Vec<u8>`, so decoding it copies the
//! whole payload once more before the payload is itself decoded, and encoding it needs the
//! payload in a buffer of its own first. The registry's byte-level entry points use these
//! functions instead: built on the crate's own wire primitives (`wire`), they accept and
//! produce exactly what `Serialized::decode` and `Serialized::encode_to_vec` do (property tests
//! below hold them to it), but borrow the payload when reading and encode it in place when
//! writing.

use crate::error::{DecodeError, Error};
use crate::wire::{
    WireError, WireType, put_key, put_varint, put_varint_at, read_key, read_varint, skip_field,
    varint_len,
};

/// The message, as errors name it.
const WHAT: &str = "Serialized";
const TYPE_NAME: u32 = 1;
const DATA: u32 = 2;

/// The envelope's bytes, as `Serialized { type_name, data }.encode_to_vec()` writes them, with
/// the data written by `payload` straight into the same buffer: no intermediate buffer, no copy of the payload
/// unless it needs a length prefix longer than one byte (128 bytes or more), in which case it
/// is moved along once to make room.
pub(crate) fn write_with(
    type_name: &str,
    payload: impl FnOnce(&mut Vec<u8>) -> Result<(), Error>,
) -> Result<Vec<u8>, Error> {
    // Room for the header and a typical payload; larger ones grow the buffer as they go.
    let mut out = Vec::with_capacity(type_name.len() + 128);
    if !type_name.is_empty() {
        put_key(TYPE_NAME, WireType::LengthDelimited, &mut out);
        put_varint(type_name.len() as u64, &mut out);
        out.extend_from_slice(type_name.as_bytes());
    }
    let key_at = out.len();
    put_key(DATA, WireType::LengthDelimited, &mut out);
    let len_at = out.len();
    out.push(0);
    let start = out.len();
    payload(&mut out)?;
    let len = out.len() - start;
    if len == 0 {
        // proto3 leaves an empty `data` out.
        out.truncate(key_at);
        return Ok(out);
    }
    let len_bytes = varint_len(len as u64);
    if len_bytes > 1 {
        let extra = len_bytes - 1;
        out.resize(out.len() + extra, 0);
        out.copy_within(start..start + len, start + extra);
    }
    put_varint_at(len as u64, &mut out[len_at..len_at + len_bytes]);
    Ok(out)
}

/// The envelope's type name and payload, borrowed from `bytes`; the same acceptance as
/// `Serialized::decode` (unknown fields skipped, the last occurrence of a field wins, the type
/// name must be UTF-8).
pub(crate) fn read(bytes: &[u8]) -> Result<(&str, &[u8]), Error> {
    let (type_name, data) = read_raw(bytes)?;
    Ok((type_name_str(type_name)?, data))
}

/// [`read`] without checking that the (last) type name is UTF-8: a caller that finds it equal
/// to a known name has no need to, and must call [`type_name_str`] otherwise.
pub(crate) fn read_raw(bytes: &[u8]) -> Result<(&[u8], &[u8]), Error> {
    let mut buf = bytes;
    let mut type_name: Option<&[u8]> = None;
    let mut data: &[u8] = &[];
    while !buf.is_empty() {
        let (field, wire_type) = read_key(&mut buf).map_err(malformed)?;
        if field == TYPE_NAME || field == DATA {
            if wire_type != WireType::LengthDelimited {
                return Err(wrong_wire_type(field, wire_type));
            }
            let len = read_varint(&mut buf).map_err(malformed)?;
            let len = usize::try_from(len)
                .ok()
                .filter(|len| *len <= buf.len())
                .ok_or_else(|| past_the_end(field, len, buf.len()))?;
            let (value, rest) = buf.split_at(len);
            buf = rest;
            if field == TYPE_NAME {
                // prost checks every occurrence of a string field, even one a later occurrence
                // replaces, so a replaced name must be UTF-8 too.
                if let Some(replaced) = type_name.replace(value) {
                    type_name_str(replaced)?;
                }
            } else {
                data = value;
            }
        } else {
            skip_field(wire_type, field, &mut buf).map_err(malformed)?;
        }
    }
    Ok((type_name.unwrap_or_default(), data))
}

/// The type name as text, or the error `Serialized::decode` gives for it.
pub(crate) fn type_name_str(type_name: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(type_name).map_err(|_| {
        DecodeError::NotUtf8 {
            what: WHAT,
            field: "type_name",
        }
        .into()
    })
}

/// Bytes that are not protobuf at all.
fn malformed(source: WireError) -> Error {
    DecodeError::Wire { what: WHAT, source }.into()
}

/// A known field framed as something else than bytes.
fn wrong_wire_type(field: u32, found: WireType) -> Error {
    DecodeError::WrongWireType {
        what: WHAT,
        field,
        found,
        wanted: WireType::LengthDelimited,
    }
    .into()
}

/// A length that runs past the end of the input.
fn past_the_end(field: u32, len: u64, available: usize) -> Error {
    DecodeError::Truncated {
        what: WHAT,
        field,
        len,
        available,
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::xla::ifrt::Serialized;
    use proptest::prelude::*;
    use prost::Message;

    /// One field of a hand-made message: any tag, any wire type, well or badly formed.
    fn field() -> impl Strategy<Value = Vec<u8>> {
        (
            0u32..6,
            0u8..8,
            proptest::collection::vec(any::<u8>(), 0..12),
            any::<bool>(),
        )
            .prop_map(|(tag, wire, payload, well_formed)| {
                let mut out = Vec::new();
                put_varint(u64::from(tag << 3 | u32::from(wire)), &mut out);
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

    #[test]
    fn a_replaced_type_name_must_be_utf8_too() {
        // `type_name = "\x80"`, then `type_name = ""`: prost refuses the first occurrence.
        let bytes = [10, 1, 128, 10, 0];
        assert!(Serialized::decode(bytes.as_slice()).is_err());
        assert!(matches!(
            read(&bytes),
            Err(Error::Decode(DecodeError::NotUtf8 {
                field: "type_name",
                ..
            }))
        ));
        assert!(matches!(
            read_raw(&bytes),
            Err(Error::Decode(DecodeError::NotUtf8 { .. }))
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        #[test]
        fn reads_what_prost_reads(fields in proptest::collection::vec(field(), 0..5)) {
            let bytes = fields.concat();
            match (read(&bytes), Serialized::decode(bytes.as_slice())) {
                (Ok((name, data)), Ok(expected)) => {
                    prop_assert_eq!(name, expected.type_name.as_str());
                    prop_assert_eq!(data, expected.data.as_slice());
                }
                (Err(_), Err(_)) => {}
                (ours, prost) => prop_assert!(false, "{:?} vs {:?} for {:?}", ours, prost, bytes),
            }
        }

        #[test]
        fn reads_arbitrary_bytes_as_prost_does(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            prop_assert_eq!(read(&bytes).is_ok(), Serialized::decode(bytes.as_slice()).is_ok());
        }

        #[test]
        fn writes_in_place_what_prost_writes(name in ".{0,40}", data in proptest::collection::vec(any::<u8>(), 0..300), prefix in 0usize..3) {
            let expected = Serialized { type_name: name.clone(), data: data.clone() }.encode_to_vec();
            let written = write_with(&name, |out| {
                // Payloads are appended in pieces, as a codec does.
                let (head, tail) = data.split_at(prefix.min(data.len()));
                out.extend_from_slice(head);
                out.extend_from_slice(tail);
                Ok(())
            });
            prop_assert_eq!(written.unwrap(), expected);
        }

        #[test]
        fn writes_what_prost_writes(name in ".{0,40}", data in proptest::collection::vec(any::<u8>(), 0..300)) {
            let expected = Serialized { type_name: name.clone(), data: data.clone() }.encode_to_vec();
            let written = write_with(&name, |out| {
                out.extend_from_slice(&data);
                Ok(())
            })
            .unwrap();
            prop_assert_eq!(&written, &expected);
            let (back_name, back_data) = read(&written).unwrap();
            prop_assert_eq!(back_name, name.as_str());
            prop_assert_eq!(back_data, data.as_slice());
        }
    }
}
