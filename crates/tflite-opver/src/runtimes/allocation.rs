//! What a runtime's `allocate_tensors()` does with a model its interpreter constructed, as far
//! as the facts probed from it reach.
//!
//! Constructing the interpreter leaves a custom op that no resolver registers to a delegate
//! (TFLite's `InterpreterBuilder`). `allocate_tensors()` then applies the default delegates
//! and prepares the primary subgraph's nodes in execution order (TFLite's
//! `tensorflow/lite/core/subgraph.cc`, `Subgraph::PrepareOpsStartingAt` and `OpPrepare`;
//! `tflite/core/subgraph.cc` in LiteRT). It stops at the first node that fails, and a node of a
//! custom op that nothing took fails: "Encountered unresolved custom op: NAME." or, for a name
//! starting with `Flex` (TensorFlow ops kept by `SELECT_TF_OPS`), "Select TensorFlow op(s) ...
//! Make sure you apply/link the Flex delegate", each followed by "Node number N (NAME) failed to
//! prepare." It also stops, successfully, after a node whose outputs are dynamic (their shape
//! known only when it runs): the nodes after it are prepared at `invoke()`.
//!
//! Each runtime's facts (`allocation.py`, beside the probe) say which custom ops its default
//! resolver registers and at which versions, which names its default delegate (XNNPACK) looks
//! at though no resolver registers them (`Convolution2DTransposeBias` and the MediaPipe pooling
//! ops: a node it accepts runs), whether its interpreter applies the Flex delegate by itself
//! (`tf.lite.Interpreter` of tensorflow-cpu 2.12 to 2.18), and its exact words.
//!
//! From them the verdict is:
//!
//! - refused, when a custom op nothing takes is reached: every node before it is one whose
//!   outputs cannot be dynamic (a builtin whose output shape follows from its inputs' shapes, or
//!   from inputs that are constants), so preparing does reach it. The text is the runtime's,
//!   with the op and node filled in; it is exact when the nodes before it prepare (a kernel's
//!   own refusal of an earlier node would be reported first);
//! - allocates, only when nothing is left unreplayed: a primary subgraph without operators,
//!   whose tensors take at most [`ARENA_LIMIT`] bytes;
//! - not judged otherwise: a kernel's own checks (its `Prepare`: types, shapes, options) are
//!   not replayed, nor the Flex delegate's.

use crate::generated::runtimes::RuntimeFacts;
use crate::model::Model;
use crate::operator::code::BuiltinOperator;
use crate::runtimes::interpreter::fill;

/// What a runtime's `allocate_tensors()` does with a model ([`RuntimeVerdict::allocation`](
/// crate::RuntimeVerdict::allocation)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Allocation {
    /// It allocates: every check it makes for this model is replayed.
    Allocates,
    /// It raises (a `RuntimeError`), with this text.
    Refused {
        /// Why.
        cause: AllocationRefusal,
        /// The node it names: its index in the primary subgraph's operators.
        node: usize,
        /// The custom op's name.
        op: String,
        /// The exception's text, as the runtime words it.
        message: String,
    },
    /// The interpreter is never constructed, so nothing is allocated.
    NotConstructed,
    /// Not judged: something it checks at allocation is not replayed.
    NotJudged {
        /// What is not replayed.
        reason: NotJudged,
    },
}

impl Allocation {
    /// `Some(true)` when it allocates, `Some(false)` when it cannot (refused, or never
    /// constructed), `None` when not judged.
    pub fn allocates(&self) -> Option<bool> {
        match self {
            Allocation::Allocates => Some(true),
            Allocation::Refused { .. } | Allocation::NotConstructed => Some(false),
            Allocation::NotJudged { .. } => None,
        }
    }

    /// The text `allocate_tensors()` raises, when it refuses.
    pub fn error(&self) -> Option<&str> {
        match self {
            Allocation::Refused { message, .. } => Some(message),
            _ => None,
        }
    }
}

/// Why `allocate_tensors()` refuses a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AllocationRefusal {
    /// A custom op that neither the resolver nor a delegate takes ("Encountered unresolved
    /// custom op").
    UnresolvedCustomOp,
    /// A `Flex*` op, and the runtime does not apply the Flex delegate ("Select TensorFlow
    /// op(s) ... is(are) not supported by this interpreter").
    FlexNotApplied,
}

