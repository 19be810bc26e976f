//! Operator options as plain Rust values, decoupled from the FlatBuffer tables: the `*Params`
//! family.
//!
//! An operator's options table (`Conv2DOptions`, `FullyConnectedOptions`...) becomes one
//! variant of [`Params`], holding a struct named after TensorFlow Lite's C struct
//! (`TfLiteConvParams` is [`Conv2DParams`]) with the schema's defaults, as TFLite's
//! `ParseOpData` fills them: a model that lacks an option gets the value that behaves like the
//! kernel before the option existed. Ops without options, and options TF's version rules never
//! read, are [`Params::None`].
//!
//! ```
//! use tflite_opver::params::{Conv2DParams, Padding, Params};
//!
//! let dilated = Conv2DParams { dilation_width_factor: 2, ..Default::default() };
//! assert_eq!(dilated.padding, Padding::Same);
//! assert_eq!(dilated.dilation_height_factor, 1);
//! let params = Params::Conv2D(dilated);
//! assert_ne!(params, Params::None);
//! ```

use crate::operator::code::BuiltinOperator;
use crate::operator::tensor::ElementType;

/// `TfLitePadding`: how a window op pads its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Padding {
    /// `kTfLitePaddingUnknown`: what a zero-filled struct holds.
    #[default]
    Unknown,
    /// `kTfLitePaddingSame` (schema `SAME`, 0).
    Same,
    /// `kTfLitePaddingValid` (schema `VALID`, 1).
    Valid,
}

impl Padding {
    /// TF's `ConvertPadding`: schema byte to C enum; unknown bytes become `Unknown`.
    pub fn from_schema(value: i8) -> Self {
        match value {
            0 => Self::Same,
            1 => Self::Valid,
            _ => Self::Unknown,
        }
    }
}

/// `TfLiteFusedActivation`: the activation fused into an op's output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Activation {
    /// `kTfLiteActNone` (schema `NONE`, 0).
    #[default]
    None,
    /// `kTfLiteActRelu` (schema `RELU`, 1).
    Relu,
    /// `kTfLiteActReluN1To1` (schema `RELU_N1_TO_1`, 2).
    ReluN1To1,
    /// `kTfLiteActRelu6` (schema `RELU6`, 3).
    Relu6,
    /// `kTfLiteActTanh` (schema `TANH`, 4).
    Tanh,
    /// `kTfLiteActSignBit` (schema `SIGN_BIT`, 5).
    SignBit,
}

impl Activation {
    /// TF's `ConvertActivation`: schema byte to C enum; unknown bytes become `None`.
    pub fn from_schema(value: i8) -> Self {
        match value {
            1 => Self::Relu,
            2 => Self::ReluN1To1,
            3 => Self::Relu6,
            4 => Self::Tanh,
            5 => Self::SignBit,
            _ => Self::None,
        }
    }
}

/// `TfLiteFullyConnectedWeightsFormat`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum WeightsFormat {
    /// `kTfLiteFullyConnectedWeightsFormatDefault` (schema `DEFAULT`, 0).
    #[default]
    Default,
    /// `kTfLiteFullyConnectedWeightsFormatShuffled4x16Int8` (schema `SHUFFLED4x16INT8`, 1).
    Shuffled4x16Int8,
}

/// `TfLiteLSTMKernelType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum LstmKernelType {
    /// `kTfLiteLSTMFullKernel` (schema `FULL`, 0): peephole and projection.
    #[default]
    Full,
    /// `kTfLiteLSTMBasicKernel` (schema `BASIC`, 1): TensorFlow's `BasicLSTMCell`.
    Basic,
}

/// `TfLiteConvParams` (CONV_2D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conv2DParams {
    /// Padding scheme.
    pub padding: Padding,
    /// Horizontal stride.
    pub stride_width: i32,
    /// Vertical stride.
    pub stride_height: i32,
    /// Horizontal dilation (schema default 1). Any dilation runs on CONV_2D version 1: TF's
    /// `op_version.cc` has no dilation rule for CONV_2D (its version 2 is the hybrid kernel,
    /// float32 input with int8 weights), although the op-versioning guide tells its dilation
    /// story with this op. The op whose version 2 is dilation is DEPTHWISE_CONV_2D
    /// ([`DepthwiseConv2DParams`]).
    pub dilation_width_factor: i32,
    /// Vertical dilation (schema default 1); versions as for `dilation_width_factor`.
    pub dilation_height_factor: i32,
    /// Fused activation.
    pub activation: Activation,
    /// Bias and accumulator type for int16 activations (version 8). TF converts the schema's
    /// `TensorType` to `TfLiteType`, so the schema default FLOAT32 becomes a non-zero
    /// `kTfLiteFloat32`; only a zero-filled struct holds [`ElementType::NoType`].
    pub quantized_bias_type: ElementType,
}

