//! Which TensorFlow releases load a graph: each release's importer, replayed.
//!
//! VersionDef refusals are rare. What stops a graph made by a newer TensorFlow in an older one
//! is the older release's op registry: an op it does not have, an attr value it does not allow,
//! an input whose type a newer attr changed. [`ReleaseJudge`] replays, for each release in
//! [`TfRelease::all`], what that release does when it loads the file, with that release's own
//! ops and constants, and reports its first refusal in its own words:
//!
//! - a GraphDef as `tf.graph_util.import_graph_def` imports it (`ImportGraphDef`,
//!   `tensorflow/core/common_runtime/graph_constructor.cc`): the VersionDef check; then node by
//!   node in topological order: the op lookup, the node's attrs against the op
//!   (`ValidateNodeDef`, `tensorflow/core/framework/node_def_util.cc`), the op's deprecation by
//!   the graph's producer, the type of every edge, and, for a node that calls a function
//!   (directly, or through `PartitionedCall`/`StatefulPartitionedCall`), the function's
//!   instantiation (`InstantiateFunction`, `tensorflow/core/framework/function.cc`), which
//!   checks the ops and types inside it and the functions it calls in turn. A library function
//!   nothing calls is not looked at. When the graph's producer is more than 21 versions newer
//!   than the release, the error is wrapped in `Converting GraphDef to Graph has failed ...`;
//! - a TensorFlow 2 SavedModel as `tf.saved_model.load` loads it
//!   (`tensorflow/python/saved_model/load.py`, `function_deserialization.py`): every function of
//!   the library, in dependency order, is turned into a graph of its own and imported, so its
//!   attr values are validated and its deprecations judged by the release's own version. This
//!   is why the two loaders disagree on some SavedModels. A SavedModel without an object graph
//!   (TensorFlow 1) is imported as a GraphDef.
//!
//! An attr the release's op does not know is not a refusal: TensorFlow logs `NodeDef mentions
//! attribute ...` and ignores it. What refuses is its effect on types and values.
//!
//! Shape functions are not replayed, nor are kernels: a graph this accepts can still fail when
//! it runs. The host name in `Op type not registered ... in binary running on HOST` is the
//! machine's that loads the graph; [`ReleaseJudge::with_host`] sets it.

mod graph;

use std::borrow::Cow;
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::rc::Rc;

use graph::{
    BIG_SLOT, FastMap, FastSet, GraphNode, GraphViews, NOT_YET, NodeSource, Prepared, Scratch,
    tensor_id,
};

use crate::error::Error;
use crate::policy::ReleaseNumber;
use crate::releases::TfRelease;
use crate::schema::attr_value::{ListValue, Value};
use crate::schema::op_def::{ArgDef, AttrDef};
use crate::schema::{AttrValue, FunctionDef, FunctionDefLibrary, GraphDef, NodeDef, OpDef};
use crate::summary::{Dialect, base_type, is_ref, node_for_error, ref_type, types_compatible};
use crate::version::Scheme;
use crate::{Artifact, Kind};

/// More than this many values of one input or output (a `number_attr` or a type list) is
/// refused before anything is allocated for them.
const MAX_ARG_VALUES: usize = 1 << 20;

/// Function calls nest at most this deep while instantiating.
const MAX_CALL_DEPTH: usize = 64;

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

/// A release's refusal: the Python exception it raises, and its message to the byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseRefusal {
    python_class: &'static str,
    message: String,
}

impl ReleaseRefusal {
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

impl fmt::Display for ReleaseRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One release's verdict on a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseVerdict {
    release: TfRelease,
    errors: Vec<ReleaseRefusal>,
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
    pub fn errors(&self) -> &[ReleaseRefusal] {
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
/// A TensorFlow 2 SavedModel is judged as `tf.saved_model.load` loads it: every library
/// function, in dependency order, becomes a graph of its own and is imported. An attr the
/// release does not know is not a refusal; its effect on types and values is. Shape functions
/// and kernels are not replayed.
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
    threads: usize,
}

impl Default for ReleaseJudge {
    fn default() -> Self {
        Self::new()
    }
}

impl ReleaseJudge {
    /// A judge that names this machine in its messages, as TensorFlow running here would.
    pub fn new() -> Self {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".to_string());
        Self { host, threads: 1 }
    }

    /// A judge that names `host` in `Op type not registered ... in binary running on HOST`.
    pub fn with_host(host: impl Into<String>) -> Self {
        Self {
            host: host.into(),
            threads: 1,
        }
    }

    /// How many threads a judgement may use; 1, the default, is the calling thread alone.
    ///
    /// With 2 or more, a large file (4 MiB or more) that starts with a node is read as a
    /// GraphDef on a second, scoped thread while the calling thread takes the nodes read so
    /// far (numbers their ops, hashes and checks their names, parses their inputs); reading it
    /// whole tells that it is a GraphDef, so nothing reads it before. Both threads then sort
    /// half of the name index each. The two stages take about as long, so a large graph is
    /// judged in a little over half the time; more threads than 2 are not used. The verdicts
    /// are the same: the nodes are taken in file order either way.
    ///
    /// ```
    /// use graphdef_versions::ReleaseJudge;
    /// use graphdef_versions::schema::{GraphDef, NodeDef};
    /// use prost::Message;
    ///
    /// let graph = GraphDef {
    ///     node: vec![NodeDef { name: "n".into(), op: "NoOp".into(), ..Default::default() }],
    ///     ..Default::default()
    /// };
    /// let bytes = graph.encode_to_vec();
    /// let two = ReleaseJudge::with_host("vm").threads(2).judge(&bytes).unwrap();
    /// assert_eq!(two, ReleaseJudge::with_host("vm").judge(&bytes).unwrap());
    /// assert_eq!(two.oldest_release().unwrap().name(), "2.12.1");
    /// ```
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Judges a GraphDef or a `saved_model.pb`, by what it is: a GraphDef as
    /// `import_graph_def` imports it, a SavedModel as `tf.saved_model.load` loads it (its first
    /// meta graph, as `tf.saved_model.load` does).
    pub fn judge(&self, bytes: &[u8]) -> Result<ReleaseReport, Error> {
        // A GraphDef is read in place, its nodes decoded only where their attrs must be
        // looked at; anything unusual in its bytes is left to the full decoder. With two
        // threads, a large file that starts with a node is read at once, before anything
        // tells its kind (reading it whole tells that it is a GraphDef).
        let two_threads = self.threads >= 2 && bytes.len() >= graph::TWO_THREADS_FROM;
        if two_threads {
            crate::wire::check_size(bytes)?;
            if let Some(views) = GraphViews::read_on_two_threads(bytes) {
                return Ok(self.judge_nodes(&views, &views.prepared, &views.rest));
            }
        }
        let (kind, nodes) = Kind::detect_counting_nodes(bytes)?;
        if kind == Kind::GraphDef
            && !two_threads
            && let Some(views) = GraphViews::read(bytes, nodes)
        {
            return Ok(self.judge_nodes(&views, &views.prepared, &views.rest));
        }
        let artifact = Artifact::open_as(kind, bytes)?;
        let graph = artifact
            .graphs()
            .first()
            .map(|g| g.decode())
            .transpose()?
            .unwrap_or_default();
        Ok(match artifact.kind() {
            Kind::GraphDef => self.judge_graph_def(&graph),
            Kind::SavedModel => {
                let object_graph = artifact
                    .graphs()
                    .first()
                    .and_then(|g| g.meta_graph.as_ref())
                    .is_some_and(|info| info.has_object_graph);
                if object_graph {
                    self.judge_saved_model_graph(&graph)
                } else {
                    self.judge_graph_def(&graph)
                }
            }
        })
    }

