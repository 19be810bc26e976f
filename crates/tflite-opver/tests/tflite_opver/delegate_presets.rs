//! The GPU, NNAPI and XNNPACK presets against the version checks read in TensorFlow Lite's
//! delegate sources (`tensorflow/lite/delegates/gpu/common/model_builder.cc`,
//! `tensorflow/lite/delegates/nnapi/nnapi_delegate.cc`,
//! `tensorflow/lite/delegates/xnnpack/xnnpack_delegate.cc`; LiteRT's copies at f67457790c9c).

use tflite_opver::{
    BuiltinOperator as Op, Delegate, ElementType, OpSignature, OpVersion, OperatorKind, Placement,
    Refusal, TensorSpec, params::Params,
};

fn sig(op: Op) -> OpSignature {
    let t = TensorSpec::new(ElementType::Float32, &[1, 4]);
    OpSignature::new(op, vec![t.clone(), t.clone()], vec![t], Params::None)
}

fn custom(name: &str) -> OpSignature {
    let mut s = sig(Op::CUSTOM);
    s.custom_name = Some(name.to_owned());
    s
}

fn v(n: i32) -> OpVersion {
    OpVersion::new(n)
}

/// The highest version `delegate` takes of `op`, judged through `place` (so the lookup, the
/// ceiling and the exclusion are all exercised), searched up to 20.
fn ceiling(delegate: &Delegate, op: &OpSignature) -> Option<i32> {
    let mut highest = None;
    for n in 1..=20 {
        match delegate.place(op, v(n)) {
            Placement::Delegate => highest = Some(n),
            Placement::Cpu(Refusal::VersionTooNew { max, requested }) => {
                assert_eq!(requested, v(n));
                assert_eq!(Some(max.get()), highest, "{op:?}: ceiling reported");
                return highest;
            }
            Placement::Cpu(Refusal::UnsupportedOp) => return None,
            Placement::Cpu(other) => panic!("unexpected {other:?}"),
        }
    }
    highest
}

/// `CheckMaxSupportedOpVersion(registration, N)` in the GPU model builder's parsers.
#[test]
fn gpu_ceilings_are_tensorflows() {
    let gpu = Delegate::gpu();
    for (op, max) in [
        (Op::CONV_2D, 6),           // Conv2DOperationParser
        (Op::DEPTHWISE_CONV_2D, 6), // DepthwiseConvolutionOperationParser
        (Op::FULLY_CONNECTED, 9),   // FullyConnectedOperationParser
        (Op::MUL, 3),               // ElementwiseOperationParser, MUL
        (Op::ADD, 2),               // ElementwiseOperationParser, others
        (Op::SQUARED_DIFFERENCE, 2),
        (Op::TRANSPOSE_CONV, 3), // TransposeConvBuiltinOperationParser
        (Op::STRIDED_SLICE, 4),
        (Op::TRANSPOSE, 4),
        (Op::LSTM, 4),
        (Op::DEQUANTIZE, 3),
        (Op::QUANTIZE, 2),
        (Op::RESIZE_BILINEAR, 3),
        (Op::RESIZE_NEAREST_NEIGHBOR, 3),
        (Op::GATHER, 1),
        (Op::RESHAPE, 1),
        (Op::LEAKY_RELU, 2), // ReLUOperationParser
        (Op::MIRROR_PAD, 2), // PadOperationParser
        (Op::SELECT_V2, 1),
    ] {
        assert_eq!(ceiling(&gpu, &sig(op)), Some(max), "GPU {op}");
    }
    assert_eq!(ceiling(&gpu, &custom("MaxPoolingWithArgmax2D")), Some(2));
    // Parsers without a version check take every version.
    for op in [Op::BATCH_MATMUL, Op::CAST, Op::MEAN, Op::SPLIT, Op::TILE] {
        assert_eq!(ceiling(&gpu, &sig(op)), Some(20), "GPU {op}");
        assert!(
            !gpu.capability(OperatorKind::Builtin(op))
                .unwrap()
                .has_version_ceiling()
        );
    }
    assert_eq!(
        ceiling(&gpu, &custom("Convolution2DTransposeBias")),
        Some(20)
    );
    // No parser at all.
    for op in [Op::EMBEDDING_LOOKUP, Op::SVDF, Op::ARG_MAX] {
        assert_eq!(ceiling(&gpu, &sig(op)), None, "GPU {op}");
    }
    assert_eq!(ceiling(&gpu, &custom("MyOp")), None);

    let refused = gpu.partition([(0, &sig(Op::CONV_2D), v(7))]);
    assert_eq!(
        refused.decisions()[0].reason().unwrap(),
        "Max version supported: 6. Requested version 7."
    );
    assert!(gpu.not_modelled().unwrap().contains("not modelled"));
    // UnsupportedOperationParser.
    let unsupported = gpu.partition([(0, &sig(Op::CONV_2D), v(1)), (1, &sig(Op::SVDF), v(1))]);
    assert_eq!(
        unsupported.to_string(),
        "Following operations are not supported by GPU delegate:\n\
         SVDF: Operation is not supported.\n\
         1 operations will run on the GPU, and the remaining 1 operations will run on the CPU."
    );
}

