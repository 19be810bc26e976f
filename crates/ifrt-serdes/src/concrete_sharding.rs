//! The shardings that list their shards or only their devices: [`ConcreteSharding`] (a shape
//! per shard; what real clients sent up to jaxlib 0.4.38), [`ConcreteEvenSharding`] (one shard
//! shape for all), [`OpaqueSharding`] (devices only), and the [`DynamicShape`] a concrete
//! sharding may hold.
//!
//! Formats, as IFRT writes and reads them (xla/python/ifrt/sharding_serdes.cc,
//! xla/python/ifrt/shape.cc): format 0 only for each, the memory kind as its name (absent for
//! the default one), the device list and every shape recording their own formats. Releases
//! before jaxlib 0.6.2 have no `version_number` fields, which read as 0, the same bytes.

use std::any::Any;

use crate::codec::{
    Codec, DeserializeOptions, Serializable, SerializeOptions, Sharding, decode_message,
    encode_message,
};
use crate::error::{Error, InvalidValue};
use crate::format::Formats;
use crate::generated::xla::ifrt::{
    BoundedDynamicShapeTagProto, ConcreteEvenShardingProto, ConcreteShardingProto,
    DynamicShapeProto, OpaqueShardingProto, ShapeProto,
};
use crate::proto_codec::ProtoCodec;
use crate::registry::Registry;
use crate::shape::Shape;
use crate::sharding::{MemoryKind, check_devices, devices_proto, read_devices};
use crate::version::{SerDesVersion, SerDesVersionNumber};
use crate::wire::{read_key, skip_field};

/// Format 0, the only one of each of these messages.
const ONLY_FORMAT: &[SerDesVersionNumber] = &[SerDesVersionNumber::new(0)];

/// The formats of IFRT's `DynamicShape` (xla/python/ifrt/shape.cc): one.
const DYNAMIC_SHAPE: Formats = Formats::new("DynamicShape", ONLY_FORMAT);

/// The formats of IFRT's `BoundedDynamicShapeTag` (xla/python/ifrt/shape.cc): one.
const BOUNDED_DYNAMIC_SHAPE_TAG: Formats = Formats::new("BoundedDynamicShapeTag", ONLY_FORMAT);

/// A shape some of whose dimensions are dynamic, bounded by their size in the shape (IFRT's
/// `DynamicShape` with a `BoundedDynamicShapeTag`, the only kind IFRT has).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DynamicShape {
    shape: Shape,
    is_dynamic_dims: Vec<bool>,
}

impl DynamicShape {
    /// `shape` whose dimension `i` is dynamic where `is_dynamic_dims[i]`, one entry per
    /// dimension, at least one of them dynamic (IFRT's rules, in its words).
    pub fn new(shape: Shape, is_dynamic_dims: Vec<bool>) -> Result<Self, Error> {
        if !is_dynamic_dims.iter().any(|d| *d) {
            return Err(InvalidValue::NoDynamicDimension.into());
        }
        if is_dynamic_dims.len() != shape.dims().len() {
            return Err(InvalidValue::DynamicShapeTagMismatch {
                dims: shape.dims().len(),
                tag: is_dynamic_dims.len(),
            }
            .into());
        }
        Ok(DynamicShape {
            shape,
            is_dynamic_dims,
        })
    }

    /// The shape, each dynamic dimension at its bound.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Which dimensions are dynamic.
    pub fn is_dynamic_dims(&self) -> &[bool] {
        &self.is_dynamic_dims
    }

    fn to_proto(&self, version: SerDesVersion) -> Result<DynamicShapeProto, Error> {
        let format = DYNAMIC_SHAPE.record(DYNAMIC_SHAPE.oldest(), version)?;
        let tag = BOUNDED_DYNAMIC_SHAPE_TAG.record(BOUNDED_DYNAMIC_SHAPE_TAG.oldest(), version)?;
        Ok(DynamicShapeProto {
            shape: Some(self.shape.proto_at(version)?),
            bounded_dynamic_shape_tag: Some(BoundedDynamicShapeTagProto {
                is_dynamic_dims: self.is_dynamic_dims.clone(),
                version_number: tag.value(),
            }),
            version_number: format.value(),
        })
    }

