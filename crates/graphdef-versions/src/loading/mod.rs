//! Which TensorFlow releases load a graph: each release's importer, replayed.
//!
//! VersionDef refusals are rare. What stops a graph made by a newer TensorFlow in an older one
//! is the older release's op registry: an op it does not have, an attr value it does not allow,
//! an input whose type a newer attr changed. [`ReleaseJudge`] replays, for each release in
//! [`TfRelease::all`], what that release does when it loads the file, with that release's own
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
//! The modules, in the order a graph meets them: [`scan`] reads the file's nodes in place once
//! ([`node`] reads one node), [`index`] indexes their names, [`forms`] groups the nodes that
//! the importer judges alike, [`edges`] keeps their inputs and works out the order they are
//! made in; [`import`] replays one release's importer on them, with [`validate`] (a node
//! against its op) and [`functions`] (a library's functions); [`printing`] is how a release
//! prints what it refuses, [`fingerprint`] the hash it prints in the summary of a long list.
//! This module judges the releases, and shares one judgement between those that judge alike.

mod edges;
mod fingerprint;
mod forms;
mod functions;
mod graph;
mod import;
mod index;
mod node;
mod printing;
mod prune;
mod pruned;
mod restore;
mod revive;
mod saved_model;
mod scan;
mod shape_fns;
mod shapes;
mod validate;

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::Path;

use prost::Message;

use crate::artifact::other_format;
use crate::error::{DecodeError, Error};
use crate::model_file::read_model;
use crate::policy::ReleaseNumber;
use crate::releases::{OpDefId, TfRelease};
use crate::schema::{FunctionDef, FunctionDefLibrary, GraphDef, SavedObjectGraph};
use crate::version::Scheme;
use crate::wire::check_size;
use crate::{Artifact, Kind};
use functions::load_order;
use import::Importer;
use printing::Dialect;
use restore::Checkpoint;
use saved_model::decode_saved_model;
use scan::Graph;

/// How TensorFlow is asked to load the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Loader {
    /// `tf.graph_util.import_graph_def(graph_def, name="")` into a fresh graph.
    ImportGraphDef,
    /// `tf.saved_model.load(path)`.
    SavedModelLoad,
}

impl Loader {
    /// `"import_graph_def"` or `"saved_model_load"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Loader::ImportGraphDef => "import_graph_def",
            Loader::SavedModelLoad => "saved_model_load",
        }
    }
}

/// What a release raises when it refuses to load a file: the Python exception's class, and its
/// message to the byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    python_class: &'static str,
    message: String,
}

impl LoadError {
    /// The exception's class, as Python names it: `ValueError`, `NotFoundError`,
    /// `UnimplementedError`, `RuntimeError`, `FileNotFoundError`.
    pub fn python_class(&self) -> &'static str {
        self.python_class
    }

    /// `str(e)`: TensorFlow's message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LoadError {}

/// One release's verdict on a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseVerdict {
    release: TfRelease,
    errors: Vec<LoadError>,
}

impl ReleaseVerdict {
    /// The release judged.
    pub fn release(&self) -> TfRelease {
        self.release
    }

    /// Whether the release loads the file.
    pub fn accepted(&self) -> bool {
        self.errors.is_empty()
    }

    /// Why not: the first is the error the release raises.
    pub fn errors(&self) -> &[LoadError] {
        &self.errors
    }
}

/// Every release's verdict on one file, oldest release first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseReport {
    loader: Loader,
    verdicts: Vec<ReleaseVerdict>,
}

impl ReleaseReport {
    /// How the file was loaded.
    pub fn loader(&self) -> Loader {
        self.loader
    }

    /// One verdict per release, oldest first.
    pub fn verdicts(&self) -> &[ReleaseVerdict] {
        &self.verdicts
    }

