//! The 241 real models the TensorFlow 2.21 converter wrote (`tests/data/tflite/`), against what
//! TFLite's own C++ versioning computes for them (`tflite_expected.json`, `op_version_cc`):
//! every operator's version, every operator code's version, the minimum runtime version; and
//! what the models store (codes, stored versions, stored `min_runtime_version`) must read back
//! exactly.

use crate::common::{data_bytes, data_json};
use tflite_opver::{Model, OperatorLocation, min_runtime_version_for_op};

fn expected() -> serde_json::Map<String, serde_json::Value> {
    match data_json("tflite_expected.json") {
        serde_json::Value::Object(map) => map,
        _ => panic!("tflite_expected.json is an object keyed by model file"),
    }
}

fn int(v: &serde_json::Value) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("integer expected, got {v}"))
}

#[test]
fn every_real_model_agrees_with_tensorflow() {
    let models = expected();
    assert_eq!(models.len(), 241);
    let (mut ops_checked, mut codes_checked) = (0, 0);
    let mut mismatches = Vec::new();
    for (name, want) in &models {
        let bytes = data_bytes(&format!("tflite/{name}"));
        let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            model.subgraph_count() as i64,
            int(&want["num_subgraphs"]),
            "{name}"
        );
        assert_eq!(
            model.schema_version() as i64,
            int(&want["schema_version"]),
            "{name}"
        );

        // What the model stores reads back exactly.
        let codes = want["operator_codes"].as_array().unwrap();
        assert_eq!(model.operator_codes().len(), codes.len(), "{name}");
        for (ours, theirs) in model.operator_codes().iter().zip(codes) {
            assert_eq!(ours.builtin.name(), theirs["name"].as_str(), "{name}");
            assert_eq!(
                i64::from(ours.builtin_code),
                int(&theirs["builtin_code"]),
                "{name}"
            );
            assert_eq!(
                i64::from(ours.deprecated_builtin_code),
                int(&theirs["deprecated_builtin_code"]),
                "{name}"
            );
            assert_eq!(
                i64::from(ours.version.get()),
                int(&theirs["version"]),
                "{name}"
            );
        }
        assert_eq!(
            model.stored_min_runtime_version(),
            want["min_runtime_version"].as_str(),
            "{name}"
        );

        // What TF computes, per operator code...
        let required = model.required_versions();
        // ... and each code's reason names the same version.
        let reasons = model.required_version_reasons();
        assert_eq!(
            reasons.iter().map(|r| r.version()).collect::<Vec<_>>(),
            required,
            "{name}"
        );
        for (i, (ours, theirs)) in required.iter().zip(codes).enumerate() {
            codes_checked += 1;
            if i64::from(ours.get()) != int(&theirs["op_version_cc"]) {
                mismatches.push(format!(
                    "{name}: code {i} ({}) ours v{ours} TF v{}",
                    theirs["name"], theirs["op_version_cc"]
                ));
            }
        }
        // ... per operator ...
        let per_op = model.operator_versions();
        let ops = want["ops"].as_array().unwrap();
        assert_eq!(per_op.len(), ops.len(), "{name}");
        for ((at, version), theirs) in per_op.iter().zip(ops) {
            ops_checked += 1;
            let expected_at = OperatorLocation {
                subgraph: int(&theirs["subgraph"]) as usize,
                operator: at.operator,
            };
            assert_eq!(*at, expected_at, "{name}");
            assert_eq!(
                model.opcode_index(*at).unwrap() as i64,
                int(&theirs["opcode_index"]),
                "{name}"
            );
            assert_eq!(
                model.version_reason(*at).unwrap().version(),
                *version,
                "{name} {at:?}"
            );
            if i64::from(version.get()) != int(&theirs["op_version_cc"]) {
                mismatches.push(format!(
                    "{name}: operator {at:?} ({}) ours v{version} TF v{}",
                    theirs["op"], theirs["op_version_cc"]
                ));
            }
        }
        // ... and the model's minimum runtime.
        let runtime = model
            .required_min_runtime_version()
            .map(|v| v.to_string())
            .unwrap_or_default();
        let want_runtime = want["op_version_cc"]["min_runtime_version"]
            .as_str()
            .unwrap();
        // The code named as the cause needs exactly that runtime at its required version.
        let cause = model.required_min_runtime_cause();
        assert_eq!(
            cause
                .as_ref()
                .map(|c| c.min_runtime.to_string())
                .unwrap_or_default(),
            runtime,
            "{name}"
        );
        if let Some(cause) = &cause {
            assert_eq!(
                cause.op,
                model.operator_codes()[cause.code].builtin,
                "{name}"
            );
            assert_eq!(cause.version, required[cause.code], "{name}");
            assert_eq!(
                min_runtime_version_for_op(cause.op, cause.version),
                Some(cause.min_runtime),
                "{name}"
            );
        }
        if runtime != want_runtime {
            mismatches.push(format!(
                "{name}: min runtime ours {runtime:?} TF {want_runtime:?}"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} disagreements:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert!(
        ops_checked > 500 && codes_checked > 400,
        "{ops_checked} ops, {codes_checked} codes"
    );
}

/// Operators that read the same to TF's rules are judged once per operator code: on every
/// real model, and on operators that differ only in a scale or a shape, the versions so found
/// equal each operator's own signature judged alone.
#[test]
fn judging_alike_operators_once_changes_no_version() {
    use tflite_opver::{
        BuiltinOperator, ElementType, ModelBuilder, OpSignature, OpVersion, Quantization,
        TensorSpec, op_version,
        params::{MulParams, Params},
    };
    let each_alone = |model: &Model<'_>| -> Vec<_> {
        model
            .operators()
            .map(|at| (at, op_version(&model.signature(at).unwrap())))
            .collect()
    };
    // Each code's required version as the maximum over its operators judged alone (the
    // library visits only the operators that do not repeat the one before them of their code).
    let by_code = |model: &Model<'_>| -> Vec<OpVersion> {
        let mut needed = vec![OpVersion::ONE; model.operator_codes().len()];
        for (at, version) in each_alone(model) {
            let code = model.opcode_index(at).unwrap();
            needed[code] = needed[code].max(version);
        }
        needed
    };
    for name in expected().keys() {
        let bytes = data_bytes(&format!("tflite/{name}"));
        let model = Model::from_bytes(&bytes).unwrap();
        // Custom operators keep their stored version either way; the real models have none.
        assert_eq!(model.operator_versions(), each_alone(&model), "{name}");
        assert_eq!(model.required_versions(), by_code(&model), "{name}");
    }

    // MUL's version depends on its tensors' types, scales and shapes (op_version.cc): the
    // operators below share their code and differ in a scale, a shape or a type only.
    let q = |scale: f32, dims: &[i32]| {
        TensorSpec::new(ElementType::Int8, dims).quantized(Quantization::per_tensor(scale))
    };
    let mut b = ModelBuilder::new();
    let mul = b.operator_code(BuiltinOperator::MUL, OpVersion::ONE);
    let x = b.tensor(&q(0.5, &[1, 4]));
    let small = b.tensor(&q(0.5, &[1, 4]));
    let large = b.tensor(&q(4.0, &[1, 4]));
    let wide = b.tensor(&q(0.5, &[2, 4]));
    let int16 = b.tensor(&TensorSpec::new(ElementType::Int16, &[1, 4]));
    let params = Params::Mul(MulParams::default());
    // Some repeat the operator before them exactly (same tensors), which the reader notes.
    let twin = b.tensor(&q(0.5, &[1, 4]));
    for (a, out) in [
        (small, x),
        (large, x),
        (large, x),
        (small, x),
        (twin, x),
        (twin, x),
        (wide, x),
        (wide, x),
        (int16, int16),
        (int16, int16),
        (large, x),
        (small, x),
    ] {
        b.operator(mul, &[x, a], &[out], Some(&params));
    }
    let bytes = b.finish();
    let model = Model::from_bytes(&bytes).unwrap();
    let versions = model.operator_versions();
    assert_eq!(versions, each_alone(&model));
    assert_eq!(model.required_versions(), by_code(&model));
    let distinct: std::collections::BTreeSet<_> = versions.iter().map(|(_, v)| *v).collect();
    assert!(
        distinct.len() >= 2,
        "the operators need different versions: {versions:?}"
    );

    // Fresh tensors for every operator, as converters write them: alike tensors share a class
    // of facts, and 1500 distinct scales (more classes than the reader's hash table has
    // slots, so slots are reused) must still each be judged by their own facts: by the
    // version of the signature they were written from.
    let mut b = ModelBuilder::new();
    let mul = b.operator_code(BuiltinOperator::MUL, OpVersion::ONE);
    let mut written = Vec::new();
    for i in 0..6000 {
        let scale = if i % 3 == 0 {
            0.5
        } else {
            0.01 * ((i * 7) % 1500 + 1) as f32
        };
        let dims: &[i32] = if i % 5 == 0 { &[2, 4] } else { &[1, 4] };
        let specs = [q(0.5, dims), q(scale, dims)];
        let out = if i % 11 == 0 {
            TensorSpec::new(ElementType::Int16, dims)
        } else {
            q(1.0, dims)
        };
        let inputs = [b.tensor(&specs[0]), b.tensor(&specs[1])];
        let output = b.tensor(&out);
        b.operator(mul, &inputs, &[output], Some(&params));
        let sig = OpSignature::new(BuiltinOperator::MUL, specs.to_vec(), vec![out], params);
        written.push(op_version(&sig));
    }
    let bytes = b.finish();
    let model = Model::from_bytes(&bytes).unwrap();
    let versions = model.operator_versions();
    assert_eq!(versions, each_alone(&model));
    let read: Vec<_> = versions.iter().map(|(_, v)| *v).collect();
    assert_eq!(read, written);
    assert_eq!(model.required_versions(), by_code(&model));
    let distinct: std::collections::BTreeSet<_> = versions.iter().map(|(_, v)| *v).collect();
    assert!(
        distinct.len() >= 2,
        "the operators need different versions: {distinct:?}"
    );
}