impl Default for Conv2DParams {
    fn default() -> Self {
        Self {
            padding: Padding::Same,
            stride_width: 0,
            stride_height: 0,
            dilation_width_factor: 1,
            dilation_height_factor: 1,
            activation: Activation::None,
            quantized_bias_type: ElementType::Float32,
        }
    }
}

/// `TfLiteDepthwiseConvParams` (DEPTHWISE_CONV_2D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthwiseConv2DParams {
    /// Padding scheme.
    pub padding: Padding,
    /// Horizontal stride.
    pub stride_width: i32,
    /// Vertical stride.
    pub stride_height: i32,
    /// Output channels per input channel (ignored by kernels after TF 2.0).
    pub depth_multiplier: i32,
    /// Fused activation.
    pub activation: Activation,
    /// Horizontal dilation (version 2; schema default 1).
    pub dilation_width_factor: i32,
    /// Vertical dilation (version 2; schema default 1).
    pub dilation_height_factor: i32,
}

impl Default for DepthwiseConv2DParams {
    fn default() -> Self {
        Self {
            padding: Padding::Same,
            stride_width: 0,
            stride_height: 0,
            depth_multiplier: 0,
            activation: Activation::None,
            dilation_width_factor: 1,
            dilation_height_factor: 1,
        }
    }
}

/// `TfLiteConv3DParams` (CONV_3D, CONV_3D_TRANSPOSE).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conv3DParams {
    /// Padding scheme.
    pub padding: Padding,
    /// Depth stride.
    pub stride_depth: i32,
    /// Horizontal stride.
    pub stride_width: i32,
    /// Vertical stride.
    pub stride_height: i32,
    /// Fused activation.
    pub activation: Activation,
    /// Depth dilation (schema default 1).
    pub dilation_depth_factor: i32,
    /// Horizontal dilation (schema default 1).
    pub dilation_width_factor: i32,
    /// Vertical dilation (schema default 1).
    pub dilation_height_factor: i32,
}

impl Default for Conv3DParams {
    fn default() -> Self {
        Self {
            padding: Padding::Same,
            stride_depth: 0,
            stride_width: 0,
            stride_height: 0,
            activation: Activation::None,
            dilation_depth_factor: 1,
            dilation_width_factor: 1,
            dilation_height_factor: 1,
        }
    }
}

/// `TfLitePoolParams` (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Pool2DParams {
    /// Padding scheme.
    pub padding: Padding,
    /// Horizontal stride.
    pub stride_width: i32,
    /// Vertical stride.
    pub stride_height: i32,
    /// Window width.
    pub filter_width: i32,
    /// Window height.
    pub filter_height: i32,
    /// Fused activation.
    pub activation: Activation,
}

/// `TfLiteFullyConnectedParams` (FULLY_CONNECTED).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FullyConnectedParams {
    /// Fused activation.
    pub activation: Activation,
    /// Weight layout (version 2 for shuffled weights).
    pub weights_format: WeightsFormat,
    /// Keep the input's rank in the output (version 5).
    pub keep_num_dims: bool,
    /// Hybrid kernels quantize inputs asymmetrically (version 9).
    pub asymmetric_quantize_inputs: bool,
    /// Bias and accumulator type for int16 activations (version 11); see
    /// [`Conv2DParams::quantized_bias_type`].
    pub quantized_bias_type: ElementType,
}

impl Default for FullyConnectedParams {
    fn default() -> Self {
        Self {
            activation: Activation::None,
            weights_format: WeightsFormat::Default,
            keep_num_dims: false,
            asymmetric_quantize_inputs: false,
            quantized_bias_type: ElementType::Float32,
        }
    }
}

