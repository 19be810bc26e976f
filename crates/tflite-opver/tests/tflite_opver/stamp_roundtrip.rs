//! Re-stamping models written here: raise vs minimize, one code shared by many operators,
//! custom codes left alone, fields added when absent (the `version` field omitted because it
//! held the default, the `min_runtime_version` metadata missing), and stamped models reading
//! back identically except the changed fields.

use crate::common::stored_versions;
use tflite_opver::{
    BuiltinOperator, ElementType, Model, ModelBuilder, OpSignature, OpVersion, RuntimeVersion,
    StampMode, TensorSpec,
    params::{DepthwiseConv2DParams, Params},
    stamp,
};

fn t(ty: ElementType) -> TensorSpec {
    TensorSpec::new(ty, &[1, 8, 8, 4])
}

fn depthwise(dilation: i32) -> OpSignature {
    OpSignature::new(
        BuiltinOperator::DEPTHWISE_CONV_2D,
        vec![
            t(ElementType::Float32),
            TensorSpec::new(ElementType::Float32, &[1, 3, 3, 4]).constant(),
            TensorSpec::new(ElementType::Float32, &[4]).constant(),
        ],
        vec![t(ElementType::Float32)],
        Params::DepthwiseConv2D(DepthwiseConv2DParams {
            dilation_width_factor: dilation,
            dilation_height_factor: dilation,
            ..Default::default()
        }),
    )
}

fn relu(ty: ElementType) -> OpSignature {
    OpSignature::new(
        BuiltinOperator::RELU,
        vec![t(ty)],
        vec![t(ty)],
        Params::None,
    )
}

fn signatures(model: &Model<'_>) -> Vec<OpSignature> {
    model
        .operators()
        .map(|at| model.signature(at).unwrap())
        .collect()
}

#[test]
fn one_code_takes_the_max_over_its_operators() {
    // Two DEPTHWISE_CONV_2D operators share one code at version 1; one is dilated (needs 2).
    let bytes = ModelBuilder::new()
        .signature(&depthwise(1), OpVersion::ONE)
        .signature(&depthwise(2), OpVersion::ONE)
        .min_runtime_version(&RuntimeVersion::new(1, 5, 0))
        .finish();
    let before = Model::from_bytes(&bytes).unwrap();
    assert_eq!(before.operator_codes().len(), 1);
    assert_eq!(before.required_versions(), [OpVersion::new(2)]);

    let stamped = stamp(&bytes, StampMode::Raise).unwrap();
    let after = Model::from_bytes(&stamped.bytes).unwrap();
    assert_eq!(stored_versions(&after), [2]);
    // TF's table: DEPTHWISE_CONV_2D v2 needs TFLite 1.12.0.
    assert_eq!(after.stored_min_runtime_version(), Some("1.12.0"));
    assert_eq!(stamped.min_runtime_before.as_deref(), Some("1.5.0"));
    assert_eq!(signatures(&before), signatures(&after));
}

#[test]
fn raise_keeps_high_versions_minimize_lowers_them() {
    let bytes = ModelBuilder::new()
        .signature(&relu(ElementType::Float32), OpVersion::new(3))
        .min_runtime_version(&RuntimeVersion::new(2, 5, 0))
        .finish();
    let raised = stamp(&bytes, StampMode::Raise).unwrap();
    assert!(raised.changes.is_empty());
    assert_eq!(
        stored_versions(&Model::from_bytes(&raised.bytes).unwrap()),
        [3]
    );
    // Nothing to change: raise gives the same bytes back (min runtime for RELU v3 is 2.5.0).
    assert_eq!(raised.bytes, bytes);

    let minimized = stamp(&bytes, StampMode::Minimize).unwrap();
    let model = Model::from_bytes(&minimized.bytes).unwrap();
    assert_eq!(stored_versions(&model), [1]);
    assert_eq!(minimized.changes.len(), 1);
    assert_eq!(minimized.changes[0].from, OpVersion::new(3));
    assert_eq!(minimized.changes[0].to, OpVersion::ONE);
    assert_eq!(model.stored_min_runtime_version(), Some("1.5.0"));
    assert!(
        !minimized.extended,
        "version and metadata were patched in place"
    );
}

