//! The op version rules: the lowest version of a builtin operator whose kernel can run a
//! given signature ([`op_version`], whose documentation gives the sources and the one rule
//! that crashes TensorFlow itself), and which rule set it ([`version_reason`]).

use std::borrow::Cow;
use std::fmt;

use crate::operator::code::BuiltinOperator;
use crate::operator::code::OpVersion;
use crate::operator::signature::OpSignature;
use crate::operator::tensor::ElementType;
use crate::params::{LstmKernelType, Params, WeightsFormat};

/// The lowest version of `sig.op` that runs `sig` (TF's `GetBuiltinOperatorVersion`).
///
/// Custom operators and builtin ops without a rule are version 1.
///
/// ```
/// use tflite_opver::{BuiltinOperator, ElementType, OpSignature, TensorSpec, params::Params};
///
/// let t = |ty| TensorSpec::new(ty, &[1, 4]);
/// let relu = |ty| OpSignature::new(BuiltinOperator::RELU, vec![t(ty)], vec![t(ty)], Params::None);
/// assert_eq!(tflite_opver::op_version(&relu(ElementType::Float32)).get(), 1);
/// assert_eq!(tflite_opver::op_version(&relu(ElementType::Int8)).get(), 2);
/// assert_eq!(tflite_opver::op_version(&relu(ElementType::Int16)).get(), 3);
/// ```
///
/// Facts: every rule below is TensorFlow's `GetBuiltinOperatorVersion`
/// (`tensorflow/compiler/mlir/lite/tools/versioning/op_version.cc`, the converter's copy; the
/// runtime's copy is `tensorflow/lite/tools/versioning/op_version.cc`, and LiteRT keeps one in
/// `tflite/tools/versioning/op_version.cc`), rewritten here as Rust match arms. A version is
/// bumped whenever an op gains a parameter, a tensor type or a behaviour an older kernel does
/// not have, so the rules test the *newest* feature first. Builtin ops without a rule are
/// version 1. TensorFlow 2.21 adds int4 inputs to CONCATENATION (version 5), SLICE (7) and
/// DYNAMIC_UPDATE_SLICE (5); its `runtime_version.cc` dates those three versions "2.21.0".
///
/// Where TF would read a tensor that does not exist (`inputs.at(i)` past the end, which throws
/// in C++), the missing tensor reads as [`ElementType::NoType`] here, so no signature makes the
/// rules panic.
///
/// One rule crashes TensorFlow itself. For CONV_2D and DEPTHWISE_CONV_2D, the int16 rule
/// ("If the op has signed int16 op_sig.inputs and op_sig.outputs, its version 4" / "If the op
/// accepts int16, we return version 5") tests `outputs.at(1)`, a second output these ops never
/// have, so TF aborts with `std::out_of_range` on int16 activations with int16 weights. Here
/// that test reads output 1 when there is one (TF's behaviour) and output 0 otherwise (what
/// the comment says the rule means): such a signature is version 4 (CONV_2D) or 5
/// (DEPTHWISE_CONV_2D). That is the conservative answer the scheme wants: a runtime without
/// the int16 kernel refuses the model with a clear error instead of running a kernel that
/// cannot handle its types.
pub fn op_version(sig: &OpSignature) -> OpVersion {
    OpVersion::new(rule::<i32>(sig))
}

/// [`op_version`] and the rule that set it: which test of TF's `GetBuiltinOperatorVersion`
/// fired for `sig`.
///
/// The version is always [`op_version`]'s; the reason is the arm of the same rule that
/// returned it. Explaining costs the same as [`op_version`] (one more pointer is kept), but
/// nothing on the hot path ([`Model::required_versions`](crate::Model::required_versions),
/// [`stamp`](crate::stamp())) computes reasons: ask for them when you show them.
///
/// ```
/// use tflite_opver::{
///     BuiltinOperator, ElementType, OpSignature, TensorSpec, version_reason, params::Params,
/// };
///
/// let t = |ty| TensorSpec::new(ty, &[1, 4]);
/// let relu = OpSignature::new(
///     BuiltinOperator::RELU,
///     vec![t(ElementType::Int8)],
///     vec![t(ElementType::Int8)],
///     Params::None,
/// );
/// let why = version_reason(&relu);
/// assert_eq!(why.version().get(), 2);
/// assert_eq!(why.rule(), "int8 or uint8 input");
/// assert_eq!(why.to_string(), "v2: int8 or uint8 input");
/// ```
pub fn version_reason(sig: &OpSignature) -> VersionReason {
    rule::<VersionReason>(sig)
}

