//! The pruning of a TensorFlow 1 SavedModel's signatures into functions, replayed
//! (`_EagerSavedModelLoader._extract_signatures`, `tensorflow/python/saved_model/
//! load_v1_in_v2.py`; `WrappedFunction.prune`, `eager/wrap_function.py`; `lift_to_graph`,
//! `eager/lift_to_graph.py`; `TF_GraphToFunction`, `tensorflow/c/c_api_function.cc`).
//!
//! For each signature, TensorFlow resolves the tensors its inputs and outputs name (inputs in
//! key order, a sparse input as its three tensors), then copies into a new graph every op the
//! outputs depend on (refusing, with `UnliftableError`, a placeholder the signature does not
//! feed), each feed becoming a placeholder of the shape it had. The walk that orders the copies
//! also takes the ops upstream of the feeds, which are copied too. Each copy runs its shape
//! function at the loading release's version ([`super::shapes`]); then the shapes the signature
//! records are set on its outputs, and the graph becomes a function, which refuses an input
//! listed twice and a reference-typed output.
//!
//! Two things TensorFlow does in an order that changes from one run to the next are done here
//! in a fixed one: which signature is pruned first (the caller's), and in which order the feeds
//! become placeholders (the order of the inputs), which decides the `_1`, `_2` suffixes of
//! placeholders made for several outputs of one op.

use std::collections::{HashMap, HashSet};

use super::graph::{ImportedGraph, Tensor};
use super::printing::Dialect;
use super::pruned::Copy;
use super::report::LoadError;
use super::shape_fns::infer;
use super::shapes::{Context, Known, Shape};
use super::validate::with_defaults;
use crate::schema::tensor_info::Encoding;
use crate::schema::{NodeDef, SignatureDef, TensorInfo};

/// What a signature's tensor name resolves to in the graph.
enum Element {
    Tensor(Tensor),
    Operation(usize),
}

/// The pruning of one TensorFlow 1 graph's signatures, in one release.
pub(super) struct Pruner<'g, 'a> {
    graph: &'g ImportedGraph<'a>,
    d: Dialect,
    /// The loading release's GraphDef version: the new graphs' shape functions run at it.
    version: i32,
    /// The version the import ran the shape functions at: the lower of the release's and the
    /// graph's producer.
    import_version: i32,
    /// Resource variables, which the loaded graph captures: placeholders in every pruned
    /// function, before the feeds.
    captures: Vec<Tensor>,
    /// Each node's outputs as the import inferred them, worked out when asked for.
    imported: std::cell::RefCell<Vec<Option<Vec<Known>>>>,
}

impl<'g, 'a> Pruner<'g, 'a> {
    pub(super) fn new(
        graph: &'g ImportedGraph<'a>,
        d: Dialect,
        version: i32,
        producer: i32,
    ) -> Self {
        let captures = (0..graph.len())
            .filter(|&n| graph.op_type(n) == "VarHandleOp")
            .map(|node| Tensor { node, slot: 0 })
            .collect();
        Pruner {
            graph,
            d,
            version,
            import_version: version.min(producer),
            captures,
            imported: std::cell::RefCell::new(vec![None; graph.len()]),
        }
    }

    /// `as_graph_element(name)` in the imported graph, with Python's refusals.
    fn element(&self, name: &str) -> Result<Element, LoadError> {
        let key_error = |message: String| LoadError {
            python_class: "KeyError",
            message: python_repr(&message),
        };
        let Some((op_name, slot)) = name.split_once(':') else {
            return self
                .graph
                .find(name)
                .map(Element::Operation)
                .ok_or_else(|| {
                    key_error(format!(
                        "The name {} refers to an Operation not in the graph.",
                        python_repr(name)
                    ))
                });
        };
        let Some(slot) = slot.parse::<usize>().ok().filter(|_| !slot.contains(':')) else {
            return Err(LoadError {
                python_class: "ValueError",
                message: format!(
                    "The name {} looks a like a Tensor name, but is not a valid one. Tensor \
                     names must be of the form \"<op_name>:<output_index>\".",
                    python_repr(name)
                ),
            });
        };
        let Some(node) = self.graph.find(op_name) else {
            return Err(key_error(format!(
                "The name {} refers to a Tensor which does not exist. The operation, {}, does \
                 not exist in the graph.",
                python_repr(name),
                python_repr(op_name)
            )));
        };
        let outputs = self.graph.outputs(node).len();
        if slot >= outputs {
            return Err(key_error(format!(
                "The name {} refers to a Tensor which does not exist. The operation, {}, exists \
                 but only has {outputs} outputs.",
                python_repr(name),
                python_repr(op_name)
            )));
        }
        Ok(Element::Tensor(Tensor { node, slot }))
    }