impl AllocationRefusal {
    /// Its name in `tflite-opver runtimes --json`.
    pub fn name(self) -> &'static str {
        match self {
            AllocationRefusal::UnresolvedCustomOp => "unresolved_custom_op",
            AllocationRefusal::FlexNotApplied => "flex_not_applied",
        }
    }
}

/// Why an allocation is not judged.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotJudged {
    /// A kernel's own checks (its `Prepare`) are not replayed.
    KernelChecks,
    /// A `Flex*` op, run by the Flex delegate this runtime applies: its checks are not
    /// replayed.
    FlexDelegate,
    /// A custom op no resolver registers, but which the default delegate examines: whether
    /// it takes the node is not replayed.
    DelegateMayTake(String),
    /// An unresolved custom op follows a node whose outputs may be dynamic, which leaves
    /// preparing the rest to `invoke()`.
    MaybeDeferred {
        /// The unresolved node.
        node: usize,
        /// Its custom op.
        op: String,
    },
    /// A model without operators whose tensors need more than [`ARENA_LIMIT`] bytes: whether
    /// the arena gets them is not replayed.
    LargeArena,
}

impl core::fmt::Display for NotJudged {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NotJudged::KernelChecks => f.write_str("a kernel's own checks are not replayed"),
            NotJudged::FlexDelegate => f.write_str(
                "the Flex delegate this runtime applies runs the Flex ops; its checks and the \
                 kernels' own are not replayed",
            ),
            NotJudged::DelegateMayTake(op) => write!(
                f,
                "no resolver registers custom op {op}, but the default delegate (XNNPACK) takes \
                 such a node when it accepts it; that, and the kernels' own checks, are not \
                 replayed"
            ),
            NotJudged::MaybeDeferred { node, op } => write!(
                f,
                "node {node} ({op}) is an unresolved custom op, but a node before it may make \
                 dynamic outputs, after which the rest is prepared only at invoke()"
            ),
            NotJudged::LargeArena => {
                f.write_str("the tensors need more memory than the arena is judged for")
            }
        }
    }
}

/// The most bytes of read-write tensors a model without operators may need for
/// [`Allocation::Allocates`]: 1 GiB, which the arena of a desktop Python process gets.
pub const ARENA_LIMIT: u64 = 1 << 30;

/// Whether `runtime`'s default resolver registers custom op `name` at `version`.
pub(crate) fn registers_custom(runtime: &RuntimeFacts, name: &str, version: i32) -> bool {
    runtime.custom_ops.iter().any(|&(n, mask)| {
        n == name && u32::try_from(version).is_ok_and(|v| v < 64 && mask & (1 << v) != 0)
    })
}

/// The name TFLite sees: the custom code up to its first NUL (a C string).
pub(crate) fn c_name(name: &str) -> &str {
    name.split('\0').next().unwrap_or(name)
}

/// Whether `name` is a Select TensorFlow op (`IsFlexOp`: the prefix `Flex`).
pub(crate) fn is_flex(name: &str) -> bool {
    name.starts_with("Flex")
}

/// What a custom op's node does at allocation in `runtime`.
pub(crate) enum CustomOp {
    /// A kernel or delegate takes it; its checks are not replayed.
    Taken(NotJudged),
    /// Nothing takes it: preparing it fails.
    Unresolved(AllocationRefusal),
}

/// How `runtime` treats a node of custom op `name` at `version`.
pub(crate) fn custom_op(runtime: &RuntimeFacts, name: &str, version: i32) -> CustomOp {
    let name = c_name(name);
    if registers_custom(runtime, name, version) {
        CustomOp::Taken(NotJudged::KernelChecks)
    } else if is_flex(name) {
        if runtime.flex_applied {
            CustomOp::Taken(NotJudged::FlexDelegate)
        } else {
            CustomOp::Unresolved(AllocationRefusal::FlexNotApplied)
        }
    } else if runtime.delegate_examines.contains(&name) {
        CustomOp::Taken(NotJudged::DelegateMayTake(name.to_owned()))
    } else {
        CustomOp::Unresolved(AllocationRefusal::UnresolvedCustomOp)
    }
}

/// The text `runtime` raises for node `node` of custom op `op` refused for `cause`.
pub(crate) fn refusal_text(
    runtime: &RuntimeFacts,
    cause: AllocationRefusal,
    op: &str,
    node: usize,
) -> String {
    let template = match cause {
        AllocationRefusal::UnresolvedCustomOp => runtime.unresolved_custom,
        AllocationRefusal::FlexNotApplied => runtime.flex_unapplied,
    };
    fill(template, &[("op", &c_name(op)), ("node", &node)])
}

