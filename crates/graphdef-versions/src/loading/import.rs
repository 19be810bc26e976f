//! One release's importer, replayed: `GraphConstructor::Convert`
//! (`tensorflow/core/common_runtime/graph_constructor.cc`) on a graph read and indexed once.
//!
//! TensorFlow makes the nodes one at a time, in [`Order`](super::edges::Order): for each, the
//! colocation constraints, the inputs' slots, the op lookup, `ValidateNodeDef`, the op's
//! deprecation, the type of every edge, the functions the node calls (shape inference
//! instantiates them) and `_output_shapes`. It stops at the first refusal, which is the one
//! it raises.
//!
//! Everything but a node's name and edges is its form's ([`super::forms`]), so a form that a
//! node passed is not judged again. And an import that gets past its first node is first
//! asked whether anything can fail at all: when every form passes, every edge joins types
//! that agree, and the graph's shape holds, nothing can, and the million nodes are not walked.
//! Only an import that will refuse walks them, to find which node it refuses first.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use foldhash::fast::RandomState;

use super::edges::Edge;
use super::failure::{Code, Failure};
use super::forms::FormId;
use super::printing::{Dialect, node_for_error, types_compatible};
use super::scan::ScannedGraph;
use super::validate::{
    Attrs, MAX_ARG_VALUES, arg_num_type, attr_value_has_type, in_out_types, validate_node_def,
    with_defaults,
};
use crate::releases::TfRelease;
use crate::schema::attr_value::Value;
use crate::schema::op_def::ArgDef;
use crate::schema::{AttrValue, FunctionDef, FunctionDefLibrary, NodeDef, OpDef};

/// Function calls nest at most this deep while instantiating.
const MAX_CALL_DEPTH: usize = 64;

/// A node's input and output types.
type Signature = Rc<(Vec<i32>, Vec<i32>)>;

/// One release's ops, and the functions of the graph being loaded.
pub(super) struct Importer<'a> {
    pub(super) release: TfRelease,
    pub(super) d: Dialect,
    host: &'a str,
    /// The library's functions by name.
    pub(super) functions: HashMap<&'a str, &'a FunctionDef, RandomState>,
    library: Option<&'a FunctionDefLibrary>,
    /// Whether `loc:@NAME` colocation constraints must name a node of the graph: yes for
    /// `import_graph_def`, no for a function's body (`import_graph_def_for_function`,
    /// `tensorflow/python/framework/importer.py`).
    colocation: bool,
    /// What instantiating each function with no attr values gave, once: Keras calls every
    /// layer's functions from several of the model's, and an instantiation instantiates its
    /// callees in turn (see [`Importer::instantiate`]).
    pub(super) instantiated: RefCell<HashMap<&'a str, Result<(), Failure>, RandomState>>,
    /// How many instantiations were cut short by a recursive call or the depth limit: a
    /// result that depended on its callers is not kept.
    pub(super) cut_short: Cell<usize>,
}

