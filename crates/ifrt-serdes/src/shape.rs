//! Static shapes. One format so far, format 0: `{ version_number, dims }` (IFRT's
//! xla/python/ifrt/shape.cc records `SerDesVersionNumber(0)` whatever version is requested).

use crate::codec::{
    Codec, DeserializeOptions, Serializable, SerializeOptions, decode_message, encode_message,
};
use crate::error::{Error, InvalidValue};
use crate::format::Formats;
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

    /// The message for `version`: format 0, the only one so far, for every version.
    pub fn to_proto(&self, version: SerDesVersion) -> ShapeProto {
        let mut proto = ShapeProto::default();
        self.fill_proto(version, &mut proto);
        proto
    }

    /// Overwrites `proto` with the message for `version`, reusing its buffer.
    pub(crate) fn fill_proto(&self, _version: SerDesVersion, proto: &mut ShapeProto) {
        // Format 0, the only one, whatever the version (IFRT's `Shape::ToProto`).
        proto.version_number = Self::FORMATS.oldest().value();
        refill(&mut proto.dims, &self.dims);
    }

    /// Reads a message in any format `registry` supports.
    pub fn from_proto(proto: ShapeProto, registry: &Registry) -> Result<Self, Error> {
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        Shape::new(proto.dims)
    }
}

impl Serializable for Shape {}

impl Codec for Shape {
    const TYPE_NAME: &'static str = "xla::ifrt::Shape";
    const FORMATS: Formats = Formats::new("Shape", &[SerDesVersionNumber::new(0)]);

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
