//! Builtin operator codes and how an `OperatorCode` table stores them.
//!
//! A TFLite model lists its operator codes once; every operator points at one of them. A
//! builtin code is an `int32` enum value (`BuiltinOperator` in TensorFlow's schema). Schema
//! v3 stored it in a signed byte, `deprecated_builtin_code`; when codes passed 127, schema
//! v3a added a full `builtin_code` field and froze the byte at
//! [`BuiltinOperator::PLACEHOLDER_FOR_GREATER_OP_CODES`] (127) for newer codes. Readers take
//! the larger of the two fields, which is right for both old and new files
//! ([`BuiltinOperator::from_operator_code`]); writers put the code in `builtin_code` and
//! `min(code, 127)` in the byte ([`BuiltinOperator::deprecated_builtin_code`]).
//!
//! Facts: the values and names are those of `enum BuiltinOperator` in TensorFlow's
//! `tensorflow/compiler/mlir/lite/schema/schema.fbs` (mirrored in
//! `tensorflow/lite/schema/schema.fbs`), codes 0 (`ADD`) to 209 (`STABLEHLO_CASE`). The
//! reading rule is `GetBuiltinCode` in `tensorflow/compiler/mlir/lite/schema/schema_utils.cc`;
//! the writing rule is the converter's `ConvertBuiltinCodeToDeprecatedBuiltinCode`
//! (`tensorflow/compiler/mlir/lite/schema/schema_conversion_utils.cc`).

use core::fmt;

/// A builtin operator code: TensorFlow's `BuiltinOperator` enum value.
///
/// It is a newtype over the schema's `int32`, not a Rust enum, because a model written by a
/// newer converter may carry codes this crate does not know; such codes survive reading and
/// writing unchanged and print as their number. Every code the current schema defines has an
/// associated constant with TensorFlow's name.
///
/// ```
/// use tflite_opver::BuiltinOperator;
///
/// assert_eq!(BuiltinOperator::CONV_2D.code(), 3);
/// assert_eq!(BuiltinOperator::from_name("CONV_2D"), Some(BuiltinOperator::CONV_2D));
/// assert_eq!(BuiltinOperator::new(3).to_string(), "CONV_2D");
/// assert_eq!(BuiltinOperator::new(4000).to_string(), "4000");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BuiltinOperator(i32);

