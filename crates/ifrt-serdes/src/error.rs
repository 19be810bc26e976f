//! The crate's one error type, [`Error`], and the families it groups.
//!
//! As in rustls, the top-level enum is small and each large group of causes is an enum of its
//! own that a caller can match on:
//!
//! - [`Incompatible`]: the versions do not fit, the answer of the scheme itself (data too old or
//!   too new for this build, a value the requested version cannot hold, two builds without a
//!   common version);
//! - [`RegistryError`]: the registry has no codec for a value or a name, or the data holds
//!   another type than the one asked for;
//! - [`DecodeError`]: the bytes are not a readable serialized value;
//! - [`InvalidValue`]: a value breaks its type's rules, whether it was being built or read;
//! - [`WindowError`]: the four-week compatibility window forbids what was asked (no version
//!   is four weeks old yet, or a minimum raise or format removal comes too early).
//!
//! Every family displays as itself: the family variants of [`Error`] are transparent, so
//! `error.to_string()` is the family's message, byte for byte. Messages use IFRT's own words
//! where IFRT has them; each such variant names the IFRT source file its wording comes from. A
//! variant that keeps an underlying error as its [`source`](std::error::Error::source) does not
//! repeat that error's text: print the chain to see both.

use std::fmt::Display;

use jiff::civil::Date;

use crate::format::WriteFloor;
use crate::negotiation::VersionRange;
use crate::version::SerDesVersionNumber;
use crate::wire::{WireError, WireType};

/// Everything that can go wrong when choosing versions, serializing or deserializing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The versions do not fit: this build cannot read or write the version at hand, or two
    /// builds share none.
    #[error(transparent)]
    Incompatible(#[from] Incompatible),

    /// The registry cannot serve the value or type name.
    #[error(transparent)]
    Registry(#[from] RegistryError),

    /// The bytes are not a readable serialized value.
    #[error(transparent)]
    Decode(#[from] DecodeError),

    /// A value breaks its type's rules.
    #[error(transparent)]
    Invalid(#[from] InvalidValue),

    /// The four-week compatibility window forbids it.
    #[error(transparent)]
    Window(#[from] WindowError),

    /// The default version was asked for while the `testing-bad-default-version` feature is on.
    /// Wording: xla/python/ifrt/serdes_default_version_accessor.h.
    #[error(
        "Using a default `SerDesVersion` is disallowed when `testing-bad-default-version` is \
         enabled (IFRT: when `IFRT_TESTING_BAD_DEFAULT_SERDES_VERSION` is defined); pass the \
         requested version explicitly"
    )]
    DefaultVersionDisallowed,

    /// A build's version range is not a valid part of its version history.
    #[error(
        "invalid supported range [{minimum}, {current}] of {history} versions: both ends must be \
         listed in the history and minimum must not exceed current"
    )]
    InvalidRange {
        /// The history's name.
        history: &'static str,
        /// The asked-for minimum.
        minimum: SerDesVersionNumber,
        /// The asked-for current version.
        current: SerDesVersionNumber,
    },

    /// Text that should name a version number does not.
    #[error("invalid version number {input:?}: write it as a whole number, e.g. 2")]
    InvalidVersionNumber {
        /// The offending text (at most its first 32 characters).
        input: String,
    },

    /// A jaxlib release that is not in the measured table of IFRT Proxy clients
    /// ([`JAXLIB_CLIENTS`](crate::JAXLIB_CLIENTS)).
    #[error(
        "no measured IFRT Proxy client for {input:?} (name a release as jaxlib==X.Y.Z); the \
         measured jaxlib releases are {known}"
    )]
    UnknownJaxlibRelease {
        /// The text given (at most its first 40 characters).
        input: String,
        /// The measured releases, oldest first, joined with ", ".
        known: String,
    },
}

