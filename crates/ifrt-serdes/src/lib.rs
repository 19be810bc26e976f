//! IFRT's serialization-version scheme: one global, dated version number, raised whenever any
//! type gets a new format; serialized data records the format each value was written in.
//!
//! # The scheme
//!
//! - **One global version, with dates, per protocol.** A [`version::History`] lists every
//!   version of one protocol: its number, the day it was introduced, and what changed. IFRT's
//!   is the preset [`version::IFRT`] (exactly xla/python/ifrt/serdes_version.h); a project
//!   declares its own. A build supports a range of it, [`version::SupportedVersions`]:
//!   `minimum` (the oldest format it can still read) to `current`.
//! - **Versions come from accessors, never from bare integers**, and carry their history. The
//!   default ([`SupportedVersions::default_version`](version::SupportedVersions::default_version),
//!   `current`; it fails under the `testing-bad-default-version` feature, to prove no path
//!   relies on it), week-4-old
//!   ([`week_4_old`](version::SupportedVersions::week_4_old): IFRT keeps it by hand, at 3; a
//!   history of your own may compute it from the dates with an injectable [`Clock`]) and any
//!   version ([`SupportedVersions::version`](version::SupportedVersions::version),
//!   range-checked). A registry refuses a version of another history, takes its defaults from
//!   its own ([`Registry::default_options`]), and every message names the history ("IFRT SerDes
//!   version 2", "plugin protocol version 3").
//! - **Each value records the oldest format that holds it.** A type's [`Formats`] are the
//!   versions at which *its* format changed (in IFRT: `ShardingParam` at 1, when it gained
//!   unreduced axes; every other type has only format 0). [`SerializeOptions`] carry the
//!   requested version `R`, which bounds the features a value may use; the bytes record the
//!   oldest format whose reader reads them, as IFRT's `ToProto` does: a `ShardingParam` records
//!   1 only when it has unreduced axes, 0 otherwise, whatever `R`, so a build that knows only
//!   format 0 reads it. [`DeserializeOptions`] carry no version: each value, including every
//!   nested one, is parsed by the format recorded in its own bytes, and refused ("Unsupported
//!   IFRT SerDes version N for TYPE deserialization", with the reason and the reader's range)
//!   only if the number is newer than the reader's `current`, names no format of the type, or
//!   names a format superseded at or before its `minimum`. What IFRT accepts is accepted: a
//!   `ShardingParam` recorded as 2 (IFRT once wrote 2 where it meant 1) reads as format 1.
//! - **A type can have a floor of its own for writing**, beside the build's range
//!   ([`WriteFloor`], [`Codec::WRITE_FLOOR`]): IFRT pins its programs (`xla::ifrt::XlaProgram`)
//!   to the build's week-4-old version and refuses a lower request with "Unsupported IFRT
//!   SerDes version 1 for HloProgram serialization"
//!   ([`Incompatible::BelowWriteFloor`]), though the build reads from its minimum on.
//!   [`Registry::lowest_writable`] tells the oldest version a type is written at.
//! - **Nested values get the requested version**, not the outer value's format: an
//!   [`ArraySpec`] (format 0) requested at 2 writes its sharding for 2, and that sharding its
//!   param for 2. [`Registry::inspect_bytes`] and [`Registry::inspect_proto_bytes`] list every
//!   nested value and its recorded format.
//! - **Two ways onto the wire, as in IFRT.** A type registered with SerDes (the shardings) is
//!   wrapped in a `Serialized { type_name, data }` envelope, and the reader's [`Registry`] finds
//!   its [`Codec`] by the name. The sharding family is polymorphic: an [`ArraySpec`]'s sharding
//!   is serialized through the registry with the *requested* version and read back as
//!   whichever registered [`Sharding`] kind its envelope names. A type with a
//!   `ToProto(version)` / `FromProto` pair instead ([`DType`], [`Shape`], [`ArraySpec`],
//!   [`DeviceList`]) travels as a plain message inside a larger one, as IFRT Proxy's requests
//!   carry them, recording its format in its own `version_number` ([`ProtoCodec`]:
//!   [`Registry::to_proto`], [`Registry::from_proto_bytes`]).
//!
//!   Where this crate's earlier design differed from XLA, XLA wins: the seed's picture of "the
//!   serialized data" led earlier versions to wrap these four types in envelopes named
//!   `xla::ifrt::DType`, `xla::ifrt::Shape`... of their own invention, but real IFRT registers no
//!   SerDes for them (jaxlib 0.10.2's binary holds no such name) and never sends them that way.
//!   A registry now refuses such an envelope, naming the plain message to read instead
//!   ([`RegistryError::SentAsPlainProto`]).
//! - **Two builds agree first.** [`negotiate`] picks the version two builds with different
//!   ranges both support, as IFRT Proxy does, or fails naming both ranges;
//!   [`SupportedVersions::agree_with`](version::SupportedVersions::agree_with) does the same
//!   for a build of any history and returns a version of it.
//! - **Which clients exist.** [`JAXLIB_CLIENTS`] lists every jaxlib release's IFRT Proxy client
//!   (0.4.31 ... the newest on PyPI), measured by running each: the proxy protocol and IFRT
//!   SerDes ranges its `GetVersion` request offers (no SerDes range at all up to 0.6.x, `[0, 0]`
//!   from 0.7.0 to 0.9.0.1), and the lowest version at which its `jit` still sends a program
//!   ([`JaxlibClient::program_floor`]: jaxlib 0.10.2 offers `[0, 3]` but writes programs only
//!   at 3). [`jaxlib_client`]`("jaxlib==0.9.2")` finds one.
//! - **Old formats are removed by raising the minimum**, no earlier than four weeks after
//!   their successor: [`Formats::check_removal`] and
//!   [`SupportedVersions::raise_minimum`](version::SupportedVersions::raise_minimum) enforce the
//!   window. See [`version`] for the steps of adding and removing a format.
//! - **Any project can own a history.** The example `examples/plugin_protocol/` (`cargo run -p
//!   ifrt-serdes --example ifrt-serdes-plugin-protocol`) declares a plugin protocol with five
//!   dated versions (two on the same day) and three types, one nested in another, and the
//!   memory-kind extension (well-known memory kinds written as ids) that IFRT does not have.
//!
//! # IFRT's types and their format history
//!
//! With IFRT's protobuf schemas (`proto/ifrt/`, field numbers as compiled into jaxlib):
//! the plain messages [`DType`], [`Shape`], [`DeviceList`] and [`ArraySpec`] (dtype + shape +
//! any registered sharding + an opaque layout), which IFRT sends without an envelope, and every
//! value IFRT itself serializes in an envelope, under its real SerDes name (`xla::ifrt::<Name>`,
//! as compiled into jaxlib 0.10.2):
//!
//! - the shardings: [`SingleDeviceSharding`], [`ShardingParamSharding`] (over a
//!   [`ShardingParam`]), [`HloSharding`] (XLA's `OpSharding` over a device list: what real jax
//!   clients send from jaxlib 0.5.3 on), [`ConcreteSharding`] (a shape per shard, static or
//!   [`DynamicShape`]; sent up to jaxlib 0.4.38), [`ConcreteEvenSharding`] and
//!   [`OpaqueSharding`];
//! - the layouts [`CompactLayout`] and [`PjRtLayout`] (XLA's `LayoutProto`);
//! - what a compile request carries: [`XlaProgram`] (MLIR bytecode of a StableHLO portable
//!   artifact; the crate reads its header, the producer such as `StableHLO_v1.13.4`, and keeps
//!   the bytecode) and [`XlaCompileOptions`] (kept as raw bytes).
//!
//! XLA's own messages that travel inside them (`OpSharding`, `LayoutProto`) are written in
//! `proto/ifrt/xla_data.proto` with XLA's field numbers; what the crate reads is written back
//! byte for byte. Every IFRT message has a `version_number` field (from jaxlib 0.6.2 on; absent
//! before, which reads as 0); a program and compile options record none, and read as format 0.
//!
//! | version | introduced | change (serdes_version.h) | formats introduced |
//! |---|---|---|---|
//! | 0 | 2025-05-20 | initial version | format 0 of every type |
//! | 1 | 2026-02-19 | added support for unreduced axes in ShardingParam | `ShardingParam` 1 (recorded only by a param with unreduced axes) |
//! | 2 | 2026-04-06 | ShardingParamSharding is not created anymore by IFRT IR | none of these types (a change in what IFRT IR produces) |
//! | 3 | 2026-04-09 | Allowed mixed serialization for stablehlo dialects | none recorded: a program written at 3 may mix StableHLO dialect versions, and its bytes say nothing of it |
//! | 4 | 2026-07-16 (at the latest) | measured, not read: `XlaCompileOptions` records format 4, which may carry `outputs_bundle_slice_sizes` | `XlaCompileOptions` 4 (written whenever the version allows it, as real clients do) |
//! | 5 | 2026-08-17 (at the latest) | not in a header read: `AbstractArraySpec` is introduced, written only at 5 or newer (XLA's abstract_array_spec.cc) | none of this crate's types |
//! | 6 | 2026-09-17 (at the latest) | not in a header read: `RemapPlan` records format 6, without the `mappings` list older formats carry (XLA's remap_plan.cc) | none of this crate's types |
//!
//! Versions 0 to 3 are those of the newest serdes_version.h read (openxla/xla 3f7a926d, the
//! range real jaxlib 0.10.2 offers). Versions 4 to 6 are dated by the upload of the first jaxlib
//! that offers each (0.11.0, 0.11.1, 0.11.2), an upper bound. 4 comes from the released
//! binaries: their clients record format 4 in their compile options from a negotiated 4 on. 5
//! and 6 come from XLA's sources at newer commits (the types that first write them), and the
//! binaries agree: 0.11.1 is the first to hold `AbstractArraySpecProto`, and 0.11.2's `RemapPlan`
//! is the first built without mappings. **XLA renumbered version 2**: an older header had `2:
//! 2026-03-19, Allow mixed serialization for stablehlo dialects`, which moved to 3 when the IFRT
//! IR change took 2. The crate follows the newest header.
//!
//! IFRT's minimum is 0. Its week-4-old version is kept by hand; the preset's is 3
//! ([`version::WEEK_4_OLD`]): the newest header read says 1, but jaxlib 0.10.2 refuses to write
//! a program at a negotiated 2 (and writes it at 3), which XLA does only below its week-4-old
//! version.
//!
//! # Features
//!
//! - `testing-bad-default-version`: every default version request returns
//!   [`Error::DefaultVersionDisallowed`] (IFRT's `IFRT_TESTING_BAD_DEFAULT_SERDES_VERSION`).
//!   CI runs the whole test suite with it.
//! - `cli`: the `ifrt-serdes` tool (`history`, `inspect`, `negotiate`, `jaxlib`), see the
//!   README.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
//! use ifrt_serdes::{
//!     ArraySpec, DType, DeserializeOptions, MemoryKind, Registry, SerializeOptions, Shape,
//!     SingleDeviceSharding, VersionRange,
//! };
//!
//! // A new writer and an older reader that stops at version 1.
//! let writer = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
//! let old = SupportedVersions::new(SerDesVersionNumber::new(0), SerDesVersionNumber::new(1))?;
//! let reader = Registry::with_builtin_types(old);
//!
//! // They agree on a version of IFRT's history, and the writer writes it.
//! let agreed = writer.supported().agree_with(VersionRange::from(old))?;
//! assert_eq!(agreed.to_string(), "IFRT SerDes version 1");
//! let spec = ArraySpec {
//!     dtype: DType::F32,
//!     shape: Shape::new(vec![8, 128])?,
//!     sharding: Arc::new(SingleDeviceSharding::new(0, MemoryKind::device())?),
//!     layout: None,
//! };
//! // An ArraySpec travels as a plain `ArraySpecProto` (its sharding in an envelope inside).
//! let bytes = writer.to_proto_bytes(&spec, &SerializeOptions::new(agreed))?;
//!
//! // The reader needs no version: the bytes say which format they are in.
//! let back: ArraySpec = reader.from_proto_bytes(&bytes, &DeserializeOptions::default())?;
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
//! - [`version`]: the dated version numbers, histories ([`version::History`], IFRT's preset
//!   [`version::IFRT`]), a build's supported range, the three accessors. It is public because
//!   it is a family used together and named often (`version::SerDesVersionNumber`,
//!   `version::HISTORY`, `version::MINIMUM`), and because its documentation is the guide to
//!   adding and removing a format.
//! - [`schema`]: the raw protobuf messages (`Serialized`, `DTypeProto`, `ArraySpecProto`,
//!   `DeviceListProto`...), as the generated code of every crate of this workspace is named.
//!
//! Days are [`jiff`]'s civil dates, re-exported as [`Date`] (and the crate as [`jiff`]) so that
//! no dependency of your own is needed.
//!
//! Every fallible function returns the one [`Error`]. Its variants group the causes into
//! families to match on: [`Incompatible`] (the versions do not fit: IFRT's "Unsupported IFRT
//! SerDes version N for TYPE deserialization" and its kin, and versions of two histories),
//! [`RegistryError`] (no codec for a value or a name), [`DecodeError`] (bytes that are not a
//! serialized value), [`InvalidValue`] (a value that breaks its type's rules) and
//! [`WindowError`] (the four-week window forbids it: no week-4-old version yet, a minimum
//! raised or a format removed too early).
#![forbid(unsafe_code)]
#![warn(missing_docs, unnameable_types)]