    fn from_proto(proto: DynamicShapeProto, registry: &Registry) -> Result<Self, Error> {
        registry.read_format(&DYNAMIC_SHAPE, proto.version_number)?;
        let shape = Shape::from_proto(proto.shape.unwrap_or_default(), registry)?;
        let tag = proto
            .bounded_dynamic_shape_tag
            .ok_or(InvalidValue::UnboundedDynamicShape)?;
        registry.read_format(&BOUNDED_DYNAMIC_SHAPE_TAG, tag.version_number)?;
        DynamicShape::new(shape, tag.is_dynamic_dims)
    }
}

/// The shapes of a [`ConcreteSharding`]: static, or bounded dynamic.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConcreteShapes {
    /// The array's shape and each shard's.
    Static {
        /// The whole array's shape.
        shape: Shape,
        /// One shape per device, in device order.
        shard_shapes: Vec<Shape>,
    },
    /// The array's dynamic shape and each shard's.
    Dynamic {
        /// The whole array's shape.
        shape: DynamicShape,
        /// One shape per device, in device order.
        shard_shapes: Vec<DynamicShape>,
    },
}

impl ConcreteShapes {
    fn shard_count(&self) -> usize {
        match self {
            ConcreteShapes::Static { shard_shapes, .. } => shard_shapes.len(),
            ConcreteShapes::Dynamic { shard_shapes, .. } => shard_shapes.len(),
        }
    }
}

/// An array cut into shards of any shapes, one per device (IFRT's `ConcreteSharding`,
/// xla/python/ifrt/sharding.h).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConcreteSharding {
    devices: Vec<i32>,
    memory_kind: MemoryKind,
    shapes: ConcreteShapes,
}

impl ConcreteSharding {
    /// `shapes` over `devices` (at least one, distinct ids >= 0, one shard shape each).
    pub fn new(
        devices: Vec<i32>,
        memory_kind: MemoryKind,
        shapes: ConcreteShapes,
    ) -> Result<Self, Error> {
        check_devices(&devices)?;
        if devices.is_empty() {
            return Err(InvalidValue::NoDevices {
                what: "ConcreteSharding",
            }
            .into());
        }
        if shapes.shard_count() != devices.len() {
            return Err(InvalidValue::ShardCountMismatch {
                shards: shapes.shard_count(),
                devices: devices.len(),
            }
            .into());
        }
        Ok(ConcreteSharding {
            devices,
            memory_kind,
            shapes,
        })
    }

    /// The devices, one per shard.
    pub fn devices(&self) -> &[i32] {
        &self.devices
    }

    /// The memory kind.
    pub fn memory_kind(&self) -> &MemoryKind {
        &self.memory_kind
    }

    /// The array's shape and its shards'.
    pub fn shapes(&self) -> &ConcreteShapes {
        &self.shapes
    }
}

impl Serializable for ConcreteSharding {}

impl Sharding for ConcreteSharding {
    fn same_as(&self, other: &dyn Sharding) -> bool {
        (other as &dyn Any).downcast_ref::<Self>() == Some(self)
    }
}

impl Codec for ConcreteSharding {
    /// IFRT's name (xla/python/ifrt/sharding_serdes.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::ConcreteSharding";
    const FORMATS: Formats = Formats::new("ConcreteSharding", ONLY_FORMAT);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let version = options.version();
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), version)?;
        let mut proto = ConcreteShardingProto {
            devices: Some(devices_proto(&self.devices, version)?),
            version_number: format.value(),
            ..ConcreteShardingProto::default()
        };
        self.memory_kind.encode(&mut proto.memory_kind);
        match &self.shapes {
            ConcreteShapes::Static {
                shape,
                shard_shapes,
            } => {
                proto.shape = Some(shape.proto_at(version)?);
                proto.shard_shapes = shard_shapes
                    .iter()
                    .map(|s| s.proto_at(version))
                    .collect::<Result<_, _>>()?;
            }
            ConcreteShapes::Dynamic {
                shape,
                shard_shapes,
            } => {
                proto.dynamic_shape = Some(shape.to_proto(version)?);
                proto.shard_dynamic_shapes = shard_shapes
                    .iter()
                    .map(|s| s.to_proto(version))
                    .collect::<Result<_, _>>()?;
            }
        }
        encode_message(&proto, out);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto: ConcreteShardingProto = decode_message(data, options, "ConcreteShardingProto")?;
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        let devices = read_devices(proto.devices, registry)?;
        let memory_kind = MemoryKind::from_field(proto.memory_kind.as_deref());
        // IFRT's `shape` (2) and `dynamic_shape` (5) are one oneof: the one last in the bytes
        // is the one set.
        let is_static = match (&proto.shape, &proto.dynamic_shape) {
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => return Err(InvalidValue::ConcreteShardingWithoutShape.into()),
            (Some(_), Some(_)) => last_of(data, SHAPE_FIELD, DYNAMIC_SHAPE_FIELD) == SHAPE_FIELD,
        };
        let shapes = if is_static {
            let read = |p: ShapeProto| Shape::from_proto(p, registry);
            ConcreteShapes::Static {
                shape: read(proto.shape.unwrap_or_default())?,
                shard_shapes: proto
                    .shard_shapes
                    .into_iter()
                    .map(read)
                    .collect::<Result<_, _>>()?,
            }
        } else {
            let read = |p: DynamicShapeProto| DynamicShape::from_proto(p, registry);
            ConcreteShapes::Dynamic {
                shape: read(proto.dynamic_shape.unwrap_or_default())?,
                shard_shapes: proto
                    .shard_dynamic_shapes
                    .into_iter()
                    .map(read)
                    .collect::<Result<_, _>>()?,
            }
        };
        ConcreteSharding::new(devices, memory_kind, shapes)
    }
}