/// The versions do not fit. This is the scheme's own verdict, the one a caller most often
/// branches on: the data is fine, but this build (or its peer) cannot use that version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Incompatible {
    /// The data records a format this build cannot read: too new (written by a newer build),
    /// too old (superseded at or before the build's minimum, so its parser was removed), or not
    /// a format of that type at all. The message starts with IFRT's words (e.g.
    /// xla/python/ifrt/dtype.cc, xla/python/ifrt/ir/sharding_param.cc: "Unsupported IFRT SerDes
    /// version N for TYPE deserialization") and says which of the three, with the reader's
    /// range.
    #[error(
        "Unsupported {history} version {} for {what} deserialization: {}",
        version.value(), why.explain(history, what, *version, *minimum, *current)
    )]
    UnsupportedDeserializationVersion {
        /// The history's name (`IFRT SerDes`).
        history: &'static str,
        /// Why the reader refuses it.
        why: Unreadable,
        /// The format version recorded in the data.
        version: SerDesVersionNumber,
        /// The kind of value being read (`DType`, `ShardingParam`...).
        what: &'static str,
        /// The reading build's minimum.
        minimum: SerDesVersionNumber,
        /// The reading build's current version.
        current: SerDesVersionNumber,
    },

    /// The requested version is outside what this build can write. Wording:
    /// xla/python/ifrt/ir/sharding_param.cc.
    #[error("Unsupported {history} version {} for {what} serialization", version.value())]
    UnsupportedSerializationVersion {
        /// The history's name.
        history: &'static str,
        /// The requested version.
        version: SerDesVersionNumber,
        /// The kind of value being written.
        what: &'static str,
    },

    /// The type has a floor of its own for writing ([`WriteFloor`]), and the requested version
    /// is below it, though the build writes other types at it. Wording:
    /// xla/python/ifrt/hlo/hlo_program_serdes.cc ("Unsupported IFRT SerDes version 1 for
    /// HloProgram serialization", IFRT's refusal of a program below its week-4-old version);
    /// the rest says which versions the type is written at.
    #[error(
        "Unsupported {history} version {} for {what} serialization: {}",
        version.value(),
        explain_floor(*floor, *lowest, what)
    )]
    BelowWriteFloor {
        /// The history's name.
        history: &'static str,
        /// The requested version.
        version: SerDesVersionNumber,
        /// The kind of value being written (IFRT's name: `HloProgram`).
        what: &'static str,
        /// The type's floor.
        floor: WriteFloor,
        /// The oldest version this build writes the type at; `None` if none.
        lowest: Option<SerDesVersionNumber>,
    },

    /// The value uses something the requested (older) version cannot express. Wording:
    /// xla/python/ifrt/ir/sharding_param.cc ("ShardingParamProto with IFRT SerDes version 0
    /// does not support `unreduced_axes`").
    #[error(
        "{proto} with {history} version {} does not support `{feature}`; request version {} or \
         newer, or drop `{feature}` from the value",
        version.value(), needed.value()
    )]
    FeatureNeedsNewerVersion {
        /// The history's name.
        history: &'static str,
        /// The message being written.
        proto: &'static str,
        /// The requested version.
        version: SerDesVersionNumber,
        /// The field the value needs.
        feature: &'static str,
        /// The first version that can write it.
        needed: SerDesVersionNumber,
    },

    /// A version number outside the build's `[minimum, current]` range was asked for.
    #[error(
        "{history} version {number} is not supported by this build: supported versions are \
         [{minimum}, {current}]; choose a version inside that range (e.g. by negotiating with \
         the peer)"
    )]
    VersionOutOfRange {
        /// The history's name.
        history: &'static str,
        /// The number asked for.
        number: SerDesVersionNumber,
        /// The build's oldest readable version.
        minimum: SerDesVersionNumber,
        /// The build's newest version.
        current: SerDesVersionNumber,
    },

    /// A version of one history was given to a registry (or a range) of another: version
    /// numbers of two protocols are not comparable, even where they coincide.
    #[error(
        "a {found} version was given to a registry of {expected} versions; take the version \
         from the registry's own range (`Registry::supported`, `Registry::default_options`)"
    )]
    WrongHistory {
        /// The registry's history.
        expected: &'static str,
        /// The version's history.
        found: &'static str,
    },

    /// This build and its peer share no version of their history (see
    /// [`SupportedVersions::agree_with`](crate::version::SupportedVersions::agree_with)).
    #[error(
        "this build and its peer share no {history} version: this build reads [{}, {}], the \
         peer [{}, {}]",
        ours.min.value(), ours.max.value(), peer.min.value(), peer.max.value()
    )]
    NoCommonVersion {
        /// The history's name.
        history: &'static str,
        /// This build's range.
        ours: VersionRange,
        /// The peer's range.
        peer: VersionRange,
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
}

