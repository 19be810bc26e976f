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

/// Declares TensorFlow's builtin operators from one table: each row becomes an associated
/// constant of [`BuiltinOperator`] and the name at its index in `NAMES`, so the two cannot
/// drift. The codes must run 0, 1, 2... in order; a compile-time check enforces it.
macro_rules! builtin_operators {
    ($($name:ident = $code:literal,)*) => {
        impl BuiltinOperator {
            $(
                #[doc = concat!("`", stringify!($name), "` (builtin code ", stringify!($code), ").")]
                pub const $name: Self = Self($code);
            )*
        }

        /// TensorFlow's names, indexed by builtin code (`enum BuiltinOperator` in
        /// `tensorflow/compiler/mlir/lite/schema/schema.fbs`).
        const NAMES: &[&str] = &[$(stringify!($name),)*];

        // The table's codes are dense and in order, so a name's index is its code.
        const _: () = {
            let codes: &[i32] = &[$($code,)*];
            let mut i = 0;
            while i < codes.len() {
                assert!(codes[i] as usize == i, "builtin codes must run 0, 1, 2... in order");
                i += 1;
            }
        };
    };
}

// `enum BuiltinOperator` of `tensorflow/compiler/mlir/lite/schema/schema.fbs`, in order.
builtin_operators! {
    ADD = 0,
    AVERAGE_POOL_2D = 1,
    CONCATENATION = 2,
    CONV_2D = 3,
    DEPTHWISE_CONV_2D = 4,
    DEPTH_TO_SPACE = 5,
    DEQUANTIZE = 6,
    EMBEDDING_LOOKUP = 7,
    FLOOR = 8,
    FULLY_CONNECTED = 9,
    HASHTABLE_LOOKUP = 10,
    L2_NORMALIZATION = 11,
    L2_POOL_2D = 12,
    LOCAL_RESPONSE_NORMALIZATION = 13,
    LOGISTIC = 14,
    LSH_PROJECTION = 15,
    LSTM = 16,
    MAX_POOL_2D = 17,
    MUL = 18,
    RELU = 19,
    RELU_N1_TO_1 = 20,
    RELU6 = 21,
    RESHAPE = 22,
    RESIZE_BILINEAR = 23,
    RNN = 24,
    SOFTMAX = 25,
    SPACE_TO_DEPTH = 26,
    SVDF = 27,
    TANH = 28,
    CONCAT_EMBEDDINGS = 29,
    SKIP_GRAM = 30,
    CALL = 31,
    CUSTOM = 32,
    EMBEDDING_LOOKUP_SPARSE = 33,
    PAD = 34,
    UNIDIRECTIONAL_SEQUENCE_RNN = 35,
    GATHER = 36,
    BATCH_TO_SPACE_ND = 37,
    SPACE_TO_BATCH_ND = 38,
    TRANSPOSE = 39,
    MEAN = 40,
    SUB = 41,
    DIV = 42,
    SQUEEZE = 43,
    UNIDIRECTIONAL_SEQUENCE_LSTM = 44,
    STRIDED_SLICE = 45,
    BIDIRECTIONAL_SEQUENCE_RNN = 46,
    EXP = 47,
    TOPK_V2 = 48,
    SPLIT = 49,
    LOG_SOFTMAX = 50,
    DELEGATE = 51,
    BIDIRECTIONAL_SEQUENCE_LSTM = 52,
    CAST = 53,
    PRELU = 54,
    MAXIMUM = 55,
    ARG_MAX = 56,
    MINIMUM = 57,
    LESS = 58,
    NEG = 59,
    PADV2 = 60,
    GREATER = 61,
    GREATER_EQUAL = 62,
    LESS_EQUAL = 63,
    SELECT = 64,
    SLICE = 65,
    SIN = 66,
    TRANSPOSE_CONV = 67,
    SPARSE_TO_DENSE = 68,
    TILE = 69,
    EXPAND_DIMS = 70,
    EQUAL = 71,
    NOT_EQUAL = 72,
    LOG = 73,
    SUM = 74,
    SQRT = 75,
    RSQRT = 76,
    SHAPE = 77,
    POW = 78,
    ARG_MIN = 79,
    FAKE_QUANT = 80,
    REDUCE_PROD = 81,
    REDUCE_MAX = 82,
    PACK = 83,
    LOGICAL_OR = 84,
    ONE_HOT = 85,
    LOGICAL_AND = 86,
    LOGICAL_NOT = 87,
    UNPACK = 88,
    REDUCE_MIN = 89,
    FLOOR_DIV = 90,
    REDUCE_ANY = 91,
    SQUARE = 92,
    ZEROS_LIKE = 93,
    FILL = 94,
    FLOOR_MOD = 95,
    RANGE = 96,
    RESIZE_NEAREST_NEIGHBOR = 97,
    LEAKY_RELU = 98,
    SQUARED_DIFFERENCE = 99,
    MIRROR_PAD = 100,
    ABS = 101,
    SPLIT_V = 102,
    UNIQUE = 103,
    CEIL = 104,
    REVERSE_V2 = 105,
    ADD_N = 106,
    GATHER_ND = 107,
    COS = 108,
    WHERE = 109,
    RANK = 110,
    ELU = 111,
    REVERSE_SEQUENCE = 112,
    MATRIX_DIAG = 113,
    QUANTIZE = 114,
    MATRIX_SET_DIAG = 115,
    ROUND = 116,
    HARD_SWISH = 117,
    IF = 118,
    WHILE = 119,
    NON_MAX_SUPPRESSION_V4 = 120,
    NON_MAX_SUPPRESSION_V5 = 121,
    SCATTER_ND = 122,
    SELECT_V2 = 123,
    DENSIFY = 124,
    SEGMENT_SUM = 125,
    BATCH_MATMUL = 126,
    PLACEHOLDER_FOR_GREATER_OP_CODES = 127,
    CUMSUM = 128,
    CALL_ONCE = 129,
    BROADCAST_TO = 130,
    RFFT2D = 131,
    CONV_3D = 132,
    IMAG = 133,
    REAL = 134,
    COMPLEX_ABS = 135,
    HASHTABLE = 136,
    HASHTABLE_FIND = 137,
    HASHTABLE_IMPORT = 138,
    HASHTABLE_SIZE = 139,
    REDUCE_ALL = 140,
    CONV_3D_TRANSPOSE = 141,
    VAR_HANDLE = 142,
    READ_VARIABLE = 143,
    ASSIGN_VARIABLE = 144,
    BROADCAST_ARGS = 145,
    RANDOM_STANDARD_NORMAL = 146,
    BUCKETIZE = 147,
    RANDOM_UNIFORM = 148,
    MULTINOMIAL = 149,
    GELU = 150,
    DYNAMIC_UPDATE_SLICE = 151,
    RELU_0_TO_1 = 152,
    UNSORTED_SEGMENT_PROD = 153,
    UNSORTED_SEGMENT_MAX = 154,
    UNSORTED_SEGMENT_SUM = 155,
    ATAN2 = 156,
    UNSORTED_SEGMENT_MIN = 157,
    SIGN = 158,
    BITCAST = 159,
    BITWISE_XOR = 160,
    RIGHT_SHIFT = 161,
    STABLEHLO_LOGISTIC = 162,
    STABLEHLO_ADD = 163,
    STABLEHLO_DIVIDE = 164,
    STABLEHLO_MULTIPLY = 165,
    STABLEHLO_MAXIMUM = 166,
    STABLEHLO_RESHAPE = 167,
    STABLEHLO_CLAMP = 168,
    STABLEHLO_CONCATENATE = 169,
    STABLEHLO_BROADCAST_IN_DIM = 170,
    STABLEHLO_CONVOLUTION = 171,
    STABLEHLO_SLICE = 172,
    STABLEHLO_CUSTOM_CALL = 173,
    STABLEHLO_REDUCE = 174,
    STABLEHLO_ABS = 175,
    STABLEHLO_AND = 176,
    STABLEHLO_COSINE = 177,
    STABLEHLO_EXPONENTIAL = 178,
    STABLEHLO_FLOOR = 179,
    STABLEHLO_LOG = 180,
    STABLEHLO_MINIMUM = 181,
    STABLEHLO_NEGATE = 182,
    STABLEHLO_OR = 183,
    STABLEHLO_POWER = 184,
    STABLEHLO_REMAINDER = 185,
    STABLEHLO_RSQRT = 186,
    STABLEHLO_SELECT = 187,
    STABLEHLO_SUBTRACT = 188,
    STABLEHLO_TANH = 189,
    STABLEHLO_SCATTER = 190,
    STABLEHLO_COMPARE = 191,
    STABLEHLO_CONVERT = 192,
    STABLEHLO_DYNAMIC_SLICE = 193,
    STABLEHLO_DYNAMIC_UPDATE_SLICE = 194,
    STABLEHLO_PAD = 195,
    STABLEHLO_IOTA = 196,
    STABLEHLO_DOT_GENERAL = 197,
    STABLEHLO_REDUCE_WINDOW = 198,
    STABLEHLO_SORT = 199,
    STABLEHLO_WHILE = 200,
    STABLEHLO_GATHER = 201,
    STABLEHLO_TRANSPOSE = 202,
    DILATE = 203,
    STABLEHLO_RNG_BIT_GENERATOR = 204,
    REDUCE_WINDOW = 205,
    STABLEHLO_COMPOSITE = 206,
    STABLEHLO_SHIFT_LEFT = 207,
    STABLEHLO_CBRT = 208,
    STABLEHLO_CASE = 209,
}

impl BuiltinOperator {
    /// How many codes the current schema defines (`0..COUNT`).
    pub const COUNT: usize = NAMES.len();

    /// The largest code the current schema defines.
    pub const MAX_KNOWN: Self = Self(Self::COUNT as i32 - 1);

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
