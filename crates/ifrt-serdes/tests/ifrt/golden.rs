//! Golden bytes: the bytes real IFRT writes, one committed file per type and format,
//! `<type>_v<F>.pb`, made from IFRT's rules (xla/python/ifrt/dtype.cc, shape.cc, array_spec.cc,
//! device_list.cc, the sharding serializers, ir/sharding_param.cc) with IFRT's schemas, and
//! checked byte for byte against an independent encoder (Python protobuf over the schemas
//! compiled into jaxlib; see tests/data/README.md). The shardings are `Serialized` envelopes, as
//! IFRT's SerDes writes them; `DType`, `Shape`, `DeviceList` and `ArraySpec` are plain messages
//! (`*_proto_v<F>.pb`), as IFRT's `ToProto` writes them: IFRT never puts them in an envelope.
//!
//! A type's bytes change only where its own format, or a nested value's, changed
//! (`common::golden_formats`): `dtype_proto`, `shape_proto`, `device_list_proto` and
//! `single_device_sharding` have one file, the nested `sharding_param_sharding` and
//! `array_spec_proto` two (their param without and with unreduced axes), `xla_compile_options`
//! two (format 0, and format 4 with its `version_number`).
//!
//! - Today's code writes every type at every requested version byte for byte as the golden of
//!   the format its value needs, whatever the version requested (IFRT's rule: the oldest format
//!   that holds the value), except the compile options, which real clients write in the newest
//!   format the version allows.
//! - Every golden is read by every build whose range covers its format, and refused, naming
//!   the part and its format, by exactly the builds the format rule says.
//! - `tests/data/golden/CHECKSUMS` (FNV-1a 64) pins every file: an existing file is never
//!   rewritten. A new format adds files and lines; run `IFRT_SERDES_WRITE_GOLDEN=1 cargo test -p
//!   ifrt-serdes --test ifrt golden` to write the missing ones (it refuses to overwrite a file).
//! - The envelopes of `DType`, `Shape` and `ArraySpec` that earlier versions of this crate
//!   invented (`dtype_v0.pb`, `shape_v0.pb`, `array_spec_v0.pb`, `array_spec_v1.pb`; no real
//!   IFRT writes or reads them) were retired with their checksum lines (issue #34); such an
//!   envelope is now refused, saying which plain message to read instead.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::common::{
    self, GOLDEN_DIR, GOLDEN_TYPES, Wire, all_builds, all_goldens, assert_refused, build, built_in,
    declared_formats, expected_read, fnv1a64, golden_for, golden_formats, golden_name, parts,
    versions, wire, written,
};
use ifrt_serdes::schema::Serialized;
use ifrt_serdes::version::{HISTORY, SerDesVersionNumber};
use ifrt_serdes::{
    ArraySpec, DType, DeserializeOptions, Error, ProtoCodec, RegistryError, ShardingParam,
};
use prost::Message;

const CHECKSUMS: &str = "CHECKSUMS";

fn read_checksums() -> BTreeMap<String, u64> {
    let path = Path::new(GOLDEN_DIR).join(CHECKSUMS);
    let text = fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (sum, name) = line
                .split_once("  ")
                .unwrap_or_else(|| panic!("bad CHECKSUMS line {line:?}"));
            let sum =
                u64::from_str_radix(sum, 16).unwrap_or_else(|_| panic!("bad checksum in {line:?}"));
            (name.to_string(), sum)
        })
        .collect()
}

fn read_golden(name: &str) -> Vec<u8> {
    fs::read(Path::new(GOLDEN_DIR).join(name)).unwrap_or_else(|_| {
        panic!("missing golden file {name}; write it with IFRT_SERDES_WRITE_GOLDEN=1")
    })
}

/// Every test starts here, so in write mode the files exist before any test reads them.
fn goldens() {
    static WRITE: std::sync::Once = std::sync::Once::new();
    WRITE.call_once(write_missing_goldens);
}

