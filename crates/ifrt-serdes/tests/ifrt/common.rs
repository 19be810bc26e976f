//! Shared by the integration tests: sample values, builds, strategies and the golden checksum.
#![allow(dead_code)]

use std::sync::Arc;

use ifrt_serdes::schema::xla::{LayoutProto, OpSharding, TileProto, op_sharding};
use ifrt_serdes::version::{SerDesVersion, SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{
    ArraySpec, Codec, CompactLayout, ConcreteEvenSharding, ConcreteShapes, ConcreteSharding, DType,
    DeviceList, Formats, HloSharding, MemoryKind, OpaqueSharding, PjRtLayout, ProtoCodec, Registry,
    SerializeOptions, Shape, ShardingParam, ShardingParamSharding, SingleDeviceSharding,
    XlaCompileOptions,
};

/// A registry of the built-in types for the range `[minimum, current]`.
pub fn build(minimum: i32, current: i32) -> Registry {
    let range = SupportedVersions::new(
        SerDesVersionNumber::new(minimum),
        SerDesVersionNumber::new(current),
    )
    .expect("a valid range");
    Registry::with_builtin_types(range)
}

/// This build.
pub fn built_in() -> Registry {
    Registry::with_builtin_types(SupportedVersions::BUILT_IN)
}

/// Every valid `[minimum, current]` range of the history: builds past, present and future.
pub fn all_builds() -> Vec<(i32, i32)> {
    let numbers: Vec<i32> = ifrt_serdes::version::HISTORY
        .iter()
        .map(|e| e.number().value())
        .collect();
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

/// Every version of this build, oldest first.
pub fn versions() -> Vec<SerDesVersion> {
    let range = SupportedVersions::BUILT_IN;
    range
        .history()
        .map(|entry| range.version(entry.number()).unwrap())
        .collect()
}

/// Options writing `version` (always explicit: the suite also runs with
/// `testing-bad-default-version`).
pub fn options(version: SerDesVersion) -> SerializeOptions {
    SerializeOptions::new(version)
}

/// How a type travels on the wire, as IFRT sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// In a `Serialized` envelope under this SerDes type name ([`Codec`]).
    Envelope(&'static str),
    /// As this plain protobuf message, in no envelope ([`ProtoCodec`]: IFRT's `ToProto`).
    Proto(&'static str),
}

/// The types with golden files: short name (the files' prefix) and how they travel. The plain
/// messages' names end in `_proto`.
pub const GOLDEN_TYPES: &[(&str, Wire)] = &[
    ("dtype_proto", Wire::Proto(DType::PROTO_NAME)),
    ("shape_proto", Wire::Proto(Shape::PROTO_NAME)),
    ("device_list_proto", Wire::Proto(DeviceList::PROTO_NAME)),
    (
        "single_device_sharding",
        Wire::Envelope(SingleDeviceSharding::TYPE_NAME),
    ),
    (
        "sharding_param_sharding",
        Wire::Envelope(ShardingParamSharding::TYPE_NAME),
    ),
    ("array_spec_proto", Wire::Proto(ArraySpec::PROTO_NAME)),
    ("hlo_sharding", Wire::Envelope(HloSharding::TYPE_NAME)),
    (
        "concrete_sharding",
        Wire::Envelope(ConcreteSharding::TYPE_NAME),
    ),
    (
        "concrete_even_sharding",
        Wire::Envelope(ConcreteEvenSharding::TYPE_NAME),
    ),
    ("opaque_sharding", Wire::Envelope(OpaqueSharding::TYPE_NAME)),
    ("compact_layout", Wire::Envelope(CompactLayout::TYPE_NAME)),
    ("pjrt_layout", Wire::Envelope(PjRtLayout::TYPE_NAME)),
    (
        "xla_compile_options",
        Wire::Envelope(XlaCompileOptions::TYPE_NAME),
    ),
];

/// How the golden type `short` travels.
pub fn wire(short: &str) -> Wire {
    GOLDEN_TYPES
        .iter()
        .find(|(s, _)| *s == short)
        .unwrap_or_else(|| panic!("no golden type {short}"))
        .1
}

/// The formats the library declares for the outer value of `short`.
pub fn declared_formats(short: &str) -> Formats {
    match short {
        "dtype_proto" => DType::FORMATS,
        "shape_proto" => Shape::FORMATS,
        "device_list_proto" => DeviceList::FORMATS,
        "single_device_sharding" => SingleDeviceSharding::FORMATS,
        "sharding_param_sharding" => ShardingParamSharding::FORMATS,
        "array_spec_proto" => ArraySpec::FORMATS,
        "hlo_sharding" => HloSharding::FORMATS,
        "concrete_sharding" => ConcreteSharding::FORMATS,
        "concrete_even_sharding" => ConcreteEvenSharding::FORMATS,
        "opaque_sharding" => OpaqueSharding::FORMATS,
        "compact_layout" => CompactLayout::FORMATS,
        "pjrt_layout" => PjRtLayout::FORMATS,
        "xla_compile_options" => XlaCompileOptions::FORMATS,
        other => panic!("no golden type {other}"),
    }
}

/// jax's `NamedSharding(mesh, P('a'))` on a 2x2 mesh, as jaxlib 0.10.2 sends it: tiled 2x1,
/// replicated over the last tile dimension, by an iota over 4 devices.
pub fn sample_hlo_sharding() -> HloSharding {
    let op = OpSharding {
        r#type: op_sharding::Type::Other as i32,
        tile_assignment_dimensions: vec![2, 1, 2],
        replicate_on_last_tile_dim: true,
        iota_reshape_dims: vec![4],
        iota_transpose_perm: vec![0],
        ..OpSharding::default()
    };
    HloSharding::new(vec![0, 1, 2, 3], MemoryKind::device(), op).unwrap()
}

/// XLA's own round-trip sample (xla/python/ifrt/sharding_serdes_test.cc): shards of 3 and 7
/// rows of a 10x20 array.
pub fn sample_concrete_sharding() -> ConcreteSharding {
    let shape = |dims: Vec<i64>| Shape::new(dims).unwrap();
    let shapes = ConcreteShapes::Static {
        shape: shape(vec![10, 20]),
        shard_shapes: vec![shape(vec![3, 20]), shape(vec![7, 20])],
    };
    ConcreteSharding::new(vec![0, 1], MemoryKind::from_name("abc"), shapes).unwrap()
}

pub fn sample_concrete_even_sharding() -> ConcreteEvenSharding {
    let shape = |dims: Vec<i64>| Shape::new(dims).unwrap();
    ConcreteEvenSharding::new(
        vec![0, 1],
        MemoryKind::pinned_host(),
        shape(vec![10, 20]),
        shape(vec![5, 20]),
        false,
    )
    .unwrap()
}

pub fn sample_opaque_sharding() -> OpaqueSharding {
    OpaqueSharding::new(vec![2, 3], MemoryKind::unspecified()).unwrap()
}

pub fn sample_compact_layout() -> CompactLayout {
    CompactLayout::new(vec![1, 0]).unwrap()
}

/// A TPU-style layout: row major, tiled 8x128.
pub fn sample_pjrt_layout() -> PjRtLayout {
    PjRtLayout::new(LayoutProto {
        minor_to_major: vec![1, 0],
        tiles: vec![TileProto {
            dimensions: vec![8, 128],
        }],
        ..LayoutProto::default()
    })
    .unwrap()
}

/// `XlaCompileOptionsProto { compile_options { executable_build_options { num_replicas: 1 } } }`.
pub fn sample_compile_options() -> XlaCompileOptions {
    XlaCompileOptions::new(vec![0x0a, 0x04, 0x1a, 0x02, 0x20, 0x01]).unwrap()
}

pub fn sample_dtype() -> DType {
    DType::BF16
}

pub fn sample_shape() -> Shape {
    Shape::new(vec![16, 128]).unwrap()
}

pub fn sample_device_list() -> DeviceList {
    DeviceList::new(vec![3, 0, 2, 1]).unwrap()
}

pub fn sample_single_device() -> SingleDeviceSharding {
    SingleDeviceSharding::new(3, MemoryKind::pinned_host()).unwrap()
}

/// The richest sharding-param sharding `version` can hold: unreduced axes from version 1 on.
pub fn sample_param_sharding(version: SerDesVersionNumber) -> ShardingParamSharding {
    let unreduced = if version >= ifrt_serdes::UNREDUCED_AXES_SINCE {
        vec![1]
    } else {
        vec![]
    };
    let param = ShardingParam::new(vec![2, 1], vec![1, 0], vec![2, 2], unreduced).unwrap();
    ShardingParamSharding::new(param, vec![0, 1, 2, 3], MemoryKind::device()).unwrap()
}

pub fn sample_array_spec(version: SerDesVersionNumber) -> ArraySpec {
    ArraySpec {
        dtype: DType::F32,
        shape: Shape::new(vec![16, 4]).unwrap(),
        sharding: Arc::new(sample_param_sharding(version)),
        layout: None,
    }
}

/// Serializes the sample of `short` for `version` through `registry`.
pub fn serialize_sample(
    registry: &Registry,
    short: &str,
    version: SerDesVersion,
) -> Result<Vec<u8>, ifrt_serdes::Error> {
    let number = version.number();
    let options = options(version);
    match short {
        "dtype_proto" => registry.to_proto_bytes(&sample_dtype(), &options),
        "shape_proto" => registry.to_proto_bytes(&sample_shape(), &options),
        "device_list_proto" => registry.to_proto_bytes(&sample_device_list(), &options),
        "single_device_sharding" => registry.serialize_to_bytes(&sample_single_device(), &options),
        "sharding_param_sharding" => {
            registry.serialize_to_bytes(&sample_param_sharding(number), &options)
        }
        "array_spec_proto" => registry.to_proto_bytes(&sample_array_spec(number), &options),
        "hlo_sharding" => registry.serialize_to_bytes(&sample_hlo_sharding(), &options),
        "concrete_sharding" => registry.serialize_to_bytes(&sample_concrete_sharding(), &options),
        "concrete_even_sharding" => {
            registry.serialize_to_bytes(&sample_concrete_even_sharding(), &options)
        }
        "opaque_sharding" => registry.serialize_to_bytes(&sample_opaque_sharding(), &options),
        "compact_layout" => registry.serialize_to_bytes(&sample_compact_layout(), &options),
        "pjrt_layout" => registry.serialize_to_bytes(&sample_pjrt_layout(), &options),
        "xla_compile_options" => registry.serialize_to_bytes(&sample_compile_options(), &options),
        other => panic!("no sample for {other}"),
    }
}

/// Deserializes `bytes` as `short`'s type and compares with its sample for `version`.
pub fn decodes_to_sample(
    registry: &Registry,
    short: &str,
    version: SerDesVersionNumber,
    bytes: &[u8],
) -> Result<bool, ifrt_serdes::Error> {
    let o = ifrt_serdes::DeserializeOptions::default();
    Ok(match short {
        "dtype_proto" => registry.from_proto_bytes::<DType>(bytes, &o)? == sample_dtype(),
        "shape_proto" => registry.from_proto_bytes::<Shape>(bytes, &o)? == sample_shape(),
        "device_list_proto" => {
            registry.from_proto_bytes::<DeviceList>(bytes, &o)? == sample_device_list()
        }
        "single_device_sharding" => {
            registry.deserialize_from_bytes::<SingleDeviceSharding>(bytes, &o)?
                == sample_single_device()
        }
        "sharding_param_sharding" => {
            registry.deserialize_from_bytes::<ShardingParamSharding>(bytes, &o)?
                == sample_param_sharding(version)
        }
        "array_spec_proto" => {
            registry.from_proto_bytes::<ArraySpec>(bytes, &o)? == sample_array_spec(version)
        }
        "hlo_sharding" => {
            registry.deserialize_from_bytes::<HloSharding>(bytes, &o)? == sample_hlo_sharding()
        }
        "concrete_sharding" => {
            registry.deserialize_from_bytes::<ConcreteSharding>(bytes, &o)?
                == sample_concrete_sharding()
        }
        "concrete_even_sharding" => {
            registry.deserialize_from_bytes::<ConcreteEvenSharding>(bytes, &o)?
                == sample_concrete_even_sharding()
        }
        "opaque_sharding" => {
            registry.deserialize_from_bytes::<OpaqueSharding>(bytes, &o)?
                == sample_opaque_sharding()
        }
        "compact_layout" => {
            registry.deserialize_from_bytes::<CompactLayout>(bytes, &o)? == sample_compact_layout()
        }
        "pjrt_layout" => {
            registry.deserialize_from_bytes::<PjRtLayout>(bytes, &o)? == sample_pjrt_layout()
        }
        "xla_compile_options" => {
            registry.deserialize_from_bytes::<XlaCompileOptions>(bytes, &o)?
                == sample_compile_options()
        }
        other => panic!("no sample for {other}"),
    })
}

/// The formats of every part of a sample value, in the order a reader checks them, stated here
/// independently of the library from IFRT's sources (a test checks that the library declares
/// the same): the version numbers at which each part's own format changed. `ShardingParam`
/// changed at 1 (unreduced axes, xla/python/ifrt/ir/sharding_param.cc) and `XlaCompileOptions`
/// at 4 (measured in real clients); IFRT's versions 2 and 3 changed no format of these types.
pub fn parts(short: &str) -> Vec<(&'static str, &'static [i32])> {
    const SHARDING: &[i32] = &[0];
    let param_sharding = [
        ("ShardingParamSharding", SHARDING),
        ("ShardingParam", &[0, 1][..]),
        ("DeviceList", &[0][..]),
    ];
    match short {
        "dtype_proto" => vec![("DType", &[0])],
        "shape_proto" => vec![("Shape", &[0])],
        "device_list_proto" => vec![("DeviceList", &[0])],
        "single_device_sharding" => vec![("SingleDeviceSharding", SHARDING)],
        "sharding_param_sharding" => param_sharding.to_vec(),
        "array_spec_proto" => {
            let mut parts = vec![("ArraySpec", &[0][..]), ("DType", &[0]), ("Shape", &[0])];
            parts.extend(param_sharding);
            parts
        }
        // The other shardings (xla/python/ifrt/sharding_serdes.cc,
        // xla/python/pjrt_ifrt/xla_sharding_serdes.cc): format 0, their device lists and
        // shapes too.
        "hlo_sharding" => vec![("HloSharding", SHARDING), ("DeviceList", &[0])],
        "concrete_sharding" => vec![
            ("ConcreteSharding", SHARDING),
            ("DeviceList", &[0]),
            ("Shape", &[0]),
            ("Shape", &[0]),
            ("Shape", &[0]),
        ],
        "concrete_even_sharding" => vec![
            ("ConcreteEvenSharding", SHARDING),
            ("DeviceList", &[0]),
            ("Shape", &[0]),
            ("Shape", &[0]),
        ],
        "opaque_sharding" => vec![("OpaqueSharding", SHARDING), ("DeviceList", &[0])],
        // The layouts (xla/python/ifrt/layout_serdes.cc, pjrt_ifrt/pjrt_layout_serdes.cc).
        "compact_layout" => vec![("CompactLayout", &[0])],
        "pjrt_layout" => vec![("PjRtLayout", &[0])],
        // No version field up to jaxlib 0.10.2 (format 0); from 0.11.0 on one, which real
        // clients set to 4 from a negotiated 4 on (xla/python/pjrt_ifrt/xla_compiler.proto).
        "xla_compile_options" => vec![("XlaCompileOptions", &[0, 4])],
        other => panic!("no sample for {other}"),
    }
}

/// The format a part of the *sample* records when requested at `requested`: the oldest format
/// that holds the part (IFRT's rule). The samples are the richest values each version can hold
/// (a param has unreduced axes from version 1 on), so for them that is the newest format not
/// newer than the request; `tests/ifrt/golden.rs` checks values that use less separately.
pub fn written(formats: &[i32], requested: i32) -> i32 {
    *formats
        .iter()
        .filter(|f| **f <= requested)
        .max()
        .expect("a format at or below the request")
}

/// Whether a build `[min, max]` reads format `format` of a part with `formats`: a format of
/// it, not newer than `max`, and its successor (if any) newer than `min`.
pub fn reads(formats: &[i32], format: i32, (min, max): (i32, i32)) -> bool {
    let successor = formats.iter().find(|f| **f > format);
    formats.contains(&format) && format <= max && successor.is_none_or(|next| *next > min)
}

/// What a build `[min, max]` makes of the sample of `short` written at `requested`: `Ok` if it
/// reads every part, else the first part it refuses and that part's recorded format.
pub fn expected_read(
    short: &str,
    requested: i32,
    reader: (i32, i32),
) -> Result<(), (&'static str, i32)> {
    for (what, formats) in parts(short) {
        let format = written(formats, requested);
        if !reads(formats, format, reader) {
            return Err((what, format));
        }
    }
    Ok(())
}

/// The versions at which the bytes of `short`'s sample change: its own formats and every
/// nested part's, oldest first. There is one golden file per entry.
pub fn golden_formats(short: &str) -> Vec<i32> {
    let mut all: Vec<i32> = parts(short)
        .into_iter()
        .flat_map(|(_, formats)| formats.iter().copied())
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// The golden file whose bytes `short` written at `requested` must equal: the one of the
/// newest format not newer than `requested`.
pub fn golden_for(short: &str, requested: i32) -> String {
    format!("{short}_v{}.pb", written(&golden_formats(short), requested))
}

/// Every `(short name, format)` pair with a golden file.
pub fn all_goldens() -> Vec<(&'static str, i32)> {
    GOLDEN_TYPES
        .iter()
        .flat_map(|(short, _)| golden_formats(short).into_iter().map(move |f| (*short, f)))
        .collect()
}

/// `result` is IFRT's refusal of `what` recorded as `recorded`, naming the reader's range.
pub fn assert_refused(
    result: Result<bool, ifrt_serdes::Error>,
    what: &str,
    recorded: i32,
    (min, max): (i32, i32),
    context: &str,
) {
    match result {
        Err(ifrt_serdes::Error::Incompatible(
            ifrt_serdes::Incompatible::UnsupportedDeserializationVersion {
                version,
                what: got,
                minimum,
                current,
                ..
            },
        )) => {
            assert_eq!(
                (got, version.value(), minimum.value(), current.value()),
                (what, recorded, min, max),
                "{context}"
            );
        }
        other => panic!("{context} by [{min}, {max}]: expected a refusal of {what}, got {other:?}"),
    }
}

/// The golden folder, in the source tree.
pub const GOLDEN_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/golden");

/// The golden file name of `short` in format `format`.
pub fn golden_name(short: &str, format: i32) -> String {
    format!("{short}_v{format}.pb")
}

/// FNV-1a, 64 bits: the checksum of `tests/data/golden/CHECKSUMS`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

pub mod strategies {
    use std::sync::Arc;

    use ifrt_serdes::{
        ArraySpec, DTYPE_KINDS, DType, DeviceList, MemoryKind, Shape, ShardingParam,
        ShardingParamSharding, SingleDeviceSharding,
    };
    use proptest::prelude::*;

    pub fn dtype() -> impl Strategy<Value = DType> {
        proptest::sample::select(DTYPE_KINDS.iter().map(|(d, _)| *d).collect::<Vec<_>>())
    }

    pub fn shape() -> impl Strategy<Value = Shape> {
        proptest::collection::vec(0i64..1 << 40, 0..6).prop_map(|dims| Shape::new(dims).unwrap())
    }

    /// Any list of device ids, repeats allowed (as IFRT allows them).
    pub fn device_list() -> impl Strategy<Value = DeviceList> {
        proptest::collection::vec(0i32..=i32::MAX, 0..10)
            .prop_map(|ids| DeviceList::new(ids).unwrap())
    }

    pub fn memory_kind() -> impl Strategy<Value = MemoryKind> {
        prop_oneof![
            Just(MemoryKind::unspecified()),
            Just(MemoryKind::device()),
            Just(MemoryKind::pinned_host()),
            Just(MemoryKind::unpinned_host()),
            "[a-z_]{0,12}".prop_map(|name| MemoryKind::from_name(&name)),
        ]
    }

    pub fn sharding_param() -> impl Strategy<Value = ShardingParam> {
        proptest::collection::vec(1i32..4, 1..4)
            .prop_flat_map(|sizes| {
                let n = sizes.len();
                let permutation = Just((0..n as i32).collect::<Vec<_>>()).prop_shuffle();
                let unreduced = proptest::collection::vec(any::<bool>(), n);
                (Just(sizes), permutation, unreduced, 0usize..4, 0usize..4)
            })
            .prop_map(|(sizes, permutation, unreduced, rank, pick)| {
                let mut dim_shards = vec![1i64; rank];
                if rank > 0 && !sizes.is_empty() {
                    dim_shards[pick % rank] = i64::from(sizes[pick % sizes.len()]);
                }
                let unreduced = unreduced
                    .iter()
                    .enumerate()
                    .filter(|(_, on)| **on)
                    .map(|(axis, _)| axis as i32)
                    .collect();
                ShardingParam::new(dim_shards, permutation, sizes, unreduced).unwrap()
            })
    }

    pub fn single_device() -> impl Strategy<Value = SingleDeviceSharding> {
        (0i32..1 << 20, memory_kind())
            .prop_map(|(id, kind)| SingleDeviceSharding::new(id, kind).unwrap())
    }

    pub fn param_sharding() -> impl Strategy<Value = ShardingParamSharding> {
        (sharding_param(), memory_kind(), 0i32..1000)
            .prop_flat_map(|(param, kind, base)| {
                let devices = (base..base + param.num_devices() as i32).collect::<Vec<_>>();
                (Just(param), Just(devices).prop_shuffle(), Just(kind))
            })
            .prop_map(|(param, devices, kind)| {
                ShardingParamSharding::new(param, devices, kind).unwrap()
            })
    }

    pub fn array_spec() -> impl Strategy<Value = ArraySpec> {
        let sharding = prop_oneof![
            single_device().prop_map(|s| Arc::new(s) as Arc<dyn ifrt_serdes::Sharding>),
            param_sharding().prop_map(|s| Arc::new(s) as Arc<dyn ifrt_serdes::Sharding>),
        ];
        let layout = proptest::option::of(proptest::collection::vec(any::<u8>(), 0..8));
        (dtype(), shape(), sharding, layout).prop_map(|(dtype, shape, sharding, layout)| {
            ArraySpec {
                dtype,
                shape,
                sharding,
                layout,
            }
        })
    }
}