/// A version and the rule that set it ([`version_reason`]); displays as `v3: int8 input`.
///
/// TF's rules give fixed texts; a user-defined rule ([`VersionRules`](crate::VersionRules))
/// may give its own, made when it judges.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VersionReason {
    version: OpVersion,
    rule: Cow<'static, str>,
}

impl VersionReason {
    /// A version set by something other than TF's rules, with a short text saying what set it
    /// (a custom op's stored version, a user-defined rule's reason).
    pub fn new(version: OpVersion, rule: impl Into<Cow<'static, str>>) -> Self {
        VersionReason {
            version,
            rule: rule.into(),
        }
    }

    /// The version.
    pub fn version(&self) -> OpVersion {
        self.version
    }

    /// Which rule set it, in a few words: `"int8 input"`, `"dilation ≠ 1"`.
    pub fn rule(&self) -> &str {
        &self.rule
    }
}

impl fmt::Display for VersionReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}: {}", self.version, self.rule)
    }
}

/// `true` when inputs 0 and 1 have different shapes (TF's `NeedBroadcastForBinaryInputs`).
fn need_broadcast(sig: &OpSignature) -> bool {
    sig.inputs.len() >= 2 && sig.inputs[0].dims != sig.inputs[1].dims
}

/// The largest input rank (TF's `GetInputMaxDims`).
fn max_input_rank(sig: &OpSignature) -> usize {
    sig.inputs.iter().map(|t| t.dims.len()).max().unwrap_or(0)
}

fn rank(sig: &OpSignature, i: usize) -> usize {
    sig.inputs.get(i).map_or(0, |t| t.dims.len())
}

