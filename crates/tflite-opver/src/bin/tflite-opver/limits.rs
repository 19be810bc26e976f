//! `inspect`'s warnings about TFLite's loader limits (its verifier's table count and size).

use std::path::Path;

use serde_json::{Value, json};
use tflite_opver::{LimitWarning, LoaderLimits};

use crate::TOOL;

/// `loader_warnings` of `inspect --json`: one object per limit exceeded.
pub(crate) fn warnings_json(limits: &LoaderLimits) -> Value {
    let warnings: Vec<_> = limits
        .warnings()
        .iter()
        .map(|warning| {
            let (limit, value, max) = match *warning {
                LimitWarning::TooManyTables { tables, max } => ("max_tables", tables, max),
                LimitWarning::TooLarge { len, max, .. } => ("max_buffer_size", len, max),
            };
            json!({
                "limit": limit,
                "value": value,
                "max": max,
                "message": warning.to_string(),
            })
        })
        .collect();
    Value::Array(warnings)
}

/// Writes one `tflite-opver: warning: ...` line to stderr per limit exceeded.
pub(crate) fn warn(path: &Path, limits: &LoaderLimits) {
    for warning in limits.warnings() {
        eprintln!("{TOOL}: warning: {}: {warning}", path.display());
    }
}
