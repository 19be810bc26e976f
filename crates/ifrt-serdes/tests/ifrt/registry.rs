//! The registry's contract: registration, lookup errors in IFRT's words, and nested
//! serialization that propagates the requested version and reads each inner value by its own.

use std::sync::Arc;

use crate::common::{self, build, built_in, options, sample_param_sharding, versions};
use ifrt_serdes::schema::{ArraySpecProto, Serialized, ShardingProto, SingleDeviceShardingProto};
use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{
    ArraySpec, Codec, DType, DecodeError, DeserializeOptions, Error, Formats, InvalidValue,
    MemoryKind, Registry, RegistryError, Serializable, SerializeOptions, Shape,
    ShardingParamSharding, SingleDeviceSharding,
};
use prost::Message;

#[derive(Debug, PartialEq)]
struct Unregistered;
impl Serializable for Unregistered {}

/// A registered type that is no sharding: a name, kept as its bytes.
#[derive(Debug, PartialEq)]
struct Label(String);
impl Serializable for Label {}

impl Codec for Label {
    const TYPE_NAME: &'static str = "example::Label";
    const FORMATS: Formats = Formats::new("Label", &[SerDesVersionNumber::new(0)]);

    fn serialize_into(
        &self,
        _: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        out.extend_from_slice(self.0.as_bytes());
        Ok(())
    }

    fn deserialize(data: &[u8], _: &DeserializeOptions, _: &Registry) -> Result<Self, Error> {
        Ok(Label(String::from_utf8_lossy(data).into_owned()))
    }
}

#[test]
fn registering_twice_is_an_error() {
    let mut registry = Registry::new(SupportedVersions::BUILT_IN);
    registry.register::<Label>().unwrap();
    assert_eq!(
        registry.register::<Label>(),
        Err(Error::Registry(RegistryError::AlreadyRegistered {
            type_name: Label::TYPE_NAME
        }))
    );
    registry
        .register_sharding::<SingleDeviceSharding>()
        .unwrap();
    let again = registry
        .register_sharding::<SingleDeviceSharding>()
        .unwrap_err();
    assert_eq!(
        again.to_string(),
        "xla::ifrt::SerDes cannot be registered more than once for the same name: \
         xla::ifrt::SingleDeviceSharding"
    );
}

#[test]
fn unknown_values_and_names_fail_in_ifrts_words() {
    let registry = built_in();
    let version = *versions().last().unwrap();
    let error = registry
        .serialize(&Unregistered, &options(version))
        .unwrap_err();
    assert!(error.to_string().starts_with(
        "Serialize call failed. Serializable has no associated SerDes implementation"
    ));
    let envelope = Serialized {
        type_name: "my::Unknown".to_string(),
        data: vec![],
    };
    let error = registry
        .deserialize_dyn(&envelope, &DeserializeOptions::default())
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Deserialize call failed. Serializable has no associated SerDes implementation. \
         type_name: my::Unknown"
    );
    // A registry that lacks a type refuses it even if the bytes are fine.
    let mut partial = Registry::new(SupportedVersions::BUILT_IN);
    partial.register::<Label>().unwrap();
    let sharding = built_in()
        .serialize(&sample_param_sharding(version.number()), &options(version))
        .unwrap();
    assert!(matches!(
        partial.deserialize::<ShardingParamSharding>(&sharding, &DeserializeOptions::default()),
        Err(Error::Registry(RegistryError::NoSerDesForTypeName { .. }))
    ));
    // The types IFRT sends as plain messages are no SerDes types: writing one through the
    // registry's envelope path does not compile (`DType` is not `Serializable`), and an
    // envelope of such a name is refused, saying so (tests/ifrt/golden.rs has the messages).
    let dtype = Serialized {
        type_name: "xla::ifrt::DType".to_string(),
        data: vec![0x08, 0x0b],
    };
    assert!(matches!(
        registry.deserialize_dyn(&dtype, &DeserializeOptions::default()),
        Err(Error::Registry(RegistryError::SentAsPlainProto {
            what: "DType",
            ..
        }))
    ));
}