// Module map, for contributors: each file under src/ and the concept it holds
// (`xtask/tests/module_maps.rs` checks that it names every file; src/generated/ and the CLI in
// src/bin/ aside).
//
// | File             | Concept |
// |------------------|---------|
// | `lib.rs`         | the crate root: the scheme taught, the public API re-exported; this map |
// | `error.rs`       | the crate's one error type and the families it groups |
// | `version/mod.rs` | the global, dated serialization version and its histories (public module) |
// | `version/preset.rs` | IFRT's own history as preset, and IFRT's three version accessors |
// | `version/tests.rs` | the scheme's tests: entries, histories, ranges, IFRT's preset |
// | `clock.rs`       | the clock that tells today's date (week-4-old) |
// | `negotiation.rs` | choosing the version two builds talk at (IFRT Proxy) |
// | `proxy_clients.rs` | the IFRT Proxy clients that exist: jaxlib releases, as measured |
// | `format.rs`      | each type's own formats: the versions at which its format changed |
// | `codec.rs`       | how one SerDes type is written and read: the traits a type implements |
// | `proto_codec.rs` | how a type IFRT sends as a plain message is written and read (`ToProto`) |
// | `registry.rs`    | the registry: type names to codecs |
// | `envelope.rs`    | the `Serialized { type_name, data }` envelope on the wire |
// | `wire.rs`        | protobuf's wire encoding for the messages read field by field |
// | `spare.rs`       | spare messages kept per thread, so a warm thread serializes without allocating |
// | `builtin.rs`     | IFRT's SerDes types, registered together (`Registry::with_builtin_types`) |
// | `dtype.rs`       | element types |
// | `shape.rs`       | static shapes |
// | `device_list.rs` | lists of devices, by id |
// | `sharding.rs`    | the sharding family |
// | `array_spec.rs`  | an array without its data: element type, shape, sharding |
// | `hlo_sharding.rs` | the sharding real clients send: XLA's `OpSharding` over devices |
// | `concrete_sharding.rs` | shardings that list shard shapes or only devices; dynamic shapes |
// | `layout.rs`      | array layouts: a dimension order, or XLA's layout |
// | `program.rs`     | a compile request's program (MLIR bytecode header) and options |

