//! TensorFlow Lite's op-versioning scheme, able to read, judge and re-stamp real `.tflite`
//! models.
//!
//! Every builtin operator in a TFLite model points at an *operator code*: the op and a
//! version. A version is bumped whenever an op gains a parameter, a tensor type or a
//! behaviour that an older kernel lacks, and the converter stamps each code with the
//! **lowest** version its operators need. That gives the scheme's three guarantees:
//!
//! - a new runtime runs an old model: options a model does not carry take defaults that
//!   behave exactly like the old kernel ([`params`]);
//! - an old runtime runs a new model as long as no new feature is used, because versions are
//!   computed from what each operator actually uses ([`op_version`] on an [`OpSignature`];
//!   [`version_reason`] says which of TF's rules set the version, and
//!   [`Model::required_min_runtime_cause`] which operator code set the minimum runtime);
//! - an old runtime that meets a version it lacks says so clearly instead of misbehaving
//!   ([`Resolver`]: "Didn't find op for builtin opcode 'CONV_2D' version '3'...").
//!
//! A model also records the oldest TFLite release that can run it, the `min_runtime_version`
//! metadata ([`runtime_table`], [`RuntimeVersion`]), and delegates declare which op versions
//! they take ([`Delegate`]).
//!
//! The story in code: a depthwise convolution needs version 2 only when it is dilated.
//! TensorFlow's op-versioning guide (and this crate's design seed) tells the story with
//! CONV_2D, but TensorFlow's real rules (`op_version.cc`, TF 2.21) do not version CONV_2D by
//! dilation: a dilated CONV_2D is version 1, and CONV_2D's version 2 is the hybrid kernel
//! (float32 input, int8 weights). DEPTHWISE_CONV_2D is the op whose version 2 is dilation
//! (`DepthwiseConv2DOptions`: "Parameters for DepthwiseConv version 2 or above"), so the
//! story is told with it here, and the crate follows TensorFlow.
//!
//! ```
//! use tflite_opver::{
//!     BuiltinOperator, ElementType, Error, Model, ModelBuilder, OpSignature, OpVersion,
//!     StampMode, TensorSpec, op_version, stamp, version_reason,
//!     params::{Conv2DParams, DepthwiseConv2DParams, Params},
//! };
//!
//! let f32 = |dims: &[i32]| TensorSpec::new(ElementType::Float32, dims);
//! let conv = |dilation| {
//!     OpSignature::new(
//!         BuiltinOperator::DEPTHWISE_CONV_2D,
//!         vec![f32(&[1, 8, 8, 4]), f32(&[1, 3, 3, 4]).constant(), f32(&[4]).constant()],
//!         vec![f32(&[1, 8, 8, 4])],
//!         Params::DepthwiseConv2D(DepthwiseConv2DParams {
//!             dilation_width_factor: dilation,
//!             dilation_height_factor: dilation,
//!             ..Default::default()
//!         }),
//!     )
//! };
//! assert_eq!(op_version(&conv(1)), OpVersion::new(1));
//! assert_eq!(op_version(&conv(2)), OpVersion::new(2));
//! assert_eq!(version_reason(&conv(2)).to_string(), "v2: dilation ≠ 1");
//!
//! // Not so for CONV_2D, whatever the guide's example says: dilated, it stays version 1.
//! let plain = OpSignature::new(
//!     BuiltinOperator::CONV_2D,
//!     vec![f32(&[1, 8, 8, 4]), f32(&[4, 3, 3, 4]).constant(), f32(&[4]).constant()],
//!     vec![f32(&[1, 8, 8, 4])],
//!     Params::Conv2D(Conv2DParams {
//!         dilation_width_factor: 2,
//!         dilation_height_factor: 2,
//!         ..Default::default()
//!     }),
//! );
//! assert_eq!(op_version(&plain), OpVersion::new(1));
//!
//! // A model written with version 1 for a dilated convolution is re-stamped to version 2,
//! // and its minimum runtime becomes the first TFLite release with that kernel.
//! let bytes = ModelBuilder::new().signature(&conv(2), OpVersion::ONE).finish();
//! let stamped = stamp(&bytes, StampMode::Raise)?;
//! let model = Model::from_bytes(&stamped.bytes)?;
//! assert_eq!(model.operator_codes()[0].version, OpVersion::new(2));
//! assert_eq!(model.stored_min_runtime_version(), Some("1.12.0"));
//! # Ok::<(), Error>(())
//! ```
//!
//! The question users ask of all this is which runtime loads their model: [`Runtime::all`]
//! holds the thirty TensorFlow Lite runtimes a Python user installs (`tensorflow-cpu`,
//! `tflite-runtime` and `ai-edge-litert` releases), with what was probed from their real wheels,
//! and [`Model::runtime_verdicts`] says which of them load the model and, in each one's own
//! words, why the others refuse it, naming the operator codes that block them; then what each
//! one's `allocate_tensors()` does ([`Allocation`]): refused where a custom or Select TensorFlow
//! (`Flex*`) op is left unresolved, in its own words, and not judged where a kernel's own checks
//! would decide. [`Model::restamp_refused_by`] says which runtimes re-stamping would exclude.
//!
//! Every item is at the crate root, grouped below by the part of the scheme it serves: reading
//! a [`Model`], describing one operator ([`OpSignature`], [`TensorSpec`], its options in the
//! [`params`] family), TF's rules ([`op_version`], [`version_reason`]) and your own
//! ([`VersionRules`]), re-stamping ([`stamp`](stamp())), writing small models ([`ModelBuilder`]),
//! real runtimes ([`Runtime`], [`Model::runtime_verdicts`]), TFLite releases
//! ([`RuntimeVersion`], [`runtime_table`]), kernel registries ([`Resolver`]) and delegates
//! ([`Delegate`]). Two modules are public: [`params`], the operators' options, and [`schema`],
//! the raw FlatBuffers types.
//!
//! The FlatBuffers schema is our own (`proto/tflite/schema.fbs`, TF's table and field order)
//! and its Rust is generated by planus; bad input is an [`Error`], never a panic.

