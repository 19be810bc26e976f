//! The graph a TensorFlow 1 signature is pruned into ([`super::prune`]): its nodes' names (made
//! unique as TensorFlow's Python graph makes them), their output types and shapes, and its
//! making into a function (`TF_GraphToFunction`, `tensorflow/c/c_api_function.cc`).

use std::collections::{HashMap, HashSet};

use super::graph::Tensor;
use super::printing::{Dialect, is_ref};
use super::report::LoadError;
use super::shapes::Known;

/// The new graph a signature is pruned into: its nodes' names, output types and shapes.
pub(super) struct Copy {
    pub(super) names: Vec<String>,
    pub(super) dtypes: Vec<Vec<i32>>,
    pub(super) shapes: Vec<Vec<Known>>,
    pub(super) by_name: HashMap<String, usize>,
    /// Names in use, lower-cased, with their counters (`Graph.unique_name`).
    pub(super) in_use: HashMap<String, usize>,
    /// Each original op copied, and each original tensor's copy.
    pub(super) ops: HashMap<usize, usize>,
    pub(super) tensors: HashMap<Tensor, Tensor>,
}

impl Copy {
    pub(super) fn new(capacity: usize) -> Copy {
        Copy {
            names: Vec::with_capacity(capacity),
            dtypes: Vec::with_capacity(capacity),
            shapes: Vec::with_capacity(capacity),
            by_name: HashMap::with_capacity(capacity),
            in_use: HashMap::new(),
            ops: HashMap::new(),
            tensors: HashMap::new(),
        }
    }

    /// `Graph.unique_name` (`tensorflow/python/framework/ops.py`): names are compared without
    /// case; a name in use gets `_1`, `_2`... after it.
    pub(super) fn unique_name(&mut self, name: &str) -> String {
        let key = name.to_lowercase();
        let mut i = self.in_use.get(&key).copied().unwrap_or(0);
        self.in_use.insert(key.clone(), i + 1);
        if i == 0 {
            return name.to_string();
        }
        let mut candidate = key.clone();
        while self.in_use.contains_key(&candidate) {
            candidate = format!("{key}_{i}");
            i += 1;
        }
        self.in_use.insert(candidate, 1);
        format!("{name}_{}", i - 1)
    }

    pub(super) fn add_node(&mut self, name: String, shapes: Vec<Known>, dtypes: Vec<i32>) -> usize {
        let node = self.names.len();
        self.by_name.insert(name.clone(), node);
        self.names.push(name);
        self.shapes.push(shapes);
        self.dtypes.push(dtypes);
        node
    }

    pub(super) fn tensor_name(&self, tensor: Tensor) -> String {
        match tensor.slot {
            0 => self.names[tensor.node].clone(),
            slot => format!("{}:{slot}", self.names[tensor.node]),
        }
    }

    /// The new graph's tensor `name` (`as_graph_element` there).
    pub(super) fn find_tensor(&self, name: &str) -> Option<Tensor> {
        let (op, slot) = name.split_once(':')?;
        let node = *self.by_name.get(op)?;
        let slot = slot.parse().ok()?;
        (slot < self.shapes[node].len()).then_some(Tensor { node, slot })
    }

    /// `TF_GraphToFunction` of the pruned graph, whose inputs are the feeds then the captures
    /// and whose outputs are the fetched tensors: an input listed twice and a
    /// reference-typed output are refused.
    pub(super) fn to_function(
        &self,
        feeds: &[Tensor],
        captures: &[Tensor],
        fetches: &[Tensor],
        d: &Dialect,
    ) -> Result<(), LoadError> {
        let invalid = |message: String| LoadError {
            python_class: "InvalidArgumentError",
            message,
        };
        let mut seen = HashSet::new();
        for input in feeds.iter().chain(captures) {
            let Some(&copied) = self.tensors.get(input) else {
                continue;
            };
            if !seen.insert(copied) {
                return Err(invalid(format!(
                    "TF_Output {}:{} appears more than once in the input list",
                    self.names[copied.node], copied.slot
                )));
            }
        }
        for output in fetches {
            let Some(&copied) = self.tensors.get(output) else {
                continue;
            };
            let dtype = self.dtypes[copied.node]
                .get(copied.slot)
                .copied()
                .unwrap_or(0);
            if is_ref(dtype) {
                return Err(invalid(format!(
                    "Output {} of node '{}' has a reference type {}\n\tEncountered while \
                     creating function '__inference_pruned_N'",
                    copied.slot,
                    self.names[copied.node],
                    d.dtype_string(dtype)
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_names_count_per_name_without_case() {
        let mut copy = Copy::new(0);
        assert_eq!(copy.unique_name("a"), "a");
        assert_eq!(copy.unique_name("a"), "a_1");
        assert_eq!(copy.unique_name("A"), "A_2");
        assert_eq!(copy.unique_name("a_3"), "a_3");
        assert_eq!(copy.unique_name("a"), "a_4");
    }
}