impl BuiltinOperator {
    /// `ADD` (builtin code 0).
    pub const ADD: Self = Self(0);
    /// `AVERAGE_POOL_2D` (builtin code 1).
    pub const AVERAGE_POOL_2D: Self = Self(1);
    /// `CONCATENATION` (builtin code 2).
    pub const CONCATENATION: Self = Self(2);
    /// `CONV_2D` (builtin code 3).
    pub const CONV_2D: Self = Self(3);
    /// `DEPTHWISE_CONV_2D` (builtin code 4).
    pub const DEPTHWISE_CONV_2D: Self = Self(4);
    /// `DEPTH_TO_SPACE` (builtin code 5).
    pub const DEPTH_TO_SPACE: Self = Self(5);
    /// `DEQUANTIZE` (builtin code 6).
    pub const DEQUANTIZE: Self = Self(6);
    /// `EMBEDDING_LOOKUP` (builtin code 7).
    pub const EMBEDDING_LOOKUP: Self = Self(7);
    /// `FLOOR` (builtin code 8).
    pub const FLOOR: Self = Self(8);
    /// `FULLY_CONNECTED` (builtin code 9).
    pub const FULLY_CONNECTED: Self = Self(9);
    /// `HASHTABLE_LOOKUP` (builtin code 10).
    pub const HASHTABLE_LOOKUP: Self = Self(10);
    /// `L2_NORMALIZATION` (builtin code 11).
    pub const L2_NORMALIZATION: Self = Self(11);
    /// `L2_POOL_2D` (builtin code 12).
    pub const L2_POOL_2D: Self = Self(12);
    /// `LOCAL_RESPONSE_NORMALIZATION` (builtin code 13).
    pub const LOCAL_RESPONSE_NORMALIZATION: Self = Self(13);
    /// `LOGISTIC` (builtin code 14).
    pub const LOGISTIC: Self = Self(14);
    /// `LSH_PROJECTION` (builtin code 15).
    pub const LSH_PROJECTION: Self = Self(15);
    /// `LSTM` (builtin code 16).
    pub const LSTM: Self = Self(16);
    /// `MAX_POOL_2D` (builtin code 17).
    pub const MAX_POOL_2D: Self = Self(17);
    /// `MUL` (builtin code 18).
    pub const MUL: Self = Self(18);
    /// `RELU` (builtin code 19).
    pub const RELU: Self = Self(19);
    /// `RELU_N1_TO_1` (builtin code 20).
    pub const RELU_N1_TO_1: Self = Self(20);
    /// `RELU6` (builtin code 21).
    pub const RELU6: Self = Self(21);
    /// `RESHAPE` (builtin code 22).
    pub const RESHAPE: Self = Self(22);
    /// `RESIZE_BILINEAR` (builtin code 23).
    pub const RESIZE_BILINEAR: Self = Self(23);
    /// `RNN` (builtin code 24).
    pub const RNN: Self = Self(24);
    /// `SOFTMAX` (builtin code 25).
    pub const SOFTMAX: Self = Self(25);
    /// `SPACE_TO_DEPTH` (builtin code 26).
    pub const SPACE_TO_DEPTH: Self = Self(26);
    /// `SVDF` (builtin code 27).
    pub const SVDF: Self = Self(27);
    /// `TANH` (builtin code 28).
    pub const TANH: Self = Self(28);
    /// `CONCAT_EMBEDDINGS` (builtin code 29).
    pub const CONCAT_EMBEDDINGS: Self = Self(29);
    /// `SKIP_GRAM` (builtin code 30).
    pub const SKIP_GRAM: Self = Self(30);
    /// `CALL` (builtin code 31).
    pub const CALL: Self = Self(31);
    /// `CUSTOM` (builtin code 32).
    pub const CUSTOM: Self = Self(32);
    /// `EMBEDDING_LOOKUP_SPARSE` (builtin code 33).
    pub const EMBEDDING_LOOKUP_SPARSE: Self = Self(33);
    /// `PAD` (builtin code 34).
    pub const PAD: Self = Self(34);
    /// `UNIDIRECTIONAL_SEQUENCE_RNN` (builtin code 35).
    pub const UNIDIRECTIONAL_SEQUENCE_RNN: Self = Self(35);
    /// `GATHER` (builtin code 36).
    pub const GATHER: Self = Self(36);
    /// `BATCH_TO_SPACE_ND` (builtin code 37).
    pub const BATCH_TO_SPACE_ND: Self = Self(37);
    /// `SPACE_TO_BATCH_ND` (builtin code 38).
    pub const SPACE_TO_BATCH_ND: Self = Self(38);
    /// `TRANSPOSE` (builtin code 39).
    pub const TRANSPOSE: Self = Self(39);
    /// `MEAN` (builtin code 40).
    pub const MEAN: Self = Self(40);
    /// `SUB` (builtin code 41).
    pub const SUB: Self = Self(41);
    /// `DIV` (builtin code 42).
    pub const DIV: Self = Self(42);
    /// `SQUEEZE` (builtin code 43).
    pub const SQUEEZE: Self = Self(43);
    /// `UNIDIRECTIONAL_SEQUENCE_LSTM` (builtin code 44).
    pub const UNIDIRECTIONAL_SEQUENCE_LSTM: Self = Self(44);
    /// `STRIDED_SLICE` (builtin code 45).
    pub const STRIDED_SLICE: Self = Self(45);
    /// `BIDIRECTIONAL_SEQUENCE_RNN` (builtin code 46).
    pub const BIDIRECTIONAL_SEQUENCE_RNN: Self = Self(46);
    /// `EXP` (builtin code 47).
    pub const EXP: Self = Self(47);
    /// `TOPK_V2` (builtin code 48).
    pub const TOPK_V2: Self = Self(48);
    /// `SPLIT` (builtin code 49).
    pub const SPLIT: Self = Self(49);
    /// `LOG_SOFTMAX` (builtin code 50).
    pub const LOG_SOFTMAX: Self = Self(50);
    /// `DELEGATE` (builtin code 51).
    pub const DELEGATE: Self = Self(51);
    /// `BIDIRECTIONAL_SEQUENCE_LSTM` (builtin code 52).
    pub const BIDIRECTIONAL_SEQUENCE_LSTM: Self = Self(52);
    /// `CAST` (builtin code 53).
    pub const CAST: Self = Self(53);
    /// `PRELU` (builtin code 54).
    pub const PRELU: Self = Self(54);
    /// `MAXIMUM` (builtin code 55).
    pub const MAXIMUM: Self = Self(55);
    /// `ARG_MAX` (builtin code 56).
    pub const ARG_MAX: Self = Self(56);
    /// `MINIMUM` (builtin code 57).
    pub const MINIMUM: Self = Self(57);
    /// `LESS` (builtin code 58).
    pub const LESS: Self = Self(58);
    /// `NEG` (builtin code 59).
    pub const NEG: Self = Self(59);
    /// `PADV2` (builtin code 60).
    pub const PADV2: Self = Self(60);
    /// `GREATER` (builtin code 61).
    pub const GREATER: Self = Self(61);
    /// `GREATER_EQUAL` (builtin code 62).
    pub const GREATER_EQUAL: Self = Self(62);
    /// `LESS_EQUAL` (builtin code 63).
    pub const LESS_EQUAL: Self = Self(63);
    /// `SELECT` (builtin code 64).
    pub const SELECT: Self = Self(64);
    /// `SLICE` (builtin code 65).
    pub const SLICE: Self = Self(65);
    /// `SIN` (builtin code 66).
    pub const SIN: Self = Self(66);
    /// `TRANSPOSE_CONV` (builtin code 67).
    pub const TRANSPOSE_CONV: Self = Self(67);
    /// `SPARSE_TO_DENSE` (builtin code 68).
    pub const SPARSE_TO_DENSE: Self = Self(68);
    /// `TILE` (builtin code 69).
    pub const TILE: Self = Self(69);
    /// `EXPAND_DIMS` (builtin code 70).
    pub const EXPAND_DIMS: Self = Self(70);
    /// `EQUAL` (builtin code 71).
    pub const EQUAL: Self = Self(71);
    /// `NOT_EQUAL` (builtin code 72).
    pub const NOT_EQUAL: Self = Self(72);
    /// `LOG` (builtin code 73).
    pub const LOG: Self = Self(73);
    /// `SUM` (builtin code 74).
    pub const SUM: Self = Self(74);
    /// `SQRT` (builtin code 75).
    pub const SQRT: Self = Self(75);
    /// `RSQRT` (builtin code 76).
    pub const RSQRT: Self = Self(76);
    /// `SHAPE` (builtin code 77).
    pub const SHAPE: Self = Self(77);
    /// `POW` (builtin code 78).
    pub const POW: Self = Self(78);
    /// `ARG_MIN` (builtin code 79).
    pub const ARG_MIN: Self = Self(79);
    /// `FAKE_QUANT` (builtin code 80).
    pub const FAKE_QUANT: Self = Self(80);
    /// `REDUCE_PROD` (builtin code 81).
    pub const REDUCE_PROD: Self = Self(81);
    /// `REDUCE_MAX` (builtin code 82).
    pub const REDUCE_MAX: Self = Self(82);
    /// `PACK` (builtin code 83).
    pub const PACK: Self = Self(83);
    /// `LOGICAL_OR` (builtin code 84).
    pub const LOGICAL_OR: Self = Self(84);
    /// `ONE_HOT` (builtin code 85).
    pub const ONE_HOT: Self = Self(85);
    /// `LOGICAL_AND` (builtin code 86).
    pub const LOGICAL_AND: Self = Self(86);
    /// `LOGICAL_NOT` (builtin code 87).
    pub const LOGICAL_NOT: Self = Self(87);
    /// `UNPACK` (builtin code 88).
    pub const UNPACK: Self = Self(88);
    /// `REDUCE_MIN` (builtin code 89).
    pub const REDUCE_MIN: Self = Self(89);
    /// `FLOOR_DIV` (builtin code 90).
    pub const FLOOR_DIV: Self = Self(90);
    /// `REDUCE_ANY` (builtin code 91).
    pub const REDUCE_ANY: Self = Self(91);
    /// `SQUARE` (builtin code 92).
    pub const SQUARE: Self = Self(92);
    /// `ZEROS_LIKE` (builtin code 93).
    pub const ZEROS_LIKE: Self = Self(93);
    /// `FILL` (builtin code 94).
    pub const FILL: Self = Self(94);
    /// `FLOOR_MOD` (builtin code 95).
    pub const FLOOR_MOD: Self = Self(95);
    /// `RANGE` (builtin code 96).
    pub const RANGE: Self = Self(96);
    /// `RESIZE_NEAREST_NEIGHBOR` (builtin code 97).
    pub const RESIZE_NEAREST_NEIGHBOR: Self = Self(97);
    /// `LEAKY_RELU` (builtin code 98).
    pub const LEAKY_RELU: Self = Self(98);
    /// `SQUARED_DIFFERENCE` (builtin code 99).
    pub const SQUARED_DIFFERENCE: Self = Self(99);
    /// `MIRROR_PAD` (builtin code 100).
    pub const MIRROR_PAD: Self = Self(100);
    /// `ABS` (builtin code 101).
    pub const ABS: Self = Self(101);
    /// `SPLIT_V` (builtin code 102).
    pub const SPLIT_V: Self = Self(102);
    /// `UNIQUE` (builtin code 103).
    pub const UNIQUE: Self = Self(103);
    /// `CEIL` (builtin code 104).
    pub const CEIL: Self = Self(104);
    /// `REVERSE_V2` (builtin code 105).
    pub const REVERSE_V2: Self = Self(105);
    /// `ADD_N` (builtin code 106).
    pub const ADD_N: Self = Self(106);
    /// `GATHER_ND` (builtin code 107).
    pub const GATHER_ND: Self = Self(107);
    /// `COS` (builtin code 108).
    pub const COS: Self = Self(108);
    /// `WHERE` (builtin code 109).
    pub const WHERE: Self = Self(109);
    /// `RANK` (builtin code 110).
    pub const RANK: Self = Self(110);
    /// `ELU` (builtin code 111).
    pub const ELU: Self = Self(111);
    /// `REVERSE_SEQUENCE` (builtin code 112).
    pub const REVERSE_SEQUENCE: Self = Self(112);
    /// `MATRIX_DIAG` (builtin code 113).
    pub const MATRIX_DIAG: Self = Self(113);
    /// `QUANTIZE` (builtin code 114).
    pub const QUANTIZE: Self = Self(114);
    /// `MATRIX_SET_DIAG` (builtin code 115).
    pub const MATRIX_SET_DIAG: Self = Self(115);
    /// `ROUND` (builtin code 116).
    pub const ROUND: Self = Self(116);
    /// `HARD_SWISH` (builtin code 117).
    pub const HARD_SWISH: Self = Self(117);
    /// `IF` (builtin code 118).
    pub const IF: Self = Self(118);
    /// `WHILE` (builtin code 119).
    pub const WHILE: Self = Self(119);
    /// `NON_MAX_SUPPRESSION_V4` (builtin code 120).
    pub const NON_MAX_SUPPRESSION_V4: Self = Self(120);
    /// `NON_MAX_SUPPRESSION_V5` (builtin code 121).
    pub const NON_MAX_SUPPRESSION_V5: Self = Self(121);
    /// `SCATTER_ND` (builtin code 122).
    pub const SCATTER_ND: Self = Self(122);
    /// `SELECT_V2` (builtin code 123).
    pub const SELECT_V2: Self = Self(123);
    /// `DENSIFY` (builtin code 124).
    pub const DENSIFY: Self = Self(124);
    /// `SEGMENT_SUM` (builtin code 125).
    pub const SEGMENT_SUM: Self = Self(125);
    /// `BATCH_MATMUL` (builtin code 126).
    pub const BATCH_MATMUL: Self = Self(126);
    /// `PLACEHOLDER_FOR_GREATER_OP_CODES` (builtin code 127).
    pub const PLACEHOLDER_FOR_GREATER_OP_CODES: Self = Self(127);
    /// `CUMSUM` (builtin code 128).
    pub const CUMSUM: Self = Self(128);
    /// `CALL_ONCE` (builtin code 129).
    pub const CALL_ONCE: Self = Self(129);
    /// `BROADCAST_TO` (builtin code 130).
    pub const BROADCAST_TO: Self = Self(130);
    /// `RFFT2D` (builtin code 131).
    pub const RFFT2D: Self = Self(131);
    /// `CONV_3D` (builtin code 132).
    pub const CONV_3D: Self = Self(132);
    /// `IMAG` (builtin code 133).
    pub const IMAG: Self = Self(133);
    /// `REAL` (builtin code 134).
    pub const REAL: Self = Self(134);
    /// `COMPLEX_ABS` (builtin code 135).
    pub const COMPLEX_ABS: Self = Self(135);
    /// `HASHTABLE` (builtin code 136).
    pub const HASHTABLE: Self = Self(136);
    /// `HASHTABLE_FIND` (builtin code 137).
    pub const HASHTABLE_FIND: Self = Self(137);
    /// `HASHTABLE_IMPORT` (builtin code 138).
    pub const HASHTABLE_IMPORT: Self = Self(138);
    /// `HASHTABLE_SIZE` (builtin code 139).
    pub const HASHTABLE_SIZE: Self = Self(139);
    /// `REDUCE_ALL` (builtin code 140).
    pub const REDUCE_ALL: Self = Self(140);
    /// `CONV_3D_TRANSPOSE` (builtin code 141).
    pub const CONV_3D_TRANSPOSE: Self = Self(141);
    /// `VAR_HANDLE` (builtin code 142).
    pub const VAR_HANDLE: Self = Self(142);
    /// `READ_VARIABLE` (builtin code 143).
    pub const READ_VARIABLE: Self = Self(143);
    /// `ASSIGN_VARIABLE` (builtin code 144).
    pub const ASSIGN_VARIABLE: Self = Self(144);
    /// `BROADCAST_ARGS` (builtin code 145).
    pub const BROADCAST_ARGS: Self = Self(145);
    /// `RANDOM_STANDARD_NORMAL` (builtin code 146).
    pub const RANDOM_STANDARD_NORMAL: Self = Self(146);
    /// `BUCKETIZE` (builtin code 147).
    pub const BUCKETIZE: Self = Self(147);
    /// `RANDOM_UNIFORM` (builtin code 148).
    pub const RANDOM_UNIFORM: Self = Self(148);
    /// `MULTINOMIAL` (builtin code 149).
    pub const MULTINOMIAL: Self = Self(149);
    /// `GELU` (builtin code 150).
    pub const GELU: Self = Self(150);
    /// `DYNAMIC_UPDATE_SLICE` (builtin code 151).
    pub const DYNAMIC_UPDATE_SLICE: Self = Self(151);
    /// `RELU_0_TO_1` (builtin code 152).
    pub const RELU_0_TO_1: Self = Self(152);
    /// `UNSORTED_SEGMENT_PROD` (builtin code 153).
    pub const UNSORTED_SEGMENT_PROD: Self = Self(153);
    /// `UNSORTED_SEGMENT_MAX` (builtin code 154).
    pub const UNSORTED_SEGMENT_MAX: Self = Self(154);
    /// `UNSORTED_SEGMENT_SUM` (builtin code 155).
    pub const UNSORTED_SEGMENT_SUM: Self = Self(155);
    /// `ATAN2` (builtin code 156).
    pub const ATAN2: Self = Self(156);
    /// `UNSORTED_SEGMENT_MIN` (builtin code 157).
    pub const UNSORTED_SEGMENT_MIN: Self = Self(157);
    /// `SIGN` (builtin code 158).
    pub const SIGN: Self = Self(158);
    /// `BITCAST` (builtin code 159).
    pub const BITCAST: Self = Self(159);
    /// `BITWISE_XOR` (builtin code 160).
    pub const BITWISE_XOR: Self = Self(160);
    /// `RIGHT_SHIFT` (builtin code 161).
    pub const RIGHT_SHIFT: Self = Self(161);
    /// `STABLEHLO_LOGISTIC` (builtin code 162).
    pub const STABLEHLO_LOGISTIC: Self = Self(162);
    /// `STABLEHLO_ADD` (builtin code 163).
    pub const STABLEHLO_ADD: Self = Self(163);
    /// `STABLEHLO_DIVIDE` (builtin code 164).
    pub const STABLEHLO_DIVIDE: Self = Self(164);
    /// `STABLEHLO_MULTIPLY` (builtin code 165).
    pub const STABLEHLO_MULTIPLY: Self = Self(165);
    /// `STABLEHLO_MAXIMUM` (builtin code 166).
    pub const STABLEHLO_MAXIMUM: Self = Self(166);
    /// `STABLEHLO_RESHAPE` (builtin code 167).
    pub const STABLEHLO_RESHAPE: Self = Self(167);
    /// `STABLEHLO_CLAMP` (builtin code 168).
    pub const STABLEHLO_CLAMP: Self = Self(168);
    /// `STABLEHLO_CONCATENATE` (builtin code 169).
    pub const STABLEHLO_CONCATENATE: Self = Self(169);
    /// `STABLEHLO_BROADCAST_IN_DIM` (builtin code 170).
    pub const STABLEHLO_BROADCAST_IN_DIM: Self = Self(170);
    /// `STABLEHLO_CONVOLUTION` (builtin code 171).
    pub const STABLEHLO_CONVOLUTION: Self = Self(171);
    /// `STABLEHLO_SLICE` (builtin code 172).
    pub const STABLEHLO_SLICE: Self = Self(172);
    /// `STABLEHLO_CUSTOM_CALL` (builtin code 173).
    pub const STABLEHLO_CUSTOM_CALL: Self = Self(173);
    /// `STABLEHLO_REDUCE` (builtin code 174).
    pub const STABLEHLO_REDUCE: Self = Self(174);
    /// `STABLEHLO_ABS` (builtin code 175).
    pub const STABLEHLO_ABS: Self = Self(175);
    /// `STABLEHLO_AND` (builtin code 176).
    pub const STABLEHLO_AND: Self = Self(176);
    /// `STABLEHLO_COSINE` (builtin code 177).
    pub const STABLEHLO_COSINE: Self = Self(177);
    /// `STABLEHLO_EXPONENTIAL` (builtin code 178).
    pub const STABLEHLO_EXPONENTIAL: Self = Self(178);
    /// `STABLEHLO_FLOOR` (builtin code 179).
    pub const STABLEHLO_FLOOR: Self = Self(179);
    /// `STABLEHLO_LOG` (builtin code 180).
    pub const STABLEHLO_LOG: Self = Self(180);
    /// `STABLEHLO_MINIMUM` (builtin code 181).
    pub const STABLEHLO_MINIMUM: Self = Self(181);
    /// `STABLEHLO_NEGATE` (builtin code 182).
    pub const STABLEHLO_NEGATE: Self = Self(182);
    /// `STABLEHLO_OR` (builtin code 183).
    pub const STABLEHLO_OR: Self = Self(183);
    /// `STABLEHLO_POWER` (builtin code 184).
    pub const STABLEHLO_POWER: Self = Self(184);
    /// `STABLEHLO_REMAINDER` (builtin code 185).
    pub const STABLEHLO_REMAINDER: Self = Self(185);
    /// `STABLEHLO_RSQRT` (builtin code 186).
    pub const STABLEHLO_RSQRT: Self = Self(186);
    /// `STABLEHLO_SELECT` (builtin code 187).
    pub const STABLEHLO_SELECT: Self = Self(187);
    /// `STABLEHLO_SUBTRACT` (builtin code 188).
    pub const STABLEHLO_SUBTRACT: Self = Self(188);
    /// `STABLEHLO_TANH` (builtin code 189).
    pub const STABLEHLO_TANH: Self = Self(189);
    /// `STABLEHLO_SCATTER` (builtin code 190).
    pub const STABLEHLO_SCATTER: Self = Self(190);
    /// `STABLEHLO_COMPARE` (builtin code 191).
    pub const STABLEHLO_COMPARE: Self = Self(191);
    /// `STABLEHLO_CONVERT` (builtin code 192).
    pub const STABLEHLO_CONVERT: Self = Self(192);
    /// `STABLEHLO_DYNAMIC_SLICE` (builtin code 193).
    pub const STABLEHLO_DYNAMIC_SLICE: Self = Self(193);
    /// `STABLEHLO_DYNAMIC_UPDATE_SLICE` (builtin code 194).
    pub const STABLEHLO_DYNAMIC_UPDATE_SLICE: Self = Self(194);
    /// `STABLEHLO_PAD` (builtin code 195).
    pub const STABLEHLO_PAD: Self = Self(195);
    /// `STABLEHLO_IOTA` (builtin code 196).
    pub const STABLEHLO_IOTA: Self = Self(196);
    /// `STABLEHLO_DOT_GENERAL` (builtin code 197).
    pub const STABLEHLO_DOT_GENERAL: Self = Self(197);
    /// `STABLEHLO_REDUCE_WINDOW` (builtin code 198).
    pub const STABLEHLO_REDUCE_WINDOW: Self = Self(198);
    /// `STABLEHLO_SORT` (builtin code 199).
    pub const STABLEHLO_SORT: Self = Self(199);
    /// `STABLEHLO_WHILE` (builtin code 200).
    pub const STABLEHLO_WHILE: Self = Self(200);
    /// `STABLEHLO_GATHER` (builtin code 201).
    pub const STABLEHLO_GATHER: Self = Self(201);
    /// `STABLEHLO_TRANSPOSE` (builtin code 202).
    pub const STABLEHLO_TRANSPOSE: Self = Self(202);
    /// `DILATE` (builtin code 203).
    pub const DILATE: Self = Self(203);
    /// `STABLEHLO_RNG_BIT_GENERATOR` (builtin code 204).
    pub const STABLEHLO_RNG_BIT_GENERATOR: Self = Self(204);
    /// `REDUCE_WINDOW` (builtin code 205).
    pub const REDUCE_WINDOW: Self = Self(205);
    /// `STABLEHLO_COMPOSITE` (builtin code 206).
    pub const STABLEHLO_COMPOSITE: Self = Self(206);
    /// `STABLEHLO_SHIFT_LEFT` (builtin code 207).
    pub const STABLEHLO_SHIFT_LEFT: Self = Self(207);
    /// `STABLEHLO_CBRT` (builtin code 208).
    pub const STABLEHLO_CBRT: Self = Self(208);
    /// `STABLEHLO_CASE` (builtin code 209).
    pub const STABLEHLO_CASE: Self = Self(209);
}