/// `TfLiteAddParams` (ADD).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AddParams {
    /// Fused activation.
    pub activation: Activation,
    /// int16 kernels use power-of-two scales (schema default true; `false` needs version 3).
    pub pot_scale_int16: bool,
}

impl Default for AddParams {
    fn default() -> Self {
        Self {
            activation: Activation::None,
            pot_scale_int16: true,
        }
    }
}

/// `TfLiteSubParams` (SUB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubParams {
    /// Fused activation.
    pub activation: Activation,
    /// int16 kernels use power-of-two scales (schema default true; `false` needs version 5).
    pub pot_scale_int16: bool,
}

impl Default for SubParams {
    fn default() -> Self {
        Self {
            activation: Activation::None,
            pot_scale_int16: true,
        }
    }
}

/// `TfLiteMulParams` (MUL).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct MulParams {
    /// Fused activation.
    pub activation: Activation,
}

/// `TfLiteConcatenationParams` (CONCATENATION).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ConcatenationParams {
    /// Axis to concatenate along.
    pub axis: i32,
    /// Fused activation.
    pub activation: Activation,
}

/// `TfLiteSoftmaxParams` (SOFTMAX).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SoftmaxParams {
    /// Inverse temperature.
    pub beta: f32,
}

/// `TfLiteGatherParams` (GATHER).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct GatherParams {
    /// Axis to gather along.
    pub axis: i32,
    /// Leading batch dimensions (non-zero needs version 5).
    pub batch_dims: i32,
}

/// `TfLiteSVDFParams` (SVDF).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SvdfParams {
    /// Rank of the decomposition.
    pub rank: i32,
    /// Fused activation.
    pub activation: Activation,
    /// Hybrid kernels quantize inputs asymmetrically (version 4).
    pub asymmetric_quantize_inputs: bool,
}

/// `TfLiteRNNParams` (RNN).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct RnnParams {
    /// Fused activation.
    pub activation: Activation,
    /// Hybrid kernels quantize inputs asymmetrically (version 3).
    pub asymmetric_quantize_inputs: bool,
}

/// `TfLiteSequenceRNNParams` (UNIDIRECTIONAL_SEQUENCE_RNN).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct SequenceRnnParams {
    /// The first dimension is time rather than batch.
    pub time_major: bool,
    /// Fused activation.
    pub activation: Activation,
    /// Hybrid kernels quantize inputs asymmetrically (version 3).
    pub asymmetric_quantize_inputs: bool,
}

/// `TfLiteBidirectionalSequenceRNNParams` (BIDIRECTIONAL_SEQUENCE_RNN).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct BidirectionalSequenceRnnParams {
    /// The first dimension is time rather than batch.
    pub time_major: bool,
    /// Fused activation.
    pub activation: Activation,
    /// Both directions write into the first output.
    pub merge_outputs: bool,
    /// Hybrid kernels quantize inputs asymmetrically (version 3).
    pub asymmetric_quantize_inputs: bool,
}

/// `TfLiteLSTMParams` (LSTM).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct LstmParams {
    /// Fused activation.
    pub activation: Activation,
    /// Cell clipping (0 = none).
    pub cell_clip: f32,
    /// Projection clipping (0 = none).
    pub proj_clip: f32,
    /// Full or basic kernel (basic needs version 2).
    pub kernel_type: LstmKernelType,
    /// Hybrid kernels quantize inputs asymmetrically (version 4).
    pub asymmetric_quantize_inputs: bool,
}

/// `TfLiteUnidirectionalSequenceLSTMParams` (UNIDIRECTIONAL_SEQUENCE_LSTM).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct UnidirectionalSequenceLstmParams {
    /// Fused activation.
    pub activation: Activation,
    /// Cell clipping (0 = none).
    pub cell_clip: f32,
    /// Projection clipping (0 = none).
    pub proj_clip: f32,
    /// The first dimension is time rather than batch.
    pub time_major: bool,
    /// Hybrid kernels quantize inputs asymmetrically (version 3).
    pub asymmetric_quantize_inputs: bool,
    /// Recurrent weights are diagonal (version 4).
    pub diagonal_recurrent_tensors: bool,
}

