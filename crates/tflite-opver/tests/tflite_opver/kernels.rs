//! Kernel gaps (issue 33, part 3): the measured table (`runtimes/kernels.json.gz`, written by
//! `interop/runtimes/kernels.py` on the thirty runtimes, generated into the crate and kept fresh
//! by `cargo xtask codegen --check`), as `Model::kernel_gaps` and `runtimes` name it for
//! models that hit a gap: committed converter models and models built here.

use crate::common::{data, data_bytes};
use tflite_opver::{
    BuiltinOperator, ElementType, KernelStage, Model, ModelBuilder, OpSignature, OpVersion,
    Quantization, Runtime, TensorSpec, params::Params,
};

/// Per runtime that has a gap for the model: (runtime, operator name, stage).
fn gaps(bytes: &[u8]) -> Vec<(String, &'static str, KernelStage)> {
    let model = Model::from_bytes(bytes).expect("a model");
    model
        .kernel_gaps()
        .gaps
        .iter()
        .map(|g| (g.runtime.to_string(), g.op.name().unwrap_or("?"), g.stage))
        .collect()
}

fn runtimes_with(
    gaps: &[(String, &str, KernelStage)],
    op: &str,
    stage: KernelStage,
) -> Vec<String> {
    gaps.iter()
        .filter(|(_, o, s)| *o == op && *s == stage)
        .map(|(r, _, _)| r.clone())
        .collect()
}

fn int16(dims: &[i32]) -> TensorSpec {
    TensorSpec::new(ElementType::Int16, dims).quantized(Quantization::per_tensor(1.0 / 4096.0))
}

/// A one-operator model of `op` on `inputs`, stamped `version`.
fn one_op(
    op: BuiltinOperator,
    inputs: Vec<TensorSpec>,
    output: TensorSpec,
    version: i32,
) -> Vec<u8> {
    let sig = OpSignature::new(op, inputs, vec![output], Params::defaults_for(op));
    ModelBuilder::new()
        .signature(&sig, OpVersion::new(version))
        .finish()
}

/// The runtimes older than the newest int16 kernels, as measured: fifteen for int16 SUM and
/// GELU (tensorflow-cpu to 2.19, tflite-runtime 2.14.0, ai-edge-litert to 1.2.0).
const BEFORE_INT16_SUM_AND_GELU: &[&str] = &[
    "tensorflow-cpu 2.12.1",
    "tensorflow-cpu 2.13.1",
    "tensorflow-cpu 2.14.1",
    "tensorflow-cpu 2.15.1",
    "tensorflow-cpu 2.16.2",
    "tensorflow-cpu 2.17.1",
    "tensorflow-cpu 2.18.1",
    "tensorflow-cpu 2.19.1",
    "tflite-runtime 2.14.0",
    "ai-edge-litert 1.0.0",
    "ai-edge-litert 1.0.1",
    "ai-edge-litert 1.1.0",
    "ai-edge-litert 1.1.1",
    "ai-edge-litert 1.1.2",
    "ai-edge-litert 1.2.0",
];

#[test]
fn int16_sum_computes_wrongly_on_the_runtimes_before_its_fix() {
    // TensorFlow 2.21.0's int16x8 conversion of REDUCE_MAX, MEAN and SUM (committed).
    let bytes = data_bytes("runtimes/converted/tf-2.21.0/reduce__int16x8.tflite");
    let gaps = gaps(&bytes);
    assert_eq!(
        runtimes_with(&gaps, "SUM", KernelStage::Wrong),
        BEFORE_INT16_SUM_AND_GELU
    );
    // Nothing else: REDUCE_MAX, MEAN, ADD, QUANTIZE and DEQUANTIZE run alike everywhere.
    assert_eq!(gaps.len(), BEFORE_INT16_SUM_AND_GELU.len());
    let model = Model::from_bytes(&bytes).unwrap();
    let all = model.kernel_gaps();
    assert!(all.not_measured.is_empty());
    let first = all.gaps.first().unwrap();
    assert_eq!(first.probe, "SUM:int16/int16:axis1");
    assert_eq!(first.types, "int16, int32 -> int16");
    assert!(
        first
            .text
            .starts_with("outputs differ from ai-edge-litert 2.3.0's in 1 of 2 elements"),
        "{}",
        first.text
    );
}

