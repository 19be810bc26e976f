//! Why each version: the rule of TF's `op_version.cc` that fired, per signature, per operator,
//! per operator code, and the operator code that forced a model's minimum runtime.

use crate::common::{data_bytes, unary};
use tflite_opver::{
    BuiltinOperator as B, ElementType, Model, ModelBuilder, OpSignature, OpVersion, Quantization,
    TensorSpec, op_version,
    params::{Conv2DParams, DepthwiseConv2DParams, Params},
    version_reason,
};

use ElementType::{Float32, Int8, Int16};

fn conv(op: B, input: ElementType, weights: TensorSpec, params: Params) -> OpSignature {
    let t = |ty| TensorSpec::new(ty, &[1, 8, 8, 4]);
    OpSignature::new(
        op,
        vec![
            t(input),
            weights.constant(),
            TensorSpec::new(ElementType::Int32, &[4]),
        ],
        vec![t(if input == Float32 { Float32 } else { input })],
        params,
    )
}

fn weights(ty: ElementType) -> TensorSpec {
    TensorSpec::new(ty, &[4, 3, 3, 4])
}

fn dilated_depthwise(dilation: i32) -> Params {
    Params::DepthwiseConv2D(DepthwiseConv2DParams {
        dilation_width_factor: dilation,
        dilation_height_factor: dilation,
        ..Default::default()
    })
}

fn dilated_conv(dilation: i32) -> Params {
    Params::Conv2D(Conv2DParams {
        dilation_width_factor: dilation,
        dilation_height_factor: dilation,
        ..Default::default()
    })
}

#[test]
fn each_reason_names_the_rule_that_fired() {
    let cases = [
        (
            conv(
                B::DEPTHWISE_CONV_2D,
                Float32,
                weights(Float32),
                dilated_depthwise(2),
            ),
            "v2: dilation ≠ 1",
        ),
        (
            conv(
                B::DEPTHWISE_CONV_2D,
                Float32,
                weights(Float32),
                dilated_depthwise(1),
            ),
            "v1: base version: no rule for a newer version applies",
        ),
        // The seed's story: CONV_2D has no dilation rule in TF 2.21, so it stays version 1.
        (
            conv(B::CONV_2D, Float32, weights(Float32), dilated_conv(2)),
            "v1: base version: no rule for a newer version applies",
        ),
        (
            conv(B::CONV_2D, Int8, weights(Int8), dilated_conv(1)),
            "v3: int8 input, weights and output",
        ),
        (
            conv(B::CONV_2D, Float32, weights(Int8), dilated_conv(1)),
            "v2: hybrid: float32 input, int8 weights",
        ),
        (
            conv(
                B::CONV_2D,
                Float32,
                weights(Int8).quantized(Quantization::per_channel(4, 0)),
                dilated_conv(1),
            ),
            "v5: hybrid: float32 input, per-channel int8 weights",
        ),
        (
            conv(
                B::CONV_2D,
                Int16,
                weights(Int8),
                Params::Conv2D(Conv2DParams {
                    quantized_bias_type: ElementType::Int64,
                    ..Default::default()
                }),
            ),
            "v8: int16 activations, int8 weights and quantized_bias_type set",
        ),
        (
            OpSignature::new(
                B::RELU,
                vec![TensorSpec::new(Int16, &[4])],
                vec![TensorSpec::new(Int16, &[4])],
                Params::None,
            ),
            "v3: int16 input",
        ),
        (
            OpSignature::new(B::ADD_N, vec![], vec![], Params::None),
            "v1: single-version op: TF has no rule for it",
        ),
    ];
    for (sig, want) in cases {
        let why = version_reason(&sig);
        assert_eq!(why.to_string(), want, "{}", sig.op);
        assert_eq!(why.version(), op_version(&sig), "{}", sig.op);
    }
}

