//! The memos that keep reading and judging a large model from doing the same work twice: an
//! operator whose index bytes or options table repeat the last ones of its operator code reuses
//! what was read from them ([`IndicesMemo`], [`OptionsMemo`]), and an operator that reads like
//! the last one of its code judged gets that one's version ([`Memo`]).

use crate::operator::OpVersion;
use crate::params::Params;
use crate::raw::OptionsBytes;
use crate::subgraph::{OperatorFacts, Subgraph};

/// An operator's input and output index bytes, as the hand reader found them, and the
/// range of the pool ([`OperatorFacts::tensors`]) that holds them, validated.
#[derive(Clone, Copy)]
pub(crate) struct IndicesMemo<'b> {
    pub(crate) inputs: &'b [u8],
    pub(crate) outputs: &'b [u8],
    pub(crate) range: [u32; 3],
}

/// An options table already read: its union tag, bytes and params.
#[derive(Clone, Copy)]
pub(crate) struct OptionsMemo<'b> {
    pub(crate) tag: u8,
    pub(crate) bytes: OptionsBytes<'b>,
    pub(crate) params: u32,
    pub(crate) options_present: bool,
    /// Whether planus read the table (a member of our schema's union), so that TFLite's
    /// verifier counts it.
    pub(crate) counted: bool,
}

/// The last operator of an operator code judged, in `Model::for_each_version`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Memo {
    /// Whether an operator was judged yet (the fields below are its).
    pub(crate) judged: bool,
    subgraph: usize,
    indices: Vec<i32>,
    inputs: usize,
    params: Params,
    /// Where `params` sits: its entry in `subgraph` (an operator at the same entry has them).
    params_at: u32,
    options_present: bool,
    pub(crate) version: OpVersion,
}

impl Memo {
    /// Whether `operator` of subgraph `s` reads the same to TF's rules: input count, options
    /// presence, tensors (of the same class in the same subgraph, whose facts are bitwise
    /// equal, or equal facts) and params. Facts and params of different classes and entries
    /// compare with `==`: a NaN scale or option there never matches, and is judged anew.
    #[inline]
    pub(crate) fn same(&self, subgraphs: &[Subgraph], s: usize, operator: &OperatorFacts) -> bool {
        // The common case first: the same tensors and params entry in the same subgraph.
        if self.subgraph == s
            && self.params_at == operator.params
            && self.options_present == operator.options_present
            && let Some(subgraph) = subgraphs.get(s)
        {
            let (inputs, outputs) = (subgraph.inputs(operator), subgraph.outputs(operator));
            if self.inputs == inputs.len()
                && self.indices.len() == inputs.len() + outputs.len()
                && self
                    .indices
                    .iter()
                    .zip(inputs.iter().chain(outputs))
                    .all(|(&then, &now)| subgraph.class(then) == subgraph.class(now))
            {
                return true;
            }
        }
        let (Some(subgraph), Some(before)) = (subgraphs.get(s), subgraphs.get(self.subgraph))
        else {
            return false;
        };
        let inputs = subgraph.inputs(operator);
        let outputs = subgraph.outputs(operator);
        self.inputs == inputs.len()
            && self.indices.len() == inputs.len() + outputs.len()
            && self.options_present == operator.options_present
            && self
                .indices
                .iter()
                .zip(inputs.iter().chain(outputs))
                .all(|(&then, &now)| {
                    (then == now && self.subgraph == s)
                        || before.tensor(then) == subgraph.tensor(now)
                })
            && ((self.subgraph == s && self.params_at == operator.params)
                || self.params == subgraph.params(operator))
    }

    /// Remembers `operator` of subgraph `s` and its version.
    pub(crate) fn remember(
        &mut self,
        s: usize,
        subgraph: &Subgraph,
        operator: &OperatorFacts,
        version: OpVersion,
    ) {
        let inputs = subgraph.inputs(operator);
        self.judged = true;
        self.subgraph = s;
        self.indices.clear();
        self.indices.extend_from_slice(inputs);
        self.indices.extend_from_slice(subgraph.outputs(operator));
        self.inputs = inputs.len();
        self.params = subgraph.params(operator);
        self.params_at = operator.params;
        self.options_present = operator.options_present;
        self.version = version;
    }
}