/// Writes missing golden files when `IFRT_SERDES_WRITE_GOLDEN=1`, never overwriting one.
fn write_missing_goldens() {
    if std::env::var("IFRT_SERDES_WRITE_GOLDEN").as_deref() != Ok("1") {
        return;
    }
    let registry = built_in();
    let mut sums = read_checksums();
    let mut appended = String::new();
    let program = Path::new(GOLDEN_DIR).join(PROGRAM_GOLDEN);
    if !program.exists() {
        assert!(
            !sums.contains_key(PROGRAM_GOLDEN),
            "restore {PROGRAM_GOLDEN} from git"
        );
        let bytes = registry
            .serialize_to_bytes(&sample_program(), &common::options(week_4_old()))
            .unwrap();
        fs::write(&program, &bytes).unwrap();
        appended.push_str(&format!("{:016x}  {PROGRAM_GOLDEN}\n", fnv1a64(&bytes)));
        sums.insert(PROGRAM_GOLDEN.to_string(), fnv1a64(&bytes));
    }
    for (short, format) in all_goldens() {
        let name = golden_name(short, format);
        let path = Path::new(GOLDEN_DIR).join(&name);
        if path.exists() {
            // Refuse to overwrite: a golden file is history.
            continue;
        }
        assert!(
            !sums.contains_key(&name),
            "{name} is listed in CHECKSUMS but missing; restore it from git, never rewrite it"
        );
        let version = registry
            .supported()
            .version(SerDesVersionNumber::new(format))
            .unwrap();
        let bytes = common::serialize_sample(&registry, short, version).unwrap();
        fs::write(&path, &bytes).unwrap();
        appended.push_str(&format!("{:016x}  {name}\n", fnv1a64(&bytes)));
        sums.insert(name, fnv1a64(&bytes));
    }
    if !appended.is_empty() {
        let path = Path::new(GOLDEN_DIR).join(CHECKSUMS);
        let mut text = fs::read_to_string(&path).unwrap_or_else(|_| {
            "# FNV-1a 64 of each golden file, one per (type, format). Lines are only ever added.\n"
                .to_string()
        });
        text.push_str(&appended);
        fs::write(&path, text).unwrap();
    }
}

/// The program's golden file. A program is written only from the build's week-4-old version
/// on (IFRT pins `HloProgram` to it), so it is kept apart from the types every version writes.
const PROGRAM_GOLDEN: &str = "xla_program_v0.pb";

/// The program jaxlib 0.10.2 compiled for `jit(lambda a: a * 2 + 1)`: its StableHLO bytecode,
/// from the real capture (`tests/data/real/jaxlib-0.10.2-default.txt`).
fn sample_program() -> ifrt_serdes::XlaProgram {
    let real = crate::real::envelope_of("0.10.2", "xla::ifrt::XlaProgram", 0).bytes;
    let envelope = Serialized::decode(real.as_slice()).unwrap();
    ifrt_serdes::XlaProgram::new(envelope.data).unwrap()
}

fn week_4_old() -> ifrt_serdes::version::SerDesVersion {
    ifrt_serdes::version::SupportedVersions::BUILT_IN
        .week_4_old(ifrt_serdes::Date::constant(2026, 7, 14))
        .unwrap()
}

/// The program's golden is written at every version from week-4-old on, refused below it, and
/// read by every build (the payload records no format: 0).
#[test]
fn the_program_golden_is_written_from_week_4_old_on_and_read_by_every_build() {
    goldens();
    let registry = built_in();
    let golden = read_golden(PROGRAM_GOLDEN);
    assert_eq!(
        read_checksums().get(PROGRAM_GOLDEN),
        Some(&fnv1a64(&golden)),
        "{PROGRAM_GOLDEN} changed or has no line in CHECKSUMS"
    );
    let lowest = week_4_old().number();
    for version in versions() {
        let written = registry.serialize_to_bytes(&sample_program(), &common::options(version));
        if version.number() >= lowest {
            assert_eq!(written.unwrap(), golden, "{version}");
        } else {
            assert!(written.is_err(), "{version}");
        }
    }
    for (min, max) in all_builds() {
        let (read, formats) =
            build(min, max).inspect_bytes(&golden, &DeserializeOptions::default());
        let program = read.unwrap_or_else(|e| panic!("[{min}, {max}]: {e}"));
        assert_eq!(format!("{program:?}"), format!("{:?}", sample_program()));
        assert_eq!(formats.len(), 1);
        assert_eq!(
            (formats[0].what(), formats[0].recorded.value()),
            ("HloProgram", 0)
        );
    }
}

