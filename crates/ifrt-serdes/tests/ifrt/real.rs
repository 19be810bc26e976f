//! Real bytes: every IFRT value the IFRT Proxy clients of real jaxlib releases (0.4.31 to
//! 0.12.0.1) sent, kept in `tests/data/real/` (one file per release and scenario; the README there
//! says where they come from and how they were made).
//!
//! - Every plain message of the four types IFRT sends that way (`DTypeProto`, `ShapeProto`,
//!   `ArraySpecProto`, `DeviceListProto`) is read with the format it records (0 where the
//!   release's schema has no `version_number` yet, before jaxlib 0.6.2) and written again, at
//!   every version from that format to this build's current one, to the same bytes.
//! - Every envelope names a type listed in [`ENVELOPES`] (a name a client sends that is not
//!   listed fails the test), and is read with the format it records and written again to the
//!   same bytes at every version this build writes its type at.
//! - What real jax asked for is what the crate decodes (the shardings of `device_put` and of
//!   `NamedSharding`s, a 0.4.36 `ConcreteSharding`), and jaxlib 0.10.2's refusal to write a
//!   program below its week-4-old version is this crate's too.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::common::{built_in, options, versions};
use ifrt_serdes::schema::ShardingProto;
use ifrt_serdes::schema::xla::op_sharding::Type;
use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{
    ArraySpec, Codec, ConcreteShapes, ConcreteSharding, DType, DeserializeOptions, DeviceList,
    Error, HloSharding, Incompatible, MemoryKind, ProtoCodec, RecordedFormat, Registry,
    Serializable, SerializeOptions, Shape, SingleDeviceSharding, XlaCompileOptions,
};
use prost::Message;

/// The real values, in the source tree.
const REAL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/real");

/// Every SerDes type name real clients send, all read by this build (the SerDes names compiled
/// into jaxlib 0.10.2). A name a capture holds that is not here fails
/// [`every_envelope_is_read_with_its_format_and_written_back`]; a name here this build does not
/// register fails [`the_envelope_table_matches_what_this_build_registers`].
const ENVELOPES: &[&str] = &[
    "xla::ifrt::SingleDeviceSharding",
    "xla::ifrt::ShardingParamSharding",
    "xla::ifrt::HloSharding",
    "xla::ifrt::ConcreteSharding",
    "xla::ifrt::ConcreteEvenSharding",
    "xla::ifrt::OpaqueSharding",
    "xla::ifrt::CompactLayout",
    "xla::ifrt::PjRtLayout",
    "xla::ifrt::XlaProgram",
    "xla::ifrt::XlaCompileOptions",
];

/// The plain messages the captures hold, besides the four types': `ShardingProto` (a
/// sharding's envelope wrapped in a message with no version of its own, a field of IFRT
/// Proxy's requests and of `ArraySpecProto`).
const SHARDING_PROTO: &str = "xla.ifrt.ShardingProto";

/// One line of a `tests/data/real/` file: one distinct value a client sent.
#[derive(Debug)]
pub struct Captured {
    /// `file:line`, for messages.
    origin: String,
    /// A plain message (`proto`) or an envelope (`envelope`).
    envelope: bool,
    /// The message's protobuf name, or the envelope's type name.
    name: String,
    /// The recorded `version_number`; `None` where the release's schema has none.
    format: Option<i32>,
    /// A program's StableHLO producer (`StableHLO_v1.13.7`), from its bytecode header.
    producer: Option<String>,
    /// The bytes the client sent.
    pub bytes: Vec<u8>,
}

impl Captured {
    /// The format a reader reads: the recorded one, or proto3's default 0 for a message whose
    /// schema had no `version_number` (it is absent from the bytes).
    fn format(&self) -> i32 {
        self.format.unwrap_or(0)
    }
}

