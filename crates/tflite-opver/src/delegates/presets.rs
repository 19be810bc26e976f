//! TensorFlow Lite's own delegates as capability tables: the version ceilings the GPU, NNAPI
//! and XNNPACK delegates check, operator by operator.
//!
//! Facts: every number below is read from TensorFlow Lite's delegate sources, whose current
//! home is LiteRT (`google-ai-edge/LiteRT`, `tflite/delegates/...`, read at commit
//! `f67457790c9c`, August 2026); TensorFlow's `tensorflow/lite/delegates/...` holds the same
//! files under the same names. Each table cites its file. Only the version checks and which
//! operators a delegate has a kernel for are modelled; each preset's
//! [`Delegate::not_modelled`] says what else the real delegate checks.

use crate::delegates::{Capability, Delegate};
use crate::operator::code::{BuiltinOperator as Op, OpVersion};

/// What the GPU delegate checks besides versions.
const GPU_NOT_MODELLED: &str = "the GPU delegate also checks tensor types (float32/float16, \
     int8/uint8 with quantized ops allowed), runtime and constant input counts, shapes, \
     strides, dilations, fused activations and options of each node; those checks are not \
     modelled here";

/// What NNAPI checks besides versions.
const NNAPI_NOT_MODELLED: &str = "NNAPI also checks the device's Android SDK level (many \
     ops need NNAPI 1.1, 1.2 or 1.3), tensor types, quantization, shapes, constness of \
     inputs and options of each node, and a vendor plugin may claim a node first; those \
     checks are not modelled here";

/// What XNNPACK checks besides versions.
const XNNPACK_NOT_MODELLED: &str = "XNNPACK also checks tensor types, quantization, shapes, \
     constness of weights, options and fused activations of each node, and which operator \
     families the build enables; those checks are not modelled here";