/// Builtins whose `Prepare` sizes their outputs from their inputs' shapes and their options
/// alone, never marking them dynamic (each kernel's `Prepare` in `tensorflow/lite/kernels/`:
/// `ResizeTensor` on a shape computed from `NumDimensions`/`SizeOfDimension` of the inputs).
const SHAPE_FROM_SHAPES: &[BuiltinOperator] = &[
    BuiltinOperator::ADD,
    BuiltinOperator::AVERAGE_POOL_2D,
    BuiltinOperator::CONCATENATION,
    BuiltinOperator::CONV_2D,
    BuiltinOperator::DEPTHWISE_CONV_2D,
    BuiltinOperator::DEPTH_TO_SPACE,
    BuiltinOperator::DEQUANTIZE,
    BuiltinOperator::FLOOR,
    BuiltinOperator::FULLY_CONNECTED,
    BuiltinOperator::L2_NORMALIZATION,
    BuiltinOperator::L2_POOL_2D,
    BuiltinOperator::LOCAL_RESPONSE_NORMALIZATION,
    BuiltinOperator::LOGISTIC,
    BuiltinOperator::MAX_POOL_2D,
    BuiltinOperator::MUL,
    BuiltinOperator::RELU,
    BuiltinOperator::RELU_N1_TO_1,
    BuiltinOperator::RELU6,
    BuiltinOperator::SOFTMAX,
    BuiltinOperator::SPACE_TO_DEPTH,
    BuiltinOperator::TANH,
    BuiltinOperator::GATHER,
    BuiltinOperator::SUB,
    BuiltinOperator::DIV,
    BuiltinOperator::SQUEEZE,
    BuiltinOperator::EXP,
    BuiltinOperator::LOG_SOFTMAX,
    BuiltinOperator::CAST,
    BuiltinOperator::PRELU,
    BuiltinOperator::MAXIMUM,
    BuiltinOperator::MINIMUM,
    BuiltinOperator::LESS,
    BuiltinOperator::NEG,
    BuiltinOperator::GREATER,
    BuiltinOperator::GREATER_EQUAL,
    BuiltinOperator::LESS_EQUAL,
    BuiltinOperator::SELECT,
    BuiltinOperator::SIN,
    BuiltinOperator::LOG,
    BuiltinOperator::SQRT,
    BuiltinOperator::RSQRT,
    BuiltinOperator::POW,
    BuiltinOperator::EQUAL,
    BuiltinOperator::NOT_EQUAL,
    BuiltinOperator::PACK,
    BuiltinOperator::LOGICAL_OR,
    BuiltinOperator::LOGICAL_AND,
    BuiltinOperator::LOGICAL_NOT,
    BuiltinOperator::UNPACK,
    BuiltinOperator::FLOOR_DIV,
    BuiltinOperator::SQUARE,
    BuiltinOperator::ZEROS_LIKE,
    BuiltinOperator::FLOOR_MOD,
    BuiltinOperator::LEAKY_RELU,
    BuiltinOperator::SQUARED_DIFFERENCE,
    BuiltinOperator::ABS,
    BuiltinOperator::CEIL,
    BuiltinOperator::ADD_N,
    BuiltinOperator::COS,
    BuiltinOperator::ELU,
    BuiltinOperator::QUANTIZE,
    BuiltinOperator::ROUND,
    BuiltinOperator::HARD_SWISH,
    BuiltinOperator::SELECT_V2,
    BuiltinOperator::BATCH_MATMUL,
    BuiltinOperator::GELU,
    BuiltinOperator::RELU_0_TO_1,
    BuiltinOperator::SIGN,
];