/// Why a type with a floor of its own is not written at a version: the explanation after IFRT's
/// words.
fn explain_floor(floor: WriteFloor, lowest: Option<SerDesVersionNumber>, what: &str) -> String {
    let rule = match floor {
        WriteFloor::Week4Old => {
            "this build's week-4-old version, to which IFRT pins every program it writes"
                .to_string()
        }
        WriteFloor::Version(floor) => format!("{what}'s own floor is version {floor}"),
        WriteFloor::Minimum => "the build's minimum".to_string(),
    };
    match lowest {
        Some(lowest) => format!(
            "{what} is written only at version {lowest} or newer ({rule}); request version \
             {lowest} or newer (negotiate a range that reaches it)"
        ),
        None => format!(
            "{what} is written at no version of this build's range ({rule}: the build has \
             none, or it is above the range)"
        ),
    }
}

/// Why a reader refuses the format recorded in a value's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unreadable {
    /// A newer build wrote it: the recorded number is above the reader's current version.
    TooNew,
    /// It is a format the type had, superseded at (or before) the reader's minimum: its
    /// parser was removed.
    Removed {
        /// The format the recorded number is read as (the number itself, unless the type
        /// reads it as another).
        format: SerDesVersionNumber,
        /// The format that replaced it.
        successor: SerDesVersionNumber,
    },
    /// The type never had that format (the data is damaged, or was written by a codec that
    /// does not follow the history).
    NotAFormat,
}

impl Unreadable {
    /// The explanation after IFRT's words, consistent with the reader's range it prints.
    fn explain(
        self,
        history: &str,
        what: &str,
        version: SerDesVersionNumber,
        minimum: SerDesVersionNumber,
        current: SerDesVersionNumber,
    ) -> String {
        let range = format!("this build reads {history} versions [{minimum}, {current}]");
        let advice = "the writer must request a version both builds support (negotiate one)";
        match self {
            Unreadable::TooNew => {
                format!("{range}, and {version} is newer, written by a newer build; {advice}")
            }
            Unreadable::Removed { format, successor } => {
                let read_as = if format == version {
                    String::new()
                } else {
                    format!(" (which version {version} is read as)")
                };
                format!(
                    "{range}, and {what} format {format}{read_as} was superseded by format \
                     {successor} at or before this build's minimum, so its reader was removed; \
                     {advice}"
                )
            }
            Unreadable::NotAFormat => format!(
                "{what} has no format {version} ({range}): the data is damaged or was not \
                 written by a codec of {what}"
            ),
        }
    }
}