    /// The oldest release that loads the file. Verdicts are not monotone: a newer release may
    /// still refuse it (an op removed from its registry, a `bad_consumers` entry).
    pub fn oldest_release(&self) -> Option<TfRelease> {
        self.verdicts
            .iter()
            .find(|v| v.accepted())
            .map(|v| v.release)
    }
}

/// Replays each release's loader on a file, with that release's ops and constants, and
/// reports its first refusal in its own words.
///
/// A GraphDef is judged as `tf.graph_util.import_graph_def` imports it: its VersionDef; then,
/// node by node in topological order, the op lookup, the node's attrs against the op (type,
/// allowed values, minimum, required attrs), the op's deprecation by the graph's producer, every
/// edge's type, and the functions a node calls (directly or through `PartitionedCall`),
/// instantiated with their ops and types. A library function nothing calls is not looked at.
/// A SavedModel is judged as `tf.saved_model.load` loads it: every library function, in
/// dependency order, becomes a graph of its own and is imported; then a TensorFlow 2 one's
/// objects are revived and its variables checked against its checkpoint, and a TensorFlow 1
/// one's graph is imported, its variables restored and its signatures pruned, with shape
/// inference. An attr the release does not know is not a refusal; its effect on types and
/// values is. Kernels are not replayed.
///
/// A judgement runs on the calling thread. Releases that define every op the file uses alike
/// share one import between them.
///
/// ```
/// use graphdef_versions::{ReleaseJudge, TfRelease, schema::{GraphDef, NodeDef, VersionDef}};
///
/// // A graph made by TensorFlow 2.21 that uses `DecodeWebP`, an op added in 2.20.
/// let graph = GraphDef {
///     node: vec![
///         NodeDef { name: "x".into(), op: "Placeholder".into(), attr: [
///             ("dtype".to_string(), graphdef_versions::schema::AttrValue {
///                 value: Some(graphdef_versions::schema::attr_value::Value::Type(7)) }),
///         ].into(), ..Default::default() },
///         NodeDef { name: "webp".into(), op: "DecodeWebP".into(), input: vec!["x".into()],
///             ..Default::default() },
///     ],
///     versions: Some(VersionDef { producer: 2474, ..Default::default() }),
///     ..Default::default()
/// };
/// let judge = ReleaseJudge::with_host("vm");
/// let report = judge.judge_graph_def(&graph);
/// assert_eq!(report.oldest_release().unwrap().name(), "2.20.0");
/// let refusal = &report.verdicts()[0].errors()[0];
/// assert!(refusal.message().starts_with(
///     "Converting GraphDef to Graph has failed with an error: 'Op type not registered \
///      'DecodeWebP' in binary running on vm."));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseJudge {
    host: String,
    /// The releases judged, oldest first.
    releases: Vec<TfRelease>,
}

impl Default for ReleaseJudge {
    fn default() -> Self {
        Self::new()
    }
}

impl ReleaseJudge {
    /// A judge that names this machine in its messages, as TensorFlow running here would.
    pub fn new() -> Self {
        let host = gethostname::gethostname().to_string_lossy().into_owned();
        if host.is_empty() {
            return Self::with_host("localhost");
        }
        Self::with_host(host)
    }

    /// A judge that names `host` in `Op type not registered ... in binary running on HOST`.
    pub fn with_host(host: impl Into<String>) -> Self {
        Self {
            host: host.into(),
            releases: TfRelease::all().collect(),
        }
    }

    /// This judge, judging only `release`: its reports hold one verdict. Every step the
    /// release takes is replayed as when it is judged among the others.
    ///
    /// ```
    /// use graphdef_versions::{ReleaseJudge, TfRelease, schema::GraphDef};
    ///
    /// let newest = TfRelease::all().last().unwrap();
    /// let report = ReleaseJudge::with_host("vm").only(newest).judge_graph_def(&GraphDef::default());
    /// assert_eq!(report.verdicts().len(), 1);
    /// assert_eq!(report.verdicts()[0].release().name(), "2.21.0");
    /// ```
    pub fn only(mut self, release: TfRelease) -> Self {
        self.releases = vec![release];
        self
    }

