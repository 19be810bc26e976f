//! Kernel gaps: what each runtime's kernels did with one-operator probe models, measured.
//!
//! Loading and allocating say nothing of whether a runtime computes a model right: a kernel
//! may refuse a tensor type in its `Prepare` (at `allocate_tensors()`) or its `Eval` (at
//! `invoke()`), abort the process, or return other numbers than the newest runtime. Every
//! builtin kernel registers for all its versions at once, and its version rules do not encode
//! these limits, so no version tells them. `kernels.py` measured them: about eight hundred
//! one-operator models (the common builtins x float32, int8, uint8, int16, int32, int64,
//! bool, and the shapes and options that change which kernel code runs, such as a 5-D
//! broadcast), each invoked on seeded inputs on all thirty runtimes and compared with the
//! newest (`KERNEL_REFERENCE`, within `KERNEL_TOLERANCE`). [`Model::kernel_gaps`] names, per
//! runtime, the measured gaps an operator of the model hits: same builtin, same tensor types
//! (each input's and output's, constness and quantization), same condition (broadcast or not,
//! the rank, the number of axes, `keep_num_dims`). An operator no probe matches is *not
//! measured*, and nothing is claimed for it.
//!
//! Why such gaps exist, in TensorFlow's sources: a kernel's `Eval` picks its code by tensor
//! type and returns an error for the types it lacks (`tensorflow/lite/kernels/gelu.cc`, "Only
//! float32, int8 and uint8 supported currently"; `comparisons.cc`, `elementwise.cc`); the
//! broadcasting helpers of older releases take at most four dimensions
//! (`tensorflow/lite/kernels/internal/reference/comparisons.cc`,
//! `BroadcastComparison4DSlowPreprocess`), and a 5-D input reaches a check that aborts; and
//! `tensorflow/lite/kernels/reduce.cc` sums quantized int16 by a code path of its own, whose
//! results in older releases differ from the newest by tens of thousands of steps (measured, not
//! read from the source: a sum that wraps instead of saturating). None of this changes an
//! operator's version.

use crate::generated::runtimes::{
    KERNEL_PROBES, KERNEL_REFERENCE, KERNEL_TEXTS, KERNEL_TOLERANCE, KernelProbe, ProbeTensor,
};
use crate::model::{Model, OperatorLocation};
use crate::operator::code::BuiltinOperator;
use crate::operator::signature::OpSignature;
use crate::operator::tensor::{ElementType, TensorSpec};
use crate::params::Params;
use crate::runtimes::installed::Runtime;

/// How one runtime's kernel met a probe (`KernelProbe::outcomes`, one letter per runtime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KernelOutcome {
    /// It ran, to the reference's outputs within the tolerance.
    Ok,
    /// The builtin is not registered: the kernel was never reached.
    NotRegistered,
    Prepare,
    Invoke,
    Signal,
    Wrong,
}

/// Runtime `r`'s outcome of `probe`, and its text's index in `KERNEL_TEXTS`.
fn outcome(probe: &KernelProbe, r: usize) -> Option<(KernelOutcome, u16)> {
    let kind = match probe.outcomes.as_bytes().get(r)? {
        b'o' => KernelOutcome::Ok,
        b'n' => KernelOutcome::NotRegistered,
        b'p' => KernelOutcome::Prepare,
        b'i' => KernelOutcome::Invoke,
        b's' => KernelOutcome::Signal,
        b'w' => KernelOutcome::Wrong,
        _ => return None,
    };
    Some((kind, *probe.texts.get(r)?))
}

/// Where a kernel gap shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelStage {
    /// `allocate_tensors()` raises: the kernel's `Prepare` refuses the node.
    Prepare,
    /// `invoke()` raises: the kernel's `Eval` returns an error.
    Invoke,
    /// The process dies (the kernel aborts or faults).
    Signal,
    /// It runs, to outputs beyond the tolerance from the newest runtime's.
    Wrong,
}

impl KernelStage {
    /// As `runtimes --json` writes it: `prepare`, `invoke`, `signal`, `wrong`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Prepare => "prepare",
            Self::Invoke => "invoke",
            Self::Signal => "signal",
            Self::Wrong => "wrong",
        }
    }
}

/// One measured kernel gap of one runtime that an operator of the model hits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelGap {
    /// The runtime.
    pub runtime: Runtime,
    /// The first operator of the model that hits it.
    pub at: OperatorLocation,
    /// How many operators of that subgraph read alike and hit it too (at least 1).
    pub nodes: usize,
    /// The operator.
    pub op: BuiltinOperator,
    /// Its tensor types, as `int16, int32 -> int16` (constants included).
    pub types: String,
    /// The probe that measured it (`kernels.py`'s id, as `SUM:int16/int16:axis1`).
    pub probe: &'static str,
    /// Where it shows.
    pub stage: KernelStage,
    /// The runtime's own text (`allocate_tensors()` or `invoke()`, its "Node number N" made
    /// the operator's position when it is in the primary subgraph), or what was seen (a
    /// signal, outputs that differ).
    pub text: String,
}

