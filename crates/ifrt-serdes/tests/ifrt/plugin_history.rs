//! A second history, unrelated to IFRT's: the plugin protocol of
//! `examples/plugin_protocol/protocol.rs` (five dated versions, two of them on the same day;
//! `Limits` nested in `Manifest`; `Placement`, with the memory-kind ids of version 4).
//! The same machinery as IFRT's preset: accessors, registry, nesting, negotiation, the format
//! rule across every producer x consumer x requested version, and the removal window. Passes
//! with and without `testing-bad-default-version`.

#[path = "../../examples/plugin_protocol/protocol.rs"]
mod protocol;

use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{
    Codec, Date, DeserializeOptions, Error, Incompatible, Registry, RegistryError,
    SerializeOptions, VersionRange, WindowError, negotiate,
};
use protocol::{
    Limits, Manifest, PLUGIN_HISTORY, Placement, build, sample_limits, sample_manifest,
    sample_placement,
};

fn v(number: i32) -> SerDesVersionNumber {
    SerDesVersionNumber::new(number)
}

fn day(text: &str) -> Date {
    text.parse().unwrap()
}

/// Every valid `[minimum, current]` of the plugin history.
fn all_builds() -> Vec<(i32, i32)> {
    let mut builds = Vec::new();
    for min in 0..5 {
        for max in min..5 {
            builds.push((min, max));
        }
    }
    builds
}

/// The formats of each part, in reading order, stated independently of the protocol code.
fn parts(manifest: bool) -> Vec<(&'static str, &'static [i32])> {
    let limits: (&str, &[i32]) = ("Limits", &[0, 1, 3]);
    if manifest {
        vec![("Manifest", &[0, 2]), limits]
    } else {
        vec![limits]
    }
}

fn written(formats: &[i32], requested: i32) -> i32 {
    *formats.iter().filter(|f| **f <= requested).max().unwrap()
}

fn expected(
    manifest: bool,
    requested: i32,
    (min, max): (i32, i32),
) -> Result<(), (&'static str, i32)> {
    for (what, formats) in parts(manifest) {
        let format = written(formats, requested);
        let successor = formats.iter().find(|f| **f > format);
        if !(format <= max && successor.is_none_or(|next| *next > min)) {
            return Err((what, format));
        }
    }
    Ok(())
}

fn write(registry: &Registry, manifest: bool, requested: i32) -> Result<Vec<u8>, Error> {
    let options = SerializeOptions::new(registry.supported().version(v(requested))?);
    if manifest {
        registry.serialize_to_bytes(&sample_manifest(requested), &options)
    } else {
        registry.serialize_to_bytes(&sample_limits(requested), &options)
    }
}

fn read(registry: &Registry, manifest: bool, requested: i32, bytes: &[u8]) -> Result<bool, Error> {
    let o = DeserializeOptions::default();
    Ok(if manifest {
        registry.deserialize_from_bytes::<Manifest>(bytes, &o)? == sample_manifest(requested)
    } else {
        registry.deserialize_from_bytes::<Limits>(bytes, &o)? == sample_limits(requested)
    })
}

#[test]
fn every_producer_by_every_consumer_by_every_version() {
    let mut cells = 0;
    let mut readable = 0;
    for (pmin, pmax) in all_builds() {
        let producer = build(pmin, pmax).unwrap();
        for (cmin, cmax) in all_builds() {
            let consumer = build(cmin, cmax).unwrap();
            for requested in pmin..=pmax {
                for manifest in [false, true] {
                    let bytes = write(&producer, manifest, requested).unwrap();
                    let result = read(&consumer, manifest, requested, &bytes);
                    let context = format!(
                        "manifest={manifest} requested {requested} by [{pmin}, {pmax}], read by \
                         [{cmin}, {cmax}]"
                    );
                    cells += 1;
                    match expected(manifest, requested, (cmin, cmax)) {
                        Ok(()) => {
                            assert_eq!(result, Ok(true), "{context}");
                            readable += 1;
                        }
                        Err((what, format)) => match result {
                            Err(Error::Incompatible(
                                Incompatible::UnsupportedDeserializationVersion {
                                    history: "plugin protocol",
                                    version,
                                    what: got,
                                    minimum,
                                    current,
                                    ..
                                },
                            )) => assert_eq!(
                                (got, version.value(), minimum.value(), current.value()),
                                (what, format, cmin, cmax),
                                "{context}"
                            ),
                            other => panic!("{context}: {other:?}"),
                        },
                    }
                }
            }
        }
    }
    // 15 builds; the producers write 35 (build, version) pairs; 2 types.
    assert_eq!(cells, 35 * 15 * 2);
    assert!(readable > 0 && readable < cells);
}

