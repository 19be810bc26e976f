//! A subgraph as the model keeps it once read: its tensors' classes, and its operators'
//! facts, with their tensor indices in one pool and their params shared where equal.

use crate::model::classes::TensorFacts;
use crate::model::forms::Form;
use crate::params::Params;

/// An operator digested into what signatures need: its form, which holds its code, params and
/// tensor counts, and where its tensor indices start in `Subgraph::indices`. One pool per
/// subgraph instead of two vectors per operator, and forms shared by the operators that read
/// alike, keep a model of a million operators to a few allocations of 8 bytes per operator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct OperatorFacts {
    /// An index into `Subgraph::forms` ([`forms`](crate::model::forms)).
    pub(crate) form: u32,
    /// Where its inputs start in `Subgraph::indices`; its outputs follow them (-1 for absent
    /// inputs; validated).
    pub(crate) tensors: u32,
}

/// A subgraph's tensors and operators, digested. Which form an operator points at depends on
/// how it was read (forms are shared where the reader noticed operators read alike), and so
/// does which class a tensor is, so two subgraphs compare by [`Subgraph::reads_the_same`], not
/// field by field.
#[derive(Clone, Debug, Default)]
pub(crate) struct Subgraph {
    /// Each tensor's class: an index into `classes`.
    pub(crate) tensors: Vec<u32>,
    pub(crate) classes: Vec<TensorFacts>,
    pub(crate) operators: Vec<OperatorFacts>,
    pub(crate) indices: Vec<i32>,
    /// The distinct ways its operators read to TF's rules ([`forms`](crate::model::forms)).
    pub(crate) forms: Vec<Form>,
}

impl Subgraph {
    pub(crate) fn slice(&self, start: u32, end: u32) -> &[i32] {
        // Ranges are built from this pool when the model is read.
        self.indices
            .get(start as usize..end as usize)
            .unwrap_or(&[])
    }

    /// Tensor `index`'s facts; `None` for -1 (an absent input; indices were validated).
    pub(crate) fn tensor(&self, index: i32) -> Option<&TensorFacts> {
        let class = usize::try_from(index)
            .ok()
            .and_then(|i| self.tensors.get(i))?;
        self.classes.get(*class as usize)
    }

    /// Each operator as its facts read: opcode index, inputs, outputs, params, options
    /// presence.
    pub(crate) fn resolved(
        &self,
    ) -> impl Iterator<Item = (u32, &[i32], &[i32], Params, bool)> + '_ {
        self.operators.iter().map(|o| {
            (
                self.opcode_index(o) as u32,
                self.inputs(o),
                self.outputs(o),
                self.params(o),
                self.options_present(o),
            )
        })
    }

    /// Whether `other` has the same tensors and operators. Floats compare by value, and NaN
    /// equals NaN here (their printed forms match).
    pub(crate) fn reads_the_same(&self, other: &Subgraph) -> bool {
        let tensors = self.tensors.len() == other.tensors.len()
            && (0..self.tensors.len()).all(|t| {
                let t = i32::try_from(t).unwrap_or(-1);
                let (a, b) = (self.tensor(t), other.tensor(t));
                a == b || format!("{a:?}") == format!("{b:?}")
            });
        tensors
            && self.operators.len() == other.operators.len()
            && self
                .resolved()
                .zip(other.resolved())
                .all(|(a, b)| a == b || format!("{a:?}") == format!("{b:?}"))
    }

    /// The form of `operator`.
    pub(crate) fn form(&self, operator: &OperatorFacts) -> Option<&Form> {
        self.forms.get(operator.form as usize)
    }

    /// The index of `operator`'s code in the model's operator codes (validated when read).
    pub(crate) fn opcode_index(&self, operator: &OperatorFacts) -> usize {
        self.form(operator).map_or(0, |f| f.opcode_index as usize)
    }

    /// The params of `operator`.
    pub(crate) fn params(&self, operator: &OperatorFacts) -> Params {
        self.form(operator).map(|f| f.params).unwrap_or_default()
    }

    /// Whether `operator` has its options table.
    pub(crate) fn options_present(&self, operator: &OperatorFacts) -> bool {
        self.form(operator).is_some_and(|f| f.options_present)
    }

    pub(crate) fn inputs(&self, operator: &OperatorFacts) -> &[i32] {
        let inputs = self.form(operator).map_or(0, |f| f.inputs);
        self.slice(operator.tensors, operator.tensors.saturating_add(inputs))
    }

    pub(crate) fn outputs(&self, operator: &OperatorFacts) -> &[i32] {
        let (inputs, outputs) = self
            .form(operator)
            .map_or((0, 0), |f| (f.inputs, f.outputs));
        let start = operator.tensors.saturating_add(inputs);
        self.slice(start, start.saturating_add(outputs))
    }
}