/// Builtins whose `Prepare` also reads the values of their inputs after the first (a shape,
/// axes, paddings, sizes, multiples) and marks the outputs dynamic unless those inputs are
/// constants (`IsConstantTensor` in each kernel's `Prepare`, `tensorflow/lite/kernels/`).
const SHAPE_FROM_CONSTANTS: &[BuiltinOperator] = &[
    BuiltinOperator::RESHAPE,
    BuiltinOperator::RESIZE_BILINEAR,
    BuiltinOperator::RESIZE_NEAREST_NEIGHBOR,
    BuiltinOperator::PAD,
    BuiltinOperator::PADV2,
    BuiltinOperator::MIRROR_PAD,
    BuiltinOperator::TRANSPOSE,
    BuiltinOperator::MEAN,
    BuiltinOperator::SUM,
    BuiltinOperator::REDUCE_MAX,
    BuiltinOperator::REDUCE_MIN,
    BuiltinOperator::REDUCE_PROD,
    BuiltinOperator::REDUCE_ANY,
    BuiltinOperator::REDUCE_ALL,
    BuiltinOperator::STRIDED_SLICE,
    BuiltinOperator::SLICE,
    BuiltinOperator::EXPAND_DIMS,
    BuiltinOperator::TILE,
    BuiltinOperator::ARG_MAX,
    BuiltinOperator::ARG_MIN,
    BuiltinOperator::BROADCAST_TO,
    BuiltinOperator::SPACE_TO_BATCH_ND,
    BuiltinOperator::BATCH_TO_SPACE_ND,
];

/// Custom ops of the default resolvers whose `Prepare` sizes their outputs from their inputs'
/// shapes and options (`tensorflow/lite/kernels/audio_spectrogram.cc`, `mfcc.cc`).
const CUSTOM_SHAPE_FROM_SHAPES: &[&str] = &["AudioSpectrogram", "Mfcc"];

/// What allocation looks at in a model, read once for every runtime: the primary subgraph's
/// custom-op nodes, and where its first builtin node that may make dynamic outputs is.
pub(crate) struct Plan<'a> {
    /// Whether the model has a primary subgraph.
    primary: bool,
    /// Its custom-op nodes, in execution order: node, name, version.
    custom: Vec<(usize, &'a str, i32)>,
    /// The first builtin node whose outputs may be dynamic.
    first_dynamic_builtin: Option<usize>,
    /// Its operator count.
    operators: usize,
    /// Whether its read-write tensors take more than [`ARENA_LIMIT`] bytes.
    large_arena: bool,
}

/// Reads `model`'s [`Plan`]: one pass over the primary subgraph's operators.
pub(crate) fn plan<'a>(model: &Model<'a>) -> Plan<'a> {
    let mut shape_from_shapes = [false; 256];
    let mut shape_from_constants = [false; 256];
    for (table, ops) in [
        (&mut shape_from_shapes, SHAPE_FROM_SHAPES),
        (&mut shape_from_constants, SHAPE_FROM_CONSTANTS),
    ] {
        for op in ops {
            if let Some(slot) = usize::try_from(op.code())
                .ok()
                .and_then(|c| table.get_mut(c))
            {
                *slot = true;
            }
        }
    }
    let lookup = |table: &[bool; 256], op: BuiltinOperator| {
        usize::try_from(op.code())
            .ok()
            .and_then(|c| table.get(c))
            .copied()
            .unwrap_or(false)
    };
    let Some(primary) = model.subgraphs.first() else {
        return Plan {
            primary: false,
            custom: Vec::new(),
            first_dynamic_builtin: None,
            operators: 0,
            large_arena: false,
        };
    };
    let codes = model.operator_codes();
    let mut custom = Vec::new();
    let mut first_dynamic_builtin = None;
    for (node, (opcode, inputs, _, _, _)) in primary.resolved().enumerate() {
        // Opcode indices were validated when the model was read.
        let Some(code) = codes.get(opcode as usize) else {
            first_dynamic_builtin.get_or_insert(node);
            continue;
        };
        match code.custom_code {
            Some(name) if code.builtin == BuiltinOperator::CUSTOM => {
                custom.push((node, name, code.version.get()));
            }
            _ => {
                if first_dynamic_builtin.is_some() {
                    continue;
                }
                let op = code.builtin;
                let constant_rest = || {
                    inputs
                        .iter()
                        .skip(1)
                        .all(|&t| t < 0 || primary.tensor(t).is_some_and(|t| t.is_const))
                };
                let stays_static = lookup(&shape_from_shapes, op)
                    || (lookup(&shape_from_constants, op) && constant_rest());
                if !stays_static {
                    first_dynamic_builtin = Some(node);
                }
            }
        }
    }
    Plan {
        primary: true,
        custom,
        first_dynamic_builtin,
        operators: primary.operators.len(),
        large_arena: primary.operators.is_empty() && arena_bytes(primary) > ARENA_LIMIT,
    }
}

