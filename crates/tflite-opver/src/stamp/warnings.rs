//! What a model's stamps get wrong: versions stored lower than its operators need, and a
//! missing or understated `min_runtime_version`.
//!
//! Real models ship like this. Models in public PyPI wheels store DEQUANTIZE at version 2
//! where TF's rules require 3 (int16 input), or RESIZE_BILINEAR at 1 where they require 3;
//! some have no `min_runtime_version` metadata entry, and some no metadata vector at all.
//! None of these stop a current TFLite from running the model: its kernels are registered for
//! a range of versions and look at the tensors themselves. A version stored too low is a fact
//! about the file: a runtime that registers the stored version but not the required one runs
//! the model with no version check in the way ([`Model::stored_too_low`] names the known
//! ones), and whether its kernel handles the operators cannot be read from versions. Measured
//! on the thirty runtimes, most such models ran correctly on all of them, and the real
//! failures were mostly in kernels the version rules do not encode; re-stamping makes those
//! runtimes refuse the model ([`Model::restamp_refused_by`] says which), and a missing or
//! understated minimum runtime tells the user nothing.
//! [`Model::stamp_warnings`] lists each; [`stamp`](crate::stamp()) fixes them all.
//!
//! Facts: `tensorflow/lite/tools/versioning/runtime_version.cc`,
//! `UpdateMinimumRuntimeVersionForModel`: it loops over `model->metadata()->size()` without
//! checking that the vector exists (a model without one crashes it), and copies the version
//! only into an existing `min_runtime_version` entry (a model without one stays without).
//! `tensorflow/lite/tools/versioning/op_version.cc`, `UpdateOpVersion`: it raises a version only
//! where the field is stored (a code written with the default 1 left out stays at 1, with the
//! log "Can't set operator ... to version ..."); [`stamp`](crate::stamp()) adds the field.

use crate::model::Model;
use crate::operator::code::{BuiltinOperator, OpVersion};
use crate::rules::tensorflow::VersionReason;
use crate::runtimes::min_runtime::RuntimeVersion;

/// A stamp of the model that is lower than what its operators need, or missing
/// ([`Model::stamp_warnings`]). The model still loads in a current TFLite; re-stamping it
/// ([`stamp`](crate::stamp())) removes every one of these.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StampWarning {
    /// An operator code's stored version is lower than its operators need by TF's rules.
    #[error(
        "operator code {code} ({}) is stored as version {stored}, but its operators need \
         version {required} ({}) by TF's rules: a runtime that registers version {stored} but \
         not {required} meets no version check, and whether its kernel handles these operators \
         cannot be read from versions; re-stamped, the model would be refused by such runtimes \
         (`tflite-opver runtimes` names the known ones; TF's UpdateOpVersion, \
         tensorflow/lite/tools/versioning/op_version.cc, raises a version only where the model \
         stores the version field, not where it was left out as the default 1)",
        op.name().unwrap_or("an unknown builtin"),
        reason.rule()
    )]
    VersionTooLow {
        /// The index of the operator code in `operator_codes`.
        code: usize,
        /// Its builtin operator.
        op: BuiltinOperator,
        /// The version stored in the model.
        stored: OpVersion,
        /// The version its operators need.
        required: OpVersion,
        /// Which of TF's rules set `required`.
        reason: VersionReason,
    },
    /// The model has no metadata vector at all, so no `min_runtime_version`.
    #[error(
        "the model has no metadata, so no min_runtime_version (it needs \"{required}\"): \
         TF's UpdateMinimumRuntimeVersionForModel \
         (tensorflow/lite/tools/versioning/runtime_version.cc) reads the metadata vector \
         without checking that it exists and crashes on this model; re-stamping adds the \
         vector, the entry and its buffer"
    )]
    NoMetadata {
        /// The minimum runtime the model needs at its required versions.
        required: RuntimeVersion,
    },
    /// The model has metadata, but no `min_runtime_version` entry.
    #[error(
        "the model has no min_runtime_version metadata entry (it needs \"{required}\"): TF's \
         UpdateMinimumRuntimeVersionForModel (tensorflow/lite/tools/versioning/runtime_version.cc) \
         only overwrites an existing entry and leaves it missing; re-stamping adds the entry \
         and its buffer"
    )]
    NoMinRuntimeVersion {
        /// The minimum runtime the model needs at its required versions.
        required: RuntimeVersion,
    },
    /// The stored `min_runtime_version` is lower than the model needs (or empty).
    #[error(
        "the stored min_runtime_version {stored:?} is lower than the \"{required}\" its \
         operators need at their required versions (`tflite-opver stamp` rewrites it; the \
         metadata is informational, no runtime reads it when it loads a model)"
    )]
    MinRuntimeVersionTooLow {
        /// The stored text.
        stored: String,
        /// The minimum runtime the model needs at its required versions.
        required: RuntimeVersion,
    },
}