/// TensorFlow's names, indexed by builtin code (`enum BuiltinOperator` in
/// `tensorflow/compiler/mlir/lite/schema/schema.fbs`).
const NAMES: [&str; BuiltinOperator::COUNT] = [
    "ADD",
    "AVERAGE_POOL_2D",
    "CONCATENATION",
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE",
    "DEQUANTIZE",
    "EMBEDDING_LOOKUP",
    "FLOOR",
    "FULLY_CONNECTED",
    "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION",
    "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION",
    "LOGISTIC",
    "LSH_PROJECTION",
    "LSTM",
    "MAX_POOL_2D",
    "MUL",
    "RELU",
    "RELU_N1_TO_1",
    "RELU6",
    "RESHAPE",
    "RESIZE_BILINEAR",
    "RNN",
    "SOFTMAX",
    "SPACE_TO_DEPTH",
    "SVDF",
    "TANH",
    "CONCAT_EMBEDDINGS",
    "SKIP_GRAM",
    "CALL",
    "CUSTOM",
    "EMBEDDING_LOOKUP_SPARSE",
    "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN",
    "GATHER",
    "BATCH_TO_SPACE_ND",
    "SPACE_TO_BATCH_ND",
    "TRANSPOSE",
    "MEAN",
    "SUB",
    "DIV",
    "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "STRIDED_SLICE",
    "BIDIRECTIONAL_SEQUENCE_RNN",
    "EXP",
    "TOPK_V2",
    "SPLIT",
    "LOG_SOFTMAX",
    "DELEGATE",
    "BIDIRECTIONAL_SEQUENCE_LSTM",
    "CAST",
    "PRELU",
    "MAXIMUM",
    "ARG_MAX",
    "MINIMUM",
    "LESS",
    "NEG",
    "PADV2",
    "GREATER",
    "GREATER_EQUAL",
    "LESS_EQUAL",
    "SELECT",
    "SLICE",
    "SIN",
    "TRANSPOSE_CONV",
    "SPARSE_TO_DENSE",
    "TILE",
    "EXPAND_DIMS",
    "EQUAL",
    "NOT_EQUAL",
    "LOG",
    "SUM",
    "SQRT",
    "RSQRT",
    "SHAPE",
    "POW",
    "ARG_MIN",
    "FAKE_QUANT",
    "REDUCE_PROD",
    "REDUCE_MAX",
    "PACK",
    "LOGICAL_OR",
    "ONE_HOT",
    "LOGICAL_AND",
    "LOGICAL_NOT",
    "UNPACK",
    "REDUCE_MIN",
    "FLOOR_DIV",
    "REDUCE_ANY",
    "SQUARE",
    "ZEROS_LIKE",
    "FILL",
    "FLOOR_MOD",
    "RANGE",
    "RESIZE_NEAREST_NEIGHBOR",
    "LEAKY_RELU",
    "SQUARED_DIFFERENCE",
    "MIRROR_PAD",
    "ABS",
    "SPLIT_V",
    "UNIQUE",
    "CEIL",
    "REVERSE_V2",
    "ADD_N",
    "GATHER_ND",
    "COS",
    "WHERE",
    "RANK",
    "ELU",
    "REVERSE_SEQUENCE",
    "MATRIX_DIAG",
    "QUANTIZE",
    "MATRIX_SET_DIAG",
    "ROUND",
    "HARD_SWISH",
    "IF",
    "WHILE",
    "NON_MAX_SUPPRESSION_V4",
    "NON_MAX_SUPPRESSION_V5",
    "SCATTER_ND",
    "SELECT_V2",
    "DENSIFY",
    "SEGMENT_SUM",
    "BATCH_MATMUL",
    "PLACEHOLDER_FOR_GREATER_OP_CODES",
    "CUMSUM",
    "CALL_ONCE",
    "BROADCAST_TO",
    "RFFT2D",
    "CONV_3D",
    "IMAG",
    "REAL",
    "COMPLEX_ABS",
    "HASHTABLE",
    "HASHTABLE_FIND",
    "HASHTABLE_IMPORT",
    "HASHTABLE_SIZE",
    "REDUCE_ALL",
    "CONV_3D_TRANSPOSE",
    "VAR_HANDLE",
    "READ_VARIABLE",
    "ASSIGN_VARIABLE",
    "BROADCAST_ARGS",
    "RANDOM_STANDARD_NORMAL",
    "BUCKETIZE",
    "RANDOM_UNIFORM",
    "MULTINOMIAL",
    "GELU",
    "DYNAMIC_UPDATE_SLICE",
    "RELU_0_TO_1",
    "UNSORTED_SEGMENT_PROD",
    "UNSORTED_SEGMENT_MAX",
    "UNSORTED_SEGMENT_SUM",
    "ATAN2",
    "UNSORTED_SEGMENT_MIN",
    "SIGN",
    "BITCAST",
    "BITWISE_XOR",
    "RIGHT_SHIFT",
    "STABLEHLO_LOGISTIC",
    "STABLEHLO_ADD",
    "STABLEHLO_DIVIDE",
    "STABLEHLO_MULTIPLY",
    "STABLEHLO_MAXIMUM",
    "STABLEHLO_RESHAPE",
    "STABLEHLO_CLAMP",
    "STABLEHLO_CONCATENATE",
    "STABLEHLO_BROADCAST_IN_DIM",
    "STABLEHLO_CONVOLUTION",
    "STABLEHLO_SLICE",
    "STABLEHLO_CUSTOM_CALL",
    "STABLEHLO_REDUCE",
    "STABLEHLO_ABS",
    "STABLEHLO_AND",
    "STABLEHLO_COSINE",
    "STABLEHLO_EXPONENTIAL",
    "STABLEHLO_FLOOR",
    "STABLEHLO_LOG",
    "STABLEHLO_MINIMUM",
    "STABLEHLO_NEGATE",
    "STABLEHLO_OR",
    "STABLEHLO_POWER",
    "STABLEHLO_REMAINDER",
    "STABLEHLO_RSQRT",
    "STABLEHLO_SELECT",
    "STABLEHLO_SUBTRACT",
    "STABLEHLO_TANH",
    "STABLEHLO_SCATTER",
    "STABLEHLO_COMPARE",
    "STABLEHLO_CONVERT",
    "STABLEHLO_DYNAMIC_SLICE",
    "STABLEHLO_DYNAMIC_UPDATE_SLICE",
    "STABLEHLO_PAD",
    "STABLEHLO_IOTA",
    "STABLEHLO_DOT_GENERAL",
    "STABLEHLO_REDUCE_WINDOW",
    "STABLEHLO_SORT",
    "STABLEHLO_WHILE",
    "STABLEHLO_GATHER",
    "STABLEHLO_TRANSPOSE",
    "DILATE",
    "STABLEHLO_RNG_BIT_GENERATOR",
    "REDUCE_WINDOW",
    "STABLEHLO_COMPOSITE",
    "STABLEHLO_SHIFT_LEFT",
    "STABLEHLO_CBRT",
    "STABLEHLO_CASE",
];

