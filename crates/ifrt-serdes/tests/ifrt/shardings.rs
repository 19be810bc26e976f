//! The rules of the shardings, layouts and dynamic shapes added for what real clients send:
//! each refuses what IFRT refuses, in IFRT's words where it has them, whether built or read.

use crate::common::{self, built_in, options, versions};
use ifrt_serdes::schema::xla::{LayoutProto, NamedShardingProto, OpSharding, op_sharding};
use ifrt_serdes::schema::{
    BoundedDynamicShapeTagProto, ConcreteShardingProto, DeviceListProto, DynamicShapeProto,
    Serialized, ShapeProto,
};
use ifrt_serdes::{
    CompactLayout, ConcreteShapes, ConcreteSharding, DeserializeOptions, DynamicShape, Error,
    HloSharding, InvalidValue, MemoryKind, OpaqueSharding, PjRtLayout, Shape,
};
use prost::Message;

fn shape(dims: &[i64]) -> Shape {
    Shape::new(dims.to_vec()).unwrap()
}

#[test]
fn concrete_shardings_need_one_shard_shape_per_device() {
    let shapes = |n: usize| ConcreteShapes::Static {
        shape: shape(&[8]),
        shard_shapes: vec![shape(&[4]); n],
    };
    assert!(ConcreteSharding::new(vec![0, 1], MemoryKind::device(), shapes(2)).is_ok());
    assert_eq!(
        ConcreteSharding::new(vec![0, 1], MemoryKind::device(), shapes(3)),
        Err(Error::Invalid(InvalidValue::ShardCountMismatch {
            shards: 3,
            devices: 2
        }))
    );
    assert_eq!(
        ConcreteSharding::new(vec![], MemoryKind::device(), shapes(0)),
        Err(Error::Invalid(InvalidValue::NoDevices {
            what: "ConcreteSharding"
        }))
    );
    assert_eq!(
        ConcreteSharding::new(vec![1, 1], MemoryKind::device(), shapes(2)),
        Err(Error::Invalid(InvalidValue::DuplicateDeviceId {
            device_id: 1
        }))
    );
}

#[test]
fn dynamic_shapes_follow_ifrts_rules() {
    let dynamic = DynamicShape::new(shape(&[8, 4]), vec![true, false]).unwrap();
    assert_eq!(dynamic.is_dynamic_dims(), [true, false]);
    assert_eq!(
        DynamicShape::new(shape(&[8, 4]), vec![false, false])
            .unwrap_err()
            .to_string(),
        "At least one dimension needs to be dynamically sized."
    );
    assert_eq!(
        DynamicShape::new(shape(&[8, 4]), vec![true])
            .unwrap_err()
            .to_string(),
        "Shape and tag must have the same number of dimensions. (shape 2, tag 1)"
    );
    // A concrete sharding of dynamic shapes is written and read back at every version.
    let sharding = ConcreteSharding::new(
        vec![0, 1],
        MemoryKind::unspecified(),
        ConcreteShapes::Dynamic {
            shape: dynamic.clone(),
            shard_shapes: vec![dynamic.clone(), dynamic],
        },
    )
    .unwrap();
    let registry = built_in();
    for version in versions() {
        let bytes = registry
            .serialize_to_bytes(&sharding, &options(version))
            .unwrap();
        let (back, formats) = registry.inspect_bytes(&bytes, &DeserializeOptions::default());
        let back = back.unwrap();
        assert_eq!(format!("{back:?}"), format!("{sharding:?}"));
        let what: Vec<&str> = formats.iter().map(|f| f.what()).collect();
        assert_eq!(
            what,
            [
                "ConcreteSharding",
                "DeviceList",
                "DynamicShape",
                "Shape",
                "BoundedDynamicShapeTag",
                "DynamicShape",
                "Shape",
                "BoundedDynamicShapeTag",
                "DynamicShape",
                "Shape",
                "BoundedDynamicShapeTag",
            ]
        );
    }
    // A dynamic shape without its tag is refused in IFRT's words.
    let untagged = ConcreteShardingProto {
        devices: Some(DeviceListProto {
            version_number: 0,
            device_ids: vec![0],
        }),
        dynamic_shape: Some(DynamicShapeProto {
            shape: Some(ShapeProto {
                version_number: 0,
                dims: vec![2],
            }),
            bounded_dynamic_shape_tag: None,
            version_number: 0,
        }),
        shard_dynamic_shapes: vec![DynamicShapeProto {
            bounded_dynamic_shape_tag: Some(BoundedDynamicShapeTagProto {
                is_dynamic_dims: vec![true],
                version_number: 0,
            }),
            ..DynamicShapeProto::default()
        }],
        ..ConcreteShardingProto::default()
    };
    let bytes = Serialized {
        type_name: "xla::ifrt::ConcreteSharding".into(),
        data: untagged.encode_to_vec(),
    }
    .encode_to_vec();
    let error = registry
        .deserialize_dyn_from_bytes(&bytes, &DeserializeOptions::default())
        .unwrap_err();
    assert_eq!(error.to_string(), "Only support bounded dynamic shape.");
}

