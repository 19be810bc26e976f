//! What a compile request carries: the program, [`XlaProgram`] (a StableHLO portable artifact,
//! MLIR bytecode), and its options, [`XlaCompileOptions`]. Both travel in `Serialized`
//! envelopes, as every request of IFRT Proxy's `Compile` shows (jaxlib 0.4.36 ... 0.10.2).
//!
//! Neither payload records a format: IFRT's program serializer
//! (xla/python/ifrt/hlo/hlo_program_serdes.cc) writes the bytecode alone, and
//! `XlaCompileOptionsProto` (xla/python/pjrt_ifrt/xla_compiler.proto) has no `version_number`.
//! Both read as format 0, their only one. What the crate reads of them:
//!
//! - a program's MLIR bytecode header: the magic `ML\xefR`, the bytecode version and the
//!   producer string, e.g. `StableHLO_v1.13.4`, which says which StableHLO the reader needs.
//!   Nothing of MLIR beyond the header is parsed; the bytecode is kept and written back as it
//!   came.
//! - the options' top-level protobuf fields (field 1, `compile_options`, an
//!   `xla.CompileOptionsProto`); the payload is kept as its raw bytes.
//!
//! IFRT pins the program to the build's week-4-old version: below it, it refuses to write one
//! ("Unsupported IFRT SerDes version 1 for HloProgram serialization"), which is
//! [`XlaProgram`]'s [`WriteFloor::Week4Old`]. From version 3 on it may mix StableHLO dialect
//! versions in the bytecode ("Allowed mixed serialization for stablehlo dialects"); the bytes
//! record nothing of it, and a reader of an older build may fail to load such a program.

use std::fmt;

use crate::codec::{Codec, DeserializeOptions, Serializable, SerializeOptions, check_size};
use crate::error::{DecodeError, Error};
use crate::format::{Formats, WriteFloor};
use crate::registry::Registry;
use crate::version::SerDesVersionNumber;
use crate::wire::{WireError, WireType, read_key, read_varint, skip_field};

/// The first bytes of every MLIR bytecode file (mlir/Bytecode/Encoding.h).
pub const MLIR_BYTECODE_MAGIC: [u8; 4] = *b"ML\xefR";

/// The longest producer string this crate reads (real ones are about 20 bytes).
const MAX_PRODUCER_LEN: usize = 1024;

/// The format of both payloads: 0, the only one (neither records a number).
const ONLY_FORMAT: &[SerDesVersionNumber] = &[SerDesVersionNumber::new(0)];

/// A program for XLA, as IFRT sends it to be compiled (IFRT's `HloProgram`, serialized under
/// the type name `xla::ifrt::XlaProgram`): a StableHLO portable artifact, which is MLIR
/// bytecode.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct XlaProgram {
    bytecode: Vec<u8>,
    bytecode_version: u64,
    producer_len: usize,
}

impl XlaProgram {
    /// The program whose MLIR bytecode is `bytecode`; its header is checked
    /// ([`DecodeError::NotMlirBytecode`]), nothing after it.
    pub fn new(bytecode: Vec<u8>) -> Result<Self, Error> {
        let (bytecode_version, producer) = read_header(&bytecode)?;
        let producer_len = producer.len();
        Ok(XlaProgram {
            bytecode,
            bytecode_version,
            producer_len,
        })
    }

    /// The bytecode, as it travels.
    pub fn bytecode(&self) -> &[u8] {
        &self.bytecode
    }

    /// The MLIR bytecode format version of its header.
    pub fn bytecode_version(&self) -> u64 {
        self.bytecode_version
    }

    /// The producer string of its header, e.g. `StableHLO_v1.13.4`: the StableHLO version
    /// that wrote the artifact, which a reader needs to know.
    pub fn producer(&self) -> &str {
        let start = MLIR_BYTECODE_MAGIC.len() + version_len(&self.bytecode);
        // Checked to be UTF-8 in `new`.
        std::str::from_utf8(&self.bytecode[start..start + self.producer_len]).unwrap_or_default()
    }

    /// The StableHLO version of the producer, `(major, minor, patch)`, if the producer is
    /// StableHLO's (`StableHLO_vX.Y.Z`).
    pub fn stablehlo_version(&self) -> Option<(u32, u32, u32)> {
        let version = self.producer().strip_prefix("StableHLO_v")?;
        let mut parts = version.split('.').map(str::parse::<u32>);
        let parsed = (
            parts.next()?.ok()?,
            parts.next()?.ok()?,
            parts.next()?.ok()?,
        );
        parts.next().is_none().then_some(parsed)
    }
}

