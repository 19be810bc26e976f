//! TensorFlow's data-versioning scheme for GraphDefs and checkpoints.
//!
//! Every piece of data TensorFlow writes carries a [`VersionDef`](schema::VersionDef): the
//! `producer` version of the binary that wrote it, the `min_consumer` version able to read it,
//! and `bad_consumers`, consumer versions known to be buggy with it. Every binary that reads data knows its own
//! `consumer` version and the oldest producer, `min_producer`, it still reads. The consumer
//! accepts the data when
//!
//! - `producer >= min_producer` (the data is not too old for it),
//! - `consumer >= min_consumer` (it is not too old for the data), and
//! - `consumer` is not in `bad_consumers`.
//!
//! So old data keeps loading until a major release raises `min_producer`, and new data can
//! still load in older binaries unless it raises `min_consumer`. GraphDefs and checkpoints are
//! two independent schemes ([`Scheme`]) with their own numbers ([`GRAPH_DEF`], [`CHECKPOINT`]).
//!
//! On top of the numbers, ops are retired by version: an op deprecated at version `M` is refused
//! in graphs produced at `M` or later and warns in older ones ([`Registry`]). Since 2019-05-09
//! the GraphDef version advances by one every day ([`history`]).
//!
//! The crate reads real files: binary GraphDefs and `saved_model.pb` ([`Artifact`], [`check_file`]),
//! checking versions straight from the wire without decoding the nodes ([`sniff`](sniff())), and
//! rewrites a file's VersionDef leaving every other byte alone ([`rewrite_versions`]). The raw
//! protobuf types are in [`schema`].
//!
//! ```
//! use graphdef_versions::{schema::{GraphDef, VersionDef}, sniff, Consumer, Producer, Registry};
//! use prost::Message;
//!
//! // A graph written by TensorFlow 2.21, read back straight from its bytes.
//! let versions = Producer::tensorflow_graph_def().stamp();
//! let graph = GraphDef { versions: Some(versions), ..Default::default() };
//! let summary = sniff(&graph.encode_to_vec())?;
//! assert_eq!(summary.versions.producer, 2474);
//! Consumer::tensorflow_graph_def().check(&summary.versions)?;
//!
//! // A graph that needs a newer TensorFlow is refused, in TensorFlow's words.
//! let future = VersionDef { producer: 2600, min_consumer: 2500, bad_consumers: vec![] };
//! let refusal = Consumer::tensorflow_graph_def().check(&future).unwrap_err();
//! assert_eq!(
//!     refusal.to_string(),
//!     "GraphDef min consumer version 2500 above current version 2474 for TensorFlow 2.21.0.  \
//!      Please upgrade TensorFlow."
//! );
//!
//! // TopK was removed at version 7: a graph produced at 6 may still use it, with a warning.
//! let ops = Registry::tensorflow().assess(["TopK"], 6.into());
//! assert_eq!(
//!     ops.warnings[0].to_string(),
//!     "Op TopK is deprecated. It will cease to work in GraphDef version 7. Use TopKV2 instead."
//! );
//! # Ok::<(), graphdef_versions::Error>(())
//! ```
//!
//! The CLI (feature `cli`) judges files: `graphdef-versions check saved_model.pb --json`.
//!
//! # The API
//!
//! Every item is at the crate root, except two families with a module of their own:
//! - [`schema`]: the raw protobuf types (`GraphDef`, `VersionDef`, `SavedModel`...), as the
//!   generated code of every crate of this workspace is named;
//! - [`history`]: the version history of both schemes and the GraphDef version of a date. Its
//!   module documentation is the story of how the number moved (hand-bumped for each change
//!   until 29, one a day since 30), and its tables, constants and lookups are used together and
//!   read best with their module's name: `history::graph_def_version_on(date)`,
//!   `history::GRAPH_DEF_HISTORY`.
//!
//! Dates are [jiff](https://docs.rs/jiff)'s [`Date`], re-exported with [`jiff`] itself.
//!
//! [`TfRelease`] holds ten real TensorFlow releases, 2.12.1 to 2.21.0: each one's GraphDef and
//! checkpoint constants and every op it registers (its `OpDef`: inputs, outputs, attrs with
//! their types, defaults, allowed values and minimums, deprecation), dumped from the real wheels
//! by `cargo xtask tf-releases` and compiled in (0.5 MB). [`ReleaseJudge`] uses them to say
//! which of those releases load a GraphDef or SavedModel, and why the others do not, in each
//! release's own words ([`LoadError`]): it replays each release's importer (`import_graph_def`)
//! or loader (`tf.saved_model.load`) with that release's ops
//! ([`ReleaseReport::oldest_release`]). [`check_file`] asks a simpler question of one consumer:
//! its VersionDef check and TensorFlow's deprecated ops ([`CheckReport`]);
//! [`check_release_move`] asks whether moving from one release's versioning to the next
//! ([`ReleaseVersioning`]) keeps TensorFlow's promises.
//!
//! Every fallible function returns the one [`Error`]. Its variants group the causes as families
//! to match on: [`DecodeError`] for bytes that are not a readable GraphDef, SavedModel or bundle
//! header, [`IndexError`] for a checkpoint `.index` file that is not a readable table, and
//! [`Refusal`] for data TensorFlow would refuse (its message, byte for byte).
#![forbid(unsafe_code)]
#![warn(missing_docs, unnameable_types)]