    /// Judges the GraphDef or SavedModel at `path`, by what its bytes are: a file is read,
    /// a directory is a SavedModel's (its `saved_model.pb` is read). A GraphDef is judged as
    /// [`ReleaseJudge::judge`] judges it, a SavedModel as [`ReleaseJudge::judge_saved_model`]
    /// judges it, with the variables of its directory.
    ///
    /// A path that names nothing readable is an [`Error::File`] that says
    /// what to give instead; nothing is opened that is not a regular file, and a file larger
    /// than a protobuf message is refused before it is read.
    ///
    /// ```no_run
    /// use graphdef_versions::ReleaseJudge;
    ///
    /// let report = ReleaseJudge::new().judge_path("exported_model".as_ref())?;
    /// println!("{:?}", report.oldest_release().map(|release| release.name()));
    /// # Ok::<(), graphdef_versions::Error>(())
    /// ```
    pub fn judge_path(&self, path: &Path) -> Result<ReleaseReport, Error> {
        let model = read_model(path)?;
        self.judge_bytes(&model.bytes, Some(&model.dir))
    }

    /// Judges a GraphDef or a `saved_model.pb`, by what it is: a GraphDef as
    /// `import_graph_def` imports it, a SavedModel as `tf.saved_model.load` loads it (its first
    /// meta graph, as `tf.saved_model.load` does).
    pub fn judge(&self, bytes: &[u8]) -> Result<ReleaseReport, Error> {
        self.judge_bytes(bytes, None)
    }

    /// [`ReleaseJudge::judge`], a SavedModel's variables checked in `dir` when it is given.
    fn judge_bytes(&self, bytes: &[u8], dir: Option<&Path>) -> Result<ReleaseReport, Error> {
        if let Some(other) = other_format(bytes) {
            return Err(other.into());
        }
        // A GraphDef is read in place, once. A file that starts with a node is read before
        // anything else tells its kind: read whole, with a node in it, it is a GraphDef (a
        // SavedModel's top-level fields have other wire types, which the reading leaves to
        // prost). Anything else unusual in the bytes is left to prost too, which refuses them
        // or decodes them for a plain reading.
        let starts_with_node = scan::starts_with_node(bytes);
        if starts_with_node {
            check_size(bytes)?;
            let estimate = bytes.len() / 16;
            if let Some(graph) = Graph::read(bytes, estimate).filter(|graph| graph.len() > 0) {
                return Ok(self.import_in_each_release(&graph));
            }
        }
        let (kind, nodes) = Kind::detect_counting_nodes(bytes)?;
        if kind == Kind::GraphDef {
            if !starts_with_node && let Some(graph) = Graph::read(bytes, nodes) {
                return Ok(self.import_in_each_release(&graph));
            }
            // What the reading in place leaves to prost (a node's name given twice, an unknown
            // field in a node, ...): the graph decoded whole, as TensorFlow decodes it.
            check_size(bytes)?;
            let graph = GraphDef::decode(bytes).map_err(|source| DecodeError::Message {
                what: "GraphDef",
                source,
            })?;
            return Ok(self.judge_graph_def(&graph));
        }
        // A SavedModel is decoded whole, as TensorFlow's loader decodes it.
        Artifact::open_as(kind, bytes)?;
        let model = decode_saved_model(bytes)?;
        let checkpoint = dir.map(Checkpoint::read);
        Ok(self.load_in_each_release(&model, checkpoint.as_ref()))
    }