/// How many bytes the bytecode version takes after the magic (already checked by
/// [`read_header`]).
fn version_len(bytecode: &[u8]) -> usize {
    match bytecode.get(MLIR_BYTECODE_MAGIC.len()) {
        Some(0) => 9,
        Some(first) => first.trailing_zeros() as usize + 1,
        None => 0,
    }
}

/// The bytecode version and producer of an MLIR bytecode header: magic, a version in MLIR's
/// prefix varint (the trailing zero bits of the first byte count the bytes that follow), and a
/// NUL-terminated producer string.
fn read_header(bytecode: &[u8]) -> Result<(u64, &str), Error> {
    let bad = |why| DecodeError::NotMlirBytecode {
        what: "XlaProgram",
        why,
    };
    let rest = bytecode
        .strip_prefix(&MLIR_BYTECODE_MAGIC)
        .ok_or(bad("it does not start with the magic ML\\xefR"))?;
    let len = version_len(bytecode);
    let encoded = rest
        .get(..len)
        .filter(|e| !e.is_empty())
        .ok_or(bad("it ends inside the bytecode version"))?;
    let mut value = [0u8; 8];
    let version = if len == 9 {
        value.copy_from_slice(&encoded[1..]);
        u64::from_le_bytes(value)
    } else {
        value[..len].copy_from_slice(encoded);
        u64::from_le_bytes(value) >> len
    };
    let rest = &rest[len..];
    let end = rest
        .iter()
        .take(MAX_PRODUCER_LEN + 1)
        .position(|b| *b == 0)
        .ok_or(bad(
            "its producer string has no NUL terminator in its first 1024 bytes",
        ))?;
    let producer =
        std::str::from_utf8(&rest[..end]).map_err(|_| bad("its producer string is not UTF-8"))?;
    Ok((version, producer))
}

/// The header and the size, not the bytecode itself.
impl fmt::Debug for XlaProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("XlaProgram")
            .field("producer", &self.producer())
            .field("bytecode_version", &self.bytecode_version)
            .field("bytecode_len", &self.bytecode.len())
            .finish()
    }
}

impl Serializable for XlaProgram {}

impl Codec for XlaProgram {
    /// IFRT's name for its `HloProgram` (xla/python/ifrt/hlo/hlo_program_serdes.cc, kept for
    /// compatibility).
    const TYPE_NAME: &'static str = "xla::ifrt::XlaProgram";
    /// Errors name it as IFRT's do: `HloProgram`.
    const FORMATS: Formats = Formats::new("HloProgram", ONLY_FORMAT);
    /// IFRT writes a program only at its build's week-4-old version or newer.
    const WRITE_FLOOR: WriteFloor = WriteFloor::Week4Old;

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        // No number is recorded; the check keeps the registry's rules in one place.
        Self::FORMATS.record(Self::FORMATS.oldest(), options.version())?;
        out.extend_from_slice(&self.bytecode);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        check_size(data, options)?;
        // The payload records no format: it is format 0.
        registry.read_format(&Self::FORMATS, 0)?;
        XlaProgram::new(data.to_vec())
    }
}

/// The options of a compile request (IFRT's `XlaCompileOptions`,
/// xla/python/pjrt_ifrt/xla_compiler.h), kept as the raw bytes of its
/// `XlaCompileOptionsProto`: `{ 1: xla.CompileOptionsProto compile_options }`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct XlaCompileOptions {
    payload: Vec<u8>,
    compile_options_len: Option<usize>,
}

/// `XlaCompileOptionsProto.compile_options`.
const COMPILE_OPTIONS: u32 = 1;

impl XlaCompileOptions {
    /// The options whose `XlaCompileOptionsProto` bytes are `payload`: its top-level fields
    /// must be well formed, and field 1 a length-delimited message; nothing inside it is read.
    pub fn new(payload: Vec<u8>) -> Result<Self, Error> {
        let compile_options_len = scan_options(&payload)?;
        Ok(XlaCompileOptions {
            payload,
            compile_options_len,
        })
    }

    /// The `XlaCompileOptionsProto` bytes, as they travel.
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// The length of its `compile_options` (the last occurrence), or `None` if absent.
    pub fn compile_options_len(&self) -> Option<usize> {
        self.compile_options_len
    }
}

