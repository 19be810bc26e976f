//! The crate's one error type.

/// Everything that can go wrong reading, judging or re-stamping a model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // --- model reading, signatures, stamping (owned by the model/reader work) ---
    /// Fewer bytes than a FlatBuffer header (root offset and file identifier).
    #[error(
        "The model is not a valid Flatbuffer buffer: it is {len} bytes, shorter than the 8-byte header (root offset and \"TFL3\" identifier); is the file truncated?"
    )]
    TooShort {
        /// The buffer's length.
        len: usize,
    },

    /// The file identifier is not `TFL3` (TF's `VerifyModelBuffer` refuses such buffers).
    #[error(
        "The model is not a valid Flatbuffer buffer: file identifier is {:?}, expected \"TFL3\"; is this a .tflite model?",
        String::from_utf8_lossy(found)
    )]
    WrongIdentifier {
        /// The four identifier bytes found at offset 4.
        found: [u8; 4],
    },

    /// An offset, vector length or table points outside the buffer, or a string is not UTF-8.
    #[error(
        "The model is not a valid Flatbuffer buffer: {reason}; the file is truncated or corrupt"
    )]
    MalformedModel {
        /// planus' description of what was wrong and where.
        reason: String,
    },

    /// An operator's `opcode_index` names no operator code (TF: "Missing registration for
    /// opcode_index", `InterpreterBuilder::ParseNodes`, `tensorflow/lite/core/interpreter_builder.cc`).
    #[error(
        "Missing registration for opcode_index {opcode_index}: operator {operator} of subgraph {subgraph} names an operator code, but the model has only {codes}"
    )]
    OpcodeIndexOutOfRange {
        /// Subgraph index.
        subgraph: usize,
        /// Operator index in the subgraph.
        operator: usize,
        /// The index read.
        opcode_index: u32,
        /// Number of operator codes in the model.
        codes: usize,
    },

    /// An operator input or output names no tensor (TF: "Invalid tensor index",
    /// `Subgraph::CheckTensorIndices`, `tensorflow/lite/core/subgraph.cc`).
    #[error(
        "Invalid tensor index {index} in operator {operator} of subgraph {subgraph}. The subgraph has {tensors} tensors (-1 marks an absent optional input)"
    )]
    TensorIndexOutOfRange {
        /// Subgraph index.
        subgraph: usize,
        /// Operator index in the subgraph.
        operator: usize,
        /// The index read.
        index: i32,
        /// Number of tensors in the subgraph.
        tensors: usize,
    },

    /// A caller asked for an operator the model does not have.
    #[error("the model has no operator {operator} in subgraph {subgraph}")]
    NoSuchOperator {
        /// Subgraph index asked for.
        subgraph: usize,
        /// Operator index asked for.
        operator: usize,
    },

    /// Re-stamping needs a table field the model does not have, in a layout this crate cannot
    /// extend without rewriting data it does not understand.
    #[error("cannot re-stamp the model: {reason}")]
    CannotStamp {
        /// What is missing and why it matters.
        reason: String,
    },

    // --- operators, runtime versions, resolvers, delegates ---
    /// A runtime version string that is not dot-separated decimal numbers.
    #[error(
        "invalid runtime version {text:?}: {reason}; expected decimal numbers separated by dots, like \"2.3.0\""
    )]
    InvalidRuntimeVersion {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: &'static str,
    },

    /// A minimum runtime version too long for the 16-byte `min_runtime_version` buffer (TFLite
    /// skips writing it: "Skip writing minimum runtime version string since it's longer than
    /// 16 bytes.", `tensorflow/compiler/mlir/lite/tools/versioning/runtime_version.cc`).
    #[error(
        "minimum runtime version {version} is {len} bytes; the min_runtime_version buffer holds at most 15 and a NUL"
    )]
    RuntimeVersionTooLong {
        /// The version that does not fit.
        version: String,
        /// Its length in bytes.
        len: usize,
    },

    /// A builtin code beyond what the runtime knows (`GetRegistrationFromOpCode`,
    /// `tensorflow/lite/core/api/op_resolver.cc`).
    #[error(
        "Op builtin_code out of range: {code}. Are you using old TFLite binary with newer model?"
    )]
    BuiltinCodeOutOfRange {
        /// The builtin code read from the model.
        code: i32,
    },

    /// No kernel registered for a builtin operator at this exact version
    /// (`GetRegistrationFromOpCode`, `tensorflow/lite/core/api/op_resolver.cc`).
    #[error(
        "Didn't find op for builtin opcode '{op}' version '{version}'. An older version of this builtin might be supported. Are you using an old TFLite binary with a newer model?"
    )]
    BuiltinOpNotFound {
        /// The operator.
        op: crate::operator::BuiltinOperator,
        /// The version the model asks for.
        version: crate::operator::OpVersion,
    },

    /// An operator code says `CUSTOM` but names no custom operator
    /// (`GetRegistrationFromOpCode`, `tensorflow/lite/core/api/op_resolver.cc`).
    #[error("Operator with CUSTOM builtin_code has no custom_code.")]
    MissingCustomCode,

    /// No kernel registered for a custom operator at this version (TFLite's wording from
    /// `Subgraph::OpPrepare`, `tensorflow/lite/core/subgraph.cc`, on one line).
    #[error(
        "Encountered unresolved custom op: {name}. See instructions: https://www.tensorflow.org/lite/guide/ops_custom"
    )]
    UnresolvedCustomOp {
        /// The custom operator's name (`custom_code`).
        name: String,
        /// The version the model asks for.
        version: crate::operator::OpVersion,
    },

    /// A kernel registration whose version range is empty.
    #[error(
        "cannot register {op} for versions {min} to {max}: the first version must not exceed the last"
    )]
    InvalidVersionRange {
        /// The operator being registered (builtin name or custom name).
        op: String,
        /// First version of the range.
        min: crate::operator::OpVersion,
        /// Last version of the range.
        max: crate::operator::OpVersion,
    },

    /// Every operator code of a model that the resolver cannot run, reported together.
    #[error("{} operator code(s) cannot be resolved:{}", failures.len(), crate::resolver::FailureList(failures))]
    UnresolvedOperators {
        /// One error per unresolved operator code, in the model's order.
        failures: Vec<Error>,
    },
}