/// A registry may register a codec under one of those names on purpose (to read bytes of its
/// own): a registered name is read by its codec, never refused as a plain message.
#[test]
fn a_registered_name_is_never_refused_as_a_plain_message() {
    #[derive(Debug, PartialEq)]
    struct LegacyDType(Vec<u8>);
    impl Serializable for LegacyDType {}
    impl Codec for LegacyDType {
        const TYPE_NAME: &'static str = "xla::ifrt::DType";
        const FORMATS: Formats = Formats::new("DType", &[SerDesVersionNumber::new(0)]);
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
            Ok(LegacyDType(data.to_vec()))
        }
    }
    let mut registry = built_in();
    registry.register::<LegacyDType>().unwrap();
    let envelope = Serialized {
        type_name: "xla::ifrt::DType".to_string(),
        data: vec![0x08, 0x0b],
    };
    assert_eq!(
        registry.deserialize::<LegacyDType>(&envelope, &DeserializeOptions::default()),
        Ok(LegacyDType(vec![0x08, 0x0b]))
    );
}

#[test]
fn typed_and_sharding_reads_check_the_kind() {
    let mut registry = built_in();
    registry.register::<Label>().unwrap();
    let version = *versions().last().unwrap();
    let label = registry
        .serialize(&Label("hello".to_string()), &options(version))
        .unwrap();
    assert_eq!(
        registry.deserialize::<SingleDeviceSharding>(&label, &DeserializeOptions::default()),
        Err(Error::Registry(RegistryError::WrongType {
            expected: SingleDeviceSharding::TYPE_NAME,
            found: Label::TYPE_NAME.to_string()
        }))
    );
    assert!(matches!(
        registry.deserialize_sharding(&label, &DeserializeOptions::default()),
        Err(Error::Registry(RegistryError::NotASharding { .. }))
    ));
    let any = registry
        .deserialize_dyn(&label, &DeserializeOptions::default())
        .unwrap();
    let any: &dyn std::any::Any = any.as_ref();
    assert_eq!(
        any.downcast_ref::<Label>(),
        Some(&Label("hello".to_string()))
    );
}

#[test]
fn the_default_version_is_current_or_refused_under_the_testing_feature() {
    let result = SerializeOptions::with_default_version(SupportedVersions::BUILT_IN);
    let from_registry = built_in().default_options();
    if cfg!(feature = "testing-bad-default-version") {
        assert_eq!(result, Err(Error::DefaultVersionDisallowed));
        assert_eq!(from_registry, Err(Error::DefaultVersionDisallowed));
    } else {
        let current = SupportedVersions::BUILT_IN.current();
        assert_eq!(result.map(|o| o.version()), Ok(current));
        assert_eq!(from_registry.map(|o| o.version()), Ok(current));
    }
}

#[test]
fn nested_values_get_the_requested_version_and_record_their_own_format() {
    let registry = built_in();
    for version in versions() {
        let spec = common::sample_array_spec(version.number());
        let proto = registry.to_proto(&spec, &options(version)).unwrap();
        let requested = version.number().value();
        // ArraySpec, DType and Shape have one format, 0, as in IFRT.
        assert_eq!(proto.version_number, 0);
        assert_eq!(proto.dtype.unwrap().version_number, 0);
        assert_eq!(proto.shape.unwrap().version_number, 0);
        let inner = proto.sharding.unwrap().serialized_sharding.unwrap();
        assert_eq!(inner.type_name, ShardingParamSharding::TYPE_NAME);
        let inner =
            ifrt_serdes::schema::ShardingParamShardingProto::decode(inner.data.as_slice()).unwrap();
        // The sharding got the requested version, not the ArraySpec's format 0, and handed it
        // on to its param: the sample's param has unreduced axes from version 1 on, and
        // records format 1 there (its own only format, 0, for the sharding).
        assert_eq!(inner.version_number, 0);
        assert_eq!(
            inner.sharding_param.unwrap().version_number,
            requested.min(1)
        );
        assert_eq!(inner.devices.unwrap().version_number, 0);
    }
}