/// The four-week compatibility window (xla/python/ifrt/serdes_version.md, "Removing an Old
/// Format") forbids what was asked: a build up to four weeks old must still read what is written
/// and what is read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WindowError {
    /// No version of the range was introduced at least 28 days before `today`.
    #[error(
        "no {history} version in [{minimum}, {current}] was introduced at least 28 days before \
         {today}: the oldest, {minimum}, was introduced on {introduced}, so a week-4-old version \
         exists from {} on; until then write with a version a peer announced (negotiate one)",
        from.map_or_else(|| "no day jiff's calendar has".to_string(), |day| day.to_string())
    )]
    NoWeek4OldVersion {
        /// The history's name.
        history: &'static str,
        /// The day asked about.
        today: Date,
        /// The range's minimum.
        minimum: SerDesVersionNumber,
        /// The range's current version.
        current: SerDesVersionNumber,
        /// The day the minimum was introduced.
        introduced: Date,
        /// The first day the minimum is four weeks old (`None` past year 9999).
        from: Option<Date>,
    },

    /// Raising the minimum past the week-4-old version would stop builds up to four weeks old
    /// from reading what this build writes, and this build from reading what they write.
    #[error(
        "cannot raise the minimum to {history} version {minimum} on {today}: it is newer than \
         the week-4-old version ({}); builds up to four weeks old could not read its bytes. \
         Raise it to at most the week-4-old version, or {}",
        week_4_old.map_or_else(|| "none yet".to_string(), |v| v.value().to_string()),
        from.map_or_else(
            || "first move the week-4-old version on (it is kept by hand)".to_string(),
            |day| format!("wait until {day}")
        )
    )]
    MinimumAboveWeek4Old {
        /// The history's name.
        history: &'static str,
        /// The minimum asked for.
        minimum: SerDesVersionNumber,
        /// The week-4-old version on `today`, if there is one.
        week_4_old: Option<SerDesVersionNumber>,
        /// The day asked about.
        today: Date,
        /// The first day the raise is allowed; `None` where the week-4-old version is kept by
        /// hand (IFRT), or past year 9999.
        from: Option<Date>,
    },

    /// A format's successor is younger than four weeks, so builds that know only this format
    /// are still inside the window.
    #[error(
        "cannot remove format {format} of {what} on {today}: its successor, format {successor}, \
         was introduced on {introduced}, less than 28 days ago; remove it on {from} or later",
        format = format.value(), successor = successor.value()
    )]
    SuccessorTooYoung {
        /// The type.
        what: &'static str,
        /// The format to remove.
        format: SerDesVersionNumber,
        /// The format that replaces it.
        successor: SerDesVersionNumber,
        /// The day the successor was introduced.
        introduced: Date,
        /// The day asked about.
        today: Date,
        /// The first day the removal is allowed.
        from: Date,
    },

    /// A format without a successor is the one every version from it on writes: it cannot be
    /// removed.
    #[error(
        "cannot remove format {} of {what}: it is not one of its formats, or it is the newest \
         one, which current builds write; add its successor first",
        format.value()
    )]
    NoSuccessor {
        /// The type.
        what: &'static str,
        /// The format asked about.
        format: SerDesVersionNumber,
    },

    /// A version number is not in the history, so it has no date.
    #[error("{history} version {number} is not in the history, so it has no introduction date")]
    UnknownVersion {
        /// The history's name.
        history: &'static str,
        /// The number.
        number: SerDesVersionNumber,
    },
}

/// The registry cannot serve a value or a type name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
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

    /// The data names, as an envelope's type, an IFRT type that IFRT never serializes through
    /// SerDes: it travels as a plain protobuf message inside IFRT's requests (`DType`, `Shape`,
    /// `ArraySpec`, `DeviceList`). Such envelopes were written only by versions of this crate
    /// that invented them. The message starts with IFRT's words for a name no SerDes is
    /// registered for (xla/python/ifrt/serdes.cc).
    #[error(
        "Deserialize call failed. Serializable has no associated SerDes implementation. \
         type_name: {type_name}. IFRT never puts a {what} in a `Serialized` envelope: it sends \
         a plain {proto} message inside its requests. Read that message instead \
         (`Registry::from_proto_bytes::<{what}>`; `ifrt-serdes inspect FILE --proto {kind}`)"
    )]
    SentAsPlainProto {
        /// The type name found in the data.
        type_name: &'static str,
        /// IFRT's short name of the type.
        what: &'static str,
        /// The message the type travels as.
        proto: &'static str,
        /// The `ifrt-serdes inspect --proto` value that reads that message.
        kind: &'static str,
    },

    /// A type or type name was registered twice. Wording: xla/python/ifrt/serdes.cc (a CHECK
    /// there; an error value here).
    #[error("xla::ifrt::SerDes cannot be registered more than once for the same name: {type_name}")]
    AlreadyRegistered {
        /// The type name registered twice.
        type_name: &'static str,
    },

    /// A typed deserialize found data of another type.
    #[error(
        "expected serialized {expected} but the data holds {found}; read it as {found}, or with \
         `Registry::deserialize_dyn`"
    )]
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
}

