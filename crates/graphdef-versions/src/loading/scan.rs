//! One pass over a GraphDef's bytes, through the crate's protobuf reader ([`crate::wire`]): the
//! nodes read in place, indexed, their inputs looked up and their forms found.
//!
//! TensorFlow indexes every node and looks up every input before it imports any node, and
//! most refused imports stop at their first node. So the pass keeps little of each node: its
//! form ([`super::forms`]: what the importer judges of a node beyond its name and its edges,
//! decoded once per form) and its name's entry in the index. Every node's edges are read again
//! from the file when an import gets past its first node, and a node's name when a message
//! wants it. A million nodes then cost twelve bytes each.
//!
//! Bytes that prost reads differently, or refuses (a field repeated or of another wire type
//! than its declaration, text that is not UTF-8, a form whose fields do not decode), are not
//! read here: [`ScannedGraph::read`] says `None`, and the caller decodes the whole graph with prost
//! instead, which refuses the bytes or gives the graph to read again in its plain form.

use std::cell::OnceCell;
use std::collections::HashSet;

use prost::Message;

use super::edges::{Edges, Order};
use super::failure::Failure;
use super::forms::{Flow, Form, FormId, Forms};
use super::index::{Names, Wanted, names_previous, tensor_id, valid_node_name};
use super::node::{NodeReader, name_and_inputs};
use crate::schema::{GraphDef, NodeDef};
use crate::wire::{Fields, Value};

/// `GraphDef.node` (`tensorflow/core/framework/graph.proto`).
const GRAPH_NODE: u32 = 1;

/// Node `n`'s field is found by reading on from that of node `n - n % STRIDE`, whose place
/// in the file is kept.
const STRIDE: usize = 64;

/// A GraphDef read for importing: its nodes in place, the rest of it decoded.
pub(super) struct ScannedGraph<'a> {
    file: &'a [u8],
    len: usize,
    /// Where the field of every [`STRIDE`]th node starts in the file.
    every_stride: Vec<u32>,
    /// Each node's form.
    forms_of: Vec<FormId>,
    forms: Forms<'a>,
    /// The nodes the forms' colocation constraints (`loc:@NAME` in `_class`) name, by name;
    /// a name of no node is left out.
    colocated: HashSet<Vec<u8>>,
    /// The inputs that do not name the node just before their own (see [`names_previous`]),
    /// in order: which of the names looked up each names.
    lookups: Vec<u32>,
    /// The node each name looked up names.
    looked_up: Vec<u32>,
    /// The first refusal of `BuildNodeIndex` or `InitFromEdges`, which every release makes.
    refusal: Option<Failure>,
    /// The first node with no inputs: an import makes it first.
    first_ready: Option<u32>,
    /// The graph without its nodes: versions and library.
    pub(super) rest: GraphDef,
    /// Every node's inputs, read again the first time they are asked for.
    edges: OnceCell<Edges>,
    order: OnceCell<Order>,
}