impl<'a> Importer<'a> {
    pub(super) fn new(
        release: TfRelease,
        host: &'a str,
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
            host,
            functions,
            library,
            colocation: true,
            instantiated: RefCell::new(HashMap::default()),
            cut_short: Cell::new(0),
        }
    }

    /// The importer `tf.saved_model.load` uses for each function's body: colocation
    /// constraints are not validated there.
    pub(super) fn for_function_bodies(self) -> Self {
        Importer {
            colocation: false,
            ..self
        }
    }

    /// The op (or function signature) named `name`: functions first, as the graph's function
    /// library does, then the release's registry.
    pub(super) fn lookup(&self, name: &str) -> Result<&'a OpDef, Failure> {
        if let Some(signature) = self.functions.get(name).and_then(|f| f.signature.as_ref()) {
            return Ok(signature);
        }
        self.release.op(name).ok_or_else(|| Failure {
            code: Code::NotFound,
            message: self.d.op_not_registered(name, self.host),
        })
    }

    /// `FunctionLibraryDefinition::AddLibrary`: a function may not share its name with an op.
    pub(super) fn add_function_library(&self) -> Result<(), Failure> {
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

    /// `TryImport` of `graph` from `Convert` on, judging deprecations by `producer` (none are
    /// judged without one).
    pub(super) fn import(
        &self,
        graph: &ScannedGraph<'_>,
        producer: Option<i32>,
    ) -> Result<(), Failure> {
        self.import_walking(graph, producer, Walking::WhenSomethingCanFail)
    }

    /// [`Importer::import`] of a graph whose function library was added already
    /// ([`Importer::add_function_library`]): a function's body, of which `tf.saved_model.load`
    /// imports one per function of the library.
    pub(super) fn import_body(
        &self,
        graph: &ScannedGraph<'_>,
        producer: Option<i32>,
    ) -> Result<(), Failure> {
        if let Some(refusal) = graph.refusal() {
            return Err(refusal.clone());
        }
        self.convert(graph, producer, Walking::WhenSomethingCanFail)
    }

    fn import_walking(
        &self,
        graph: &ScannedGraph<'_>,
        producer: Option<i32>,
        walking: Walking,
    ) -> Result<(), Failure> {
        if let Some(refusal) = graph.refusal() {
            return Err(refusal.clone());
        }
        self.add_function_library()?;
        self.convert(graph, producer, walking)
    }

    /// `Convert`: the nodes made one by one, or not at all when nothing can fail.
    fn convert(
        &self,
        graph: &ScannedGraph<'_>,
        producer: Option<i32>,
        walking: Walking,
    ) -> Result<(), Failure> {
        let mut walk = Walk {
            importer: self,
            graph,
            producer,
            passed: vec![None; graph.forms().len()],
            back_edges: Vec::new(),
        };
        // Most refused imports stop at their first node: it is made before anything else is
        // worked out. With no node ready, every node is in a cycle (or there is none).
        if let Some(first) = graph.first_ready() {
            walk.make(first)?;
            if walking == Walking::WhenSomethingCanFail && walk.nothing_can_fail() {
                return Ok(());
            }
            for &n in &graph.order().made()[1..] {
                walk.make(n)?;
            }
        }
        walk.finish()
    }

    /// The function a node calls, and the attrs it calls it with (`IsFunctionCall` and
    /// `NameAndAttrsFromFunctionCall`): the node's op when that is a library function, or the
    /// `f` attr of `PartitionedCall`/`StatefulPartitionedCall`. None when the call disables
    /// shape inference or names no library function.
    pub(super) fn called_function<'n>(
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
    ///
    /// TensorFlow instantiates a function at every call, so a function called from many
    /// places is checked many times, and its callees with it. The outcome depends only on the
    /// function and the attr values it is called with (and the release), so a function called
    /// with none, as `PartitionedCall` and `StatefulPartitionedCall` call Keras' functions, is
    /// checked once per importer: this keeps a library's cost linear in its functions.
    pub(super) fn instantiate<'n>(
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
        let name = signature.name.as_str();
        if stack.contains(&name) || stack.len() >= MAX_CALL_DEPTH {
            self.cut_short.set(self.cut_short.get() + 1);
            return Ok(());
        }
        if !attr_values.is_empty() {
            return self.instantiate_once(function, signature, attr_values, stack);
        }
        if let Some(outcome) = self.instantiated.borrow().get(name) {
            return outcome.clone();
        }
        let cut_short = self.cut_short.get();
        let outcome = self.instantiate_once(function, signature, attr_values, stack);
        if self.cut_short.get() == cut_short {
            self.instantiated.borrow_mut().insert(name, outcome.clone());
        }
        outcome
    }

    /// One instantiation of `function`, whose signature is `signature`.
    fn instantiate_once<'n>(
        &self,
        function: &'a FunctionDef,
        signature: &'a OpDef,
        attr_values: &Attrs<'n>,
        stack: &mut Vec<&'a str>,
    ) -> Result<(), Failure>
    where
        'a: 'n,
    {
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
    pub(super) fn function_graph(
        &self,
        function: &'a FunctionDef,
    ) -> Result<Vec<NodeDef>, Failure> {
        let Some(signature) = function.signature.as_ref() else {
            return Ok(Vec::new());
        };
        let mut ops = Vec::with_capacity(function.node_def.len());
        for node in &function.node_def {
            let op = self.lookup(&node.op).map_err(|f| Failure {
                code: Code::PythonOpLookup,
                message: f.message,
            })?;
            ops.push(op);
        }
        let renaming = Renaming::new(signature, &function.node_def, &ops);
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
        }
        for node in &function.node_def {
            let mut node = node.clone();
            for input in &mut node.input {
                let Some(renamed) = renaming.renamed(input) else {
                    // Python's dict lookup raises KeyError.
                    return Err(Failure {
                        code: Code::Internal,
                        message: format!("'{input}'"),
                    });
                };
                *input = renamed;
            }
            nodes.push(node);
        }
        Ok(nodes)
    }
}