mod array_spec;
mod builtin;
mod clock;
mod codec;
mod concrete_sharding;
mod device_list;
mod dtype;
mod envelope;
mod error;
mod format;
#[rustfmt::skip]
mod generated;
mod hlo_sharding;
mod layout;
mod negotiation;
mod program;
mod proto_codec;
mod proxy_clients;
mod registry;
mod shape;
mod sharding;
mod spare;
pub mod version;
mod wire;

// The registry, and what a type implements to go through it.
pub use codec::{Codec, DeserializeOptions, Serializable, SerializeOptions, Sharding};
pub use format::{AlsoReads, Formats, RecordedFormat, WriteFloor};
pub use registry::Registry;
// What a type that travels as a plain protobuf message implements instead (IFRT's `ToProto`).
pub use proto_codec::ProtoCodec;
// IFRT's types: element type, shape, device list, the sharding family, and the array spec built
// from them.
pub use array_spec::ArraySpec;
pub use device_list::DeviceList;
pub use dtype::{DTYPE_KINDS, DType};
pub use shape::Shape;
pub use sharding::{
    MemoryKind, ShardingParam, ShardingParamSharding, SingleDeviceSharding, UNREDUCED_AXES_SINCE,
};
// The other shardings IFRT registers, its layouts, and what a compile request carries.
pub use concrete_sharding::{
    ConcreteEvenSharding, ConcreteShapes, ConcreteSharding, DynamicShape, OpaqueSharding,
};
pub use hlo_sharding::HloSharding;
pub use layout::{CompactLayout, PjRtLayout};
pub use program::{MLIR_BYTECODE_MAGIC, XlaCompileOptions, XlaProgram};
// Two builds agree on a version (IFRT Proxy).
pub use negotiation::{VersionRange, negotiate};
// The IFRT Proxy clients that exist: what each jaxlib release offers, measured.
pub use proxy_clients::{
    JAXLIB_CLIENTS, JaxlibClient, JitOutcome, JitRun, ProxyProtocolRange, ProxyProtocolVersion,
    jaxlib_client,
};
// Today's date, for the week-4-old version.
pub use clock::{Clock, FixedClock, SystemClock};
// Days are jiff's civil dates, re-exported so that a user needs no dependency of their own
// (graphdef-versions re-exports the same type).
pub use jiff;
pub use jiff::civil::Date;
// Errors.
pub use error::{
    DecodeError, Error, Incompatible, InvalidValue, RegistryError, Unreadable, WindowError,
};
pub use wire::{WireError, WireType};