// Module map, for contributors: each file under src/ and the concept it holds
// (`xtask/tests/module_maps.rs` checks that it names every file; src/generated/ and the CLI in
// src/bin/ aside).
//
// | File                         | Concept |
// |------------------------------|---------|
// | `lib.rs`                     | the crate root: the scheme taught, the public API re-exported; this map |
// | `error.rs`                   | the crate's one error type and the families it groups |
// | `version.rs`                 | version numbers, the two schemes, TensorFlow's constants |
// | `consumer.rs`                | the consumer side: may this binary read this data? |
// | `producer.rs`                | the producer side: stamping, banning buggy consumers, merging on import |
// | `deprecation.rs`             | op deprecation by GraphDef version |
// | `history.rs`                 | the history of GraphDef and checkpoint versions, by date (public module) |
// | `policy.rs`                  | may a release move from one set of constants to the next? |
// | `releases.rs`                | ten real releases (2.12 to 2.21): their constants and registered ops |
// | `wire.rs`                    | the protobuf wire format: the crate's one field reader and writer |
// | `sniff.rs`                   | a GraphDef's versions and ops read straight from its bytes |
// | `artifact.rs`                | real files: a binary GraphDef or a `saved_model.pb`, told apart |
// | `model_file.rs`              | the file a path names, as TensorFlow's loaders read it |
// | `check.rs`                   | checking a file for one consumer: versions, then the loader |
// | `checkpoint/mod.rs`          | checkpoints: the same scheme with its own numbers |
// | `checkpoint/table.rs`        | a checkpoint `.index` file's table format, as far as its header |
// | `loading/mod.rs`             | which releases load a graph: declares the parts below, re-exports |
// | `loading/judge.rs`           | `ReleaseJudge`: each release's loader replayed on a file |
// | `loading/report.rs`          | what a judgement says: loader, verdicts, report |
// | `loading/alike.rs`           | releases that judge a graph alike, so one judgement serves them all |
// | `loading/failure.rs`         | a release's refusal before Python raises it (`Failure`, `Code`) |
// | `loading/scan.rs`            | one pass over a GraphDef's bytes (`ScannedGraph`) |
// | `loading/node.rs`            | a NodeDef read in place: name, op, inputs, form key |
// | `loading/index.rs`           | the node index: names, and what `BuildNodeIndex` checks |
// | `loading/edges.rs`           | a graph's edges, and the order its importer makes its nodes in |
// | `loading/forms.rs`           | node forms: what an importer judges of a node beside name and edges |
// | `loading/validate.rs`        | what a release checks of a node against its op (`ValidateNodeDef`) |
// | `loading/import.rs`          | one release's importer replayed (`GraphConstructor::Convert`) |
// | `loading/graph.rs`           | a TF1 SavedModel's graph once imported (`ImportedGraph`) |
// | `loading/load_order.rs`      | the order `tf.saved_model.load` restores a library's functions in |
// | `loading/saved_model.rs`     | what `tf.saved_model.load` reads besides functions |
// | `loading/restore.rs`         | the variables restored, checked against the checkpoint beside them |
// | `loading/revive.rs`          | the revival of a TF2 SavedModel's Python objects |
// | `loading/prune.rs`           | a TF1 signature pruned into a function, replayed |
// | `loading/pruned.rs`          | the graph a TF1 signature is pruned into |
// | `loading/shapes.rs`          | shape inference, as far as TF1 signatures need it |
// | `loading/shape_fns.rs`       | the shape functions replayed, one per op |
// | `loading/shape_fns/tests.rs` | the shape functions against what TensorFlow said of the same nodes |
// | `loading/printing.rs`        | how TensorFlow prints ops, attrs and types in its messages |
// | `loading/fingerprint.rs`     | TensorFlow's `Fingerprint64` |