/// An ArraySpec whose parts were written in different versions (as a mixed pipeline could
/// produce): each part is read by its own recorded format.
fn mixed_spec(outer: i32, sharding_version: i32, sharding: SingleDeviceShardingProto) -> Vec<u8> {
    let outer_version = options(
        SupportedVersions::BUILT_IN
            .version(SerDesVersionNumber::new(outer.max(0)))
            .unwrap(),
    );
    let registry = built_in();
    let mut sharding = sharding;
    sharding.version_number = sharding_version;
    let proto = ArraySpecProto {
        version_number: outer,
        dtype: Some(registry.to_proto(&DType::F16, &outer_version).unwrap()),
        shape: Some(
            registry
                .to_proto(&Shape::new(vec![2]).unwrap(), &outer_version)
                .unwrap(),
        ),
        sharding: Some(ShardingProto {
            serialized_sharding: Some(Serialized {
                type_name: SingleDeviceSharding::TYPE_NAME.to_string(),
                data: sharding.encode_to_vec(),
            }),
        }),
        layout: None,
    };
    proto.encode_to_vec()
}

#[test]
fn inner_values_are_read_by_their_own_recorded_format() {
    let sharding = SingleDeviceShardingProto {
        version_number: 0,
        device_id: 5,
        memory_kind: Some("pinned_host".to_string()),
    };
    let registry = built_in();
    let pinned = SingleDeviceSharding::new(5, MemoryKind::pinned_host()).unwrap();
    let read = registry
        .from_proto_bytes::<ArraySpec>(
            &mixed_spec(0, 0, sharding.clone()),
            &DeserializeOptions::default(),
        )
        .unwrap();
    assert!(read.sharding.same_as(&pinned));

    let refusal = |registry: &Registry, outer, inner| {
        registry
            .from_proto_bytes::<ArraySpec>(
                &mixed_spec(outer, inner, sharding.clone()),
                &DeserializeOptions::default(),
            )
            .unwrap_err()
            .to_string()
    };
    let newer = |version, what, range| {
        format!(
            "Unsupported IFRT SerDes version {version} for {what} deserialization: this build \
             reads IFRT SerDes versions {range}, and {version} is newer, written by a newer \
             build; the writer must request a version both builds support (negotiate one)"
        )
    };
    let no_format = |version, what, range| {
        format!(
            "Unsupported IFRT SerDes version {version} for {what} deserialization: {what} has \
             no format {version} (this build reads IFRT SerDes versions {range}): the data is \
             damaged or was not written by a codec of {what}"
        )
    };
    // The outer part is read, the inner one refused, naming it: a number newer than the build,
    // or one that is no format of the type (IFRT's readers refuse every number but 0).
    assert_eq!(
        refusal(&build(0, 1), 0, 2),
        newer(2, "SingleDeviceSharding", "[0, 1]")
    );
    assert_eq!(
        refusal(&registry, 0, 1),
        no_format(1, "SingleDeviceSharding", "[0, 6]")
    );
    assert_eq!(
        refusal(&registry, 2, 0),
        no_format(2, "ArraySpec", "[0, 6]")
    );
    // A build whose minimum is 2 still reads format 0 of the types that never changed it.
    assert!(
        build(2, 2)
            .from_proto_bytes::<ArraySpec>(
                &mixed_spec(0, 0, sharding.clone()),
                &DeserializeOptions::default()
            )
            .is_ok()
    );
}

#[test]
fn array_specs_hold_any_registered_sharding_kind() {
    let registry = built_in();
    let version = *versions().last().unwrap();
    for sharding in [
        Arc::new(SingleDeviceSharding::new(0, MemoryKind::from_name("hbm")).unwrap())
            as Arc<dyn ifrt_serdes::Sharding>,
        Arc::new(sample_param_sharding(version.number())),
    ] {
        let spec = ArraySpec {
            dtype: DType::S32,
            shape: Shape::new(vec![4, 4]).unwrap(),
            sharding,
            layout: Some(vec![8, 1]),
        };
        let bytes = registry.to_proto_bytes(&spec, &options(version)).unwrap();
        let back: ArraySpec = registry
            .from_proto_bytes(&bytes, &DeserializeOptions::default())
            .unwrap();
        assert_eq!(back, spec);
    }
    // A different kind with similar contents is not equal.
    let a = SingleDeviceSharding::new(0, MemoryKind::device()).unwrap();
    let b = SingleDeviceSharding::new(1, MemoryKind::device()).unwrap();
    use ifrt_serdes::Sharding;
    assert!(!a.same_as(&b));
    assert!(!a.same_as(&sample_param_sharding(version.number())));
}

