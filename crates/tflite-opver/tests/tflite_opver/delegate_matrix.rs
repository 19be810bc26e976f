//! Delegate partitioning: every capability max version × every requested version, signature
//! checks, custom operators, and the summary in TF's words.

use tflite_opver::{
    BuiltinOperator, Capability, Check, Delegate, ElementType, OpSignature, OpVersion, Placement,
    Refusal, TensorSpec, params::Params,
};

fn sig(op: BuiltinOperator, ty: ElementType, dims: &[i32]) -> OpSignature {
    let t = TensorSpec::new(ty, dims);
    OpSignature::new(op, vec![t.clone(), t.clone()], vec![t], Params::None)
}

fn custom(name: &str) -> OpSignature {
    let mut s = sig(BuiltinOperator::CUSTOM, ElementType::Float32, &[1]);
    s.custom_name = Some(name.to_owned());
    s
}

fn v(n: i32) -> OpVersion {
    OpVersion::new(n)
}

const FLOAT_ONLY: Check = Check::new("Only float32 is supported.", |s| {
    s.input_type(0) == ElementType::Float32
});
const RANK_4: Check = Check::new("Expected a 4D tensor.", |s| {
    s.input(0).is_some_and(|t| t.rank() == 4)
});

#[test]
fn max_version_matrix() {
    for max in 1..=6 {
        let delegate = Delegate::new("GPU", [Capability::new(BuiltinOperator::CONV_2D, max)]);
        let conv = sig(
            BuiltinOperator::CONV_2D,
            ElementType::Float32,
            &[1, 8, 8, 3],
        );
        for requested in 1..=8 {
            let placement = delegate.place(&conv, v(requested));
            if requested <= max {
                assert_eq!(placement, Placement::Delegate, "max {max}, v{requested}");
            } else {
                assert_eq!(
                    placement,
                    Placement::Cpu(Refusal::VersionTooNew {
                        max: v(max),
                        requested: v(requested)
                    })
                );
                let partition = delegate.partition([(0, &conv, v(requested))]);
                assert_eq!(
                    partition.decisions()[0].reason().unwrap(),
                    format!("Max version supported: {max}. Requested version {requested}.")
                );
            }
        }
    }
}

#[test]
fn checks_and_versions_combine() {
    // Rows: (has check, signature passes check) × (version ok, version too new).
    let delegate = Delegate::new(
        "GPU",
        [Capability::new(BuiltinOperator::ADD, 2).with_check(FLOAT_ONLY)],
    );
    let float = sig(BuiltinOperator::ADD, ElementType::Float32, &[4]);
    let int8 = sig(BuiltinOperator::ADD, ElementType::Int8, &[4]);
    assert_eq!(delegate.place(&float, v(2)), Placement::Delegate);
    assert_eq!(
        delegate.place(&int8, v(2)),
        Placement::Cpu(Refusal::CheckFailed {
            reason: "Only float32 is supported."
        })
    );
    // The version is judged first.
    for s in [&float, &int8] {
        assert!(matches!(
            delegate.place(s, v(3)),
            Placement::Cpu(Refusal::VersionTooNew { .. })
        ));
    }
    // Without a check, the signature does not matter.
    let plain = Delegate::new("GPU", [Capability::new(BuiltinOperator::ADD, 2)]);
    assert_eq!(plain.place(&int8, v(1)), Placement::Delegate);
}