    /// Judges a SavedModel as `tf.saved_model.load(dir)` loads it: `saved_model` is the bytes
    /// of `dir/saved_model.pb`, and the variables the SavedModel restores are checked against
    /// the checkpoint in `dir/variables/` (its `.index` file is read, and the data shards are
    /// looked for; no tensor is read). Messages name the checkpoint as
    /// `dir/variables/variables`, with `dir` as given.
    ///
    /// ```no_run
    /// use graphdef_versions::ReleaseJudge;
    /// use std::path::Path;
    ///
    /// let dir = Path::new("exported_model");
    /// let bytes = std::fs::read(dir.join("saved_model.pb"))?;
    /// let report = ReleaseJudge::new().judge_saved_model(&bytes, dir)?;
    /// println!("{:?}", report.oldest_release().map(|release| release.name()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn judge_saved_model(
        &self,
        saved_model: &[u8],
        dir: &Path,
    ) -> Result<ReleaseReport, Error> {
        check_size(saved_model)?;
        let kind = Kind::detect(saved_model)?;
        if kind != Kind::SavedModel {
            return Err(DecodeError::UnknownArtifact {
                reason: "the file is a GraphDef, not a SavedModel's saved_model.pb",
            }
            .into());
        }
        Artifact::open_as(kind, saved_model)?;
        let model = decode_saved_model(saved_model)?;
        Ok(self.load_in_each_release(&model, Some(&Checkpoint::read(dir))))
    }

    /// Every release's verdict on `graph` imported with `import_graph_def`.
    pub fn judge_graph_def(&self, graph: &GraphDef) -> ReleaseReport {
        let bytes = graph.encode_to_vec();
        match Graph::read(&bytes, graph.node.len()) {
            Some(read) => self.import_in_each_release(&read),
            None => self.each_release(Loader::ImportGraphDef, |_| {
                vec![invalid_graph_def().raised()]
            }),
        }
    }

    /// Every release's verdict on a TensorFlow 2 SavedModel whose meta graph holds `graph`,
    /// loaded with `tf.saved_model.load`: its functions restored (the object graph's revival
    /// and the variables are [`ReleaseJudge::judge`]'s and [`ReleaseJudge::judge_saved_model`]'s).
    pub fn judge_saved_model_graph(&self, graph: &GraphDef) -> ReleaseReport {
        let library = graph.library.as_ref();
        let mut ops = used_ops(library);
        // Every function argument becomes a Placeholder.
        ops.insert("Placeholder");
        let mut alike = Alike::default();
        self.each_release(Loader::SavedModelLoad, |release| {
            // Each release judges deprecations by its own version.
            let current = release.graph_def().current.get();
            alike
                .judge(release, &ops, current, 0, || {
                    self.load_functions(graph, release, None)
                })
                .err()
                .into_iter()
                .collect()
        })
    }

    /// `import_graph_def` of `graph` in one release.
    pub fn import_graph_def(&self, graph: &GraphDef, release: TfRelease) -> Option<LoadError> {
        let bytes = graph.encode_to_vec();
        let Some(read) = Graph::read(&bytes, graph.node.len()) else {
            return Some(invalid_graph_def().raised());
        };
        self.import_graph(&read, release)
    }

    /// `tf.saved_model.load` of a TensorFlow 2 SavedModel whose meta graph holds `graph`, in
    /// one release: its functions restored, as [`ReleaseJudge::judge_saved_model_graph`] says.
    pub fn load_saved_model(&self, graph: &GraphDef, release: TfRelease) -> Option<LoadError> {
        self.load_functions(graph, release, None).err()
    }

    /// Every release's verdict on `graph` imported with `import_graph_def`: one import for
    /// the releases that define the graph's ops alike.
    fn import_in_each_release(&self, graph: &Graph<'_>) -> ReleaseReport {
        let mut verdicts = self.import_verdicts(graph).into_iter();
        self.each_release(Loader::ImportGraphDef, |_| {
            verdicts.next().flatten().into_iter().collect()
        })
    }

    /// What each release raises when it imports `graph` with `import_graph_def`, oldest first.
    fn import_verdicts(&self, graph: &Graph<'_>) -> Vec<Option<LoadError>> {
        let versions = graph.rest.versions.clone().unwrap_or_default();
        let library = graph.rest.library.as_ref();
        let mut ops = used_ops(library);
        ops.extend(graph.forms().iter().map(|(_, form)| form.op));
        let mut alike = Alike::default();
        self.releases
            .iter()
            .map(|&release| {
                if let Err(refusal) = release.consumer(Scheme::GraphDef).check(&versions) {
                    return Some(LoadError {
                        python_class: "ValueError",
                        message: refusal.to_string(),
                    });
                }
                let failure = alike
                    .judge(release, &ops, versions.producer, 0, || {
                        Importer::new(release, &self.host, library)
                            .import(graph, Some(versions.producer))
                    })
                    .err()?;
                self.import_error(release, failure, versions.producer)
            })
            .collect()
    }

    /// `import_graph_def` of a graph read already, in one release.
    fn import_graph(&self, graph: &Graph<'_>, release: TfRelease) -> Option<LoadError> {
        let versions = graph.rest.versions.clone().unwrap_or_default();
        if let Err(refusal) = release.consumer(Scheme::GraphDef).check(&versions) {
            return Some(LoadError {
                python_class: "ValueError",
                message: refusal.to_string(),
            });
        }
        let importer = Importer::new(release, &self.host, graph.rest.library.as_ref());
        let failure = importer.import(graph, Some(versions.producer)).err()?;
        self.import_error(release, failure, versions.producer)
    }

    /// What `import_graph_def` raises for `failure` in `release`, for a graph produced at
    /// `producer`.
    fn import_error(
        &self,
        release: TfRelease,
        failure: Failure,
        producer: i32,
    ) -> Option<LoadError> {
        let current = release.graph_def().current.get();
        let message = if i64::from(producer) - i64::from(current) > 21 {
            // MaybeAppendVersionWarning (graph_constructor.cc): TensorFlow promises three weeks
            // of forward compatibility.
            format!(
                "Converting GraphDef to Graph has failed with an error: '{}' The binary trying \
                 to import the GraphDef was built when GraphDef version was {current}. The \
                 GraphDef was produced by a binary built when GraphDef version was {producer}. \
                 The difference between these versions is larger than TensorFlow's forward \
                 compatibility guarantee, and might be the root cause for failing to import \
                 the GraphDef.",
                failure.message
            )
        } else {
            failure.message
        };
        Some(Failure { message, ..failure }.raised())
    }

    /// `tf.saved_model.load`'s restoring of the functions, in one release: each function's
    /// recorded signatures decoded (when the object graph `objects` is given), then its body
    /// imported as a graph of its own.
    fn load_functions(
        &self,
        graph: &GraphDef,
        release: TfRelease,
        objects: Option<&SavedObjectGraph>,
    ) -> Result<(), LoadError> {
        let order = load_order(graph.library.as_ref());
        let decoded = objects.and_then(|objects| first_undecodable(objects, &order, release));
        let imported = self.import_functions(graph, &order, release).err();
        first_failure(decoded, imported).map_or(Ok(()), Err)
    }

    /// The bodies of the library's functions, taken in `order`, each imported as a graph of its
    /// own in `release`; a refusal comes with the position in `order` of the function refused.
    /// Which signatures a release decodes is [`first_undecodable`]'s: the two are judged apart,
    /// as they depend on the release through different things (its ops, its `struct.proto`).
    fn import_functions(
        &self,
        graph: &GraphDef,
        order: &[&FunctionDef],
        release: TfRelease,
    ) -> Result<(), (usize, LoadError)> {
        let library = graph.library.as_ref();
        let importer = Importer::new(release, &self.host, library).for_function_bodies();
        let current = release.graph_def().current.get();
        let raised = |failure| saved_model_error(failure, release);
        let mut library_added = false;
        for (at, &function) in order.iter().enumerate() {
            let at_function = |error| (at, error);
            let body = GraphDef {
                node: importer
                    .function_graph(function)
                    .map_err(raised)
                    .map_err(at_function)?,
                ..GraphDef::default()
            };
            let bytes = body.encode_to_vec();
            let read = Graph::read(&bytes, body.node.len())
                .ok_or_else(invalid_graph_def)
                .map_err(raised)
                .map_err(at_function)?;
            if let Some(refusal) = read.refusal() {
                return Err(at_function(raised(refusal.clone())));
            }
            // The library is the same for every body: it is added (and refused) once.
            if !library_added {
                importer
                    .add_function_library()
                    .map_err(raised)
                    .map_err(at_function)?;
                library_added = true;
            }
            importer
                .import_body(&read, Some(current))
                .map_err(raised)
                .map_err(at_function)?;
        }
        Ok(())
    }

    fn each_release(
        &self,
        loader: Loader,
        mut judge: impl FnMut(TfRelease) -> Vec<LoadError>,
    ) -> ReleaseReport {
        let verdicts = self
            .releases
            .iter()
            .map(|&release| ReleaseVerdict {
                release,
                errors: judge(release),
            })
            .collect();
        ReleaseReport { loader, verdicts }
    }
}

