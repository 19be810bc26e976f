//! What real IFRT clients sent: every distinct `Serialized` envelope that jaxlib 0.4.36 ...
//! 0.10.2's IFRT Proxy clients sent to a fake proxy server, copied into `tests/data/real/`
//! (`MANIFEST.tsv` says which release sent each, and `interop/captures/extract.py` how they
//! were copied). Each is read with the format it records, and what the crate decodes is
//! written back to the same bytes at every version the build writes the type at.

use std::fs;
use std::path::Path;

use crate::common::built_in;
use ifrt_serdes::schema::xla::op_sharding::Type;
use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{
    ConcreteShapes, ConcreteSharding, DeserializeOptions, Error, HloSharding, Incompatible,
    MemoryKind, Registry, SerializeOptions, SingleDeviceSharding, XlaCompileOptions, XlaProgram,
};

pub const REAL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/real");

/// One line of `MANIFEST.tsv`.
pub struct Captured {
    pub file: String,
    pub type_name: String,
    pub format: i32,
    pub jaxlib: String,
    pub producer: Option<String>,
    pub bytes: Vec<u8>,
}

pub fn captured() -> Vec<Captured> {
    let manifest = fs::read_to_string(Path::new(REAL_DIR).join("MANIFEST.tsv")).unwrap();
    manifest
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 7, "{line}");
            Captured {
                file: cols[0].to_string(),
                type_name: cols[1].to_string(),
                format: cols[2].parse().unwrap(),
                jaxlib: cols[3].to_string(),
                producer: (cols[6] != "-").then(|| cols[6].to_string()),
                bytes: fs::read(Path::new(REAL_DIR).join(cols[0])).unwrap(),
            }
        })
        .collect()
}

#[test]
fn the_manifest_lists_every_file_once() {
    let listed: Vec<String> = captured().into_iter().map(|c| c.file).collect();
    let mut on_disk: Vec<String> = fs::read_dir(REAL_DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".pb"))
        .collect();
    on_disk.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), listed.len());
    assert_eq!(sorted, on_disk);
    // Every kind real clients sent is there.
    for kind in [
        "xla::ifrt::HloSharding",
        "xla::ifrt::SingleDeviceSharding",
        "xla::ifrt::ConcreteSharding",
        "xla::ifrt::XlaProgram",
        "xla::ifrt::XlaCompileOptions",
    ] {
        assert!(
            captured().iter().any(|c| c.type_name == kind),
            "{kind} missing"
        );
    }
}

#[test]
fn every_captured_envelope_reads_with_the_format_it_records_and_writes_back_the_same_bytes() {
    let registry = built_in();
    let o = DeserializeOptions::default();
    for c in captured() {
        let (value, values) = registry.inspect_bytes(&c.bytes, &o);
        let value = value.unwrap_or_else(|e| panic!("{}: {e}", c.file));
        assert_eq!(values[0].recorded.value(), c.format, "{}", c.file);
        assert_eq!(
            registry
                .envelope_from_bytes(&c.bytes, &o)
                .unwrap()
                .type_name,
            c.type_name
        );
        // Written at every version the build writes the type at: the same bytes, since every
        // value records format 0 and carries nothing a version changes.
        let lowest = registry.lowest_writable(&c.type_name).unwrap();
        for number in lowest.value()..=SupportedVersions::BUILT_IN.current().number().value() {
            let version = registry
                .supported()
                .version(SerDesVersionNumber::new(number))
                .unwrap();
            let again = registry
                .serialize_to_bytes(value.as_ref(), &SerializeOptions::new(version))
                .unwrap();
            assert_eq!(again, c.bytes, "{} written at {version}", c.file);
        }
        if let Some(producer) = &c.producer {
            let program: XlaProgram = registry.deserialize_from_bytes(&c.bytes, &o).unwrap();
            assert_eq!(program.producer(), producer, "{}", c.file);
            assert_eq!(program.bytecode_version(), 6, "{}", c.file);
            assert!(
                program
                    .stablehlo_version()
                    .is_some_and(|(major, ..)| major == 1)
            );
        }
    }
}

#[test]
fn real_shardings_decode_to_what_jax_asked_for() {
    let registry = built_in();
    let o = DeserializeOptions::default();
    let read = |file: &str| fs::read(Path::new(REAL_DIR).join(file)).unwrap();
    // device_put to one device: replicated (an empty OpSharding) over device 0.
    let one: HloSharding = registry
        .deserialize_from_bytes(&read("hlo_sharding_0.10.2_0.pb"), &o)
        .unwrap();
    assert_eq!(one.devices(), [0]);
    assert_eq!(one.memory_kind(), &MemoryKind::device());
    assert_eq!(one.op_sharding().r#type, Type::Replicated as i32);
    // NamedSharding P('a', 'b') on a 2x2 mesh: tiled 2x2 by an iota over 4 devices.
    let tiled: HloSharding = registry
        .deserialize_from_bytes(&read("hlo_sharding_0.10.2_2.pb"), &o)
        .unwrap();
    assert_eq!(tiled.devices(), [0, 1, 2, 3]);
    let op = tiled.op_sharding();
    assert_eq!(op.r#type, Type::Other as i32);
    assert_eq!(op.tile_assignment_dimensions, [2, 2]);
    assert_eq!(op.iota_reshape_dims, [4]);
    // P('a'): tiled 2x1, replicated over the last tile dimension.
    let partial: HloSharding = registry
        .deserialize_from_bytes(&read("hlo_sharding_0.10.2_3.pb"), &o)
        .unwrap();
    assert_eq!(partial.op_sharding().tile_assignment_dimensions, [2, 1, 2]);
    assert!(partial.op_sharding().replicate_on_last_tile_dim);
    // 0.4.36's assembled arrays: a ConcreteSharding of one shape per device.
    let concrete: ConcreteSharding = registry
        .deserialize_from_bytes(&read("concrete_sharding_0.4.36_2.pb"), &o)
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
        .deserialize_from_bytes(&read("single_device_sharding_0.4.36_1.pb"), &o)
        .unwrap();
    assert_eq!(single.device_id(), 1);
    // The compile options stay as their raw bytes.
    let bytes = read("xla_compile_options_0.10.2_0.pb");
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
    let all = captured();
    let program = all
        .iter()
        .find(|c| c.file == "xla_program_0.10.2_0.pb")
        .unwrap();
    let value = registry
        .deserialize_dyn_from_bytes(&program.bytes, &o)
        .unwrap();
    assert_eq!(
        registry.lowest_writable("xla::ifrt::XlaProgram"),
        Some(SerDesVersionNumber::new(3))
    );
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
        for other in all
            .iter()
            .filter(|c| c.type_name != "xla::ifrt::XlaProgram")
        {
            let value = registry
                .deserialize_dyn_from_bytes(&other.bytes, &o)
                .unwrap();
            let again = registry
                .serialize_to_bytes(value.as_ref(), &SerializeOptions::new(version))
                .unwrap();
            assert_eq!(again, other.bytes, "{} at {number}", other.file);
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
    // A build that stops at 1 (as jaxlib 0.9.2's range does) writes no program at all under
    // this preset's week-4-old version; 0.9.2 itself, whose own week-4-old was 0, did.
    let old = Registry::with_builtin_types(
        SupportedVersions::new(SerDesVersionNumber::new(0), SerDesVersionNumber::new(1)).unwrap(),
    );
    assert_eq!(old.lowest_writable("xla::ifrt::XlaProgram"), None);
    assert!(program.jaxlib == "0.10.2");
}
