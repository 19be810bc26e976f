//! Loader limits: what TFLite's FlatBuffer verifier refuses before any kernel is looked up.
//!
//! Every TFLite loader (`FlatBufferModel::BuildFromFile`, `BuildFromBuffer`,
//! `tf.lite.Interpreter`) runs `VerifyModelBuffer` on the model with a `flatbuffers::Verifier`
//! built from default `Verifier::Options()`. Two of its limits are reachable by real models:
//!
//! - **tables**: the verifier counts every table it visits and gives up above `max_tables`,
//!   1,000,000 by default (`flatbuffers/verifier.h`). Every operator is a table, and so is
//!   its options table, every tensor, buffer, operator code and quantization table: a model
//!   of about a hundred thousand operators can reach it.
//! - **size**: TFLite verifies at most `FLATBUFFERS_MAX_BUFFER_SIZE - 1` bytes (2^31 - 2;
//!   `FLATBUFFERS_MAX_BUFFER_SIZE` is 2^31 - 1 in `flatbuffers/base.h`) from the start of the
//!   file, whatever its length, so a FlatBuffer of 2 GiB or more cannot load. The converter
//!   keeps larger weights outside the FlatBuffer, after it (buffers with an `offset`), which
//!   TFLite reads without verifying: then only the FlatBuffer itself, the bytes before the
//!   first such offset, must stay below the limit.
//!
//! Either way TFLite answers "The model is not a valid Flatbuffer buffer" and nothing more;
//! [`loader_limits`] says which limit, before a model ships.
//!
//! Facts: `tensorflow/compiler/mlir/lite/core/model_builder_base.h`
//! (`VerifyAndBuildFromAllocation`, which `tensorflow/lite/core/model_builder.h` uses): the
//! size truncation to `FLATBUFFERS_MAX_BUFFER_SIZE - 1` and `flatbuffers::Verifier(..,
//! flatbuffers::Verifier::Options())`; `flatbuffers/verifier.h`: `max_depth = 64`,
//! `max_tables = 1000000`, and `VerifyComplexity` counting one per table.

use crate::model::{MAX_MODEL_LEN, Model};

/// The most tables TFLite's verifier accepts in one model: flatbuffers' default `max_tables`
/// (`flatbuffers/verifier.h`), which TFLite does not change
/// (`tensorflow/compiler/mlir/lite/core/model_builder_base.h`).
pub const VERIFIER_MAX_TABLES: usize = 1_000_000;

/// The most bytes TFLite's verifier reads: `FLATBUFFERS_MAX_BUFFER_SIZE - 1`, 2^31 - 2
/// (`tensorflow/compiler/mlir/lite/core/model_builder_base.h`).
pub const VERIFIER_MAX_BYTES: usize = MAX_MODEL_LEN - 1;

/// A limit of TFLite's loader that a model exceeds: TFLite would refuse to load it with "The
/// model is not a valid Flatbuffer buffer".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitWarning {
    /// More tables than the verifier's `max_tables`.
    #[error(
        "the model has {tables} FlatBuffer tables, above the {max} TFLite's verifier accepts \
         (flatbuffers' default max_tables, flatbuffers/verifier.h, kept by \
         tensorflow/compiler/mlir/lite/core/model_builder_base.h): TFLite will refuse it with \
         \"The model is not a valid Flatbuffer buffer\"; split it into several models or \
         share operators"
    )]
    TooManyTables {
        /// The tables the verifier would count (at least).
        tables: usize,
        /// [`VERIFIER_MAX_TABLES`].
        max: usize,
    },
    /// The FlatBuffer is larger than the verifier reads.
    #[error(
        "{}, above the {max} bytes TFLite verifies (FLATBUFFERS_MAX_BUFFER_SIZE - 1, \
         tensorflow/compiler/mlir/lite/core/model_builder_base.h): TFLite will refuse it with \
         \"The model is not a valid Flatbuffer buffer\"; {}",
        if *external_data {
            format!("the model's FlatBuffer is {len} bytes, even with data kept outside it")
        } else {
            format!("the model is {len} bytes and keeps all its data inside the FlatBuffer")
        },
        if *external_data {
            "keep more of its weights outside the FlatBuffer, or split the model"
        } else {
            "keep large weights outside the FlatBuffer, as the converter does above 2 GB"
        }
    )]
    TooLarge {
        /// The FlatBuffer's length in bytes: the model's, or the bytes before its first data
        /// kept outside the FlatBuffer.
        len: usize,
        /// [`VERIFIER_MAX_BYTES`].
        max: usize,
        /// Whether the model keeps some data outside the FlatBuffer.
        external_data: bool,
    },
}

/// A model measured against TFLite's loader limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoaderLimits {
    /// The tables TFLite's verifier would count. A lower bound for sparse tensors: the
    /// crate's schema does not describe `SparsityParameters`' nested tables, so each sparse
    /// tensor's sparsity counts as one table.
    pub tables: usize,
    /// The model's length in bytes.
    pub len: usize,
    /// The FlatBuffer's length in bytes: `len`, or the bytes before the first data kept outside
    /// the FlatBuffer ([`Model::flatbuffer_len`]).
    pub flatbuffer_len: usize,
    /// Whether some buffer keeps its data outside the FlatBuffer (which is not verified).
    pub external_data: bool,
}