mod artifact;
mod check;
mod checkpoint;
mod consumer;
mod deprecation;
mod error;
#[rustfmt::skip]
mod generated;
pub mod history;
mod loading;
mod model_file;
mod policy;
mod producer;
mod releases;
mod sniff;
mod version;
mod wire;

// The scheme: version numbers, TensorFlow's constants, the consumer's check, the producer's stamp.
pub use consumer::Consumer;
pub use producer::{Ban, MIN_CONSUMER_WITH_FUNCTIONS, Producer, merge_on_import};
pub use version::{CHECKPOINT, Constants, GRAPH_DEF, Scheme, TF_VERSION, Version};
// Ops retired by GraphDef version.
pub use deprecation::{
    DeprecatedOp, DeprecationWarning, OpAssessment, Registry, RemovedOp, TF_DEPRECATED_OPS,
};
// Real files: binary GraphDefs and saved_model.pb, read and rewritten straight from the wire.
pub use artifact::{Artifact, GraphBytes, Kind, MetaGraphInfo, decode_graphs, rewrite_versions};
pub use check::{CheckReport, GraphCheck, check_file};
pub use sniff::{GraphSummary, OpUse, distinct_ops, rewrite_graph_def_versions, scan_ops, sniff};
pub use wire::MAX_MESSAGE_LEN;
// Checkpoints: a tensor bundle's `.index` file and its header.
pub use checkpoint::{
    bundle_header, check_bundle_header, check_checkpoint_index, looks_like_index,
    read_checkpoint_header,
};
// Ten real TensorFlow releases (2.12 to 2.21): their constants and registered ops.
pub use loading::{LoadError, Loader, ReleaseJudge, ReleaseReport, ReleaseVerdict};
pub use model_file::model_file;
pub use releases::TfRelease;
// The next release: the compatibility policy for moving to new constants.
pub use policy::{
    PolicyFinding, PolicyReport, PolicyRule, ReleaseNumber, ReleaseVersioning, check_release_move,
};
// Calendar days, for the date-based GraphDef versions: jiff's civil dates, re-exported with
// jiff itself so that a user names them without depending on jiff.
pub use jiff;
pub use jiff::civil::Date;
// Errors.
pub use error::{DecodeError, Error, FileError, IndexError, Refusal, WireError};
pub use wire::WireType;

/// The wire schema's raw types, generated from `proto/graphdef/` by `cargo xtask codegen`.
///
/// These are plain prost messages (`GraphDef`, `NodeDef`, `VersionDef`, `SavedModel`,
/// `MetaGraphDef`, `BundleHeaderProto`...) with TensorFlow's field numbers, for building or fully
/// decoding graphs with [`prost::Message`]. The API at the crate root wraps them: it reads
/// versions and ops straight from the bytes and takes a [`VersionDef`](schema::VersionDef)
/// wherever one is checked or stamped.
pub mod schema {
    pub use crate::generated::tensorflow::*;
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