/// Why bytes could not be read as the serialized value they should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The bytes are not a valid protobuf message of the expected kind (truncated, corrupt, a
    /// length running past the end...).
    #[error("cannot parse {what}: the bytes are damaged, cut short, or not a {what} message")]
    Malformed {
        /// The message being parsed.
        what: &'static str,
        /// What prost reported.
        #[source]
        source: prost::DecodeError,
    },

    /// The same, found by this crate's own reader of the `Serialized` envelope (which borrows
    /// its payload instead of copying it): the wire error says what was wrong, in prost's words.
    #[error("cannot parse {what}: the bytes are damaged, cut short, or not a {what} message")]
    Wire {
        /// The message being parsed.
        what: &'static str,
        /// What was wrong with the encoding.
        #[source]
        source: WireError,
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

    /// A known field arrived with the wrong wire type.
    #[error(
        "field {field} of {what} has wire type {found} but must be {wanted}; the bytes are \
         damaged or not a {what} message"
    )]
    WrongWireType {
        /// The message being read.
        what: &'static str,
        /// The field number.
        field: u32,
        /// The wire type found.
        found: WireType,
        /// The wire type the field needs.
        wanted: WireType,
    },

    /// A field's length runs past the end of the input.
    #[error(
        "field {field} of {what} claims {len} bytes but only {available} remain; the bytes are \
         cut short or damaged"
    )]
    Truncated {
        /// The message being read.
        what: &'static str,
        /// The field number.
        field: u32,
        /// The length the field claims.
        len: u64,
        /// The bytes left in the input.
        available: usize,
    },

    /// A string field does not hold UTF-8.
    #[error("`{field}` of {what} is not valid UTF-8; protobuf strings must be UTF-8")]
    NotUtf8 {
        /// The message being read.
        what: &'static str,
        /// The field.
        field: &'static str,
    },

    /// A required field is absent.
    #[error(
        "{what} is missing its `{field}` field; the data is damaged or was not written by a codec of {what}"
    )]
    MissingField {
        /// The message.
        what: &'static str,
        /// The field.
        field: &'static str,
    },

    /// A program's payload is not MLIR bytecode: it does not start with the magic `ML\xefR`,
    /// a version and a NUL-terminated producer string (mlir/Bytecode's file header; a StableHLO
    /// portable artifact is MLIR bytecode whose producer is e.g. `StableHLO_v1.13.4`).
    #[error("{what} payload is not MLIR bytecode: {why}")]
    NotMlirBytecode {
        /// The program kind (`XlaProgram`).
        what: &'static str,
        /// What is wrong with its header.
        why: &'static str,
    },

    /// The data names an element type this build does not know.
    #[error(
        "unknown DType kind {kind}: none of the kinds this build knows (`DTYPE_KINDS`); the \
         data is damaged or names a kind added after this build"
    )]
    UnknownDType {
        /// The kind number found in the data.
        kind: i32,
    },
}

