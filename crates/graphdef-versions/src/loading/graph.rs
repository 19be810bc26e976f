//! A TensorFlow 1 SavedModel's graph as `tf.saved_model.load` holds it once imported: its
//! nodes by name, each input resolved to the node it names, and each node's output types in
//! one release. The steps after the import (restoring the variables, pruning the signatures)
//! walk this; the import itself is [`super::import`]'s.
//!
//! It is built only for a graph that one release imported, so every input names a node and
//! every op is known; a name that does not resolve is skipped rather than refused.

use std::collections::HashMap;

use super::import::Importer;
use super::validate::{in_out_types, with_defaults};
use crate::schema::{NodeDef, OpDef};

/// One input of a node: output `slot` of node `source`, or a control input (`slot` `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Input {
    pub(super) source: usize,
    pub(super) slot: Option<usize>,
}

/// A tensor of the graph: output `slot` of node `node`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Tensor {
    pub(super) node: usize,
    pub(super) slot: usize,
}

/// The imported graph, in one release.
pub(super) struct ImportedGraph<'a> {
    pub(super) nodes: &'a [NodeDef],
    by_name: HashMap<&'a str, usize>,
    /// Each node's inputs, data inputs first, as its `input` list gives them.
    inputs: Vec<Vec<Input>>,
    /// Each node's op (or function signature) in the release, when it has one.
    ops: Vec<Option<&'a OpDef>>,
    /// Each node's output types (reference types for `Ref` outputs).
    outputs: Vec<Vec<i32>>,
}

impl<'a> ImportedGraph<'a> {
    /// `nodes` as `importer`'s release holds them after importing them.
    pub(super) fn new(nodes: &'a [NodeDef], importer: &Importer<'a>) -> ImportedGraph<'a> {
        let by_name: HashMap<&str, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, node)| (node.name.as_str(), i))
            .collect();
        let inputs = nodes
            .iter()
            .map(|node| {
                node.input
                    .iter()
                    .filter_map(|input| parse_input(input, &by_name))
                    .collect()
            })
            .collect();
        let ops: Vec<Option<&OpDef>> = nodes
            .iter()
            .map(|node| importer.lookup(&node.op).ok())
            .collect();
        let outputs = nodes
            .iter()
            .zip(&ops)
            .map(|(node, op)| {
                op.and_then(|op| in_out_types(&with_defaults(node, op), op).ok())
                    .map(|(_, outputs)| outputs)
                    .unwrap_or_default()
            })
            .collect();
        ImportedGraph {
            nodes,
            by_name,
            inputs,
            ops,
            outputs,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The node named `name`.
    pub(super) fn find(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    pub(super) fn node(&self, n: usize) -> &'a NodeDef {
        &self.nodes[n]
    }

    pub(super) fn name(&self, n: usize) -> &'a str {
        &self.nodes[n].name
    }

    pub(super) fn op_type(&self, n: usize) -> &'a str {
        &self.nodes[n].op
    }

    pub(super) fn op(&self, n: usize) -> Option<&'a OpDef> {
        self.ops[n]
    }

    /// Node `n`'s inputs, data inputs first.
    pub(super) fn inputs(&self, n: usize) -> &[Input] {
        &self.inputs[n]
    }

    /// Node `n`'s data inputs, as tensors.
    pub(super) fn data_inputs(&self, n: usize) -> impl Iterator<Item = Tensor> + '_ {
        self.inputs[n].iter().filter_map(|input| {
            input.slot.map(|slot| Tensor {
                node: input.source,
                slot,
            })
        })
    }

    /// The nodes node `n` reads from, data inputs first, then control inputs
    /// (`op_selector.graph_inputs`): a node read twice is listed twice.
    pub(super) fn graph_inputs(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        self.inputs[n].iter().map(|input| input.source)
    }

    /// Node `n`'s output types.
    pub(super) fn outputs(&self, n: usize) -> &[i32] {
        &self.outputs[n]
    }

    /// The type of a tensor, if its node has that output.
    pub(super) fn dtype(&self, tensor: Tensor) -> Option<i32> {
        self.outputs[tensor.node].get(tensor.slot).copied()
    }
}

/// An input of a `NodeDef` (`"name"`, `"name:slot"`, `"^name"`) resolved against the graph's
/// names.
fn parse_input(input: &str, by_name: &HashMap<&str, usize>) -> Option<Input> {
    if let Some(control) = input.strip_prefix('^') {
        return by_name
            .get(control)
            .map(|&source| Input { source, slot: None });
    }
    let (name, slot) = match input.rsplit_once(':') {
        Some((name, slot)) if !slot.is_empty() && slot.bytes().all(|b| b.is_ascii_digit()) => {
            (name, slot.parse().ok()?)
        }
        _ => (input, 0),
    };
    by_name.get(name).map(|&source| Input {
        source,
        slot: Some(slot),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_resolve_by_name_slot_and_control() {
        let by_name = HashMap::from([("a", 0), ("b:c", 1)]);
        assert_eq!(
            parse_input("a", &by_name),
            Some(Input {
                source: 0,
                slot: Some(0)
            })
        );
        assert_eq!(
            parse_input("a:2", &by_name),
            Some(Input {
                source: 0,
                slot: Some(2)
            })
        );
        assert_eq!(
            parse_input("^a", &by_name),
            Some(Input {
                source: 0,
                slot: None
            })
        );
        assert_eq!(parse_input("b:c", &by_name).map(|i| i.source), Some(1));
        assert_eq!(parse_input("missing", &by_name), None);
    }
}