#[test]
fn nested_limits_get_the_requested_version_not_the_manifests_format() {
    let host = build(0, 4).unwrap();
    let o = DeserializeOptions::default();
    for (requested, manifest, limits) in [(0, 0, 0), (1, 0, 1), (2, 2, 1), (3, 2, 3), (4, 2, 3)] {
        let bytes = write(&host, true, requested).unwrap();
        let (result, formats) = host.inspect_bytes(&bytes, &o);
        assert!(result.is_ok());
        let seen: Vec<(&str, i32)> = formats
            .iter()
            .map(|r| (r.what(), r.recorded.value()))
            .collect();
        assert_eq!(
            seen,
            [("Manifest", manifest), ("Limits", limits)],
            "{requested}"
        );
    }
    // A value the requested version cannot hold fails on the writer.
    let options = SerializeOptions::new(host.supported().version(v(1)).unwrap());
    assert_eq!(
        host.serialize_to_bytes(&sample_manifest(2), &options)
            .unwrap_err()
            .to_string(),
        "ManifestProto with plugin protocol version 1 does not support `homepage`; request \
         version 2 or newer, or drop `homepage` from the value"
    );
}

/// Each value records the oldest format whose reader reads its bytes, not the requested
/// version: values that use nothing new stay readable by older builds.
#[test]
fn values_that_use_nothing_new_record_old_formats() {
    let host = build(0, 4).unwrap();
    let o = DeserializeOptions::default();
    let at = |requested| SerializeOptions::new(host.supported().version(v(requested)).unwrap());
    let formats = |bytes: &[u8]| -> Vec<(&str, i32)> {
        let (result, formats) = host.inspect_bytes(bytes, &o);
        assert!(result.is_ok());
        formats
            .iter()
            .map(|r| (r.what(), r.recorded.value()))
            .collect()
    };
    // Limits without a thread limit, requested at 2: bytes, and no thread limit: format 0.
    let plain = Limits {
        max_memory_kib: 64,
        max_threads: None,
    };
    let bytes = host.serialize_to_bytes(&plain, &at(2)).unwrap();
    assert_eq!(formats(&bytes), [("Limits", 0)]);
    assert_eq!(bytes, host.serialize_to_bytes(&plain, &at(0)).unwrap());
    assert_eq!(
        build(0, 0)
            .unwrap()
            .deserialize_from_bytes::<Limits>(&bytes, &o),
        Ok(plain)
    );
    // A placement in a custom memory kind is written by name whatever the version (format 0);
    // a well-known kind becomes an id from version 4 on (format 4), which older builds refuse.
    let custom = Placement {
        device_id: 1,
        memory_kind: ifrt_serdes::MemoryKind::from_name("hbm"),
    };
    for requested in 0..=4 {
        let bytes = host.serialize_to_bytes(&custom, &at(requested)).unwrap();
        assert_eq!(formats(&bytes), [("Placement", 0)], "{requested}");
        assert_eq!(
            build(0, 0)
                .unwrap()
                .deserialize_from_bytes::<Placement>(&bytes, &o),
            Ok(custom.clone())
        );
        let known = host
            .serialize_to_bytes(&sample_placement(), &at(requested))
            .unwrap();
        let format = if requested >= 4 { 4 } else { 0 };
        assert_eq!(formats(&known), [("Placement", format)], "{requested}");
        let by_3 = build(0, 3)
            .unwrap()
            .deserialize_from_bytes::<Placement>(&known, &o);
        assert_eq!(by_3.is_ok(), format == 0, "{requested}");
        assert_eq!(
            host.deserialize_from_bytes::<Placement>(&known, &o),
            Ok(sample_placement())
        );
    }
}