impl Delegate {
    /// TFLite's GPU delegate (OpenCL/OpenGL/Metal), as its model builder judges nodes.
    ///
    /// Facts: `tensorflow/lite/delegates/gpu/common/model_builder.cc`: `NewOperationParser`
    /// names the operators it has a parser for, and each parser's `IsSupported` starts with
    /// `CheckMaxSupportedOpVersion(registration, N)` (`gpu/common/operation_parser.cc`), whose
    /// refusal reads "Max version supported: N. Requested version M."; an operator without a
    /// parser gets `UnsupportedOperationParser`, "Operation is not supported.". Parsers without that
    /// call (BATCH_MATMUL, CAST, DEPTH_TO_SPACE, HARD_SWISH, MEAN, PACK, the reductions,
    /// SPLIT, SPLIT_V, TILE, UNPACK, and the custom ops but MaxPoolingWithArgmax2D) take every
    /// version. `ElementwiseOperationParser` caps MUL at 3 and its other operators at 2.
    /// QUANTIZE and DEQUANTIZE are in the table because the default options
    /// (`TfLiteGpuDelegateOptionsV2Default`) allow quantized ops.
    pub fn gpu() -> Self {
        const ELEMENTWISE: [Op; 32] = [
            Op::ABS,
            Op::ADD,
            Op::ADD_N,
            Op::COS,
            Op::DIV,
            Op::EQUAL,
            Op::ELU,
            Op::EXP,
            Op::FLOOR,
            Op::FLOOR_DIV,
            Op::FLOOR_MOD,
            Op::GELU,
            Op::GREATER,
            Op::GREATER_EQUAL,
            Op::LESS,
            Op::LESS_EQUAL,
            Op::LOGISTIC,
            Op::LOG,
            Op::LOGICAL_AND,
            Op::MAXIMUM,
            Op::MINIMUM,
            Op::NEG,
            Op::NOT_EQUAL,
            Op::POW,
            Op::RSQRT,
            Op::SIGN,
            Op::SIN,
            Op::SQRT,
            Op::SQUARE,
            Op::SQUARED_DIFFERENCE,
            Op::SUB,
            Op::TANH,
        ];
        let capped = [
            (Op::MUL, 3), // ElementwiseOperationParser: 3 for MUL
            (Op::AVERAGE_POOL_2D, 2),
            (Op::MAX_POOL_2D, 2),
            (Op::CONCATENATION, 2),
            (Op::CONV_2D, 6),
            (Op::CUMSUM, 1),
            (Op::DENSIFY, 1),
            (Op::DEPTHWISE_CONV_2D, 6),
            (Op::DEQUANTIZE, 3),
            (Op::FULLY_CONNECTED, 9),
            (Op::GATHER, 1),
            (Op::LSTM, 4),
            (Op::ONE_HOT, 1),
            (Op::PRELU, 1),
            (Op::PAD, 2),
            (Op::PADV2, 2),
            (Op::MIRROR_PAD, 2),
            (Op::QUANTIZE, 2),
            (Op::RELU, 2),
            (Op::RELU6, 2),
            (Op::RELU_0_TO_1, 2),
            (Op::RELU_N1_TO_1, 2),
            (Op::LEAKY_RELU, 2),
            (Op::RESHAPE, 1),
            (Op::RESIZE_BILINEAR, 3),
            (Op::RESIZE_NEAREST_NEIGHBOR, 3),
            (Op::SELECT, 1),
            (Op::SELECT_V2, 1),
            (Op::SLICE, 2),
            (Op::SOFTMAX, 2),
            (Op::SPACE_TO_DEPTH, 2),
            (Op::STRIDED_SLICE, 4),
            (Op::TRANSPOSE, 4),
            (Op::TRANSPOSE_CONV, 3),
        ];
        let uncapped = [
            Op::BATCH_MATMUL,
            Op::CAST,
            Op::DEPTH_TO_SPACE,
            Op::HARD_SWISH,
            Op::MEAN,
            Op::PACK,
            Op::REDUCE_MAX,
            Op::REDUCE_MIN,
            Op::REDUCE_PROD,
            Op::SUM,
            Op::SPLIT,
            Op::SPLIT_V,
            Op::TILE,
            Op::UNPACK,
        ];
        let rows = ELEMENTWISE
            .into_iter()
            .map(|op| Capability::new(op, 2))
            .chain(capped.into_iter().map(|(op, max)| Capability::new(op, max)))
            .chain(uncapped.into_iter().map(Capability::any_version))
            .chain([
                Capability::custom_any_version("Convolution2DTransposeBias"),
                // Pooling2DOperationParser, shared with the builtin pools.
                Capability::custom("MaxPoolingWithArgmax2D", 2),
                Capability::custom_any_version("MaxUnpooling2D"),
                Capability::custom_any_version("Resampler"),
            ]);
        Delegate::new("GPU", rows)
            .with_not_modelled(GPU_NOT_MODELLED)
            .with_unsupported_reason(|_, _| "Operation is not supported.".to_owned())
    }