    /// `get_tensor_by_name`: a name that resolves to an operation is refused.
    fn tensor(&self, name: &str) -> Result<Option<Tensor>, LoadError> {
        match self.element(name)? {
            Element::Tensor(tensor) => Ok(Some(tensor)),
            // "The name ... refers to an Operation, not a Tensor": not replayed.
            Element::Operation(_) => Ok(None),
        }
    }

    /// The tensors a signature's `TensorInfo` stands for, flattened as `nest.flatten(...,
    /// expand_composites=True)` flattens them; an operation when the info names one.
    fn resolve(&self, info: &TensorInfo) -> Result<Vec<Element>, LoadError> {
        let names: Vec<&str> = match &info.encoding {
            Some(Encoding::Name(name)) => return Ok(vec![self.element(name)?]),
            Some(Encoding::CooSparse(sparse)) => vec![
                &sparse.indices_tensor_name,
                &sparse.values_tensor_name,
                &sparse.dense_shape_tensor_name,
            ],
            Some(Encoding::CompositeTensor(composite)) => composite
                .components
                .iter()
                .filter_map(|component| match &component.encoding {
                    Some(Encoding::Name(name)) => Some(name.as_str()),
                    _ => None,
                })
                .collect(),
            None => {
                return Err(LoadError {
                    python_class: "ValueError",
                    message: "Invalid TensorInfo.encoding: None. Valid encodings are 'name', \
                              'coo_sparse', and 'composite_tensor'."
                        .to_string(),
                });
            }
        };
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            if let Some(tensor) = self.tensor(name)? {
                out.push(Element::Tensor(tensor));
            }
        }
        Ok(out)
    }

    /// Prunes the signature `key` into a function, as `_extract_signatures` does.
    pub(super) fn prune(&self, key: &str, signature: &SignatureDef) -> Result<(), LoadError> {
        let mut inputs: Vec<(&String, &TensorInfo)> = signature.inputs.iter().collect();
        inputs.sort_by_key(|(name, _)| *name);
        let mut feeds = Vec::new();
        for (_, info) in inputs {
            for element in self.resolve(info)? {
                // A feed that names an operation is refused in words this does not replay.
                if let Element::Tensor(tensor) = element {
                    feeds.push(tensor);
                }
            }
        }
        feeds.retain(|feed| !self.captures.contains(feed));
        let mut outputs: Vec<(&String, &TensorInfo)> = signature.outputs.iter().collect();
        outputs.sort_by_key(|(name, _)| *name);
        let (mut operation_fetches, mut tensor_fetches, mut infos) =
            (Vec::new(), Vec::new(), Vec::new());
        for (_, info) in outputs {
            let elements = self.resolve(info)?;
            if let Some(Encoding::Name(name)) = &info.encoding
                && let [Element::Tensor(_)] = elements.as_slice()
            {
                infos.push((name.as_str(), info));
            }
            for element in elements {
                match element {
                    Element::Tensor(tensor) => tensor_fetches.push(tensor),
                    Element::Operation(node) => operation_fetches.push(node),
                }
            }
        }
        let copy = self.lift(key, &feeds, &operation_fetches, &tensor_fetches)?;
        for (name, info) in infos {
            let Some(tensor) = copy.find_tensor(name) else {
                continue;
            };
            let recorded = info
                .tensor_shape
                .as_ref()
                .map(Shape::from_proto)
                .unwrap_or_else(Shape::scalar);
            copy.shapes[tensor.node][tensor.slot]
                .shape
                .merge(&recorded)
                .map_err(|message| LoadError {
                    python_class: "ValueError",
                    message,
                })?;
        }
        copy.to_function(&feeds, &self.captures, &tensor_fetches, &self.d)
    }

    /// `lift_to_graph`: the copies of every op the fetches need, in the order TensorFlow makes
    /// them, each one's shapes inferred.
    fn lift(
        &self,
        key: &str,
        feeds: &[Tensor],
        operation_fetches: &[usize],
        tensor_fetches: &[Tensor],
    ) -> Result<Copy, LoadError> {
        let graph = self.graph;
        let sources: Vec<Tensor> = self.captures.iter().chain(feeds).copied().collect();
        let source_ops: HashSet<usize> = sources.iter().map(|s| s.node).collect();
        // `op_selector.map_subgraph`, from each fetch: a placeholder not fed is refused.
        let mut visited = source_ops.clone();
        let mut consumers: HashMap<usize, HashSet<usize>> = HashMap::new();
        let fetches: Vec<(usize, Option<Tensor>)> = operation_fetches
            .iter()
            .map(|&op| (op, None))
            .chain(tensor_fetches.iter().map(|t| (t.node, Some(*t))))
            .collect();
        for &(fetch, tensor) in &fetches {
            let mut stack = vec![fetch];
            while let Some(op) = stack.pop() {
                if !visited.insert(op) {
                    continue;
                }
                if graph.op_type(op) == "Placeholder" {
                    return Err(self.unliftable(key, fetch, tensor, op, &source_ops));
                }
                for input in graph.graph_inputs(op) {
                    consumers.entry(input).or_default().insert(op);
                    if !visited.contains(&input) {
                        stack.push(input);
                    }
                }
            }
        }
        // The copy order: a walk back from the fetches that takes an op once every consumer of
        // it in the subgraph was taken; ops upstream of the feeds have none there, so they are
        // taken too. Ops without inputs go last.
        let mut to_copy = Vec::new();
        let mut marked = HashSet::new();
        let mut to_visit: Vec<usize> = fetches
            .iter()
            .map(|&(op, _)| op)
            .filter(|op| consumers.get(op).is_none_or(HashSet::is_empty))
            .collect();
        let mut unvisited: Vec<usize> = Vec::new();
        let mut in_unvisited: HashSet<usize> = HashSet::new();
        for &op in &to_visit {
            if in_unvisited.insert(op) {
                unvisited.push(op);
            }
        }
        while !unvisited.is_empty() {
            while let Some(op) = to_visit.pop() {
                if !marked.insert(op) {
                    continue;
                }
                to_copy.push(op);
                for input in graph.graph_inputs(op) {
                    if graph.op_type(input) == "TPUReplicateMetadata" {
                        continue;
                    }
                    if in_unvisited.insert(input) {
                        unvisited.push(input);
                    }
                    let ready = consumers
                        .get(&input)
                        .is_none_or(|c| c.iter().all(|x| marked.contains(x)));
                    if ready {
                        to_visit.push(input);
                    }
                }
            }
            unvisited.retain(|op| !marked.contains(op));
            in_unvisited.retain(|op| !marked.contains(op));
            if let Some(&next) = unvisited.first() {
                to_visit.push(next);
            }
        }
        to_copy.sort_by_key(|&op| graph.graph_inputs(op).next().is_none());
        let mut copy = Copy::new(graph.len());
        for source in &sources {
            if copy.tensors.contains_key(source) {
                continue;
            }
            // A placeholder of the shape the import gave the source, and the variable shape
            // its handle carried.
            let known = Known {
                value: None,
                ..self.imported(*source)
            };
            let name = copy.unique_name(graph.name(source.node));
            let placeholder =
                copy.add_node(name, vec![known], vec![graph.dtype(*source).unwrap_or(0)]);
            copy.tensors.insert(
                *source,
                Tensor {
                    node: placeholder,
                    slot: 0,
                },
            );
        }
        for &op in to_copy.iter().rev() {
            if source_ops.contains(&op) || copy.ops.contains_key(&op) {
                continue;
            }
            self.copy_op(op, &mut copy)?;
        }
        Ok(copy)
    }

    /// `_copy_non_source`: one op copied, its shapes inferred in the new graph.
    fn copy_op(&self, op: usize, copy: &mut Copy) -> Result<(), LoadError> {
        let graph = self.graph;
        let mut known = Vec::new();
        let mut input_names = Vec::new();
        for input in graph.data_inputs(op) {
            let copied = match copy.tensors.get(&input) {
                Some(&copied) => copied,
                None => {
                    // An input not copied yet (a loop): a placeholder stands in for it.
                    let name = copy.unique_name("unused_control_flow_input");
                    let shape = self.imported_shape(input);
                    let node = copy.add_node(
                        name,
                        vec![Known::shape(shape)],
                        vec![graph.dtype(input).unwrap_or(0)],
                    );
                    Tensor { node, slot: 0 }
                }
            };
            known.push(copy.shapes[copied.node][copied.slot].clone());
            input_names.push(copy.tensor_name(copied));
        }
        for input in graph.inputs(op).iter().filter(|input| input.slot.is_none()) {
            if let Some(&copied) = copy.ops.get(&input.source) {
                input_names.push(format!("^{}", copy.names[copied]));
            }
        }
        let name = copy.unique_name(graph.name(op));
        let outputs = graph.outputs(op).len();
        let shapes = match graph.op(op) {
            Some(op_def) => {
                let original = graph.node(op);
                let node = NodeDef {
                    name: name.clone(),
                    op: original.op.clone(),
                    input: input_names,
                    device: original.device.clone(),
                    attr: original
                        .attr
                        .iter()
                        .filter(|(key, _)| {
                            key.as_str() != "_output_shapes"
                                && !key.starts_with("_class")
                                && !key.starts_with("_tpu_replicate")
                        })
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect(),
                };
                let attrs = with_defaults(&node, op_def);
                let context = Context::new(&node, &attrs, &known, outputs, self.version);
                infer(&context).map_err(|message| LoadError {
                    python_class: "ValueError",
                    message: context.refusal(&message, &self.d),
                })?
            }
            None => vec![Known::default(); outputs],
        };
        let node = copy.add_node(name, shapes, graph.outputs(op).to_vec());
        copy.ops.insert(op, node);
        for slot in 0..outputs {
            copy.tensors
                .insert(Tensor { node: op, slot }, Tensor { node, slot });
        }
        Ok(())
    }

    /// A tensor's shape as the import inferred it.
    pub(super) fn imported_shape(&self, tensor: Tensor) -> Shape {
        self.imported(tensor).shape
    }

    /// What the import inferred of a tensor, at the import's version; ops whose shape function
    /// is not replayed (or that the import would have refused) give unknown shapes.
    fn imported(&self, tensor: Tensor) -> Known {
        let graph = self.graph;
        let mut stack = vec![(tensor.node, false)];
        while let Some((n, inputs_done)) = stack.pop() {
            if self.imported.borrow()[n].is_some() {
                continue;
            }
            if !inputs_done {
                stack.push((n, true));
                for input in graph.data_inputs(n) {
                    if self.imported.borrow()[input.node].is_none() {
                        stack.push((input.node, false));
                    }
                }
                continue;
            }
            let outputs = graph.outputs(n).len();
            let shapes = {
                let imported = self.imported.borrow();
                let known: Vec<Known> = graph
                    .data_inputs(n)
                    .map(|input| {
                        imported[input.node]
                            .as_ref()
                            .and_then(|shapes| shapes.get(input.slot).cloned())
                            .unwrap_or_default()
                    })
                    .collect();
                match graph.op(n) {
                    Some(op) => {
                        let node = graph.node(n);
                        let attrs = with_defaults(node, op);
                        let context =
                            Context::new(node, &attrs, &known, outputs, self.import_version);
                        infer(&context).unwrap_or_else(|_| vec![Known::default(); outputs])
                    }
                    None => vec![Known::default(); outputs],
                }
            };
            self.imported.borrow_mut()[n] = Some(shapes);
        }
        self.imported.borrow()[tensor.node]
            .as_ref()
            .and_then(|shapes| shapes.get(tensor.slot))
            .cloned()
            .unwrap_or_default()
    }

    /// The `UnliftableError` of signature `key`, whose fetch `fetch` needs the placeholder
    /// `placeholder`.
    fn unliftable(
        &self,
        key: &str,
        fetch: usize,
        tensor: Option<Tensor>,
        placeholder: usize,
        source_ops: &HashSet<usize>,
    ) -> LoadError {
        let graph = self.graph;
        let fetched = match tensor {
            Some(tensor) => format!(
                "<tf.Tensor '{}:{}' shape={} dtype={}>",
                graph.name(tensor.node),
                tensor.slot,
                self.imported_shape(tensor).python_string(),
                python_dtype(graph.dtype(tensor).unwrap_or(0))
            ),
            None => operation_repr(graph, fetch),
        };
        LoadError {
            python_class: "UnliftableError",
            message: format!(
                "A SavedModel signature needs an input for each placeholder the signature's \
                 outputs use. An output for signature '{key}' depends on a placeholder which is \
                 not an input (i.e. the placeholder is not fed a value).\n\nUnable to lift tensor \
                 {fetched} because it depends transitively on placeholder {} via at least one \
                 path, e.g.: {}",
                operation_repr(graph, placeholder),
                show_path(graph, placeholder, fetch, source_ops)
            ),
        }
    }
}

