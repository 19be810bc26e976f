//! What the reader records of a model for the interpreter replay
//! ([`interpreter`](crate::runtimes::interpreter)): the few facts a runtime's interpreter
//! builder checks besides the operator codes, gathered while the model is read, so that judging
//! thirty runtimes never reads the bytes again.

use crate::generated::schema::tflite as fb;
use crate::model::wire::SparsityFields;
use crate::operator::code::BuiltinOperator;

/// What a model holds that a runtime's interpreter builder checks besides its operator codes,
/// gathered while the model is read.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LoadFacts {
    /// Whether the model has a `subgraphs` vector.
    pub(crate) has_subgraphs: bool,
    /// The length of the `buffers` vector; `None` without one.
    pub(crate) buffers: Option<usize>,
    /// Per subgraph, whether it has a `tensors` vector.
    pub(crate) has_tensors: Vec<bool>,
    /// The operators of [`OPTIONS_NEEDED`] without their options table, in order.
    pub(crate) missing_options: Vec<MissingOptions>,
    /// The tensors some runtime may refuse ([`is_odd`]), in subgraph, then tensor order. Every
    /// other tensor is accepted by every runtime.
    pub(crate) odd_tensors: Vec<OddTensor>,
    /// Where data kept outside the FlatBuffer starts (models over 2 GB): the smallest buffer or
    /// custom options offset above 1.
    pub(crate) external_from: Option<u64>,
}

/// A tensor's quantization parameters, as counted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct QuantizationCounts {
    pub(crate) scales: usize,
    /// `None`: no `zero_point` vector.
    pub(crate) zero_points: Option<usize>,
    pub(crate) dimension: i32,
}

/// A tensor some runtime may refuse, with what the interpreter builder reads of it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OddTensor {
    pub(crate) subgraph: usize,
    pub(crate) index: usize,
    /// The schema's `TensorType` value.
    pub(crate) type_: i8,
    pub(crate) dims: Vec<i32>,
    pub(crate) buffer: u32,
    /// The length of its buffer's `data` vector; `None` without one (or for buffer 0).
    pub(crate) data: Option<usize>,
    pub(crate) is_variable: bool,
    pub(crate) sparsity: Option<SparsityFields>,
    pub(crate) quantization: Option<QuantizationCounts>,
}

/// An operator whose options table `ParseOpData` cannot do without is missing it
/// ([`OPTIONS_NEEDED`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MissingOptions {
    pub(crate) subgraph: usize,
    pub(crate) operator: usize,
    pub(crate) op: BuiltinOperator,
}

/// The operators whose options table TFLite's `ParseOpData` needs: without it, it refuses the
/// operator ("No valid LSTM builtin options exist", "Could not get 'stablehlo.pad' operation
/// parameters."). Facts: the parse functions of `tensorflow/lite/core/api/
/// flatbuffer_conversions.cc` (`tflite/core/api/flatbuffer_conversions.cc` in LiteRT); which
/// runtimes refuse, and in what words, is probed (`RuntimeFacts::options_required`).
pub(crate) const OPTIONS_NEEDED: [BuiltinOperator; 5] = [
    BuiltinOperator::LSTM,
    BuiltinOperator::STABLEHLO_PAD,
    BuiltinOperator::STABLEHLO_REDUCE_WINDOW,
    BuiltinOperator::STABLEHLO_COMPOSITE,
    BuiltinOperator::STABLEHLO_CASE,
];

/// Whether an operator of `op` (one of [`OPTIONS_NEEDED`]) has the options table its parse
/// function reads, in either options union.
pub(crate) fn has_needed_options(
    op: BuiltinOperator,
    first: Option<&fb::BuiltinOptionsRef<'_>>,
    second: Option<&fb::BuiltinOptions2Ref<'_>>,
) -> bool {
    use fb::BuiltinOptions2Ref as Second;
    match op {
        BuiltinOperator::LSTM => matches!(first, Some(fb::BuiltinOptionsRef::LstmOptions(_))),
        BuiltinOperator::STABLEHLO_PAD => matches!(second, Some(Second::StablehloPadOptions(_))),
        BuiltinOperator::STABLEHLO_REDUCE_WINDOW => {
            matches!(second, Some(Second::StablehloReduceWindowOptions(_)))
        }
        BuiltinOperator::STABLEHLO_COMPOSITE => {
            matches!(second, Some(Second::StableHloCompositeOptions(_)))
        }
        BuiltinOperator::STABLEHLO_CASE => matches!(second, Some(Second::StablehloCaseOptions(_))),
        _ => true,
    }
}

