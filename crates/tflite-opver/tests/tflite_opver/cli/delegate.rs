//! `tflite-opver check --delegate`: the nodes a delegate refuses, its JSON and its usage errors.

use super::json_keys::{readme_keys, without_item_keys};
use super::*;

/// The keys of `check --delegate NAME --json`, exactly; the crate README lists the same.
const CHECK_DELEGATE_KEYS: &[&str] = &[
    "delegate",
    "file",
    "no_kernel",
    "no_kernel_nodes",
    "not_modelled",
    "unreadable",
    "version_refusals",
    "version_refusals[].max_version",
    "version_refusals[].name",
    "version_refusals[].operator",
    "version_refusals[].reason",
    "version_refusals[].subgraph",
    "version_refusals[].version",
    "versions_accepted",
    "warnings",
    "warnings[].kind",
    "warnings[].message",
    "warnings[].operator_code",
];

/// `tflite-opver check MODEL --delegate NAME [--json]`.
pub(super) fn check_delegate(model: &std::path::Path, delegate: &str, json: bool) -> Output {
    check_against(model, "--delegate", delegate, json)
}

#[test]
fn delegate_json_keys_are_pinned_and_listed() {
    assert_eq!(
        readme_keys("#### `check --delegate --json`"),
        CHECK_DELEGATE_KEYS
    );
    // GATHER v5 (batch_dims): the GPU delegate caps GATHER at 1.
    let model = oracle("gather_batch_dims__float32.tflite");
    let out = check_delegate(&model, "gpu", true);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let json = json_alone(&out);
    // Stamped as TF's rules require: no `warnings[]` keys (`stamp_warnings_everywhere` has them).
    assert_eq!(
        sorted_keys(&json),
        without_item_keys(CHECK_DELEGATE_KEYS, "warnings[")
    );
    assert_eq!(json["delegate"], "GPU");
    assert_eq!(json["versions_accepted"], false);
    assert_eq!(
        json["version_refusals"],
        serde_json::json!([{
            "subgraph": 0, "operator": 0, "name": "GATHER", "version": 5, "max_version": 1,
            "reason": "Max version supported: 1. Requested version 5.",
        }])
    );
    assert!(
        json["not_modelled"]
            .as_str()
            .unwrap()
            .contains("not modelled")
    );

    // NNAPI's ExpectOpVersion(version, 2) for GATHER, in its own words.
    let json = json_of(&check_delegate(&model, "nnapi", true));
    assert_eq!(json["delegate"], "NNAPI");
    assert_eq!(json["version_refusals"][0]["max_version"], 2);
    assert_eq!(
        json["version_refusals"][0]["reason"],
        "OP Version different from 2"
    );
}

#[test]
fn check_delegate_lists_refused_nodes_and_what_is_not_modelled() {
    let model = oracle("fully_connected_keep_dims__dynamic.tflite");
    let out = check_delegate(&model, "gpu", false);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert_prefixed(&out.stderr);
    assert!(
        stderr.contains(
            "subgraph 0 node 0 (FULLY_CONNECTED v12): Max version supported: 9. Requested version 12.\n"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("the GPU delegate refuses 1 of its 1 node(s) on version grounds"));
    assert!(stderr.contains("tflite-opver: note: the GPU delegate also checks"));

    // XNNPACK takes FULLY_CONNECTED v12; nothing is refused.
    let out = check_delegate(&model, "xnnpack", false);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("the XNNPACK delegate refuses none of its 1 node(s) on version grounds"),
        "{stdout}"
    );
    assert!(stdout.contains("note: XNNPACK also checks"), "{stdout}");
}

#[test]
fn xnnpack_refuses_sparse_fully_connected_and_names_ops_without_a_kernel() {
    let f32 = TensorSpec::new(ElementType::Float32, &[1, 4]);
    let fc = OpSignature::new(
        BuiltinOperator::FULLY_CONNECTED,
        vec![f32.clone(), f32.clone()],
        vec![f32.clone()],
        Params::None,
    );
    let lookup = OpSignature::new(
        BuiltinOperator::EMBEDDING_LOOKUP,
        vec![f32.clone(), f32.clone()],
        vec![f32],
        Params::None,
    );
    // Version 8 is what the converter stamps for sparse weights.
    let bytes = ModelBuilder::new()
        .signature(&fc, OpVersion::new(8))
        .signature(&lookup, OpVersion::ONE)
        .signature(&lookup, OpVersion::ONE)
        .finish();
    let path = scratch("xnnpack_fc8").join("fc8.tflite");
    std::fs::write(&path, bytes).unwrap();

    let out = check_delegate(&path, "xnnpack", false);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "subgraph 0 node 0 (FULLY_CONNECTED v8): Unsupported version 8 of FullyConnected.\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "tflite-opver: 2 node(s) have no XNNPACK kernel at all and stay on the CPU: EMBEDDING_LOOKUP\n"
        ),
        "{stderr}"
    );
    let json = json_of(&check_delegate(&path, "xnnpack", true));
    assert_eq!(json["version_refusals"][0]["max_version"], Value::Null);
    assert_eq!(json["no_kernel"], serde_json::json!(["EMBEDDING_LOOKUP"]));
    assert_eq!(json["no_kernel_nodes"], 2);

    // The GPU delegate takes FULLY_CONNECTED up to version 9.
    let out = check_delegate(&path, "gpu", false);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn delegate_usage_errors_exit_2() {
    let model = oracle("add__float32.tflite");
    let out = check_delegate(&model, "tpu", false);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&[
        "check".as_ref(),
        model.as_os_str(),
        "--delegate".as_ref(),
        "gpu".as_ref(),
        "--runtime".as_ref(),
        "2.3.0".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    // Neither a runtime nor a delegate.
    let out = run(&["check".as_ref(), model.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
}

/// A model of `operators` int8 ADDs, each on fresh tensors (two constant inputs, all three
/// quantized), as converters write them: ten FlatBuffer tables per operator (operator,
/// AddOptions, 3 tensors, 3 quantization tables, 2 buffers).
pub(crate) fn int8_adds(operators: usize) -> Vec<u8> {
    let q = tflite_opver::Quantization::per_tensor(0.5);
    let t = TensorSpec::new(ElementType::Int8, &[1, 4]).quantized(q);
    let add = OpSignature::new(
        BuiltinOperator::ADD,
        vec![t.clone().constant(), t.clone().constant()],
        vec![t],
        Params::Add(tflite_opver::params::AddParams::default()),
    );
    let mut builder = ModelBuilder::new();
    for _ in 0..operators {
        builder.signature(&add, OpVersion::new(2));
    }
    builder.finish()
}
