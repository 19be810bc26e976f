//! [`ReleaseJudge`]: each release's loader replayed on a file, oldest release first.
//!
//! A SavedModel goes through `tf.saved_model.load`, step by step, in each release
//! (`load_partial`, `tensorflow/python/saved_model/load.py`, and `load_v1_in_v2.py` for
//! TensorFlow 1 files). A SavedModel of one meta graph with an object graph is a TensorFlow 2
//! one:
//!
//! 1. every function of the library, in dependency order, has its recorded Python signatures
//!    decoded ([`super::revive`]) and its body imported as a graph of its own;
//! 2. the objects are revived: the functions' Python signatures decoded, the optimizers' slot
//!    variables made;
//! 3. the variables are restored from the checkpoint ([`super::restore`]).
//!
//! Any other is loaded as a TensorFlow 1 one, which needs exactly one meta graph (without
//! `tags=`, as `tf.saved_model.load(path)` is called):
//!
//! 1. its library's functions are loaded as a TensorFlow 2 one's are;
//! 2. its graph is imported, as `import_graph_def` imports it;
//! 3. its saver's restore op is run, which reads the checkpoint ([`super::saved_model`]);
//! 4. its init op is run (not replayed: a table initializer reading an asset, for example);
//! 5. each signature is pruned into a function ([`super::prune`]). TensorFlow takes the
//!    signatures in an order that changes from one run to the next, so a file with several
//!    failing signatures raises any one of their errors: the verdict lists each, in key order.
//!
//! Without the SavedModel's directory the checkpoint is not looked at (step 3 of either).

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use prost::Message;

