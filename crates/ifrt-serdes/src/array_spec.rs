//! What an array is, without its data: element type, shape and sharding.
//!
//! `ArraySpec` is the crate's nested type. It travels as a plain `ArraySpecProto` (IFRT Proxy's
//! `MakeArraysFromHostBufferShardsRequest` carries one per spec), never in a SerDes envelope
//! ([`ProtoCodec`]). Its own format has never changed (format 0, as IFRT's
//! xla/python/ifrt/array_spec.cc records `SerDesVersionNumber(0)`; the field `version_number = 5`
//! exists since jaxlib 0.6.2, `layout = 4` since 0.5.3), but its parts are written with the
//! *requested* version, not with 0: its dtype and shape directly, its sharding through the
//! registry (never with the default version), inside a `ShardingProto { Serialized }` envelope,
//! so the reader picks the sharding kind by name. On the way back each part is read by the
//! format recorded in its own bytes. As IFRT's `ArraySpec::FromProto` does, an absent shape
//! reads as the default message (a scalar), and a layout is carried as PjRt's serialized bytes.

use std::sync::Arc;

use crate::codec::{
    DeserializeOptions, SerializeOptions, Sharding, decode_message, decode_message_into,
    encode_message,
};
use crate::dtype::DType;
use crate::error::{DecodeError, Error};
use crate::format::Formats;
use crate::generated::xla::ifrt::{ArraySpecProto, DTypeProto, Serialized, ShapeProto};
use crate::proto_codec::ProtoCodec;
use crate::registry::Registry;
use crate::shape::Shape;
use crate::spare::{Spare, refill};
use crate::version::SerDesVersionNumber;

/// The limits for a sharding nested in a message already decoded: none. The size limit is for
/// bytes from outside, checked before they are parsed; a decoded message is already in memory.
const NESTED: DeserializeOptions = DeserializeOptions {
    max_bytes: usize::MAX,
};

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
    /// The layout, as PjRt serializes it (`PjRtLayout::Serialize`); `None` for the default
    /// layout. This crate does not look inside it.
    pub layout: Option<Vec<u8>>,
}

impl PartialEq for ArraySpec {
    fn eq(&self, other: &Self) -> bool {
        self.dtype == other.dtype
            && self.shape == other.shape
            && self.sharding.same_as(other.sharding.as_ref())
            && self.layout == other.layout
    }
}

impl ArraySpec {
    /// Overwrites `proto` with the message for `options`, reusing its buffers.
    fn fill_proto(
        &self,
        options: &SerializeOptions,
        registry: &Registry,
        proto: &mut ArraySpecProto,
    ) -> Result<(), Error> {
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), options.version())?;
        proto.version_number = format.value();
        // The parts get the requested version, not this message's format.
        proto.dtype = Some(self.dtype.to_proto(options, registry)?);
        self.shape
            .fill_proto(options, proto.shape.get_or_insert_default())?;
        let envelope = proto
            .sharding
            .get_or_insert_default()
            .serialized_sharding
            .get_or_insert_default();
        registry.serialize_envelope_into(self.sharding.as_ref(), options, envelope)?;
        match (&self.layout, &mut proto.layout) {
            (Some(layout), Some(spare)) => refill(spare, layout),
            (layout, field) => *field = layout.clone(),
        }
        Ok(())
    }
}

impl ProtoCodec for ArraySpec {
    type Proto = ArraySpecProto;
    const PROTO_NAME: &'static str = "xla.ifrt.ArraySpecProto";
    const FORMATS: Formats = Formats::new("ArraySpec", &[SerDesVersionNumber::new(0)]);

    fn to_proto(
        &self,
        options: &SerializeOptions,
        registry: &Registry,
    ) -> Result<ArraySpecProto, Error> {
        let mut proto = ArraySpecProto::default();
        self.fill_proto(options, registry, &mut proto)?;
        Ok(proto)
    }

    fn from_proto(proto: ArraySpecProto, registry: &Registry) -> Result<Self, Error> {
        let envelope = proto.sharding.and_then(|s| s.serialized_sharding);
        let parts = (proto.dtype, proto.shape, envelope.as_ref(), proto.layout);
        Self::read(proto.version_number, parts, &NESTED, registry)
    }

    fn write_proto(
        &self,
        options: &SerializeOptions,
        registry: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        ArraySpecProto::with_spare(|proto| {
            self.fill_proto(options, registry, proto)?;
            encode_message(proto, out);
            Ok(())
        })
    }

    fn read_proto(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        // The thread's spare message lends its nested envelope's buffers: the sharding's type
        // name and bytes are decoded into them instead of into new ones. Its shape (the spare
        // of `write_proto`) is set aside meanwhile, so a decoded shape gives its `dims` to the
        // new `Shape` and the spare keeps its own for the next write.
        ArraySpecProto::with_spare(|proto| {
            let kept_shape = proto.shape.take();
            proto.version_number = 0;
            proto.dtype = None;
            proto.layout = None;
            let envelope = proto
                .sharding
                .get_or_insert_default()
                .serialized_sharding
                .get_or_insert_default();
            envelope.type_name.clear();
            envelope.data.clear();
            let decoded = decode_message_into(proto, data, options, Self::PROTO_NAME);
            let shape = std::mem::replace(&mut proto.shape, kept_shape);
            decoded?;
            let envelope = proto
                .sharding
                .as_ref()
                .and_then(|s| s.serialized_sharding.as_ref())
                .filter(|e| !e.type_name.is_empty() || !e.data.is_empty());
            let Some(envelope) = envelope else {
                // An empty envelope may also be an absent one, which the spare cannot tell
                // apart: decode afresh, to report exactly what is missing.
                let proto: ArraySpecProto = decode_message(data, options, Self::PROTO_NAME)?;
                let envelope = proto.sharding.and_then(|s| s.serialized_sharding);
                let parts = (proto.dtype, proto.shape, envelope.as_ref(), proto.layout);
                return Self::read(proto.version_number, parts, options, registry);
            };
            let parts = (proto.dtype, shape, Some(envelope), proto.layout.take());
            Self::read(proto.version_number, parts, options, registry)
        })
    }
}

