//! Values IFRT sends as plain protobuf messages, not through SerDes: [`ProtoCodec`].
//!
//! IFRT serializes a value in one of two ways (xla/python/ifrt/serdes_version.md: "In
//! `ToProto()` or `SerDes::Serialize()`, write the new serialization logic"):
//!
//! - a type registered with SerDes is written into a `Serialized { type_name, data }`
//!   envelope, and the reader's registry picks its deserializer by the name
//!   ([`Codec`](crate::Codec)): the shardings, programs, compile options;
//! - every other type has a `ToProto(SerDesVersion)` / `FromProto` pair, and its message is a
//!   plain field of a larger message. `DType`, `Shape`, `ArraySpec` and `DeviceList` are of this
//!   kind: IFRT Proxy's requests carry a `DTypeProto`, a `ShapeProto`, an `ArraySpecProto` or a
//!   `DeviceListProto` as a field (`MakeArrayFromHostBufferRequest.dtype`, `.shape`...), and
//!   jaxlib 0.10.2's binary registers no SerDes for any of them (it holds no type name
//!   `xla::ifrt::DType` at all).
//!
//! The version rules are the same for both: the writer is given the requested version and
//! records, in the message's own `version_number` field, the oldest format that holds the value
//! (xla/python/ifrt/dtype.cc, shape.cc, array_spec.cc and device_list.cc record
//! `SerDesVersionNumber(0)` whatever the request); nested values get the requested version
//! (an `ArraySpec`'s sharding goes through the registry, in an envelope, as IFRT's
//! `Sharding::ToProto` does); the reader parses each message by the format it records.
//!
//! A [`Registry`] is the entry point here too, since it knows the build's range and the
//! sharding kinds: [`Registry::to_proto`] and [`Registry::to_proto_bytes`] check the requested
//! version first, [`Registry::from_proto_bytes`] checks the input's size first, and
//! [`Registry::inspect_proto_bytes`] lists every value read with its recorded format.
//!
//! Releases of jaxlib before 0.6.2 have no `version_number` field in these messages: their
//! bytes lack it, and read as format 0, which is what they are.

use std::fmt::Debug;

use prost::Message;

use crate::codec::{
    DeserializeOptions, SerializeOptions, check_size, decode_message, encode_message,
};
use crate::error::Error;
use crate::format::{Formats, RecordedFormat, traced};
use crate::registry::Registry;

/// How a type that IFRT sends as a plain protobuf message (IFRT's `ToProto(version)` /
/// `FromProto`) is written and read.
///
/// Implemented by [`DType`](crate::DType), [`Shape`](crate::Shape),
/// [`ArraySpec`](crate::ArraySpec) and [`DeviceList`](crate::DeviceList). Call it through a
/// [`Registry`] ([`Registry::to_proto`], [`Registry::from_proto_bytes`]...), which checks the
/// requested version against the build's range before the type's own code runs.
pub trait ProtoCodec: Debug + Sized {
    /// The message (`DTypeProto`, ...), one of [`schema`](crate::schema)'s.
    type Proto: Message + Default;

    /// The message's full protobuf name (`xla.ifrt.DTypeProto`), as errors name it.
    const PROTO_NAME: &'static str;

    /// The type's own formats: the versions at which its message changed. Nested values have
    /// formats of their own.
    const FORMATS: Formats;

    /// IFRT's `ToProto(version)`: the message for the requested `options.version()`, recording
    /// in its `version_number` the oldest of [`ProtoCodec::FORMATS`] that holds the value.
    /// Nested values get the same options; a nested sharding goes through `registry`.
    fn to_proto(
        &self,
        options: &SerializeOptions,
        registry: &Registry,
    ) -> Result<Self::Proto, Error>;

    /// IFRT's `FromProto`: reads a message by the format recorded in it (and each nested value
    /// by its own), refusing a format `registry`'s build does not read
    /// ([`Registry::read_format`]).
    fn from_proto(proto: Self::Proto, registry: &Registry) -> Result<Self, Error>;

    /// Appends the bytes of [`ProtoCodec::to_proto`]'s message to `out`. A type may override it
    /// to encode without building a new message each time; the bytes must be the same.
    fn write_proto(
        &self,
        options: &SerializeOptions,
        registry: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        encode_message(&self.to_proto(options, registry)?, out);
        Ok(())
    }

    /// Decodes the message from `bytes` and reads it with [`ProtoCodec::from_proto`]. A type may
    /// override it to decode into a reused message; the result must be the same.
    fn read_proto(
        bytes: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto = decode_message::<Self::Proto>(bytes, options, Self::PROTO_NAME)?;
        Self::from_proto(proto, registry)
    }
}

impl Registry {
    /// `value`'s message for the requested version ([`ProtoCodec::to_proto`]), after checking
    /// that the version is of this registry's history and range. Put it in a field of your own
    /// message, as IFRT Proxy does.
    pub fn to_proto<T: ProtoCodec>(
        &self,
        value: &T,
        options: &SerializeOptions,
    ) -> Result<T::Proto, Error> {
        self.check_version(options, T::FORMATS.what())?;
        value.to_proto(options, self)
    }