use super::alike::{Alike, used_ops};
use super::failure::{Failure, invalid_graph_def, saved_model_error};
use super::graph::ImportedGraph;
use super::import::Importer;
use super::load_order::load_order;
use super::printing::Dialect;
use super::prune::Pruner;
use super::report::{LoadError, Loader, ReleaseReport, ReleaseVerdict};
use super::restore::Checkpoint;
use super::revive::{self, last_value_field, revive};
use super::saved_model::{decode_saved_model, python_list, restore_with_saver};
use super::scan::{ScannedGraph, starts_with_node};
use crate::artifact::other_format;
use crate::error::{DecodeError, Error};
use crate::model_file::read_model;
use crate::releases::TfRelease;
use crate::schema::{FunctionDef, GraphDef, MetaGraphDef, SavedModel, SavedObjectGraph};
use crate::version::Scheme;
use crate::wire::check_size;
use crate::{Artifact, Kind};

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
        self.judge_file(&model.bytes, &model.path)
    }

    /// [`ReleaseJudge::judge_path`] for bytes already read from `file` (the file
    /// [`model_file`](crate::model_file()) names): a SavedModel's variables are looked for beside
    /// it. For a caller that has the bytes in hand (a memory map, say), so the file is not read
    /// twice.
    pub fn judge_file(&self, bytes: &[u8], file: &Path) -> Result<ReleaseReport, Error> {
        self.judge_bytes(bytes, Some(file.parent().unwrap_or(Path::new(""))))
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
        let starts_with_node = starts_with_node(bytes);
        if starts_with_node {
            check_size(bytes)?;
            let estimate = bytes.len() / 16;
            if let Some(graph) = ScannedGraph::read(bytes, estimate).filter(|graph| graph.len() > 0)
            {
                return Ok(self.import_in_each_release(&graph));
            }
        }
        let (kind, nodes) = Kind::detect_counting_nodes(bytes)?;
        if kind == Kind::GraphDef {
            if !starts_with_node && let Some(graph) = ScannedGraph::read(bytes, nodes) {
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
        match ScannedGraph::read(&bytes, graph.node.len()) {
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
        let Some(read) = ScannedGraph::read(&bytes, graph.node.len()) else {
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
    fn import_in_each_release(&self, graph: &ScannedGraph<'_>) -> ReleaseReport {
        let mut verdicts = self.import_verdicts(graph).into_iter();
        self.each_release(Loader::ImportGraphDef, |_| {
            verdicts.next().flatten().into_iter().collect()
        })
    }

    /// What each release raises when it imports `graph` with `import_graph_def`, oldest first.
    fn import_verdicts(&self, graph: &ScannedGraph<'_>) -> Vec<Option<LoadError>> {
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
    fn import_graph(&self, graph: &ScannedGraph<'_>, release: TfRelease) -> Option<LoadError> {
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
            // The body's nodes are kept as they are: its bytes need not be decoded again.
            let read = ScannedGraph::read_built(&bytes, body.node)
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

    /// Every release's verdict on `model`, the variables checked against `checkpoint` when
    /// given.
    fn load_in_each_release(
        &self,
        model: &SavedModel,
        checkpoint: Option<&Checkpoint>,
    ) -> ReleaseReport {
        let Some(meta) = model.meta_graphs.first() else {
            return self.each_release(Loader::SavedModelLoad, |_| Vec::new());
        };
        match (&meta.object_graph_def, model.meta_graphs.len()) {
            (Some(objects), 1) => self.load_tf2(meta, objects, checkpoint),
            (_, 1) => self.load_tf1(meta, checkpoint),
            (_, count) => {
                let tags: Vec<String> = model
                    .meta_graphs
                    .iter()
                    .map(|meta| {
                        let tags = meta.meta_info_def.as_ref().map(|info| info.tags.as_slice());
                        python_list(tags.unwrap_or_default())
                    })
                    .collect();
                let error = LoadError {
                    python_class: "ValueError",
                    message: format!(
                        "Importing a SavedModel with `tf.saved_model.load` requires a `tags=` \
                         argument if there is more than one MetaGraph. Got `tags=None`, but \
                         there are {count} MetaGraphs in the SavedModel with tag sets: [{}]. \
                         Pass a `tags=` argument to load this SavedModel.",
                        tags.join(", ")
                    ),
                };
                self.each_release(Loader::SavedModelLoad, |_| vec![error.clone()])
            }
        }
    }

    /// A TensorFlow 2 SavedModel: functions, objects, variables.
    fn load_tf2(
        &self,
        meta: &MetaGraphDef,
        objects: &SavedObjectGraph,
        checkpoint: Option<&Checkpoint>,
    ) -> ReleaseReport {
        let empty = GraphDef::default();
        let graph = meta.graph_def.as_ref().unwrap_or(&empty);
        let mut ops = used_ops(graph.library.as_ref());
        // Every function argument becomes a Placeholder.
        ops.insert("Placeholder");
        let restored = checkpoint.and_then(Checkpoint::restore_objects);
        let order = load_order(graph.library.as_ref());
        let mut alike = Alike::default();
        // Releases that decode the same fields of a `StructuredValue` decode alike.
        let mut decodings = HashMap::new();
        self.each_release(Loader::SavedModelLoad, |release| {
            // Each release judges deprecations by its own version.
            let current = release.graph_def().current.get();
            let imported = alike.judge(release, &ops, current, 0, || {
                self.import_functions(graph, &order, release)
            });
            let decoded = decodings
                .entry(last_value_field(release))
                .or_insert_with(|| first_undecodable(objects, &order, release))
                .clone();
            let failure = first_failure(decoded, imported.err())
                .or_else(|| revive(objects, release).err())
                .or_else(|| restored.clone());
            failure.into_iter().collect()
        })
    }

    /// A TensorFlow 1 SavedModel: functions, import, restore, signatures.
    fn load_tf1(&self, meta: &MetaGraphDef, checkpoint: Option<&Checkpoint>) -> ReleaseReport {
        let empty = GraphDef::default();
        let graph = meta.graph_def.as_ref().unwrap_or(&empty);
        let library = graph.library.as_ref();
        let mut function_ops = used_ops(library);
        function_ops.insert("Placeholder");
        let mut functions = Alike::default();
        let bytes = graph.encode_to_vec();
        let imports = match ScannedGraph::read(&bytes, graph.node.len()) {
            Some(read) => self.import_verdicts(&read),
            None => vec![Some(invalid_graph_def().raised()); self.releases.len()],
        };
        let mut ops: BTreeSet<&str> = function_ops.clone();
        ops.extend(graph.node.iter().map(|node| node.op.as_str()));
        let producer = graph.versions.as_ref().map_or(0, |v| v.producer);
        let mut after_import = Alike::default();
        let mut imports = imports.into_iter();
        self.each_release(Loader::SavedModelLoad, |release| {
            let current = release.graph_def().current.get();
            let imported = imports.next().flatten();
            let loaded = functions.judge(release, &function_ops, current, 0, || {
                self.load_functions(graph, release, None)
                    .map_err(|e| vec![e])
            });
            if let Err(errors) = loaded {
                return errors;
            }
            if let Some(error) = imported {
                return vec![error];
            }
            after_import
                .judge(release, &ops, producer, 0, || {
                    self.restore_and_prune(meta, graph, release, checkpoint)
                })
                .err()
                .unwrap_or_default()
        })
    }

    /// Steps 3 and 5 of a TensorFlow 1 SavedModel, once its graph is imported: every error a
    /// release may raise first.
    fn restore_and_prune(
        &self,
        meta: &MetaGraphDef,
        graph: &GraphDef,
        release: TfRelease,
        checkpoint: Option<&Checkpoint>,
    ) -> Result<(), Vec<LoadError>> {
        let importer = Importer::new(release, &self.host, graph.library.as_ref());
        let nodes = ImportedGraph::new(&graph.node, &importer);
        let d = Dialect::of(release.number());
        if let (Some(checkpoint), Some(saver)) = (checkpoint, &meta.saver_def)
            && let Some(error) = restore_with_saver(&nodes, checkpoint, saver, &d)
        {
            return Err(vec![error]);
        }
        let current = release.graph_def().current.get();
        let producer = graph.versions.as_ref().map_or(0, |v| v.producer);
        let pruner = Pruner::new(&nodes, d, current, producer);
        let mut keys: Vec<&String> = meta.signature_def.keys().collect();
        keys.sort();
        let errors: Vec<LoadError> = keys
            .into_iter()
            .filter_map(|key| pruner.prune(key, &meta.signature_def[key]).err())
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
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