/// The memory-kind ids are the plugin protocol's own extension: IFRT's shardings have no such
/// field, and a plugin version given to an IFRT registry (or the reverse) is refused.
#[test]
fn versions_of_two_histories_do_not_mix_and_defaults_follow_the_registry() {
    let plugin = build(0, 4).unwrap();
    let ifrt = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
    let plugin_v2 = SerializeOptions::new(plugin.supported().version(v(2)).unwrap());
    let ifrt_v2 = SerializeOptions::new(SupportedVersions::BUILT_IN.version(v(2)).unwrap());
    assert_ne!(plugin_v2.version(), ifrt_v2.version());
    let error = ifrt
        .to_proto_bytes(&ifrt_serdes::DType::F32, &plugin_v2)
        .unwrap_err();
    assert_eq!(
        error,
        Error::Incompatible(Incompatible::WrongHistory {
            expected: "IFRT SerDes",
            found: "plugin protocol",
        })
    );
    assert_eq!(
        error.to_string(),
        "a plugin protocol version was given to a registry of IFRT SerDes versions; take the \
         version from the registry's own range (`Registry::supported`, \
         `Registry::default_options`)"
    );
    assert!(matches!(
        plugin.serialize_to_bytes(&sample_limits(2), &ifrt_v2),
        Err(Error::Incompatible(Incompatible::WrongHistory {
            expected: "plugin protocol",
            found: "IFRT SerDes"
        }))
    ));
    // The default is the registry's own current version: 4, not IFRT's 2.
    let default = plugin.default_options();
    if cfg!(feature = "testing-bad-default-version") {
        assert_eq!(default, Err(Error::DefaultVersionDisallowed));
    } else {
        let options = default.unwrap();
        assert_eq!(options.version().number(), v(4));
        assert_eq!(options.version().to_string(), "plugin protocol version 4");
        assert!(
            plugin
                .serialize_to_bytes(&sample_placement(), &options)
                .is_ok()
        );
    }
    // Agreeing with a peer gives a version of the build's own history, and its refusal names it.
    let agreed = plugin
        .supported()
        .agree_with(VersionRange::from(build(1, 2).unwrap().supported()))
        .unwrap();
    assert_eq!(agreed.to_string(), "plugin protocol version 2");
    assert_eq!(
        plugin
            .supported()
            .agree_with(VersionRange {
                min: v(7),
                max: v(9)
            })
            .unwrap_err()
            .to_string(),
        "this build and its peer share no plugin protocol version: this build reads [0, 4], \
         the peer [7, 9]"
    );
}

#[test]
fn the_accessors_follow_the_plugin_dates() {
    let build = PLUGIN_HISTORY.supported();
    assert_eq!(build.current().number(), v(4));
    assert_eq!(build.minimum().number(), v(0));
    if cfg!(feature = "testing-bad-default-version") {
        assert_eq!(
            build.default_version(),
            Err(Error::DefaultVersionDisallowed)
        );
    } else {
        assert_eq!(build.default_version().unwrap().number(), v(4));
    }
    let week_4_old = |text| build.week_4_old(day(text)).map(|v| v.number().value());
    assert!(matches!(
        build.week_4_old(day("2025-02-06")),
        Err(Error::Window(WindowError::NoWeek4OldVersion { .. }))
    ));
    assert_eq!(week_4_old("2025-02-07"), Ok(0));
    assert_eq!(week_4_old("2025-03-29"), Ok(0));
    assert_eq!(week_4_old("2025-03-30"), Ok(1));
    assert_eq!(week_4_old("2025-07-18"), Ok(2));
    assert_eq!(week_4_old("2025-10-12"), Ok(2));
    // Versions 3 and 4 came the same day: both are four weeks old together.
    assert_eq!(week_4_old("2025-10-13"), Ok(4));
    // Any version, range-checked against the plugin build.
    assert!(build.version(v(5)).is_err());
    assert_eq!(build.version(v(2)).unwrap().number(), v(2));
    // The plugin's ranges are its own: both histories have a version 4, but not the same one,
    // and only IFRT's has a 5.
    assert!(PLUGIN_HISTORY.range(v(0), v(4)).is_ok());
    assert!(PLUGIN_HISTORY.range(v(0), v(5)).is_err());
    assert!(SupportedVersions::new(v(0), v(5)).is_ok());
    assert!(SupportedVersions::new(v(0), v(7)).is_err());
    assert_ne!(
        build.whole_history(),
        SupportedVersions::BUILT_IN.whole_history()
    );
}