impl<'a> ScannedGraph<'a> {
    /// Reads a GraphDef's bytes, which hold about `nodes` nodes (a wrong count costs only
    /// time); `None` for bytes left to prost (see the module's documentation).
    pub(super) fn read(bytes: &'a [u8], nodes: usize) -> Option<ScannedGraph<'a>> {
        Self::read_encoded(bytes, nodes, Vec::new())
    }

    /// [`ScannedGraph::read`] of the bytes of a GraphDef whose nodes are `nodes`, as encoded
    /// here (a function's body): each node's form keeps its node rather than decode it again.
    pub(super) fn read_built(bytes: &'a [u8], nodes: Vec<NodeDef>) -> Option<ScannedGraph<'a>> {
        Self::read_encoded(bytes, nodes.len(), nodes)
    }

    /// [`ScannedGraph::read`], the `k`th node's form taking `decoded[k]` when there is one.
    fn read_encoded(
        bytes: &'a [u8],
        nodes: usize,
        decoded: Vec<NodeDef>,
    ) -> Option<ScannedGraph<'a>> {
        let mut decoded = decoded.into_iter();
        // Offsets in the file are kept as 32 bits: protobuf messages are below 2 GiB.
        u32::try_from(bytes.len()).ok()?;
        let nodes = nodes.min(bytes.len() / 2);
        let mut read = Reading {
            file: bytes,
            len: 0,
            every_stride: Vec::with_capacity(nodes / STRIDE + 1),
            forms_of: Vec::with_capacity(nodes),
            forms: Forms::new(),
            names: Names::with_capacity(nodes),
            bad_node: None,
            first_ready: None,
            previous: "",
            reader: NodeReader::default(),
            lookups: Vec::new(),
            wanted: Wanted::default(),
            first_wanted: Vec::new(),
        };
        let mut rest = Vec::new();
        let mut fields = Fields::new(bytes, 0, "GraphDef");
        while let Some(field) = fields.next_well_formed() {
            match (field.number, field.value) {
                (GRAPH_NODE, Value::Bytes(node, _)) => {
                    read.add(node, field.start, decoded.next())?;
                }
                // The fields a GraphDef or a SavedModel has, each with a wire type that
                // neither allows for it (see `Kind::detect`): the bytes are not for reading.
                (1..=5, Value::Other(_))
                | (1 | 2 | 4 | 5, Value::Varint(_))
                | (3, Value::Bytes(..)) => return None,
                _ => rest.extend_from_slice(&bytes[field.start..field.end]),
            }
        }
        if fields.malformed() {
            return None;
        }
        // The other fields, as prost reads them: a node field of another wire type, or a
        // library that does not decode, is prost's to refuse.
        let rest = GraphDef::decode(rest.as_slice()).ok()?;
        if !rest.node.is_empty() {
            return None;
        }
        Some(read.finish(rest))
    }

    /// The first refusal of `BuildNodeIndex` or `InitFromEdges`, if any: every release's.
    pub(super) fn refusal(&self) -> Option<&Failure> {
        self.refusal.as_ref()
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Node `n`'s bytes, read again from the file.
    fn bytes(&self, n: u32) -> &'a [u8] {
        let n = n as usize;
        let Some(&at) = self.every_stride.get(n / STRIDE) else {
            return &[];
        };
        let at = at as usize;
        let mut fields = Fields::new(&self.file[at..], at, "GraphDef");
        let mut nodes = std::iter::from_fn(|| fields.next_well_formed())
            .filter(|field| field.number == GRAPH_NODE)
            .filter_map(|field| field.payload().map(|(node, _)| node));
        // Read once already.
        nodes.nth(n % STRIDE).unwrap_or_default()
    }

    /// Node `n`'s name.
    pub(super) fn name(&self, n: u32) -> &'a str {
        name_and_inputs(self.bytes(n), |_| {})
    }

    /// Node `n`'s form.
    pub(super) fn form_id(&self, n: u32) -> FormId {
        self.forms_of[n as usize]
    }

    /// Each node's form.
    pub(super) fn forms_of(&self) -> &[FormId] {
        &self.forms_of
    }

