//! IFRT's serialization-version scheme: one global, dated version number, raised whenever any
//! type gets a new format; serialized data records the format each value was written in.
//!
//! # The scheme
//!
//! - **One global version, with dates.** [`version::HISTORY`] lists every version: its number,
//!   the day it was introduced, and what changed. A build supports a range of it,
//!   [`version::SupportedVersions`]: `minimum` (the oldest format it can still read) to
//!   `current`.
//! - **Versions come from accessors, never from bare integers.**
//!   [`version::DefaultVersionAccessor`] gives `current` for ordinary code (and fails under the
//!   `testing-bad-default-version` feature, to prove no path relies on it);
//!   [`week_4_old`](version::SupportedVersions::week_4_old) gives the newest version at least 28
//!   days old, computed from the dates with an injectable [`Clock`];
//!   [`SupportedVersions::version`](version::SupportedVersions::version) gives any version,
//!   range-checked.
//! - **Each type has its own formats; the bytes record the format.** A type's [`Formats`] are
//!   the versions at which *its* format changed (DType: only 0; the shardings: 0 and 2).
//!   [`SerializeOptions`] carry the requested version `R`; the type's [`Codec`] writes its newest
//!   format `F <= R` and records `F`, as IFRT's `ToProto` records `SerDesVersionNumber(0)` for a
//!   type whose format never changed. [`DeserializeOptions`] carry no version: each value,
//!   including every nested one, is parsed by exactly the format recorded in its own bytes, and
//!   refused ("Unsupported IFRT SerDes version N for TYPE deserialization") only if that format
//!   is unknown, newer than the reader's `current`, or superseded at or before its `minimum`.
//!   So a build one version older reads every type whose format did not change since.
//! - **Nested values get the requested version**, not the outer value's format: an
//!   [`ArraySpec`] (format 0) requested at 2 writes its sharding for 2 (format 2) and that
//!   sharding's param for 2 (format 1). [`Registry::inspect_bytes`] lists every nested value
//!   and its recorded format.
//! - **A registry finds codecs by type name.** The [`Registry`] wraps each value in a
//!   `Serialized { type_name, data }` envelope. The sharding family is polymorphic: an
//!   [`ArraySpec`]'s sharding is serialized through the registry with the *requested* version
//!   and read back as whichever registered [`Sharding`] kind its envelope names.
//! - **Two builds agree first.** [`negotiate`] picks the version two builds with different
//!   ranges both support, as IFRT Proxy does, or fails naming both ranges.
//! - **Old formats are removed by raising the minimum**, no earlier than four weeks after
//!   their successor: [`Formats::check_removal`] and
//!   [`SupportedVersions::raise_minimum`](version::SupportedVersions::raise_minimum) enforce the
//!   window. See [`version`] for the steps of adding and removing a format.
//! - **Any project can own a history.** IFRT's dated history is one preset,
//!   [`version::IFRT`]; a [`version::History`] of your own (your dates, your types and codecs)
//!   gets the same accessors, registry, nesting, negotiation and removal rules. The example
//!   `examples/plugin_protocol/` (`cargo run -p ifrt-serdes --example
//!   ifrt-serdes-plugin-protocol`) declares a plugin protocol with four dated versions and two
//!   types, one nested in the other. Errors keep IFRT's wording ("IFRT SerDes version N")
//!   whatever the history.
//!
//! # The types and their format history
//!
//! Modelled on IFRT's, with IFRT's protobuf field numbers (`proto/ifrt/`): [`DType`],
//! [`Shape`], the shardings [`SingleDeviceSharding`] and [`ShardingParamSharding`] (over a
//! [`ShardingParam`]), and [`ArraySpec`] (dtype + shape + any registered sharding). Every
//! message has a `version_number` field.
//!
//! | version | introduced | change | formats introduced |
//! |---|---|---|---|
//! | 0 | 2025-05-20 | initial formats (IFRT's version 0) | format 0 of every type |
//! | 1 | 2026-02-19 | `ShardingParam` gains unreduced axes (IFRT's version 1); format 0 refuses to write a param that has any | `ShardingParam` 1 |
//! | 2 | 2026-06-16 | well-known memory kinds written as an id instead of a name (this crate's own change) | `SingleDeviceSharding` 2, `ShardingParamSharding` 2 |
//!
//! `DType`, `Shape`, `ArraySpec` and the device list keep format 0.
//!
//! # Features
//!
//! - `testing-bad-default-version`: [`version::DefaultVersionAccessor::get`] returns
//!   [`Error::DefaultVersionDisallowed`] (IFRT's `IFRT_TESTING_BAD_DEFAULT_SERDES_VERSION`).
//!   CI runs the whole test suite with it.
//! - `cli`: the `ifrt-serdes` tool (`history`, `inspect`, `negotiate`), see the README.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
//! use ifrt_serdes::{
//!     ArraySpec, DType, DeserializeOptions, MemoryKind, Registry, SerializeOptions, Shape,
//!     SingleDeviceSharding, VersionRange, negotiate,
//! };
//!
//! // A new writer and an older reader that stops at version 1.
//! let writer = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
//! let old = SupportedVersions::new(SerDesVersionNumber::new(0), SerDesVersionNumber::new(1))?;
//! let reader = Registry::with_builtin_types(old);
//!
//! // They agree on a version, and the writer writes it.
//! let agreed = negotiate(VersionRange::from(old), VersionRange::from(writer.supported()))?;
//! let options = SerializeOptions::new(writer.supported().version(agreed)?);
//! let spec = ArraySpec {
//!     dtype: DType::F32,
//!     shape: Shape::new(vec![8, 128])?,
//!     sharding: Arc::new(SingleDeviceSharding::new(0, MemoryKind::device())?),
//! };
//! let bytes = writer.serialize_to_bytes(&spec, &options)?;
//!
//! // The reader needs no version: the bytes say which format they are in.
//! let back: ArraySpec = reader.deserialize_from_bytes(&bytes, &DeserializeOptions::default())?;
//! assert_eq!(back, spec);
//! # Ok::<(), ifrt_serdes::Error>(())
//! ```
//!
//! The tour (`cargo run -p ifrt-serdes --example ifrt-serdes-tour`) tells the whole story.
//!
//! # The API
//!
//! Every item is at the crate root, except two modules of their own:
//!
//! - [`version`]: the dated version numbers, a history ([`version::History`], IFRT's preset
//!   [`version::IFRT`]), a build's supported range, the three accessors and IFRT's history. It is public because it is a family used together and named
//!   often (`version::SerDesVersionNumber`, `version::HISTORY`, `version::MINIMUM`), and because
//!   its documentation is the guide to adding and removing a format.
//! - [`schema`]: the raw protobuf messages (`Serialized`, `DTypeProto`, `ArraySpecProto`...),
//!   as the generated code of every crate of this workspace is named.
//!
//! Every fallible function returns the one [`Error`]. Its variants group the causes into
//! families to match on: [`Incompatible`] (the versions do not fit: IFRT's "Unsupported IFRT
//! SerDes version N for TYPE deserialization" and its kin), [`RegistryError`] (no codec for a
//! value or a name), [`DecodeError`] (bytes that are not a serialized value),
//! [`InvalidValue`] (a value that breaks its type's rules) and [`WindowError`] (the four-week
//! window forbids it: no week-4-old version yet, a minimum raised or a format removed too
//! early).
#![forbid(unsafe_code)]
#![warn(missing_docs, unnameable_types)]

