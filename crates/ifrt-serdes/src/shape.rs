//! Static shapes. One format in every version so far: `{ version_number, dims }`.

use crate::codec::{
    Codec, DeserializeOptions, Serializable, SerializeOptions, decode_message, encode_message,
};
use crate::error::{Error, InvalidValue};
use crate::generated::xla::ifrt::ShapeProto;
use crate::registry::Registry;
use crate::spare::{Spare, refill};
use crate::version::{SerDesVersion, SerDesVersionNumber};

/// A static shape: every dimension size is at least 0 (xla/python/ifrt/shape.proto).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Shape {
    dims: Vec<i64>,
}

impl Shape {
    /// The shape with `dims`, or [`InvalidValue::NegativeDimension`] if a size is negative.
    pub fn new(dims: Vec<i64>) -> Result<Self, Error> {
        if let Some(&dim) = dims.iter().find(|d| **d < 0) {
            return Err(InvalidValue::NegativeDimension { dim }.into());
        }
        Ok(Shape { dims })
    }

    /// The dimension sizes.
    pub fn dims(&self) -> &[i64] {
        &self.dims
    }

    /// The message for `version`. Every version writes the same fields.
    pub fn to_proto(&self, version: SerDesVersion) -> ShapeProto {
        ShapeProto {
            version_number: version.number().value(),
            dims: self.dims.clone(),
        }
    }

    /// Overwrites `proto` with the message for `version`, reusing its buffer.
    pub(crate) fn fill_proto(&self, version: SerDesVersion, proto: &mut ShapeProto) {
        proto.version_number = version.number().value();
        refill(&mut proto.dims, &self.dims);
    }

    /// Reads a message of any version `registry` supports.
    pub fn from_proto(proto: ShapeProto, registry: &Registry) -> Result<Self, Error> {
        registry.check_readable(SerDesVersionNumber::new(proto.version_number), "Shape")?;
        Shape::new(proto.dims)
    }
}

impl Serializable for Shape {}

impl Codec for Shape {
    const TYPE_NAME: &'static str = "xla::ifrt::Shape";

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        ShapeProto::with_spare(|proto| {
            self.fill_proto(options.version(), proto);
            encode_message(proto, out);
        });
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto = decode_message::<ShapeProto>(data, options, "ShapeProto")?;
        Shape::from_proto(proto, registry)
    }
}