    pub(super) fn form_of(&self, n: u32) -> &Form<'a> {
        self.forms.get(self.form_id(n))
    }

    pub(super) fn forms(&self) -> &Forms<'a> {
        &self.forms
    }

    /// Whether a node is named `name`, a colocation constraint's.
    pub(super) fn colocated_with(&self, name: &[u8]) -> bool {
        self.colocated.contains(name)
    }

    /// The node an import makes first, if any.
    pub(super) fn first_ready(&self) -> Option<u32> {
        self.first_ready
    }

    /// Every node's inputs, read again the first time they are asked for.
    pub(super) fn edges(&self) -> &Edges {
        self.edges.get_or_init(|| {
            let mut edges = Edges::with_capacity(self.len);
            let mut looked_up = self.lookups.iter().map(|&at| &self.looked_up[at as usize]);
            let mut inputs = Vec::new();
            let mut previous = "";
            let mut nodes = Fields::new(self.file, 0, "GraphDef");
            let mut n = 0;
            while let Some(field) = nodes.next_well_formed() {
                let (GRAPH_NODE, Value::Bytes(bytes, _)) = (field.number, field.value) else {
                    continue;
                };
                inputs.clear();
                let name = name_and_inputs(bytes, |input| inputs.push(input));
                edges.add_node(n, &inputs, previous, &mut looked_up);
                previous = name;
                n += 1;
            }
            edges
        })
    }

    /// The order an import makes the nodes in, worked out the first time it is asked for.
    pub(super) fn order(&self) -> &Order {
        self.order
            .get_or_init(|| Order::of(self.edges(), |n| self.form_of(n).flow))
    }

    /// Whether the graph's shape alone refuses it, in every release: a node in a cycle, or a
    /// back edge into a node that is not a Merge. A graph with no loop (no Merge, no
    /// NextIteration) whose every input names a node written before its own, as TensorFlow
    /// writes graphs, has neither, and its order need not be worked out to know it.
    pub(super) fn refused_for_its_shape(&self) -> bool {
        let loops = self.forms.iter().any(|(_, form)| form.flow != Flow::Other);
        if !loops && self.edges().sources_before() {
            return false;
        }
        self.order().refused_for_its_shape()
    }

    /// Whether node `n` is a Merge.
    pub(super) fn is_merge(&self, n: u32) -> bool {
        self.form_of(n).flow == Flow::Merge
    }
}

/// Whether the first field of `bytes` is a GraphDef's node.
pub(super) fn starts_with_node(bytes: &[u8]) -> bool {
    let first = Fields::new(bytes, 0, "GraphDef").next_well_formed();
    first.is_some_and(|field| field.number == GRAPH_NODE && field.payload().is_some())
}

/// What `BuildNodeIndex` refuses of a node, in the order it checks a node: of two refusals of
/// one node, the first is the one it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum BadNode {
    InvalidName,
    NotUnique,
    NoOp,
    ControlsFirst,
}

/// A graph being read.
struct Reading<'a> {
    file: &'a [u8],
    len: usize,
    every_stride: Vec<u32>,
    forms_of: Vec<FormId>,
    forms: Forms<'a>,
    /// The names of the nodes up to the first one refused on its own, for the index.
    names: Names,
    /// The first node refused on its own (not for its name being repeated), and why.
    bad_node: Option<(u32, BadNode)>,
    first_ready: Option<u32>,
    /// The last node's name.
    previous: &'a str,
    reader: NodeReader<'a>,
    /// The inputs that do not name the node just before their own, in order: which of the
    /// names wanted each names.
    lookups: Vec<u32>,
    wanted: Wanted<'a>,
    /// Where each name wanted is first wanted: the node and its input, as written.
    first_wanted: Vec<(u32, &'a [u8])>,
}

impl<'a> Reading<'a> {
    /// Reads and adds one node, `bytes` as written, whose field starts at byte `at` of the file.
    /// `decoded` is the node the bytes encode, when the caller has it.
    fn add(&mut self, bytes: &'a [u8], at: usize, decoded: Option<NodeDef>) -> Option<()> {
        let reader = &mut self.reader;
        let (name, op) = reader.read(bytes)?;
        let n = u32::try_from(self.len).ok()?;
        let form = self.forms.add(bytes, op, reader.form_key(), decoded)?;
        self.forms_of.push(form);
        // BuildNodeIndex, node after node, up to the first node it refuses; whether a name
        // came before is found once every name is in.
        if self.bad_node.is_none() {
            self.names.push(n, name.as_bytes());
            self.bad_node = if !valid_node_name(name) {
                Some((n, BadNode::InvalidName))
            } else if op.is_empty() {
                Some((n, BadNode::NoOp))
            } else if !reader.controls_last() {
                Some((n, BadNode::ControlsFirst))
            } else {
                None
            };
        }
        for &input in &reader.inputs {
            if !names_previous(input, self.previous) {
                let at = self.wanted.add(tensor_id(input).0);
                if at as usize == self.first_wanted.len() {
                    self.first_wanted.push((n, input));
                }
                self.lookups.push(at);
            }
        }
        if reader.inputs.is_empty() && self.first_ready.is_none() {
            self.first_ready = Some(n);
        }
        if self.len.is_multiple_of(STRIDE) {
            // Below 2 GiB (checked in `ScannedGraph::read`).
            self.every_stride.push(at as u32);
        }
        self.len += 1;
        self.previous = name;
        Some(())
    }