/// When an import walks every node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walking {
    /// Only when something can fail: to find what it refuses first.
    WhenSomethingCanFail,
    /// Always (the tests compare the two).
    #[cfg(test)]
    Always,
}

/// One import's way through a graph.
struct Walk<'i, 'a, 'g> {
    importer: &'i Importer<'a>,
    graph: &'g ScannedGraph<'g>,
    producer: Option<i32>,
    /// Each form's input and output types, once a node of it has passed its form's checks.
    passed: Vec<Option<Signature>>,
    /// The back edges of the nodes made, kept for last (`AddBackEdges`): (source, slot,
    /// destination, input).
    back_edges: Vec<(u32, u32, u32, usize)>,
}

impl Walk<'_, '_, '_> {
    fn passed(&self, n: u32) -> Option<&Signature> {
        self.passed[self.graph.form_id(n).0 as usize].as_ref()
    }

    /// Makes node `n`, whose data inputs' sources were made before it unless they are back
    /// edges, and checks it as `Convert` does, in its order.
    fn make(&mut self, n: u32) -> Result<(), Failure> {
        let graph = self.graph;
        let form = graph.form_id(n);
        let known = self.passed[form.0 as usize].clone();
        // A node's name is read again from the file only for a message: a node of a form
        // judged before needs it only when it is refused.
        let name = if known.is_none() { graph.name(n) } else { "" };
        if known.is_none() {
            self.check_colocation(form, name)?;
        }
        // The first node made has no inputs: it needs no edges, which are made only past it.
        let inputs: Vec<(usize, Edge)> = if graph.first_ready() == Some(n) {
            Vec::new()
        } else {
            graph.edges().data(n).enumerate().collect()
        };
        let mut has_back_edge = false;
        for &(k, edge) in &inputs {
            if graph.order().is_back_edge(edge.source, n) {
                has_back_edge = true;
                continue;
            }
            let outputs = self.passed(edge.source).map_or(0, |s| s.1.len());
            if edge.slot as usize >= outputs {
                let (name, source) = (graph.name(n), graph.name(edge.source));
                let mut message = format!(
                    "Node '{name}': Connecting to invalid output {} of source node {source} \
                     which has {outputs} outputs.",
                    self.slot(n, k, edge)
                );
                let op = graph.form_of(edge.source).op;
                if matches!(op, "If" | "StatelessIf" | "While" | "StatelessWhile") {
                    message.push_str(
                        " Try using tf.compat.v1.experimental.output_all_intermediates(True).",
                    );
                }
                return Err(Failure::invalid(message));
            }
        }
        if has_back_edge && !graph.is_merge(n) {
            return Err(Failure::invalid(format!(
                "Node '{}' had a back edge, but only Merge nodes can have back edges.",
                graph.name(n)
            )));
        }
        let signature = match &known {
            Some(signature) => signature.clone(),
            None => self.check_form_before_edges(form, name)?,
        };
        for &(k, edge) in &inputs {
            if graph.order().is_back_edge(edge.source, n) {
                self.back_edges.push((edge.source, edge.slot, n, k));
                continue;
            }
            let source = self.passed(edge.source).cloned().unwrap_or_default();
            self.make_edge(
                edge.source,
                &source.1,
                self.slot(n, k, edge),
                n,
                &signature.0,
                k,
            )?;
        }
        if known.is_none() {
            self.check_form_after_edges(form, name, &signature)?;
            self.passed[form.0 as usize] = Some(signature);
        }
        Ok(())
    }

    /// The slot of data input `k` of node `n`.
    fn slot(&self, n: u32, k: usize, edge: Edge) -> usize {
        self.graph.edges().slot(n, k, edge)
    }

    /// `ValidateColocationConstraints`: `loc:@NAME` in `_class` must name a node of the graph.
    fn check_colocation(&self, form: FormId, name: &str) -> Result<(), Failure> {
        if !self.importer.colocation {
            return Ok(());
        }
        let form = self.graph.forms().get(form);
        for target in &form.colocated_with {
            if !self.graph.colocated_with(target) {
                let target = String::from_utf8_lossy(target);
                return Err(Failure::invalid(format!(
                    "Node '{name}' expects to be colocated with unknown node '{target}'"
                )));
            }
        }
        Ok(())
    }

    /// What `Convert` checks of a node of `form`, named `name`, before its edges: the op
    /// lookup, `ValidateNodeDef` and the op's deprecation; the node's types.
    fn check_form_before_edges(&self, form: FormId, name: &str) -> Result<Signature, Failure> {
        let form = self.graph.forms().get(form);
        let op = self.importer.lookup(form.op)?;
        let node = form.node();
        let attrs = with_defaults(&node, op);
        validate_node_def(
            &self.importer.d,
            name,
            op,
            &attrs,
            form.data_inputs as usize,
        )?;
        let types = in_out_types(&attrs, op).map_err(Failure::invalid)?;
        if let Some(producer) = self.producer {
            check_deprecation(op, producer)?;
        }
        Ok(Rc::new(types))
    }

    /// What `Convert` checks of a node of `form`, named `name`, after its edges: the functions
    /// it calls, instantiated as shape inference does, and `_output_shapes`.
    fn check_form_after_edges(
        &self,
        form: FormId,
        name: &str,
        signature: &Signature,
    ) -> Result<(), Failure> {
        let importer = self.importer;
        let form = self.graph.forms().get(form);
        let node = form.node();
        let calls = importer.functions.contains_key(form.op)
            || form.op == "PartitionedCall"
            || form.op == "StatefulPartitionedCall";
        if calls {
            let attrs = with_defaults(&node, importer.lookup(form.op)?);
            if let Some((function, call_attrs)) = importer.called_function(&node, &attrs) {
                importer.instantiate(function, &call_attrs, &mut Vec::new())?;
            }
        }
        let outputs = signature.1.len();
        let shapes = node.attr.get("_output_shapes");
        if let Some(Value::List(list)) = shapes.and_then(|v| v.value.as_ref())
            && list.shape.len() < outputs
            && list.s.is_empty()
            && list.i.is_empty()
            && list.f.is_empty()
            && list.b.is_empty()
            && list.r#type.is_empty()
            && list.tensor.is_empty()
            && list.func.is_empty()
        {
            return Err(Failure::invalid(format!(
                "Node '{name}' has {outputs} outputs but the _output_shapes attribute \
                 specifies shapes for {} outputs",
                list.shape.len()
            )));
        }
        Ok(())
    }

    /// Whether the rest of the import cannot fail: the graph's shape holds (no cycle, back
    /// edges only into Merges), every form passes its checks, and every edge joins an output
    /// and an input whose types agree. Each form is judged by its first node, as any node of
    /// it would be.
    fn nothing_can_fail(&mut self) -> bool {
        let graph = self.graph;
        if graph.refused_for_its_shape() {
            return false;
        }
        for (id, form) in graph.forms().iter() {
            if self.passed[id.0 as usize].is_some() {
                continue;
            }
            let node = form.node();
            let name = node.name.as_str();
            let checked = self.check_colocation(id, name).and_then(|()| {
                let signature = self.check_form_before_edges(id, name)?;
                self.check_form_after_edges(id, name, &signature)?;
                Ok(signature)
            });
            match checked {
                Ok(signature) => self.passed[id.0 as usize] = Some(signature),
                Err(_) => return false,
            }
        }
        let (forms, edges) = (graph.forms_of(), graph.edges());
        let passed = |n: u32| self.passed[forms[n as usize].0 as usize].as_ref();
        (0..graph.len() as u32).all(|n| {
            let Some(inputs) = passed(n).map(|s| &s.0) else {
                return false;
            };
            edges.data(n).enumerate().all(|(k, edge)| {
                let outputs = passed(edge.source).map_or(&[][..], |s| &s.1[..]);
                match (outputs.get(edge.slot as usize), inputs.get(k)) {
                    (Some(&actual), Some(&expected)) => types_compatible(expected, actual),
                    _ => false,
                }
            })
        })
    }

    /// The end of `Convert`: every node made, then `AddBackEdges`.
    fn finish(&self) -> Result<(), Failure> {
        let never_made = self.graph.order().never_made();
        if never_made > 0 {
            return Err(Failure::invalid(format!("{never_made} nodes in a cycle")));
        }
        for &(source, slot, dst, k) in &self.back_edges {
            let edge = Edge { source, slot };
            let (Some(outputs), Some(inputs)) = (self.passed(source), self.passed(dst)) else {
                continue;
            };
            self.make_edge(
                source,
                &outputs.1,
                self.slot(dst, k, edge),
                dst,
                &inputs.0,
                k,
            )?;
        }
        Ok(())
    }

    /// `GraphConstructor::MakeEdge`: output `slot` of `source`, whose outputs are `outputs`,
    /// to input `k` of `dst`, whose inputs are `inputs`: the types must agree.
    fn make_edge(
        &self,
        source: u32,
        outputs: &[i32],
        slot: usize,
        dst: u32,
        inputs: &[i32],
        k: usize,
    ) -> Result<(), Failure> {
        let d = &self.importer.d;
        // The names are read again from the file only for a message.
        let name = |n| self.graph.name(n);
        let Some(&actual) = outputs.get(slot) else {
            return Err(Failure::invalid(format!(
                "Output {slot} of node {} does not exist. Node only has {} outputs.",
                name(source),
                outputs.len()
            )));
        };
        let Some(&expected) = inputs.get(k) else {
            return Err(Failure::invalid(format!(
                "Input {k} of node {} does not exist. Node only has {} inputs.",
                name(dst),
                inputs.len()
            )));
        };
        if !types_compatible(expected, actual) {
            return Err(Failure::invalid(format!(
                "Input {k} of node {} was passed {} from {}:{slot} incompatible with \
                 expected {}.",
                name(dst),
                d.dtype_string(actual),
                name(source),
                d.dtype_string(expected)
            )));
        }
        Ok(())
    }
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