#[test]
fn every_type_and_format_has_a_pinned_golden_file() {
    goldens();
    let sums = read_checksums();
    for (short, format) in all_goldens() {
        let name = golden_name(short, format);
        let bytes = read_golden(&name);
        let sum = sums
            .get(&name)
            .unwrap_or_else(|| panic!("{name} has no line in tests/data/golden/CHECKSUMS"));
        assert_eq!(
            fnv1a64(&bytes),
            *sum,
            "{name} changed: golden files are never rewritten; restore it from git"
        );
    }
}

#[test]
fn every_checksum_line_names_an_unchanged_file_and_nothing_else_is_there() {
    goldens();
    let sums = read_checksums();
    assert!(
        !sums.is_empty(),
        "tests/data/golden/CHECKSUMS is missing or empty"
    );
    for (name, sum) in &sums {
        let bytes = read_golden(name);
        assert_eq!(fnv1a64(&bytes), *sum, "{name} changed");
    }
    let mut on_disk: Vec<String> = fs::read_dir(GOLDEN_DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".pb"))
        .collect();
    on_disk.sort();
    let mut wanted: Vec<String> = all_goldens()
        .into_iter()
        .map(|(short, format)| golden_name(short, format))
        .chain([PROGRAM_GOLDEN.to_string()])
        .collect();
    wanted.sort();
    // One file per (type, format): no file for a version at which the type did not change.
    assert_eq!(on_disk, wanted);
    assert_eq!(sums.keys().cloned().collect::<Vec<_>>(), wanted);
}

#[test]
fn dtype_has_exactly_one_golden_per_format_it_ever_had() {
    goldens();
    let dtype_files: Vec<String> = fs::read_dir(GOLDEN_DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("dtype_"))
        .collect();
    let formats: Vec<i32> = DType::FORMATS
        .versions()
        .iter()
        .map(|f| f.value())
        .collect();
    assert_eq!(formats, [0]);
    assert_eq!(dtype_files, ["dtype_proto_v0.pb"]);
}