mod array_spec;
mod clock;
mod codec;
mod date;
mod dtype;
mod envelope;
mod error;
mod format;
#[rustfmt::skip]
mod generated;
mod negotiation;
mod registry;
mod shape;
mod sharding;
mod spare;
pub mod version;
mod wire;

// The registry, and what a type implements to go through it.
pub use codec::{Codec, DeserializeOptions, Serializable, SerializeOptions, Sharding};
pub use format::{Formats, RecordedFormat};
pub use registry::Registry;
// IFRT's types: element type, shape, the sharding family, and the array spec built from them.
pub use array_spec::ArraySpec;
pub use dtype::{DTYPE_KINDS, DType};
pub use shape::Shape;
pub use sharding::{
    MEMORY_KIND_ID_SINCE, MemoryKind, ShardingParam, ShardingParamSharding, SingleDeviceSharding,
    UNREDUCED_AXES_SINCE,
};
// Two builds agree on a version (IFRT Proxy).
pub use negotiation::{VersionRange, negotiate};
// Today's date, for the week-4-old version.
pub use clock::{Clock, FixedClock, SystemClock};
pub use date::{CivilDate, DateError};
// Errors.
pub use error::{DecodeError, Error, Incompatible, InvalidValue, RegistryError, WindowError};
pub use wire::{WireError, WireType};

/// The wire schema's raw types, generated from `proto/ifrt/` by `cargo xtask codegen`.
///
/// These are plain prost messages with IFRT's field numbers (package `xla.ifrt`, flattened):
/// the `Serialized` envelope and each type's message (`DTypeProto`, `ShapeProto`,
/// `ShardingParamProto`, `ArraySpecProto`...), each with its `version_number`. The API at the
/// crate root wraps them: a [`Registry`] writes and reads them, and the types convert to and
/// from them (`DType::to_proto`...); use them directly to look inside serialized bytes with
/// [`prost::Message`].
pub mod schema {
    pub use crate::generated::xla::ifrt::*;
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
