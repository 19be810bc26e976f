//! A graph's functions: the order `tf.saved_model.load` restores them in, the graph each
//! becomes there, and their instantiation (`InstantiateFunction`,
//! `tensorflow/core/framework/function.cc`), which shape inference does for every node that
//! calls a function, checking the ops and types inside it and the functions it calls in turn.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::import::Importer;
use super::printing::node_for_error;
use super::validate::{Attrs, MAX_ARG_VALUES, arg_num_type, attr_value_has_type};
use super::{Code, Failure};
use crate::schema::attr_value::Value;
use crate::schema::op_def::ArgDef;
use crate::schema::{AttrValue, FunctionDef, FunctionDefLibrary, NodeDef, OpDef};

/// Function calls nest at most this deep while instantiating.
const MAX_CALL_DEPTH: usize = 64;

/// The functions of a library in the order `tf.saved_model.load` restores them
/// (`_sort_function_defs`, `function_deserialization.py`): a function after the library
/// functions it calls, ready functions taken last-in first-out. Functions in a cycle are left
/// out (TensorFlow refuses the whole library then).
///
/// As in Python, the dependencies are a dict by name, so a name given to two functions keeps
/// its first place and the later one's dependencies, and its count of dependencies left may
/// go below zero (a name ready twice releases its dependents twice); only a count that reaches
/// zero makes a function ready.
pub(super) fn load_order(library: Option<&FunctionDefLibrary>) -> Vec<&FunctionDef> {
    let Some(library) = library else {
        return Vec::new();
    };
    let names: HashSet<&str> = library
        .function
        .iter()
        .filter_map(|f| f.signature.as_ref().map(|s| s.name.as_str()))
        .collect();
    let mut deps_by_name: Vec<(&str, BTreeSet<&str>)> = Vec::new();
    let mut place: HashMap<&str, usize> = HashMap::new();
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
        match place.get(name) {
            Some(&at) => deps_by_name[at].1 = deps,
            None => {
                place.insert(name, deps_by_name.len());
                deps_by_name.push((name, deps));
            }
        }
    }
    let mut in_count: HashMap<&str, i64> = HashMap::new();
    let mut edges: HashMap<&str, Vec<&str>> = HashMap::new();
    for (name, deps) in &deps_by_name {
        for &dep in deps {
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

impl<'a> Importer<'a> {
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