/// Every value of every file, per file name.
fn captured() -> BTreeMap<String, Vec<Captured>> {
    let mut files = BTreeMap::new();
    for entry in fs::read_dir(REAL_DIR).expect("tests/data/real") {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        files.insert(
            name.clone(),
            parse(&name, &fs::read_to_string(&path).unwrap()),
        );
    }
    files
}

/// The lines of one file (see tests/data/real/README.md for the format).
fn parse(file: &str, text: &str) -> Vec<Captured> {
    let mut values = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let origin = format!("{file}:{}", number + 1);
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let envelope = match words.next() {
            Some("proto") => false,
            Some("envelope") => true,
            other => panic!("{origin}: kind {other:?} is neither proto nor envelope"),
        };
        let name = words.next().unwrap_or_else(|| panic!("{origin}: no name"));
        let fields: BTreeMap<&str, &str> = words
            .map(|word| {
                word.split_once('=')
                    .unwrap_or_else(|| panic!("{origin}: {word:?} is no key=value"))
            })
            .collect();
        let format = match fields.get("format") {
            Some(&"absent") => None,
            Some(number) => Some(number.parse().unwrap()),
            None => panic!("{origin}: no format="),
        };
        let hex = fields
            .get("hex")
            .unwrap_or_else(|| panic!("{origin}: no hex="));
        values.push(Captured {
            origin,
            envelope,
            name: name.to_string(),
            format,
            producer: fields.get("stablehlo").map(|p| p.to_string()),
            bytes: unhex(hex),
        });
    }
    values
}

fn unhex(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "odd hex length");
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// Every version of this build from `format` on (a value recording `format` is written the
/// same at each of them: the oldest format that holds it).
fn versions_from(format: i32) -> Vec<SerializeOptions> {
    versions()
        .into_iter()
        .filter(|v| v.number().value() >= format)
        .map(options)
        .collect()
}

/// Fails unless an envelope's type name is one real clients are known to send.
fn known(type_name: &str, origin: &str) {
    assert!(
        ENVELOPES.contains(&type_name),
        "{origin}: {type_name} is not in ENVELOPES: a new kind a real client sends; read it"
    );
}

/// The `index`-th distinct envelope of `type_name` that jaxlib `release`'s client sent in the
/// toolkit's default run (in the order it sent them).
pub fn envelope_of(release: &str, type_name: &str, index: usize) -> Captured {
    let mut files = captured();
    let file = format!("jaxlib-{release}-default.txt");
    let values = files.remove(&file).unwrap_or_else(|| panic!("no {file}"));
    values
        .into_iter()
        .filter(|v| v.envelope && v.name == type_name)
        .nth(index)
        .unwrap_or_else(|| panic!("{file}: no envelope {index} of {type_name}"))
}

/// Checks the formats a read met: the outer value first, recording `format`.
fn assert_outer_format(formats: &[RecordedFormat], what: &str, value: &Captured) {
    let outer = formats
        .first()
        .unwrap_or_else(|| panic!("{}: reading {what} checked no format", value.origin));
    assert_eq!(outer.what(), what, "{}", value.origin);
    assert_eq!(outer.recorded.value(), value.format(), "{}", value.origin);
}

/// Reads a plain message with the format it records and writes it back, at every version from
/// that format on, to the same bytes. Returns the error if it is not read.
fn read_plain<T: ProtoCodec>(registry: &Registry, value: &Captured) -> Result<(), Error> {
    let o = DeserializeOptions::default();
    let (read, formats) = registry.inspect_proto_bytes::<T>(&value.bytes, &o);
    assert_outer_format(&formats, T::FORMATS.what(), value);
    let read = read?;
    for options in versions_from(value.format()) {
        let written = registry.to_proto_bytes(&read, &options).unwrap();
        assert_eq!(
            written,
            value.bytes,
            "{}: {} written again at {}",
            value.origin,
            T::PROTO_NAME,
            options.version()
        );
    }
    Ok(())
}