// Module map, for contributors: each file under src/ and the concept it holds. Files import
// each other in one direction only; `tests/tflite_opver/layout.rs` checks that there is no
// cycle between files and that this map names every file (src/generated/ and the CLI in
// src/bin/ aside).
//
// | File                           | Concept                                                        |
// |--------------------------------|----------------------------------------------------------------|
// | `lib.rs`                       | the crate root: the public API, re-exported; this map           |
// | `error.rs`                     | the crate's one error enum and its families                     |
// | `params.rs`                    | operators' options as Rust values (public module `params`)      |
// | `operator/mod.rs`              | one operator as TF's version rules see it                       |
// | `operator/code.rs`             | builtin operator codes, op versions, custom ops                 |
// | `operator/tensor.rs`           | tensors: element type, shape, constness, quantization           |
// | `operator/signature.rs`        | an operator's signature: what its version rules look at         |
// | `operator/options.rs`          | the schema's options tables to `Params` and back                |
// | `rules/mod.rs`                 | version rules: which version an operator needs                  |
// | `rules/tensorflow.rs`          | TF's op version rules (`op_version`, `version_reason`)          |
// | `rules/user.rs`                | user-defined version rules (`VersionRules`)                     |
// | `model/mod.rs`                 | `Model`: a read model and its judging (versions, min runtime)   |
// | `model/read/mod.rs`            | `Model::from_bytes`: bytes to a `Model`, validated once         |
// | `model/read/fields.rs`         | optional fields counted, external offsets, missing elements     |
// | `model/read/buffers.rs`        | buffers' data lengths: what makes a tensor constant             |
// | `model/read/tensors.rs`        | tensors read into their classes                                 |
// | `model/read/operators.rs`      | operators read into their forms and pooled indices              |
// | `model/wire.rs`                | the FlatBuffer wire format read by hand (vtables, vectors)      |
// | `model/classes.rs`             | tensor classes: the few distinct tensors of a subgraph          |
// | `model/forms.rs`               | operator forms: the few distinct ways operators read            |
// | `model/pool.rs`                | 4-byte marks into a subgraph's pools                            |
// | `model/subgraph.rs`            | a subgraph as kept once read                                    |
// | `model/load_facts.rs`          | what the reader records for the interpreter replay              |
// | `model/builder.rs`             | `ModelBuilder`: writing small models from signatures            |
// | `runtimes/mod.rs`              | TFLite runtimes: releases, real runtimes, their loaders         |
// | `runtimes/min_runtime.rs`      | `RuntimeVersion` and the (op, version) -> minimum runtime table |
// | `runtimes/installed.rs`        | `Runtime`: the real runtimes users install, and their verdicts  |
// | `runtimes/allocation.rs`       | what a runtime's `allocate_tensors()` does with custom ops      |
// | `runtimes/interpreter.rs`      | the interpreter replay: what a runtime checks when loading      |
// | `runtimes/kernels.rs`          | kernel gaps: what each runtime's kernels did with probe models  |
// | `runtimes/verifier.rs`         | TFLite's FlatBuffer verifier limits (`loader_limits`)           |
// | `runtimes/resolver.rs`         | op resolvers: kernels by operator and exact version             |
// | `delegates/mod.rs`             | delegates: which operators a backend takes                      |
// | `delegates/presets.rs`         | TFLite's GPU, NNAPI and XNNPACK delegates as capability tables  |
// | `stamp/mod.rs`                 | re-stamping versions and `min_runtime_version` in place         |
// | `stamp/front.rs`               | new tables written in front of a model's bytes                  |
// | `stamp/warnings.rs`            | `StampWarning`: what a model's stamps get wrong                 |
//
// `Model`'s methods live with their concept, each file depending on `model/mod.rs` and never
// back: reading in `model/read/mod.rs`, judging in `model/mod.rs`, runtime verdicts in
// `runtimes/installed.rs`, stamp warnings in `stamp/warnings.rs`.