impl LoaderLimits {
    /// Every limit the model exceeds; empty when TFLite's verifier accepts it on these counts.
    pub fn warnings(&self) -> Vec<LimitWarning> {
        let mut warnings = Vec::new();
        if self.tables > VERIFIER_MAX_TABLES {
            warnings.push(LimitWarning::TooManyTables {
                tables: self.tables,
                max: VERIFIER_MAX_TABLES,
            });
        }
        if self.flatbuffer_len > VERIFIER_MAX_BYTES {
            warnings.push(LimitWarning::TooLarge {
                len: self.flatbuffer_len,
                max: VERIFIER_MAX_BYTES,
                external_data: self.external_data,
            });
        }
        warnings
    }
}

/// Measures `model` against TFLite's loader limits: counts the FlatBuffer tables its verifier
/// would visit (the model, each operator code, subgraph, tensor, quantization and sparsity
/// table, variant subtype, operator, options table, buffer, metadata entry, signature and
/// tensor map).
///
/// ```
/// use tflite_opver::{
///     BuiltinOperator, ElementType, Model, ModelBuilder, OpSignature, OpVersion, TensorSpec,
///     loader_limits, params::{AddParams, Params},
/// };
///
/// let t = TensorSpec::new(ElementType::Float32, &[1, 4]);
/// let add = OpSignature::new(
///     BuiltinOperator::ADD,
///     vec![t.clone(), t.clone()],
///     vec![t],
///     Params::Add(AddParams::default()),
/// );
/// let bytes = ModelBuilder::new().signature(&add, OpVersion::ONE).finish();
/// let limits = loader_limits(&Model::from_bytes(&bytes)?);
/// // Model, operator code, subgraph, 3 tensors, operator, AddOptions, buffer.
/// assert_eq!(limits.tables, 9);
/// assert!(limits.warnings().is_empty());
/// # Ok::<(), tflite_opver::Error>(())
/// ```
pub fn loader_limits(model: &Model<'_>) -> LoaderLimits {
    LoaderLimits {
        tables: model.flatbuffer_tables(),
        len: model.bytes().len(),
        flatbuffer_len: model.flatbuffer_len(),
        external_data: model.has_external_data(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// Limits of a model of `len` bytes whose FlatBuffer, when it keeps data outside it, ends
    /// at `external_from`.
    fn limits(tables: usize, len: usize, external_from: Option<usize>) -> LoaderLimits {
        LoaderLimits {
            tables,
            len,
            flatbuffer_len: external_from.unwrap_or(len),
            external_data: external_from.is_some(),
        }
    }

    #[test]
    fn table_limit_is_strictly_above_a_million() {
        assert!(limits(1_000_000, 100, None).warnings().is_empty());
        assert_eq!(
            limits(1_000_001, 100, None).warnings(),
            [LimitWarning::TooManyTables {
                tables: 1_000_001,
                max: 1_000_000
            }]
        );
    }

    #[test]
    fn size_limit_is_two_gib_minus_two_without_external_data() {
        assert_eq!(VERIFIER_MAX_BYTES, (1 << 31) - 2);
        assert!(limits(1, VERIFIER_MAX_BYTES, None).warnings().is_empty());
        let too_large = limits(1, VERIFIER_MAX_BYTES + 1, None).warnings();
        assert_eq!(
            too_large,
            [LimitWarning::TooLarge {
                len: (1 << 31) - 1,
                max: (1 << 31) - 2,
                external_data: false,
            }]
        );
        let text = too_large[0].to_string();
        assert!(text.contains("FLATBUFFERS_MAX_BUFFER_SIZE - 1"), "{text}");
        assert!(text.contains("keeps all its data inside"), "{text}");
        // Data kept outside the FlatBuffer is not verified...
        assert!(limits(1, usize::MAX, Some(1 << 30)).warnings().is_empty());
        assert!(
            limits(1, usize::MAX, Some(VERIFIER_MAX_BYTES))
                .warnings()
                .is_empty()
        );
        assert_eq!(limits(2_000_000, usize::MAX, None).warnings().len(), 2);
    }

    /// ... but the FlatBuffer before it is: TFLite verifies the first 2^31 - 2 bytes of the
    /// file whatever follows them.
    #[test]
    fn a_flatbuffer_past_the_limit_is_refused_even_with_data_outside_it() {
        let too_large = limits(1, usize::MAX, Some(VERIFIER_MAX_BYTES + 1)).warnings();
        assert_eq!(
            too_large,
            [LimitWarning::TooLarge {
                len: (1 << 31) - 1,
                max: (1 << 31) - 2,
                external_data: true,
            }]
        );
        let text = too_large[0].to_string();
        assert!(text.contains("even with data kept outside it"), "{text}");
        assert!(text.contains("split the model"), "{text}");
    }
}