#[test]
fn every_type_at_every_requested_version_writes_the_golden_of_its_newest_format() {
    goldens();
    let registry = built_in();
    let mut checked = 0;
    for (short, _) in GOLDEN_TYPES {
        for version in versions() {
            let name = golden_for(short, version.number().value());
            let written = common::serialize_sample(&registry, short, version).unwrap();
            assert_eq!(
                written,
                read_golden(&name),
                "{short} requested at {version}: expected the bytes of {name}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, GOLDEN_TYPES.len() * HISTORY.len());
    // DType written at every version is the same bytes, and so is a sharding.
    assert_eq!(golden_for("dtype_proto", 2), "dtype_proto_v0.pb");
    assert_eq!(
        golden_for("single_device_sharding", 2),
        "single_device_sharding_v0.pb"
    );
    assert_eq!(
        golden_for("sharding_param_sharding", 2),
        "sharding_param_sharding_v1.pb"
    );
}

/// IFRT's `ShardingParam::ToProto` records 1 only for a param with unreduced axes: a param
/// without any, requested at 1 or 2, records 0 and is the bytes of the format-0 golden, which a
/// build that knows only format 0 reads.
#[test]
fn a_value_records_the_oldest_format_that_holds_it_not_the_requested_version() {
    goldens();
    let registry = built_in();
    let v0_sharding = common::sample_param_sharding(SerDesVersionNumber::new(0));
    let v0_spec = common::sample_array_spec(SerDesVersionNumber::new(0));
    let only_format_0 = build(0, 0);
    for version in versions() {
        let options = common::options(version);
        let sharding = registry.serialize_to_bytes(&v0_sharding, &options).unwrap();
        assert_eq!(
            sharding,
            read_golden("sharding_param_sharding_v0.pb"),
            "{version}"
        );
        let spec = registry.to_proto_bytes(&v0_spec, &options).unwrap();
        assert_eq!(spec, read_golden("array_spec_proto_v0.pb"), "{version}");
        let (read, formats) =
            only_format_0.inspect_proto_bytes::<ArraySpec>(&spec, &DeserializeOptions::default());
        assert!(read.is_ok(), "{version}: {read:?}");
        assert!(
            formats.iter().all(|f| f.recorded.value() == 0),
            "{formats:?}"
        );
    }
}

/// Real IFRT's `ShardingParam::FromProto` reads a recorded 2 (written by mistake for 1) with
/// its unreduced axes, and any negative number as format 0; it refuses 3 and above. The crate
/// reads what IFRT reads, and every refusal's message agrees with the range it prints.
#[test]
fn sharding_param_numbers_ifrt_accepts_are_read() {
    use ifrt_serdes::schema::{Serialized, ShardingParamProto, ShardingParamShardingProto};
    let with_param_recorded = |recorded: i32| {
        let golden =
            Serialized::decode(read_golden("sharding_param_sharding_v1.pb").as_slice()).unwrap();
        let mut proto = ShardingParamShardingProto::decode(golden.data.as_slice()).unwrap();
        let param: &mut ShardingParamProto = proto.sharding_param.as_mut().unwrap();
        param.version_number = recorded;
        Serialized {
            type_name: golden.type_name,
            data: proto.encode_to_vec(),
        }
        .encode_to_vec()
    };
    goldens();
    let o = DeserializeOptions::default();
    let with_unreduced = common::sample_param_sharding(SerDesVersionNumber::new(1));
    let without = common::sample_param_sharding(SerDesVersionNumber::new(0));
    let now = build(0, 2);
    let read = |registry: &ifrt_serdes::Registry, recorded| {
        registry.deserialize_from_bytes::<ifrt_serdes::ShardingParamSharding>(
            &with_param_recorded(recorded),
            &o,
        )
    };
    assert_eq!(read(&now, 2).unwrap(), with_unreduced, "2 reads as 1");
    assert_eq!(read(&now, 1).unwrap(), with_unreduced);
    // Format 0 and below have no unreduced axes: IFRT ignores the field there.
    assert_eq!(read(&now, 0).unwrap(), without);
    assert_eq!(read(&now, -7).unwrap(), without);
    let too_new = read(&now, 3).unwrap_err().to_string();
    assert_eq!(
        too_new,
        "Unsupported IFRT SerDes version 3 for ShardingParam deserialization: this build reads \
         IFRT SerDes versions [0, 2], and 3 is newer, written by a newer build; the writer must \
         request a version both builds support (negotiate one)"
    );
    // A build of version 3 knows the number 3, which is no format of ShardingParam (IFRT's
    // reader refuses anything above 2).
    let error = read(&build(0, 3), 3).unwrap_err().to_string();
    assert_eq!(
        error,
        "Unsupported IFRT SerDes version 3 for ShardingParam deserialization: ShardingParam has \
         no format 3 (this build reads IFRT SerDes versions [0, 3]): the data is damaged or was \
         not written by a codec of ShardingParam"
    );
    // A build of version 1 does not know the number 2 yet.
    let older = build(0, 1);
    let error = read(&older, 2).unwrap_err().to_string();
    assert!(
        error.starts_with(
            "Unsupported IFRT SerDes version 2 for ShardingParam deserialization: this build \
             reads IFRT SerDes versions [0, 1], and 2 is newer"
        ),
        "{error}"
    );
    // A build whose minimum is 1 reads 2 (format 1) but not 0 or -7 (format 0, removed).
    let raised = build(1, 2);
    assert_eq!(read(&raised, 2).unwrap(), with_unreduced);
    for (removed, read_as) in [(0, ""), (-7, " (which version -7 is read as)")] {
        let error = read(&raised, removed).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "Unsupported IFRT SerDes version {removed} for ShardingParam deserialization: \
                 this build reads IFRT SerDes versions [1, 2], and ShardingParam format \
                 0{read_as} was superseded by format 1 at or before this build's minimum, so its \
                 reader was removed; the writer must request a version both builds support \
                 (negotiate one)"
            )
        );
    }
    // The shardings themselves have one format: IFRT refuses any other number, so does the
    // crate, saying the type has no such format.
    let golden =
        Serialized::decode(read_golden("single_device_sharding_v0.pb").as_slice()).unwrap();
    let mut proto =
        ifrt_serdes::schema::SingleDeviceShardingProto::decode(golden.data.as_slice()).unwrap();
    proto.version_number = 2;
    let bytes = Serialized {
        type_name: golden.type_name,
        data: proto.encode_to_vec(),
    }
    .encode_to_vec();
    let error = now
        .deserialize_from_bytes::<ifrt_serdes::SingleDeviceSharding>(&bytes, &o)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "Unsupported IFRT SerDes version 2 for SingleDeviceSharding deserialization: \
         SingleDeviceSharding has no format 2 (this build reads IFRT SerDes versions [0, 2]): \
         the data is damaged or was not written by a codec of SingleDeviceSharding"
    );
}