/// `TfLiteBidirectionalSequenceLSTMParams` (BIDIRECTIONAL_SEQUENCE_LSTM).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BidirectionalSequenceLstmParams {
    /// Fused activation.
    pub activation: Activation,
    /// Cell clipping (0 = none).
    pub cell_clip: f32,
    /// Projection clipping (0 = none).
    pub proj_clip: f32,
    /// Both directions write into the first output.
    pub merge_outputs: bool,
    /// The first dimension is time (schema default true: version 1 kernels assumed it).
    pub time_major: bool,
    /// Hybrid kernels quantize inputs asymmetrically (version 3).
    pub asymmetric_quantize_inputs: bool,
}

impl Default for BidirectionalSequenceLstmParams {
    fn default() -> Self {
        Self {
            activation: Activation::None,
            cell_clip: 0.0,
            proj_clip: 0.0,
            merge_outputs: false,
            time_major: true,
            asymmetric_quantize_inputs: false,
        }
    }
}

/// `TfLiteTransposeConvParams` (TRANSPOSE_CONV).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransposeConvParams {
    /// Padding scheme.
    pub padding: Padding,
    /// Horizontal stride.
    pub stride_width: i32,
    /// Vertical stride.
    pub stride_height: i32,
    /// Fused activation (version 4).
    pub activation: Activation,
    /// Bias and accumulator type for int16 activations (version 5); see
    /// [`Conv2DParams::quantized_bias_type`].
    pub quantized_bias_type: ElementType,
}

impl Default for TransposeConvParams {
    fn default() -> Self {
        Self {
            padding: Padding::Same,
            stride_width: 0,
            stride_height: 0,
            activation: Activation::None,
            quantized_bias_type: ElementType::Float32,
        }
    }
}

/// `TfLiteStridedSliceParams` (STRIDED_SLICE).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct StridedSliceParams {
    /// Bit i set: ignore `begin[i]`.
    pub begin_mask: i32,
    /// Bit i set: ignore `end[i]`.
    pub end_mask: i32,
    /// Bit i set: an ellipsis (version 6).
    pub ellipsis_mask: i32,
    /// Bit i set: insert a new axis (version 6).
    pub new_axis_mask: i32,
    /// Bit i set: drop dimension i.
    pub shrink_axis_mask: i32,
    /// `end` is an offset from `begin` (version 8).
    pub offset: bool,
}

/// `TfLiteResizeBilinearParams` (RESIZE_BILINEAR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ResizeBilinearParams {
    /// Align the corner pixels.
    pub align_corners: bool,
    /// Sample at pixel centres (version 3).
    pub half_pixel_centers: bool,
}

/// `TfLiteResizeNearestNeighborParams` (RESIZE_NEAREST_NEIGHBOR).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ResizeNearestNeighborParams {
    /// Align the corner pixels (version 3).
    pub align_corners: bool,
    /// Sample at pixel centres (version 3).
    pub half_pixel_centers: bool,
}

/// `TfLiteFakeQuantParams` (FAKE_QUANT).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct FakeQuantParams {
    /// Range minimum.
    pub min: f32,
    /// Range maximum.
    pub max: f32,
    /// Bit width.
    pub num_bits: i32,
    /// Quantize into `[1, 2^bits - 1]` (version 2).
    pub narrow_range: bool,
}

/// `TfLiteBatchMatMulParams` (BATCH_MATMUL).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BatchMatMulParams {
    /// Transpose the left operand.
    pub adj_x: bool,
    /// Transpose the right operand.
    pub adj_y: bool,
    /// Hybrid kernels quantize inputs asymmetrically (version 4).
    pub asymmetric_quantize_inputs: bool,
}

