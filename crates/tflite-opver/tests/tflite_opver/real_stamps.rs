//! Models as real ones ship, built with the model builder: operator codes stored lower than
//! TF's rules require (DEQUANTIZE v2 for a float16 input, which needs v3; RESIZE_BILINEAR v1
//! with half_pixel_centers, which needs v3), without a `min_runtime_version` entry, or
//! without a metadata vector at all (on which TF's own `UpdateMinimumRuntimeVersionForModel`
//! crashes). Each is warned about, and `stamp` fixes each.

use crate::common::stored_versions;
use tflite_opver::{
    BuiltinOperator, ElementType, Model, ModelBuilder, OpSignature, OpVersion, RuntimeVersion,
    StampMode, StampWarning, TensorSpec,
    params::{Params, ResizeBilinearParams},
    stamp,
};

/// A float16 DEQUANTIZE (v3) feeding a half-pixel RESIZE_BILINEAR (v3), stored at v2 and v1.
fn too_low(builder: &mut ModelBuilder) -> &mut ModelBuilder {
    let half = TensorSpec::new(ElementType::Float16, &[1, 4, 4, 2]).constant();
    let x = TensorSpec::new(ElementType::Float32, &[1, 4, 4, 2]);
    let size = TensorSpec::new(ElementType::Int32, &[2]).constant();
    let dequantize = OpSignature::new(
        BuiltinOperator::DEQUANTIZE,
        vec![half],
        vec![x.clone()],
        Params::None,
    );
    let resize = OpSignature::new(
        BuiltinOperator::RESIZE_BILINEAR,
        vec![x, size],
        vec![TensorSpec::new(ElementType::Float32, &[1, 8, 8, 2])],
        Params::ResizeBilinear(ResizeBilinearParams {
            align_corners: false,
            half_pixel_centers: true,
        }),
    );
    builder
        .signature(&dequantize, OpVersion::new(2))
        .signature(&resize, OpVersion::ONE)
}

fn too_low_codes(warnings: &[StampWarning]) -> Vec<(usize, i32, i32)> {
    warnings
        .iter()
        .filter_map(|w| match w {
            StampWarning::VersionTooLow {
                code,
                stored,
                required,
                ..
            } => Some((*code, stored.get(), required.get())),
            _ => None,
        })
        .collect()
}

#[test]
fn no_metadata_vector_is_warned_and_stamp_adds_it() {
    let bytes = too_low(&mut ModelBuilder::new()).finish();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(!model.has_metadata());
    assert_eq!(model.runtime_metadata(), None);
    let warnings = model.stamp_warnings();
    assert_eq!(too_low_codes(&warnings), [(0, 2, 3), (1, 1, 3)]);
    // DEQUANTIZE v3 first shipped in TFLite 1.15.0, RESIZE_BILINEAR v3 in 2.2.0.
    let required = model.required_min_runtime_version().unwrap();
    assert_eq!(warnings[2], StampWarning::NoMetadata { required });
    assert_eq!(warnings.len(), 3);
    let message = warnings[2].to_string();
    assert!(
        message.contains("UpdateMinimumRuntimeVersionForModel"),
        "{message}"
    );
    assert!(message.contains("runtime_version.cc"), "{message}");
    let message = warnings[0].to_string();
    assert!(
        message.starts_with(
            "operator code 0 (DEQUANTIZE) is stored as version 2, but its operators need \
             version 3 (float16 input)"
        ),
        "{message}"
    );

    for mode in [StampMode::Raise, StampMode::Minimize] {
        let stamped = stamp(&bytes, mode).unwrap();
        assert!(stamped.extended);
        assert_eq!(stamped.min_runtime_before, None);
        let after = Model::from_bytes(&stamped.bytes).unwrap();
        assert_eq!(stored_versions(&after), [3, 3]);
        assert!(after.has_metadata());
        assert_eq!(
            after.stored_min_runtime_version(),
            Some(required.to_string().as_str())
        );
        assert_eq!(
            after.runtime_metadata().unwrap().data.map(<[u8]>::len),
            Some(16)
        );
        assert!(
            after.stamp_warnings().is_empty(),
            "{:?}",
            after.stamp_warnings()
        );
        // Nothing else changed: every operator reads the same.
        for at in model.operators() {
            assert_eq!(model.signature(at).unwrap(), after.signature(at).unwrap());
        }
    }
}

