//! The compatibility matrix: every producer build x every consumer build x every version the
//! producer can write. A consumer reads exactly the versions in its own range, and names the
//! version and type when it cannot.

mod common;

use common::{GOLDEN_TYPES, build, serialize_sample, versions};
use ifrt_serdes::version::{HISTORY, SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{Error, Incompatible};

/// Every valid `[minimum, current]` range of the history: builds past, present and future.
fn all_builds() -> Vec<(i32, i32)> {
    let numbers: Vec<i32> = HISTORY.iter().map(|e| e.number.value()).collect();
    let mut builds = Vec::new();
    for &min in &numbers {
        for &max in &numbers {
            if min <= max {
                builds.push((min, max));
            }
        }
    }
    builds
}

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
                    cells += 1;
                    if (cmin..=cmax).contains(&version) {
                        assert_eq!(result, Ok(true), "{short} v{version} [{cmin},{cmax}]");
                        readable += 1;
                    } else {
                        match result {
                            Err(Error::Incompatible(
                                Incompatible::UnsupportedDeserializationVersion {
                                    version: got,
                                    ..
                                },
                            )) => {
                                assert_eq!(got.value(), version)
                            }
                            other => panic!("{short} v{version} by [{cmin},{cmax}]: {other:?}"),
                        }
                    }
                }
            }
        }
    }
    // 6 builds of 3 versions; each producer writes its own versions.
    assert_eq!(all_builds().len(), 6);
    assert!(readable > 0 && readable < cells);
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