/// The first function, in `order`, whose recorded signatures `release` cannot decode, with
/// its position in `order`.
fn first_undecodable(
    objects: &SavedObjectGraph,
    order: &[&FunctionDef],
    release: TfRelease,
) -> Option<(usize, LoadError)> {
    order.iter().enumerate().find_map(|(at, function)| {
        let name = function.signature.as_ref().map_or("", |s| s.name.as_str());
        revive::decode_concrete_function(objects, name, release)
            .err()
            .map(|error| (at, error))
    })
}

/// Which of two refusals, each at a function's position in the load order, a release raises
/// first: a function's signatures are decoded before its body is imported.
fn first_failure(
    decoded: Option<(usize, LoadError)>,
    imported: Option<(usize, LoadError)>,
) -> Option<LoadError> {
    match (decoded, imported) {
        (Some((d, decoding)), Some((i, _))) if d <= i => Some(decoding),
        (_, Some((_, importing))) => Some(importing),
        (decoded, None) => decoded.map(|(_, decoding)| decoding),
    }
}

/// Releases that judge a graph alike, so that one judgement serves them all.
///
/// An import depends on a release through the definitions of the ops it looks up (the graph's
/// and its library's, and the library's function names, which may not be ops), through
/// whether each op is deprecated at the producer it judges by, and through its [`Dialect`]:
/// which data types it knows, and its wording. Releases that agree on all of that refuse a
/// graph in the same words. Acceptance needs less: a release whose dialect knows every data
/// type an older one knows accepts what the older one accepted with the same definitions
/// (knowing more types is the only way a dialect changes what is valid). The releases are
/// judged oldest first, so an acceptance carries forward.
struct Alike<E> {
    accepted: Vec<(Vec<OpUse>, Dialect, u32)>,
    refused: HashMap<(Vec<OpUse>, Dialect, u32), E>,
}