impl BuiltinOperator {
    /// How many codes the current schema defines (`0..COUNT`).
    pub const COUNT: usize = 210;

    /// The largest code the current schema defines.
    pub const MAX_KNOWN: Self = Self::STABLEHLO_CASE;

    /// The highest code that still fits the schema-v3 `deprecated_builtin_code` byte; also the
    /// value that byte holds for every larger code.
    pub const MAX_DEPRECATED_BUILTIN_CODE: i8 = 127;

    /// Wraps a raw `int32` code, known or not.
    pub const fn new(code: i32) -> Self {
        Self(code)
    }

    /// The raw `int32` code.
    pub const fn code(self) -> i32 {
        self.0
    }

    /// TensorFlow's name for this code, or `None` for a code the current schema does not
    /// define (negative, or above [`Self::MAX_KNOWN`]).
    pub fn name(self) -> Option<&'static str> {
        usize::try_from(self.0)
            .ok()
            .and_then(|i| NAMES.get(i))
            .copied()
    }

    /// Whether the current schema defines this code.
    pub fn is_known(self) -> bool {
        self.name().is_some()
    }

    /// The code named `name` (TensorFlow's spelling, e.g. `"DEPTHWISE_CONV_2D"`), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        NAMES
            .iter()
            .position(|n| *n == name)
            .and_then(|i| i32::try_from(i).ok())
            .map(Self)
    }

    /// Every code the current schema defines, in ascending order.
    pub fn all() -> impl DoubleEndedIterator<Item = Self> + ExactSizeIterator {
        (0..NAMES.len()).map(|i| Self(i as i32))
    }

    /// Reads an `OperatorCode`'s two code fields: the builtin code is the larger of
    /// `builtin_code` and `deprecated_builtin_code`.
    ///
    /// A schema-v3 file has no `builtin_code` (it reads as its default, 0) and the code in the
    /// byte; a newer file has the real code in `builtin_code` and at most 127 in the byte. The
    /// maximum is right in both cases (TF's `GetBuiltinCode`,
    /// `tensorflow/compiler/mlir/lite/schema/schema_utils.cc`).
    ///
    /// ```
    /// use tflite_opver::BuiltinOperator;
    ///
    /// // schema v3: only the byte
    /// assert_eq!(BuiltinOperator::from_operator_code(0, 3), BuiltinOperator::CONV_2D);
    /// // schema v3a, code above 127: the byte says 127
    /// assert_eq!(BuiltinOperator::from_operator_code(150, 127), BuiltinOperator::GELU);
    /// ```
    pub const fn from_operator_code(builtin_code: i32, deprecated_builtin_code: i8) -> Self {
        let deprecated = deprecated_builtin_code as i32;
        if builtin_code > deprecated {
            Self(builtin_code)
        } else {
            Self(deprecated)
        }
    }

    /// The value a writer puts in `OperatorCode.deprecated_builtin_code` for this code:
    /// `min(code, 127)`, where 127 is [`Self::PLACEHOLDER_FOR_GREATER_OP_CODES`]; the full code
    /// goes in `builtin_code`. (TF's converter, `ConvertBuiltinCodeToDeprecatedBuiltinCode` in
    /// `tensorflow/compiler/mlir/lite/schema/schema_conversion_utils.cc`.)
    ///
    /// Negative codes are not valid builtin codes; they saturate at `i8::MIN` so that the
    /// reading rule still gives back a value no larger than the original.
    ///
    /// ```
    /// use tflite_opver::BuiltinOperator;
    ///
    /// assert_eq!(BuiltinOperator::CONV_2D.deprecated_builtin_code(), 3);
    /// assert_eq!(BuiltinOperator::GELU.deprecated_builtin_code(), 127);
    /// ```
    pub const fn deprecated_builtin_code(self) -> i8 {
        if self.0 >= Self::MAX_DEPRECATED_BUILTIN_CODE as i32 {
            Self::MAX_DEPRECATED_BUILTIN_CODE
        } else if self.0 <= i8::MIN as i32 {
            i8::MIN
        } else {
            self.0 as i8
        }
    }
}