    /// The graph read: its nodes indexed (`BuildNodeIndex`), then the inputs that do not name
    /// the node before their own looked up, in node order (`InitFromEdges`); the first refusal
    /// of either.
    fn finish(self, rest: GraphDef) -> ScannedGraph<'a> {
        let mut graph = ScannedGraph {
            file: self.file,
            len: self.len,
            every_stride: self.every_stride,
            forms_of: self.forms_of,
            forms: self.forms,
            colocated: HashSet::new(),
            lookups: self.lookups,
            looked_up: Vec::new(),
            refusal: None,
            first_ready: self.first_ready,
            rest,
            edges: OnceCell::new(),
            order: OnceCell::new(),
        };
        // The names wanted: those the inputs look up, then the colocation targets.
        let looked_up = self.wanted.names().len();
        let mut wanted = self.wanted.names().to_vec();
        let targets = colocation_targets(&graph.forms);
        wanted.extend(targets.iter().map(Vec::as_slice));
        let found = self.names.find(|n| graph.name(n).as_bytes(), &wanted);
        let (sources, targets_found) = found.nodes.split_at(looked_up);
        graph.colocated = targets
            .iter()
            .zip(targets_found)
            .filter(|(_, node)| node.is_some())
            .map(|(target, _)| target.clone())
            .collect();
        let bad_node = self
            .bad_node
            .into_iter()
            .chain(found.repeated.map(|node| (node, BadNode::NotUnique)))
            .min();
        graph.refusal = bad_node.map(|(node, why)| {
            let name = graph.name(node);
            Failure::invalid(match why {
                BadNode::InvalidName => {
                    format!("Node '{name}': Node name contains invalid characters")
                }
                BadNode::NotUnique => format!("Node '{name}' is not unique"),
                BadNode::NoOp => format!("Node '{name}' does not specify an operation"),
                BadNode::ControlsFirst => format!(
                    "Node '{name}': Control dependencies must come after regular dependencies"
                ),
            })
        });
        if graph.refusal.is_none() {
            // The names are numbered in the order they are first wanted: the first that names
            // no node is the first input that does.
            if let Some(unknown) = sources.iter().position(Option::is_none) {
                let (node, input) = self.first_wanted[unknown];
                graph.refusal = Some(Failure::invalid(format!(
                    "Node '{}': Unknown input node '{}'",
                    graph.name(node),
                    String::from_utf8_lossy(input)
                )));
            } else {
                graph.looked_up = sources.iter().flatten().copied().collect();
            }
        }
        graph
    }
}

