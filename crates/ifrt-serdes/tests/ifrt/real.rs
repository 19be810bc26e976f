//! Real bytes: every IFRT value the IFRT Proxy clients of real jaxlib releases (0.4.31 to
//! 0.10.2) sent, kept in `tests/data/real/` (one file per release and scenario; the README there
//! says where they come from and how they were made).
//!
//! - Every plain message of the four types IFRT sends that way (`DTypeProto`, `ShapeProto`,
//!   `ArraySpecProto`, `DeviceListProto`) is read with the format it records (0 where the
//!   release's schema has no `version_number` yet, before jaxlib 0.6.2) and written again, at
//!   every version from that format to this build's current one, to the same bytes.
//! - Every envelope names a type listed in [`ENVELOPES`]: the types this build reads are read
//!   with the format they record and written again to the same bytes; the types it does not
//!   read yet are refused with IFRT's "no associated SerDes implementation", and the test fails
//!   the day one of them becomes readable while still listed as unread.
//! - An `ArraySpecProto` whose sharding is of a kind not read yet is refused naming that kind;
//!   read with a stand-in codec that keeps that sharding's payload as it is, the rest of it
//!   (dtype, shape, layout, its own format) reads and writes back to the same bytes.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::common::{built_in, options, versions};
use ifrt_serdes::schema::{ArraySpecProto, ShardingProto};
use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{
    ArraySpec, Codec, DType, DeserializeOptions, DeviceList, Error, Formats, ProtoCodec,
    RecordedFormat, Registry, RegistryError, Serializable, SerializeOptions, Shape, Sharding,
    ShardingParamSharding, SingleDeviceSharding,
};
use prost::Message;

/// The real values, in the source tree.
const REAL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/real");

/// What this build does with an envelope's type name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Registered: read with the format it records and written back to the same bytes.
    Read,
    /// Not read yet: refused as a name with no SerDes. Listed so that nothing rots unseen.
    KnownUnread,
}

/// Every SerDes type name real clients send (and those this build registers), and what this
/// build does with it.
///
/// **Where the other sharding kinds, the programs and the compile options are checked.** When a
/// codec for one of the `KnownUnread` names lands (issue #34, items 2 and 3: `HloSharding`,
/// `ConcreteSharding`, `ConcreteEvenSharding`, `OpaqueSharding`, the layouts, `XlaProgram`,
/// `XlaCompileOptions`), move its entry to `Read`: from then on every captured envelope of it
/// must read with the format it records and write back to the same bytes. Until it is moved,
/// [`the_expectation_table_matches_what_this_build_registers`] fails.
const ENVELOPES: &[(&str, Expect)] = &[
    ("xla::ifrt::SingleDeviceSharding", Expect::Read),
    ("xla::ifrt::ShardingParamSharding", Expect::Read),
    // Known unread: waiting for their codecs (issue #34, items 2 and 3).
    ("xla::ifrt::HloSharding", Expect::KnownUnread),
    ("xla::ifrt::ConcreteSharding", Expect::KnownUnread),
    ("xla::ifrt::ConcreteEvenSharding", Expect::KnownUnread),
    ("xla::ifrt::OpaqueSharding", Expect::KnownUnread),
    ("xla::ifrt::CompactLayout", Expect::KnownUnread),
    ("xla::ifrt::PjRtLayout", Expect::KnownUnread),
    ("xla::ifrt::XlaProgram", Expect::KnownUnread),
    ("xla::ifrt::XlaCompileOptions", Expect::KnownUnread),
];

/// The plain messages the captures hold, besides the four types': `ShardingProto` (a
/// sharding's envelope wrapped in a message with no version of its own, a field of IFRT
/// Proxy's requests and of `ArraySpecProto`).
const SHARDING_PROTO: &str = "xla.ifrt.ShardingProto";