impl From<i32> for BuiltinOperator {
    fn from(code: i32) -> Self {
        Self(code)
    }
}

impl From<BuiltinOperator> for i32 {
    fn from(op: BuiltinOperator) -> Self {
        op.0
    }
}

impl fmt::Display for BuiltinOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "{}", self.0),
        }
    }
}

impl fmt::Debug for BuiltinOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "BuiltinOperator::{name}({})", self.0),
            None => write!(f, "BuiltinOperator({})", self.0),
        }
    }
}

/// An operator version: `OperatorCode.version` in the schema (`int`, default 1).
///
/// Versions start at 1 and grow by one each time an operator gains a feature an older kernel
/// cannot run. The schema allows any `int32`, so a value read from a model is kept as is
/// (even 0 or negative, which no kernel registers) and judged where it is used.
///
/// ```
/// use tflite_opver::OpVersion;
///
/// assert_eq!(OpVersion::default(), OpVersion::new(1));
/// assert!(OpVersion::new(2) > OpVersion::new(1));
/// assert_eq!(OpVersion::new(3).to_string(), "3");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct OpVersion(i32);

impl OpVersion {
    /// Version 1, what an `OperatorCode` without a `version` field means.
    pub const ONE: Self = Self(1);

    /// Wraps a raw `int32` version.
    pub const fn new(version: i32) -> Self {
        Self(version)
    }

