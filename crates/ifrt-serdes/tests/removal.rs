//! Removing a format: once the minimum rises past a version, bytes of that version fail with the
//! unsupported-version error while newer bytes still read, and nothing new is written in it.

mod common;

use std::fs;
use std::path::Path;

use common::{GOLDEN_DIR, GOLDEN_TYPES, build, golden_name};
use ifrt_serdes::schema::Serialized;
use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{CivilDate, Error, Incompatible};
use prost::Message;

#[test]
fn raising_the_minimum_rejects_the_removed_versions_golden_bytes() {
    for minimum in 1..=2 {
        let raised = build(minimum, 2);
        for (short, _) in GOLDEN_TYPES {
            for version in 0..=2 {
                let name = golden_name(short, SerDesVersionNumber::new(version));
                let bytes = fs::read(Path::new(GOLDEN_DIR).join(&name)).unwrap();
                let result = common::decodes_to_sample(
                    &raised,
                    short,
                    SerDesVersionNumber::new(version),
                    &bytes,
                );
                if version < minimum {
                    let error = result.unwrap_err();
                    let type_name = Serialized::decode(bytes.as_slice()).unwrap().type_name;
                    let what = type_name.trim_start_matches("xla::ifrt::");
                    assert_eq!(
                        error.to_string(),
                        format!(
                            "Unsupported IFRT SerDes version {version} for {what} deserialization"
                        ),
                        "{name} with minimum {minimum}"
                    );
                } else {
                    assert_eq!(result, Ok(true), "{name} with minimum {minimum}");
                }
            }
        }
    }
}

#[test]
fn a_raised_minimum_never_writes_the_removed_format() {
    let raised =
        SupportedVersions::new(SerDesVersionNumber::new(1), SerDesVersionNumber::new(2)).unwrap();
    // Not through the any-version accessor...
    assert!(matches!(
        raised.version(SerDesVersionNumber::new(0)),
        Err(Error::Incompatible(Incompatible::VersionOutOfRange { .. }))
    ));
    // ...nor as week-4-old, even on a day when version 1 is not yet four weeks old...
    let day_after_v1 = CivilDate::new(2026, 2, 20).unwrap();
    assert_eq!(raised.week_4_old(day_after_v1).number().value(), 1);
    // ...nor by a registry handed a version of an older range.
    let v0 = SupportedVersions::BUILT_IN
        .version(SerDesVersionNumber::new(0))
        .unwrap();
    let registry = build(1, 2);
    let error = common::serialize_sample(&registry, "dtype", v0).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Unsupported IFRT SerDes version 0 for DType serialization"
    );
}