/// What a rule arm returns: the bare version on the fast path, the version and the arm's
/// reason when explaining. Both are one generic function, so the reason always names the arm
/// that fired, and the bare instance compiles the reason texts away.
trait Verdict {
    fn at(version: i32, why: &'static str) -> Self;
}

impl Verdict for i32 {
    #[inline(always)]
    fn at(version: i32, _why: &'static str) -> Self {
        version
    }
}

impl Verdict for VersionReason {
    fn at(version: i32, why: &'static str) -> Self {
        VersionReason {
            version: OpVersion::new(version),
            rule: Cow::Borrowed(why),
        }
    }
}

/// The reason text of every op's last arm, when no rule for a newer version matched.
const BASE: &str = "base version: no rule for a newer version applies";

// One arm per op, in TF's order; each arm reads like the TF rule it restates, and each
// `v(version, why)` says in a few words which test of TF's rule fired.
#[allow(clippy::too_many_lines, clippy::collapsible_match)]
#[inline]
fn rule<V: Verdict>(sig: &OpSignature) -> V {
    use ElementType::{
        BFloat16, Bool, Complex64, Float16, Float32, Float64, Int4, Int8, Int16, Int32, Int64,
        NoType, String, UInt8, UInt16, UInt32,
    };
    type B = BuiltinOperator;
    let v = V::at;
    let in0 = sig.input_type(0);
    let in1 = sig.input_type(1);
    let in2 = sig.input_type(2);
    let out0 = sig.output_type(0);
    let out1 = sig.output_type(1);
    // The int16 conv rules' output test; see the module doc.
    let int16_rule_output = if sig.outputs.len() > 1 { out1 } else { out0 };
    let facts = &sig.facts;
    // Binary "types of input 0, input 1, output 0" tests recur in the conv-like rules.
    let io = |a, b, c| in0 == a && in1 == b && out0 == c;

    match sig.op {
        B::CONV_2D => {
            if io(Int16, Int8, Int16) {
                // `quantized_bias_type` is a version-8 parameter.
                if let Params::Conv2D(p) = sig.versioning_params()
                    && p.quantized_bias_type != NoType
                {
                    return v(
                        8,
                        "int16 activations, int8 weights and quantized_bias_type set",
                    );
                }
            }
            if facts.is_grouped_convolution {
                return v(
                    6,
                    "grouped convolution (input channels ≠ filter input channels)",
                );
            }
            // TF tests outputs.at(1) here and crashes; see the module doc.
            if in0 == Int16 && in1 == Int16 && int16_rule_output == Int16 {
                return v(4, "int16 input, weights and output");
            }
            if io(Int8, Int8, Int8) {
                return v(3, "int8 input, weights and output");
            }
            if io(Int8, Int4, Int8) {
                return v(7, "int8 input and output with int4 weights");
            }
            if io(Float32, Int8, Float32) {
                return if facts.is_per_channel_quantized {
                    v(5, "hybrid: float32 input, per-channel int8 weights")
                } else {
                    v(2, "hybrid: float32 input, int8 weights")
                };
            }
            v(1, BASE)
        }
        B::DEPTHWISE_CONV_2D => {
            // TF tests outputs.at(1) here and crashes; see the module doc.
            if in0 == Int16 && in1 == Int16 && int16_rule_output == Int16 {
                return v(5, "int16 input, weights and output");
            }
            if io(Float32, Int8, Float32) {
                return if facts.is_per_channel_quantized {
                    v(6, "hybrid: float32 input, per-channel int8 weights")
                } else {
                    v(4, "hybrid: float32 input, int8 weights")
                };
            }
            if io(Int8, Int8, Int8) {
                return v(3, "int8 input, weights and output");
            }
            if io(Int8, Int4, Int8) {
                return v(7, "int8 input and output with int4 weights");
            }
            if let Params::DepthwiseConv2D(p) = sig.versioning_params()
                && (p.dilation_width_factor != 1 || p.dilation_height_factor != 1)
            {
                return v(2, "dilation ≠ 1");
            }
            v(1, BASE)
        }
        B::EMBEDDING_LOOKUP => {
            if in1 == Int4 || facts.is_per_channel_quantized {
                return v(4, "int4 or per-channel quantized table");
            }
            v(1, BASE)
        }
        B::FAKE_QUANT => match sig.versioning_params() {
            Params::FakeQuant(p) if p.narrow_range => v(2, "narrow_range"),
            _ => v(1, BASE),
        },
        B::FULLY_CONNECTED => {
            let p = match sig.versioning_params() {
                Params::FullyConnected(p) => p,
                _ => Default::default(),
            };
            if io(Int16, Int4, Int16) {
                return v(13, "int16 input and output with int4 weights");
            }
            if io(Float32, Int8, Float32) && facts.is_per_channel_quantized {
                return v(12, "hybrid: float32 input, per-channel int8 weights");
            }
            if io(Int16, Int8, Int16) && p.quantized_bias_type != NoType {
                return v(
                    11,
                    "int16 activations, int8 weights and quantized_bias_type set",
                );
            }
            if facts.sparse_weight {
                return v(8, "sparse weights");
            }
            if io(Int16, Int16, Int16) {
                return v(7, "int16 input, weights and output");
            }
            if sig.inputs.len() == 2 {
                return v(6, "no bias input (two inputs)");
            }
            if p.keep_num_dims {
                return v(5, "keep_num_dims");
            }
            if io(Int8, Int8, Int8) {
                return v(4, "int8 input, weights and output");
            }
            if io(Int8, Int4, Int8) {
                return v(10, "int8 input and output with int4 weights");
            }
            if io(Float32, Int8, Float32) {
                return if p.asymmetric_quantize_inputs {
                    v(9, "hybrid with asymmetric_quantize_inputs")
                } else {
                    v(3, "hybrid: float32 input, int8 weights")
                };
            }
            if p.weights_format == WeightsFormat::Shuffled4x16Int8 {
                return v(2, "shuffled 4x16 int8 weights format");
            }
            v(1, BASE)
        }
        B::GATHER => {
            if in0 == Int4 {
                return v(7, "int4 input");
            }
            if in1 == Int16 {
                return v(6, "int16 indices");
            }
            if let Params::Gather(p) = sig.versioning_params()
                && p.batch_dims != 0
            {
                return v(5, "batch_dims ≠ 0");
            }
            match in0 {
                Int16 => v(4, "int16 input"),
                Bool => v(3, "bool input"),
                Int8 => v(2, "int8 input"),
                _ => v(1, BASE),
            }
        }
        B::SVDF => {
            if in0 == Int8 {
                return v(3, "int8 input");
            }
            if io(Float32, Int8, Float32) {
                return match sig.versioning_params() {
                    Params::Svdf(p) if p.asymmetric_quantize_inputs => {
                        v(4, "hybrid with asymmetric_quantize_inputs")
                    }
                    _ => v(2, "hybrid: float32 input, int8 weights"),
                };
            }
            v(1, BASE)
        }
        B::SIGN => {
            if in0 == Int32 {
                v(2, "int32 input")
            } else {
                v(1, BASE)
            }
        }
        B::MUL => {
            if in0 == Int16 && !facts.input_quantized {
                return v(7, "unquantized int16 input");
            }
            if in0 == UInt32 {
                return v(7, "uint32 input");
            }
            match in0 {
                Complex64 => return v(6, "complex64 input"),
                Int64 => return v(5, "int64 input"),
                Int16 => return v(4, "quantized int16 input"),
                _ => {}
            }
            let [s1, s2, so] = facts.mul_scales;
            if s1 != 0.0
                && s2 != 0.0
                && so != 0.0
                && f64::from(s1) * f64::from(s2) / f64::from(so) >= 1.0
            {
                return v(3, "input1_scale × input2_scale / output_scale ≥ 1");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::MAX_POOL_2D | B::AVERAGE_POOL_2D => {
            if in0 == Int16 && out0 == Int16 {
                return v(3, "int16 input and output");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::TRANSPOSE => {
            if in0 == Int4 {
                return v(7, "int4 input");
            }
            if rank(sig, 0) > 5 {
                return v(6, "input rank > 5");
            }
            if in0 == Int16 {
                return v(5, "int16 input");
            }
            if rank(sig, 0) > 4 {
                return v(4, "input rank > 4");
            }
            match in0 {
                Bool => v(3, "bool input"),
                Int8 => v(2, "int8 input"),
                _ => v(1, BASE),
            }
        }
        B::TRANSPOSE_CONV => {
            let p = match sig.versioning_params() {
                Params::TransposeConv(p) => p,
                _ => Default::default(),
            };
            if io(Int16, Int8, Int16) && p.quantized_bias_type != NoType {
                return v(
                    5,
                    "int16 activations, int8 weights and quantized_bias_type set",
                );
            }
            if p.activation != crate::params::Activation::None {
                return v(4, "fused activation");
            }
            if sig.inputs.len() == 4 && sig.input_type(3) != NoType {
                return v(3, "bias input (fourth input)");
            }
            if in1 == Int8 {
                return v(2, "int8 weights");
            }
            v(1, BASE)
        }
        B::LSTM => {
            let p = match sig.versioning_params() {
                Params::Lstm(p) => p,
                _ => Default::default(),
            };
            let full = p.kernel_type == LstmKernelType::Full;
            if full && in0 == Int16 && in2 == Int8 && out0 == Int16 {
                return v(5, "full kernel, int16 input and output with int8 weights");
            }
            if full && in0 == Float32 && in2 == Int8 && out0 == Float32 {
                return if p.asymmetric_quantize_inputs {
                    v(4, "hybrid full kernel with asymmetric_quantize_inputs")
                } else {
                    v(3, "hybrid full kernel: float32 input, int8 weights")
                };
            }
            if p.kernel_type == LstmKernelType::Basic {
                return v(2, "basic kernel type");
            }
            v(1, BASE)
        }
        B::SPLIT => match in1 {
            // Input 0 is the axis; the data is input 1.
            Int16 => v(4, "int16 data input"),
            Int32 => v(3, "int32 data input"),
            Int8 => v(2, "int8 data input"),
            _ => v(1, BASE),
        },
        B::SPARSE_TO_DENSE => match in2 {
            Int8 | UInt8 => v(3, "int8 or uint8 values"),
            Int64 => v(2, "int64 values"),
            _ => v(1, BASE),
        },
        B::SLICE => {
            if in0 == Int4 {
                return v(7, "int4 input");
            }
            if in0 == UInt32 {
                return v(6, "uint32 input");
            }
            if rank(sig, 0) > 4 {
                return v(5, "input rank > 4");
            }
            match in0 {
                Int16 => v(4, "int16 input"),
                String => v(3, "string input"),
                Int8 => v(2, "int8 input"),
                _ => v(1, BASE),
            }
        }
        B::UNPACK => {
            if in0 == Int8 || in0 == UInt8 {
                return v(2, "int8 or uint8 input");
            }
            if in0 == Bool {
                return v(3, "bool input");
            }
            if in0 == Int16 && out0 == Int16 {
                return v(4, "int16 input and output");
            }
            v(1, BASE)
        }
        B::DEQUANTIZE => match in0 {
            Int4 => v(6, "int4 input"),
            Int16 => v(3, "int16 input"),
            Float16 => v(3, "float16 input"),
            Int8 if facts.is_per_channel_quantized => v(5, "per-channel quantized int8 input"),
            Int8 => v(2, "int8 input"),
            _ => v(1, BASE),
        },
        B::QUANTIZE => {
            if in0 == Int4 || out0 == Int4 {
                return v(4, "int4 input or output");
            }
            if facts.is_per_channel_quantized {
                return v(3, "per-channel quantized");
            }
            if out0 == Int16 {
                return v(2, "int16 output");
            }
            v(1, BASE)
        }
        B::FLOOR_DIV => match in0 {
            Int16 | Int8 => v(3, "int8 or int16 input"),
            Float32 => v(2, "float32 input"),
            _ => v(1, BASE),
        },
        B::FLOOR_MOD => match in0 {
            Int16 | Int8 => v(2, "int8 or int16 input"),
            _ => v(1, BASE),
        },
        B::L2_NORMALIZATION => {
            if out0 == Int8 {
                v(2, "int8 output")
            } else {
                v(1, BASE)
            }
        }
        B::ABS => match in0 {
            Int32 => v(5, "int32 input"),
            Int16 if facts.input_quantized => v(3, "quantized int16 input"),
            Int16 => v(4, "unquantized int16 input"),
            Int8 | UInt8 => v(2, "int8 or uint8 input"),
            _ => v(1, BASE),
        },
        B::RELU => match in0 {
            Int16 => v(3, "int16 input"),
            Int8 | UInt8 => v(2, "int8 or uint8 input"),
            _ => v(1, BASE),
        },
        B::STRIDED_SLICE => {
            let p = match sig.versioning_params() {
                Params::StridedSlice(p) => p,
                _ => Default::default(),
            };
            if p.offset {
                return v(8, "offset");
            }
            if in0 == UInt32 {
                return v(7, "uint32 input");
            }
            if p.ellipsis_mask != 0 || p.new_axis_mask != 0 {
                return v(6, "ellipsis_mask or new_axis_mask set");
            }
            if in0 == String {
                return v(5, "string input");
            }
            if facts.num_dims > 4 {
                return v(4, "input rank > 4");
            }
            match in0 {
                Bool => v(3, "bool input"),
                Int8 => v(2, "int8 input"),
                _ => v(1, BASE),
            }
        }
        B::REVERSE_V2 => match in0 {
            Int8 => v(3, "int8 input"),
            Bool => v(2, "bool input"),
            _ => v(1, BASE),
        },
        B::RESIZE_BILINEAR => {
            if in0 == Int16 {
                return v(4, "int16 input");
            }
            if let Params::ResizeBilinear(p) = sig.versioning_params()
                && p.half_pixel_centers
            {
                return v(3, "half_pixel_centers");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::RESIZE_NEAREST_NEIGHBOR => {
            if in0 == Int16 {
                return v(4, "int16 input");
            }
            if let Params::ResizeNearestNeighbor(p) = sig.versioning_params()
                && (p.half_pixel_centers || p.align_corners)
            {
                return v(3, "half_pixel_centers or align_corners");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::MAXIMUM | B::MINIMUM => {
            if in0 == Int16 && out0 == Int16 {
                return v(4, "int16 input and output");
            }
            if need_broadcast(sig) && max_input_rank(sig) > 4 {
                return v(3, "broadcast with input rank > 4");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::PACK => {
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            if in0 == Int16 && out0 == Int16 {
                return v(3, "int16 input and output");
            }
            if in0 == UInt32 {
                return v(4, "uint32 input");
            }
            v(1, BASE)
        }
        B::TILE => match in0 {
            Int8 => v(3, "int8 input"),
            String => v(2, "string input"),
            _ => v(1, BASE),
        },
        B::SQUEEZE => {
            if in0 == String {
                v(2, "string input")
            } else {
                v(1, BASE)
            }
        }
        B::SPACE_TO_BATCH_ND | B::BATCH_TO_SPACE_ND => {
            if in0 == Int16 {
                return v(4, "int16 input");
            }
            if rank(sig, 0) != 4 {
                return v(3, "input rank ≠ 4");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::ADD => {
            if in0 == Int16 && !facts.input_quantized {
                return v(5, "unquantized int16 input");
            }
            if in0 == Int64 {
                return v(4, "int64 input");
            }
            if in0 == Int16
                && out0 == Int16
                && let Params::Add(p) = sig.versioning_params()
                && !p.pot_scale_int16
            {
                return v(3, "int16 input and output without pot_scale_int16");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::SUB => {
            if in0 == Int16
                && out0 == Int16
                && let Params::Sub(p) = sig.versioning_params()
                && !p.pot_scale_int16
            {
                return v(5, "int16 input and output without pot_scale_int16");
            }
            if in0 == Int64 {
                return v(4, "int64 input");
            }
            if need_broadcast(sig) && max_input_rank(sig) > 4 {
                return v(3, "broadcast with input rank > 4");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::GATHER_ND => {
            if in0 == Bool {
                return v(5, "bool input");
            }
            if in1 == Int16 {
                return v(4, "int16 indices");
            }
            match in0 {
                Int16 => v(3, "int16 input"),
                String => v(2, "string input"),
                _ => v(1, BASE),
            }
        }
        B::DIV => {
            if need_broadcast(sig) && max_input_rank(sig) > 4 {
                v(2, "broadcast with input rank > 4")
            } else {
                v(1, BASE)
            }
        }
        B::TANH | B::LOGISTIC => {
            if in0 == Int16 && out0 == Int16 {
                return v(3, "int16 input and output");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::FILL => {
            if sig.inputs.len() >= 2 {
                // Input 1 is the fill value.
                match in1 {
                    Float16 => return v(4, "float16 fill value"),
                    Int8 | Int16 => return v(3, "int8 or int16 fill value"),
                    Bool | String => return v(2, "bool or string fill value"),
                    _ => {}
                }
            }
            v(1, BASE)
        }
        B::EQUAL => match in0 {
            Int16 => v(5, "int16 input"),
            String => v(3, "string input"),
            Int8 => v(2, "int8 input"),
            _ => v(1, BASE),
        },
        B::NOT_EQUAL => match in0 {
            Int16 => v(4, "int16 input"),
            String => v(3, "string input"),
            Int8 => v(2, "int8 input"),
            _ => v(1, BASE),
        },
        B::LEAKY_RELU => {
            if in0 == Int16 {
                v(2, "int16 input")
            } else {
                v(1, BASE)
            }
        }
        B::RANGE => {
            if in0 == Int64 {
                v(2, "int64 input")
            } else {
                v(1, BASE)
            }
        }
        B::BATCH_MATMUL => {
            if in0 == Int16 {
                return v(3, "int16 input");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            if io(Float32, Int8, Float32)
                && let Params::BatchMatMul(p) = sig.versioning_params()
                && p.asymmetric_quantize_inputs
            {
                return v(4, "hybrid with asymmetric_quantize_inputs");
            }
            v(1, BASE)
        }
        B::PAD | B::PADV2 => {
            if in0 == Bool {
                return v(5, "bool input");
            }
            if rank(sig, 0) > 4 {
                return v(4, "input rank > 4");
            }
            match in0 {
                Int16 => v(3, "int16 input"),
                Int8 => v(2, "int8 input"),
                _ => v(1, BASE),
            }
        }
        B::CONCATENATION => match in0 {
            Int4 => v(5, "int4 input"),
            UInt32 => v(4, "uint32 input"),
            Int16 => v(3, "int16 input"),
            Int8 => v(2, "int8 input"),
            _ => v(1, BASE),
        },
        B::SOFTMAX
        | B::MEAN
        | B::MIRROR_PAD
        | B::REDUCE_MAX
        | B::REDUCE_MIN
        | B::RELU6
        | B::RSQRT => match in0 {
            Int16 => v(3, "int16 input"),
            Int8 => v(2, "int8 input"),
            _ => v(1, BASE),
        },
        B::RNN
        | B::UNIDIRECTIONAL_SEQUENCE_RNN
        | B::BIDIRECTIONAL_SEQUENCE_RNN
        | B::BIDIRECTIONAL_SEQUENCE_LSTM => {
            if in1 == Int8 && out0 == Float32 {
                let asymmetric = match sig.versioning_params() {
                    Params::Rnn(p) => p.asymmetric_quantize_inputs,
                    Params::SequenceRnn(p) => p.asymmetric_quantize_inputs,
                    Params::BidirectionalSequenceRnn(p) => p.asymmetric_quantize_inputs,
                    Params::BidirectionalSequenceLstm(p) => p.asymmetric_quantize_inputs,
                    _ => false,
                };
                return if asymmetric {
                    v(3, "hybrid with asymmetric_quantize_inputs")
                } else {
                    v(2, "hybrid: int8 weights, float32 output")
                };
            }
            v(1, BASE)
        }
        B::UNIDIRECTIONAL_SEQUENCE_LSTM => {
            let p = match sig.versioning_params() {
                Params::UnidirectionalSequenceLstm(p) => p,
                _ => Default::default(),
            };
            if in0 == Int16 && in2 == Int8 && out0 == Int16 {
                return v(5, "int16 input and output with int8 weights");
            }
            if p.diagonal_recurrent_tensors {
                return v(4, "diagonal_recurrent_tensors");
            }
            if in0 == Float32 && in2 == Int8 && out0 == Float32 {
                return if p.asymmetric_quantize_inputs {
                    v(3, "hybrid with asymmetric_quantize_inputs")
                } else {
                    v(2, "hybrid: float32 input, int8 weights")
                };
            }
            v(1, BASE)
        }
        B::ARG_MAX | B::ARG_MIN => match in0 {
            Bool => v(3, "bool input"),
            Int8 => v(2, "int8 input"),
            _ => v(1, BASE),
        },
        B::SELECT => {
            if in0 == UInt32 {
                return v(4, "uint32 input");
            }
            if rank(sig, 0) == 5 || rank(sig, 1) == 5 || rank(sig, 2) == 5 {
                return v(3, "an input of rank 5");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::LESS | B::GREATER_EQUAL => match in0 {
            Int16 => v(3, "int16 input"),
            Int8 => v(2, "int8 input"),
            _ => v(1, BASE),
        },
        B::SELECT_V2 => {
            if in0 == UInt32 {
                v(2, "uint32 input")
            } else {
                v(1, BASE)
            }
        }
        B::SPACE_TO_DEPTH
        | B::SPLIT_V
        | B::SUM
        | B::LOG_SOFTMAX
        | B::GREATER
        | B::LESS_EQUAL
        | B::SQUARED_DIFFERENCE
        | B::DEPTH_TO_SPACE => {
            if in0 == Int8 {
                v(2, "int8 input")
            } else {
                v(1, BASE)
            }
        }
        B::TOPK_V2 => {
            if in0 == Int16 || in1 == Int16 || out1 == Int16 {
                return v(3, "int16 input, k or indices output");
            }
            if in0 == Int8 {
                return v(2, "int8 input");
            }
            v(1, BASE)
        }
        B::EXP | B::LOG | B::REDUCE_PROD | B::SQRT => match in0 {
            Int8 | Int16 => v(2, "int8 or int16 input"),
            _ => v(1, BASE),
        },
        B::DYNAMIC_UPDATE_SLICE => {
            if in0 == Int4 {
                return v(5, "int4 input");
            }
            if in0 == Int16 {
                return v(4, "int16 input");
            }
            if in0 == Float16 {
                return v(3, "float16 input");
            }
            if in2 == Int64 {
                return v(2, "int64 start indices");
            }
            v(1, BASE)
        }
        // Version 1 of BROADCAST_TO was rolled back when its code moved past 127, so the op
        // starts at version 2.
        B::BROADCAST_TO => match in0 {
            Int8 | Int16 => v(3, "int8 or int16 input"),
            _ => v(
                2,
                "base version of BROADCAST_TO (version 1 was rolled back)",
            ),
        },
        B::CAST => {
            let either = |t| in0 == t || out0 == t;
            if either(BFloat16) {
                v(7, "bfloat16 input or output")
            } else if in0 == Int4 && out0 == Float32 {
                v(6, "int4 input to float32 output")
            } else if either(Float64) || either(Float16) {
                v(5, "float64 or float16 input or output")
            } else if either(UInt16) {
                v(4, "uint16 input or output")
            } else if either(Int8) {
                v(3, "int8 input or output")
            } else if either(UInt32) {
                v(2, "uint32 input or output")
            } else {
                v(1, BASE)
            }
        }
        B::WHERE => {
            if in0 == Bool {
                v(1, "bool condition")
            } else {
                v(2, "non-bool condition input")
            }
        }
        B::GELU => match in0 {
            Int8 | UInt8 => v(2, "int8 or uint8 input"),
            _ => v(1, BASE),
        },
        _ => v(1, "single-version op: TF has no rule for it"),
    }
}