impl StampWarning {
    /// The operator code the warning is about, for [`StampWarning::VersionTooLow`].
    pub fn operator_code(&self) -> Option<usize> {
        match self {
            Self::VersionTooLow { code, .. } => Some(*code),
            _ => None,
        }
    }
}

impl Model<'_> {
    /// Every stamp of the model lower than its operators need, or missing: operator codes
    /// stored below their required version (builtin codes only: TF's rules do not judge
    /// custom ops), then the `min_runtime_version` (no metadata vector, no entry, or a stored
    /// version below the one needed at the required versions; nothing when no operator has an
    /// entry in TF's table, since TF would then write nothing either).
    ///
    /// ```
    /// use tflite_opver::{
    ///     BuiltinOperator, ElementType, Model, ModelBuilder, OpSignature, OpVersion, StampMode,
    ///     StampWarning, TensorSpec, stamp, params::Params,
    /// };
    ///
    /// let int16 = TensorSpec::new(ElementType::Int16, &[1, 4]);
    /// let relu = OpSignature::new(BuiltinOperator::RELU, vec![int16.clone()], vec![int16], Params::None);
    /// // Stored as version 1 (int16 RELU needs 3), and without any metadata.
    /// let bytes = ModelBuilder::new().signature(&relu, OpVersion::ONE).finish();
    /// let warnings = Model::from_bytes(&bytes)?.stamp_warnings();
    /// assert!(matches!(warnings[0], StampWarning::VersionTooLow { code: 0, .. }));
    /// assert!(matches!(warnings[1], StampWarning::NoMetadata { .. }));
    ///
    /// let stamped = stamp(&bytes, StampMode::Raise)?;
    /// assert!(Model::from_bytes(&stamped.bytes)?.stamp_warnings().is_empty());
    /// # Ok::<(), tflite_opver::Error>(())
    /// ```
    pub fn stamp_warnings(&self) -> Vec<StampWarning> {
        self.stamp_warnings_for(&self.required_version_reasons())
    }

    /// [`Model::stamp_warnings`] from reasons already computed by
    /// [`Model::required_version_reasons`] (or its `_with` form), one per operator code.
    pub fn stamp_warnings_for(&self, reasons: &[VersionReason]) -> Vec<StampWarning> {
        let mut warnings: Vec<StampWarning> = self
            .operator_codes()
            .iter()
            .zip(reasons)
            .enumerate()
            .filter(|(_, (code, reason))| !code.is_custom() && reason.version() > code.version)
            .map(|(i, (code, reason))| StampWarning::VersionTooLow {
                code: i,
                op: code.builtin,
                stored: code.version,
                required: reason.version(),
                reason: reason.clone(),
            })
            .collect();
        let required: Vec<OpVersion> = reasons.iter().map(VersionReason::version).collect();
        let Some(required) = self.min_runtime_version_with(&required) else {
            return warnings;
        };
        let runtime = if !self.has_metadata() {
            Some(StampWarning::NoMetadata { required })
        } else {
            match self.runtime_metadata() {
                None => Some(StampWarning::NoMinRuntimeVersion { required }),
                Some(entry) => {
                    let stored = entry.text().unwrap_or_default();
                    // An empty text is TF's "no operator has an entry"; text that does not
                    // parse is not ours to judge.
                    let lower = stored.is_empty()
                        || stored
                            .parse::<RuntimeVersion>()
                            .is_ok_and(|stored| stored < required);
                    lower.then(|| StampWarning::MinRuntimeVersionTooLow {
                        stored: stored.to_owned(),
                        required,
                    })
                }
            }
        };
        warnings.extend(runtime);
        warnings
    }
}