#[test]
fn hlo_shardings_check_devices_and_refuse_to_write_named_mesh_shardings() {
    let replicated = OpSharding::default();
    assert_eq!(
        HloSharding::new(vec![0, -1], MemoryKind::device(), replicated.clone()),
        Err(Error::Invalid(InvalidValue::NegativeDeviceId {
            device_id: -1
        }))
    );
    let maximal = OpSharding {
        r#type: op_sharding::Type::Maximal as i32,
        tile_assignment_devices: vec![0, 1],
        ..OpSharding::default()
    };
    assert_eq!(
        HloSharding::new(vec![0, 1], MemoryKind::device(), maximal)
            .unwrap_err()
            .to_string(),
        "invalid xla.OpSharding (XLA's HloSharding::FromProto refuses it): Maximal sharding is \
         expected to have single device assignment, but 2 has provided."
    );
    // A named-mesh sharding (XLA's HloShardingV3) is read, but IFRT does not write it.
    let named = OpSharding {
        r#type: op_sharding::Type::Other as i32,
        named_sharding: Some(NamedShardingProto::default()),
        ..OpSharding::default()
    };
    let sharding = HloSharding::new(vec![0], MemoryKind::device(), named).unwrap();
    let registry = built_in();
    let version = *versions().last().unwrap();
    assert_eq!(
        registry
            .serialize_to_bytes(&sharding, &options(version))
            .unwrap_err()
            .to_string(),
        "HloSharding with XLA HloShardingV3 format is not supported for serialization"
    );
    // Every built-in sharding kind fits in an ArraySpec and reads back as itself.
    for sharding in [
        std::sync::Arc::new(common::sample_hlo_sharding())
            as std::sync::Arc<dyn ifrt_serdes::Sharding>,
        std::sync::Arc::new(common::sample_concrete_sharding()),
        std::sync::Arc::new(common::sample_concrete_even_sharding()),
        std::sync::Arc::new(OpaqueSharding::new(vec![0, 1], MemoryKind::device()).unwrap()),
    ] {
        let spec = ifrt_serdes::ArraySpec {
            dtype: ifrt_serdes::DType::F32,
            shape: shape(&[10, 20]),
            sharding,
            layout: None,
        };
        let bytes = registry.to_proto_bytes(&spec, &options(version)).unwrap();
        let back: ifrt_serdes::ArraySpec = registry
            .from_proto_bytes(&bytes, &DeserializeOptions::default())
            .unwrap();
        assert_eq!(back, spec);
    }
}

#[test]
fn layouts_are_permutations_of_their_dimensions() {
    assert!(CompactLayout::new(vec![2, 0, 1]).is_ok());
    assert!(CompactLayout::new(vec![]).is_ok());
    assert_eq!(
        CompactLayout::new(vec![0, 0]).unwrap_err().to_string(),
        "CompactLayout `major_to_minor` [0,0] is not a permutation of 0..2: each dimension \
         must appear once"
    );
    assert!(CompactLayout::new(vec![0, 2]).is_err());
    assert!(CompactLayout::new(vec![-1]).is_err());
    let layout = |minor_to_major: Vec<i64>| LayoutProto {
        minor_to_major,
        ..LayoutProto::default()
    };
    assert!(PjRtLayout::new(layout(vec![1, 0])).is_ok());
    assert!(PjRtLayout::new(layout(vec![1, 1])).is_err());
    assert!(PjRtLayout::new(layout(vec![i64::MAX])).is_err());
}