/// `ConcreteShardingProto.shape`.
const SHAPE_FIELD: u32 = 2;
/// `ConcreteShardingProto.dynamic_shape`.
const DYNAMIC_SHAPE_FIELD: u32 = 5;

/// Which of fields `a` and `b` occurs last at the top level of `message` (bytes prost already
/// decoded, so well formed); `a` if neither.
fn last_of(message: &[u8], a: u32, b: u32) -> u32 {
    let mut buf = message;
    let mut last = a;
    while !buf.is_empty() {
        let Ok((field, wire_type)) = read_key(&mut buf) else {
            break;
        };
        if field == a || field == b {
            last = field;
        }
        if skip_field(wire_type, field, &mut buf).is_err() {
            break;
        }
    }
    last
}

/// An array cut into shards of one shape, one per device (IFRT's `ConcreteEvenSharding`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConcreteEvenSharding {
    devices: Vec<i32>,
    memory_kind: MemoryKind,
    shape: Shape,
    shard_shape: Shape,
    is_fully_replicated: bool,
}

impl ConcreteEvenSharding {
    /// Shards of `shard_shape` of an array of `shape` over `devices` (distinct ids >= 0);
    /// `is_fully_replicated` when every shard is the whole array.
    pub fn new(
        devices: Vec<i32>,
        memory_kind: MemoryKind,
        shape: Shape,
        shard_shape: Shape,
        is_fully_replicated: bool,
    ) -> Result<Self, Error> {
        check_devices(&devices)?;
        Ok(ConcreteEvenSharding {
            devices,
            memory_kind,
            shape,
            shard_shape,
            is_fully_replicated,
        })
    }

    /// The devices.
    pub fn devices(&self) -> &[i32] {
        &self.devices
    }

    /// The memory kind.
    pub fn memory_kind(&self) -> &MemoryKind {
        &self.memory_kind
    }

    /// The whole array's shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Every shard's shape.
    pub fn shard_shape(&self) -> &Shape {
        &self.shard_shape
    }

    /// Whether every shard holds the whole array.
    pub fn is_fully_replicated(&self) -> bool {
        self.is_fully_replicated
    }
}

impl Serializable for ConcreteEvenSharding {}

impl Sharding for ConcreteEvenSharding {
    fn same_as(&self, other: &dyn Sharding) -> bool {
        (other as &dyn Any).downcast_ref::<Self>() == Some(self)
    }
}

impl Codec for ConcreteEvenSharding {
    /// IFRT's name (xla/python/ifrt/sharding_serdes.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::ConcreteEvenSharding";
    const FORMATS: Formats = Formats::new("ConcreteEvenSharding", ONLY_FORMAT);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let version = options.version();
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), version)?;
        let mut proto = ConcreteEvenShardingProto {
            devices: Some(devices_proto(&self.devices, version)?),
            shape: Some(self.shape.proto_at(version)?),
            shard_shape: Some(self.shard_shape.proto_at(version)?),
            memory_kind: None,
            is_fully_replicated: self.is_fully_replicated,
            version_number: format.value(),
        };
        self.memory_kind.encode(&mut proto.memory_kind);
        encode_message(&proto, out);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto: ConcreteEvenShardingProto =
            decode_message(data, options, "ConcreteEvenShardingProto")?;
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        let devices = read_devices(proto.devices, registry)?;
        let memory_kind = MemoryKind::from_field(proto.memory_kind.as_deref());
        let shape = Shape::from_proto(proto.shape.unwrap_or_default(), registry)?;
        let shard_shape = Shape::from_proto(proto.shard_shape.unwrap_or_default(), registry)?;
        ConcreteEvenSharding::new(
            devices,
            memory_kind,
            shape,
            shard_shape,
            proto.is_fully_replicated,
        )
    }
}