#[test]
fn metadata_without_the_runtime_entry_is_warned_and_stamp_adds_the_entry() {
    let bytes = too_low(&mut ModelBuilder::new())
        .metadata("CONVERSION_METADATA", b"\x0c\x00\x00\x00")
        .finish();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(model.has_metadata());
    assert_eq!(model.runtime_metadata(), None);
    let warnings = model.stamp_warnings();
    assert_eq!(too_low_codes(&warnings), [(0, 2, 3), (1, 1, 3)]);
    assert!(
        matches!(warnings[2], StampWarning::NoMinRuntimeVersion { .. }),
        "{warnings:?}"
    );
    assert_eq!(warnings[2].operator_code(), None);

    let stamped = stamp(&bytes, StampMode::Raise).unwrap();
    let after = Model::from_bytes(&stamped.bytes).unwrap();
    assert_eq!(stored_versions(&after), [3, 3]);
    assert_eq!(after.stored_min_runtime_version(), Some("2.2.0"));
    assert!(after.stamp_warnings().is_empty());
    // The other entry is kept, and its buffer still holds its bytes.
    let root = {
        use tflite_opver::schema::{ModelRef, ReadAsRoot};
        ModelRef::read_as_root(&stamped.bytes).unwrap()
    };
    let entries: Vec<_> = root
        .metadata()
        .unwrap()
        .unwrap()
        .iter()
        .map(|m| m.unwrap().name().unwrap().unwrap().to_owned())
        .collect();
    assert!(
        entries.contains(&"CONVERSION_METADATA".to_owned()),
        "{entries:?}"
    );
    assert!(
        entries.contains(&"min_runtime_version".to_owned()),
        "{entries:?}"
    );
}

#[test]
fn a_stored_runtime_below_the_required_one_is_warned() {
    let bytes = too_low(&mut ModelBuilder::new())
        .min_runtime_version(&RuntimeVersion::new(1, 5, 0))
        .finish();
    let model = Model::from_bytes(&bytes).unwrap();
    let warnings = model.stamp_warnings();
    assert_eq!(
        warnings[2],
        StampWarning::MinRuntimeVersionTooLow {
            stored: "1.5.0".to_owned(),
            required: RuntimeVersion::new(2, 2, 0),
        }
    );
    let stamped = stamp(&bytes, StampMode::Raise).unwrap();
    assert_eq!(stamped.min_runtime_before.as_deref(), Some("1.5.0"));
    let after = Model::from_bytes(&stamped.bytes).unwrap();
    assert_eq!(after.stored_min_runtime_version(), Some("2.2.0"));
    assert!(after.stamp_warnings().is_empty());
}

#[test]
fn a_model_stamped_as_tf_requires_has_no_warning() {
    // Stored at what TF's rules require, with the runtime they need: nothing to say. A
    // stored version above the required one is not a warning either (TF's UpdateOpVersion
    // never lowers a version).
    let mut builder = ModelBuilder::new();
    let x = TensorSpec::new(ElementType::Float32, &[1, 4]);
    let relu = OpSignature::new(
        BuiltinOperator::RELU,
        vec![x.clone()],
        vec![x],
        Params::None,
    );
    builder.signature(&relu, OpVersion::new(2));
    let bytes = builder
        .min_runtime_version(&RuntimeVersion::new(2, 1, 0))
        .finish();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(
        model.stamp_warnings().is_empty(),
        "{:?}",
        model.stamp_warnings()
    );

    // No operator with an entry in TF's runtime table (a custom op only): no metadata is
    // needed, and none is warned about.
    let mut builder = ModelBuilder::new();
    let code = builder.custom_code("MyOp", OpVersion::new(7));
    let t = builder.tensor(&TensorSpec::new(ElementType::Float32, &[1]));
    builder.operator(code, &[t], &[t], None);
    let bytes = builder.finish();
    let model = Model::from_bytes(&bytes).unwrap();
    assert!(
        model.stamp_warnings().is_empty(),
        "{:?}",
        model.stamp_warnings()
    );
}

#[test]
fn real_converter_models_stamped_too_low_are_warned() {
    // TF 2.21's converter wrote add__int16x8.tflite with ADD v2, QUANTIZE v1, DEQUANTIZE v2,
    // where TF's op_version.cc requires v3, v2, v3.
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/tflite/add__int16x8.tflite"
    ))
    .unwrap();
    let model = Model::from_bytes(&bytes).unwrap();
    let warnings = model.stamp_warnings();
    assert_eq!(too_low_codes(&warnings), [(0, 2, 3), (1, 1, 2), (2, 2, 3)]);
    assert!(matches!(
        warnings.last(),
        Some(StampWarning::MinRuntimeVersionTooLow { .. })
    ));
}
