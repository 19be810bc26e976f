//! What an array is, without its data: element type, shape and sharding.
//!
//! `ArraySpec` is the crate's nested type. Its own format has never changed (format 0, as
//! IFRT's xla/python/ifrt/array_spec.cc records `SerDesVersionNumber(0)`), but its parts are
//! written with the *requested* version, not with 0: its dtype and shape directly, its sharding
//! through the registry (never with the default version), inside a `Serialized` envelope, so
//! the reader picks the sharding kind by name. On the way back each part is read by the format
//! recorded in its own bytes.

use std::sync::Arc;

use crate::codec::{
    Codec, DeserializeOptions, Serializable, SerializeOptions, Sharding, decode_message,
    encode_message,
};
use crate::dtype::DType;
use crate::error::{DecodeError, Error};
use crate::format::Formats;
use crate::generated::xla::ifrt::ArraySpecProto;
use crate::registry::Registry;
use crate::shape::Shape;
use crate::spare::Spare;
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
    const FORMATS: Formats = Formats::new("ArraySpec", &[SerDesVersionNumber::new(0)]);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        registry: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let version = options.version();
        let format = Self::FORMATS.to_write(version)?;
        ArraySpecProto::with_spare(|proto| {
            proto.version_number = format.value();
            // The parts get the requested version, not this message's format.
            proto.dtype = Some(self.dtype.to_proto(version));
            self.shape
                .fill_proto(version, proto.shape.get_or_insert_default());
            let envelope = proto
                .sharding
                .get_or_insert_default()
                .serialized_sharding
                .get_or_insert_default();
            registry.serialize_envelope_into(self.sharding.as_ref(), options, envelope)?;
            encode_message(proto, out);
            Ok(())
        })
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        const WHAT: &str = "ArraySpec";
        let proto: ArraySpecProto = decode_message(data, options, "ArraySpecProto")?;
        // Format 0 is the only one; each part is read by its own recorded format.
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        let missing = |field| DecodeError::MissingField { what: WHAT, field };
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