#[test]
fn plugin_builds_negotiate() {
    let host = build(0, 4).unwrap();
    let plugin = build(1, 2).unwrap();
    let agreed = negotiate(
        VersionRange::from(host.supported()),
        VersionRange::from(plugin.supported()),
    )
    .unwrap();
    assert_eq!(agreed, v(2));
    let bytes = write(&host, true, agreed.value()).unwrap();
    assert_eq!(read(&plugin, true, 2, &bytes), Ok(true));
    assert!(
        negotiate(
            VersionRange::from(build(0, 0).unwrap().supported()),
            VersionRange::from(build(3, 4).unwrap().supported()),
        )
        .is_err()
    );
}

#[test]
fn the_removal_window_applies_to_the_plugin_history() {
    let host = PLUGIN_HISTORY.supported();
    // Limits' format 1 is superseded by format 3, introduced 2025-09-15.
    for (today, allowed) in [
        ("2025-09-14", false),
        ("2025-10-12", false),
        ("2025-10-13", true),
    ] {
        let removal = Limits::FORMATS.check_removal(v(1), host, day(today));
        let raise = host.raise_minimum(v(3), day(today));
        assert_eq!(removal.is_ok(), allowed, "{today}");
        assert_eq!(raise.is_ok(), allowed, "{today}");
        if !allowed {
            assert!(matches!(
                removal,
                Err(Error::Window(WindowError::SuccessorTooYoung { .. }))
            ));
        }
    }
    // After the raise, format 1 bytes are refused, the unchanged Manifest format 2 still reads.
    let raised = protocol::registry(host.raise_minimum(v(3), day("2025-10-13")).unwrap());
    let at_2 = write(&build(0, 3).unwrap(), true, 2).unwrap();
    let error = read(&raised, true, 2, &at_2).unwrap_err();
    assert!(
        error.to_string().starts_with(
            "Unsupported plugin protocol version 1 for Limits deserialization: this build reads \
             plugin protocol versions [3, 4], and Limits format 1 was superseded by format 3"
        ),
        "{error}"
    );
    let at_3 = write(&build(0, 3).unwrap(), true, 3).unwrap();
    assert_eq!(read(&raised, true, 3, &at_3), Ok(true));
    // The newest formats are never removable.
    assert!(
        Manifest::FORMATS
            .check_removal(v(2), host, day("2030-01-01"))
            .is_err()
    );
}

#[test]
fn the_ifrt_registry_and_the_plugin_registry_do_not_mix() {
    let bytes = write(&build(0, 3).unwrap(), true, 3).unwrap();
    let ifrt = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
    assert_eq!(
        ifrt.deserialize_dyn_from_bytes(&bytes, &DeserializeOptions::default())
            .unwrap_err(),
        Error::Registry(RegistryError::NoSerDesForTypeName {
            type_name: "plugin::Manifest".to_string()
        })
    );
}

#[test]
fn hostile_plugin_bytes_give_typed_errors() {
    let host = build(0, 3).unwrap();
    let bytes = write(&host, true, 3).unwrap();
    for len in 0..bytes.len() {
        let _ = read(&host, true, 3, &bytes[..len]);
    }
    for at in 0..bytes.len() {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0xff;
        let _ = host.deserialize_dyn_from_bytes(&flipped, &DeserializeOptions::default());
    }
}