    /// Android's Neural Networks API delegate, as `NNAPIDelegateKernel::Validate` judges
    /// nodes, with no accelerator named in its options.
    ///
    /// Facts: `tensorflow/lite/delegates/nnapi/nnapi_delegate.cc`, `Validate`: one `case` per
    /// operator NNAPI maps; each calls `ExpectMaxOpVersion(version, N)` ("OP Version higher
    /// than N") or `ExpectOpVersion(version, N)` (also a ceiling, `version <= N`, though it
    /// reads "OP Version different from N"); DEQUANTIZE takes versions 1 and 2 ("Supported op
    /// versions are 1 and 2 only"); DEPTH_TO_SPACE, DENSIFY and HARD_SWISH have no version
    /// check; any other operator is "Unsupported operation type.". MUL is capped at 2, or at 3 when the options name an accelerator
    /// (`is_accelerator_specified`); this preset is the default, 2.
    pub fn nnapi() -> Self {
        fn higher_than(max: OpVersion, _: OpVersion) -> String {
            format!("OP Version higher than {max}")
        }
        fn different_from(max: OpVersion, _: OpVersion) -> String {
            format!("OP Version different from {max}")
        }
        fn only_1_and_2(_: OpVersion, _: OpVersion) -> String {
            "Supported op versions are 1 and 2 only".to_owned()
        }
        // `ExpectMaxOpVersion(version, N)`.
        let max_op_version = [
            (Op::ADD, 2),
            (Op::ARG_MAX, 2),
            (Op::ARG_MIN, 2),
            (Op::MUL, 2),
            (Op::AVERAGE_POOL_2D, 2),
            (Op::MAX_POOL_2D, 2),
            (Op::CONV_2D, 5),
            (Op::DEPTHWISE_CONV_2D, 3),
            (Op::FULLY_CONNECTED, 5),
            (Op::RESIZE_BILINEAR, 3),
            (Op::RESIZE_NEAREST_NEIGHBOR, 3),
            (Op::UNIDIRECTIONAL_SEQUENCE_LSTM, 2),
            (Op::L2_NORMALIZATION, 2),
            (Op::CONCATENATION, 2),
            (Op::RELU, 2),
            (Op::RELU_N1_TO_1, 2),
            (Op::RELU6, 2),
            (Op::LOGISTIC, 2),
            (Op::TANH, 2),
            (Op::SUB, 3),
            (Op::PAD, 2),
            (Op::PADV2, 2),
            (Op::SPACE_TO_BATCH_ND, 2),
            (Op::BATCH_TO_SPACE_ND, 2),
            (Op::STRIDED_SLICE, 2),
            (Op::TRANSPOSE, 2),
            (Op::SLICE, 2),
            (Op::TRANSPOSE_CONV, 4),
            (Op::SPACE_TO_DEPTH, 2),
            (Op::LSTM, 3),
            (Op::MEAN, 2),
            (Op::MAXIMUM, 3),
            (Op::MINIMUM, 3),
            (Op::LESS, 2),
            (Op::LESS_EQUAL, 2),
            (Op::GREATER, 2),
            (Op::GREATER_EQUAL, 2),
            (Op::EQUAL, 2),
            (Op::NOT_EQUAL, 2),
            (Op::NEG, 2),
            (Op::TOPK_V2, 2),
            (Op::SELECT, 2),
            (Op::QUANTIZE, 2),
            (Op::REDUCE_MIN, 2),
            (Op::REDUCE_MAX, 2),
            (Op::MIRROR_PAD, 2),
            (Op::REVERSE_V2, 3),
        ];
        // `ExpectOpVersion(version, N)`.
        let op_version = [
            (Op::L2_POOL_2D, 1),
            (Op::SOFTMAX, 2),
            (Op::RESHAPE, 1),
            (Op::SQUEEZE, 1),
            (Op::LOCAL_RESPONSE_NORMALIZATION, 1),
            (Op::LSH_PROJECTION, 1),
            (Op::FLOOR, 1),
            (Op::DIV, 1),
            (Op::UNIDIRECTIONAL_SEQUENCE_RNN, 1),
            (Op::ABS, 1),
            (Op::EXP, 1),
            (Op::LOG, 1),
            (Op::POW, 1),
            (Op::RSQRT, 2),
            (Op::COS, 1),
            (Op::SIN, 1),
            (Op::SQRT, 1),
            (Op::RNN, 1),
            (Op::SVDF, 1),
            (Op::EMBEDDING_LOOKUP, 1),
            (Op::HASHTABLE_LOOKUP, 1),
            (Op::CAST, 1),
            (Op::LEAKY_RELU, 1),
            (Op::PRELU, 1),
            (Op::TILE, 1),
            (Op::LOGICAL_OR, 1),
            (Op::LOGICAL_AND, 1),
            (Op::LOGICAL_NOT, 1),
            (Op::GATHER, 2),
            (Op::BIDIRECTIONAL_SEQUENCE_LSTM, 1),
            (Op::EXPAND_DIMS, 1),
            (Op::SPLIT, 3),
            (Op::SPLIT_V, 2),
            (Op::LOG_SOFTMAX, 1),
            (Op::REDUCE_ANY, 2),
            (Op::REDUCE_PROD, 1),
            (Op::SUM, 1),
            (Op::ELU, 1),
            (Op::FILL, 1),
            (Op::PACK, 2),
            (Op::UNPACK, 2),
            (Op::SQUARED_DIFFERENCE, 2),
            (Op::BATCH_MATMUL, 2),
        ];
        let rows = max_op_version
            .into_iter()
            .map(|(op, max)| Capability::new(op, max).with_version_reason(higher_than))
            .chain(
                op_version
                    .into_iter()
                    .map(|(op, max)| Capability::new(op, max).with_version_reason(different_from)),
            )
            .chain([
                Capability::new(Op::DEQUANTIZE, 2).with_version_reason(only_1_and_2),
                Capability::any_version(Op::DEPTH_TO_SPACE),
                Capability::any_version(Op::DENSIFY),
                Capability::any_version(Op::HARD_SWISH),
            ]);
        Delegate::new("NNAPI", rows)
            .with_not_modelled(NNAPI_NOT_MODELLED)
            .with_unsupported_reason(|_, _| "Unsupported operation type.".to_owned())
    }

