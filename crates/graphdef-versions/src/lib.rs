//! TensorFlow's data-versioning scheme for GraphDefs and checkpoints.
//!
//! Every piece of data TensorFlow writes carries a [`VersionDef`]: the `producer` version of
//! the binary that wrote it, the `min_consumer` version able to read it, and `bad_consumers`,
//! consumer versions known to be buggy with it. Every binary that reads data knows its own
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
//! in graphs produced at `M` or later and warns in older ones ([`deprecation`]). Since
//! 2019-05-09 the GraphDef version advances by one every day ([`history`]).
//!
//! The crate reads real files: binary GraphDefs and `saved_model.pb` ([`Artifact`]), checking
//! versions straight from the wire without decoding the nodes ([`sniff`]), and rewrites a file's
//! VersionDef leaving every other byte alone.
//!
//! ```
//! use graphdef_versions::{Consumer, Producer, Registry, VersionDef, sniff};
//! use prost::Message;
//!
//! // A graph written by TensorFlow 2.21, read back straight from its bytes.
//! let versions = Producer::tensorflow_graph_def().stamp();
//! let graph = graphdef_versions::GraphDef { versions: Some(versions), ..Default::default() };
//! let summary = sniff::sniff(&graph.encode_to_vec())?;
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
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[rustfmt::skip]
pub mod generated;

pub mod artifact;
pub mod check;
pub mod checkpoint;
mod date;
pub mod deprecation;
mod error;
pub mod history;
pub mod policy;
pub mod producer;
pub mod sniff;
pub mod verdict;
pub mod version;
mod wire;

pub use artifact::{Artifact, Kind};
pub use check::Consumer;
pub use date::{CivilDate, DateError};
pub use deprecation::{DeprecatedOp, DeprecationWarning, Registry, RemovedOp};
pub use error::{DecodeError, Error, Refusal};
pub use generated::tensorflow::{BundleHeaderProto, GraphDef, NodeDef, SavedModel, VersionDef};
pub use producer::Producer;
pub use verdict::{Verdict, judge};
pub use version::{CHECKPOINT, Constants, GRAPH_DEF, Scheme, TF_VERSION, Version};
pub use wire::{MAX_MESSAGE_LEN, WireType};