#[test]
fn unknown_ops_and_custom_ops() {
    let delegate = Delegate::new(
        "NPU",
        [
            Capability::new(BuiltinOperator::ADD, 1),
            Capability::custom("Convolution2DTransposeBias", 1),
        ],
    );
    let mul = sig(BuiltinOperator::MUL, ElementType::Float32, &[4]);
    assert_eq!(
        delegate.place(&mul, v(1)),
        Placement::Cpu(Refusal::UnsupportedOp)
    );
    assert_eq!(
        delegate.place(&custom("Convolution2DTransposeBias"), v(1)),
        Placement::Delegate
    );
    assert_eq!(
        delegate.place(&custom("Convolution2DTransposeBias"), v(2)),
        Placement::Cpu(Refusal::VersionTooNew {
            max: v(1),
            requested: v(2)
        })
    );
    let other = custom("MyOp");
    let partition = delegate.partition([(0, &mul, v(1)), (1, &other, v(1))]);
    let reasons: Vec<_> = partition
        .decisions()
        .iter()
        .map(|d| (d.op_name.as_str(), d.reason().unwrap()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("MUL", "Not supported op MUL".to_owned()),
            ("MyOp", "Not supported op MyOp".to_owned())
        ]
    );
    // A CUSTOM code without a name is judged as the builtin CUSTOM.
    let nameless = sig(BuiltinOperator::CUSTOM, ElementType::Float32, &[1]);
    assert_eq!(
        delegate.place(&nameless, v(1)),
        Placement::Cpu(Refusal::UnsupportedOp)
    );
}

#[test]
fn later_rows_replace_earlier() {
    let delegate = Delegate::new(
        "GPU",
        [
            Capability::new(BuiltinOperator::ADD, 1),
            Capability::new(BuiltinOperator::ADD, 3),
        ],
    );
    let add = sig(BuiltinOperator::ADD, ElementType::Float32, &[4]);
    assert_eq!(delegate.place(&add, v(3)), Placement::Delegate);
    assert_eq!(
        delegate
            .capability(tflite_opver::OperatorKind::Builtin(BuiltinOperator::ADD))
            .map(|c| c.max_version()),
        Some(v(3))
    );
}

#[test]
fn model_partition_and_summary() {
    let delegate = Delegate::new(
        "GPU",
        [
            Capability::new(BuiltinOperator::CONV_2D, 6).with_check(RANK_4),
            Capability::new(BuiltinOperator::ADD, 2),
            Capability::new(BuiltinOperator::TRANSPOSE_CONV, 3),
        ],
    );
    let conv4 = sig(
        BuiltinOperator::CONV_2D,
        ElementType::Float32,
        &[1, 8, 8, 3],
    );
    let conv2 = sig(BuiltinOperator::CONV_2D, ElementType::Float32, &[8, 3]);
    let add = sig(BuiltinOperator::ADD, ElementType::Float32, &[4]);
    let tconv = sig(
        BuiltinOperator::TRANSPOSE_CONV,
        ElementType::Float32,
        &[1, 8, 8, 3],
    );
    let dequant = sig(BuiltinOperator::DEQUANTIZE, ElementType::Float16, &[4]);
    let model = [
        (&conv4, 1),
        (&add, 1),
        (&tconv, 4),
        (&conv2, 1),
        (&dequant, 1),
        (&tconv, 4), // a second refusal with the same line
        (&add, 2),
    ];
    let partition = delegate.partition(model.iter().enumerate().map(|(i, &(s, n))| (i, s, v(n))));
    assert_eq!(partition.decisions().len(), 7);
    assert_eq!(partition.delegated(), 3);
    assert_eq!(partition.on_cpu(), 4);
    assert!(!partition.is_fully_delegated());
    let refused: Vec<usize> = partition.refusals().map(|d| d.index).collect();
    assert_eq!(refused, [2, 3, 4, 5]);
    assert_eq!(
        partition.to_string(),
        "Following operations are not supported by GPU delegate:\n\
         CONV_2D: Expected a 4D tensor.\n\
         DEQUANTIZE: Not supported op DEQUANTIZE\n\
         TRANSPOSE_CONV: Max version supported: 3. Requested version 4.\n\
         3 operations will run on the GPU, and the remaining 4 operations will run on the CPU."
    );

    // Fully delegated: only the summary line.
    let all = delegate.partition([(0, &conv4, v(6)), (1, &add, v(2))]);
    assert!(all.is_fully_delegated());
    assert_eq!(
        all.to_string(),
        "2 operations will run on the GPU, and the remaining 0 operations will run on the CPU."
    );

    // An empty model.
    let none = delegate.partition(std::iter::empty());
    assert_eq!(none.delegated() + none.on_cpu(), 0);
}