/// `allocate_tensors()` of `runtime` on the model `plan` was read from, whose interpreter it
/// constructs.
pub(crate) fn allocate(plan: &Plan<'_>, runtime: &RuntimeFacts) -> Allocation {
    if !plan.primary {
        return Allocation::NotConstructed;
    }
    // Whether every custom node so far keeps its outputs static.
    let mut custom_static = true;
    let mut first_taken: Option<NotJudged> = None;
    for &(node, name, version) in &plan.custom {
        match custom_op(runtime, name, version) {
            CustomOp::Unresolved(cause) => {
                let op = c_name(name).to_owned();
                let builtins_static = plan.first_dynamic_builtin.is_none_or(|d| d > node);
                if !(custom_static && builtins_static) {
                    return Allocation::NotJudged {
                        reason: NotJudged::MaybeDeferred { node, op },
                    };
                }
                return Allocation::Refused {
                    cause,
                    node,
                    message: refusal_text(runtime, cause, &op, node),
                    op,
                };
            }
            CustomOp::Taken(reason) => {
                custom_static &= matches!(reason, NotJudged::KernelChecks)
                    && CUSTOM_SHAPE_FROM_SHAPES.contains(&c_name(name));
                first_taken.get_or_insert(reason);
            }
        }
    }
    if plan.operators == 0 {
        return if plan.large_arena {
            Allocation::NotJudged {
                reason: NotJudged::LargeArena,
            }
        } else {
            Allocation::Allocates
        };
    }
    // The most telling reason: a delegate taking a custom op says more than a kernel.
    Allocation::NotJudged {
        reason: first_taken.unwrap_or(NotJudged::KernelChecks),
    }
}