// No hand-written unsafe anywhere in this crate. The only unsafe is planus' generated
// builder internals in `generated`; reading untrusted buffers goes through planus' checked
// API only (its unsafe functions are never called).
#![deny(unsafe_code)]
#![warn(missing_docs, unnameable_types)]

mod delegates;
mod error;
#[rustfmt::skip]
#[allow(unsafe_code)]
mod generated;
mod model;
mod operator;
pub mod params;
mod rules;
mod runtimes;
mod stamp;

// Reading a model: validated once, then judged.
pub use model::{
    FILE_IDENTIFIER, MAX_MODEL_LEN, MinRuntimeCause, Model, OperatorCode, OperatorLocation,
    RuntimeMetadata,
};
// Operators and their versions.
pub use operator::code::{BuiltinOperator, OpVersion, OperatorKind};
// One operator: its tensors and its signature (its options: the `params` module).
pub use operator::signature::{OpSignature, SignatureFacts};
pub use operator::tensor::{ElementType, Quantization, TensorSpec};
// TensorFlow's op version rules, and user-defined ones.
pub use rules::tensorflow::{VersionReason, op_version, version_reason};
pub use rules::user::{IntoVersionReason, VersionRule, VersionRules};
// Re-stamping a model's versions and minimum runtime; writing small models.
pub use model::builder::ModelBuilder;
pub use stamp::{
    StampMode, Stamped, VersionChange, stamp, stamp_with, stamped_versions, stamped_versions_with,
};
// What a model's stamps get wrong (stored too low, min_runtime_version missing).
pub use stamp::warnings::StampWarning;
// What TFLite's loader refuses before looking at a kernel: its verifier's limits.
pub use runtimes::verifier::{
    LimitWarning, LoaderLimits, VERIFIER_MAX_BYTES, VERIFIER_MAX_TABLES, loader_limits,
};
// TFLite releases: the (op, version) -> minimum runtime table and the metadata.
pub use runtimes::min_runtime::{
    RuntimeTableEntry, RuntimeVersion, compare_runtime_version, metadata_text,
    min_runtime_version_for_model, min_runtime_version_for_op, runtime_supports, runtime_table,
    supported_by,
};
// Real runtimes: which of them load a model, and in what words the others refuse it.
pub use runtimes::allocation::{ARENA_LIMIT, Allocation, AllocationRefusal, NotJudged};
pub use runtimes::installed::{
    BlockingCause, BlockingOperator, LoadOutcome, RefusedBy, Runtime, RuntimeFamily,
    RuntimeVerdict, RuntimeVerdicts, StoredTooLow,
};
pub use runtimes::kernels::{KernelGap, KernelGaps, KernelStage};
// Kernel registries and delegates.
pub use delegates::{
    Capability, Check, Decision, Delegate, Partition, Placement, Refusal, UnsupportedWording,
    VersionWording,
};
pub use runtimes::resolver::Resolver;
// Errors.
pub use error::{DecodeError, Error, FlatBufferError, ResolveError, StampError};

/// The wire schema's raw types, generated from `proto/tflite/schema.fbs` by `cargo xtask codegen`.
///
/// These are planus' FlatBuffers types with TensorFlow's tables and field ids (namespace
/// `tflite`, flattened): `ModelRef` and the other `*Ref` types read a model in place, the owned
/// types (`Model`, `OperatorCode`, ...) and their builders write one. The API at the crate root
/// wraps them: [`Model`] validates a buffer once and reads every operator as an
/// [`OpSignature`]; use these for raw access to fields the domain API does not surface.
pub mod schema {
    pub use crate::generated::schema::tflite::*;
    /// planus' trait for reading a root table: `ModelRef::read_as_root(bytes)`.
    pub use planus::ReadAsRoot;
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