#[test]
fn every_golden_records_its_format_and_decodes_to_its_sample() {
    goldens();
    let registry = built_in();
    for (short, format) in all_goldens() {
        let name = golden_name(short, format);
        let bytes = read_golden(&name);
        let message = match wire(short) {
            Wire::Envelope(type_name) => {
                let envelope = registry
                    .envelope_from_bytes(&bytes, &DeserializeOptions::default())
                    .unwrap();
                assert_eq!(envelope.type_name, type_name, "{name}");
                envelope.data
            }
            // A plain message is the whole file.
            Wire::Proto(_) => bytes.clone(),
        };
        // The outer message records its own format, not the version it was requested at.
        let (_, own) = parts(short)[0];
        assert_eq!(
            recorded_version(short, &message),
            written(own, format),
            "{name}"
        );
        assert!(
            common::decodes_to_sample(&registry, short, SerDesVersionNumber::new(format), &bytes)
                .unwrap_or_else(|e| panic!("{name}: {e}")),
            "{name} does not decode to its sample"
        );
    }
}

#[test]
fn every_golden_is_read_by_every_build_whose_range_covers_it() {
    goldens();
    let mut read = 0;
    let mut refused = 0;
    for (short, format) in all_goldens() {
        let name = golden_name(short, format);
        let bytes = read_golden(&name);
        for (min, max) in all_builds() {
            let reader = build(min, max);
            let result =
                common::decodes_to_sample(&reader, short, SerDesVersionNumber::new(format), &bytes);
            if (min..=max).contains(&format) {
                assert_eq!(result, Ok(true), "{name} by [{min}, {max}]");
            }
            match expected_read(short, format, (min, max)) {
                Ok(()) => {
                    assert_eq!(result, Ok(true), "{name} by [{min}, {max}]");
                    read += 1;
                }
                Err((what, recorded)) => {
                    assert_refused(result, what, recorded, (min, max), &name);
                    refused += 1;
                }
            }
        }
    }
    assert!(read > 0 && refused > 0);
}

