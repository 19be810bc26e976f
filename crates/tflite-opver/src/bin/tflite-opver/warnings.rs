//! Warnings about the model's stamps (`StampWarning`): versions stored lower than its
//! operators need, and a missing or understated `min_runtime_version`. `inspect` and `check`
//! give them as `loader_warnings` are given: one `tflite-opver: warning: ...` line each on
//! stderr, or a `warnings` array with `--json`.

use std::path::Path;

use serde_json::{Value, json};
use tflite_opver::StampWarning;

use crate::TOOL;

/// The `kind` of a warning in `--json`.
fn kind(warning: &StampWarning) -> &'static str {
    match warning {
        StampWarning::VersionTooLow { .. } => "version_too_low",
        StampWarning::NoMetadata { .. } => "no_metadata",
        StampWarning::NoMinRuntimeVersion { .. } => "no_min_runtime_version",
        StampWarning::MinRuntimeVersionTooLow { .. } => "min_runtime_version_too_low",
    }
}

/// `warnings` of `--json`: one object per warning.
pub(crate) fn warnings_json(warnings: &[StampWarning]) -> Value {
    Value::Array(
        warnings
            .iter()
            .map(|warning| {
                json!({
                    "kind": kind(warning),
                    "operator_code": warning.operator_code(),
                    "message": warning.to_string(),
                })
            })
            .collect(),
    )
}

/// Writes one `tflite-opver: warning: ...` line to stderr per warning.
pub(crate) fn warn(path: &Path, warnings: &[StampWarning]) {
    for warning in warnings {
        eprintln!("{TOOL}: warning: {}: {warning}", path.display());
    }
}