/// The names the forms' colocation constraints name.
fn colocation_targets(forms: &Forms<'_>) -> Vec<Vec<u8>> {
    let targets = forms.iter().flat_map(|(_, form)| &form.colocated_with);
    targets.cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::NodeDef;
    use proptest::prelude::*;
    use std::collections::HashSet;

    fn graph_of(nodes: &[(String, String, Vec<String>)]) -> Vec<u8> {
        GraphDef {
            node: nodes
                .iter()
                .map(|(name, op, input)| NodeDef {
                    name: name.clone(),
                    op: op.clone(),
                    input: input.clone(),
                    ..NodeDef::default()
                })
                .collect(),
            ..GraphDef::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn a_graph_built_here_reads_as_its_bytes_read() {
        use crate::schema::AttrValue;
        use crate::schema::attr_value::Value;
        let node = |name: &str, op: &str, dtype: i32, input: &[&str]| NodeDef {
            name: name.into(),
            op: op.into(),
            input: input.iter().map(|i| i.to_string()).collect(),
            attr: [(
                "T".to_string(),
                AttrValue {
                    value: Some(Value::Type(dtype)),
                },
            )]
            .into(),
            ..NodeDef::default()
        };
        let nodes = vec![
            node("x", "Placeholder", 1, &[]),
            node("y", "Identity", 1, &["x"]),
            node("z", "Identity", 1, &["y"]),
            node("w", "Identity", 3, &["x"]),
        ];
        let bytes = GraphDef {
            node: nodes.clone(),
            ..GraphDef::default()
        }
        .encode_to_vec();
        let read = ScannedGraph::read(&bytes, nodes.len()).unwrap();
        let built = ScannedGraph::read_built(&bytes, nodes).unwrap();
        assert_eq!(built.len(), read.len());
        assert_eq!(built.forms_of(), read.forms_of());
        // y and z share a form: three forms, each holding the node first read of it.
        assert_eq!(built.forms().len(), 3);
        for ((_, built), (_, read)) in built.forms().iter().zip(read.forms().iter()) {
            assert_eq!(*built.node(), *read.node());
            assert_eq!(built.op, read.op);
        }
    }

    /// `IsValidNodeName`'s pattern, read plainly.
    fn valid_by_pattern(name: &str) -> bool {
        name.split('>').all(|part| {
            let mut bytes = part.bytes();
            bytes
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.')
                && bytes
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'/'))
        })
    }

    proptest! {
        /// The first refusal is the one a plain model of `BuildNodeIndex` then
        /// `InitFromEdges` finds: node after node, each node's name checked, then looked up
        /// among the names before it, then its op and the order of its inputs; then every
        /// input looked up among all the names.
        #[test]
        fn the_first_refusal_is_the_one_taking_nodes_in_order_finds(
            nodes in proptest::collection::vec(
                (
                    prop_oneof![4 => "[a-e]", 1 => "[a-e]{2}", 1 => Just("-x".to_string())],
                    prop_oneof![8 => Just("Op"), 1 => Just("")],
                    proptest::collection::vec("\\^?[a-f](:[0-9])?", 0..3),
                ),
                1..14,
            ),
        ) {
            let nodes: Vec<(String, String, Vec<String>)> = nodes
                .into_iter()
                .map(|(name, op, input)| (name, op.to_string(), input))
                .collect();
            let mut seen = HashSet::new();
            let mut expected = None;
            for (name, op, inputs) in &nodes {
                let controls_last = inputs
                    .iter()
                    .skip_while(|input| !input.starts_with('^'))
                    .all(|input| input.starts_with('^'));
                expected = if !valid_by_pattern(name) {
                    Some(format!("Node '{name}': Node name contains invalid characters"))
                } else if !seen.insert(name.as_str()) {
                    Some(format!("Node '{name}' is not unique"))
                } else if op.is_empty() {
                    Some(format!("Node '{name}' does not specify an operation"))
                } else if !controls_last {
                    Some(format!(
                        "Node '{name}': Control dependencies must come after regular dependencies"
                    ))
                } else {
                    None
                };
                if expected.is_some() {
                    break;
                }
            }
            if expected.is_none() {
                expected = nodes.iter().find_map(|(name, _, inputs)| {
                    inputs
                        .iter()
                        .find(|input| {
                            let source = tensor_id(input.as_bytes()).0;
                            !seen.contains(std::str::from_utf8(source).unwrap())
                        })
                        .map(|input| format!("Node '{name}': Unknown input node '{input}'"))
                });
            }
            let bytes = graph_of(&nodes);
            let graph = ScannedGraph::read(&bytes, nodes.len()).expect("plain bytes");
            prop_assert_eq!(graph.refusal().map(|r| r.message.as_str()), expected.as_deref());
        }

        /// In a graph every import indexes (unique names, inputs naming nodes before, after,
        /// itself or the node just before, data inputs then control inputs), each input's
        /// edge comes from the node it names, with the slot it names.
        #[test]
        fn edges_come_from_the_nodes_the_inputs_name(
            inputs in proptest::collection::vec(
                proptest::collection::vec((0usize..40, any::<bool>(), 0usize..3), 0..4),
                1..40,
            ),
            count_given in 0usize..60,
        ) {
            let count = inputs.len();
            let nodes: Vec<(String, String, Vec<String>)> = inputs
                .iter()
                .enumerate()
                .map(|(n, inputs)| {
                    let mut inputs: Vec<(usize, bool, usize)> = inputs
                        .iter()
                        .map(|&(k, control, slot)| {
                            // Half of the inputs name the node just before, when there is one.
                            let source = if k % 2 == 0 && n > 0 { n - 1 } else { k % count };
                            (source, control, slot)
                        })
                        .collect();
                    inputs.sort_by_key(|&(_, control, _)| control);
                    let inputs = inputs
                        .into_iter()
                        .map(|(source, control, slot)| match (control, slot) {
                            (true, _) => format!("^n{source}"),
                            (false, 0) => format!("n{source}"),
                            (false, slot) => format!("n{source}:{slot}"),
                        })
                        .collect();
                    (format!("n{n}"), "Op".to_string(), inputs)
                })
                .collect();
            let bytes = graph_of(&nodes);
            // However many nodes the reading was told of.
            let graph = ScannedGraph::read(&bytes, count_given).expect("plain bytes");
            prop_assert!(graph.refusal().is_none());
            for (n, (name, _, inputs)) in nodes.iter().enumerate() {
                let n = n as u32;
                prop_assert_eq!(graph.name(n), name.as_str());
                let named: Vec<(String, bool, usize)> = inputs
                    .iter()
                    .map(|input| {
                        let (source, slot) = tensor_id(input.as_bytes());
                        let source = std::str::from_utf8(source).unwrap().to_string();
                        (source, input.starts_with('^'), slot)
                    })
                    .collect();
                let found: Vec<(String, bool, usize)> = graph
                    .edges()
                    .of_node(n)
                    .iter()
                    .enumerate()
                    .map(|(k, &edge)| {
                        let slot = if edge.is_control() { 0 } else { graph.edges().slot(n, k, edge) };
                        (graph.name(edge.source).to_string(), edge.is_control(), slot)
                    })
                    .collect();
                prop_assert_eq!(found, named);
            }
        }
    }

    #[test]
    fn inputs_that_name_later_nodes_and_large_slots() {
        let nodes = [
            (
                "b".to_string(),
                "Op".to_string(),
                vec!["a:99999999999".to_string()],
            ),
            ("a".to_string(), "Op".to_string(), vec![]),
        ];
        let bytes = graph_of(&nodes);
        let graph = ScannedGraph::read(&bytes, 2).expect("read");
        assert!(graph.refusal().is_none());
        assert_eq!(graph.first_ready(), Some(1));
        let edge = graph.edges().of_node(0)[0];
        assert_eq!(edge.source, 1);
        assert_eq!(graph.edges().slot(0, 0, edge), 99_999_999_999);
        assert_eq!(graph.order().made(), [1, 0]);
        let unknown = graph_of(&[("b".into(), "Op".into(), vec!["c".into()])]);
        let graph = ScannedGraph::read(&unknown, 1).expect("read");
        assert_eq!(
            graph.refusal().map(|r| r.message.as_str()),
            Some("Node 'b': Unknown input node 'c'")
        );
    }
}
