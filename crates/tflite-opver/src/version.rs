//! The op version rules: the lowest version of a builtin operator whose kernel can run a

use crate::operator::BuiltinOperator;
use crate::operator::OpVersion;
use crate::params::{LstmKernelType, Params, WeightsFormat};
use crate::signature::OpSignature;
use crate::tensor::ElementType;

/// The lowest version of `sig.op` that runs `sig` (TF's `GetBuiltinOperatorVersion`).
///
/// Custom operators and builtin ops without a rule are version 1.
///
/// ```
/// use tflite_opver::{BuiltinOperator, Params, ElementType, OpSignature, TensorSpec};
///
/// let t = |ty| TensorSpec::new(ty, &[1, 4]);
/// let relu = |ty| OpSignature::new(BuiltinOperator::RELU, vec![t(ty)], vec![t(ty)], Params::None);
/// assert_eq!(tflite_opver::op_version(&relu(ElementType::Float32)).get(), 1);
/// assert_eq!(tflite_opver::op_version(&relu(ElementType::Int8)).get(), 2);
/// assert_eq!(tflite_opver::op_version(&relu(ElementType::Int16)).get(), 3);
/// ```
///
/// given signature.
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
    OpVersion::new(rule(sig))
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

// One arm per op, in TF's order; each arm reads like the TF rule it restates.
#[allow(clippy::too_many_lines, clippy::collapsible_match)]
fn rule(sig: &OpSignature) -> i32 {
    use ElementType::{
        BFloat16, Bool, Complex64, Float16, Float32, Float64, Int4, Int8, Int16, Int32, Int64,
        NoType, String, UInt8, UInt16, UInt32,
    };
    type B = BuiltinOperator;
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
                    return 8;
                }
            }
            if facts.is_grouped_convolution {
                return 6;
            }
            // TF tests outputs.at(1) here and crashes; see the module doc.
            if in0 == Int16 && in1 == Int16 && int16_rule_output == Int16 {
                return 4;
            }
            if io(Int8, Int8, Int8) {
                return 3;
            }
            if io(Int8, Int4, Int8) {
                return 7;
            }
            if io(Float32, Int8, Float32) {
                return if facts.is_per_channel_quantized { 5 } else { 2 };
            }
            1
        }
        B::DEPTHWISE_CONV_2D => {
            // TF tests outputs.at(1) here and crashes; see the module doc.
            if in0 == Int16 && in1 == Int16 && int16_rule_output == Int16 {
                return 5;
            }
            if io(Float32, Int8, Float32) {
                return if facts.is_per_channel_quantized { 6 } else { 4 };
            }
            if io(Int8, Int8, Int8) {
                return 3;
            }
            if io(Int8, Int4, Int8) {
                return 7;
            }
            if let Params::DepthwiseConv2D(p) = sig.versioning_params()
                && (p.dilation_width_factor != 1 || p.dilation_height_factor != 1)
            {
                return 2;
            }
            1
        }
        B::EMBEDDING_LOOKUP => {
            if in1 == Int4 || facts.is_per_channel_quantized {
                return 4;
            }
            1
        }
        B::FAKE_QUANT => match sig.versioning_params() {
            Params::FakeQuant(p) if p.narrow_range => 2,
            _ => 1,
        },
        B::FULLY_CONNECTED => {
            let p = match sig.versioning_params() {
                Params::FullyConnected(p) => p,
                _ => Default::default(),
            };
            if io(Int16, Int4, Int16) {
                return 13;
            }
            if io(Float32, Int8, Float32) && facts.is_per_channel_quantized {
                return 12;
            }
            if io(Int16, Int8, Int16) && p.quantized_bias_type != NoType {
                return 11;
            }
            if facts.sparse_weight {
                return 8;
            }
            if io(Int16, Int16, Int16) {
                return 7;
            }
            if sig.inputs.len() == 2 {
                return 6;
            }
            if p.keep_num_dims {
                return 5;
            }
            if io(Int8, Int8, Int8) {
                return 4;
            }
            if io(Int8, Int4, Int8) {
                return 10;
            }
            if io(Float32, Int8, Float32) {
                return if p.asymmetric_quantize_inputs { 9 } else { 3 };
            }
            if p.weights_format == WeightsFormat::Shuffled4x16Int8 {
                return 2;
            }
            1
        }
        B::GATHER => {
            if in0 == Int4 {
                return 7;
            }
            if in1 == Int16 {
                return 6;
            }
            if let Params::Gather(p) = sig.versioning_params()
                && p.batch_dims != 0
            {
                return 5;
            }
            match in0 {
                Int16 => 4,
                Bool => 3,
                Int8 => 2,
                _ => 1,
            }
        }
        B::SVDF => {
            if in0 == Int8 {
                return 3;
            }
            if io(Float32, Int8, Float32) {
                return match sig.versioning_params() {
                    Params::Svdf(p) if p.asymmetric_quantize_inputs => 4,
                    _ => 2,
                };
            }
            1
        }
        B::SIGN => {
            if in0 == Int32 {
                2
            } else {
                1
            }
        }
        B::MUL => {
            if (in0 == Int16 && !facts.input_quantized) || in0 == UInt32 {
                return 7;
            }
            match in0 {
                Complex64 => return 6,
                Int64 => return 5,
                Int16 => return 4,
                _ => {}
            }
            let [s1, s2, so] = facts.mul_scales;
            if s1 != 0.0
                && s2 != 0.0
                && so != 0.0
                && f64::from(s1) * f64::from(s2) / f64::from(so) >= 1.0
            {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::MAX_POOL_2D | B::AVERAGE_POOL_2D => {
            if in0 == Int16 && out0 == Int16 {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::TRANSPOSE => {
            if in0 == Int4 {
                return 7;
            }
            if rank(sig, 0) > 5 {
                return 6;
            }
            if in0 == Int16 {
                return 5;
            }
            if rank(sig, 0) > 4 {
                return 4;
            }
            match in0 {
                Bool => 3,
                Int8 => 2,
                _ => 1,
            }
        }
        B::TRANSPOSE_CONV => {
            let p = match sig.versioning_params() {
                Params::TransposeConv(p) => p,
                _ => Default::default(),
            };
            if io(Int16, Int8, Int16) && p.quantized_bias_type != NoType {
                return 5;
            }
            if p.activation != crate::params::Activation::None {
                return 4;
            }
            if sig.inputs.len() == 4 && sig.input_type(3) != NoType {
                return 3;
            }
            if in1 == Int8 {
                return 2;
            }
            1
        }
        B::LSTM => {
            let p = match sig.versioning_params() {
                Params::Lstm(p) => p,
                _ => Default::default(),
            };
            let full = p.kernel_type == LstmKernelType::Full;
            if full && in0 == Int16 && in2 == Int8 && out0 == Int16 {
                return 5;
            }
            if full && in0 == Float32 && in2 == Int8 && out0 == Float32 {
                return if p.asymmetric_quantize_inputs { 4 } else { 3 };
            }
            if p.kernel_type == LstmKernelType::Basic {
                return 2;
            }
            1
        }
        B::SPLIT => match in1 {
            // Input 0 is the axis; the data is input 1.
            Int16 => 4,
            Int32 => 3,
            Int8 => 2,
            _ => 1,
        },
        B::SPARSE_TO_DENSE => match in2 {
            Int8 | UInt8 => 3,
            Int64 => 2,
            _ => 1,
        },
        B::SLICE => {
            if in0 == Int4 {
                return 7;
            }
            if in0 == UInt32 {
                return 6;
            }
            if rank(sig, 0) > 4 {
                return 5;
            }
            match in0 {
                Int16 => 4,
                String => 3,
                Int8 => 2,
                _ => 1,
            }
        }
        B::UNPACK => {
            if in0 == Int8 || in0 == UInt8 {
                return 2;
            }
            if in0 == Bool {
                return 3;
            }
            if in0 == Int16 && out0 == Int16 {
                return 4;
            }
            1
        }
        B::DEQUANTIZE => match in0 {
            Int4 => 6,
            Int16 | Float16 => 3,
            Int8 if facts.is_per_channel_quantized => 5,
            Int8 => 2,
            _ => 1,
        },
        B::QUANTIZE => {
            if in0 == Int4 || out0 == Int4 {
                return 4;
            }
            if facts.is_per_channel_quantized {
                return 3;
            }
            if out0 == Int16 {
                return 2;
            }
            1
        }
        B::FLOOR_DIV => match in0 {
            Int16 | Int8 => 3,
            Float32 => 2,
            _ => 1,
        },
        B::FLOOR_MOD => match in0 {
            Int16 | Int8 => 2,
            _ => 1,
        },
        B::L2_NORMALIZATION => {
            if out0 == Int8 {
                2
            } else {
                1
            }
        }
        B::ABS => match in0 {
            Int32 => 5,
            Int16 if facts.input_quantized => 3,
            Int16 => 4,
            Int8 | UInt8 => 2,
            _ => 1,
        },
        B::RELU => match in0 {
            Int16 => 3,
            Int8 | UInt8 => 2,
            _ => 1,
        },
        B::STRIDED_SLICE => {
            let p = match sig.versioning_params() {
                Params::StridedSlice(p) => p,
                _ => Default::default(),
            };
            if p.offset {
                return 8;
            }
            if in0 == UInt32 {
                return 7;
            }
            if p.ellipsis_mask != 0 || p.new_axis_mask != 0 {
                return 6;
            }
            if in0 == String {
                return 5;
            }
            if facts.num_dims > 4 {
                return 4;
            }
            match in0 {
                Bool => 3,
                Int8 => 2,
                _ => 1,
            }
        }
        B::REVERSE_V2 => match in0 {
            Int8 => 3,
            Bool => 2,
            _ => 1,
        },
        B::RESIZE_BILINEAR => {
            if in0 == Int16 {
                return 4;
            }
            if let Params::ResizeBilinear(p) = sig.versioning_params()
                && p.half_pixel_centers
            {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::RESIZE_NEAREST_NEIGHBOR => {
            if in0 == Int16 {
                return 4;
            }
            if let Params::ResizeNearestNeighbor(p) = sig.versioning_params()
                && (p.half_pixel_centers || p.align_corners)
            {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::MAXIMUM | B::MINIMUM => {
            if in0 == Int16 && out0 == Int16 {
                return 4;
            }
            if need_broadcast(sig) && max_input_rank(sig) > 4 {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::PACK => {
            if in0 == Int8 {
                return 2;
            }
            if in0 == Int16 && out0 == Int16 {
                return 3;
            }
            if in0 == UInt32 {
                return 4;
            }
            1
        }
        B::TILE => match in0 {
            Int8 => 3,
            String => 2,
            _ => 1,
        },
        B::SQUEEZE => {
            if in0 == String {
                2
            } else {
                1
            }
        }
        B::SPACE_TO_BATCH_ND | B::BATCH_TO_SPACE_ND => {
            if in0 == Int16 {
                return 4;
            }
            if rank(sig, 0) != 4 {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::ADD => {
            if in0 == Int16 && !facts.input_quantized {
                return 5;
            }
            if in0 == Int64 {
                return 4;
            }
            if in0 == Int16
                && out0 == Int16
                && let Params::Add(p) = sig.versioning_params()
                && !p.pot_scale_int16
            {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::SUB => {
            if in0 == Int16
                && out0 == Int16
                && let Params::Sub(p) = sig.versioning_params()
                && !p.pot_scale_int16
            {
                return 5;
            }
            if in0 == Int64 {
                return 4;
            }
            if need_broadcast(sig) && max_input_rank(sig) > 4 {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::GATHER_ND => {
            if in0 == Bool {
                return 5;
            }
            if in1 == Int16 {
                return 4;
            }
            match in0 {
                Int16 => 3,
                String => 2,
                _ => 1,
            }
        }
        B::DIV => {
            if need_broadcast(sig) && max_input_rank(sig) > 4 {
                2
            } else {
                1
            }
        }
        B::TANH | B::LOGISTIC => {
            if in0 == Int16 && out0 == Int16 {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::FILL => {
            if sig.inputs.len() >= 2 {
                // Input 1 is the fill value.
                match in1 {
                    Float16 => return 4,
                    Int8 | Int16 => return 3,
                    Bool | String => return 2,
                    _ => {}
                }
            }
            1
        }
        B::EQUAL => match in0 {
            Int16 => 5,
            String => 3,
            Int8 => 2,
            _ => 1,
        },
        B::NOT_EQUAL => match in0 {
            Int16 => 4,
            String => 3,
            Int8 => 2,
            _ => 1,
        },
        B::LEAKY_RELU => {
            if in0 == Int16 {
                2
            } else {
                1
            }
        }
        B::RANGE => {
            if in0 == Int64 {
                2
            } else {
                1
            }
        }
        B::BATCH_MATMUL => {
            if in0 == Int16 {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            if io(Float32, Int8, Float32)
                && let Params::BatchMatMul(p) = sig.versioning_params()
                && p.asymmetric_quantize_inputs
            {
                return 4;
            }
            1
        }
        B::PAD | B::PADV2 => {
            if in0 == Bool {
                return 5;
            }
            if rank(sig, 0) > 4 {
                return 4;
            }
            match in0 {
                Int16 => 3,
                Int8 => 2,
                _ => 1,
            }
        }
        B::CONCATENATION => match in0 {
            Int4 => 5,
            UInt32 => 4,
            Int16 => 3,
            Int8 => 2,
            _ => 1,
        },
        B::SOFTMAX
        | B::MEAN
        | B::MIRROR_PAD
        | B::REDUCE_MAX
        | B::REDUCE_MIN
        | B::RELU6
        | B::RSQRT => match in0 {
            Int16 => 3,
            Int8 => 2,
            _ => 1,
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
                return if asymmetric { 3 } else { 2 };
            }
            1
        }
        B::UNIDIRECTIONAL_SEQUENCE_LSTM => {
            let p = match sig.versioning_params() {
                Params::UnidirectionalSequenceLstm(p) => p,
                _ => Default::default(),
            };
            if in0 == Int16 && in2 == Int8 && out0 == Int16 {
                return 5;
            }
            if p.diagonal_recurrent_tensors {
                return 4;
            }
            if in0 == Float32 && in2 == Int8 && out0 == Float32 {
                return if p.asymmetric_quantize_inputs { 3 } else { 2 };
            }
            1
        }
        B::ARG_MAX | B::ARG_MIN => match in0 {
            Bool => 3,
            Int8 => 2,
            _ => 1,
        },
        B::SELECT => {
            if in0 == UInt32 {
                return 4;
            }
            if rank(sig, 0) == 5 || rank(sig, 1) == 5 || rank(sig, 2) == 5 {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::LESS | B::GREATER_EQUAL => match in0 {
            Int16 => 3,
            Int8 => 2,
            _ => 1,
        },
        B::SELECT_V2 => {
            if in0 == UInt32 {
                2
            } else {
                1
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
                2
            } else {
                1
            }
        }
        B::TOPK_V2 => {
            if in0 == Int16 || in1 == Int16 || out1 == Int16 {
                return 3;
            }
            if in0 == Int8 {
                return 2;
            }
            1
        }
        B::EXP | B::LOG | B::REDUCE_PROD | B::SQRT => match in0 {
            Int8 | Int16 => 2,
            _ => 1,
        },
        B::DYNAMIC_UPDATE_SLICE => {
            if in0 == Int4 {
                return 5;
            }
            if in0 == Int16 {
                return 4;
            }
            if in0 == Float16 {
                return 3;
            }
            if in2 == Int64 {
                return 2;
            }
            1
        }
        // Version 1 of BROADCAST_TO was rolled back when its code moved past 127, so the op
        // starts at version 2.
        B::BROADCAST_TO => match in0 {
            Int8 | Int16 => 3,
            _ => 2,
        },
        B::CAST => {
            let either = |t| in0 == t || out0 == t;
            if either(BFloat16) {
                7
            } else if in0 == Int4 && out0 == Float32 {
                6
            } else if either(Float64) || either(Float16) {
                5
            } else if either(UInt16) {
                4
            } else if either(Int8) {
                3
            } else if either(UInt32) {
                2
            } else {
                1
            }
        }
        B::WHERE => {
            if in0 == Bool {
                1
            } else {
                2
            }
        }
        B::GELU => match in0 {
            Int8 | UInt8 => 2,
            _ => 1,
        },
        _ => 1,
    }
}