/// A value breaks its type's rules: when it is built, or when it is read from data.
///
/// Where IFRT checks the same rule, the message is IFRT's (xla/python/ifrt/shape.cc,
/// xla/python/ifrt/ir/sharding_param.cc).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InvalidValue {
    /// A shape has a negative dimension size. Wording: xla/python/ifrt/shape.cc.
    #[error("Shape expects non-negative dimension sizes, but got {dim}")]
    NegativeDimension {
        /// The dimension size.
        dim: i64,
    },

    /// A sharding names a negative device id.
    #[error("device id {device_id} is negative; device ids are >= 0")]
    NegativeDeviceId {
        /// The device id.
        device_id: i32,
    },

    /// A sharding lists a device twice.
    #[error("device {device_id} is listed more than once; each mesh position needs its own device")]
    DuplicateDeviceId {
        /// The device listed twice.
        device_id: i32,
    },

    /// A sharding lists as many devices as its mesh has positions. Wording:
    /// xla/python/ifrt/ir/sharding_param.cc (`ShardingParam::CanApplyTo`).
    #[error(
        "Requires the same amount of `devices` and from `sharding`. Actual: {devices} vs {mesh}"
    )]
    DeviceCountMismatch {
        /// How many devices are listed.
        devices: usize,
        /// How many positions the mesh has.
        mesh: i64,
    },

    /// A param's permutation and axis sizes describe different numbers of mesh axes, or none.
    /// Wording: xla/python/ifrt/ir/sharding_param.cc (`MinorToMajor::verify`).
    #[error(
        "Expect same non-zero size for `permutation` and `axis_sizes`. Actual {permutation} vs \
         {axis_sizes}"
    )]
    AxisCountMismatch {
        /// Entries in `permutation`.
        permutation: usize,
        /// Entries in `axis_sizes`.
        axis_sizes: usize,
    },

    /// A param's permutation names an axis twice. Wording:
    /// xla/python/ifrt/ir/sharding_param.cc (`MinorToMajor::verify`).
    #[error("`permutation` [{}] has duplicate values", join(permutation, ","))]
    DuplicatePermutationAxis {
        /// The permutation.
        permutation: Vec<i32>,
    },

    /// A param's permutation names an axis the mesh does not have. Wording:
    /// xla/python/ifrt/ir/sharding_param.cc (`MinorToMajor::verify`).
    #[error(
        "Out of range axis {axis} to the mesh of [{}] on {}",
        join(permutation, ","),
        join(axis_sizes, "x")
    )]
    PermutationAxisOutOfRange {
        /// The axis.
        axis: i32,
        /// The permutation.
        permutation: Vec<i32>,
        /// The mesh's axis sizes.
        axis_sizes: Vec<i32>,
    },

    /// A mesh axis has no devices.
    #[error("mesh axis size {size} is not positive; every axis holds at least one device")]
    NonPositiveAxisSize {
        /// The axis size.
        size: i32,
    },

    /// A dimension is cut into no shards.
    #[error("dimension shard count {count} is not positive; an unsharded dimension has 1")]
    NonPositiveDimShards {
        /// The shard count.
        count: i64,
    },

    /// The mesh's device count does not fit in IFRT's `int` (xla/python/ifrt/ir/sharding_param.cc,
    /// `NumDevices` and `ToDeviceList`).
    #[error("the mesh has more devices than fit in a 32-bit int")]
    TooManyDevices,

    /// The total shard count does not fit in an `i64`.
    #[error("the total shard count does not fit in an i64")]
    TooManyShards,

    /// The shards cannot be spread evenly over the mesh.
    #[error(
        "{shards} shards do not divide a mesh of {devices} devices; choose dimension shard \
         counts whose product divides the mesh size"
    )]
    ShardsDoNotDivideMesh {
        /// The total shard count.
        shards: i64,
        /// The mesh's device count.
        devices: i64,
    },

    /// A param lists an unreduced axis twice. Wording: xla/python/ifrt/ir/sharding_param.cc
    /// (`ShardingParam::verify`).
    #[error("`unreduced_axes` has duplicate value: {axis}")]
    DuplicateUnreducedAxis {
        /// The axis.
        axis: i32,
    },

    /// A param lists an unreduced axis the mesh does not have. Wording:
    /// xla/python/ifrt/ir/sharding_param.cc (`ShardingParam::verify`).
    #[error(
        "`unreduced_axes` must contain non-negative values less than the number of mesh \
         dimensions (={mesh_axes}). Saw: {axis}"
    )]
    UnreducedAxisOutOfRange {
        /// The axis.
        axis: i32,
        /// The mesh's number of axes.
        mesh_axes: usize,
    },

    /// The product of a param's dimension shard counts does not fit in IFRT's `int`. Wording:
    /// xla/python/ifrt/ir/sharding_param.cc (`ShardingParam::verify`).
    #[error("`dim_shards` product overflows: {}", join(dim_shards, "x"))]
    DimShardsOverflow {
        /// The shard counts.
        dim_shards: Vec<i64>,
    },

    /// An `xla.OpSharding` that XLA's `HloSharding::FromProto` refuses (xla/hlo/ir/hlo_sharding.cc).
    /// Where XLA has words for the rule they are used ("Maximal sharding is expected to have
    /// single device assignment, but 3 has provided."); else the rule XLA checks.
    #[error("invalid xla.OpSharding (XLA's HloSharding::FromProto refuses it): {reason}")]
    OpSharding {
        /// What breaks the rule.
        reason: String,
    },

    /// An `HloSharding` over a named-mesh sharding (XLA's HloShardingV3, `OpSharding` field
    /// `named_sharding`) is read but not written, as IFRT refuses to write it. Wording:
    /// xla/python/pjrt_ifrt/xla_sharding_serdes.cc.
    #[error("HloSharding with XLA HloShardingV3 format is not supported for serialization")]
    HloShardingV3NotSerializable,

    /// A `ConcreteSharding` holds neither a static nor a dynamic shape. Wording:
    /// xla/python/ifrt/sharding_serdes.cc.
    #[error("ConcreteSharding must have Shape or DynamicShape.")]
    ConcreteShardingWithoutShape,

    /// A sharding that must name at least one device names none (IFRT's `ConcreteSharding`
    /// checks it).
    #[error("{what} needs at least one device, and its device list is empty")]
    NoDevices {
        /// The sharding kind.
        what: &'static str,
    },

    /// A `ConcreteSharding` has another number of shard shapes than devices: each device holds
    /// one shard.
    #[error(
        "ConcreteSharding has {shards} shard shapes for {devices} devices; it needs one shard \
         shape per device"
    )]
    ShardCountMismatch {
        /// Shard shapes given.
        shards: usize,
        /// Devices listed.
        devices: usize,
    },

    /// A dynamic shape has no bounded-dynamic tag, the only kind IFRT has. Wording:
    /// xla/python/ifrt/shape.cc.
    #[error("Only support bounded dynamic shape.")]
    UnboundedDynamicShape,

    /// A bounded dynamic shape's tag has another number of dimensions than its shape. Wording:
    /// xla/python/ifrt/shape.cc (`DynamicShape::Create`).
    #[error("Shape and tag must have the same number of dimensions. (shape {dims}, tag {tag})")]
    DynamicShapeTagMismatch {
        /// Dimensions of the shape.
        dims: usize,
        /// Entries of the tag.
        tag: usize,
    },

    /// A bounded dynamic shape's tag marks no dimension dynamic. Wording:
    /// xla/python/ifrt/shape.h (`BoundedDynamicShapeTag`).
    #[error("At least one dimension needs to be dynamically sized.")]
    NoDynamicDimension,

    /// A layout's dimension order is not a permutation of its dimensions `0..n`.
    #[error(
        "{what} `{field}` [{}] is not a permutation of 0..{}: each dimension must appear \
         once",
        join(order, ","), order.len()
    )]
    NotADimensionOrder {
        /// The layout kind (`CompactLayout`, `PjRtLayout`).
        what: &'static str,
        /// The field (`major_to_minor`, `minor_to_major`).
        field: &'static str,
        /// The order found.
        order: Vec<i64>,
    },
}

