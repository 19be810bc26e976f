//! The compatibility matrix: every producer build x every consumer build x every version the
//! producer can write, for every type.
//!
//! The expectation is recomputed from the format rule alone (`common::expected_read`): the
//! producer writes each part in the newest format of that part not newer than the requested
//! version and records it; the consumer reads a part when the recorded format is one of the
//! part's formats, not newer than its `current`, and not superseded at or before its `minimum`.
//! A refusal names the first refused part, its recorded format and the consumer's range.

use crate::common::{
    self, GOLDEN_TYPES, all_builds, assert_refused, build, expected_read, serialize_sample,
    versions,
};
use ifrt_serdes::version::{HISTORY, SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{
    ArraySpec, DType, DeserializeOptions, Error, Incompatible, MemoryKind, SingleDeviceSharding,
};

#[test]
fn every_producer_by_every_consumer_by_every_version() {
    let mut cells = 0;
    let mut readable = 0;
    for (pmin, pmax) in all_builds() {
        let producer = build(pmin, pmax);
        for (cmin, cmax) in all_builds() {
            let consumer = build(cmin, cmax);
            for version in pmin..=pmax {
                let v = producer
                    .supported()
                    .version(SerDesVersionNumber::new(version))
                    .unwrap();
                for (short, _) in GOLDEN_TYPES {
                    let bytes = serialize_sample(&producer, short, v).unwrap();
                    let result = common::decodes_to_sample(&consumer, short, v.number(), &bytes);
                    let context = format!("{short} requested at {version} by [{pmin}, {pmax}]");
                    cells += 1;
                    match expected_read(short, version, (cmin, cmax)) {
                        Ok(()) => {
                            assert_eq!(result, Ok(true), "{context}, read by [{cmin}, {cmax}]");
                            readable += 1;
                        }
                        Err((what, format)) => {
                            assert_refused(result, what, format, (cmin, cmax), &context)
                        }
                    }
                }
            }
        }
    }
    // 28 builds of 7 versions; each producer writes its own versions (84 in all).
    assert_eq!(all_builds().len(), 28);
    assert_eq!(cells, 28 * 84 * GOLDEN_TYPES.len());
    assert!(readable > 0 && readable < cells);
}

/// The defect this rule fixes: a build one version older reads every type whose format did not
/// change, whatever version the newer build was asked to write.
#[test]
fn an_older_build_reads_every_unchanged_type_at_any_requested_version() {
    let new = build(0, 3);
    let old = build(0, 1);
    // The versions of the newer build (version 4 changed the compile options' format).
    for version in versions().into_iter().filter(|v| v.number().value() <= 3) {
        for (short, _) in GOLDEN_TYPES {
            let bytes = serialize_sample(&new, short, version).unwrap();
            let result = common::decodes_to_sample(&old, short, version.number(), &bytes);
            // IFRT's versions 2 and 3 changed no format of these types: a build of version 1
            // reads everything a build of version 3 writes, whatever version it requested.
            assert_eq!(result, Ok(true), "{short} requested at {version}");
        }
    }
    // DType and Shape, written at the newest version, are the same bytes as at version 0.
    let v0 = SupportedVersions::BUILT_IN
        .version(SerDesVersionNumber::new(0))
        .unwrap();
    let v3 = SupportedVersions::BUILT_IN
        .version(SerDesVersionNumber::new(3))
        .unwrap();
    for short in ["dtype_proto", "shape_proto", "device_list_proto"] {
        assert_eq!(
            serialize_sample(&new, short, v0).unwrap(),
            serialize_sample(&new, short, v3).unwrap()
        );
    }
}

/// An ArraySpec is read part by part: the outer message by its format (0), its dtype and shape
/// by theirs, its sharding by the format recorded in the sharding's own bytes.
#[test]
fn an_array_spec_is_read_part_by_part() {
    let spec = ArraySpec {
        dtype: DType::F16,
        shape: ifrt_serdes::Shape::new(vec![2]).unwrap(),
        sharding: std::sync::Arc::new(
            SingleDeviceSharding::new(5, MemoryKind::pinned_host()).unwrap(),
        ),
        layout: None,
    };
    let new = build(0, 6);
    let o = DeserializeOptions::default();
    for version in versions() {
        let bytes = new
            .to_proto_bytes(&spec, &common::options(version))
            .unwrap();
        let (result, formats) = build(0, 1).inspect_proto_bytes::<ArraySpec>(&bytes, &o);
        let seen: Vec<(&str, i32)> = formats
            .iter()
            .map(|r| (r.what(), r.recorded.value()))
            .collect();
        // Every part records format 0 at every version, as IFRT writes them: an older build
        // reads the spec whatever version the writer requested.
        let sharding_format = 0;
        assert_eq!(
            seen,
            [
                ("ArraySpec", 0),
                ("DType", 0),
                ("Shape", 0),
                ("SingleDeviceSharding", sharding_format)
            ],
            "{version}"
        );
        match sharding_format {
            0 => assert!(result.is_ok()),
            _ => assert!(matches!(
                result,
                Err(Error::Incompatible(
                    Incompatible::UnsupportedDeserializationVersion {
                        what: "SingleDeviceSharding",
                        ..
                    }
                ))
            )),
        }
    }
}

#[test]
fn a_build_cannot_write_outside_its_range() {
    let old = build(0, 1);
    let v2 = SupportedVersions::BUILT_IN
        .version(SerDesVersionNumber::new(2))
        .unwrap();
    for (short, _) in GOLDEN_TYPES {
        let error = serialize_sample(&old, short, v2).unwrap_err();
        assert!(
            matches!(
                error,
                Error::Incompatible(Incompatible::UnsupportedSerializationVersion { .. })
            ),
            "{short}: {error:?}"
        );
        assert!(
            error
                .to_string()
                .starts_with("Unsupported IFRT SerDes version 2 for ")
        );
    }
    assert_eq!(versions().len(), HISTORY.len());
}