/// The measured kernel gaps of every runtime for one model ([`Model::kernel_gaps`]).
#[derive(Clone, Debug, Default)]
pub struct KernelGaps {
    /// Every gap, by runtime in [`Runtime::all`]'s order, then by operator.
    pub gaps: Vec<KernelGap>,
    /// How many distinct operator forms a probe matched (measured).
    pub measured: usize,
    /// The operators no probe matches, as `GELU (int16 -> int16)` with their first location:
    /// nothing is known of their kernels.
    pub not_measured: Vec<(OperatorLocation, String)>,
}

impl KernelGaps {
    /// The gaps of `runtime`.
    pub fn of(&self, runtime: Runtime) -> impl Iterator<Item = &KernelGap> {
        self.gaps.iter().filter(move |g| g.runtime == runtime)
    }

    /// The runtime every runtime was compared with: `ai-edge-litert 2.3.0`.
    pub fn reference() -> &'static str {
        KERNEL_REFERENCE
    }

    /// When two outputs count as equal.
    pub fn tolerance() -> &'static str {
        KERNEL_TOLERANCE
    }
}

impl Model<'_> {
    /// The measured kernel gaps each runtime's kernels have for this model's operators (see
    /// the module docs); operators no probe matches are listed as not measured.
    pub fn kernel_gaps(&self) -> KernelGaps {
        let mut out = KernelGaps::default();
        let runtimes: Vec<Runtime> = Runtime::all().collect();
        let reference = runtimes
            .iter()
            .position(|r| r.to_string() == KERNEL_REFERENCE);
        let mut found = Vec::new();
        for (at, nodes, sig) in self.form_signatures() {
            if sig.op == BuiltinOperator::CUSTOM {
                continue;
            }
            let candidates: Vec<&KernelProbe> =
                KERNEL_PROBES.iter().filter(|p| matches(p, &sig)).collect();
            if candidates.is_empty() {
                out.not_measured.push((at, describe(&sig)));
                continue;
            }
            out.measured += 1;
            // Only what the reference runs is a gap: a probe it refuses too may be refused for
            // its own quantization parameters, not the operator's.
            let reference_runs = candidates.iter().all(|p| {
                reference.and_then(|r| outcome(p, r)).map(|o| o.0) == Some(KernelOutcome::Ok)
            });
            if !reference_runs {
                continue;
            }
            for (r, &runtime) in runtimes.iter().enumerate() {
                // Claimed only when every probe the operator may stand for (a condition the
                // crate cannot read, such as GELU's `approximate`) shows a gap there.
                let gaps: Vec<(KernelStage, u16)> = candidates
                    .iter()
                    .filter_map(|p| gap(outcome(p, r)?))
                    .collect();
                if gaps.len() == candidates.len() {
                    let (stage, text) = gaps[0];
                    found.push((
                        r,
                        KernelGap {
                            runtime,
                            at,
                            nodes,
                            op: sig.op,
                            types: types(&sig),
                            probe: candidates[0].id,
                            stage,
                            text: node_text(
                                KERNEL_TEXTS.get(usize::from(text)).copied().unwrap_or(""),
                                at,
                            ),
                        },
                    ));
                }
            }
        }
        found.sort_by_key(|(r, g)| (*r, g.at));
        out.gaps = found.into_iter().map(|(_, g)| g).collect();
        out
    }
}

/// A probe's text for the model's operator: the probe's node is 0, the operator's is its
/// position (named only for the primary subgraph, the one `Node number` counts in).
fn node_text(text: &str, at: OperatorLocation) -> String {
    if at.subgraph == 0 {
        text.replace("Node number 0 (", &format!("Node number {} (", at.operator))
    } else {
        text.to_owned()
    }
}

fn gap((outcome, text): (KernelOutcome, u16)) -> Option<(KernelStage, u16)> {
    let stage = match outcome {
        KernelOutcome::Prepare => KernelStage::Prepare,
        KernelOutcome::Invoke => KernelStage::Invoke,
        KernelOutcome::Signal => KernelStage::Signal,
        KernelOutcome::Wrong => KernelStage::Wrong,
        KernelOutcome::Ok | KernelOutcome::NotRegistered => return None,
    };
    Some((stage, text))
}

/// Whether `probe` measured what `sig`'s kernel does: same builtin, same tensors (type,
/// constness, quantized or not; an absent optional input for an input the probe leaves out),
/// and the probe's condition holds.
fn matches(probe: &KernelProbe, sig: &OpSignature) -> bool {
    if probe.builtin_code != sig.op.code() {
        return false;
    }
    // Trailing absent inputs are the same as inputs left out.
    let mut inputs: &[TensorSpec] = &sig.inputs;
    while let Some((last, rest)) = inputs.split_last() {
        if !last.is_absent() {
            break;
        }
        inputs = rest;
    }
    let mut probe_inputs = probe.inputs;
    while let Some((None, rest)) = probe_inputs.split_last() {
        probe_inputs = rest;
    }
    inputs.len() == probe_inputs.len()
        && inputs
            .iter()
            .zip(probe_inputs)
            .all(|(spec, probed)| match probed {
                None => spec.is_absent(),
                Some(p) => same_tensor(p, spec),
            })
        && sig.outputs.len() == probe.outputs.len()
        && sig
            .outputs
            .iter()
            .zip(probe.outputs)
            .all(|(spec, p)| same_tensor(p, spec))
        && condition_holds(probe, sig)
}