#[test]
fn every_plain_message_reads_with_its_format_and_writes_back_the_same_bytes() {
    let registry = built_in();
    let mut read: BTreeMap<String, usize> = BTreeMap::new();
    let mut before_versions = 0;
    for (file, values) in captured() {
        for value in values.iter().filter(|v| !v.envelope) {
            let result = match value.name.as_str() {
                "xla.ifrt.DTypeProto" => read_plain::<DType>(&registry, value),
                "xla.ifrt.ShapeProto" => read_plain::<Shape>(&registry, value),
                "xla.ifrt.DeviceListProto" => read_plain::<DeviceList>(&registry, value),
                "xla.ifrt.ArraySpecProto" => read_plain::<ArraySpec>(&registry, value),
                SHARDING_PROTO => continue,
                other => panic!(
                    "{}: a plain {other} this test does not know; read it here",
                    value.origin
                ),
            };
            match result {
                Ok(()) => {
                    *read.entry(short(&value.name).to_string()).or_default() += 1;
                    before_versions += usize::from(value.format.is_none());
                }
                Err(error) => panic!("{file}: {}: {error}", value.origin),
            }
        }
    }
    // The data holds each kind, from releases with and without `version_number`.
    for kind in ["DTypeProto", "ShapeProto", "DeviceListProto"] {
        assert!(
            read.get(kind).is_some_and(|n| *n > 0),
            "no {kind} read: {read:?}"
        );
    }
    assert!(
        before_versions > 0,
        "no value of a release before jaxlib 0.6.2"
    );
    assert!(
        read.get("ArraySpecProto").is_some_and(|n| *n > 0),
        "no ArraySpecProto in the data"
    );
}

fn short(proto: &str) -> &str {
    proto.rsplit('.').next().unwrap_or(proto)
}

#[test]
fn every_envelope_is_read_with_its_format_and_written_back() {
    let registry = built_in();
    let o = DeserializeOptions::default();
    let mut read = BTreeMap::<String, usize>::new();
    for values in captured().values() {
        for value in values.iter().filter(|v| v.envelope) {
            known(&value.name, &value.origin);
            let (result, formats) = registry.inspect_bytes(&value.bytes, &o);
            let read_value = result.unwrap_or_else(|e| panic!("{}: {e}", value.origin));
            let what = match value.name.as_str() {
                // IFRT's program SerDes names its type HloProgram in messages.
                "xla::ifrt::XlaProgram" => "HloProgram",
                name => name.rsplit("::").next().unwrap(),
            };
            assert_outer_format(&formats, what, value);
            write_back(&registry, read_value.as_ref(), value);
            *read.entry(value.name.clone()).or_default() += 1;
        }
    }
    // What the clients of 0.4.36 ... 0.10.2 send: four kinds at least.
    for kind in [
        "xla::ifrt::SingleDeviceSharding",
        "xla::ifrt::HloSharding",
        "xla::ifrt::ConcreteSharding",
        "xla::ifrt::XlaProgram",
        "xla::ifrt::XlaCompileOptions",
    ] {
        assert!(
            read.get(kind).is_some_and(|n| *n > 0),
            "no {kind}: {read:?}"
        );
    }
}