/// Bits per element of the tensor types every runtime accepts, by `TensorType` value (0 for
/// `STRING`, whose size is not checked): FLOAT32, FLOAT16, INT32, UINT8, INT64, STRING, BOOL,
/// INT16, COMPLEX64, INT8, FLOAT64. A test checks this against every runtime's facts.
pub(crate) const COMMON_TYPE_BITS: [u8; 11] = [32, 16, 32, 8, 64, 0, 8, 16, 64, 8, 64];

/// Whether some runtime may refuse a tensor with these fields: a type outside
/// [`COMMON_TYPE_BITS`], a buffer index past the buffers, bad quantization counts, a negative
/// dimension or a size past 64 bits, a constant whose data is not exactly its size or that is
/// a variable, a string variable; and every sparse tensor and variable. Any other tensor every
/// runtime accepts, so only these are kept ([`LoadFacts::odd_tensors`]).
///
/// `dims` iterates the shape where it is stored (the model's bytes, or a shape already read):
/// the check runs on every tensor of a model, and a copy of the shape for it cost more than
/// the check.
#[inline(always)]
#[allow(clippy::too_many_arguments)] // the fields of one tensor, read where they are
pub(crate) fn is_odd(
    type_: i8,
    dims: impl ExactSizeIterator<Item = i32> + Clone,
    buffer: u32,
    buffers: usize,
    data: Option<usize>,
    is_variable: bool,
    sparse: bool,
    quantization: Option<QuantizationCounts>,
) -> bool {
    // The common case first, in a few comparisons: a common type, a buffer in range, no
    // variable (few, and kept whatever they are), per-tensor quantization or none.
    let Some(&bits) = COMMON_TYPE_BITS.get(usize::from(type_ as u8)) else {
        return true;
    };
    // A sparse tensor or a variable: few, kept whatever they are.
    if (buffer != 0 && buffer as usize >= buffers) || is_variable || sparse {
        return true;
    }
    if let Some(q) = quantization
        && q.scales > 0
        && !(q.scales == 1 && q.zero_points == Some(1) && q.dimension == 0)
        && !quantization_ok(q, dims.clone())
    {
        return true;
    }
    match data {
        // Not a constant: only a size past 64 bits is refused.
        None if dims.len() <= 4 => {
            // Four dimensions below 2^15 hold fewer than 2^60 elements, of at most 8 bytes.
            let mut any = 0;
            for d in dims.clone() {
                any |= d;
            }
            !(0..1 << 15).contains(&any) && size_of(dims, bits).is_none()
        }
        None => size_of(dims, bits).is_none(),
        // A constant: its data must be exactly its size (strings aside).
        Some(len) => match size_of(dims, bits) {
            None => true,
            Some(size) => bits != 0 && size != len as u64,
        },
    }
}

/// The bytes of a tensor of `dims` with elements of `bits` bits (0 for strings), `None` for a
/// negative dimension or a size past 64 bits.
pub(crate) fn size_of(dims: impl Iterator<Item = i32>, bits: u8) -> Option<u64> {
    let mut count: u64 = 1;
    for d in dims {
        count = count.checked_mul(u64::try_from(d).ok()?)?;
    }
    count.checked_mul(u64::from(bits / 8))
}

/// Whether quantization parameters with scales pass `ParseQuantization`'s checks.
pub(crate) fn quantization_ok(
    q: QuantizationCounts,
    mut dims: impl ExactSizeIterator<Item = i32>,
) -> bool {
    let rank = dims.len();
    q.zero_points == Some(q.scales)
        && q.dimension >= 0
        && (rank == 0 || (q.dimension as usize) < rank)
        && (q.scales == 1
            || rank == 0
            || dims
                .nth(q.dimension as usize)
                .is_some_and(|d| q.scales as i64 == i64::from(d)))
}