    /// Reads a message by the format it records ([`ProtoCodec::from_proto`]).
    pub fn from_proto<T: ProtoCodec>(&self, proto: T::Proto) -> Result<T, Error> {
        T::from_proto(proto, self)
    }

    /// [`Registry::to_proto`], then the message's protobuf bytes: a bare message, in no
    /// envelope.
    pub fn to_proto_bytes<T: ProtoCodec>(
        &self,
        value: &T,
        options: &SerializeOptions,
    ) -> Result<Vec<u8>, Error> {
        self.check_version(options, T::FORMATS.what())?;
        let mut out = Vec::new();
        value.write_proto(options, self, &mut out)?;
        Ok(out)
    }

    /// Reads the bytes of a bare `T::Proto` message, refusing inputs over `options.max_bytes`
    /// before parsing. Empty bytes are the message with every field at its default (a
    /// scalar's `ShapeProto` is empty on the wire).
    pub fn from_proto_bytes<T: ProtoCodec>(
        &self,
        bytes: &[u8],
        options: &DeserializeOptions,
    ) -> Result<T, Error> {
        check_size(bytes, options)?;
        T::read_proto(bytes, options, self)
    }

    /// Reads the bytes of a bare message as [`Registry::from_proto_bytes`] does, and also
    /// returns every value met on the way, outer values first, each with its type and the
    /// format recorded for it (when reading stops at a refusal, the refused value is the last
    /// one). This is what `ifrt-serdes inspect --proto` reports.
    pub fn inspect_proto_bytes<T: ProtoCodec>(
        &self,
        bytes: &[u8],
        options: &DeserializeOptions,
    ) -> (Result<T, Error>, Vec<RecordedFormat>) {
        traced(|| self.from_proto_bytes(bytes, options))
    }
}

/// An IFRT type that travels only as a plain message: the name an envelope of it would carry,
/// the type's short name, its message, and the `ifrt-serdes inspect --proto` kind that reads it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PlainProtoType {
    /// The envelope type name (IFRT's `xla::ifrt::` C++ name).
    pub(crate) type_name: &'static str,
    /// The short name, as errors name the type.
    pub(crate) what: &'static str,
    /// The message's protobuf name.
    pub(crate) proto: &'static str,
    /// The tool's `--proto` value for it.
    pub(crate) kind: &'static str,
}

/// IFRT's types that are never in an envelope. Facts: the SerDes type names in jaxlib 0.10.2's
/// binary are those of the shardings, layouts, programs, compile options and executable versions
/// only (none of these four), and the requests its IFRT Proxy client sends carry these messages
/// as plain fields (xla/python/ifrt_proxy/common/ifrt_service.proto), in every release captured
/// from 0.4.36 to 0.10.2 (`tests/data/real/`). The type names are IFRT's C++ class names
/// (xla/python/ifrt/dtype.h, shape.h, array_spec.h, device_list.h).
pub(crate) const PLAIN_PROTO_TYPES: [PlainProtoType; 4] = [
    PlainProtoType {
        type_name: "xla::ifrt::DType",
        what: "DType",
        proto: "xla.ifrt.DTypeProto",
        kind: "dtype",
    },
    PlainProtoType {
        type_name: "xla::ifrt::Shape",
        what: "Shape",
        proto: "xla.ifrt.ShapeProto",
        kind: "shape",
    },
    PlainProtoType {
        type_name: "xla::ifrt::ArraySpec",
        what: "ArraySpec",
        proto: "xla.ifrt.ArraySpecProto",
        kind: "array-spec",
    },
    PlainProtoType {
        type_name: "xla::ifrt::DeviceList",
        what: "DeviceList",
        proto: "xla.ifrt.DeviceListProto",
        kind: "device-list",
    },
];

/// The plain-proto type an envelope named `type_name` would hold, if it names one.
pub(crate) fn plain_proto_type(type_name: &str) -> Option<PlainProtoType> {
    PLAIN_PROTO_TYPES
        .iter()
        .copied()
        .find(|t| t.type_name == type_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ArraySpec, DType, DeviceList, Shape};

    /// The table's facts agree with the types' own.
    #[test]
    fn the_table_names_each_types_message_and_formats() {
        let types = [
            (DType::PROTO_NAME, DType::FORMATS.what()),
            (Shape::PROTO_NAME, Shape::FORMATS.what()),
            (ArraySpec::PROTO_NAME, ArraySpec::FORMATS.what()),
            (DeviceList::PROTO_NAME, DeviceList::FORMATS.what()),
        ];
        for (entry, (proto, what)) in PLAIN_PROTO_TYPES.iter().zip(types) {
            assert_eq!((entry.proto, entry.what), (proto, what));
            assert_eq!(entry.type_name, format!("xla::ifrt::{what}"));
            assert_eq!(plain_proto_type(entry.type_name).unwrap().proto, proto);
        }
        assert!(plain_proto_type("xla::ifrt::SingleDeviceSharding").is_none());
    }
}