/// Writes an envelope's value again at every version from its recorded format to this build's
/// current one: the same bytes at the current version; at older ones the same bytes, or a
/// refusal (a type may have a floor of its own for writing). Compile options are written in
/// the newest format a version allows, as real clients write them: the same bytes wherever
/// that is the format they came in, and otherwise the same options in the other format.
fn write_back(registry: &Registry, read: &dyn Serializable, value: &Captured) {
    let current = SupportedVersions::BUILT_IN.current();
    for options in versions_from(value.format()) {
        let version = options.version();
        let newest = XlaCompileOptions::FORMATS.newest_at(version);
        let other_format = value.name == XlaCompileOptions::TYPE_NAME
            && newest != Some(SerDesVersionNumber::new(value.format()));
        match registry.serialize_to_bytes(read, &options) {
            Ok(bytes) if other_format => {
                let o = DeserializeOptions::default();
                let (again, formats) = registry.inspect_bytes(&bytes, &o);
                let again = again.unwrap_or_else(|e| panic!("{}: {e}", value.origin));
                assert_eq!(formats[0].recorded, newest.unwrap(), "{}", value.origin);
                let again =
                    (again.as_ref() as &dyn std::any::Any).downcast_ref::<XlaCompileOptions>();
                let first = (read as &dyn std::any::Any).downcast_ref::<XlaCompileOptions>();
                assert_eq!(again, first, "{}: written again at {version}", value.origin);
            }
            Ok(bytes) => assert_eq!(
                bytes,
                value.bytes,
                "{}: written again at {}",
                value.origin,
                options.version()
            ),
            Err(Error::Incompatible(_)) if options.version() != current => {}
            Err(error) => panic!("{}: at {}: {error}", value.origin, options.version()),
        }
    }
}