/// One line of a `tests/data/real/` file: one distinct value a client sent.
#[derive(Debug)]
struct Captured {
    /// `file:line`, for messages.
    origin: String,
    /// A plain message (`proto`) or an envelope (`envelope`).
    envelope: bool,
    /// The message's protobuf name, or the envelope's type name.
    name: String,
    /// The recorded `version_number`; `None` where the release's schema has none.
    format: Option<i32>,
    /// The bytes the client sent.
    bytes: Vec<u8>,
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

/// What an envelope's type name is expected to do.
fn expect(type_name: &str, origin: &str) -> Expect {
    ENVELOPES
        .iter()
        .find(|(name, _)| *name == type_name)
        .unwrap_or_else(|| {
            panic!("{origin}: {type_name} is not in ENVELOPES: add it, as `Read` or `KnownUnread`")
        })
        .1
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

/// The sharding kind named inside a captured `ArraySpecProto`.
fn sharding_kind(bytes: &[u8]) -> String {
    ArraySpecProto::decode(bytes)
        .unwrap()
        .sharding
        .and_then(|s| s.serialized_sharding)
        .map(|e| e.type_name)
        .unwrap_or_default()
}

#[test]
fn every_plain_message_reads_with_its_format_and_writes_back_the_same_bytes() {
    let registry = built_in();
    let mut read: BTreeMap<String, usize> = BTreeMap::new();
    let mut before_versions = 0;
    let mut waiting_for_their_sharding = 0;
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
                // An ArraySpec whose sharding this build does not read yet: refused naming
                // that kind (checked further with a stand-in below).
                Err(Error::Registry(RegistryError::NoSerDesForTypeName { type_name }))
                    if value.name == "xla.ifrt.ArraySpecProto" =>
                {
                    assert_eq!(type_name, sharding_kind(&value.bytes), "{}", value.origin);
                    assert_eq!(
                        expect(&type_name, &value.origin),
                        Expect::KnownUnread,
                        "{}: {type_name} is listed as read",
                        value.origin
                    );
                    waiting_for_their_sharding += 1;
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
        read.get("ArraySpecProto").copied().unwrap_or(0) + waiting_for_their_sharding > 0,
        "no ArraySpecProto in the data"
    );
}

fn short(proto: &str) -> &str {
    proto.rsplit('.').next().unwrap_or(proto)
}

#[test]
fn every_envelope_is_read_with_its_format_and_written_back_or_known_unread() {
    let registry = built_in();
    let o = DeserializeOptions::default();
    let mut read = 0;
    let mut unread = 0;
    for values in captured().values() {
        for value in values.iter().filter(|v| v.envelope) {
            let (result, formats) = registry.inspect_bytes(&value.bytes, &o);
            match expect(&value.name, &value.origin) {
                Expect::Read => {
                    let read_value = result.unwrap_or_else(|e| panic!("{}: {e}", value.origin));
                    let what = value.name.rsplit("::").next().unwrap();
                    assert_outer_format(&formats, what, value);
                    write_back(&registry, read_value.as_ref(), value);
                    read += 1;
                }
                Expect::KnownUnread => {
                    match result {
                        Err(Error::Registry(RegistryError::NoSerDesForTypeName { type_name })) => {
                            assert_eq!(type_name, value.name, "{}", value.origin)
                        }
                        Ok(_) => panic!(
                            "{}: {} is now read: move it to `Expect::Read` in ENVELOPES",
                            value.origin, value.name
                        ),
                        Err(error) => panic!("{}: {error}", value.origin),
                    }
                    unread += 1;
                }
            }
        }
    }
    assert!(read > 0 && unread > 0, "read {read}, unread {unread}");
}

/// Writes an envelope's value again at every version from its recorded format to this build's
/// current one: the same bytes at the current version; at older ones the same bytes, or a
/// refusal (a type may have a floor of its own for writing).
fn write_back(registry: &Registry, read: &dyn Serializable, value: &Captured) {
    let current = SupportedVersions::BUILT_IN.current();
    for options in versions_from(value.format()) {
        match registry.serialize_to_bytes(read, &options) {
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

/// Every `Read` name is registered by this build, every `KnownUnread` one is not: a codec that
/// lands without its entry moving fails here.
#[test]
fn the_expectation_table_matches_what_this_build_registers() {
    let registry = built_in();
    for (type_name, expected) in ENVELOPES {
        assert_eq!(
            registry.knows(type_name),
            *expected == Expect::Read,
            "{type_name} is listed as {expected:?}: {}",
            if registry.knows(type_name) {
                "it is registered now, move it to `Expect::Read`"
            } else {
                "it is not registered"
            }
        );
    }
    for (type_name, _) in registry.registered() {
        expect(type_name, "this build's registry");
    }
}

/// Holds a sharding of a kind this build does not read yet as its payload's bytes, so that the
/// rest of a real `ArraySpecProto` can be read and written back around it.
#[derive(Debug, PartialEq)]
struct StandIn(Vec<u8>);

impl Serializable for StandIn {}

impl Sharding for StandIn {
    fn same_as(&self, other: &dyn Sharding) -> bool {
        (other as &dyn std::any::Any).downcast_ref::<Self>() == Some(self)
    }
}

impl Codec for StandIn {
    /// The only kind inside the captured array specs.
    const TYPE_NAME: &'static str = "xla::ifrt::HloSharding";
    const FORMATS: Formats = Formats::new("HloSharding (stand-in)", &[SerDesVersionNumber::new(0)]);

    fn serialize_into(
        &self,
        _: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        out.extend_from_slice(&self.0);
        Ok(())
    }

    fn deserialize(data: &[u8], _: &DeserializeOptions, _: &Registry) -> Result<Self, Error> {
        Ok(StandIn(data.to_vec()))
    }
}

#[test]
fn array_specs_around_a_sharding_not_read_yet_read_and_write_back_the_same_bytes() {
    let mut registry = Registry::new(SupportedVersions::BUILT_IN);
    registry
        .register_sharding::<SingleDeviceSharding>()
        .unwrap();
    registry
        .register_sharding::<ShardingParamSharding>()
        .unwrap();
    registry.register_sharding::<StandIn>().unwrap();
    let mut checked = 0;
    for values in captured().values() {
        for value in values
            .iter()
            .filter(|v| v.name == "xla.ifrt.ArraySpecProto")
        {
            if sharding_kind(&value.bytes) != StandIn::TYPE_NAME
                || expect(StandIn::TYPE_NAME, &value.origin) == Expect::Read
            {
                continue;
            }
            read_plain::<ArraySpec>(&registry, value)
                .unwrap_or_else(|e| panic!("{}: {e}", value.origin));
            checked += 1;
        }
    }
    // Until HloSharding is read, every captured ArraySpecProto (0.6.2 and later) goes here.
    if expect(StandIn::TYPE_NAME, "ENVELOPES") == Expect::KnownUnread {
        assert!(checked > 0);
    }
}

/// The data covers every release captured, with the client's values where it sent any.
#[test]
fn the_data_covers_every_release_captured() {
    let files = captured();
    for release in [
        "0.4.31", "0.4.36", "0.4.38", "0.5.3", "0.6.2", "0.7.2", "0.10.2",
    ] {
        assert!(
            files
                .keys()
                .any(|f| f.starts_with(&format!("jaxlib-{release}-"))),
            "no capture of jaxlib {release}"
        );
    }
    let with_values = files.values().filter(|v| !v.is_empty()).count();
    assert!(with_values >= 8, "{with_values} files with values");
}

/// The tool answers for every captured value as the library does: `inspect --proto KIND --json`
/// for a plain message, `inspect --json` for an envelope; exit 0 with the recorded format (0
/// where none is recorded) for what this build reads, exit 2 naming the kind it does not read
/// yet otherwise.
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
            // The kind that decides: the envelope's own, or an ArraySpec's sharding's.
            let deciding = match kind {
                None => Some(value.name.clone()),
                Some("array-spec") => Some(sharding_kind(&value.bytes)),
                Some(_) => None,
            };
            match deciding.map(|name| (expect(&name, &value.origin), name)) {
                Some((Expect::KnownUnread, name)) => {
                    assert_eq!(output.status.code(), Some(2), "{}: {report}", value.origin);
                    assert!(stderr.contains(&format!("type_name: {name}")), "{stderr}");
                }
                _ => {
                    assert_eq!(
                        output.status.code(),
                        Some(0),
                        "{}: {report} {stderr}",
                        value.origin
                    );
                    assert_eq!(report["format"], value.format(), "{}", value.origin);
                    assert_eq!(report["values"][0]["format"], value.format());
                    assert_eq!(report["refused"], false);
                    match kind {
                        Some(_) => assert_eq!(report["proto"], value.name.as_str()),
                        None => assert_eq!(report["type_name"], value.name.as_str()),
                    }
                }
            }
            fs::remove_file(&file).unwrap();
            runs += 1;
        }
    }
    assert!(runs > 20, "{runs}");
}
