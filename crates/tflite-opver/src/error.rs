//! The crate's one error type, [`Error`], and the families it groups.
//!
//! As in rustls, the top-level enum is small and each large group of causes is an enum of its
//! own that a caller can match on: [`DecodeError`] (the bytes are not a model TFLite would
//! load), [`ResolveError`] (a runtime has no kernel for an operator code, in TFLite's own
//! words) and [`StampError`] (a model cannot be re-stamped in place). The family variants of
//! [`Error`] are transparent: `error.to_string()` is the family's message, byte for byte.
//!
//! Messages that TFLite has are TFLite's, to the byte (each variant names the TF file); the
//! others say what was wrong and what to do.

use std::fmt;

use crate::operator::code::{BuiltinOperator, OpVersion};

/// Everything that can go wrong reading, judging or re-stamping a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a model TFLite would load.
    #[error(transparent)]
    Decode(#[from] DecodeError),

    /// A runtime has no kernel for one operator code.
    #[error(transparent)]
    Unresolved(#[from] ResolveError),

    /// Every operator code of a model that a resolver cannot run, reported together.
    #[error("{} operator code(s) cannot be resolved:{}", failures.len(), FailureList(failures))]
    UnresolvedOperators {
        /// One error per unresolved operator code, in the model's order.
        failures: Vec<ResolveError>,
    },

    /// The model cannot be re-stamped without rewriting data this crate does not understand.
    #[error(transparent)]
    Stamp(#[from] StampError),

    /// A caller asked for an operator the model does not have.
    #[error("the model has no operator {operator} in subgraph {subgraph}")]
    NoSuchOperator {
        /// Subgraph index asked for.
        subgraph: usize,
        /// Operator index asked for.
        operator: usize,
    },

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

    /// A runtime name that names none of the runtimes covered ([`Runtime::all`](crate::runtimes::installed::Runtime::all)).
    #[error(
        "unknown runtime {name:?}: name one as its users do, as \"ai-edge-litert 2.3.0\"; the runtimes covered are {}",
        known_runtimes()
    )]
    UnknownRuntime {
        /// The name as given.
        name: String,
    },

    /// A kernel registration whose version range is empty.
    #[error(
        "cannot register {op} for versions {min} to {max}: the first version must not exceed the last"
    )]
    InvalidVersionRange {
        /// The operator being registered (builtin name or custom name).
        op: String,
        /// First version of the range.
        min: OpVersion,
        /// Last version of the range.
        max: OpVersion,
    },
}

/// Why bytes are not a model TFLite would load.
///
/// The first three are TF's `VerifyModelBuffer` refusals; the index checks are the ones
/// `InterpreterBuilder` and `Subgraph` make before running anything.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
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

    /// An offset, vector length or table points outside the buffer, a string is not UTF-8, or
    /// a vtable is malformed: planus' report is the [`source`](std::error::Error::source).
    #[error("The model is not a valid Flatbuffer buffer: the file is truncated or corrupt")]
    Malformed(#[source] FlatBufferError),

    /// The file ends before a part of the model its own offsets point at: planus found an
    /// offset or a length past the end of the buffer. The message names the part in TFLite's
    /// words; planus' report is kept in `planus` (not as the error's source, so that a chain of
    /// sources printed for a user ends in these words).
    #[error(
        "the model is cut off: {part} lies past the end of the file (file is {len} bytes); the file was probably truncated while copying or downloading: copy or download it again"
    )]
    CutOff {
        /// The part of the model that lies past the end: "its operator codes table".
        part: String,
        /// The file's length in bytes.
        len: usize,
        /// planus' report: the table and field it was reading, and the offset.
        planus: Box<FlatBufferError>,
    },

    /// A table, vector or field that the re-stamper reads lies outside the buffer.
    #[error(
        "The model is not a valid Flatbuffer buffer: {what} lies outside the buffer; the file is truncated or corrupt"
    )]
    OutOfBounds {
        /// What was being read.
        what: &'static str,
    },

    /// A subgraph lists more operator tensor indices than a `u32` counts.
    #[error(
        "The model is not a valid Flatbuffer buffer: a subgraph lists more than 2^32 operator tensor indices; the file is corrupt"
    )]
    TooManyTensorIndices,

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
}