#[test]
fn int16_gelu_is_refused_at_invoke_in_the_runtimes_words() {
    let bytes = data_bytes("runtimes/converted/tf-2.21.0/gelu__int16x8.tflite");
    let model = Model::from_bytes(&bytes).unwrap();
    let all = model.kernel_gaps();
    let named: Vec<String> = all.gaps.iter().map(|g| g.runtime.to_string()).collect();
    assert_eq!(named, BEFORE_INT16_SUM_AND_GELU);
    for gap in &all.gaps {
        assert_eq!(gap.stage, KernelStage::Invoke);
        assert_eq!(gap.op, BuiltinOperator::GELU);
        // The probe's node 0 is the model's operator 1 (after QUANTIZE).
        assert_eq!(
            gap.text,
            "Only float32, int8 and uint8 supported currently, got INT16.Node number 1 (GELU) \
             failed to invoke."
        );
    }
}

#[test]
fn int16_greater_is_refused_at_invoke_until_ai_edge_litert_2_1_2() {
    let out = TensorSpec::new(ElementType::Bool, &[2, 8]);
    let bytes = one_op(
        BuiltinOperator::GREATER,
        vec![int16(&[2, 8]), int16(&[2, 8])],
        out,
        2,
    );
    let gaps = gaps(&bytes);
    let invoke = runtimes_with(&gaps, "GREATER", KernelStage::Invoke);
    assert_eq!(invoke.len(), 22, "{invoke:?}");
    assert!(invoke.contains(&"tensorflow-cpu 2.20.0".to_owned()));
    assert!(invoke.contains(&"ai-edge-litert 2.1.1".to_owned()));
    assert!(!invoke.contains(&"ai-edge-litert 2.1.2".to_owned()));
    assert!(!invoke.contains(&"tensorflow-cpu 2.21.0".to_owned()));
}

#[test]
fn a_5d_int16_broadcast_aborts_older_runtimes_and_a_4d_one_does_not() {
    let five = one_op(
        BuiltinOperator::MUL,
        vec![int16(&[1, 2, 1, 3, 2]), int16(&[2, 1, 3, 1, 2])],
        int16(&[2, 2, 3, 3, 2]),
        5,
    );
    assert_eq!(
        runtimes_with(&gaps(&five), "MUL", KernelStage::Signal),
        [
            "tensorflow-cpu 2.12.1",
            "tensorflow-cpu 2.13.1",
            "tensorflow-cpu 2.14.1",
            "tflite-runtime 2.14.0"
        ]
    );
    let model = Model::from_bytes(&five).unwrap();
    assert_eq!(
        model.kernel_gaps().gaps[0].text,
        "the process aborted (SIGABRT)"
    );
    let four = one_op(
        BuiltinOperator::MUL,
        vec![int16(&[1, 2, 3, 4]), int16(&[1, 1, 1, 4])],
        int16(&[1, 2, 3, 4]),
        5,
    );
    assert!(gaps(&four).is_empty());
}