    /// Every release's verdict on `graph` imported with `import_graph_def`.
    pub fn judge_graph_def(&self, graph: &GraphDef) -> ReleaseReport {
        self.judge_nodes(graph.node.as_slice(), &Prepared::new(&graph.node), graph)
    }

    /// `import_graph_def` in every release of `nodes`, with the versions and library of
    /// `graph` (whose own nodes are not read).
    fn judge_nodes<S: NodeSource + ?Sized>(
        &self,
        nodes: &S,
        prepared: &Result<Prepared<'_>, Failure>,
        graph: &GraphDef,
    ) -> ReleaseReport {
        // Releases that define every op the graph names by the same OpDef import it alike, up
        // to the wording of a refusal: one import per such group says whether all of its
        // releases accept; only a refusing group is replayed release by release, for each
        // release's own message.
        let names = op_names(nodes, graph.library.as_ref());
        let mut accepted_by: HashMap<Vec<Option<*const OpDef>>, bool> = HashMap::new();
        self.report(Loader::ImportGraphDef, |release| {
            let versions = graph.versions.clone().unwrap_or_default();
            if release.consumer(Scheme::GraphDef).check(&versions).is_err() {
                return self.import_graph_def_prepared(nodes, graph, prepared, release);
            }
            let key: Vec<Option<*const OpDef>> = names
                .iter()
                .map(|name| release.op(name).map(|op| op as *const OpDef))
                .collect();
            if accepted_by.get(&key) == Some(&true) {
                return None;
            }
            let refusal = self.import_graph_def_prepared(nodes, graph, prepared, release);
            accepted_by.insert(key, refusal.is_none());
            refusal
        })
    }

    /// Every release's verdict on a TensorFlow 2 SavedModel whose meta graph holds `graph`,
    /// loaded with `tf.saved_model.load`.
    pub fn judge_saved_model_graph(&self, graph: &GraphDef) -> ReleaseReport {
        self.report(Loader::SavedModelLoad, |release| {
            self.load_saved_model(graph, release)
        })
    }

    fn report(
        &self,
        loader: Loader,
        mut judge: impl FnMut(TfRelease) -> Option<ReleaseRefusal>,
    ) -> ReleaseReport {
        let verdicts = TfRelease::all()
            .map(|release| ReleaseVerdict {
                release,
                errors: judge(release).into_iter().collect(),
            })
            .collect();
        ReleaseReport { loader, verdicts }
    }

    /// `import_graph_def` in one release.
    pub fn import_graph_def(&self, graph: &GraphDef, release: TfRelease) -> Option<ReleaseRefusal> {
        let prepared = Prepared::new(&graph.node);
        self.import_graph_def_prepared(graph.node.as_slice(), graph, &prepared, release)
    }

    /// [`Self::import_graph_def`] of a graph whose nodes were indexed already.
    fn import_graph_def_prepared<S: NodeSource + ?Sized>(
        &self,
        nodes: &S,
        graph: &GraphDef,
        prepared: &Result<Prepared<'_>, Failure>,
        release: TfRelease,
    ) -> Option<ReleaseRefusal> {
        let versions = graph.versions.clone().unwrap_or_default();
        if let Err(refusal) = release.consumer(Scheme::GraphDef).check(&versions) {
            return Some(ReleaseRefusal {
                python_class: "ValueError",
                message: refusal.to_string(),
            });
        }
        let importer = Importer::new(self, release, graph.library.as_ref());
        let failure = match prepared {
            Ok(prepared) => importer.import_prepared(nodes, prepared, Some(versions.producer)),
            Err(failure) => Err(failure.clone()),
        }
        .err()?;
        let current = release.graph_def().current.get();
        let message = if i64::from(versions.producer) - i64::from(current) > 21 {
            // MaybeAppendVersionWarning (graph_constructor.cc): TensorFlow promises three weeks
            // of forward compatibility.
            format!(
                "Converting GraphDef to Graph has failed with an error: '{}' The binary trying \
                 to import the GraphDef was built when GraphDef version was {current}. The \
                 GraphDef was produced by a binary built when GraphDef version was {}. The \
                 difference between these versions is larger than TensorFlow's forward \
                 compatibility guarantee, and might be the root cause for failing to import \
                 the GraphDef.",
                failure.message, versions.producer
            )
        } else {
            failure.message
        };
        Some(ReleaseRefusal {
            python_class: failure.code.python_class(),
            message,
        })
    }

    /// `tf.saved_model.load` of a TensorFlow 2 SavedModel in one release.
    pub fn load_saved_model(&self, graph: &GraphDef, release: TfRelease) -> Option<ReleaseRefusal> {
        let failure = self.load_functions(graph, release).err()?;
        // load.py turns a NotFoundError into FileNotFoundError with advice about devices. From
        // 2.13 the op lookup in function_def_to_graph raises a RuntimeError instead, which it
        // lets through.
        let (python_class, message) = match failure.code {
            Code::PythonOpLookup if release_before(release, 2, 13) => {
                ("FileNotFoundError", with_device_advice(failure.message))
            }
            Code::PythonOpLookup => ("RuntimeError", failure.message),
            Code::NotFound => ("FileNotFoundError", with_device_advice(failure.message)),
            code => (code.python_class(), failure.message),
        };
        Some(ReleaseRefusal {
            python_class,
            message,
        })
    }