/// `items` joined with `separator`, as IFRT's `absl::StrJoin` prints them.
fn join(items: &[impl Display], separator: &str) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(separator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_display_as_themselves() {
        let family = Incompatible::UnsupportedDeserializationVersion {
            history: "IFRT SerDes",
            why: Unreadable::TooNew,
            version: SerDesVersionNumber::new(3),
            what: "DType",
            minimum: SerDesVersionNumber::new(0),
            current: SerDesVersionNumber::new(2),
        };
        assert_eq!(Error::from(family.clone()).to_string(), family.to_string());
        assert_eq!(
            family.to_string(),
            "Unsupported IFRT SerDes version 3 for DType deserialization: this build reads IFRT \
             SerDes versions [0, 2], and 3 is newer, written by a newer build; the writer must \
             request a version both builds support (negotiate one)"
        );
        // A transparent family is not its own source: the chain does not repeat it.
        let error = Error::from(family);
        assert!(std::error::Error::source(&error).is_none());
    }

    #[test]
    fn ifrt_wording_of_the_value_rules() {
        assert_eq!(
            InvalidValue::PermutationAxisOutOfRange {
                axis: 2,
                permutation: vec![2, 0],
                axis_sizes: vec![2, 3],
            }
            .to_string(),
            "Out of range axis 2 to the mesh of [2,0] on 2x3"
        );
        assert_eq!(
            InvalidValue::DuplicatePermutationAxis {
                permutation: vec![1, 1]
            }
            .to_string(),
            "`permutation` [1,1] has duplicate values"
        );
        assert_eq!(
            InvalidValue::UnreducedAxisOutOfRange {
                axis: 4,
                mesh_axes: 2
            }
            .to_string(),
            "`unreduced_axes` must contain non-negative values less than the number of mesh \
             dimensions (=2). Saw: 4"
        );
    }

    #[test]
    fn a_malformed_message_keeps_prosts_error_as_its_source() {
        use prost::Message;
        let source =
            crate::generated::xla::ifrt::DTypeProto::decode([0x08].as_slice()).unwrap_err();
        let error = Error::from(DecodeError::Malformed {
            what: "DTypeProto",
            source: source.clone(),
        });
        let cause = std::error::Error::source(&error).expect("prost's error");
        assert_eq!(cause.to_string(), source.to_string());
        assert!(!error.to_string().contains(&source.to_string()));
    }
}