    /// The raw `int32` version.
    pub const fn get(self) -> i32 {
        self.0
    }
}

impl Default for OpVersion {
    fn default() -> Self {
        Self::ONE
    }
}

impl From<i32> for OpVersion {
    fn from(version: i32) -> Self {
        Self(version)
    }
}

impl From<OpVersion> for i32 {
    fn from(version: OpVersion) -> Self {
        version.0
    }
}

impl fmt::Display for OpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// What an operator code names: a builtin operator, or a custom operator by its
/// `custom_code` string (whose builtin code is [`BuiltinOperator::CUSTOM`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OperatorKind<'a> {
    /// A builtin operator.
    Builtin(BuiltinOperator),
    /// A custom operator, named by the model's `custom_code`.
    Custom(&'a str),
}

impl OperatorKind<'_> {
    /// The builtin code a model stores for this kind ([`BuiltinOperator::CUSTOM`] for custom
    /// operators).
    pub fn builtin_code(&self) -> BuiltinOperator {
        match *self {
            Self::Builtin(op) => op,
            Self::Custom(_) => BuiltinOperator::CUSTOM,
        }
    }
}

impl fmt::Display for OperatorKind<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Builtin(op) => fmt::Display::fmt(op, f),
            Self::Custom(name) => f.write_str(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips_and_codes_are_dense() {
        assert_eq!(BuiltinOperator::all().len(), BuiltinOperator::COUNT);
        for (i, op) in BuiltinOperator::all().enumerate() {
            assert_eq!(op.code() as usize, i);
            let name = op.name().expect("known code has a name");
            assert_eq!(BuiltinOperator::from_name(name), Some(op), "{name}");
            assert_eq!(op.to_string(), name);
        }
        // names are unique
        let mut names: Vec<_> = NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BuiltinOperator::COUNT);
    }

    #[test]
    fn schema_landmarks() {
        // Spot checks against schema.fbs, so a shifted table cannot pass.
        let cases = [
            (BuiltinOperator::ADD, 0, "ADD"),
            (BuiltinOperator::CONV_2D, 3, "CONV_2D"),
            (BuiltinOperator::RELU_N1_TO_1, 20, "RELU_N1_TO_1"),
            (BuiltinOperator::CUSTOM, 32, "CUSTOM"),
            (BuiltinOperator::DELEGATE, 51, "DELEGATE"),
            (BuiltinOperator::BATCH_MATMUL, 126, "BATCH_MATMUL"),
            (
                BuiltinOperator::PLACEHOLDER_FOR_GREATER_OP_CODES,
                127,
                "PLACEHOLDER_FOR_GREATER_OP_CODES",
            ),
            (BuiltinOperator::CUMSUM, 128, "CUMSUM"),
            (BuiltinOperator::IMAG, 133, "IMAG"),
            (BuiltinOperator::RIGHT_SHIFT, 161, "RIGHT_SHIFT"),
            (
                BuiltinOperator::STABLEHLO_LOGISTIC,
                162,
                "STABLEHLO_LOGISTIC",
            ),
            (BuiltinOperator::DILATE, 203, "DILATE"),
            (BuiltinOperator::REDUCE_WINDOW, 205, "REDUCE_WINDOW"),
            (BuiltinOperator::STABLEHLO_CASE, 209, "STABLEHLO_CASE"),
        ];
        for (op, code, name) in cases {
            assert_eq!(op.code(), code);
            assert_eq!(op.name(), Some(name));
        }
        assert_eq!(BuiltinOperator::MAX_KNOWN.code(), 209);
    }

    #[test]
    fn unknown_codes_print_as_numbers() {
        for code in [-1, i32::MIN, 210, 4000, i32::MAX] {
            let op = BuiltinOperator::new(code);
            assert_eq!(op.name(), None);
            assert!(!op.is_known());
            assert_eq!(op.to_string(), code.to_string());
        }
        assert_eq!(BuiltinOperator::from_name("RELU1"), None);
        assert_eq!(BuiltinOperator::from_name("conv_2d"), None);
        assert_eq!(BuiltinOperator::from_name(""), None);
    }

    #[test]
    fn reading_takes_the_larger_field() {
        // Exhaustive over the byte, against a spread of builtin_code values.
        for byte in i8::MIN..=i8::MAX {
            for builtin in [-5, 0, 1, 3, 126, 127, 128, 150, 209, 300] {
                let got = BuiltinOperator::from_operator_code(builtin, byte).code();
                assert_eq!(got, builtin.max(i32::from(byte)), "({builtin}, {byte})");
            }
        }
        // The three shapes a real file has.
        assert_eq!(
            BuiltinOperator::from_operator_code(0, 3),
            BuiltinOperator::CONV_2D
        );
        assert_eq!(
            BuiltinOperator::from_operator_code(3, 3),
            BuiltinOperator::CONV_2D
        );
        assert_eq!(
            BuiltinOperator::from_operator_code(209, 127),
            BuiltinOperator::STABLEHLO_CASE
        );
    }

    #[test]
    fn writing_caps_the_byte_at_127_and_reads_back() {
        for op in BuiltinOperator::all() {
            let byte = op.deprecated_builtin_code();
            if op.code() < 127 {
                assert_eq!(i32::from(byte), op.code());
            } else {
                assert_eq!(byte, 127, "{op}");
            }
            // What we write reads back as the same code.
            assert_eq!(BuiltinOperator::from_operator_code(op.code(), byte), op);
        }
        assert_eq!(
            BuiltinOperator::new(i32::MAX).deprecated_builtin_code(),
            127
        );
        assert_eq!(BuiltinOperator::new(-1).deprecated_builtin_code(), -1);
        assert_eq!(
            BuiltinOperator::new(-1000).deprecated_builtin_code(),
            i8::MIN
        );
        assert!(BuiltinOperator::from_operator_code(-1000, i8::MIN).code() >= -1000);
    }

    #[test]
    fn operator_kind_codes() {
        assert_eq!(
            OperatorKind::Custom("MyOp").builtin_code(),
            BuiltinOperator::CUSTOM
        );
        assert_eq!(
            OperatorKind::Builtin(BuiltinOperator::ADD).builtin_code(),
            BuiltinOperator::ADD
        );
        assert_eq!(OperatorKind::Custom("MyOp").to_string(), "MyOp");
        assert_eq!(
            OperatorKind::Builtin(BuiltinOperator::ADD).to_string(),
            "ADD"
        );
    }
}