/// An operator's options: one variant per options struct this crate models.
///
/// Operators whose options no version rule reads (or that have none) carry [`Params::None`].
///
/// Each struct mirrors one of TensorFlow Lite's C parameter structs
/// (`tensorflow/lite/core/c/builtin_op_data.h`, e.g. `TfLiteConvParams`) and is filled the way
/// TF's `ParseOpData` fills it (`tensorflow/lite/core/api/flatbuffer_conversions.cc`): every
/// field present in the options table is read, every field absent from it takes the schema's
/// default (`schema.fbs`: `dilation_w_factor:int = 1`, `pot_scale_int16:bool = true`, ...).
/// [`Default`] gives exactly those schema defaults, so a model written before a field existed
/// reads as the old kernel behaved: a Conv2D without dilation fields has dilation 1 x 1.
///
/// One TensorFlow quirk is kept visible rather than hidden: when an operator has **no options
/// table at all** (or one of the wrong type), `ParseOpData` leaves its C struct zero-filled
/// ("We should either return kTfLiteError or fill in some reasonable defaults in the params
/// struct. We are not doing so until we better understand the ramifications..."), and the op
/// version rules see those zeros. [`Params::zero_filled`] gives that struct; the version rules
/// use it through [`OpSignature::versioning_params`](crate::OpSignature::versioning_params).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is named for the struct it holds
pub enum Params {
    /// No options modelled for this operator.
    #[default]
    None,
    Conv2D(Conv2DParams),
    DepthwiseConv2D(DepthwiseConv2DParams),
    Conv3D(Conv3DParams),
    Pool2D(Pool2DParams),
    FullyConnected(FullyConnectedParams),
    Add(AddParams),
    Sub(SubParams),
    Mul(MulParams),
    Concatenation(ConcatenationParams),
    Softmax(SoftmaxParams),
    Gather(GatherParams),
    Svdf(SvdfParams),
    Rnn(RnnParams),
    SequenceRnn(SequenceRnnParams),
    BidirectionalSequenceRnn(BidirectionalSequenceRnnParams),
    Lstm(LstmParams),
    UnidirectionalSequenceLstm(UnidirectionalSequenceLstmParams),
    BidirectionalSequenceLstm(BidirectionalSequenceLstmParams),
    TransposeConv(TransposeConvParams),
    StridedSlice(StridedSliceParams),
    ResizeBilinear(ResizeBilinearParams),
    ResizeNearestNeighbor(ResizeNearestNeighborParams),
    FakeQuant(FakeQuantParams),
    BatchMatMul(BatchMatMulParams),
}

/// Which options table (and params struct) an operator reads, as TF's `ParseOpData` decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum OptionsKind {
    None,
    Conv2D,
    DepthwiseConv2D,
    Conv3D,
    Pool2D,
    FullyConnected,
    Add,
    Sub,
    Mul,
    Concatenation,
    Softmax,
    Gather,
    Svdf,
    Rnn,
    SequenceRnn,
    BidirectionalSequenceRnn,
    Lstm,
    UnidirectionalSequenceLstm,
    BidirectionalSequenceLstm,
    TransposeConv,
    StridedSlice,
    ResizeBilinear,
    ResizeNearestNeighbor,
    FakeQuant,
    BatchMatMul,
}

impl OptionsKind {
    /// The options an operator's `ParseOpData` branch reads
    /// (`tensorflow/lite/core/api/flatbuffer_conversions.cc`).
    pub(crate) fn of(op: BuiltinOperator) -> Self {
        type B = BuiltinOperator;
        match op {
            B::CONV_2D => Self::Conv2D,
            B::DEPTHWISE_CONV_2D => Self::DepthwiseConv2D,
            B::CONV_3D | B::CONV_3D_TRANSPOSE => Self::Conv3D,
            B::AVERAGE_POOL_2D | B::MAX_POOL_2D | B::L2_POOL_2D => Self::Pool2D,
            B::FULLY_CONNECTED => Self::FullyConnected,
            B::ADD => Self::Add,
            B::SUB => Self::Sub,
            B::MUL => Self::Mul,
            B::CONCATENATION => Self::Concatenation,
            B::SOFTMAX => Self::Softmax,
            B::GATHER => Self::Gather,
            B::SVDF => Self::Svdf,
            B::RNN => Self::Rnn,
            B::UNIDIRECTIONAL_SEQUENCE_RNN => Self::SequenceRnn,
            B::BIDIRECTIONAL_SEQUENCE_RNN => Self::BidirectionalSequenceRnn,
            B::LSTM => Self::Lstm,
            B::UNIDIRECTIONAL_SEQUENCE_LSTM => Self::UnidirectionalSequenceLstm,
            B::BIDIRECTIONAL_SEQUENCE_LSTM => Self::BidirectionalSequenceLstm,
            B::TRANSPOSE_CONV => Self::TransposeConv,
            B::STRIDED_SLICE => Self::StridedSlice,
            B::RESIZE_BILINEAR => Self::ResizeBilinear,
            B::RESIZE_NEAREST_NEIGHBOR => Self::ResizeNearestNeighbor,
            B::FAKE_QUANT => Self::FakeQuant,
            B::BATCH_MATMUL => Self::BatchMatMul,
            _ => Self::None,
        }
    }
}

