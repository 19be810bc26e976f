//! What a compile request carries: the program, [`XlaProgram`] (a StableHLO portable artifact,
//! MLIR bytecode), and its options, [`XlaCompileOptions`]. Both travel in `Serialized`
//! envelopes, as every request of IFRT Proxy's `Compile` shows (jaxlib 0.4.36 ... 0.12.0.1).
//!
//! The program records no format: IFRT's program serializer
//! (xla/python/ifrt/hlo/hlo_program_serdes.cc) writes the bytecode alone, format 0. The options
//! record one from version 4 on: `XlaCompileOptionsProto` (xla/python/pjrt_ifrt/xla_compiler.proto)
//! has no `version_number` up to jaxlib 0.10.2, and from 0.11.0 on it has one, and
//! `outputs_bundle_slice_sizes`; real clients record 4 there at a negotiated 4 or newer. What the
//! crate reads of them:
//!
//! - a program's MLIR bytecode header: the magic `ML\xefR`, the bytecode version and the
//!   producer string, e.g. `StableHLO_v1.13.4`, which says which StableHLO the reader needs.
//!   Nothing of MLIR beyond the header is parsed; the bytecode is kept and written back as it
//!   came.
//! - the options' top-level protobuf fields (`compile_options`, an `xla.CompileOptionsProto`,
//!   whether slice sizes are given, and the recorded format); the payload is kept as its raw
//!   bytes, and written back with the `version_number` the requested version gets.
//!
//! IFRT pins the program to the build's week-4-old version: below it, it refuses to write one
//! ("Unsupported IFRT SerDes version 1 for HloProgram serialization"), which is
//! [`XlaProgram`]'s [`WriteFloor::Week4Old`]. From version 3 on it may mix StableHLO dialect
//! versions in the bytecode ("Allowed mixed serialization for stablehlo dialects"); the bytes
//! record nothing of it, and a reader of an older build may fail to load such a program.

use std::fmt;

use crate::codec::{Codec, DeserializeOptions, Serializable, SerializeOptions, check_size};
use crate::error::{DecodeError, Error, Incompatible};
use crate::format::{Formats, WriteFloor};
use crate::registry::Registry;
use crate::version::SerDesVersionNumber;
use crate::wire::{WireError, WireType, put_key, put_varint, read_key, read_varint, skip_field};

/// The first bytes of every MLIR bytecode file (mlir/Bytecode/Encoding.h).
pub const MLIR_BYTECODE_MAGIC: [u8; 4] = *b"ML\xefR";

/// The longest producer string this crate reads (real ones are about 20 bytes).
const MAX_PRODUCER_LEN: usize = 1024;

/// The program's format: 0, the only one (the bytecode records no number).
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
/// xla/python/pjrt_ifrt/xla_compiler.h), kept as the raw bytes of its `XlaCompileOptionsProto`:
/// `{ 1: xla.CompileOptionsProto compile_options, 2: repeated int32 outputs_bundle_slice_sizes,
/// 3: int32 version_number }` (fields 2 and 3 since jaxlib 0.11.0; field numbers from the
/// descriptors compiled into jaxlib 0.11.2 and 0.12.0.1).
///
/// Its formats are 0 and 4. Measured with the real IFRT Proxy clients of jaxlib 0.11.2 and
/// 0.12.0.1 (servers capped at 3, 4, 5 and 6): at a negotiated 4 or newer the client records
/// `version_number = 4`, even without `outputs_bundle_slice_sizes`, and at 3 or older it
/// records nothing (format 0). So IFRT writes the newest format the requested version allows,
/// not the oldest that holds the value; this codec does the same. Slice sizes need format 4:
/// below it IFRT refuses ("Unsupported IFRT SerDes version N for XlaCompileOptions serialization
/// with outputs_bundle_slice_sizes", a message in the 0.11.2 binary).
///
/// The value is the options, not the format they were written in: the payload is kept without
/// its `version_number`, which the writer sets for the requested version.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct XlaCompileOptions {
    /// The `XlaCompileOptionsProto` bytes without `version_number`.
    payload: Vec<u8>,
    fields: OptionsFields,
}

/// `XlaCompileOptionsProto.compile_options`.
const COMPILE_OPTIONS: u32 = 1;
/// `XlaCompileOptionsProto.outputs_bundle_slice_sizes`.
const OUTPUTS_BUNDLE_SLICE_SIZES: u32 = 2;
/// `XlaCompileOptionsProto.version_number`.
const VERSION_NUMBER: u32 = 3;