    fn load_functions(&self, graph: &GraphDef, release: TfRelease) -> Result<(), Failure> {
        let library = graph.library.as_ref();
        let importer = Importer::new(self, release, library);
        let current = release.graph_def().current.get();
        for function in load_order(library) {
            let body = importer.function_graph(function)?;
            importer.import(&body, Some(current))?;
        }
        Ok(())
    }
}

/// Every op a graph's nodes and its library's functions name, and the library's functions
/// (a function a `f` attr names is one of them, or is never instantiated).
fn op_names<'a, S: NodeSource + ?Sized>(
    nodes: &'a S,
    library: Option<&'a FunctionDefLibrary>,
) -> Vec<&'a str> {
    let mut names: FastSet<&str> = nodes.op_names().into_iter().collect();
    if let Some(library) = library {
        for function in &library.function {
            if let Some(signature) = &function.signature {
                names.insert(&signature.name);
            }
            names.extend(function.node_def.iter().map(|n| n.op.as_str()));
        }
    }
    let mut names: Vec<&str> = names.into_iter().collect();
    names.sort_unstable();
    names
}

fn with_device_advice(message: String) -> String {
    format!(
        "{message}\n You may be trying to load on a different device from the computational \
         device. Consider setting the `experimental_io_device` option in \
         `tf.saved_model.LoadOptions` to the io_device such as '/job:localhost'."
    )
}

/// Whether `release` is older than `major.minor`.
fn release_before(release: TfRelease, major: u32, minor: u32) -> bool {
    release.number() < ReleaseNumber::new(major, minor, 0)
}