impl Params {
    /// The params an operator has when its options table carries no fields: the schema
    /// defaults (what a runtime must assume for a model written before the fields existed).
    pub fn defaults_for(op: BuiltinOperator) -> Self {
        match OptionsKind::of(op) {
            OptionsKind::None => Self::None,
            OptionsKind::Conv2D => Self::Conv2D(Default::default()),
            OptionsKind::DepthwiseConv2D => Self::DepthwiseConv2D(Default::default()),
            OptionsKind::Conv3D => Self::Conv3D(Default::default()),
            OptionsKind::Pool2D => Self::Pool2D(Default::default()),
            OptionsKind::FullyConnected => Self::FullyConnected(Default::default()),
            OptionsKind::Add => Self::Add(Default::default()),
            OptionsKind::Sub => Self::Sub(Default::default()),
            OptionsKind::Mul => Self::Mul(Default::default()),
            OptionsKind::Concatenation => Self::Concatenation(Default::default()),
            OptionsKind::Softmax => Self::Softmax(Default::default()),
            OptionsKind::Gather => Self::Gather(Default::default()),
            OptionsKind::Svdf => Self::Svdf(Default::default()),
            OptionsKind::Rnn => Self::Rnn(Default::default()),
            OptionsKind::SequenceRnn => Self::SequenceRnn(Default::default()),
            OptionsKind::BidirectionalSequenceRnn => {
                Self::BidirectionalSequenceRnn(Default::default())
            }
            OptionsKind::Lstm => Self::Lstm(Default::default()),
            OptionsKind::UnidirectionalSequenceLstm => {
                Self::UnidirectionalSequenceLstm(Default::default())
            }
            OptionsKind::BidirectionalSequenceLstm => {
                Self::BidirectionalSequenceLstm(Default::default())
            }
            OptionsKind::TransposeConv => Self::TransposeConv(Default::default()),
            OptionsKind::StridedSlice => Self::StridedSlice(Default::default()),
            OptionsKind::ResizeBilinear => Self::ResizeBilinear(Default::default()),
            OptionsKind::ResizeNearestNeighbor => Self::ResizeNearestNeighbor(Default::default()),
            OptionsKind::FakeQuant => Self::FakeQuant(Default::default()),
            OptionsKind::BatchMatMul => Self::BatchMatMul(Default::default()),
        }
    }