fn operation_repr(graph: &ImportedGraph<'_>, op: usize) -> String {
    format!(
        "<tf.Operation '{}' type={}>",
        graph.name(op),
        graph.op_type(op)
    )
}

/// `op_selector.show_path`: one path from `from` up to `to`, avoiding the sources.
fn show_path(
    graph: &ImportedGraph<'_>,
    from: usize,
    to: usize,
    source_ops: &HashSet<usize>,
) -> String {
    let mut visited = source_ops.clone();
    let mut consumer_of: HashMap<usize, usize> = HashMap::new();
    let mut stack = vec![to];
    while let Some(op) = stack.pop() {
        if !visited.insert(op) {
            continue;
        }
        if op == from {
            let mut path = vec![op];
            let mut at = op;
            while at != to {
                let Some(&next) = consumer_of.get(&at) else {
                    break;
                };
                path.push(next);
                at = next;
            }
            let steps: Vec<String> = path
                .iter()
                .rev()
                .map(|&n| format!("{} ({})", graph.name(n), graph.op_type(n)))
                .collect();
            return steps.join(" <- ");
        }
        for input in graph.graph_inputs(op) {
            if !visited.contains(&input) {
                consumer_of.insert(input, op);
                stack.push(input);
            }
        }
    }
    "??".to_string()
}