impl<E> Default for Alike<E> {
    fn default() -> Self {
        Alike {
            accepted: Vec::new(),
            refused: HashMap::new(),
        }
    }
}

/// How a release defines an op a graph uses: which definition, and whether it is deprecated
/// at the producer it judges by.
type OpUse = (Option<OpDefId>, bool);

impl<E: Clone> Alike<E> {
    /// `judgement`'s result in `release`, which judges by `producer` a graph that uses `ops`,
    /// or that of a release judged before that judges alike. `extra` is anything else the
    /// judgement depends on in a release, which releases judged alike share.
    fn judge(
        &mut self,
        release: TfRelease,
        ops: &BTreeSet<&str>,
        producer: i32,
        extra: u32,
        judgement: impl FnOnce() -> Result<(), E>,
    ) -> Result<(), E> {
        let uses: Vec<OpUse> = ops
            .iter()
            .map(|&op| {
                let id = release.op_def_id(op);
                let deprecated = id
                    .and_then(|id| id.op_def().deprecation.as_ref())
                    .is_some_and(|deprecation| producer >= deprecation.version);
                (id, deprecated)
            })
            .collect();
        let dialect = Dialect::of(release.number());
        let accepted_before = self.accepted.iter().any(|(seen, older, seen_extra)| {
            *seen == uses && *seen_extra == extra && older.known_types_within(&dialect)
        });
        if accepted_before {
            return Ok(());
        }
        let key = (uses, dialect, extra);
        if let Some(failure) = self.refused.get(&key) {
            return Err(failure.clone());
        }
        let result = judgement();
        match &result {
            Ok(()) => self.accepted.push(key),
            Err(failure) => {
                self.refused.insert(key, failure.clone());
            }
        }
        result
    }
}