#[test]
fn memory_kinds_are_canonical() {
    assert_eq!(MemoryKind::from_name("device"), MemoryKind::device());
    assert_eq!(
        MemoryKind::from_name("pinned_host").name(),
        Some("pinned_host")
    );
    assert_eq!(MemoryKind::from_name("hbm").name(), Some("hbm"));
    assert_eq!(MemoryKind::unspecified().name(), None);
}

#[test]
fn invalid_values_are_refused_on_construction() {
    use InvalidValue::*;
    use ifrt_serdes::ShardingParam;
    let invalid = |result: Result<_, Error>| match result {
        Err(Error::Invalid(invalid)) => invalid,
        other => panic!("not an invalid value: {other:?}"),
    };
    let param = |d: Vec<i64>, p: Vec<i32>, a: Vec<i32>, u: Vec<i32>| {
        invalid(ShardingParam::new(d, p, a, u).map(|_| ()))
    };
    assert_eq!(
        invalid(Shape::new(vec![1, -1]).map(|_| ())),
        NegativeDimension { dim: -1 }
    );
    assert_eq!(
        invalid(SingleDeviceSharding::new(-1, MemoryKind::device()).map(|_| ())),
        NegativeDeviceId { device_id: -1 }
    );
    assert_eq!(
        param(vec![3], vec![0], vec![2], vec![]),
        ShardsDoNotDivideMesh {
            shards: 3,
            devices: 2
        },
        "3 does not divide 2"
    );
    assert_eq!(
        param(vec![1], vec![0, 0], vec![2, 2], vec![]),
        DuplicatePermutationAxis {
            permutation: vec![0, 0]
        }
    );
    assert_eq!(
        param(vec![1], vec![0, 2], vec![2, 2], vec![]),
        PermutationAxisOutOfRange {
            axis: 2,
            permutation: vec![0, 2],
            axis_sizes: vec![2, 2]
        }
    );
    assert_eq!(
        param(vec![1], vec![0], vec![2, 2], vec![]),
        AxisCountMismatch {
            permutation: 1,
            axis_sizes: 2
        }
    );
    assert_eq!(
        param(vec![1], vec![0], vec![0], vec![]),
        NonPositiveAxisSize { size: 0 }
    );
    assert_eq!(
        param(vec![0], vec![0], vec![2], vec![]),
        NonPositiveDimShards { count: 0 }
    );
    assert_eq!(
        param(vec![1], vec![0], vec![2], vec![1]),
        UnreducedAxisOutOfRange {
            axis: 1,
            mesh_axes: 1
        }
    );
    // IFRT takes unreduced axes in any order; it refuses an empty mesh.
    assert!(ShardingParam::new(vec![1], vec![0, 1], vec![2, 2], vec![1, 0]).is_ok());
    assert_eq!(
        param(vec![], vec![], vec![], vec![]),
        AxisCountMismatch {
            permutation: 0,
            axis_sizes: 0
        }
    );
    assert_eq!(
        param(vec![1], vec![0, 1], vec![2, 2], vec![1, 1]),
        DuplicateUnreducedAxis { axis: 1 }
    );
    let two = ShardingParam::new(vec![2], vec![0], vec![2], vec![]).unwrap();
    let sharding = |devices| {
        invalid(ShardingParamSharding::new(two.clone(), devices, MemoryKind::device()).map(|_| ()))
    };
    assert_eq!(
        sharding(vec![0]),
        DeviceCountMismatch {
            devices: 1,
            mesh: 2
        }
    );
    assert_eq!(sharding(vec![1, 1]), DuplicateDeviceId { device_id: 1 });
    assert_eq!(sharding(vec![0, -3]), NegativeDeviceId { device_id: -3 });
    // A plain device list may be empty and may repeat a device, as IFRT's may; no id is
    // negative.
    assert!(ifrt_serdes::DeviceList::new(vec![]).is_ok());
    assert!(ifrt_serdes::DeviceList::new(vec![1, 1]).is_ok());
    assert_eq!(
        invalid(ifrt_serdes::DeviceList::new(vec![2, -1]).map(|_| ())),
        NegativeDeviceId { device_id: -1 }
    );
    assert!(ShardingParamSharding::new(two, vec![1, 0], MemoryKind::device()).is_ok());
    let huge = vec![i32::MAX; 4];
    assert_eq!(
        param(vec![], vec![0, 1, 2, 3], huge, vec![]),
        TooManyDevices
    );
    assert_eq!(
        param(vec![i64::MAX, 2], vec![0], vec![2], vec![]),
        DimShardsOverflow {
            dim_shards: vec![i64::MAX, 2]
        }
    );
    // IFRT's shard and device counts are `int`s.
    assert_eq!(
        param(vec![1 << 16, 1 << 15], vec![0], vec![2], vec![]),
        DimShardsOverflow {
            dim_shards: vec![1 << 16, 1 << 15]
        }
    );
    assert_eq!(
        param(vec![], vec![0, 1], vec![1 << 16, 1 << 15], vec![]),
        TooManyDevices
    );
    // Long lists (past the small-list fast paths) find the repeat too.
    let mut devices: Vec<i32> = (0..64).rev().collect();
    devices[10] = 7;
    let wide = ShardingParam::new(vec![], vec![0, 1, 2, 3, 4, 5], vec![2; 6], vec![]).unwrap();
    assert_eq!(
        invalid(ShardingParamSharding::new(wide, devices, MemoryKind::device()).map(|_| ())),
        DuplicateDeviceId { device_id: 7 }
    );
}