/// `ShardingProto` only wraps an envelope: it re-encodes to the same bytes, and its envelope is
/// among the file's envelopes (so the test above checks it).
#[test]
fn every_sharding_proto_wraps_an_envelope_the_data_lists() {
    let mut checked = 0;
    for values in captured().values() {
        for value in values.iter().filter(|v| v.name == SHARDING_PROTO) {
            let proto = ShardingProto::decode(value.bytes.as_slice()).unwrap();
            assert_eq!(proto.encode_to_vec(), value.bytes, "{}", value.origin);
            let inner = proto.serialized_sharding.unwrap().encode_to_vec();
            assert!(
                values.iter().any(|v| v.envelope && v.bytes == inner),
                "{}: its envelope is not listed",
                value.origin
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

/// Every name real clients send is registered by this build, and every registered name is one
/// they send: a codec that lands without its entry, or an entry without its codec, fails here.
#[test]
fn the_envelope_table_matches_what_this_build_registers() {
    let registry = built_in();
    for type_name in ENVELOPES {
        assert!(registry.knows(type_name), "{type_name} is not registered");
    }
    for (type_name, _) in registry.registered() {
        known(type_name, "this build's registry");
    }
}

#[test]
fn real_shardings_decode_to_what_jax_asked_for() {
    let registry = built_in();
    let o = DeserializeOptions::default();
    let read =
        |release: &str, type_name: &str, index: usize| envelope_of(release, type_name, index).bytes;
    const HLO: &str = "xla::ifrt::HloSharding";
    // device_put to one device: replicated (an empty OpSharding) over device 0.
    let one: HloSharding = registry
        .deserialize_from_bytes(&read("0.10.2", HLO, 0), &o)
        .unwrap();
    assert_eq!(one.devices(), [0]);
    assert_eq!(one.memory_kind(), &MemoryKind::device());
    assert_eq!(one.op_sharding().r#type, Type::Replicated as i32);
    // NamedSharding P('a', 'b') on a 2x2 mesh: tiled 2x2 by an iota over 4 devices.
    let tiled: HloSharding = registry
        .deserialize_from_bytes(&read("0.10.2", HLO, 2), &o)
        .unwrap();
    assert_eq!(tiled.devices(), [0, 1, 2, 3]);
    let op = tiled.op_sharding();
    assert_eq!(op.r#type, Type::Other as i32);
    assert_eq!(op.tile_assignment_dimensions, [2, 2]);
    assert_eq!(op.iota_reshape_dims, [4]);
    // P('a'): tiled 2x1, replicated over the last tile dimension.
    let partial: HloSharding = registry
        .deserialize_from_bytes(&read("0.10.2", HLO, 3), &o)
        .unwrap();
    assert_eq!(partial.op_sharding().tile_assignment_dimensions, [2, 1, 2]);
    assert!(partial.op_sharding().replicate_on_last_tile_dim);
    // 0.4.36's assembled arrays: a ConcreteSharding of one shape per device.
    let concrete: ConcreteSharding = registry
        .deserialize_from_bytes(&read("0.4.36", "xla::ifrt::ConcreteSharding", 2), &o)
        .unwrap();
    assert_eq!(concrete.devices(), [0, 1, 2, 3]);
    match concrete.shapes() {
        ConcreteShapes::Static {
            shape,
            shard_shapes,
        } => {
            assert_eq!(shape.dims(), [4, 6]);
            assert!(shard_shapes.iter().all(|s| s.dims() == [2, 3]));
        }
        dynamic => panic!("{dynamic:?}"),
    }
    let single: SingleDeviceSharding = registry
        .deserialize_from_bytes(&read("0.4.36", "xla::ifrt::SingleDeviceSharding", 1), &o)
        .unwrap();
    assert_eq!(single.device_id(), 1);
    // The compile options stay as their raw bytes.
    let bytes = read("0.10.2", "xla::ifrt::XlaCompileOptions", 0);
    let options: XlaCompileOptions = registry.deserialize_from_bytes(&bytes, &o).unwrap();
    let envelope = registry.envelope_from_bytes(&bytes, &o).unwrap();
    assert_eq!(options.payload(), envelope.data);
    assert!(options.compile_options_len().is_some_and(|len| len > 900));
}

/// jaxlib 0.10.2 sends no program at a negotiated 0, 1 or 2: "FAILED_PRECONDITION: Unsupported
/// IFRT SerDes version 1 for HloProgram serialization" (the toolkit's `serdesmax0` and
/// `serdesmax1` captures; at 2, "... version 2 ...", measured with `interop/jaxlib/`), and
/// sends one at 3. A build of this crate refuses the same, with the same words, and still
/// writes the program's shardings and options at those versions.
#[test]
fn a_program_is_not_written_below_week_4_old_as_jaxlib_0_10_2_refuses() {
    let registry = built_in();
    let o = DeserializeOptions::default();
    let program = envelope_of("0.10.2", "xla::ifrt::XlaProgram", 0);
    assert_eq!(program.producer.as_deref(), Some("StableHLO_v1.13.7"));
    let value = registry
        .deserialize_dyn_from_bytes(&program.bytes, &o)
        .unwrap();
    assert_eq!(
        registry.lowest_writable("xla::ifrt::XlaProgram"),
        Some(SerDesVersionNumber::new(3))
    );
    let others: Vec<Captured> = captured()
        .remove("jaxlib-0.10.2-default.txt")
        .unwrap()
        .into_iter()
        .filter(|v| v.envelope && v.name != "xla::ifrt::XlaProgram")
        .collect();
    for number in [0, 1, 2] {
        let version = registry
            .supported()
            .version(SerDesVersionNumber::new(number))
            .unwrap();
        let error = registry
            .serialize_to_bytes(value.as_ref(), &SerializeOptions::new(version))
            .unwrap_err();
        assert!(
            matches!(
                error,
                Error::Incompatible(Incompatible::BelowWriteFloor {
                    what: "HloProgram",
                    ..
                })
            ),
            "{error:?}"
        );
        assert!(
            error.to_string().starts_with(&format!(
                "Unsupported IFRT SerDes version {number} for HloProgram serialization: "
            )),
            "{error}"
        );
        for other in &others {
            let value = registry
                .deserialize_dyn_from_bytes(&other.bytes, &o)
                .unwrap();
            let again = registry
                .serialize_to_bytes(value.as_ref(), &SerializeOptions::new(version))
                .unwrap();
            assert_eq!(again, other.bytes, "{} at {number}", other.origin);
        }
    }
    // Every build reads the program, whatever its range: the floor bounds writing only.
    for (min, max) in crate::common::all_builds() {
        let reader = crate::common::build(min, max);
        assert!(
            reader
                .deserialize_dyn_from_bytes(&program.bytes, &o)
                .is_ok()
        );
    }
    // A build that stops at 2 (as jaxlib 0.10.0's range does) writes no program at all under
    // this preset's week-4-old version; 0.10.0 itself, whose own week-4-old was 1, did.
    let old = Registry::with_builtin_types(
        SupportedVersions::new(SerDesVersionNumber::new(0), SerDesVersionNumber::new(2)).unwrap(),
    );
    assert_eq!(old.lowest_writable("xla::ifrt::XlaProgram"), None);
}

/// The data covers every release captured, with the client's values where it sent any.
#[test]
fn the_data_covers_every_release_captured() {
    let files = captured();
    for release in [
        "0.4.31", "0.4.36", "0.4.38", "0.5.3", "0.6.2", "0.7.2", "0.8.3", "0.9.2", "0.10.2",
        "0.11.2", "0.12.0.1",
    ] {
        assert!(
            files
                .keys()
                .any(|f| f.starts_with(&format!("jaxlib-{release}-"))),
            "no capture of jaxlib {release}"
        );
    }
    let with_values = files.values().filter(|v| !v.is_empty()).count();
    assert!(with_values >= 18, "{with_values} files with values");
}

/// The tool answers for every captured value as the library does: `inspect --proto KIND --json`
/// for a plain message, `inspect --json` for an envelope; exit 0 with the recorded format (0
/// where none is recorded), a program's StableHLO producer, and the oldest version the reader
/// writes the value's type at.
#[test]
fn the_tool_reads_every_captured_value_with_its_format() {
    use std::process::Command;
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ifrt-serdes-real");
    fs::create_dir_all(&scratch).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    let mut runs = 0;
    for values in captured().values() {
        for value in values {
            let kind = match value.name.as_str() {
                "xla.ifrt.DTypeProto" => Some("dtype"),
                "xla.ifrt.ShapeProto" => Some("shape"),
                "xla.ifrt.ArraySpecProto" => Some("array-spec"),
                "xla.ifrt.DeviceListProto" => Some("device-list"),
                _ if value.envelope => None,
                _ => continue,
            };
            if !seen.insert((kind, value.bytes.clone())) {
                continue;
            }
            let file = scratch.join(format!("value-{runs}.pb"));
            fs::write(&file, &value.bytes).unwrap();
            let mut command = Command::new(env!("CARGO_BIN_EXE_ifrt-serdes"));
            command.arg("inspect").arg(&file).arg("--json");
            if let Some(kind) = kind {
                command.args(["--proto", kind]);
            }
            let output = command.output().unwrap();
            let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                output.status.code(),
                Some(0),
                "{}: {report} {stderr}",
                value.origin
            );
            assert_eq!(report["format"], value.format(), "{}", value.origin);
            assert_eq!(report["values"][0]["format"], value.format());
            assert_eq!(report["refused"], false);
            assert_eq!(report["unreadable"], false);
            match kind {
                Some(_) => assert_eq!(report["proto"], value.name.as_str()),
                None => assert_eq!(report["type_name"], value.name.as_str()),
            }
            // A program's producer and bytecode version, and its floor: IFRT pins programs to
            // the build's week-4-old version; every other value is written from the minimum on.
            match &value.producer {
                Some(producer) => {
                    assert_eq!(report["stablehlo_producer"], producer.as_str());
                    assert_eq!(report["mlir_bytecode_version"], 6, "{}", value.origin);
                    assert_eq!(report["lowest_writable"], 3, "{}", value.origin);
                }
                None => {
                    assert_eq!(report["stablehlo_producer"], serde_json::Value::Null);
                    assert_eq!(report["lowest_writable"], 0, "{}", value.origin);
                }
            }
            fs::remove_file(&file).unwrap();
            runs += 1;
        }
    }
    assert!(runs > 20, "{runs}");
}