/// Every op a library's functions use, and the functions' names.
fn used_ops(library: Option<&FunctionDefLibrary>) -> BTreeSet<&str> {
    let mut ops = BTreeSet::new();
    for function in library.iter().flat_map(|l| &l.function) {
        if let Some(signature) = &function.signature {
            ops.insert(signature.name.as_str());
        }
        ops.extend(function.node_def.iter().map(|n| n.op.as_str()));
    }
    ops
}

/// What `tf.saved_model.load` raises for `failure` in `release`.
fn saved_model_error(failure: Failure, release: TfRelease) -> LoadError {
    // load.py turns a NotFoundError into FileNotFoundError with advice about devices. From
    // 2.13 the op lookup in function_def_to_graph raises a RuntimeError instead, which it
    // lets through.
    let (python_class, message) = match failure.code {
        Code::PythonOpLookup if release.number() < ReleaseNumber::new(2, 13, 0) => {
            ("FileNotFoundError", with_device_advice(failure.message))
        }
        Code::PythonOpLookup => ("RuntimeError", failure.message),
        Code::NotFound => ("FileNotFoundError", with_device_advice(failure.message)),
        code => (code.python_class(), failure.message),
    };
    LoadError {
        python_class,
        message,
    }
}

fn with_device_advice(message: String) -> String {
    format!(
        "{message}\n You may be trying to load on a different device from the computational \
         device. Consider setting the `experimental_io_device` option in \
         `tf.saved_model.LoadOptions` to the io_device such as '/job:localhost'."
    )
}

/// What importing a graph that protobuf cannot parse raises (`TF_GraphImportGraphDef`, for a
/// graph nested deeper than protobuf's limit once serialized).
fn invalid_graph_def() -> Failure {
    Failure::invalid("Invalid GraphDef")
}

/// TensorFlow's status codes that reach the user here, and the Python class each becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Code {
    InvalidArgument,
    NotFound,
    Unimplemented,
    Internal,
    /// The op lookup Python does itself while turning a function into a graph.
    PythonOpLookup,
}

impl Code {
    fn python_class(self) -> &'static str {
        match self {
            // import_graph_def re-raises InvalidArgumentError as ValueError.
            Code::InvalidArgument => "ValueError",
            Code::NotFound | Code::PythonOpLookup => "NotFoundError",
            Code::Unimplemented => "UnimplementedError",
            Code::Internal => "InternalError",
        }
    }
}

/// A release's refusal, before the loader turns it into a Python exception.
#[derive(Clone, Debug)]
struct Failure {
    code: Code,
    message: String,
}

impl Failure {
    fn invalid(message: impl Into<String>) -> Self {
        Failure {
            code: Code::InvalidArgument,
            message: message.into(),
        }
    }

    /// The exception Python raises for it (`import_graph_def`'s mapping).
    fn raised(self) -> LoadError {
        LoadError {
            python_class: self.code.python_class(),
            message: self.message,
        }
    }

    /// `errors::AppendToMessage`: the context on a new line, after a tab.
    fn context(mut self, context: &str) -> Self {
        self.message.push_str("\n\t");
        self.message.push_str(context);
        self
    }
}