/// The bytes the read-write tensors of `subgraph` take, saturating.
fn arena_bytes(subgraph: &crate::model::subgraph::Subgraph) -> u64 {
    let mut total: u64 = 0;
    for t in 0..subgraph.tensors.len() {
        let Some(facts) = i32::try_from(t).ok().and_then(|t| subgraph.tensor(t)) else {
            continue;
        };
        if facts.is_const {
            continue;
        }
        let elements = facts.dims.as_slice().iter().fold(1u64, |n, &d| {
            n.saturating_mul(u64::try_from(d).unwrap_or(0))
        });
        // Strings and other types of no fixed size are allocated when written, not in the arena.
        let size = facts.element_type.bits().map_or(0, |bits| bits.max(8) / 8);
        let bytes = elements.saturating_mul(u64::from(size));
        total = total.saturating_add(bytes);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::builder::ModelBuilder;
    use crate::operator::code::OpVersion;
    use crate::operator::tensor::{ElementType, TensorSpec};
    use crate::runtimes::installed::Runtime;

    fn runtime(name: &str) -> Runtime {
        Runtime::find(name).expect("a known runtime")
    }

    fn litert_facts() -> &'static RuntimeFacts {
        crate::generated::runtimes::RUNTIMES
            .iter()
            .find(|r| r.family == "ai-edge-litert" && r.version == "2.3.0")
            .expect("ai-edge-litert 2.3.0")
    }

    /// A RESHAPE (its shape a constant or not), then custom op `name`.
    fn reshape_then(name: &str, constant_shape: bool) -> Vec<u8> {
        let mut b = ModelBuilder::new();
        let f = TensorSpec::new(ElementType::Float32, &[1, 4]);
        let shape = TensorSpec::new(ElementType::Int32, &[2]);
        let shape = if constant_shape {
            shape.constant()
        } else {
            shape
        };
        let (x, s, y, z) = (b.tensor(&f), b.tensor(&shape), b.tensor(&f), b.tensor(&f));
        let reshape = b.operator_code(BuiltinOperator::RESHAPE, OpVersion::ONE);
        let custom = b.custom_code(name, OpVersion::ONE);
        b.operator(reshape, &[x, s], &[y], None);
        b.operator(custom, &[y], &[z], None);
        b.finish()
    }

    /// Preparing stops after a node whose outputs may be dynamic: a RESHAPE to a shape that is
    /// not a constant leaves the custom op after it to `invoke()`, so no refusal is claimed.
    /// (Measured with the same two models written by hand: tensorflow-cpu 2.21.0 and
    /// ai-edge-litert 2.3.0 refuse the first with this text and allocate the second.)
    #[test]
    fn a_refusal_is_claimed_only_when_preparing_reaches_the_custom_op() {
        let tf = runtime("tensorflow-cpu 2.21.0");
        let reached = reshape_then("Erf", true);
        let model = Model::from_bytes(&reached).unwrap();
        match tf.load(&model).allocation {
            Allocation::Refused {
                cause,
                node,
                op,
                message,
            } => {
                assert_eq!(cause, AllocationRefusal::UnresolvedCustomOp);
                assert_eq!((node, op.as_str()), (1, "Erf"));
                assert_eq!(
                    message,
                    "Encountered unresolved custom op: Erf.\nSee instructions: \
                     https://www.tensorflow.org/lite/guide/ops_custom Node number 1 (Erf) \
                     failed to prepare."
                );
            }
            other => panic!("{other:?}"),
        }
        let deferred = reshape_then("Erf", false);
        let model = Model::from_bytes(&deferred).unwrap();
        assert_eq!(
            tf.load(&model).allocation,
            Allocation::NotJudged {
                reason: NotJudged::MaybeDeferred {
                    node: 1,
                    op: "Erf".to_owned()
                }
            }
        );
    }

    /// Versions count for custom ops as for builtins; a registered name at another version is
    /// unresolved. XNNPACK examines the MediaPipe ops in some runtimes: there, nothing is
    /// claimed; in tensorflow-cpu 2.12.1 it does not, and the op is refused.
    #[test]
    fn custom_ops_resolve_by_name_version_and_delegate() {
        let tf_2_12 = runtime("tensorflow-cpu 2.12.1");
        let litert = runtime("ai-edge-litert 2.3.0");
        let mfcc_v2 = {
            let mut b = ModelBuilder::new();
            let f = TensorSpec::new(ElementType::Float32, &[1, 4]);
            let (x, y) = (b.tensor(&f), b.tensor(&f));
            let code = b.custom_code("Mfcc", OpVersion::new(2));
            b.operator(code, &[x], &[y], None);
            b.finish()
        };
        let model = Model::from_bytes(&mfcc_v2).unwrap();
        assert!(matches!(
            litert.load(&model).allocation,
            Allocation::Refused {
                cause: AllocationRefusal::UnresolvedCustomOp,
                node: 0,
                ..
            }
        ));
        let deconv = reshape_then("Convolution2DTransposeBias", true);
        let model = Model::from_bytes(&deconv).unwrap();
        assert_eq!(
            litert.load(&model).allocation,
            Allocation::NotJudged {
                reason: NotJudged::DelegateMayTake("Convolution2DTransposeBias".to_owned())
            }
        );
        assert!(matches!(
            custom_op(litert_facts(), "Convolution2DTransposeBias", 1),
            CustomOp::Taken(NotJudged::DelegateMayTake(_))
        ));
        assert_eq!(tf_2_12.load(&model).allocates(), Some(false));
        // A Flex op: refused where the Flex delegate is not applied, left to it where it is.
        let flex = reshape_then("FlexErf", true);
        let model = Model::from_bytes(&flex).unwrap();
        assert_eq!(
            tf_2_12.load(&model).allocation,
            Allocation::NotJudged {
                reason: NotJudged::FlexDelegate
            }
        );
        let refused = litert.load(&model).allocation;
        assert!(
            refused
                .error()
                .is_some_and(|t| t.starts_with("Select TensorFlow op(s)")
                    && t.ends_with("Node number 1 (FlexErf) failed to prepare.")),
            "{refused:?}"
        );
    }

    /// A primary subgraph without operators allocates, unless its tensors need more than the
    /// arena is judged for.
    #[test]
    fn a_model_without_operators_allocates_up_to_the_arena_limit() {
        for (dims, expected) in [(vec![4, 4], Some(true)), (vec![1 << 15, 1 << 15], None)] {
            let mut b = ModelBuilder::new();
            b.tensor(&TensorSpec::new(ElementType::Float32, &dims));
            let bytes = b.finish();
            let model = Model::from_bytes(&bytes).unwrap();
            for runtime in Runtime::all() {
                let verdict = runtime.load(&model);
                assert!(verdict.loads(), "{runtime}");
                assert_eq!(verdict.allocates(), expected, "{runtime} {dims:?}");
            }
        }
    }
}
