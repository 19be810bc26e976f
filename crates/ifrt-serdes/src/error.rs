//! The crate's one error type. Messages use IFRT's own words where IFRT has them; each variant
//! names the IFRT source file its wording comes from.

use crate::date::DateError;
use crate::negotiation::VersionRange;
use crate::version::SerDesVersionNumber;

/// Everything that can go wrong when choosing versions, serializing or deserializing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The default version was asked for while the `testing-bad-default-version` feature is on.
    /// Wording: xla/python/ifrt/serdes_default_version_accessor.h.
    #[error(
        "Using a default `SerDesVersion` is disallowed when `testing-bad-default-version` is \
         enabled (IFRT: when `IFRT_TESTING_BAD_DEFAULT_SERDES_VERSION` is defined); pass the \
         requested version explicitly"
    )]
    DefaultVersionDisallowed,

    /// A version number outside the build's `[minimum, current]` range was asked for.
    #[error(
        "{number} is not supported by this build: supported versions are [{minimum}, {current}]; \
         choose a version inside that range (e.g. by negotiating with the peer)"
    )]
    VersionOutOfRange {
        /// The number asked for.
        number: SerDesVersionNumber,
        /// The build's oldest readable version.
        minimum: SerDesVersionNumber,
        /// The build's newest version.
        current: SerDesVersionNumber,
    },

    /// A build's version range is not a valid part of the version history.
    #[error(
        "invalid supported range [{minimum}, {current}]: both ends must be listed in the version \
         history and minimum must not exceed current"
    )]
    InvalidRange {
        /// The asked-for minimum.
        minimum: SerDesVersionNumber,
        /// The asked-for current version.
        current: SerDesVersionNumber,
    },

    /// The value's type has no serializer in this registry. Wording: xla/python/ifrt/serdes.cc.
    #[error(
        "Serialize call failed. Serializable has no associated SerDes implementation \
         (register the type with `Registry::register` first)"
    )]
    NoSerDesForValue,

    /// The data names a type this registry cannot read. Wording: xla/python/ifrt/serdes.cc.
    #[error(
        "Deserialize call failed. Serializable has no associated SerDes implementation. \
         type_name: {type_name}"
    )]
    NoSerDesForTypeName {
        /// The type name found in the data.
        type_name: String,
    },

    /// A type or type name was registered twice. Wording: xla/python/ifrt/serdes.cc (a CHECK
    /// there; an error value here).
    #[error("xla::ifrt::SerDes cannot be registered more than once for the same name: {type_name}")]
    AlreadyRegistered {
        /// The type name registered twice.
        type_name: &'static str,
    },

    /// The data was written in a version this build cannot read (too old: its format was
    /// removed; or too new: written by a newer build). Wording: e.g. xla/python/ifrt/dtype.cc,
    /// xla/python/ifrt/ir/sharding_param.cc.
    #[error("Unsupported {version} for {what} deserialization")]
    UnsupportedDeserializationVersion {
        /// The version recorded in the data.
        version: SerDesVersionNumber,
        /// The kind of value being read (`DType`, `ShardingParam`...).
        what: &'static str,
    },

    /// The requested version is outside what this build can write. Wording:
    /// xla/python/ifrt/ir/sharding_param.cc.
    #[error("Unsupported {version} for {what} serialization")]
    UnsupportedSerializationVersion {
        /// The requested version.
        version: SerDesVersionNumber,
        /// The kind of value being written.
        what: &'static str,
    },

    /// The value uses something the requested (older) version cannot express. Wording:
    /// xla/python/ifrt/ir/sharding_param.cc ("ShardingParamProto with IFRT SerDes version 0
    /// does not support `unreduced_axes`").
    #[error(
        "{proto} with {version} does not support `{feature}`; request {needed} or newer, or \
         drop `{feature}` from the value"
    )]
    FeatureNeedsNewerVersion {
        /// The message being written.
        proto: &'static str,
        /// The requested version.
        version: SerDesVersionNumber,
        /// The field the value needs.
        feature: &'static str,
        /// The first version that can write it.
        needed: SerDesVersionNumber,
    },

    /// The bytes are not a valid protobuf message of the expected kind (truncated, corrupt,
    /// a length running past the end...).
    #[error("cannot parse {what} from its serialized bytes: {reason}")]
    Malformed {
        /// The message being parsed.
        what: &'static str,
        /// What prost reported.
        reason: String,
    },

    /// The input is larger than the caller's limit; nothing was parsed.
    #[error(
        "serialized input of {len} bytes exceeds the limit of {limit} bytes; raise \
         `DeserializeOptions::max_bytes` if the input is trusted"
    )]
    TooLarge {
        /// Input length.
        len: usize,
        /// The limit in force.
        limit: usize,
    },

    /// A typed deserialize found data of another type.
    #[error("expected serialized {expected} but the data holds {found}")]
    WrongType {
        /// The type asked for.
        expected: &'static str,
        /// The type name found in the data.
        found: String,
    },

    /// A sharding was expected but the type is registered as something else.
    #[error("{type_name} is not registered as a sharding; register it with `register_sharding`")]
    NotASharding {
        /// The type name found in the data.
        type_name: String,
    },

    /// A required field is absent.
    #[error("{what} is missing its `{field}` field")]
    MissingField {
        /// The message.
        what: &'static str,
        /// The field.
        field: &'static str,
    },

    /// A value breaks its type's rules (on construction or in decoded data).
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// The kind of value.
        what: &'static str,
        /// What is wrong.
        reason: String,
    },

    /// The two builds' version ranges do not overlap. Wording:
    /// xla/python/ifrt_proxy/server/version.cc (there for the protocol version; IFRT Proxy
    /// negotiates the IFRT SerDes version the same way).
    #[error(
        "IFRT Proxy client and server failed to agree on the IFRT SerDes version; supported \
         versions: client = [{}, {}], server = [{}, {}]",
        client.min.value(), client.max.value(), server.min.value(), server.max.value()
    )]
    NegotiationFailed {
        /// The client's `[min, max]`.
        client: VersionRange,
        /// The server's `[min, max]`.
        server: VersionRange,
    },

    /// A calendar date does not exist or could not be parsed.
    #[error(transparent)]
    Date(#[from] DateError),
}