#[test]
fn custom_codes_are_never_restamped() {
    let mut b = ModelBuilder::new();
    let code = b.custom_code("MyOp", OpVersion::new(7));
    let x = b.tensor(&t(ElementType::Float32));
    let y = b.tensor(&t(ElementType::Float32));
    b.operator(code, &[x], &[y], None);
    let bytes = b.finish();
    for mode in [StampMode::Raise, StampMode::Minimize] {
        let stamped = stamp(&bytes, mode).unwrap();
        assert!(stamped.changes.is_empty());
        let model = Model::from_bytes(&stamped.bytes).unwrap();
        assert_eq!(stored_versions(&model), [7]);
        // No builtin operator has a runtime entry, and there was no metadata: none is added.
        assert_eq!(model.stored_min_runtime_version(), None);
        assert_eq!(stamped.bytes, bytes);
    }
}

#[test]
fn absent_metadata_and_absent_version_fields_are_added() {
    // Written at version 1, a FlatBuffer writer omits the field: raising must add it. No
    // min_runtime_version metadata either.
    let bytes = ModelBuilder::new()
        .signature(&relu(ElementType::Int16), OpVersion::ONE)
        .signature(&relu(ElementType::Float32), OpVersion::ONE)
        .signature(&depthwise(1), OpVersion::ONE)
        .finish();
    let before = Model::from_bytes(&bytes).unwrap();
    assert_eq!(before.stored_min_runtime_version(), None);

    let stamped = stamp(&bytes, StampMode::Raise).unwrap();
    assert!(stamped.extended);
    let after = Model::from_bytes(&stamped.bytes).unwrap();
    assert_eq!(stored_versions(&after), [3, 1]);
    // RELU v3 (int16) needs TFLite 2.5.0.
    assert_eq!(after.stored_min_runtime_version(), Some("2.5.0"));
    assert_eq!(
        after.runtime_metadata().unwrap().data.map(<[u8]>::len),
        Some(16),
        "a 16-byte NUL-padded buffer"
    );
    assert_eq!(signatures(&before), signatures(&after));
    // The original bytes follow the new tables unchanged.
    assert!(stamped.bytes.ends_with(&bytes));
    // And a second stamp has nothing left to do.
    let again = stamp(&stamped.bytes, StampMode::Raise).unwrap();
    assert_eq!(again.bytes, stamped.bytes);
    assert!(!again.extended);
}

#[test]
fn stamping_garbage_is_an_error_not_a_panic() {
    assert!(stamp(b"", StampMode::Raise).is_err());
    assert!(stamp(b"12345678", StampMode::Minimize).is_err());
}

#[test]
fn nan_options_and_scales_do_not_block_stamping() {
    use tflite_opver::{Quantization, params::SoftmaxParams};
    let x = t(ElementType::Int8).quantized(Quantization::per_tensor(f32::NAN));
    let softmax = OpSignature::new(
        BuiltinOperator::SOFTMAX,
        vec![x.clone()],
        vec![x],
        Params::Softmax(SoftmaxParams { beta: f32::NAN }),
    );
    let bytes = ModelBuilder::new()
        .signature(&softmax, OpVersion::ONE)
        .min_runtime_version(&RuntimeVersion::new(1, 5, 0))
        .finish();
    let stamped = stamp(&bytes, StampMode::Raise).unwrap();
    let model = Model::from_bytes(&stamped.bytes).unwrap();
    assert_eq!(stored_versions(&model), [2]);
    assert_eq!(model.stored_min_runtime_version(), Some("1.14.0"));
}