/// The functions of a library in the order `tf.saved_model.load` restores them
/// (`_sort_function_defs`, `function_deserialization.py`): a function after the library
/// functions it calls, ready functions taken last-in first-out. Functions in a cycle are left
/// out (TensorFlow refuses the whole library then).
fn load_order(library: Option<&FunctionDefLibrary>) -> Vec<&FunctionDef> {
    let Some(library) = library else {
        return Vec::new();
    };
    let names: HashSet<&str> = library
        .function
        .iter()
        .filter_map(|f| f.signature.as_ref().map(|s| s.name.as_str()))
        .collect();
    let mut in_count: HashMap<&str, usize> = HashMap::new();
    let mut edges: HashMap<&str, Vec<&str>> = HashMap::new();
    for function in &library.function {
        let Some(name) = function.signature.as_ref().map(|s| s.name.as_str()) else {
            continue;
        };
        let mut deps = BTreeSet::new();
        for node in &function.node_def {
            if names.contains(node.op.as_str()) {
                deps.insert(node.op.as_str());
                continue;
            }
            for value in node.attr.values() {
                match &value.value {
                    Some(Value::Func(f)) if names.contains(f.name.as_str()) => {
                        deps.insert(f.name.as_str());
                    }
                    Some(Value::List(list)) => {
                        for f in &list.func {
                            if names.contains(f.name.as_str()) {
                                deps.insert(f.name.as_str());
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        for dep in deps {
            edges.entry(dep).or_default().push(name);
            *in_count.entry(name).or_default() += 1;
        }
    }
    let by_name: HashMap<&str, &FunctionDef> = library
        .function
        .iter()
        .filter_map(|f| f.signature.as_ref().map(|s| (s.name.as_str(), f)))
        .collect();
    let mut ready: Vec<&str> = library
        .function
        .iter()
        .filter_map(|f| f.signature.as_ref().map(|s| s.name.as_str()))
        .filter(|name| in_count.get(name).copied().unwrap_or(0) == 0)
        .collect();
    let mut order = Vec::new();
    while let Some(name) = ready.pop() {
        if let Some(function) = by_name.get(name) {
            order.push(*function);
        }
        for dest in edges.get(name).map(Vec::as_slice).unwrap_or_default() {
            if let Some(count) = in_count.get_mut(dest) {
                *count -= 1;
                if *count == 0 {
                    ready.push(*dest);
                }
            }
        }
    }
    order
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

    /// `errors::AppendToMessage`: the context on a new line, after a tab.
    fn context(mut self, context: &str) -> Self {
        self.message.push_str("\n\t");
        self.message.push_str(context);
        self
    }
}

/// A node's input or output types, shared by the nodes that have the same.
type Types = Rc<[i32]>;

/// A node's attrs with the op's defaults filled in, by name.
type Attrs<'a> = HashMap<&'a str, &'a AttrValue>;

/// One release's ops, and the functions of the graph being loaded.
struct Importer<'a> {
    release: TfRelease,
    d: Dialect,
    host: &'a str,
    functions: FastMap<&'a str, &'a FunctionDef>,
    /// Ops looked up so far, by name.
    looked_up: RefCell<FastMap<Box<str>, &'a OpDef>>,
    library: Option<&'a FunctionDefLibrary>,
}

impl<'a> Importer<'a> {
    fn new(
        judge: &'a ReleaseJudge,
        release: TfRelease,
        library: Option<&'a FunctionDefLibrary>,
    ) -> Self {
        let functions = library
            .map(|l| {
                l.function
                    .iter()
                    .filter_map(|f| f.signature.as_ref().map(|s| (s.name.as_str(), f)))
                    .collect()
            })
            .unwrap_or_default();
        Importer {
            release,
            d: Dialect::of(release.number()),
            host: &judge.host,
            functions,
            looked_up: RefCell::default(),
            library,
        }
    }

    /// `OpRegistry::LookUp`'s refusal, in the release's wording (it changed in 2.14).
    fn not_registered(&self, op: &str) -> String {
        let host = self.host;
        if release_before(self.release, 2, 14) {
            format!(
                "Op type not registered '{op}' in binary running on {host}. Make sure the Op \
                 and Kernel are registered in the binary running in this process. Note that if \
                 you are loading a saved graph which used ops from tf.contrib, accessing (e.g.) \
                 `tf.contrib.resampler` should be done before importing the graph, as contrib \
                 ops are lazily registered when the module is first accessed."
            )
        } else {
            format!(
                "Op type not registered '{op}' in binary running on {host}. Make sure the Op \
                 and Kernel are registered in the binary running in this process. Note that if \
                 you are loading a saved graph which used ops from tf.contrib (e.g. \
                 `tf.contrib.resampler`), accessing should be done before importing the graph, \
                 as contrib ops are lazily registered when the module is first accessed."
            )
        }
    }

    /// The op (or function signature) named `name`: functions first, as the graph's function
    /// library does, then the release's registry.
    fn lookup(&self, name: &str) -> Result<&'a OpDef, Failure> {
        if let Some(op) = self.looked_up.borrow().get(name) {
            return Ok(op);
        }
        let op = match self.functions.get(name).and_then(|f| f.signature.as_ref()) {
            Some(signature) => signature,
            None => self.release.op(name).ok_or_else(|| Failure {
                code: Code::NotFound,
                message: self.not_registered(name),
            })?,
        };
        self.looked_up.borrow_mut().insert(name.into(), op);
        Ok(op)
    }

    /// `FunctionLibraryDefinition::AddLibrary`: a function may not share its name with an op.
    fn add_function_library(&self) -> Result<(), Failure> {
        let Some(library) = self.library else {
            return Ok(());
        };
        let mut seen: HashMap<&str, &FunctionDef> = HashMap::new();
        for function in &library.function {
            let Some(name) = function.signature.as_ref().map(|s| s.name.as_str()) else {
                continue;
            };
            if self.release.op(name).is_some() {
                return Err(Failure::invalid(format!(
                    "Cannot add function '{name}' because an op with the same name already exists."
                )));
            }
            if let Some(previous) = seen.insert(name, function)
                && previous != function
            {
                return Err(Failure::invalid(format!(
                    "Cannot add function '{name}' because a different function with the same \
                     name already exists."
                )));
            }
        }
        Ok(())
    }

    /// `GraphConstructor::TryImport` of `nodes`, judging deprecations by `producer`.
    fn import(&self, nodes: &[NodeDef], producer: Option<i32>) -> Result<(), Failure> {
        self.import_prepared(nodes, &Prepared::new(nodes)?, producer)
    }

    /// The part of `TryImport` that depends on the release: `Convert` onwards.
    fn import_prepared<S: NodeSource + ?Sized>(
        &self,
        nodes: &S,
        graph: &Prepared<'_>,
        producer: Option<i32>,
    ) -> Result<(), Failure> {
        // The per-node state of one import, in buffers that the next import reuses. They are
        // filled when the import gets past its first node (most refusals come before).
        let mut scratch = graph.scratch.take();
        scratch.pending.clear();
        scratch.types.clear();
        let result = self.convert(nodes, graph, producer, &mut scratch);
        graph.scratch.replace(scratch);
        result
    }

    /// `Convert`: the nodes in topological order, then the back edges.
    fn convert<'n, S: NodeSource + ?Sized>(
        &self,
        nodes: &'n S,
        graph: &'n Prepared<'_>,
        producer: Option<i32>,
        scratch: &mut Scratch,
    ) -> Result<(), Failure> {
        let mut ready = graph.ready.clone();
        self.add_function_library()?;
        let mut signatures: Vec<(Types, Types)> = Vec::new();
        // The last node of each op that passed validation, and its types: a node with the same
        // op, attrs and input count passes alike (its name only matters in a refusal).
        let mut accepted: FastMap<*const OpDef, (S::Node<'n>, u32)> = FastMap::default();
        let mut data_inputs = Vec::new();
        let mut back_edges = Vec::new();
        let mut processed = 0;
        while let Some(Reverse(o)) = ready.pop() {
            let o = o as usize;
            processed += 1;
            if processed > 1 || graph.data_inputs(o).next().is_some() {
                scratch.fill(graph);
            }
            let types = &scratch.types;
            let node = nodes.node(o, graph.name(o));
            // ValidateColocationConstraints: `loc:@NAME` in `_class` must name a node here.
            let class = node.attr("_class");
            if let Some(Value::List(list)) = class.as_ref().and_then(|v| v.value.as_ref()) {
                for class in &list.s {
                    if let Some(target) = class.strip_prefix(b"loc:@") {
                        let target = String::from_utf8_lossy(target);
                        if !graph.contains(&target) {
                            return Err(Failure::invalid(format!(
                                "Node '{}' expects to be colocated with unknown node '{target}'",
                                node.name()
                            )));
                        }
                    }
                }
            }
            data_inputs.clear();
            let mut has_back_edge = false;
            for (k, (src, slot)) in graph.data_inputs(o).enumerate() {
                let slot = if slot == BIG_SLOT {
                    // Too large to keep: read again.
                    let input = node.inputs().filter(|s| !s.starts_with('^')).nth(k);
                    input.map_or(usize::MAX, |input| tensor_id(input).1)
                } else {
                    slot as usize
                };
                let name = graph.name(src);
                match signatures.get(types[src] as usize) {
                    Some((_, src_outputs)) => {
                        if slot >= src_outputs.len() {
                            let mut message = format!(
                                "Node '{}': Connecting to invalid output {slot} of source node \
                                 {name} which has {} outputs.",
                                node.name(),
                                src_outputs.len()
                            );
                            if matches!(
                                nodes.node(src, name).op(),
                                "If" | "StatelessIf" | "While" | "StatelessWhile"
                            ) {
                                message.push_str(
                                    " Try using \
                                     tf.compat.v1.experimental.output_all_intermediates(True).",
                                );
                            }
                            return Err(Failure::invalid(message));
                        }
                    }
                    None => has_back_edge = true,
                }
                data_inputs.push((src, slot));
            }
            if has_back_edge && !graph.is_merge(o) {
                return Err(Failure::invalid(format!(
                    "Node '{}' had a back edge, but only Merge nodes can have back edges.",
                    node.name()
                )));
            }
            // ModifyNodeDefForImport.
            let op = self.lookup(node.op())?;
            let memo_key = op as *const OpDef;
            // The node decoded, the first time it is needed (a view decodes it only then).
            let mut full: Option<Cow<'_, NodeDef>> = None;
            let signature = match accepted.get(&memo_key) {
                Some(&(seen, signature))
                    if seen.input_len() == node.input_len() && seen.same_attrs(&node) =>
                {
                    signature
                }
                _ => {
                    let full = full.get_or_insert_with(|| node.full());
                    let attrs = with_defaults(full, op);
                    validate_node_def(&self.d, full, op, &attrs)?;
                    // MakeNode.
                    let (in_types, out_types) =
                        in_out_types(&attrs, op).map_err(Failure::invalid)?;
                    signatures.push((in_types.into(), out_types.into()));
                    let signature = (signatures.len() - 1) as u32;
                    accepted.insert(memo_key, (node, signature));
                    signature
                }
            };
            let (in_types, out_types) = signatures[signature as usize].clone();
            if let Some(producer) = producer {
                check_deprecation(op, producer)?;
            }
            scratch.fill(graph);
            let Scratch { pending, types } = &mut *scratch;
            // MakeEdge, for each data input.
            for (i, &(src, slot)) in data_inputs.iter().enumerate() {
                match signatures.get(types[src] as usize) {
                    Some((_, src_outputs)) => {
                        make_edge(
                            &self.d,
                            graph.name(src),
                            src_outputs,
                            slot,
                            node.name(),
                            &in_types,
                            i,
                        )?;
                    }
                    None => back_edges.push((src, slot, o, i)),
                }
            }
            // ValidateShape: shape inference instantiates the functions a node calls.
            if self.functions.contains_key(node.op())
                || node.op() == "PartitionedCall"
                || node.op() == "StatefulPartitionedCall"
            {
                let full = full.get_or_insert_with(|| node.full());
                let attrs = with_defaults(full, op);
                if let Some((function, call_attrs)) = self.called_function(full, &attrs) {
                    self.instantiate(function, &call_attrs, &mut Vec::new())?;
                }
            }
            let shapes = node.attr("_output_shapes");
            if let Some(Value::List(list)) = shapes.as_ref().and_then(|v| v.value.as_ref())
                && list.shape.len() < out_types.len()
                && list.s.is_empty()
                && list.i.is_empty()
                && list.f.is_empty()
                && list.b.is_empty()
                && list.r#type.is_empty()
                && list.tensor.is_empty()
                && list.func.is_empty()
            {
                return Err(Failure::invalid(format!(
                    "Node '{}' has {} outputs but the _output_shapes attribute specifies shapes \
                     for {} outputs",
                    node.name(),
                    out_types.len(),
                    list.shape.len()
                )));
            }
            types[o] = signature;
            for &next in graph.outputs(o) {
                let next = next as usize;
                let next_iteration_to_merge = graph.is_next_iteration(o) && graph.is_merge(next);
                // A Merge fed by more forward inputs than it waits for would count below
                // zero; TensorFlow's CHECK stops the process there, this ignores the extra.
                if !next_iteration_to_merge && pending[next] > 0 {
                    pending[next] -= 1;
                    if pending[next] == 0 {
                        ready.push(Reverse(next as u32));
                    }
                }
            }
        }
        if processed < graph.len() {
            return Err(Failure::invalid(format!(
                "{} nodes in a cycle",
                graph.len() - processed
            )));
        }
        // AddBackEdges.
        let signature = |n: usize| {
            let index = scratch.types.get(n).copied().unwrap_or(NOT_YET);
            signatures.get(index as usize)
        };
        for (src, slot, dst, i) in back_edges {
            if let (Some((_, src_outputs)), Some((in_types, _))) = (signature(src), signature(dst))
            {
                make_edge(
                    &self.d,
                    graph.name(src),
                    src_outputs,
                    slot,
                    graph.name(dst),
                    in_types,
                    i,
                )?;
            }
        }
        Ok(())
    }

    /// The function a node calls, and the attrs it calls it with (`IsFunctionCall` and
    /// `NameAndAttrsFromFunctionCall`): the node's op when that is a library function, or the
    /// `f` attr of `PartitionedCall`/`StatefulPartitionedCall`. None when the call disables
    /// shape inference or names no library function.
    fn called_function<'n>(
        &self,
        node: &'n NodeDef,
        attrs: &Attrs<'n>,
    ) -> Option<(&'a FunctionDef, Attrs<'n>)>
    where
        'a: 'n,
    {
        if let Some(Value::B(true)) = attrs
            .get("_disable_call_shape_inference")
            .and_then(|v| v.value.as_ref())
        {
            return None;
        }
        if let Some(function) = self.functions.get(node.op.as_str()) {
            return Some((function, attrs.clone()));
        }
        if node.op != "PartitionedCall" && node.op != "StatefulPartitionedCall" {
            return None;
        }
        let Some(Value::Func(f)) = attrs.get("f").and_then(|v| v.value.as_ref()) else {
            return None;
        };
        let function = self.functions.get(f.name.as_str())?;
        Some((
            function,
            f.attr.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        ))
    }

    /// `InstantiateFunction`, then the same for the functions its body calls.
    fn instantiate<'n>(
        &self,
        function: &'a FunctionDef,
        attr_values: &Attrs<'n>,
        stack: &mut Vec<&'a str>,
    ) -> Result<(), Failure>
    where
        'a: 'n,
    {
        let Some(signature) = function.signature.as_ref() else {
            return Ok(());
        };
        if stack.contains(&signature.name.as_str()) || stack.len() >= MAX_CALL_DEPTH {
            return Ok(());
        }
        // ValidateSignatureWithAttrs.
        for attr in &signature.attr {
            match attr_values.get(attr.name.as_str()) {
                Some(value) => {
                    if let Err(message) = attr_value_has_type(&self.d, value, &attr.r#type) {
                        return Err(Failure::invalid(format!(
                            "{message}\n\tfor attr '{}'",
                            attr.name
                        )));
                    }
                }
                None if attr.default_value.is_none() => {
                    return Err(Failure {
                        code: Code::NotFound,
                        message: format!(
                            "Attr {} is not found from {}",
                            attr.name,
                            self.d.summarize_op_def(signature)
                        ),
                    });
                }
                None => {}
            }
        }
        let mut items: HashMap<String, Vec<i32>> = HashMap::new();
        // BuildInputArgIndex.
        for arg in &signature.input_arg {
            let dtypes = arg_num_type(attr_values, arg)
                .map_err(|m| Failure {
                    code: Code::NotFound,
                    message: m,
                })
                .map_err(|f| f.context(&format!("In {}", self.d.summarize_arg(arg))))?;
            if dtypes.is_empty() {
                return Err(Failure {
                    code: Code::Internal,
                    message: "Expected a list of at least one dtype".to_string(),
                }
                .context(&format!("In {}", self.d.summarize_arg(arg))));
            }
            add_item(&mut items, arg.name.clone(), dtypes.clone(), true)?;
            for (i, &dtype) in dtypes.iter().enumerate() {
                add_item(&mut items, format!("{}:{i}", arg.name), vec![dtype], true)?;
            }
        }
        // Bind placeholders and add defaults, node by node.
        let mut node_attrs: Vec<Attrs<'n>> = Vec::with_capacity(function.node_def.len());
        let mut node_ops: Vec<&'a OpDef> = Vec::with_capacity(function.node_def.len());
        for node in &function.node_def {
            let mut attrs: Attrs<'n> = HashMap::new();
            for (name, value) in &node.attr {
                let bound = match &value.value {
                    Some(Value::Placeholder(placeholder)) => attr_values
                        .get(placeholder.as_str())
                        .copied()
                        .or_else(|| {
                            signature
                                .attr
                                .iter()
                                .find(|a| a.name == *placeholder)
                                .and_then(|a| a.default_value.as_ref())
                        })
                        .ok_or_else(|| {
                            Failure::invalid(format!(
                                "Failed to bind all placeholders in {}",
                                self.d.summarize_attr_value(value)
                            ))
                        })?,
                    _ => value,
                };
                attrs.insert(name.as_str(), bound);
            }
            let op = self.lookup(&node.op)?;
            for attr in &op.attr {
                if let Some(default) = &attr.default_value {
                    attrs.entry(attr.name.as_str()).or_insert(default);
                }
            }
            node_attrs.push(attrs);
            node_ops.push(op);
        }
        // BuildNodeOutputIndex.
        for ((node, attrs), op) in function.node_def.iter().zip(&node_attrs).zip(&node_ops) {
            let in_node = |f: Failure| f.context(&format!("In {}", node_for_error(&node.name)));
            if op.output_arg.is_empty() {
                add_item(&mut items, node.name.clone(), Vec::new(), false).map_err(in_node)?;
                continue;
            }
            for arg in &op.output_arg {
                let dtypes = arg_num_type(attrs, arg)
                    .map_err(|m| Failure {
                        code: Code::NotFound,
                        message: m,
                    })
                    .map_err(in_node)?;
                let base = format!("{}:{}", node.name, arg.name);
                for (j, &dtype) in dtypes.iter().enumerate() {
                    add_item(&mut items, format!("{base}:{j}"), vec![dtype], false)
                        .map_err(in_node)?;
                }
                add_item(&mut items, base, dtypes, false).map_err(in_node)?;
            }
        }
        // InstantiateNode.
        for ((node, attrs), op) in function.node_def.iter().zip(&node_attrs).zip(&node_ops) {
            let in_node = |f: Failure| f.context(&format!("In {}", node_for_error(&node.name)));
            let mut next = 0;
            for arg in &op.input_arg {
                let dtypes = arg_num_type(attrs, arg)
                    .map_err(|m| Failure {
                        code: Code::NotFound,
                        message: m,
                    })
                    .map_err(in_node)?;
                let mut j = 0;
                while j < dtypes.len() {
                    let Some(input) = node.input.get(next) else {
                        return Err(in_node(Failure::invalid(format!(
                            "Attempt to access beyond input size: {next} >= {}",
                            node.input.len()
                        ))));
                    };
                    next += 1;
                    let Some(item) = items.get(input.as_str()) else {
                        return Err(in_node(Failure::invalid(format!(
                            "input {input} is not found: {}",
                            node_for_error(&node.name)
                        ))));
                    };
                    if item.len() > dtypes.len() - j {
                        return Err(in_node(Failure::invalid(format!(
                            "Input {input} too long for {}",
                            arg.name
                        ))));
                    }
                    for (k, &actual) in item.iter().enumerate() {
                        if actual != dtypes[j] {
                            return Err(in_node(Failure::invalid(format!(
                                "input {}[{j}] expected type {} != {}, the type of {input}[{k}]",
                                arg.name,
                                self.d.dtype_string(dtypes[j]),
                                self.d.dtype_string(actual)
                            ))));
                        }
                        j += 1;
                    }
                }
            }
            for (i, input) in node.input.iter().enumerate().skip(next) {
                let Some(name) = input.strip_prefix('^') else {
                    return Err(in_node(Failure::invalid(format!(
                        "Expected input[{i}] == '{input}' to be a control input."
                    ))));
                };
                let found = items
                    .keys()
                    .any(|k| k == name || k.strip_prefix(name).is_some_and(|r| r.starts_with(':')));
                if !found {
                    return Err(in_node(Failure::invalid(format!(
                        "input[{i}] == '{input}', is not found."
                    ))));
                }
            }
        }
        // AddReturnNode.
        for ret in &signature.output_arg {
            let in_output = |f: Failure| {
                f.context(&format!("In function output {}", self.d.summarize_arg(ret)))
            };
            let Some(source) = function.ret.get(&ret.name) else {
                return Err(in_output(Failure::invalid(format!(
                    "Return {} missing.",
                    ret.name
                ))));
            };
            let dtypes = arg_num_type(attr_values, ret)
                .map_err(|m| Failure {
                    code: Code::NotFound,
                    message: m,
                })
                .map_err(in_output)?;
            let Some(item) = items.get(source.as_str()) else {
                return Err(in_output(Failure::invalid(format!(
                    "Return {} -> {source} is not found.",
                    ret.name
                ))));
            };
            if *item != dtypes {
                return Err(in_output(Failure::invalid(format!(
                    "Invalid ret types {} : {} vs. {}",
                    ret.name,
                    self.d.dtypes_string(&dtypes),
                    self.d.dtypes_string(item)
                ))));
            }
        }
        // Shape inference on the body: the functions it calls are instantiated in turn.
        stack.push(&signature.name);
        for (node, attrs) in function.node_def.iter().zip(&node_attrs) {
            if let Some((callee, call_attrs)) = self.called_function(node, attrs) {
                self.instantiate(callee, &call_attrs, stack)?;
            }
        }
        stack.pop();
        Ok(())
    }

    /// `function_def_to_graph_def` (`tensorflow/python/framework/function_def_to_graph.py`):
    /// a placeholder per argument, then the body, its inputs renamed to graph tensor names.
    /// Looks each body op up first, as Python does.
    fn function_graph(&self, function: &'a FunctionDef) -> Result<Vec<NodeDef>, Failure> {
        let Some(signature) = function.signature.as_ref() else {
            return Ok(Vec::new());
        };
        let mut flat: HashMap<String, String> = HashMap::new();
        let mut nodes = Vec::with_capacity(signature.input_arg.len() + function.node_def.len());
        for arg in &signature.input_arg {
            nodes.push(NodeDef {
                name: arg.name.clone(),
                op: "Placeholder".to_string(),
                attr: [(
                    "dtype".to_string(),
                    AttrValue {
                        value: Some(Value::Type(arg.r#type)),
                    },
                )]
                .into(),
                ..NodeDef::default()
            });
            flat.insert(arg.name.clone(), format!("{}:0", arg.name));
            flat.insert(format!("^{}", arg.name), format!("^{}", arg.name));
        }
        for node in &function.node_def {
            let op = self.lookup(&node.op).map_err(|f| Failure {
                code: Code::PythonOpLookup,
                message: f.message,
            })?;
            let mut index = 0usize;
            for arg in &op.output_arg {
                let count = python_num_args(arg, node);
                for i in 0..count {
                    flat.insert(
                        format!("{}:{}:{i}", node.name, arg.name),
                        format!("{}:{index}", node.name),
                    );
                    index += 1;
                }
            }
            flat.insert(format!("^{}", node.name), format!("^{}", node.name));
        }
        for node in &function.node_def {
            let mut node = node.clone();
            for input in &mut node.input {
                let Some(renamed) = flat.get(input.as_str()) else {
                    // Python's dict lookup raises KeyError.
                    return Err(Failure {
                        code: Code::Internal,
                        message: format!("'{input}'"),
                    });
                };
                *input = renamed.clone();
            }
            nodes.push(node);
        }
        Ok(nodes)
    }
}

/// `AddItem` of the instantiation's name index: a name may be defined once.
fn add_item(
    items: &mut HashMap<String, Vec<i32>>,
    name: String,
    dtypes: Vec<i32>,
    arg: bool,
) -> Result<(), Failure> {
    if items.contains_key(&name) {
        let kind = if arg { "arg" } else { "ret" };
        return Err(Failure::invalid(format!("Duplicated {kind} name: {name}")));
    }
    items.insert(name, dtypes);
    Ok(())
}

/// `_get_num_args` (`function_def_to_graph.py`): how many tensors one output arg makes.
fn python_num_args(arg: &ArgDef, node: &NodeDef) -> usize {
    let attr = |name: &str| node.attr.get(name).and_then(|v| v.value.as_ref());
    if !arg.number_attr.is_empty() {
        match attr(&arg.number_attr) {
            Some(Value::I(n)) => usize::try_from(*n).unwrap_or(0).min(MAX_ARG_VALUES),
            _ => 0,
        }
    } else if !arg.type_list_attr.is_empty() {
        match attr(&arg.type_list_attr) {
            Some(Value::List(list)) => list.r#type.len(),
            _ => 0,
        }
    } else {
        1
    }
}

/// The node's attrs with the op's defaults added (`AddDefaultsToNodeDef`).
fn with_defaults<'a>(node: &'a NodeDef, op: &'a OpDef) -> Attrs<'a> {
    let mut attrs: Attrs<'a> = node.attr.iter().map(|(k, v)| (k.as_str(), v)).collect();
    for attr in &op.attr {
        if let Some(default) = &attr.default_value {
            attrs.entry(attr.name.as_str()).or_insert(default);
        }
    }
    attrs
}

/// `CheckOpDeprecation` (`op_def_util.cc`).
fn check_deprecation(op: &OpDef, producer: i32) -> Result<(), Failure> {
    match &op.deprecation {
        Some(dep) if producer >= dep.version => Err(Failure {
            code: Code::Unimplemented,
            message: format!(
                "Op {} is not available in GraphDef version {producer}. It has been removed in \
                 version {}. {}.",
                op.name, dep.version, dep.explanation
            ),
        }),
        _ => Ok(()),
    }
}

/// `ValidateNodeDef` (`node_def_util.cc`), on the node's attrs with defaults added. Attrs are
/// checked in name order (TensorFlow's order is its map's); unknown ones are ignored.
fn validate_node_def(
    d: &Dialect,
    node: &NodeDef,
    op: &OpDef,
    attrs: &Attrs<'_>,
) -> Result<(), Failure> {
    let for_node = || {
        format!(
            "; NodeDef: {}; {}",
            node_for_error(&node.name),
            d.summarize_op_def(op)
        )
    };
    let mut names: Vec<&str> = attrs.keys().copied().collect();
    names.sort_unstable();
    let mut seen = HashSet::new();
    for name in names {
        if name.starts_with('_') {
            continue;
        }
        let Some(attr) = op.attr.iter().find(|a| a.name == name) else {
            continue;
        };
        let value = attrs[name];
        if !matches!(value.value, Some(Value::Placeholder(_))) {
            validate_attr_value(d, value, attr)
                .map_err(|message| Failure::invalid(message).context(&for_node()))?;
        }
        seen.insert(name);
    }
    // TensorFlow lists them in its `std::unordered_map`'s order, which for a handful of attrs
    // is the reverse of the op's (each new entry goes to the front of libstdc++'s list).
    let missing: Vec<&str> = op
        .attr
        .iter()
        .rev()
        .map(|a| a.name.as_str())
        .filter(|name| !seen.contains(name))
        .collect();
    if !missing.is_empty() {
        let plural = if missing.len() == 1 { " '" } else { "s '" };
        return Err(Failure::invalid(format!(
            "NodeDef missing attr{plural}{}' from {}; NodeDef: {}",
            missing.join("', '"),
            d.summarize_op_def(op),
            node_for_error(&node.name)
        )));
    }
    let (inputs, _) = in_out_types(attrs, op).map_err(Failure::invalid)?;
    let given = node.input.iter().filter(|s| !s.starts_with('^')).count();
    if given != inputs.len() {
        return Err(Failure::invalid(format!(
            "NodeDef expected inputs '{}' do not match {given} inputs specified; {}; NodeDef: {}",
            d.dtypes_string(&inputs),
            d.summarize_op_def(op),
            node_for_error(&node.name)
        )));
    }
    Ok(())
}

/// `ValidateAttrValue` (`op_def_util.cc`): the value's type, minimum and allowed values.
fn validate_attr_value(d: &Dialect, value: &AttrValue, attr: &AttrDef) -> Result<(), String> {
    attr_value_has_type(d, value, &attr.r#type)
        .map_err(|message| format!("{message}\n\t for attr '{}'", attr.name))?;
    let list = match &value.value {
        Some(Value::List(list)) => Some(list),
        _ => None,
    };
    if attr.has_minimum {
        if attr.r#type == "int" {
            let i = match value.value {
                Some(Value::I(i)) => i,
                _ => 0,
            };
            if i < attr.minimum {
                return Err(format!(
                    "Value for attr '{}' of {i} must be at least minimum {}",
                    attr.name, attr.minimum
                ));
            }
        } else {
            let length = list.map_or(0, |l| match attr.r#type.as_str() {
                "list(string)" => l.s.len(),
                "list(int)" => l.i.len(),
                "list(float)" => l.f.len(),
                "list(bool)" => l.b.len(),
                "list(type)" => l.r#type.len(),
                "list(shape)" => l.shape.len(),
                "list(tensor)" => l.tensor.len(),
                "list(func)" => l.func.len(),
                _ => 0,
            });
            if (length as i64) < attr.minimum {
                return Err(format!(
                    "Length for attr '{}' of {length} must be at least minimum {}",
                    attr.name, attr.minimum
                ));
            }
        }
    }
    let Some(allowed) = attr.allowed_values.as_ref() else {
        return Ok(());
    };
    let no_values = ListValue::default();
    let allowed_list = match &allowed.value {
        Some(Value::List(list)) => list,
        _ => &no_values,
    };
    let allowed_type = |dtype: i32| {
        if allowed_list.r#type.contains(&dtype) {
            return Ok(());
        }
        let names: Vec<String> = allowed_list
            .r#type
            .iter()
            .map(|&t| d.dtype_string(t))
            .collect();
        Err(format!(
            "Value for attr '{}' of {} is not in the list of allowed values: {}",
            attr.name,
            d.dtype_string(dtype),
            names.join(", ")
        ))
    };
    let allowed_string = |s: &[u8]| {
        if allowed_list.s.iter().any(|a| a == s) {
            return Ok(());
        }
        let names: Vec<String> = allowed_list
            .s
            .iter()
            .map(|a| format!("\"{}\"", String::from_utf8_lossy(a)))
            .collect();
        Err(format!(
            "Value for attr '{}' of \"{}\" is not in the list of allowed values: {}",
            attr.name,
            String::from_utf8_lossy(s),
            names.join(", ")
        ))
    };
    match (attr.r#type.as_str(), &value.value) {
        ("type", Some(Value::Type(t))) => allowed_type(*t),
        ("list(type)", _) => list.map_or(Ok(()), |l| {
            l.r#type.iter().try_for_each(|&t| allowed_type(t))
        }),
        ("string", Some(Value::S(s))) => allowed_string(s),
        ("list(string)", _) => {
            list.map_or(Ok(()), |l| l.s.iter().try_for_each(|s| allowed_string(s)))
        }
        ("type" | "string", _) => Ok(()),
        (other, _) => Err(format!(
            "Support for allowed_values not implemented for type {other}"
        )),
    }
}

/// `AttrValueHasType` (`attr_value_util.cc`).
fn attr_value_has_type(d: &Dialect, value: &AttrValue, expected: &str) -> Result<(), String> {
    let mismatch = |found: &str| {
        Err(format!(
            "AttrValue had value with type '{found}' when '{expected}' expected"
        ))
    };
    let mut num_set = 0;
    match &value.value {
        Some(Value::List(list)) => {
            for (len, name) in [
                (list.s.len(), "list(string)"),
                (list.i.len(), "list(int)"),
                (list.f.len(), "list(float)"),
                (list.b.len(), "list(bool)"),
                (list.r#type.len(), "list(type)"),
                (list.shape.len(), "list(shape)"),
                (list.tensor.len(), "list(tensor)"),
                (list.func.len(), "list(func)"),
            ] {
                if len > 0 {
                    if expected != name {
                        return mismatch(name);
                    }
                    num_set += 1;
                }
            }
        }
        Some(Value::Placeholder(_)) => {
            return Err("AttrValue had value with unexpected type 'placeholder'".to_string());
        }
        Some(scalar) => {
            let found = scalar_kind(scalar);
            if expected != found {
                return mismatch(found);
            }
            num_set += 1;
        }
        None => {}
    }
    let is_list = expected.starts_with("list(");
    if is_list && !matches!(value.value, Some(Value::List(_))) && num_set > 0 {
        return Err(format!(
            "AttrValue missing value with expected type '{expected}'"
        ));
    }
    if num_set == 0 && !is_list {
        return Err(format!(
            "AttrValue missing value with expected type '{expected}'"
        ));
    }
    let check_type = |t: i32| {
        if !d.is_valid_dtype(t) || (is_ref(t) && base_type(t) == 0) {
            Err(format!("AttrValue has invalid DataType enum: {t}"))
        } else if is_ref(t) {
            Err(format!(
                "AttrValue must not have reference type value of {}",
                d.dtype_string(t)
            ))
        } else if t == 0 {
            Err("AttrValue has invalid DataType".to_string())
        } else {
            Ok(())
        }
    };
    match (expected, &value.value) {
        ("type", Some(Value::Type(t))) => check_type(*t),
        ("list(type)", Some(Value::List(list))) => {
            list.r#type.iter().try_for_each(|&t| check_type(t))
        }
        _ => Ok(()),
    }
}

/// The attr type a single (non-list) value has.
fn scalar_kind(value: &Value) -> &'static str {
    match value {
        Value::S(_) => "string",
        Value::I(_) => "int",
        Value::F(_) => "float",
        Value::B(_) => "bool",
        Value::Type(_) => "type",
        Value::Shape(_) => "shape",
        Value::Tensor(_) => "tensor",
        Value::Func(_) => "func",
        Value::List(_) => "list",
        Value::Placeholder(_) => "placeholder",
    }
}

/// `ArgNumType` (`function.cc`): the types one argument stands for, from the attrs.
fn arg_num_type(attrs: &Attrs<'_>, arg: &ArgDef) -> Result<Vec<i32>, String> {
    if !arg.type_list_attr.is_empty() {
        return match attrs.get(arg.type_list_attr.as_str()).map(|v| &v.value) {
            Some(Some(Value::List(list))) if list.r#type.len() <= MAX_ARG_VALUES => {
                Ok(list.r#type.clone())
            }
            Some(Some(Value::List(_))) => Err(too_many(arg)),
            Some(_) => Ok(Vec::new()),
            None => Err(format!("type attr not found: {}", arg.type_list_attr)),
        };
    }
    let mut count = 1usize;
    if !arg.number_attr.is_empty() {
        match attrs.get(arg.number_attr.as_str()) {
            None => return Err(format!("type attr not found: {}", arg.type_attr)),
            Some(value) => {
                let n = match value.value {
                    Some(Value::I(n)) => n,
                    _ => 0,
                };
                count = usize::try_from(n).unwrap_or(0);
                if count > MAX_ARG_VALUES {
                    return Err(too_many(arg));
                }
            }
        }
    }
    let dtype = if arg.r#type != 0 {
        arg.r#type
    } else if arg.type_attr.is_empty() {
        0
    } else {
        match attrs.get(arg.type_attr.as_str()) {
            None => return Err(format!("type attr not found: {}", arg.type_attr)),
            Some(value) => match value.value {
                Some(Value::Type(t)) => t,
                _ => 0,
            },
        }
    };
    Ok(vec![dtype; count])
}

fn too_many(arg: &ArgDef) -> String {
    format!(
        "argument '{}' stands for more than {MAX_ARG_VALUES} tensors; a graph this size is \
         not one TensorFlow can load",
        arg.name
    )
}

/// `InOutTypesForNode`: the node's input and output types (references for `Ref` args).
fn in_out_types(attrs: &Attrs<'_>, op: &OpDef) -> Result<(Vec<i32>, Vec<i32>), String> {
    let collect = |args: &[ArgDef]| -> Result<Vec<i32>, String> {
        let mut out = Vec::new();
        for arg in args {
            let types = arg_num_type(attrs, arg)?;
            if out.len() + types.len() > MAX_ARG_VALUES {
                return Err(too_many(arg));
            }
            out.extend(
                types
                    .into_iter()
                    .map(|t| if arg.is_ref { ref_type(t) } else { t }),
            );
        }
        Ok(out)
    };
    Ok((collect(&op.input_arg)?, collect(&op.output_arg)?))
}

/// `GraphConstructor::MakeEdge`: the source's output type must suit the destination's input.
fn make_edge(
    d: &Dialect,
    src: &str,
    src_outputs: &[i32],
    slot: usize,
    dst: &str,
    dst_inputs: &[i32],
    input: usize,
) -> Result<(), Failure> {
    let Some(&actual) = src_outputs.get(slot) else {
        return Err(Failure::invalid(format!(
            "Output {slot} of node {src} does not exist. Node only has {} outputs.",
            src_outputs.len()
        )));
    };
    let Some(&expected) = dst_inputs.get(input) else {
        return Err(Failure::invalid(format!(
            "Input {input} of node {dst} does not exist. Node only has {} inputs.",
            dst_inputs.len()
        )));
    };
    if !types_compatible(expected, actual) {
        return Err(Failure::invalid(format!(
            "Input {input} of node {dst} was passed {} from {src}:{slot} incompatible with \
             expected {}.",
            d.dtype_string(actual),
            d.dtype_string(expected)
        )));
    }
    Ok(())
}