/// `ExpectMaxOpVersion` / `ExpectOpVersion` in `NNAPIDelegateKernel::Validate`.
#[test]
fn nnapi_ceilings_are_tensorflows() {
    let nnapi = Delegate::nnapi();
    for (op, max) in [
        (Op::CONV_2D, 5),
        (Op::DEPTHWISE_CONV_2D, 3),
        (Op::FULLY_CONNECTED, 5),
        (Op::ADD, 2),
        (Op::MUL, 2), // 3 only when an accelerator is named
        (Op::SUB, 3),
        (Op::TRANSPOSE_CONV, 4),
        (Op::LSTM, 3),
        (Op::SPLIT, 3),
        (Op::SOFTMAX, 2),
        (Op::RESHAPE, 1),
        (Op::GATHER, 2),
        (Op::REVERSE_V2, 3),
        (Op::DEQUANTIZE, 2),
        (Op::MAXIMUM, 3),
    ] {
        assert_eq!(ceiling(&nnapi, &sig(op)), Some(max), "NNAPI {op}");
    }
    assert_eq!(ceiling(&nnapi, &sig(Op::HARD_SWISH)), Some(20));
    assert_eq!(ceiling(&nnapi, &sig(Op::GELU)), None);

    let reason = |op, n| {
        nnapi.partition([(0, &sig(op), v(n))]).decisions()[0]
            .reason()
            .unwrap()
    };
    assert_eq!(reason(Op::CONV_2D, 6), "OP Version higher than 5");
    assert_eq!(reason(Op::RESHAPE, 2), "OP Version different from 1");
    assert_eq!(
        reason(Op::DEQUANTIZE, 3),
        "Supported op versions are 1 and 2 only"
    );
    assert_eq!(reason(Op::GELU, 1), "Unsupported operation type.");
}

/// XNNPACK's one version check: FULLY_CONNECTED version 8 (sparse weights).
#[test]
fn xnnpack_refuses_only_sparse_fully_connected() {
    let xnnpack = Delegate::xnnpack();
    let fc = sig(Op::FULLY_CONNECTED);
    for n in 1..=20 {
        let placement = xnnpack.place(&fc, v(n));
        if n == 8 {
            assert_eq!(
                placement,
                Placement::Cpu(Refusal::VersionExcluded { version: v(8) })
            );
            assert!(matches!(&placement, Placement::Cpu(r) if r.is_version()));
        } else {
            assert_eq!(placement, Placement::Delegate, "v{n}");
        }
    }
    assert_eq!(
        xnnpack.partition([(0, &fc, v(8))]).decisions()[0]
            .reason()
            .unwrap(),
        "Unsupported version 8 of FullyConnected."
    );
    for op in [
        Op::CONV_2D,
        Op::DEPTHWISE_CONV_2D,
        Op::ADD,
        Op::TRANSPOSE_CONV,
    ] {
        assert_eq!(ceiling(&xnnpack, &sig(op)), Some(20), "XNNPACK {op}");
    }
    assert_eq!(ceiling(&xnnpack, &sig(Op::EMBEDDING_LOOKUP)), None);
    assert_eq!(
        xnnpack
            .partition([(3, &sig(Op::EMBEDDING_LOOKUP), v(1))])
            .decisions()[0]
            .reason()
            .unwrap(),
        "unsupported operator type EMBEDDING_LOOKUP in node #3"
    );
    assert_eq!(
        ceiling(&xnnpack, &custom("odml.scaled_dot_product_attention")),
        Some(20)
    );
}

/// Every row of every preset: a version is taken exactly when it is at most the ceiling and
/// not the excluded one, and every refusal of a listed operator is on version grounds.
#[test]
fn every_row_of_every_preset() {
    for delegate in [Delegate::gpu(), Delegate::nnapi(), Delegate::xnnpack()] {
        let mut rows = 0;
        for row in delegate.capabilities() {
            rows += 1;
            let signature = match row.op() {
                OperatorKind::Builtin(op) => sig(op),
                OperatorKind::Custom(name) => custom(name),
            };
            for n in 1..=16 {
                let taken = v(n) <= row.max_version() && row.excluded_version() != Some(v(n));
                assert_eq!(row.accepts_version(v(n)), taken);
                match delegate.place(&signature, v(n)) {
                    Placement::Delegate => assert!(taken, "{} {} v{n}", delegate.name(), row.op()),
                    Placement::Cpu(refusal) => {
                        assert!(!taken && refusal.is_version(), "{refusal:?}");
                    }
                }
            }
            assert!(row.check().is_none());
        }
        assert!(rows > 20, "{}: {rows} rows", delegate.name());
        assert!(delegate.not_modelled().is_some());
    }
}
