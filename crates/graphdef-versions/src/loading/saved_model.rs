//! `tf.saved_model.load`, step by step, in each release (`load_partial`,
//! `tensorflow/python/saved_model/load.py`, and `load_v1_in_v2.py` for TensorFlow 1 files).
//!
//! A SavedModel of one meta graph with an object graph is a TensorFlow 2 one:
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
//! 3. its saver's restore op is run, which reads the checkpoint;
//! 4. its init op is run (not replayed: a table initializer reading an asset, for example);
//! 5. each signature is pruned into a function ([`super::prune`]). TensorFlow takes the
//!    signatures in an order that changes from one run to the next, so a file with several
//!    failing signatures raises any one of their errors: the verdict lists each, in key order.
//!
//! Without the SavedModel's directory the checkpoint is not looked at (step 3 of either).

use std::collections::{BTreeSet, HashMap};

use prost::Message;

use super::functions::load_order;
use super::graph::Graph as NodeGraph;
use super::import::Importer;
use super::printing::Dialect;
use super::prune::Pruner;
use super::restore::{Checkpoint, Wanted};
use super::revive::{last_value_field, revive};
use super::scan::Graph;
use super::{
    Alike, LoadError, Loader, ReleaseJudge, ReleaseReport, first_failure, first_undecodable,
    used_ops,
};
use crate::releases::TfRelease;
use crate::schema::attr_value::Value;
use crate::schema::{GraphDef, MetaGraphDef, SavedModel, SavedObjectGraph};

impl ReleaseJudge {
    /// Every release's verdict on `model`, the variables checked against `checkpoint` when
    /// given.
    pub(super) fn load_in_each_release(
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
        let imports = match Graph::read(&bytes, graph.node.len()) {
            Some(read) => self.import_verdicts(&read),
            None => vec![Some(super::invalid_graph_def().raised()); self.releases.len()],
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
        let nodes = NodeGraph::new(&graph.node, &importer);
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

/// Running the saver's restore op: each `RestoreV2` it runs, in the graph's order, with the
/// tensors it names.
fn restore_with_saver(
    graph: &NodeGraph<'_>,
    checkpoint: &Checkpoint,
    saver: &crate::schema::SaverDef,
    d: &Dialect,
) -> Option<LoadError> {
    let restore = graph.find(&saver.restore_op_name)?;
    let filename = saver
        .filename_tensor_name
        .split(':')
        .next()
        .unwrap_or_default();
    let feed = graph.find(filename);
    let mut seen = vec![false; graph.len()];
    let mut stack = vec![restore];
    while let Some(n) = stack.pop() {
        if seen[n] || Some(n) == feed {
            continue;
        }
        seen[n] = true;
        stack.extend(graph.graph_inputs(n));
    }
    for n in (0..graph.len()).filter(|&n| seen[n] && graph.op_type(n) == "RestoreV2") {
        let names = graph
            .data_inputs(n)
            .nth(1)
            .and_then(|input| string_constants(graph, input.node));
        let dtypes = match graph
            .node(n)
            .attr
            .get("dtypes")
            .and_then(|v| v.value.as_ref())
        {
            Some(Value::List(list)) => list.r#type.clone(),
            _ => Vec::new(),
        };
        let Some(names) = names.filter(|names| names.len() == dtypes.len()) else {
            continue;
        };
        let wanted: Vec<Wanted<'_>> = names
            .iter()
            .zip(&dtypes)
            .map(|(name, &dtype)| Wanted { name, dtype })
            .collect();
        if let Some(error) = checkpoint.restore_v2(graph.name(n), &wanted, d) {
            return Some(error);
        }
    }
    None
}

/// The strings of a `Const` string tensor, when they are all UTF-8.
fn string_constants(graph: &NodeGraph<'_>, n: usize) -> Option<Vec<String>> {
    if graph.op_type(n) != "Const" {
        return None;
    }
    let Some(Value::Tensor(tensor)) = graph.node(n).attr.get("value")?.value.as_ref() else {
        return None;
    };
    tensor
        .string_val
        .iter()
        .map(|bytes| String::from_utf8(bytes.clone()).ok())
        .collect()
}

/// `str()` of a Python list of strings: `['serve', 'gpu']`.
fn python_list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|item| format!("'{item}'")).collect();
    format!("[{}]", items.join(", "))
}

/// Decodes a `saved_model.pb` whole, as TensorFlow's loader does.
pub(super) fn decode_saved_model(bytes: &[u8]) -> Result<SavedModel, crate::Error> {
    SavedModel::decode(bytes).map_err(|source| {
        crate::error::DecodeError::Message {
            what: "SavedModel",
            source,
        }
        .into()
    })
}