/// An array on a set of devices, how it is cut not said (IFRT's `OpaqueSharding`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpaqueSharding {
    devices: Vec<i32>,
    memory_kind: MemoryKind,
}

impl OpaqueSharding {
    /// On `devices` (distinct ids >= 0) in `memory_kind`.
    pub fn new(devices: Vec<i32>, memory_kind: MemoryKind) -> Result<Self, Error> {
        check_devices(&devices)?;
        Ok(OpaqueSharding {
            devices,
            memory_kind,
        })
    }

    /// The devices.
    pub fn devices(&self) -> &[i32] {
        &self.devices
    }

    /// The memory kind.
    pub fn memory_kind(&self) -> &MemoryKind {
        &self.memory_kind
    }
}

impl Serializable for OpaqueSharding {}

impl Sharding for OpaqueSharding {
    fn same_as(&self, other: &dyn Sharding) -> bool {
        (other as &dyn Any).downcast_ref::<Self>() == Some(self)
    }
}

impl Codec for OpaqueSharding {
    /// IFRT's name (xla/python/ifrt/sharding_serdes.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::OpaqueSharding";
    const FORMATS: Formats = Formats::new("OpaqueSharding", ONLY_FORMAT);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let version = options.version();
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), version)?;
        let mut proto = OpaqueShardingProto {
            devices: Some(devices_proto(&self.devices, version)?),
            memory_kind: None,
            version_number: format.value(),
        };
        self.memory_kind.encode(&mut proto.memory_kind);
        encode_message(&proto, out);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto: OpaqueShardingProto = decode_message(data, options, "OpaqueShardingProto")?;
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        let devices = read_devices(proto.devices, registry)?;
        let memory_kind = MemoryKind::from_field(proto.memory_kind.as_deref());
        OpaqueSharding::new(devices, memory_kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn the_shape_last_in_the_bytes_is_the_one_set() {
        let registry = Registry::with_builtin_types(crate::version::SupportedVersions::BUILT_IN);
        let static_part = ConcreteShardingProto {
            devices: Some(crate::generated::xla::ifrt::DeviceListProto {
                version_number: 0,
                device_ids: vec![0],
            }),
            shape: Some(ShapeProto {
                version_number: 0,
                dims: vec![4],
            }),
            shard_shapes: vec![ShapeProto {
                version_number: 0,
                dims: vec![4],
            }],
            ..ConcreteShardingProto::default()
        };
        let tag = BoundedDynamicShapeTagProto {
            is_dynamic_dims: vec![true],
            version_number: 0,
        };
        let dynamic = DynamicShapeProto {
            shape: Some(ShapeProto {
                version_number: 0,
                dims: vec![8],
            }),
            bounded_dynamic_shape_tag: Some(tag),
            version_number: 0,
        };
        let dynamic_part = ConcreteShardingProto {
            dynamic_shape: Some(dynamic.clone()),
            shard_dynamic_shapes: vec![dynamic],
            ..ConcreteShardingProto::default()
        };
        let o = DeserializeOptions::default();
        let read = |bytes: Vec<u8>| ConcreteSharding::deserialize(&bytes, &o, &registry);
        let mut static_last = dynamic_part.encode_to_vec();
        static_last.extend(static_part.encode_to_vec());
        assert!(matches!(
            read(static_last).unwrap().shapes(),
            ConcreteShapes::Static { .. }
        ));
        let mut dynamic_last = static_part.encode_to_vec();
        dynamic_last.extend(dynamic_part.encode_to_vec());
        assert!(matches!(
            read(dynamic_last).unwrap().shapes(),
            ConcreteShapes::Dynamic { .. }
        ));
        let neither = ConcreteShardingProto {
            shape: None,
            ..static_part
        };
        assert_eq!(
            read(neither.encode_to_vec()),
            Err(InvalidValue::ConcreteShardingWithoutShape.into())
        );
    }
}