impl ArraySpec {
    /// Reads the fields of a decoded message, each part by its own recorded format.
    fn read(
        version_number: i32,
        (dtype, shape, sharding, layout): Parts<'_>,
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        const WHAT: &str = "ArraySpec";
        // Format 0 is the only one; each part is read by its own recorded format.
        registry.read_format(&Self::FORMATS, version_number)?;
        let missing = |field| DecodeError::MissingField { what: WHAT, field };
        let dtype = DType::from_proto(dtype.ok_or_else(|| missing("dtype"))?, registry)?;
        // IFRT's `FromProto` reads an absent shape as the default message: a scalar.
        let shape = Shape::from_proto(shape.unwrap_or_default(), registry)?;
        let sharding = sharding.ok_or_else(|| missing("sharding"))?;
        let sharding = registry.deserialize_sharding(sharding, options)?;
        Ok(ArraySpec {
            dtype,
            shape,
            sharding,
            layout,
        })
    }
}

/// The fields of a decoded `ArraySpecProto`: dtype, shape, sharding envelope and layout.
type Parts<'a> = (
    Option<DTypeProto>,
    Option<ShapeProto>,
    Option<&'a Serialized>,
    Option<Vec<u8>>,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::xla::ifrt::{DTypeProto, ShardingProto};
    use crate::version::SupportedVersions;
    use prost::Message;

    /// What `deserialize` must give: the message decoded afresh, then read.
    fn fresh(data: &[u8], registry: &Registry) -> Result<ArraySpec, Error> {
        let options = DeserializeOptions::default();
        let proto: ArraySpecProto = decode_message(data, &options, ArraySpec::PROTO_NAME)?;
        let envelope = proto.sharding.and_then(|s| s.serialized_sharding);
        let parts = (proto.dtype, proto.shape, envelope.as_ref(), proto.layout);
        ArraySpec::read(proto.version_number, parts, &options, registry)
    }

    #[test]
    fn the_spare_reads_as_a_fresh_message_does() {
        let registry = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
        let options = SerializeOptions::new(SupportedVersions::BUILT_IN.current());
        let sharding = crate::sharding::SingleDeviceSharding::new(3, Default::default()).unwrap();
        let envelope = registry.serialize(&sharding, &options).unwrap();
        let valid = ArraySpecProto {
            version_number: 0,
            dtype: Some(DTypeProto {
                version_number: 0,
                kind: DType::F32.kind_number(),
            }),
            shape: Some(ShapeProto {
                version_number: 0,
                dims: vec![2, 3],
            }),
            sharding: Some(ShardingProto {
                serialized_sharding: Some(envelope.clone()),
            }),
            layout: Some(vec![1, 2, 3]),
        };
        let with_sharding = |sharding| ArraySpecProto {
            sharding,
            ..valid.clone()
        };
        let empty = Serialized::default();
        let unnamed = Serialized {
            type_name: String::new(),
            ..envelope.clone()
        };
        let mut twice = valid.encode_to_vec();
        twice.extend(valid.encode_to_vec());
        let cases = [
            valid.encode_to_vec(),
            twice,
            ArraySpecProto {
                layout: None,
                ..valid.clone()
            }
            .encode_to_vec(),
            with_sharding(None).encode_to_vec(),
            with_sharding(Some(ShardingProto::default())).encode_to_vec(),
            with_sharding(Some(ShardingProto {
                serialized_sharding: Some(empty),
            }))
            .encode_to_vec(),
            with_sharding(Some(ShardingProto {
                serialized_sharding: Some(unnamed),
            }))
            .encode_to_vec(),
            ArraySpecProto {
                shape: None,
                ..valid.clone()
            }
            .encode_to_vec(),
            ArraySpecProto::default().encode_to_vec(),
            vec![0xff],
        ];
        // Each case after every other, so the spare holds what any case left in it.
        for before in &cases {
            for case in &cases {
                let _ = ArraySpec::read_proto(before, &DeserializeOptions::default(), &registry);
                let read = ArraySpec::read_proto(case, &DeserializeOptions::default(), &registry);
                assert_eq!(read, fresh(case, &registry), "{case:?} after {before:?}");
            }
        }
        // Writing after reading leaves the bytes as they were.
        let spec = ArraySpec::read_proto(&cases[0], &DeserializeOptions::default(), &registry);
        let spec = spec.unwrap();
        let written = registry.to_proto_bytes(&spec, &options).unwrap();
        assert_eq!(written, cases[0]);
        for case in &cases {
            let _ = ArraySpec::read_proto(case, &DeserializeOptions::default(), &registry);
            assert_eq!(registry.to_proto_bytes(&spec, &options).unwrap(), written);
        }
        // The message built afresh is the same.
        assert_eq!(
            registry.to_proto(&spec, &options).unwrap().encode_to_vec(),
            written
        );
    }
}
