//! A subgraph as the model keeps it once read: its tensors' classes, and its operators'
//! facts, with their tensor indices in one pool and their params shared where equal.

use crate::classes::TensorFacts;
use crate::params::Params;

/// An operator digested into what signatures need.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OperatorFacts {
    /// Index into the model's operator codes (validated).
    pub(crate) opcode_index: u32,
    /// Where its tensor indices sit in `Subgraph::indices`: inputs at `tensors[0]..tensors[1]`,
    /// outputs at `tensors[1]..tensors[2]` (-1 for absent inputs; validated). One pool per
    /// subgraph instead of two vectors per operator keeps a model of a million operators to
    /// a few allocations.
    pub(crate) tensors: [u32; 3],
    /// Its params: an index into `Subgraph::params`, where operators of one code with the
    /// same options share an entry (most do), which keeps the facts of an operator to 20
    /// bytes.
    pub(crate) params: u32,
    pub(crate) options_present: bool,
    /// Whether it reads exactly like the operator before it of the same code in its
    /// subgraph: tensors of the same classes ([`TensorClasses`]), the same params entry and
    /// options presence. TF's rules then
    /// give it that operator's version, and [`Model::for_each_version`] does not look again.
    pub(crate) repeats: bool,
}

impl OperatorFacts {
    pub(crate) fn opcode_index(&self) -> usize {
        // Widening: the field is the schema's `uint32`, checked against the codes on reading.
        self.opcode_index as usize
    }
}

/// A subgraph's tensors and operators, digested. Which params entry an operator points at
/// depends on how it was read (entries are shared where the reader noticed equal params),
/// and so does which class a tensor is, so two subgraphs compare by
/// [`Subgraph::reads_the_same`], not field by field.
#[derive(Clone, Debug, Default)]
pub(crate) struct Subgraph {
    /// Each tensor's class: an index into `classes`.
    pub(crate) tensors: Vec<u32>,
    pub(crate) classes: Vec<TensorFacts>,
    pub(crate) operators: Vec<OperatorFacts>,
    pub(crate) indices: Vec<i32>,
    pub(crate) params: Vec<Params>,
    /// The operators that do not repeat the one before them of their code
    /// ([`OperatorFacts::repeats`]): the only ones whose versions can raise a code's
    /// required version.
    pub(crate) fresh: Vec<u32>,
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
                o.opcode_index,
                self.inputs(o),
                self.outputs(o),
                self.params(o),
                o.options_present,
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

    /// The params of `operator` (interned when the model was read).
    pub(crate) fn params(&self, operator: &OperatorFacts) -> Params {
        self.params
            .get(operator.params as usize)
            .copied()
            .unwrap_or_default()
    }

    /// Tensor `index`'s class; `u32::MAX` for -1 (an absent input; indices were validated).
    #[inline(always)]
    pub(crate) fn class(&self, index: i32) -> u32 {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.tensors.get(i))
            .map_or(u32::MAX, |&c| c)
    }

    pub(crate) fn inputs(&self, operator: &OperatorFacts) -> &[i32] {
        self.slice(operator.tensors[0], operator.tensors[1])
    }

    pub(crate) fn outputs(&self, operator: &OperatorFacts) -> &[i32] {
        self.slice(operator.tensors[1], operator.tensors[2])
    }
}