fn same_tensor(probed: &ProbeTensor, spec: &TensorSpec) -> bool {
    spec.element_type.to_schema() == Some(probed.type_value)
        && probed.constant == (spec.is_const || spec.is_variable)
        && (probed.scale > 0.0) == spec.quantization.is_some_and(|q| q.scale_count > 0)
}

/// The probe's condition (`kernels.py`'s probe names), checked on the operator.
fn condition_holds(probe: &KernelProbe, sig: &OpSignature) -> bool {
    let rank = |spec: Option<&TensorSpec>| spec.map_or(0, TensorSpec::rank);
    let real: Vec<&TensorSpec> = sig.inputs.iter().filter(|t| !t.is_absent()).collect();
    let all_same = real.windows(2).all(|w| w[0].dims == w[1].dims);
    let max_rank = real.iter().map(|t| t.rank()).max().unwrap_or(0);
    let elements = |spec: Option<&TensorSpec>| {
        spec.map_or(0, |t| t.dims.iter().map(|&d| i64::from(d)).product::<i64>())
    };
    let keep_num_dims = matches!(sig.params, Params::FullyConnected(p) if p.keep_num_dims);
    let op = sig.op;
    match probe.form {
        "same" => all_same,
        "broadcast4" => !all_same && max_rank <= 4,
        "broadcast5" => !all_same && max_rank == 5,
        "axis1" => elements(sig.input(1)) == 1,
        "axis12" => elements(sig.input(1)) == 2,
        "keep_num_dims" => keep_num_dims,
        "rank6" => rank(sig.input(0)) == 6,
        "rank5" if op == BuiltinOperator::BROADCAST_TO => rank(sig.output(0)) == 5,
        "rank5" => rank(sig.input(0)) == 5,
        // GELU's `approximate` is not read by the crate: both probes stand for the operator.
        "approximate" => true,
        _ if op == BuiltinOperator::FULLY_CONNECTED => !keep_num_dims,
        _ if [
            BuiltinOperator::TRANSPOSE,
            BuiltinOperator::PAD,
            BuiltinOperator::PADV2,
            BuiltinOperator::MIRROR_PAD,
        ]
        .contains(&op) =>
        {
            rank(sig.input(0)) <= 4
        }
        // The rest differ by tensor types alone (CAST, QUANTIZE, hybrid LSTM).
        _ => true,
    }
}

fn type_name(t: ElementType) -> String {
    t.name().to_ascii_lowercase()
}

/// `int16, int32 -> int16`: an operator's tensor types (absent optional inputs as `-`).
fn types(sig: &OpSignature) -> String {
    let list = |specs: &[TensorSpec]| {
        specs
            .iter()
            .map(|t| {
                if t.is_absent() {
                    "-".to_owned()
                } else {
                    type_name(t.element_type)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!("{} -> {}", list(&sig.inputs), list(&sig.outputs))
}

fn describe(sig: &OpSignature) -> String {
    format!(
        "{} ({})",
        sig.op.name().unwrap_or("an unknown builtin"),
        types(sig)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_probe_has_one_outcome_per_runtime_and_the_reference_runs_what_it_is_compared_on() {
        let reference = Runtime::all()
            .position(|r| r.to_string() == KERNEL_REFERENCE)
            .expect("the reference is a known runtime");
        for probe in KERNEL_PROBES {
            let runtimes = Runtime::all().len();
            assert_eq!(probe.outcomes.len(), runtimes, "{}", probe.id);
            assert_eq!(probe.texts.len(), runtimes, "{}", probe.id);
            let outcomes: Vec<(KernelOutcome, u16)> = (0..runtimes)
                .map(|r| outcome(probe, r).expect("a known letter"))
                .collect();
            let (ref_outcome, _) = outcomes[reference];
            assert_ne!(ref_outcome, KernelOutcome::Wrong, "{}", probe.id);
            if ref_outcome != KernelOutcome::Ok {
                // A runtime is "wrong" only against outputs of the reference.
                assert!(
                    outcomes.iter().all(|(o, _)| *o != KernelOutcome::Wrong),
                    "{}",
                    probe.id
                );
            }
            for (outcome, text) in outcomes {
                let text = KERNEL_TEXTS[usize::from(text)];
                let has_text = !matches!(outcome, KernelOutcome::Ok | KernelOutcome::NotRegistered);
                assert_eq!(!text.is_empty(), has_text, "{}: {outcome:?}", probe.id);
            }
        }
    }
}
