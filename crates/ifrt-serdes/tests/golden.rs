//! Golden bytes: one committed file per type and version, from the minimum to the current.
//!
//! - Every file decodes, with today's code, to the sample value of its version.
//! - Today's code still writes every old version byte for byte.
//! - `tests/data/golden/CHECKSUMS` (FNV-1a 64) pins every file: an existing file is never rewritten. A new
//!   version adds files and lines; run `IFRT_SERDES_WRITE_GOLDEN=1 cargo test -p ifrt-serdes
//!   --test golden` to write the missing ones (it refuses to overwrite a file that exists).

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use common::{GOLDEN_DIR, GOLDEN_TYPES, built_in, fnv1a64, golden_name, versions};
use ifrt_serdes::DeserializeOptions;
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
    for (short, _) in GOLDEN_TYPES {
        for version in versions() {
            let name = golden_name(short, version.number());
            let path = Path::new(GOLDEN_DIR).join(&name);
            let bytes = common::serialize_sample(&registry, short, version).unwrap();
            if path.exists() {
                // Refuse to overwrite: a golden file is history.
                continue;
            }
            assert!(
                !sums.contains_key(&name),
                "{name} is listed in CHECKSUMS but missing; restore it from git, never rewrite it"
            );
            fs::write(&path, &bytes).unwrap();
            appended.push_str(&format!("{:016x}  {name}\n", fnv1a64(&bytes)));
            sums.insert(name, fnv1a64(&bytes));
        }
    }
    if !appended.is_empty() {
        let path = Path::new(GOLDEN_DIR).join(CHECKSUMS);
        let mut text = fs::read_to_string(&path).unwrap_or_else(|_| {
            "# FNV-1a 64 of each golden file. Lines are only ever added.\n".to_string()
        });
        text.push_str(&appended);
        fs::write(&path, text).unwrap();
    }
}

#[test]
fn every_type_and_version_has_a_pinned_golden_file() {
    goldens();
    let sums = read_checksums();
    for (short, _) in GOLDEN_TYPES {
        for version in versions() {
            let name = golden_name(short, version.number());
            let path = Path::new(GOLDEN_DIR).join(&name);
            let bytes = fs::read(&path).unwrap_or_else(|_| {
                panic!("missing golden file {name}; write it with IFRT_SERDES_WRITE_GOLDEN=1")
            });
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
}

#[test]
fn every_checksum_line_names_an_unchanged_file() {
    goldens();
    let sums = read_checksums();
    assert!(
        !sums.is_empty(),
        "tests/data/golden/CHECKSUMS is missing or empty"
    );
    for (name, sum) in &sums {
        let bytes = fs::read(Path::new(GOLDEN_DIR).join(name))
            .unwrap_or_else(|_| panic!("{name} is listed in CHECKSUMS but missing"));
        assert_eq!(fnv1a64(&bytes), *sum, "{name} changed");
    }
    let on_disk = fs::read_dir(GOLDEN_DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".pb"))
        .count();
    assert_eq!(on_disk, sums.len(), "every .pb file is listed in CHECKSUMS");
}

#[test]
fn every_golden_file_decodes_to_its_sample() {
    goldens();
    let registry = built_in();
    let mut decoded = 0;
    for (short, type_name) in GOLDEN_TYPES {
        for version in versions() {
            let name = golden_name(short, version.number());
            let bytes = fs::read(Path::new(GOLDEN_DIR).join(&name)).unwrap();
            // The envelope names the type; the data records the version it was written in.
            let envelope = registry
                .envelope_from_bytes(&bytes, &DeserializeOptions::default())
                .unwrap();
            assert_eq!(envelope.type_name, *type_name, "{name}");
            assert_eq!(
                recorded_version(short, &envelope.data),
                version.number().value()
            );
            assert!(
                common::decodes_to_sample(&registry, short, version.number(), &bytes)
                    .unwrap_or_else(|e| panic!("{name}: {e}")),
                "{name} does not decode to its sample"
            );
            decoded += 1;
        }
    }
    assert_eq!(decoded, GOLDEN_TYPES.len() * versions().len());
}

#[test]
fn todays_code_writes_every_old_version_byte_for_byte() {
    goldens();
    let registry = built_in();
    for (short, _) in GOLDEN_TYPES {
        for version in versions() {
            let name = golden_name(short, version.number());
            let golden = fs::read(Path::new(GOLDEN_DIR).join(&name)).unwrap();
            let written = common::serialize_sample(&registry, short, version).unwrap();
            assert_eq!(
                written, golden,
                "{name}: the format of an old version changed"
            );
        }
    }
}

#[test]
fn versions_that_changed_a_type_changed_its_bytes() {
    goldens();
    // Sanity check that the goldens really differ where the history says formats changed:
    // version 1 adds unreduced axes, version 2 writes well-known memory kinds as ids.
    let read = |name: &str| fs::read(Path::new(GOLDEN_DIR).join(name)).unwrap();
    assert_ne!(
        strip(&read("sharding_param_sharding_v0.pb")),
        strip(&read("sharding_param_sharding_v1.pb"))
    );
    assert_ne!(
        strip(&read("single_device_sharding_v1.pb")),
        strip(&read("single_device_sharding_v2.pb"))
    );
    // DType's format never changed: only the recorded number differs.
    assert_eq!(strip(&read("dtype_v0.pb")), strip(&read("dtype_v2.pb")));
}

/// The envelope's data with its version fields zeroed, to compare formats.
fn strip(bytes: &[u8]) -> Vec<u8> {
    use ifrt_serdes::schema::*;
    let envelope = Serialized::decode(bytes).unwrap();
    match envelope.type_name.as_str() {
        "xla::ifrt::DType" => {
            let mut p = DTypeProto::decode(envelope.data.as_slice()).unwrap();
            p.version_number = 0;
            p.encode_to_vec()
        }
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
        "dtype" => DTypeProto::decode(data).unwrap().version_number,
        "shape" => ShapeProto::decode(data).unwrap().version_number,
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
        "array_spec" => ArraySpecProto::decode(data).unwrap().version_number,
        other => panic!("{other}"),
    }
}