#[test]
fn a_model_says_why_each_code_and_its_runtime() {
    let relu = |ty| unary(B::RELU, ty);
    let mut builder = ModelBuilder::new();
    builder
        .signature(
            &conv(
                B::DEPTHWISE_CONV_2D,
                Float32,
                weights(Float32),
                dilated_depthwise(2),
            ),
            OpVersion::ONE,
        )
        .signature(&relu(Float32), OpVersion::ONE)
        .signature(&relu(Int16), OpVersion::ONE)
        .signature(&relu(Int8), OpVersion::ONE);
    let unused = builder.operator_code(B::TANH, OpVersion::new(2));
    let custom = builder.custom_code("MyOp", OpVersion::new(3));
    let bytes = builder.finish();
    let model = Model::from_bytes(&bytes).unwrap();
    let reasons = model.required_version_reasons();
    let codes = model.operator_codes();
    assert_eq!(reasons.len(), codes.len());
    // One RELU code serves three operators: the int16 one needs the highest version.
    let relu_code = codes.iter().position(|c| c.builtin == B::RELU).unwrap();
    assert_eq!(reasons[relu_code].to_string(), "v3: int16 input");
    let dw = codes
        .iter()
        .position(|c| c.builtin == B::DEPTHWISE_CONV_2D)
        .unwrap();
    assert_eq!(reasons[dw].to_string(), "v2: dilation ≠ 1");
    assert_eq!(
        reasons[unused as usize].to_string(),
        "v1: no operator uses this code"
    );
    assert_eq!(reasons[custom as usize].version(), OpVersion::new(3));
    assert!(reasons[custom as usize].rule().starts_with("custom op"));
    assert_eq!(
        reasons.iter().map(|r| r.version()).collect::<Vec<_>>(),
        model.required_versions()
    );

    // Per operator: the int8 RELU is version 2, whatever its code needs.
    let per_op: Vec<_> = model
        .operators()
        .map(|at| model.version_reason(at).unwrap().to_string())
        .collect();
    assert_eq!(
        per_op,
        [
            "v2: dilation ≠ 1",
            "v1: base version: no rule for a newer version applies",
            "v3: int16 input",
            "v2: int8 or uint8 input",
        ]
    );

    // RELU v3 first shipped in 2.5.0, later than DEPTHWISE_CONV_2D v2 (1.12.0).
    let cause = model.required_min_runtime_cause().unwrap();
    assert_eq!(cause.code, relu_code);
    assert_eq!((cause.op, cause.version), (B::RELU, OpVersion::new(3)));
    assert_eq!(
        Some(cause.min_runtime),
        model.required_min_runtime_version()
    );
}

/// The seed's example says a dilated Conv2D needs version 2. TF 2.21's converter and
/// `op_version.cc` disagree: the real dilated CONV_2D model is version 1 (stored, and computed
/// by TF, `tflite_expected.json`); the dilated DEPTHWISE_CONV_2D one is version 2.
#[test]
fn real_dilated_convolutions_the_seed_story_holds_for_depthwise_only() {
    for (file, op, want) in [
        (
            "conv2d_dilated__float32.tflite",
            B::CONV_2D,
            "v1: base version: no rule for a newer version applies",
        ),
        (
            "depthwise_conv2d_dilated__float32.tflite",
            B::DEPTHWISE_CONV_2D,
            "v2: dilation ≠ 1",
        ),
    ] {
        let bytes = data_bytes(&format!("tflite/{file}"));
        let model = Model::from_bytes(&bytes).unwrap();
        let at = model.operators().next().unwrap();
        let sig = model.signature(at).unwrap();
        assert_eq!(sig.op, op, "{file}");
        let dilation = match sig.params {
            Params::Conv2D(p) => (p.dilation_width_factor, p.dilation_height_factor),
            Params::DepthwiseConv2D(p) => (p.dilation_width_factor, p.dilation_height_factor),
            other => panic!("{file}: {other:?}"),
        };
        assert_ne!(dilation, (1, 1), "{file} is dilated");
        assert_eq!(
            model.required_version_reasons()[0].to_string(),
            want,
            "{file}"
        );
        assert_eq!(
            model.operator_codes()[0].version,
            model.required_versions()[0],
            "{file}: TF's converter stamped the same"
        );
    }
}