/// The wire schema's raw types, generated from `proto/ifrt/` by `cargo xtask codegen`.
///
/// These are plain prost messages with IFRT's field numbers (package `xla.ifrt`, flattened):
/// the `Serialized` envelope and each type's message (`DTypeProto`, `ShapeProto`,
/// `DeviceListProto`, `ShardingParamProto`, `ArraySpecProto`...), each with its
/// `version_number`. The API at the crate root wraps them: a [`Registry`] writes and reads them,
/// and the plain-message types convert to and from them ([`Registry::to_proto`],
/// [`Registry::from_proto`]); use them directly to put a message in a request of your own, or
/// to look inside serialized bytes with [`prost::Message`].
pub mod schema {
    pub use crate::generated::xla::ifrt::*;

    /// XLA's own messages that IFRT's shardings and layouts carry (package `xla`, from
    /// `proto/ifrt/xla_data.proto`): [`OpSharding`](xla::OpSharding) inside an
    /// `HloShardingProto`, [`LayoutProto`](xla::LayoutProto) inside a `PjRtLayoutProto`, and
    /// what they reach.
    pub mod xla {
        pub use crate::generated::xla::{
            AxisRefProto, CompilationEvent, DimLevelType, LayoutProto, MeshProto,
            NamedShardingProto, OpMetadata, OpSharding, Payload, PrimitiveType,
            ProfileGenerationStrategy, ProfileSource, ProfileType, ShapeProto, SplitConfigProto,
            TileProto, axis_ref_proto, mesh_proto, named_sharding_proto, op_metadata, op_sharding,
            payload,
        };
    }
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