/// The formats of `XlaCompileOptionsProto`: 0, and 4 (with `version_number` and
/// `outputs_bundle_slice_sizes`).
const OPTIONS_FORMATS: &[SerDesVersionNumber] =
    &[SerDesVersionNumber::new(0), SerDesVersionNumber::new(4)];

/// What the top level of an `XlaCompileOptionsProto` says, read as prost would decode it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct OptionsFields {
    /// The length of `compile_options` (the last occurrence), if present.
    compile_options_len: Option<usize>,
    /// Whether `outputs_bundle_slice_sizes` holds any value.
    has_slice_sizes: bool,
    /// `version_number` (the last occurrence); 0 when absent.
    version_number: i32,
    /// Whether `version_number` occurs at all.
    has_version_number: bool,
}

impl XlaCompileOptions {
    /// The options whose `XlaCompileOptionsProto` bytes are `payload`: its top-level fields
    /// must be well formed (field 1 a length-delimited message, field 3 a varint); nothing
    /// inside `compile_options` is read. A `version_number` in it is dropped.
    pub fn new(payload: Vec<u8>) -> Result<Self, Error> {
        let fields = scan_options(&payload)?;
        Self::scanned(payload, fields)
    }

    /// The options whose payload was scanned into `fields`, its `version_number` dropped.
    fn scanned(payload: Vec<u8>, mut fields: OptionsFields) -> Result<Self, Error> {
        let payload = if fields.has_version_number {
            let mut kept = Vec::with_capacity(payload.len());
            walk_options(&payload, |field, bytes| {
                if field != VERSION_NUMBER {
                    kept.extend_from_slice(bytes);
                }
            })?;
            kept
        } else {
            payload
        };
        fields.version_number = 0;
        fields.has_version_number = false;
        Ok(XlaCompileOptions { payload, fields })
    }

    /// The `XlaCompileOptionsProto` bytes without `version_number` (format 0's bytes of
    /// options without slice sizes).
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// The length of its `compile_options` (the last occurrence), or `None` if absent.
    pub fn compile_options_len(&self) -> Option<usize> {
        self.fields.compile_options_len
    }

    /// Whether it carries `outputs_bundle_slice_sizes` (which needs format 4).
    pub fn has_outputs_bundle_slice_sizes(&self) -> bool {
        self.fields.has_slice_sizes
    }
}

/// Walks the top-level fields of an `XlaCompileOptionsProto`, as prost would decode it; calls
/// `each(field, bytes)` with every field's whole bytes (key included), in order.
fn walk_options(payload: &[u8], mut each: impl FnMut(u32, &[u8])) -> Result<OptionsFields, Error> {
    const WHAT: &str = "XlaCompileOptionsProto";
    let wire = |source: WireError| DecodeError::Wire { what: WHAT, source };
    let wrong_type = |field, found, wanted| DecodeError::WrongWireType {
        what: WHAT,
        field,
        found,
        wanted,
    };
    let mut buf = payload;
    let mut fields = OptionsFields::default();
    while !buf.is_empty() {
        let start = payload.len() - buf.len();
        let (field, wire_type) = read_key(&mut buf).map_err(wire)?;
        match field {
            COMPILE_OPTIONS => {
                if wire_type != WireType::LengthDelimited {
                    let wanted = WireType::LengthDelimited;
                    return Err(wrong_type(field, wire_type, wanted).into());
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
                fields.compile_options_len = Some(len);
            }
            VERSION_NUMBER => {
                if wire_type != WireType::Varint {
                    return Err(wrong_type(field, wire_type, WireType::Varint).into());
                }
                // An `int32` travels sign-extended to 64 bits; prost keeps the low 32.
                fields.version_number = read_varint(&mut buf).map_err(wire)? as i32;
                fields.has_version_number = true;
            }
            _ => {
                let before = buf.len();
                skip_field(wire_type, field, &mut buf).map_err(wire)?;
                // One varint per value, or packed: a packed list holds values unless it is
                // just its length byte, 0.
                let holds_values = wire_type == WireType::Varint || before - buf.len() > 1;
                if field == OUTPUTS_BUNDLE_SLICE_SIZES && holds_values {
                    fields.has_slice_sizes = true;
                }
            }
        }
        let end = payload.len() - buf.len();
        each(field, &payload[start..end]);
    }
    Ok(fields)
}

/// The top-level fields of an `XlaCompileOptionsProto`.
fn scan_options(payload: &[u8]) -> Result<OptionsFields, Error> {
    walk_options(payload, |_, _| {})
}

/// The sizes, not the bytes.
impl fmt::Debug for XlaCompileOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("XlaCompileOptions")
            .field("payload_len", &self.payload.len())
            .field("compile_options_len", &self.fields.compile_options_len)
            .field("has_slice_sizes", &self.fields.has_slice_sizes)
            .finish()
    }
}

