//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `tests/data/<name>`: TensorFlow reference data kept in the repository (listed in
/// `tests/data/README.md`). Panics, naming the file, when it is missing: these tests compare with
/// real TensorFlow and must never pass vacuously.
pub fn data(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    assert!(
        path.exists(),
        "test data {} is missing (tests/data/README.md lists every file and how it was made)",
        path.display()
    );
    path
}

pub fn data_bytes(name: &str) -> Vec<u8> {
    let path = data(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

pub fn data_json(name: &str) -> serde_json::Value {
    serde_json::from_slice(&data_bytes(name))
        .unwrap_or_else(|e| panic!("tests/data/{name} is not valid JSON: {e}"))
}

/// A table of real runtimes' verdicts as the interop scripts write them (`verdicts.py`,
/// `copy_oracle.py`, `allocations.py`, `restamped.py`): the runtimes, the texts (exception class
/// and text), and per model one entry per runtime: a negative code the table's writer
/// documents, else the index of the text the runtime raised.
pub struct VerdictTable {
    pub runtimes: Vec<String>,
    pub texts: Vec<(String, String)>,
    pub models: std::collections::BTreeMap<String, Vec<i64>>,
}

/// The verdict table `tests/data/{name}`.
pub fn verdict_table(name: &str) -> VerdictTable {
    let json = data_json(name);
    let strings = |value: &serde_json::Value| -> Vec<String> {
        value
            .as_array()
            .expect("an array")
            .iter()
            .map(|s| s.as_str().expect("a string").to_owned())
            .collect()
    };
    VerdictTable {
        runtimes: strings(&json["runtimes"]),
        texts: json["texts"]
            .as_array()
            .expect("texts")
            .iter()
            .map(|pair| {
                let pair = strings(pair);
                (pair[0].clone(), pair[1].clone())
            })
            .collect(),
        models: json["models"]
            .as_object()
            .expect("models")
            .iter()
            .map(|(key, row)| {
                let row = row
                    .as_array()
                    .expect("a row")
                    .iter()
                    .map(|v| v.as_i64().expect("an entry"))
                    .collect();
                (key.clone(), row)
            })
            .collect(),
    }
}

/// A one-input, one-output signature of `op` on rank-1 tensors of `ty`, without options.
pub fn unary(
    op: tflite_opver::BuiltinOperator,
    ty: tflite_opver::ElementType,
) -> tflite_opver::OpSignature {
    let t = || tflite_opver::TensorSpec::new(ty, &[4]);
    tflite_opver::OpSignature::new(op, vec![t()], vec![t()], tflite_opver::params::Params::None)
}

/// Each operator code's stored version, in order.
pub fn stored_versions(model: &tflite_opver::Model<'_>) -> Vec<i32> {
    model
        .operator_codes()
        .iter()
        .map(|c| c.version.get())
        .collect()
}