/// `nested_to_flat_tensor_name` of `function_def_to_graph_def`: the dict from a function body's
/// input names (`x`, `^x` for an argument; `node:out:i`, `^node` for a node's output `i` of
/// its output arg `out`) to graph tensor names (`x:0`; `node:k`, counting the node's outputs).
///
/// Python fills the dict with one string key per output; names are looked up here by their
/// parts instead, the same keys with the same values (a later entry replacing an earlier one
/// of its key), when no name has a `:` in it. Otherwise the parts of a key are ambiguous, and
/// the dict is made as Python makes it.
enum Renaming<'a> {
    /// Keyed by parts: the argument names, every name, and each output's position.
    Parts {
        args: HashSet<&'a str, RandomState>,
        names: HashSet<&'a str, RandomState>,
        outputs: HashMap<(&'a str, &'a str, usize), usize, RandomState>,
    },
    /// Python's dict, key for key.
    Dict(HashMap<String, String>),
}

impl<'a> Renaming<'a> {
    /// The renaming of a body of `nodes`, whose ops are `ops`, in a function of `signature`.
    fn new(signature: &'a OpDef, nodes: &'a [NodeDef], ops: &[&'a OpDef]) -> Self {
        // A `:` splits keys; a leading `^` is a control input's.
        let odd = |name: &str| name.contains(':') || name.starts_with('^');
        let ambiguous = signature.input_arg.iter().any(|arg| odd(&arg.name))
            || nodes.iter().any(|node| odd(&node.name))
            || ops
                .iter()
                .any(|op| op.output_arg.iter().any(|arg| odd(&arg.name)));
        if ambiguous {
            return Renaming::Dict(python_dict(signature, nodes, ops));
        }
        let args: HashSet<&str, RandomState> = signature
            .input_arg
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        let mut names = args.clone();
        let mut outputs = HashMap::with_hasher(RandomState::default());
        for (node, op) in nodes.iter().zip(ops) {
            let mut index = 0usize;
            for arg in &op.output_arg {
                for i in 0..python_num_args(arg, node) {
                    outputs.insert((node.name.as_str(), arg.name.as_str(), i), index);
                    index += 1;
                }
            }
            names.insert(node.name.as_str());
        }
        Renaming::Parts {
            args,
            names,
            outputs,
        }
    }

    /// The graph tensor name of the body input `input`; `None` where Python's dict has no key.
    fn renamed(&self, input: &str) -> Option<String> {
        let (args, names, outputs) = match self {
            Renaming::Dict(dict) => return dict.get(input).cloned(),
            Renaming::Parts {
                args,
                names,
                outputs,
            } => (args, names, outputs),
        };
        if let Some(name) = input.strip_prefix('^') {
            return names.contains(name).then(|| input.to_string());
        }
        if args.contains(input) {
            return Some(format!("{input}:0"));
        }
        let mut parts = input.split(':');
        let (Some(node), Some(arg), Some(i), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        // The key's number is written as Python writes an int.
        let i: usize = i.parse().ok().filter(|n: &usize| n.to_string() == i)?;
        let index = outputs.get(&(node, arg, i))?;
        Some(format!("{node}:{index}"))
    }
}

/// Python's `nested_to_flat_tensor_name`, made key by key (see [`Renaming`]).
fn python_dict(signature: &OpDef, nodes: &[NodeDef], ops: &[&OpDef]) -> HashMap<String, String> {
    let mut flat = HashMap::new();
    for arg in &signature.input_arg {
        flat.insert(arg.name.clone(), format!("{}:0", arg.name));
        flat.insert(format!("^{}", arg.name), format!("^{}", arg.name));
    }
    for (node, op) in nodes.iter().zip(ops) {
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
    flat
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{AttrValue, GraphDef, NodeDef, TensorProto};
    use proptest::prelude::*;
    use prost::Message;

    /// Ops, each with the number of data inputs it takes (a Merge takes its `N`).
    const OPS: [(&str, usize); 9] = [
        ("Placeholder", 0),
        ("Const", 0),
        ("Identity", 1),
        ("ZerosLike", 1),
        ("AddV2", 2),
        ("NoOp", 0),
        ("Merge", 2),
        ("NextIteration", 1),
        ("NoSuchOp", 1),
    ];

    /// A node of `op` named `n{n}`, of type `dtype`, whose data inputs come from `sources`
    /// (as `(node, slot)`), and which waits for the nodes `controls`.
    fn node(
        n: usize,
        op: &str,
        dtype: i32,
        sources: &[(usize, usize)],
        controls: &[usize],
    ) -> NodeDef {
        let typed = |value| AttrValue { value: Some(value) };
        let mut attr = std::collections::HashMap::new();
        match op {
            "Placeholder" => {
                attr.insert("dtype".to_string(), typed(Value::Type(dtype)));
            }
            "Const" => {
                attr.insert("dtype".to_string(), typed(Value::Type(dtype)));
                let tensor = TensorProto {
                    dtype,
                    ..TensorProto::default()
                };
                attr.insert("value".to_string(), typed(Value::Tensor(tensor)));
            }
            _ => {
                attr.insert("T".to_string(), typed(Value::Type(dtype)));
            }
        }
        if op == "Merge" {
            attr.insert("N".to_string(), typed(Value::I(sources.len() as i64)));
        }
        let input = sources
            .iter()
            .map(|&(source, slot)| match slot {
                0 => format!("n{source}"),
                slot => format!("n{source}:{slot}"),
            })
            .chain(controls.iter().map(|control| format!("^n{control}")))
            .collect();
        NodeDef {
            name: format!("n{n}"),
            op: op.to_string(),
            input,
            attr,
            ..NodeDef::default()
        }
    }

    prop_compose! {
        /// A node of a graph of `count` nodes: mostly well typed and fed by nodes before it,
        /// sometimes not.
        fn a_node(count: usize)(
            op in 0..OPS.len(),
            float in proptest::bool::weighted(0.85),
            dtype in prop_oneof![Just(3), Just(9), Just(7)],
            arity_off in prop_oneof![8 => Just(0i32), 1 => Just(-1), 1 => Just(1)],
            sources in proptest::collection::vec(
                (proptest::bool::weighted(0.9), 0..count, proptest::bool::weighted(0.95)),
                3,
            ),
            controls in proptest::collection::vec(0..count, 0..2),
        ) -> (usize, i32, i32, Vec<(bool, usize, bool)>, Vec<usize>) {
            (op, if float { 1 } else { dtype }, arity_off, sources, controls)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// Asking whether anything can fail never changes an import's verdict: when it says
        /// nothing can, walking every node refuses nothing either.
        #[test]
        fn an_import_that_skips_its_walk_says_what_walking_says(
            nodes in proptest::collection::vec(a_node(12), 1..12),
            release in 0usize..10,
        ) {
            let count = nodes.len();
            let graph = GraphDef {
                node: nodes
                    .iter()
                    .enumerate()
                    .map(|(n, (op, dtype, arity_off, sources, controls))| {
                        let (op, arity) = OPS[*op];
                        let arity = (arity as i32 + arity_off).clamp(0, 3) as usize;
                        let sources: Vec<(usize, usize)> = sources
                            .iter()
                            .take(arity)
                            .map(|&(before, source, slot_zero)| {
                                // A node fed by a node before it, mostly.
                                let source = if before && n > 0 { source % n } else { source % count };
                                (source, usize::from(!slot_zero))
                            })
                            .collect();
                        // Control inputs from nodes before.
                        let controls: Vec<usize> =
                            controls.iter().filter(|_| n > 0).map(|c| c % n).collect();
                        node(n, op, *dtype, &sources, &controls)
                    })
                    .collect(),
                ..GraphDef::default()
            };
            let bytes = graph.encode_to_vec();
            let read = ScannedGraph::read(&bytes, count).expect("plain bytes");
            let release = TfRelease::all().nth(release).unwrap();
            let importer = Importer::new(release, "test", None);
            let verdict = |walking| {
                importer
                    .import_walking(&read, Some(2474), walking)
                    .map_err(|failure| failure.message)
            };
            prop_assert_eq!(verdict(Walking::WhenSomethingCanFail), verdict(Walking::Always));
        }
    }

    proptest! {
        /// Inputs are renamed as Python's dict of string keys renames them, whether the body's
        /// names let them be looked up by their parts or not.
        #[test]
        fn inputs_are_renamed_as_pythons_dict_renames_them(
            args in proptest::collection::vec(
                prop_oneof![8 => "[ab]", 1 => "\\^?[ab:]{1,2}"],
                0..3,
            ),
            nodes in proptest::collection::vec(
                (
                    prop_oneof![8 => "[abc]", 1 => "\\^?[abc:]{1,2}"],
                    prop_oneof![4 => 0usize..2, 1 => Just(2usize)],
                    0i64..3,
                ),
                0..5,
            ),
            inputs in proptest::collection::vec(
                prop_oneof![
                    6 => "\\^?[abc](:[ox](:[0-2])?)?",
                    1 => "\\^?[abc:]{1,2}(:[ox:]{1,2}(:(0|1|2|01|-1))?)?",
                ],
                1..12,
            ),
        ) {
            use crate::schema::op_def::ArgDef;
            let arg = |name: &str, number_attr: &str| ArgDef {
                name: name.to_string(),
                number_attr: number_attr.to_string(),
                ..ArgDef::default()
            };
            // Ops with an output `o`, then `x` given by the node's `N` or one output `o:`.
            let defs = [
                OpDef { output_arg: vec![arg("o", "")], ..OpDef::default() },
                OpDef { output_arg: vec![arg("o", ""), arg("x", "N")], ..OpDef::default() },
                OpDef { output_arg: vec![arg("x", "N"), arg("o:", "")], ..OpDef::default() },
            ];
            let signature = OpDef {
                input_arg: args.iter().map(|name| arg(name, "")).collect(),
                ..OpDef::default()
            };
            let body: Vec<NodeDef> = nodes
                .iter()
                .map(|(name, _, n)| NodeDef {
                    name: name.clone(),
                    attr: [("N".to_string(), AttrValue { value: Some(Value::I(*n)) })].into(),
                    ..NodeDef::default()
                })
                .collect();
            let ops: Vec<&OpDef> = nodes.iter().map(|&(_, op, _)| &defs[op]).collect();
            let dict = python_dict(&signature, &body, &ops);
            let renaming = Renaming::new(&signature, &body, &ops);
            for input in &inputs {
                prop_assert_eq!(renaming.renamed(input), dict.get(input).cloned(), "{}", input);
            }
            // Every key of the dict is found too (a node output's, an argument's, a control's).
            for (key, value) in &dict {
                prop_assert_eq!(renaming.renamed(key), Some(value.clone()), "{}", key);
            }
            // Without `:` or a leading `^` in any name, the names are looked up by parts.
            let plain = |name: &str| !name.contains(':') && !name.starts_with('^');
            if args.iter().all(|a| plain(a))
                && nodes.iter().all(|(name, op, _)| plain(name) && *op < 2)
            {
                let by_parts = matches!(renaming, Renaming::Parts { .. });
                prop_assert!(by_parts);
            }
        }
    }
}