    /// The same variant with every field zero (`false`, `NoType`, `Unknown`, `None`): the C
    /// struct TF's `ParseOpData` hands to the version rules when the operator has no options
    /// table of the right type.
    pub fn zero_filled(&self) -> Self {
        match self {
            Self::None => Self::None,
            Self::Conv2D(_) => Self::Conv2D(Conv2DParams {
                padding: Padding::Unknown,
                stride_width: 0,
                stride_height: 0,
                dilation_width_factor: 0,
                dilation_height_factor: 0,
                activation: Activation::None,
                quantized_bias_type: ElementType::NoType,
            }),
            Self::DepthwiseConv2D(_) => Self::DepthwiseConv2D(DepthwiseConv2DParams {
                padding: Padding::Unknown,
                stride_width: 0,
                stride_height: 0,
                depth_multiplier: 0,
                activation: Activation::None,
                dilation_width_factor: 0,
                dilation_height_factor: 0,
            }),
            Self::Conv3D(_) => Self::Conv3D(Conv3DParams {
                padding: Padding::Unknown,
                stride_depth: 0,
                stride_width: 0,
                stride_height: 0,
                activation: Activation::None,
                dilation_depth_factor: 0,
                dilation_width_factor: 0,
                dilation_height_factor: 0,
            }),
            Self::Pool2D(_) => Self::Pool2D(Pool2DParams::default()),
            Self::FullyConnected(_) => Self::FullyConnected(FullyConnectedParams {
                quantized_bias_type: ElementType::NoType,
                ..Default::default()
            }),
            Self::Add(_) => Self::Add(AddParams {
                activation: Activation::None,
                pot_scale_int16: false,
            }),
            Self::Sub(_) => Self::Sub(SubParams {
                activation: Activation::None,
                pot_scale_int16: false,
            }),
            Self::Mul(_) => Self::Mul(MulParams::default()),
            Self::Concatenation(_) => Self::Concatenation(ConcatenationParams::default()),
            Self::Softmax(_) => Self::Softmax(SoftmaxParams::default()),
            Self::Gather(_) => Self::Gather(GatherParams::default()),
            Self::Svdf(_) => Self::Svdf(SvdfParams::default()),
            Self::Rnn(_) => Self::Rnn(RnnParams::default()),
            Self::SequenceRnn(_) => Self::SequenceRnn(SequenceRnnParams::default()),
            Self::BidirectionalSequenceRnn(_) => {
                Self::BidirectionalSequenceRnn(BidirectionalSequenceRnnParams::default())
            }
            Self::Lstm(_) => Self::Lstm(LstmParams::default()),
            Self::UnidirectionalSequenceLstm(_) => {
                Self::UnidirectionalSequenceLstm(UnidirectionalSequenceLstmParams::default())
            }
            Self::BidirectionalSequenceLstm(_) => {
                Self::BidirectionalSequenceLstm(BidirectionalSequenceLstmParams {
                    time_major: false,
                    ..Default::default()
                })
            }
            Self::TransposeConv(_) => Self::TransposeConv(TransposeConvParams {
                padding: Padding::Unknown,
                stride_width: 0,
                stride_height: 0,
                activation: Activation::None,
                quantized_bias_type: ElementType::NoType,
            }),
            Self::StridedSlice(_) => Self::StridedSlice(StridedSliceParams::default()),
            Self::ResizeBilinear(_) => Self::ResizeBilinear(ResizeBilinearParams::default()),
            Self::ResizeNearestNeighbor(_) => {
                Self::ResizeNearestNeighbor(ResizeNearestNeighborParams::default())
            }
            Self::FakeQuant(_) => Self::FakeQuant(FakeQuantParams::default()),
            Self::BatchMatMul(_) => Self::BatchMatMul(BatchMatMulParams::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_defaults_keep_old_kernels_behaviour() {
        let Params::Conv2D(conv) = Params::defaults_for(BuiltinOperator::CONV_2D) else {
            panic!("CONV_2D reads Conv2DOptions");
        };
        assert_eq!(
            (conv.dilation_width_factor, conv.dilation_height_factor),
            (1, 1)
        );
        let Params::Add(add) = Params::defaults_for(BuiltinOperator::ADD) else {
            panic!("ADD reads AddOptions");
        };
        assert!(add.pot_scale_int16);
        assert!(BidirectionalSequenceLstmParams::default().time_major);
        assert_eq!(
            Params::defaults_for(BuiltinOperator::RELU),
            Params::None,
            "RELU has no options"
        );
    }

    #[test]
    fn zero_filled_is_what_tf_versioning_sees_without_a_table() {
        let zero = Params::defaults_for(BuiltinOperator::DEPTHWISE_CONV_2D).zero_filled();
        let Params::DepthwiseConv2D(dw) = zero else {
            panic!("variant kept");
        };
        assert_eq!(
            (dw.dilation_width_factor, dw.dilation_height_factor),
            (0, 0)
        );
        let Params::Conv2D(conv) = Params::defaults_for(BuiltinOperator::CONV_2D).zero_filled()
        else {
            panic!("variant kept");
        };
        assert_eq!(conv.quantized_bias_type, ElementType::NoType);
    }

    #[test]
    fn schema_enum_bytes_convert_like_tf() {
        assert_eq!(Padding::from_schema(0), Padding::Same);
        assert_eq!(Padding::from_schema(1), Padding::Valid);
        assert_eq!(Padding::from_schema(7), Padding::Unknown);
        assert_eq!(Activation::from_schema(3), Activation::Relu6);
        assert_eq!(Activation::from_schema(-1), Activation::None);
    }
}
