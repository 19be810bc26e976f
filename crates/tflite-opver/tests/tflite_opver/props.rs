//! Property tests: a signature written into a model reads back as the same signature with the
//! same version (so the version rules see through the FlatBuffer exactly what was meant), and
//! arbitrary or mutated bytes never panic the reader, the rules or the stamper.

use proptest::prelude::*;
use tflite_opver::{
    BuiltinOperator, ElementType, Model, ModelBuilder, OpSignature, OpVersion, Quantization,
    StampMode, TensorSpec, op_version,
    params::{
        AddParams, Conv2DParams, DepthwiseConv2DParams, FullyConnectedParams, GatherParams,
        LstmKernelType, LstmParams, Params, StridedSliceParams, WeightsFormat,
    },
    stamp, version_reason,
};

fn element_type() -> impl Strategy<Value = ElementType> {
    (0i8..=18).prop_map(|v| ElementType::from_schema(v).expect("defined"))
}

fn tensor() -> impl Strategy<Value = TensorSpec> {
    (
        element_type(),
        prop::collection::vec(1i32..9, 0..6),
        any::<bool>(),
        any::<bool>(),
        prop::option::of((1usize..5, 0i32..3, 0.1f32..4.0)),
        any::<bool>(),
    )
        .prop_map(|(ty, dims, is_const, dynamic, quant, sparse)| {
            let mut t = TensorSpec::new(ty, &dims);
            t.is_const = is_const;
            t.is_shape_dynamic = dynamic;
            t.is_sparse = sparse;
            t.quantization = quant.map(|(n, dim, scale)| Quantization {
                scale_count: n,
                first_scale: Some(scale),
                quantized_dimension: dim,
            });
            t
        })
}

fn op_and_params() -> impl Strategy<Value = (BuiltinOperator, Params)> {
    prop_oneof![
        (1i32..3, 0i8..2).prop_map(|(d, bias)| (
            BuiltinOperator::CONV_2D,
            Params::Conv2D(Conv2DParams {
                dilation_width_factor: d,
                quantized_bias_type: if bias == 0 {
                    ElementType::Float32
                } else {
                    ElementType::Int64
                },
                ..Default::default()
            })
        )),
        (1i32..3).prop_map(|d| (
            BuiltinOperator::DEPTHWISE_CONV_2D,
            Params::DepthwiseConv2D(DepthwiseConv2DParams {
                dilation_height_factor: d,
                ..Default::default()
            })
        )),
        (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(k, a, s)| (
            BuiltinOperator::FULLY_CONNECTED,
            Params::FullyConnected(FullyConnectedParams {
                keep_num_dims: k,
                asymmetric_quantize_inputs: a,
                weights_format: if s {
                    WeightsFormat::Shuffled4x16Int8
                } else {
                    WeightsFormat::Default
                },
                ..Default::default()
            })
        )),
        any::<bool>().prop_map(|p| (
            BuiltinOperator::ADD,
            Params::Add(AddParams {
                pot_scale_int16: p,
                ..Default::default()
            })
        )),
        (0i32..2).prop_map(|b| (
            BuiltinOperator::GATHER,
            Params::Gather(GatherParams {
                axis: 0,
                batch_dims: b
            })
        )),
        (any::<bool>(), any::<bool>()).prop_map(|(basic, a)| (
            BuiltinOperator::LSTM,
            Params::Lstm(LstmParams {
                kernel_type: if basic {
                    LstmKernelType::Basic
                } else {
                    LstmKernelType::Full
                },
                asymmetric_quantize_inputs: a,
                ..Default::default()
            })
        )),
        (0i32..3, any::<bool>()).prop_map(|(e, o)| (
            BuiltinOperator::STRIDED_SLICE,
            Params::StridedSlice(StridedSliceParams {
                ellipsis_mask: e,
                offset: o,
                ..Default::default()
            })
        )),
        prop::sample::select(vec![
            BuiltinOperator::MUL,
            BuiltinOperator::CAST,
            BuiltinOperator::QUANTIZE,
            BuiltinOperator::DEQUANTIZE,
            BuiltinOperator::TRANSPOSE,
            BuiltinOperator::SUB,
            BuiltinOperator::RELU,
            BuiltinOperator::SLICE,
            BuiltinOperator::EMBEDDING_LOOKUP,
        ])
        .prop_map(|op| (op, Params::defaults_for(op))),
    ]
}

fn signature() -> impl Strategy<Value = OpSignature> {
    (
        op_and_params(),
        prop::collection::vec(prop::option::of(tensor()), 1..5),
        prop::collection::vec(tensor(), 1..3),
        any::<bool>(),
    )
        .prop_map(|((op, params), inputs, outputs, with_options)| {
            let inputs = inputs
                .into_iter()
                .map(|t| t.unwrap_or_else(TensorSpec::absent))
                .collect();
            let sig = OpSignature::new(op, inputs, outputs, params);
            if with_options {
                sig
            } else {
                sig.without_options()
            }
        })
}

/// The signature as read back: the reader fills in tensor indices.
fn without_indices(mut sig: OpSignature) -> OpSignature {
    for t in sig.inputs.iter_mut().chain(sig.outputs.iter_mut()) {
        t.tensor_index = None;
    }
    sig
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_written_signature_reads_back_with_the_same_version(sig in signature()) {
        let bytes = ModelBuilder::new().signature(&sig, OpVersion::ONE).finish();
        let model = Model::from_bytes(&bytes).expect("our own output reads");
        let at = model.operators().next().expect("one operator");
        let read = without_indices(model.signature(at).unwrap());
        prop_assert_eq!(&read, &sig);
        prop_assert_eq!(model.required_versions()[0], op_version(&sig).max(OpVersion::ONE));
        // The explained path returns the same version, with a reason.
        let why = version_reason(&sig);
        prop_assert_eq!(why.version(), op_version(&sig));
        prop_assert!(!why.rule().is_empty());
        prop_assert_eq!(model.required_version_reasons()[0].version(), model.required_versions()[0]);
        // Minimizing stamps exactly that version, and the result still reads the same.
        let stamped = stamp(&bytes, StampMode::Minimize).unwrap();
        let again = Model::from_bytes(&stamped.bytes).unwrap();
        prop_assert_eq!(again.operator_codes()[0].version, model.required_versions()[0]);
        prop_assert_eq!(without_indices(again.signature(at).unwrap()), sig);
    }

    #[test]
    fn arbitrary_bytes_never_panic(mut bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if bytes.len() >= 8 {
            bytes[4..8].copy_from_slice(b"TFL3");
        }
        if let Ok(model) = Model::from_bytes(&bytes) {
            let _ = model.required_versions();
            let _ = stamp(&bytes, StampMode::Minimize);
        }
    }

    #[test]
    fn mutated_models_never_panic(
        sig in signature(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = ModelBuilder::new().signature(&sig, OpVersion::new(2)).finish();
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if let Ok(model) = Model::from_bytes(&bytes) {
            for at in model.operators() {
                let _ = op_version(&model.signature(at).unwrap());
            }
            for mode in [StampMode::Raise, StampMode::Minimize] {
                if let Ok(stamped) = stamp(&bytes, mode) {
                    prop_assert!(Model::from_bytes(&stamped.bytes).is_ok());
                }
            }
        }
    }
}
