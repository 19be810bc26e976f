//! Every single-operator signature case TensorFlow 2.21 computed (`tflite_sig_cases.json`):
//! the whole path from the case's FlatBuffer to our signature, op version and minimum runtime
//! must agree with TF's `UpdateOpVersion` + `UpdateMinimumRuntimeVersionForModel`.

use crate::common::{data_bytes, data_json};
use tflite_opver::{BuiltinOperator, Model};

fn cases() -> Vec<serde_json::Value> {
    let json = data_json("tflite_sig_cases.json");
    json["cases"].as_array().expect("cases array").clone()
}

#[test]
fn every_signature_case_agrees_with_tensorflow() {
    let cases = cases();
    assert!(
        cases.len() > 1700,
        "expected ~1788 cases, found {}",
        cases.len()
    );
    let mut mismatches = Vec::new();
    let mut crashes = 0;
    let mut compared = 0;
    for case in &cases {
        let label = case["label"].as_str().unwrap_or("?");
        let bytes = data_bytes(case["file"].as_str().expect("file"));
        let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(model.operator_codes().len(), 1, "{label}");
        let code = model.operator_codes()[0];
        assert_eq!(
            code.builtin,
            BuiltinOperator::from_name(case["op"].as_str().unwrap()).unwrap(),
            "{label}"
        );
        let required = model.required_versions()[0].get();
        assert_eq!(
            model.required_version_reasons()[0].version().get(),
            required,
            "{label}"
        );
        if case.get("crash").is_some() {
            // TF aborts on these (int16 activations and int16 weights conv: its rule reads a
            // second output that does not exist). Ours answers with the version the rule
            // means: 4 for CONV_2D, 5 for DEPTHWISE_CONV_2D (see `tflite_opver::op_version`).
            crashes += 1;
            let meant = match code.builtin {
                BuiltinOperator::CONV_2D => 4,
                BuiltinOperator::DEPTHWISE_CONV_2D => 5,
                other => panic!("{label}: unexpected crash case for {other}"),
            };
            assert_eq!(required, meant, "{label}");
            continue;
        }
        compared += 1;
        let want = case["version"].as_i64().expect("version") as i32;
        let want_runtime = case["min_runtime_version"].as_str().expect("runtime");
        let got_runtime = model
            .required_min_runtime_version()
            .map(|v| v.to_string())
            .unwrap_or_default();
        if required != want || got_runtime != want_runtime {
            mismatches.push(format!(
                "{label}: version ours {required} TF {want}; runtime ours {got_runtime:?} TF {want_runtime:?}"
            ));
        }
    }
    assert_eq!(crashes, 6, "the oracle records six TF crashes");
    assert!(compared > 1780, "{compared} cases compared");
    assert!(
        mismatches.is_empty(),
        "{} of {} cases disagree:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
}