#[test]
fn the_library_declares_the_formats_the_tests_state() {
    let registry = built_in();
    for (short, wire) in GOLDEN_TYPES {
        let (what, own) = parts(short)[0];
        let formats = declared_formats(short);
        let declared: Vec<i32> = formats.versions().iter().map(|f| f.value()).collect();
        assert_eq!(declared, own, "{short}");
        assert_eq!(formats.what(), what);
        // SerDes types are registered with the same formats; plain messages are not
        // registered at all (IFRT registers no SerDes for them).
        match wire {
            Wire::Envelope(type_name) => {
                assert_eq!(registry.formats_of(type_name), Some(formats), "{short}")
            }
            Wire::Proto(_) => {
                let type_name = format!("xla::ifrt::{what}");
                assert!(!registry.knows(&type_name), "{type_name} is registered");
            }
        }
    }
    let param: Vec<i32> = ShardingParam::FORMATS
        .versions()
        .iter()
        .map(|f| f.value())
        .collect();
    assert_eq!(param, [0, 1]);
    // Every format is a version of the history. Not every version introduced a format of
    // these types: IFRT's versions 2 and 3 concern IFRT IR and StableHLO programs, and change
    // no format of them; 4 is the compile options' format.
    let mut all: Vec<i32> = GOLDEN_TYPES
        .iter()
        .flat_map(|(short, _)| golden_formats(short))
        .collect();
    all.sort_unstable();
    all.dedup();
    let history: Vec<i32> = HISTORY.iter().map(|e| e.number().value()).collect();
    assert_eq!(all, [0, 1, 4]);
    assert!(all.iter().all(|f| history.contains(f)));
}

#[test]
fn formats_that_changed_changed_their_bytes() {
    goldens();
    // Sanity check that the goldens really differ where the formats changed: format 1 of the
    // param adds unreduced axes.
    assert_ne!(
        strip(&read_golden("sharding_param_sharding_v0.pb")),
        strip(&read_golden("sharding_param_sharding_v1.pb"))
    );
}

/// The envelope's data with its version fields zeroed, to compare formats.
fn strip(bytes: &[u8]) -> Vec<u8> {
    use ifrt_serdes::schema::*;
    let envelope = Serialized::decode(bytes).unwrap();
    match envelope.type_name.as_str() {
        "xla::ifrt::SingleDeviceSharding" => {
            let mut p = SingleDeviceShardingProto::decode(envelope.data.as_slice()).unwrap();
            p.version_number = 0;
            p.encode_to_vec()
        }
        "xla::ifrt::ShardingParamSharding" => {
            let mut p = ShardingParamShardingProto::decode(envelope.data.as_slice()).unwrap();
            p.version_number = 0;
            p.sharding_param.as_mut().unwrap().version_number = 0;
            p.devices.as_mut().unwrap().version_number = 0;
            p.encode_to_vec()
        }
        other => panic!("{other}"),
    }
}

fn recorded_version(short: &str, data: &[u8]) -> i32 {
    use ifrt_serdes::schema::*;
    match short {
        "dtype_proto" => DTypeProto::decode(data).unwrap().version_number,
        "shape_proto" => ShapeProto::decode(data).unwrap().version_number,
        "device_list_proto" => DeviceListProto::decode(data).unwrap().version_number,
        "single_device_sharding" => {
            SingleDeviceShardingProto::decode(data)
                .unwrap()
                .version_number
        }
        "sharding_param_sharding" => {
            ShardingParamShardingProto::decode(data)
                .unwrap()
                .version_number
        }
        "array_spec_proto" => ArraySpecProto::decode(data).unwrap().version_number,
        "hlo_sharding" => HloShardingProto::decode(data).unwrap().version_number,
        "concrete_sharding" => ConcreteShardingProto::decode(data).unwrap().version_number,
        "concrete_even_sharding" => {
            ConcreteEvenShardingProto::decode(data)
                .unwrap()
                .version_number
        }
        "opaque_sharding" => OpaqueShardingProto::decode(data).unwrap().version_number,
        "compact_layout" => CompactLayoutProto::decode(data).unwrap().version_number,
        "pjrt_layout" => PjRtLayoutProto::decode(data).unwrap().version_number,
        // Field 3 of `XlaCompileOptionsProto` since jaxlib 0.11.0 (absent before: 0), read by
        // prost from a message declaring only that field.
        "xla_compile_options" => {
            #[derive(Clone, PartialEq, prost::Message)]
            struct VersionOnly {
                #[prost(int32, tag = "3")]
                version_number: i32,
            }
            VersionOnly::decode(data).unwrap().version_number
        }
        other => panic!("{other}"),
    }
}

