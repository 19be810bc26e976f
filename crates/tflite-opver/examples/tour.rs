//! The dilation story, end to end: how TensorFlow Lite added a parameter to an op without
//! breaking old models or old runtimes.
//!
//! Run with `cargo run -p tflite-opver --example tflite-opver-tour` (or `cargo xtask demo`).
//!
//! The op is DEPTHWISE_CONV_2D, the one whose version 2 added dilation in TensorFlow
//! (`DepthwiseConv2DOptions.dilation_w_factor:int = 1; // Parameters for DepthwiseConv
//! version 2 or above`, schema.fbs). TensorFlow's op-versioning guide, and this crate's design
//! seed, tell the story with CONV_2D instead; but TF 2.21's `op_version.cc` has no dilation
//! rule for CONV_2D (a dilated CONV_2D is version 1; its version 2 is the hybrid float32/int8
//! kernel), so the tour uses the op where the story is true, and shows CONV_2D too.
//! Everything below is a real .tflite FlatBuffer, written and read by this crate; nothing
//! needs TensorFlow. The last part asks today's question of a model: which of the runtimes users
//! install (`tf.lite.Interpreter`, `tflite-runtime`, `ai-edge-litert`) load it.

use tflite_opver::{
    BuiltinOperator, ElementType, Error, Model, ModelBuilder, OpSignature, OpVersion, Resolver,
    Runtime, RuntimeFamily, RuntimeVersion, StampMode, TensorSpec, op_version,
    params::{Conv2DParams, DepthwiseConv2DParams, Params},
    stamp, version_reason,
};

fn depthwise(dilation: i32) -> OpSignature {
    let f32 = |dims: &[i32]| TensorSpec::new(ElementType::Float32, dims);
    OpSignature::new(
        BuiltinOperator::DEPTHWISE_CONV_2D,
        vec![
            f32(&[1, 32, 32, 8]),
            f32(&[1, 3, 3, 8]).constant(),
            f32(&[8]).constant(),
        ],
        vec![f32(&[1, 32, 32, 8])],
        Params::DepthwiseConv2D(DepthwiseConv2DParams {
            dilation_width_factor: dilation,
            dilation_height_factor: dilation,
            ..Default::default()
        }),
    )
}

fn section(title: &str) {
    println!("\n== {title}");
}