    /// The XNNPACK CPU delegate, as its `Subgraph::VisitNode` judges nodes.
    ///
    /// Facts: `tensorflow/lite/delegates/xnnpack/xnnpack_delegate.cc`, `VisitNode`: one
    /// `case` per operator XNNPACK takes, and a single version check: FULLY_CONNECTED version
    /// 8 (sparse weights) is refused ("Unsupported version 8 of FullyConnected."); every
    /// other version of every listed operator is taken. Custom ops:
    /// Convolution2DTransposeBias, MaxPoolingWithArgmax2D, MaxUnpooling2D and
    /// odml.scaled_dot_product_attention. Any other operator: "unsupported operator type NAME
    /// in node #N" (logged when XNNPACK is built with logging).
    pub fn xnnpack() -> Self {
        fn fully_connected_v8(_: OpVersion, requested: OpVersion) -> String {
            format!("Unsupported version {requested} of FullyConnected.")
        }
        let ops = [
            Op::ABS,
            Op::CEIL,
            Op::COS,
            Op::DEQUANTIZE,
            Op::ELU,
            Op::EXP,
            Op::FLOOR,
            Op::GELU,
            Op::HARD_SWISH,
            Op::LEAKY_RELU,
            Op::LOGISTIC,
            Op::LOG,
            Op::NEG,
            Op::QUANTIZE,
            Op::RELU,
            Op::RELU6,
            Op::RELU_N1_TO_1,
            Op::ROUND,
            Op::RSQRT,
            Op::SIN,
            Op::SQRT,
            Op::SQUARE,
            Op::TANH,
            Op::ADD,
            Op::DIV,
            Op::MAXIMUM,
            Op::MINIMUM,
            Op::MUL,
            Op::PRELU,
            Op::SQUARED_DIFFERENCE,
            Op::SUB,
            Op::ASSIGN_VARIABLE,
            Op::AVERAGE_POOL_2D,
            Op::BATCH_MATMUL,
            Op::CONCATENATION,
            Op::CONV_2D,
            Op::DEPTHWISE_CONV_2D,
            Op::DEPTH_TO_SPACE,
            Op::EXPAND_DIMS,
            Op::MAX_POOL_2D,
            Op::REDUCE_MIN,
            Op::REDUCE_MAX,
            Op::SUM,
            Op::MEAN,
            Op::PAD,
            Op::READ_VARIABLE,
            Op::RESHAPE,
            Op::RESIZE_BILINEAR,
            Op::SLICE,
            Op::SOFTMAX,
            Op::SPACE_TO_DEPTH,
            Op::SPLIT,
            Op::STRIDED_SLICE,
            Op::TRANSPOSE,
            Op::TRANSPOSE_CONV,
            Op::VAR_HANDLE,
            Op::STABLEHLO_COMPOSITE,
        ];
        let rows = ops.into_iter().map(Capability::any_version).chain([
            Capability::any_version(Op::FULLY_CONNECTED)
                .excluding_version(8)
                .with_version_reason(fully_connected_v8),
            Capability::custom_any_version("Convolution2DTransposeBias"),
            Capability::custom_any_version("MaxPoolingWithArgmax2D"),
            Capability::custom_any_version("MaxUnpooling2D"),
            Capability::custom_any_version("odml.scaled_dot_product_attention"),
        ]);
        Delegate::new("XNNPACK", rows)
            .with_not_modelled(XNNPACK_NOT_MODELLED)
            .with_unsupported_reason(|op, node| {
                format!("unsupported operator type {op} in node #{node}")
            })
    }
}