/// A sharding kind defined outside the crate: the family is open.
#[derive(Debug, Clone, PartialEq)]
struct ReplicatedSharding {
    devices: Vec<i32>,
}

impl Serializable for ReplicatedSharding {}

impl ifrt_serdes::Sharding for ReplicatedSharding {
    fn same_as(&self, other: &dyn ifrt_serdes::Sharding) -> bool {
        (other as &dyn std::any::Any).downcast_ref::<Self>() == Some(self)
    }
}

impl Codec for ReplicatedSharding {
    const TYPE_NAME: &'static str = "example::ReplicatedSharding";
    const FORMATS: Formats = Formats::new("ReplicatedSharding", &[SerDesVersionNumber::new(0)]);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let proto = ifrt_serdes::schema::DeviceListProto {
            version_number: Self::FORMATS
                .record(Self::FORMATS.oldest(), options.version())?
                .value(),
            device_ids: self.devices.clone(),
        };
        out.extend_from_slice(&proto.encode_to_vec());
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        _: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto = ifrt_serdes::schema::DeviceListProto::decode(data).map_err(|source| {
            DecodeError::Malformed {
                what: "DeviceListProto",
                source,
            }
        })?;
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        Ok(ReplicatedSharding {
            devices: proto.device_ids,
        })
    }
}

#[test]
fn users_add_their_own_sharding_kinds() {
    let mut registry = built_in();
    registry.register_sharding::<ReplicatedSharding>().unwrap();
    let version = *versions().last().unwrap();
    let spec = ArraySpec {
        dtype: DType::Pred,
        shape: Shape::new(vec![3]).unwrap(),
        sharding: Arc::new(ReplicatedSharding {
            devices: vec![0, 1],
        }),
        layout: None,
    };
    let bytes = registry.to_proto_bytes(&spec, &options(version)).unwrap();
    let back: ArraySpec = registry
        .from_proto_bytes(&bytes, &DeserializeOptions::default())
        .unwrap();
    assert_eq!(back, spec);
    // A reader that lacks the kind says which name it does not know.
    let error = built_in()
        .from_proto_bytes::<ArraySpec>(&bytes, &DeserializeOptions::default())
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Deserialize call failed. Serializable has no associated SerDes implementation. \
         type_name: example::ReplicatedSharding"
    );
}