/// Why a runtime cannot run one operator code: TFLite's `GetRegistrationFromOpCode`
/// (`tensorflow/lite/core/api/op_resolver.cc`) and `Subgraph::OpPrepare`
/// (`tensorflow/lite/core/subgraph.cc`), in their words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// A builtin code beyond what the runtime knows.
    #[error(
        "Op builtin_code out of range: {code}. Are you using old TFLite binary with newer model?"
    )]
    BuiltinCodeOutOfRange {
        /// The builtin code read from the model.
        code: i32,
    },

    /// No kernel registered for a builtin operator at this exact version.
    #[error(
        "Didn't find op for builtin opcode '{op}' version '{version}'. An older version of this builtin might be supported. Are you using an old TFLite binary with a newer model?"
    )]
    BuiltinOpNotFound {
        /// The operator.
        op: BuiltinOperator,
        /// The version the model asks for.
        version: OpVersion,
    },

    /// An operator code says `CUSTOM` but names no custom operator.
    #[error("Operator with CUSTOM builtin_code has no custom_code.")]
    MissingCustomCode,

    /// No kernel registered for a custom operator at this version (TFLite's wording from
    /// `Subgraph::OpPrepare`, on one line).
    #[error(
        "Encountered unresolved custom op: {name}. See instructions: https://www.tensorflow.org/lite/guide/ops_custom"
    )]
    UnresolvedCustomOp {
        /// The custom operator's name (`custom_code`).
        name: String,
        /// The version the model asks for.
        version: OpVersion,
    },

    /// A Select TensorFlow op (a custom op named `Flex...`, kept by the converter's
    /// `SELECT_TF_OPS`) and no kernel for it: only the Flex delegate runs it (TFLite's wording
    /// from `Subgraph::OpPrepare`, `tensorflow/lite/core/subgraph.cc`, on one line).
    #[error(
        "Select TensorFlow op(s), included in the given model, is(are) not supported by this interpreter. Make sure you apply/link the Flex delegate before inference. ({name})"
    )]
    FlexOpNotApplied {
        /// The op's name (`custom_code`), `Flex` and the TensorFlow op.
        name: String,
        /// The version the model asks for.
        version: OpVersion,
    },
}

/// Why a model cannot be re-stamped: a field it needs is missing and cannot be added without
/// rewriting data this crate does not understand, or the patched model would not be the same
/// model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StampError {
    /// The model's tables overlap, so patching one field would change another (a hostile or
    /// hand-made layout; the converter never writes one).
    #[error(
        "cannot re-stamp the model: its tables overlap, so patching one field would change another"
    )]
    TablesOverlap,

    /// Adding the missing fields would need an offset beyond FlatBuffers' 32-bit range.
    #[error("cannot re-stamp the model: the extended model would need an offset beyond 4 GiB")]
    OffsetOverflow,

    /// The model keeps data outside the FlatBuffer at absolute file offsets (models over 2 GB),
    /// which adding fields in front would move.
    #[error(
        "cannot re-stamp the model: the model keeps data outside the FlatBuffer at absolute file offsets (models over 2 GB); adding fields would move it"
    )]
    ExternalData,

    /// The `Model` table has fields newer than this crate's schema, which a rewritten table
    /// would lose.
    #[error("cannot re-stamp the model: its Model table has fields newer than this crate's schema")]
    NewerModelFields,

    /// An `OperatorCode` table has fields newer than this crate's schema.
    #[error(
        "cannot re-stamp the model: operator code {code} has fields newer than this crate's schema"
    )]
    NewerOperatorCodeFields {
        /// The operator code's index.
        code: usize,
    },
}

/// planus' report of a FlatBuffer it could not read, kept whole as this error's
/// [`source`](std::error::Error::source).
///
/// planus' error is only `Copy + Clone + Debug`; this wrapper gives it the derives the crate's
/// errors share. Two are equal when planus reported the same kind of error, with the same
/// details (tag, length, UTF-8 position), at the same place (type, method and byte offset).
#[derive(Debug, Clone, Copy)]
pub struct FlatBufferError(planus::Error);

impl FlatBufferError {
    /// planus' error itself: where (`source_location`) and what (`error_kind`).
    pub fn planus(&self) -> &planus::Error {
        &self.0
    }
}

impl From<planus::Error> for FlatBufferError {
    fn from(error: planus::Error) -> Self {
        Self(error)
    }
}

impl fmt::Display for FlatBufferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("planus could not read the FlatBuffer")
    }
}

