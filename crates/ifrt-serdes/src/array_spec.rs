//! What an array is, without its data: element type, shape and sharding.
//!
//! `ArraySpec` is the crate's nested type. Its dtype and shape are written in the requested
//! version; its sharding goes through the registry, also with the requested version (never the
//! default), inside a `Serialized` envelope, so the reader picks the sharding kind by name. On
//! the way back each inner value is read by the version recorded in its own bytes.

use std::sync::Arc;

use crate::dtype::DType;
use crate::error::Error;
use crate::generated::xla::ifrt::{ArraySpecProto, ShardingProto};
use crate::registry::{
    Codec, DeserializeOptions, Registry, Serializable, SerializeOptions, Sharding, decode_message,
};
use crate::shape::Shape;
use crate::sharding::{ShardingParamSharding, SingleDeviceSharding};
use crate::version::SerDesVersionNumber;

/// Element type, shape and sharding of an array (IFRT's `ArraySpec`,
/// xla/python/ifrt/array_spec.h).
#[derive(Clone, Debug)]
pub struct ArraySpec {
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Shape,
    /// Any registered kind of sharding.
    pub sharding: Arc<dyn Sharding>,
}

impl PartialEq for ArraySpec {
    fn eq(&self, other: &Self) -> bool {
        self.dtype == other.dtype
            && self.shape == other.shape
            && self.sharding.same_as(other.sharding.as_ref())
    }
}

impl Serializable for ArraySpec {}

impl Codec for ArraySpec {
    const TYPE_NAME: &'static str = "xla::ifrt::ArraySpec";

    fn serialize(&self, options: &SerializeOptions, registry: &Registry) -> Result<Vec<u8>, Error> {
        let version = options.version();
        let sharding = registry.serialize(self.sharding.as_ref(), options)?;
        let proto = ArraySpecProto {
            version_number: version.number().value(),
            dtype: Some(self.dtype.to_proto(version)),
            shape: Some(self.shape.to_proto(version)),
            sharding: Some(ShardingProto {
                serialized_sharding: Some(sharding),
            }),
        };
        Ok(prost::Message::encode_to_vec(&proto))
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        const WHAT: &str = "ArraySpec";
        let proto: ArraySpecProto = decode_message(data, options, "ArraySpecProto")?;
        registry.check_readable(SerDesVersionNumber::new(proto.version_number), WHAT)?;
        let missing = |field| Error::MissingField { what: WHAT, field };
        let dtype = DType::from_proto(&proto.dtype.ok_or_else(|| missing("dtype"))?, registry)?;
        let shape = Shape::from_proto(proto.shape.ok_or_else(|| missing("shape"))?, registry)?;
        let sharding = proto
            .sharding
            .and_then(|s| s.serialized_sharding)
            .ok_or_else(|| missing("sharding"))?;
        let sharding = registry.deserialize_sharding(&sharding, options)?;
        Ok(ArraySpec {
            dtype,
            shape,
            sharding,
        })
    }
}

/// Registers every type of this crate.
pub(crate) fn register_builtin_types(registry: &mut Registry) -> Result<(), Error> {
    registry.register::<DType>()?;
    registry.register::<Shape>()?;
    registry.register_sharding::<SingleDeviceSharding>()?;
    registry.register_sharding::<ShardingParamSharding>()?;
    registry.register::<ArraySpec>()?;
    Ok(())
}