/// Walks the top-level fields of an `XlaCompileOptionsProto`, as prost would decode it.
fn scan_options(payload: &[u8]) -> Result<Option<usize>, Error> {
    const WHAT: &str = "XlaCompileOptionsProto";
    let wire = |source: WireError| DecodeError::Wire { what: WHAT, source };
    let mut buf = payload;
    let mut found = None;
    while !buf.is_empty() {
        let (field, wire_type) = read_key(&mut buf).map_err(wire)?;
        if field != COMPILE_OPTIONS {
            skip_field(wire_type, field, &mut buf).map_err(wire)?;
            continue;
        }
        if wire_type != WireType::LengthDelimited {
            return Err(DecodeError::WrongWireType {
                what: WHAT,
                field,
                found: wire_type,
                wanted: WireType::LengthDelimited,
            }
            .into());
        }
        let len = read_varint(&mut buf).map_err(wire)?;
        let len = usize::try_from(len)
            .ok()
            .filter(|len| *len <= buf.len())
            .ok_or(DecodeError::Truncated {
                what: WHAT,
                field,
                len,
                available: buf.len(),
            })?;
        buf = &buf[len..];
        found = Some(len);
    }
    Ok(found)
}

/// The sizes, not the bytes.
impl fmt::Debug for XlaCompileOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("XlaCompileOptions")
            .field("payload_len", &self.payload.len())
            .field("compile_options_len", &self.compile_options_len)
            .finish()
    }
}

impl Serializable for XlaCompileOptions {}

impl Codec for XlaCompileOptions {
    /// IFRT's name (xla/python/pjrt_ifrt/xla_compiler.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::XlaCompileOptions";
    const FORMATS: Formats = Formats::new("XlaCompileOptions", ONLY_FORMAT);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        Self::FORMATS.record(Self::FORMATS.oldest(), options.version())?;
        out.extend_from_slice(&self.payload);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        check_size(data, options)?;
        // `XlaCompileOptionsProto` has no `version_number`: format 0.
        registry.read_format(&Self::FORMATS, 0)?;
        XlaCompileOptions::new(data.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_gives_version_and_producer() {
        let mut bytes = b"ML\xefR\x0dStableHLO_v1.13.7\0\x01\x1f".to_vec();
        let program = XlaProgram::new(bytes.clone()).unwrap();
        assert_eq!(program.bytecode_version(), 6);
        assert_eq!(program.producer(), "StableHLO_v1.13.7");
        assert_eq!(program.stablehlo_version(), Some((1, 13, 7)));
        // A two-byte version: 0b10 in the low bits of the first byte.
        bytes.splice(4..5, [0b0000_1010, 0x01]);
        let program = XlaProgram::new(bytes).unwrap();
        assert_eq!(program.bytecode_version(), (0x010a) >> 2);
        assert_eq!(program.producer(), "StableHLO_v1.13.7");
        for (bad, why) in [
            (&b""[..], "magic"),
            (b"ML\xefQ\x0dx\0", "magic"),
            (b"ML\xefR", "bytecode version"),
            (b"ML\xefR\x00\x01\x02", "bytecode version"),
            (b"ML\xefR\x0dStableHLO", "NUL"),
            (b"ML\xefR\x0d\xff\0", "UTF-8"),
        ] {
            let error = XlaProgram::new(bad.to_vec()).unwrap_err().to_string();
            assert!(error.contains(why), "{bad:?}: {error}");
        }
        let other = XlaProgram::new(b"ML\xefR\x0dMLIR20\0".to_vec()).unwrap();
        assert_eq!(other.stablehlo_version(), None);
    }

    #[test]
    fn compile_options_are_scanned_not_decoded() {
        assert_eq!(scan_options(&[]).unwrap(), None);
        assert_eq!(scan_options(&[0x0a, 2, 8, 1]).unwrap(), Some(2));
        // Unknown fields are skipped, as prost skips them.
        assert_eq!(scan_options(&[0x10, 5, 0x0a, 0]).unwrap(), Some(0));
        assert!(matches!(
            scan_options(&[0x08, 1]),
            Err(Error::Decode(DecodeError::WrongWireType { field: 1, .. }))
        ));
        assert!(matches!(
            scan_options(&[0x0a, 9, 1]),
            Err(Error::Decode(DecodeError::Truncated { .. }))
        ));
        assert!(scan_options(&[0xff]).is_err());
    }
}