impl std::error::Error for FlatBufferError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl PartialEq for FlatBufferError {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&self.0.source_location, &other.0.source_location);
        // planus' error kinds carry plain data (tags, lengths, a `Utf8Error`), all of it in
        // their `Debug` text: equal text, equal kind and details.
        a.type_ == b.type_
            && a.method == b.method
            && a.byte_offset == b.byte_offset
            && format!("{:?}", self.0.error_kind) == format!("{:?}", other.0.error_kind)
    }
}

impl Eq for FlatBufferError {}

/// Turns a planus error into ours, keeping planus' report whole as the source.
pub(crate) fn malformed(error: planus::Error) -> Error {
    DecodeError::Malformed(error.into()).into()
}

/// A planus error that is an offset or length past the end of `len` bytes becomes
/// [`DecodeError::CutOff`], naming the part of the model it was reading; any other error is
/// returned as it is.
pub(crate) fn cut_off(error: Error, len: usize) -> Error {
    let Error::Decode(DecodeError::Malformed(flatbuffer)) = &error else {
        return error;
    };
    let planus = flatbuffer.planus();
    if !matches!(
        planus.error_kind,
        planus::errors::ErrorKind::InvalidOffset | planus::errors::ErrorKind::InvalidLength
    ) {
        return error;
    }
    let location = &planus.source_location;
    DecodeError::CutOff {
        part: part_name(location.type_, location.method),
        len,
        planus: Box::new(*flatbuffer),
    }
    .into()
}

/// A schema table's field in a user's words: `("Model", "operator_codes")` is "its operator
/// codes table", `("Tensor", "shape")` "a tensor's shape".
fn part_name(table: &str, field: &str) -> String {
    let field = field.replace('_', " ");
    let owner = match table {
        "Model" => return format!("its {field} table"),
        "SubGraph" => "a subgraph",
        "Tensor" => "a tensor",
        "Operator" => "an operator",
        "OperatorCode" => "an operator code",
        "Buffer" => "a buffer",
        "Metadata" => "a metadata entry",
        "SignatureDef" => "a signature",
        "QuantizationParameters" => "a tensor's quantization",
        "SparsityParameters" => "a tensor's sparsity",
        _ => return format!("the {field} of a {table} table"),
    };
    if field.is_empty() {
        owner.to_owned()
    } else {
        format!("{owner}'s {field}")
    }
}

/// Every runtime's name, for [`Error::UnknownRuntime`]: the runtime table's, as
/// [`Runtime`](crate::runtimes::installed::Runtime) prints them (`family version`; a test in
/// `runtimes/installed.rs` checks the two agree). Read from the table itself, not through
/// `Runtime`, so that the error type depends on no part of the crate that returns it.
fn known_runtimes() -> String {
    let names: Vec<String> = crate::generated::runtimes::RUNTIMES
        .iter()
        .map(|facts| format!("{} {}", facts.family, facts.version))
        .collect();
    names.join(", ")
}

/// Formats [`Error::UnresolvedOperators`]'s list: one failure per line.
struct FailureList<'a>(&'a [ResolveError]);

impl fmt::Display for FailureList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for failure in self.0 {
            write!(f, "\n  {failure}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planus_error(byte_offset: usize, kind: planus::errors::ErrorKind) -> FlatBufferError {
        FlatBufferError(planus::Error {
            source_location: planus::errors::ErrorLocation {
                type_: "Model",
                method: "subgraphs",
                byte_offset,
            },
            error_kind: kind,
        })
    }

    #[test]
    fn flatbuffer_errors_compare_by_place_kind_and_details() {
        use planus::errors::ErrorKind;
        let invalid = planus_error(8, ErrorKind::InvalidOffset);
        assert_eq!(invalid, planus_error(8, ErrorKind::InvalidOffset));
        assert_ne!(invalid, planus_error(12, ErrorKind::InvalidOffset));
        assert_ne!(invalid, planus_error(8, ErrorKind::InvalidLength));
        assert_ne!(
            planus_error(8, ErrorKind::UnknownUnionTag { tag: 1 }),
            planus_error(8, ErrorKind::UnknownUnionTag { tag: 2 })
        );
    }

    #[test]
    fn a_malformed_model_keeps_planus_error_as_its_source() {
        use std::error::Error as _;
        let error = Error::from(DecodeError::Malformed(planus_error(
            8,
            planus::errors::ErrorKind::InvalidOffset,
        )));
        let wrapper = error.source().expect("the wrapper");
        let planus = wrapper.source().expect("planus' error");
        assert!(planus.to_string().contains("Invalid offset"), "{planus}");
        assert!(!error.to_string().contains("Invalid offset"));
    }
}