#[test]
fn an_operator_no_probe_matches_is_not_measured_and_nothing_is_claimed() {
    // A 6-D broadcast: no probe has one.
    let six = one_op(
        BuiltinOperator::MUL,
        vec![int16(&[1, 2, 1, 3, 2, 1]), int16(&[2, 1, 3, 1, 2, 1])],
        int16(&[2, 2, 3, 3, 2, 1]),
        5,
    );
    let model = Model::from_bytes(&six).unwrap();
    let all = model.kernel_gaps();
    assert!(all.gaps.is_empty());
    assert_eq!(all.measured, 0);
    assert_eq!(all.not_measured.len(), 1);
    assert_eq!(all.not_measured[0].1, "MUL (int16, int16 -> int16)");
    // Unquantized int16 is not what the probes measured either.
    let plain = TensorSpec::new(ElementType::Int16, &[2, 8]);
    let bytes = one_op(
        BuiltinOperator::SUM,
        vec![
            plain.clone(),
            TensorSpec::new(ElementType::Int32, &[1]).constant(),
        ],
        TensorSpec::new(ElementType::Int16, &[2]),
        1,
    );
    let all = Model::from_bytes(&bytes).unwrap().kernel_gaps();
    assert!(all.gaps.is_empty());
    assert_eq!(all.not_measured.len(), 1);
}

#[test]
fn every_gap_is_of_a_runtime_that_exists_and_the_reference_has_none() {
    for model in [
        "reduce__int16x8",
        "gelu__int16x8",
        "padv2__int16x8",
        "fully_connected__int16x8",
    ] {
        let path = data(&format!("runtimes/converted/tf-2.21.0/{model}.tflite"));
        let bytes = std::fs::read(&path).unwrap();
        let all = Model::from_bytes(&bytes).unwrap().kernel_gaps();
        let newest = Runtime::find("ai-edge-litert 2.3.0").unwrap();
        assert_eq!(all.of(newest).count(), 0, "{model}");
    }
}

/// `kernel_models.json` (`kernels.py models` on each runtime, `kernels.py model-table`): what
/// the thirty runtimes did when TensorFlow 2.21.0's converted models (`runtimes/converted/
/// tf-2.21.0/`) were constructed, allocated and invoked on seeded inputs, outputs compared with
/// the reference's. Every gap the crate names for a model must be what the real runtime did
/// with it, at the same stage; and it names most of the real misbehaviours of the runtimes it
/// has facts for.
#[test]
fn every_named_gap_is_what_the_real_runtime_did_with_the_model() {
    let table = crate::common::data_json("runtimes/kernel_models.json");
    let runtimes: Vec<String> = table["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        runtimes,
        Runtime::all().map(|r| r.to_string()).collect::<Vec<_>>()
    );
    let reference = runtimes
        .iter()
        .position(|r| r == table["reference"].as_str().unwrap())
        .unwrap();
    let (mut named, mut real, mut real_named) = (0, 0, 0);
    let mut unnamed = Vec::new();
    for (path, row) in table["models"].as_object().unwrap() {
        let bytes = data_bytes(&format!("runtimes/{path}"));
        let model = Model::from_bytes(&bytes).unwrap();
        let gaps = model.kernel_gaps();
        let verdicts = model.runtime_verdicts();
        let stage = |r: usize| row[r][0].as_str().unwrap().to_owned();
        for (r, runtime) in Runtime::all().enumerate() {
            let claimed: Vec<_> = gaps.of(runtime).collect();
            if verdicts.verdict(runtime).loads() {
                for gap in &claimed {
                    named += 1;
                    assert_eq!(
                        stage(r),
                        gap.stage.name(),
                        "{path} on {runtime}: the crate names {} {} ({})",
                        gap.probe,
                        gap.stage.name(),
                        gap.text
                    );
                }
            }
            let misbehaves = ["invoke", "signal", "wrong"].contains(&stage(r).as_str())
                || (stage(r) == "prepare" && verdicts.verdict(runtime).allocates() != Some(false));
            if misbehaves && stage(reference) == "ok" {
                real += 1;
                if claimed.is_empty() {
                    unnamed.push(format!("{path} on {runtime}: {}", stage(r)));
                } else {
                    real_named += 1;
                }
            }
        }
    }
    eprintln!(
        "kernel gaps named: {named}; real misbehaviours {real}, of which named {real_named}; \
         not named: {unnamed:#?}"
    );
    assert!(named > 0);
    assert!(real_named > 0);
}
