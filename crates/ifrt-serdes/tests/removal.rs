//! Removing a format: once the minimum rises past a version, bytes of that version fail with the
//! unsupported-version error while newer bytes still read, and nothing new is written in it.

mod common;

use std::fs;
use std::path::Path;

use common::{GOLDEN_DIR, all_goldens, build, expected_read, golden_name};
use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{CivilDate, Error, Incompatible};

#[test]
fn raising_the_minimum_rejects_only_the_superseded_formats_golden_bytes() {
    for minimum in 1..=2 {
        let raised = build(minimum, 2);
        for (short, format) in all_goldens() {
            let name = golden_name(short, format);
            let bytes = fs::read(Path::new(GOLDEN_DIR).join(&name)).unwrap();
            let result =
                common::decodes_to_sample(&raised, short, SerDesVersionNumber::new(format), &bytes);
            match expected_read(short, format, (minimum, 2)) {
                Ok(()) => assert_eq!(result, Ok(true), "{name} with minimum {minimum}"),
                Err((what, recorded)) => {
                    // A format is removed once its successor is at or below the minimum.
                    let error = result.unwrap_err();
                    assert!(
                        error.to_string().starts_with(&format!(
                            "Unsupported IFRT SerDes version {recorded} for {what} \
                             deserialization; this build supports versions [{minimum}, 2]"
                        )),
                        "{name} with minimum {minimum}: {error}"
                    );
                }
            }
        }
    }
    // Format 0 of DType is its only one: no minimum removes it.
    let dtype = fs::read(Path::new(GOLDEN_DIR).join("dtype_v0.pb")).unwrap();
    assert_eq!(
        common::decodes_to_sample(&build(2, 2), "dtype", SerDesVersionNumber::new(0), &dtype),
        Ok(true)
    );
    // The param's format 0 is superseded at 1, the shardings' format 0 at 2.
    let param = fs::read(Path::new(GOLDEN_DIR).join("sharding_param_sharding_v0.pb")).unwrap();
    let o = ifrt_serdes::DeserializeOptions::default();
    let (_, seen) = build(1, 2).inspect_bytes(&param, &o);
    assert_eq!(
        seen.last().map(|r| (r.what(), r.format.value())),
        Some(("ShardingParam", 0))
    );
    let (_, seen) = build(2, 2).inspect_bytes(&param, &o);
    assert_eq!(
        seen.last().map(|r| (r.what(), r.format.value())),
        Some(("ShardingParamSharding", 0))
    );
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