/// Python's `repr` of a string: single quotes, or double quotes when it holds a single quote
/// and no double one.
fn python_repr(text: &str) -> String {
    if text.contains('\'') && !text.contains('"') {
        format!("\"{text}\"")
    } else {
        format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// `tf.DType.name`: `float32`, `int64`, `string`, `float32_ref`...
fn python_dtype(dtype: i32) -> String {
    const NAMES: [&str; 24] = [
        "invalid",
        "float32",
        "float64",
        "int32",
        "uint8",
        "int16",
        "int8",
        "string",
        "complex64",
        "int64",
        "bool",
        "qint8",
        "quint8",
        "qint32",
        "bfloat16",
        "qint16",
        "quint16",
        "uint16",
        "complex128",
        "float16",
        "resource",
        "variant",
        "uint32",
        "uint64",
    ];
    let base = if dtype > 100 { dtype - 100 } else { dtype };
    let name = usize::try_from(base)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map_or_else(|| format!("dtype{base}"), |name| (*name).to_string());
    if dtype > 100 {
        format!("{name}_ref")
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_reprs() {
        assert_eq!(python_repr("x:0"), "'x:0'");
        assert_eq!(
            python_repr("The name 'x' refers to nothing"),
            "\"The name 'x' refers to nothing\""
        );
        assert_eq!(python_dtype(1), "float32");
        assert_eq!(python_dtype(101), "float32_ref");
        assert_eq!(python_dtype(7), "string");
    }
}