/// The envelopes this crate once invented for `DType`, `Shape` and `ArraySpec` (and one a
/// `DeviceList` would have) are refused by the registry: IFRT has no SerDes for these types. The
/// message starts with IFRT's own words for an unknown type name and says which plain message to
/// read instead. Their golden files are gone (`every_checksum_line_...` checks that nothing but
/// the listed files is there).
#[test]
fn the_retired_envelopes_are_refused_saying_which_plain_message_to_read() {
    goldens();
    let registry = built_in();
    let o = DeserializeOptions::default();
    let cases = [
        (
            "xla::ifrt::DType",
            "DType",
            "xla.ifrt.DTypeProto",
            "dtype",
            "dtype_proto_v0.pb",
        ),
        (
            "xla::ifrt::Shape",
            "Shape",
            "xla.ifrt.ShapeProto",
            "shape",
            "shape_proto_v0.pb",
        ),
        (
            "xla::ifrt::ArraySpec",
            "ArraySpec",
            "xla.ifrt.ArraySpecProto",
            "array-spec",
            "array_spec_proto_v1.pb",
        ),
        (
            "xla::ifrt::DeviceList",
            "DeviceList",
            "xla.ifrt.DeviceListProto",
            "device-list",
            "device_list_proto_v0.pb",
        ),
    ];
    for (type_name, what, proto, kind, golden) in cases {
        // What the crate used to write: the plain message's bytes in an envelope of that name.
        let bytes = ifrt_serdes::schema::Serialized {
            type_name: type_name.to_string(),
            data: read_golden(golden),
        }
        .encode_to_vec();
        let error = registry.deserialize_dyn_from_bytes(&bytes, &o).unwrap_err();
        assert_eq!(
            error,
            Error::Registry(RegistryError::SentAsPlainProto {
                type_name,
                what,
                proto,
                kind,
            })
        );
        assert_eq!(
            error.to_string(),
            format!(
                "Deserialize call failed. Serializable has no associated SerDes implementation. \
                 type_name: {type_name}. IFRT never puts a {what} in a `Serialized` envelope: it \
                 sends a plain {proto} message inside its requests. Read that message instead \
                 (`Registry::from_proto_bytes::<{what}>`; `ifrt-serdes inspect FILE --proto \
                 {kind}`)"
            )
        );
        // The same refusal nested, as an ArraySpec's "sharding".
        let nested = ifrt_serdes::schema::ArraySpecProto {
            sharding: Some(ifrt_serdes::schema::ShardingProto {
                serialized_sharding: Some(ifrt_serdes::schema::Serialized {
                    type_name: type_name.to_string(),
                    data: vec![],
                }),
            }),
            ..ifrt_serdes::schema::ArraySpecProto::decode(
                read_golden("array_spec_proto_v0.pb").as_slice(),
            )
            .unwrap()
        };
        assert!(matches!(
            registry.from_proto_bytes::<ArraySpec>(&nested.encode_to_vec(), &o),
            Err(Error::Registry(RegistryError::SentAsPlainProto { .. }))
        ));
        // The plain message itself reads.
        let plain = read_golden(golden);
        let (read, formats) = match kind {
            "dtype" => {
                let (r, f) = registry.inspect_proto_bytes::<DType>(&plain, &o);
                (r.map(|_| ()), f)
            }
            "shape" => {
                let (r, f) = registry.inspect_proto_bytes::<ifrt_serdes::Shape>(&plain, &o);
                (r.map(|_| ()), f)
            }
            "array-spec" => {
                let (r, f) = registry.inspect_proto_bytes::<ArraySpec>(&plain, &o);
                (r.map(|_| ()), f)
            }
            _ => {
                let (r, f) = registry.inspect_proto_bytes::<ifrt_serdes::DeviceList>(&plain, &o);
                (r.map(|_| ()), f)
            }
        };
        assert_eq!(read, Ok(()), "{golden}");
        assert_eq!(formats[0].what(), what);
    }
    for retired in [
        "dtype_v0.pb",
        "shape_v0.pb",
        "array_spec_v0.pb",
        "array_spec_v1.pb",
    ] {
        assert!(
            !Path::new(GOLDEN_DIR).join(retired).exists(),
            "{retired} was retired"
        );
    }
}
