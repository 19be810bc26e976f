//! Which TensorFlow releases load a graph: each release's importer, replayed.
//!
//! VersionDef refusals are rare. What stops a graph made by a newer TensorFlow in an older one
//! is the older release's op registry: an op it does not have, an attr value it does not allow,
//! an input whose type a newer attr changed. [`ReleaseJudge`] replays, for each release in
//! [`TfRelease::all`](crate::TfRelease::all), what that release does when it loads the file, with that release's own
//! ops and constants, and reports its first refusal in its own words:
//!
//! - a GraphDef as `tf.graph_util.import_graph_def` imports it (`ImportGraphDef`,
//!   `tensorflow/core/common_runtime/graph_constructor.cc`): the VersionDef check; every node
//!   indexed and every input looked up; then node by node in topological order: the op
//!   lookup, the node's attrs against the op (`ValidateNodeDef`,
//!   `tensorflow/core/framework/node_def_util.cc`), the op's deprecation by the graph's
//!   producer, the type of every edge, and, for a node that calls a function (directly, or
//!   through `PartitionedCall`/`StatefulPartitionedCall`), the function's instantiation
//!   (`InstantiateFunction`, `tensorflow/core/framework/function.cc`), which checks the ops and
//!   types inside it and the functions it calls in turn. A library function nothing calls is
//!   not looked at. When the graph's producer is more than 21 versions newer than the release,
//!   the error is wrapped in `Converting GraphDef to Graph has failed ...`;
//! - a SavedModel as `tf.saved_model.load` loads it (`tensorflow/python/saved_model/load.py`,
//!   `function_deserialization.py`, `load_v1_in_v2.py`), step by step ([`saved_model`]): every
//!   function of the library, in dependency order, is turned into a graph of its own and
//!   imported, so its attr values are validated and its deprecations judged by the release's
//!   own version (this is why the two loaders disagree on some SavedModels); a TensorFlow 2
//!   one's objects are revived ([`revive`]) and its variables restored ([`restore`]); a
//!   TensorFlow 1 one's graph is imported, its saver's restore op run and each signature pruned
//!   into a function ([`prune`]), with the shape functions of the ops it copies ([`shapes`],
//!   [`shape_fns`]).
//!
//! An attr the release's op does not know is not a refusal: TensorFlow logs `NodeDef mentions
//! attribute ...` and ignores it. What refuses is its effect on types and values.
//!
//! Kernels are not replayed, nor are shape functions outside a TensorFlow 1 signature's
//! pruning: a graph this accepts can still fail when it runs. The host name in `Op type not
//! registered ... in binary running on HOST` is the machine's that loads the graph;
//! [`ReleaseJudge::with_host`] sets it.
//!
//! The parts, in the order a graph meets them: [`judge`] is [`ReleaseJudge`], which takes each
//! release through its loader's steps and gathers the verdicts ([`report`]); [`scan`] reads the
//! file's nodes in place once ([`node`] reads one node), [`index`] indexes their names,
//! [`forms`] groups the nodes that the importer judges alike, [`edges`] keeps their inputs and
//! works out the order they are made in; [`import`] replays one release's importer on them
//! (and instantiates the functions they call), with [`validate`] (a node against its op);
//! [`load_order`] is the order a SavedModel's functions are restored in, [`saved_model`] what
//! else `tf.saved_model.load` reads, [`graph`] a TensorFlow 1 graph once imported, which
//! [`restore`], [`prune`] and [`pruned`] walk; [`revive`] decodes the object graph.
//! [`alike`] shares one judgement between releases that judge alike; [`failure`] is a
//! release's refusal before Python raises it, [`printing`] how a release prints what it
//! refuses, [`fingerprint`] the hash it prints in the summary of a long list.
//!
//! This module only declares the parts and re-exports what the crate shows; no part imports
//! from it (a test, `tests/graphdef_versions/layout.rs`, finds any import cycle between them).

mod alike;
mod edges;
mod failure;
mod fingerprint;
mod forms;
mod graph;
mod import;
mod index;
mod judge;
mod load_order;
mod node;
mod printing;
mod prune;
mod pruned;
mod report;
mod restore;
mod revive;
mod saved_model;
mod scan;
mod shape_fns;
mod shapes;
mod validate;

pub use judge::ReleaseJudge;
pub use report::{LoadError, Loader, ReleaseReport, ReleaseVerdict};