impl Serializable for XlaCompileOptions {}

impl Codec for XlaCompileOptions {
    /// IFRT's name (xla/python/pjrt_ifrt/xla_compiler.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::XlaCompileOptions";
    const FORMATS: Formats = Formats::new("XlaCompileOptions", OPTIONS_FORMATS);

    /// Writes the payload, then the `version_number` the requested version gets (the newest
    /// format it allows, as IFRT records; none for format 0): IFRT's C++ protobuf writes field
    /// 3 after fields 1 and 2.
    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let version = options.version();
        let needed = if self.fields.has_slice_sizes {
            OPTIONS_FORMATS[1]
        } else {
            Self::FORMATS.oldest()
        };
        if needed > version.number() {
            return Err(Incompatible::FeatureNeedsNewerVersion {
                history: version.history().name(),
                proto: "XlaCompileOptionsProto",
                version: version.number(),
                feature: "outputs_bundle_slice_sizes",
                needed,
            }
            .into());
        }
        let newest = Self::FORMATS.newest_at(version).unwrap_or(needed);
        let format = Self::FORMATS.record(newest, version)?;
        out.reserve(self.payload.len() + 2);
        out.extend_from_slice(&self.payload);
        if format.value() != 0 {
            put_key(VERSION_NUMBER, WireType::Varint, out);
            put_varint(format.value() as u64, out);
        }
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        check_size(data, options)?;
        let fields = scan_options(data)?;
        registry.read_format(&Self::FORMATS, fields.version_number)?;
        XlaCompileOptions::scanned(data.to_vec(), fields)
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

    /// Written in the newest format the version allows, `version_number` last; slice sizes
    /// need format 4; a recorded format is not part of the value.
    #[test]
    fn compile_options_take_the_format_of_the_requested_version() {
        use crate::version::SupportedVersions;
        let registry = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
        let write = |options: &XlaCompileOptions, version: i32| {
            let version = SupportedVersions::BUILT_IN
                .version(SerDesVersionNumber::new(version))
                .unwrap();
            let mut out = Vec::new();
            options
                .serialize_into(&SerializeOptions::new(version), &registry, &mut out)
                .map(|()| out)
        };
        let plain = XlaCompileOptions::new(vec![0x0a, 0]).unwrap();
        assert_eq!(write(&plain, 3).unwrap(), [0x0a, 0]);
        assert_eq!(write(&plain, 4).unwrap(), [0x0a, 0, 0x18, 4]);
        // Read at format 4, the same options; written at 3, format 0 again.
        let read = XlaCompileOptions::new(vec![0x18, 4, 0x0a, 0]).unwrap();
        assert_eq!(read, plain);
        assert_eq!(write(&read, 3).unwrap(), [0x0a, 0]);
        let sliced = XlaCompileOptions::new(vec![0x0a, 0, 0x12, 1, 7]).unwrap();
        assert!(sliced.has_outputs_bundle_slice_sizes());
        assert_eq!(write(&sliced, 4).unwrap(), [0x0a, 0, 0x12, 1, 7, 0x18, 4]);
        assert_eq!(
            write(&sliced, 3).unwrap_err().to_string(),
            "XlaCompileOptionsProto with IFRT SerDes version 3 does not support \
             `outputs_bundle_slice_sizes`; request version 4 or newer, or drop \
             `outputs_bundle_slice_sizes` from the value"
        );
    }

    #[test]
    fn compile_options_are_scanned_not_decoded() {
        let len = |payload: &[u8]| scan_options(payload).unwrap().compile_options_len;
        assert_eq!(len(&[]), None);
        assert_eq!(len(&[0x0a, 2, 8, 1]), Some(2));
        // Unknown fields are skipped, as prost skips them.
        assert_eq!(len(&[0x20, 5, 0x0a, 0]), Some(0));
        // Slice sizes, packed or not, and the recorded format (the last one wins).
        let fields = scan_options(&[0x12, 2, 1, 2, 0x18, 4]).unwrap();
        assert!(fields.has_slice_sizes);
        assert_eq!(fields.version_number, 4);
        assert!(scan_options(&[0x10, 7]).unwrap().has_slice_sizes);
        assert!(!scan_options(&[0x12, 0]).unwrap().has_slice_sizes);
        assert_eq!(scan_options(&[0x18, 4, 0x18, 0]).unwrap().version_number, 0);
        assert!(matches!(
            scan_options(&[0x1a, 0]),
            Err(Error::Decode(DecodeError::WrongWireType { field: 3, .. }))
        ));
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
