//! Static shapes. One format so far, format 0: `{ dims = 1, version_number = 2 }`
//! (xla/python/ifrt/shape.proto; `version_number` since jaxlib 0.6.2, absent before). IFRT's
//! `Shape::ToProto` (xla/python/ifrt/shape.cc) records `SerDesVersionNumber(0)` whatever version
//! is requested, and `FromProto` refuses every other number. A `Shape` travels as a plain
//! `ShapeProto`, never in a SerDes envelope ([`ProtoCodec`]); a scalar's is empty on the wire.

use crate::codec::{SerializeOptions, encode_message};
use crate::error::{Error, InvalidValue};
use crate::format::Formats;
use crate::generated::xla::ifrt::ShapeProto;
use crate::proto_codec::ProtoCodec;
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
    #[inline]
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

    /// Overwrites `proto` with the message for `options`, reusing its buffer.
    /// The message for `version`, for the values that nest a shape in their own message
    /// (`ConcreteSharding`'s shapes): what [`ProtoCodec::to_proto`] writes, without a registry.
    pub(crate) fn proto_at(&self, version: SerDesVersion) -> Result<ShapeProto, Error> {
        let mut proto = ShapeProto::default();
        self.fill_proto(&SerializeOptions::new(version), &mut proto)?;
        Ok(proto)
    }

    pub(crate) fn fill_proto(
        &self,
        options: &SerializeOptions,
        proto: &mut ShapeProto,
    ) -> Result<(), Error> {
        // Format 0, the only one, whatever the version (IFRT's `Shape::ToProto`).
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), options.version())?;
        proto.version_number = format.value();
        refill(&mut proto.dims, &self.dims);
        Ok(())
    }
}

impl ProtoCodec for Shape {
    type Proto = ShapeProto;
    const PROTO_NAME: &'static str = "xla.ifrt.ShapeProto";
    const FORMATS: Formats = Formats::new("Shape", &[SerDesVersionNumber::new(0)]);

    fn to_proto(&self, options: &SerializeOptions, _: &Registry) -> Result<ShapeProto, Error> {
        let mut proto = ShapeProto::default();
        self.fill_proto(options, &mut proto)?;
        Ok(proto)
    }

    #[inline]
    fn from_proto(proto: ShapeProto, registry: &Registry) -> Result<Self, Error> {
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        Shape::new(proto.dims)
    }

    fn write_proto(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        ShapeProto::with_spare(|proto| {
            self.fill_proto(options, proto)?;
            encode_message(proto, out);
            Ok(())
        })
    }
}