fn main() -> Result<(), Error> {
    section("1. An old model: written before dilation existed");
    // A FlatBuffer writer leaves out fields at their default, so a dilation of 1 is not in
    // the bytes at all: exactly what a converter from before version 2 wrote.
    let old = ModelBuilder::new()
        .signature(&depthwise(1), OpVersion::ONE)
        .min_runtime_version(&RuntimeVersion::new(1, 5, 0))
        .finish();
    let model = Model::from_bytes(&old)?;
    let at = model.operators().next().expect("one operator");
    let sig = model.signature(at)?;
    let Params::DepthwiseConv2D(p) = sig.params else {
        unreachable!("DEPTHWISE_CONV_2D reads DepthwiseConv2DOptions")
    };
    println!(
        "a new runtime reads the missing fields as the schema defaults: dilation {} x {}",
        p.dilation_width_factor, p.dilation_height_factor
    );
    println!(
        "so it behaves exactly like the version 1 kernel; required version: {}",
        op_version(&sig)
    );

    section("2. A new model uses dilation 2");
    let dilated = depthwise(2);
    println!(
        "TF's rule (op_version.cc): dilation != 1 needs version {} ({})",
        op_version(&dilated),
        version_reason(&dilated)
    );
    // The guide's CONV_2D example is not TF's rule: a dilated CONV_2D stays version 1.
    let conv = OpSignature::new(
        BuiltinOperator::CONV_2D,
        dilated.inputs.clone(),
        dilated.outputs.clone(),
        Params::Conv2D(Conv2DParams {
            dilation_width_factor: 2,
            dilation_height_factor: 2,
            ..Default::default()
        }),
    );
    println!(
        "the same dilation on CONV_2D: version {} ({}); TF versions CONV_2D by types, not dilation",
        op_version(&conv),
        version_reason(&conv)
    );
    // Written naively at version 1, the model lies about what it needs; re-stamping fixes it
    // the way TF's UpdateOpVersion does, and records the oldest runtime with that kernel.
    let naive = ModelBuilder::new()
        .signature(&dilated, OpVersion::ONE)
        .min_runtime_version(&RuntimeVersion::new(1, 5, 0))
        .finish();
    let stamped = stamp(&naive, StampMode::Raise)?;
    for change in &stamped.changes {
        println!(
            "stamp: operator code {} v{} -> v{}",
            change.code, change.from, change.to
        );
    }
    println!(
        "min_runtime_version: {:?} -> {:?} (TF's runtime table: DEPTHWISE_CONV_2D v2 arrived in 1.12.0)",
        stamped.min_runtime_before.as_deref().unwrap_or(""),
        stamped.min_runtime_after
    );
    let new_model = Model::from_bytes(&stamped.bytes)?;

    section("3. An old runtime meets the new model");
    let codes: Vec<_> = new_model
        .operator_codes()
        .iter()
        .map(|c| (c.kind(), c.version))
        .collect();
    let tflite_1_11 = Resolver::for_runtime(&RuntimeVersion::new(1, 11, 0));
    match tflite_1_11.check(&codes) {
        Ok(()) => println!("TFLite 1.11.0 runs it (unexpected!)"),
        Err(e) => {
            println!("TFLite 1.11.0 refuses, clearly, instead of ignoring the dilation:\n{e}")
        }
    }
    let tflite_1_12 = Resolver::for_runtime(&RuntimeVersion::new(1, 12, 0));
    println!(
        "TFLite 1.12.0: {}",
        if tflite_1_12.check(&codes).is_ok() {
            "runs it"
        } else {
            "refuses it"
        }
    );
    // The old model still runs on the old runtime: versions follow use, not the converter.
    let old_codes: Vec<_> = model
        .operator_codes()
        .iter()
        .map(|c| (c.kind(), c.version))
        .collect();
    println!(
        "and TFLite 1.11.0 still runs the old model: {}",
        tflite_1_11.check(&old_codes).is_ok()
    );

    section("4. A model stamped higher than it needs");
    let over = ModelBuilder::new()
        .signature(&depthwise(1), OpVersion::new(2))
        .min_runtime_version(&RuntimeVersion::new(1, 12, 0))
        .finish();
    let over_model = Model::from_bytes(&over)?;
    let over_codes: Vec<_> = over_model
        .operator_codes()
        .iter()
        .map(|c| (c.kind(), c.version))
        .collect();
    println!(
        "stamped v2 without dilation; TFLite 1.11.0 runs it: {}",
        tflite_1_11.check(&over_codes).is_ok()
    );
    let minimized = stamp(&over, StampMode::Minimize)?;
    let min_model = Model::from_bytes(&minimized.bytes)?;
    let min_codes: Vec<_> = min_model
        .operator_codes()
        .iter()
        .map(|c| (c.kind(), c.version))
        .collect();
    println!(
        "after `stamp --minimize`: v{}, min runtime {:?}; TFLite 1.11.0 runs it: {}",
        min_model.operator_codes()[0].version,
        min_model.stored_min_runtime_version().unwrap_or(""),
        tflite_1_11.check(&min_codes).is_ok()
    );

    section("5. The runtimes users install");
    // Today's question: which `tf.lite.Interpreter`, `tflite-runtime` or `ai-edge-litert`
    // release loads the model, and in what words do the others refuse it? An int8 SQRT is
    // version 2, a kernel TensorFlow added in 2.21.
    let int8 = TensorSpec::new(ElementType::Int8, &[1, 4]);
    let sqrt = OpSignature::new(
        BuiltinOperator::SQRT,
        vec![int8.clone()],
        vec![int8],
        Params::None,
    );
    let new_model = ModelBuilder::new()
        .signature(&sqrt, op_version(&sqrt))
        .finish();
    let verdicts = Model::from_bytes(&new_model)?.runtime_verdicts();
    for family in RuntimeFamily::ALL {
        match verdicts.oldest(family) {
            Some(runtime) => println!("the oldest {family} that loads it: {runtime}"),
            None => println!("no {family} release loads it"),
        }
    }
    let tf_2_20: Runtime = "tensorflow-cpu 2.20.0".parse()?;
    let refused = verdicts.verdict(tf_2_20);
    println!(
        "{tf_2_20} refuses it, in its own words: {:?}",
        refused.error().unwrap_or_default()
    );
    for blocking in &refused.blocking {
        println!(
            "  blocked by {} v{}: it registers up to v{}; the model needs {}",
            blocking.op,
            blocking.version,
            blocking.max_registered.map_or(0, |v| v.get()),
            blocking.required
        );
    }
    Ok(())
}
