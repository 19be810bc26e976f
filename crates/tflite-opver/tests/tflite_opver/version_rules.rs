//! One test per versioned op rule, from hand-built signatures: each branch of TF's
//! `GetBuiltinOperatorVersion` (`op_version.cc`), newest feature first. The oracle tests prove
//! agreement on real files; these pin each rule down on its own, readable at a glance.

use tflite_opver::{
    BuiltinOperator as B, ElementType, OpSignature, Quantization, TensorSpec, op_version, params::*,
};

use ElementType::{
    BFloat16, Bool, Complex64, Float16, Float32, Float64, Int4, Int8, Int16, Int32, Int64,
    String as Str, UInt8, UInt16, UInt32,
};

fn t(ty: ElementType) -> TensorSpec {
    TensorSpec::new(ty, &[1, 4, 4, 8])
}

fn ranked(ty: ElementType, rank: usize) -> TensorSpec {
    TensorSpec::new(ty, &vec![2; rank])
}

/// The version of `op` with inputs and outputs of the given types and `params`.
fn v(
    op: tflite_opver::BuiltinOperator,
    ins: &[ElementType],
    outs: &[ElementType],
    params: Params,
) -> i32 {
    let sig = OpSignature::new(
        op,
        ins.iter().map(|&ty| t(ty)).collect(),
        outs.iter().map(|&ty| t(ty)).collect(),
        params,
    );
    op_version(&sig).get()
}

fn vs(
    op: tflite_opver::BuiltinOperator,
    ins: Vec<TensorSpec>,
    outs: Vec<TensorSpec>,
    params: Params,
) -> i32 {
    op_version(&OpSignature::new(op, ins, outs, params)).get()
}

fn plain(op: tflite_opver::BuiltinOperator, ins: &[ElementType], outs: &[ElementType]) -> i32 {
    v(op, ins, outs, Params::defaults_for(op))
}

#[test]
fn conv_2d() {
    let conv = |ins: &[ElementType], out, bias| {
        v(
            B::CONV_2D,
            ins,
            &[out],
            Params::Conv2D(Conv2DParams {
                quantized_bias_type: bias,
                ..Default::default()
            }),
        )
    };
    assert_eq!(conv(&[Float32, Float32], Float32, Float32), 1);
    assert_eq!(conv(&[Float32, Int8], Float32, Float32), 2, "hybrid");
    assert_eq!(conv(&[Int8, Int8], Int8, Float32), 3);
    assert_eq!(
        conv(&[Int16, Int16], Int16, Float32),
        4,
        "int16 x int16 (TF crashes here)"
    );
    assert_eq!(conv(&[Int8, Int4], Int8, Float32), 7);
    assert_eq!(
        conv(&[Int16, Int8], Int16, Float32),
        8,
        "schema default FLOAT32 is a bias type"
    );
    // Per-channel hybrid, grouped.
    let w = t(Int8)
        .constant()
        .quantized(Quantization::per_channel(1, 0));
    assert_eq!(
        vs(
            B::CONV_2D,
            vec![t(Float32), w],
            vec![t(Float32)],
            Params::defaults_for(B::CONV_2D)
        ),
        5
    );
    let grouped = TensorSpec::new(Float32, &[8, 3, 3, 4]);
    assert_eq!(
        vs(
            B::CONV_2D,
            vec![t(Float32), grouped],
            vec![t(Float32)],
            Params::defaults_for(B::CONV_2D)
        ),
        6
    );
    // Without an options table TF sees a zero bias type: int16x8 stays below 8.
    let sig = OpSignature::new(
        B::CONV_2D,
        vec![t(Int16), t(Int8)],
        vec![t(Int16)],
        Params::None,
    )
    .without_options();
    assert_eq!(op_version(&sig).get(), 1);
}

#[test]
fn depthwise_conv_2d() {
    let dw = |ins: &[ElementType], out, dilation| {
        v(
            B::DEPTHWISE_CONV_2D,
            ins,
            &[out],
            Params::DepthwiseConv2D(DepthwiseConv2DParams {
                dilation_width_factor: dilation,
                dilation_height_factor: 1,
                ..Default::default()
            }),
        )
    };
    assert_eq!(dw(&[Float32, Float32], Float32, 1), 1);
    assert_eq!(dw(&[Float32, Float32], Float32, 2), 2, "dilation");
    assert_eq!(dw(&[Int8, Int8], Int8, 1), 3);
    assert_eq!(dw(&[Float32, Int8], Float32, 1), 4, "hybrid");
    assert_eq!(dw(&[Int16, Int16], Int16, 1), 5);
    assert_eq!(dw(&[Int8, Int4], Int8, 1), 7);
    let w = TensorSpec::new(Int8, &[1, 3, 3, 8]).quantized(Quantization::per_channel(8, 3));
    assert_eq!(
        vs(
            B::DEPTHWISE_CONV_2D,
            vec![t(Float32), w],
            vec![t(Float32)],
            Params::defaults_for(B::DEPTHWISE_CONV_2D)
        ),
        6
    );
    // No options table: TF's zero-filled struct has dilation 0, which is not 1.
    let sig = OpSignature::new(
        B::DEPTHWISE_CONV_2D,
        vec![t(Float32), t(Float32)],
        vec![t(Float32)],
        Params::None,
    )
    .without_options();
    assert_eq!(op_version(&sig).get(), 2);
}

#[test]
fn fully_connected() {
    let fc = |ins: &[ElementType], out, p: FullyConnectedParams| {
        v(B::FULLY_CONNECTED, ins, &[out], Params::FullyConnected(p))
    };
    let d = FullyConnectedParams::default();
    assert_eq!(fc(&[Float32, Float32, Float32], Float32, d), 1);
    assert_eq!(
        fc(
            &[Float32, Float32, Float32],
            Float32,
            FullyConnectedParams {
                weights_format: WeightsFormat::Shuffled4x16Int8,
                ..d
            }
        ),
        2
    );
    assert_eq!(fc(&[Float32, Int8, Float32], Float32, d), 3);
    assert_eq!(fc(&[Int8, Int8, Int32], Int8, d), 4);
    assert_eq!(
        fc(
            &[Float32, Float32, Float32],
            Float32,
            FullyConnectedParams {
                keep_num_dims: true,
                ..d
            }
        ),
        5
    );
    assert_eq!(fc(&[Float32, Float32], Float32, d), 6, "no bias");
    assert_eq!(fc(&[Int16, Int16, Int64], Int16, d), 7);
    assert_eq!(
        fc(
            &[Float32, Int8, Float32],
            Float32,
            FullyConnectedParams {
                asymmetric_quantize_inputs: true,
                ..d
            }
        ),
        9
    );
    assert_eq!(fc(&[Int8, Int4, Int32], Int8, d), 10);
    assert_eq!(fc(&[Int16, Int8, Int64], Int16, d), 11);
    assert_eq!(fc(&[Int16, Int4, Int64], Int16, d), 13);
    let sparse = TensorSpec::new(Float32, &[8, 8]).sparse();
    assert_eq!(
        vs(
            B::FULLY_CONNECTED,
            vec![t(Float32), sparse, t(Float32)],
            vec![t(Float32)],
            Params::FullyConnected(d)
        ),
        8
    );
    let per_channel = TensorSpec::new(Int8, &[8, 8]).quantized(Quantization::per_channel(8, 0));
    assert_eq!(
        vs(
            B::FULLY_CONNECTED,
            vec![t(Float32), per_channel, t(Float32)],
            vec![t(Float32)],
            Params::FullyConnected(d)
        ),
        12
    );
}

#[test]
fn binary_arithmetic() {
    let add = |ty, quantized: bool, pot| {
        let x = if quantized {
            t(ty).quantized(Quantization::per_tensor(1.0))
        } else {
            t(ty)
        };
        vs(
            B::ADD,
            vec![x.clone(), x.clone()],
            vec![x],
            Params::Add(AddParams {
                pot_scale_int16: pot,
                ..Default::default()
            }),
        )
    };
    assert_eq!(add(Float32, false, true), 1);
    assert_eq!(add(Int8, true, true), 2);
    assert_eq!(add(Int16, true, false), 3);
    assert_eq!(add(Int16, true, true), 1);
    assert_eq!(add(Int64, false, true), 4);
    assert_eq!(add(Int16, false, true), 5, "unquantized int16");

    let sub = |ty, pot| {
        v(
            B::SUB,
            &[ty, ty],
            &[ty],
            Params::Sub(SubParams {
                pot_scale_int16: pot,
                ..Default::default()
            }),
        )
    };
    assert_eq!(sub(Float32, true), 1);
    assert_eq!(sub(Int8, true), 2);
    assert_eq!(
        vs(
            B::SUB,
            vec![ranked(Float32, 5), ranked(Float32, 1)],
            vec![ranked(Float32, 5)],
            Params::defaults_for(B::SUB)
        ),
        3
    );
    assert_eq!(sub(Int64, true), 4);
    assert_eq!(sub(Int16, false), 5);

    let q = |s: f32| t(Int8).quantized(Quantization::per_tensor(s));
    assert_eq!(plain(B::MUL, &[Float32, Float32], &[Float32]), 1);
    assert_eq!(
        vs(
            B::MUL,
            vec![q(0.1), q(0.1)],
            vec![q(0.5)],
            Params::defaults_for(B::MUL)
        ),
        2
    );
    assert_eq!(
        vs(
            B::MUL,
            vec![q(2.0), q(1.0)],
            vec![q(1.0)],
            Params::defaults_for(B::MUL)
        ),
        3,
        "rescale >= 1"
    );
    let q16 = t(Int16).quantized(Quantization::per_tensor(1.0));
    assert_eq!(
        vs(
            B::MUL,
            vec![q16.clone(), q16.clone()],
            vec![q16],
            Params::defaults_for(B::MUL)
        ),
        4
    );
    assert_eq!(plain(B::MUL, &[Int64, Int64], &[Int64]), 5);
    assert_eq!(plain(B::MUL, &[Complex64, Complex64], &[Complex64]), 6);
    assert_eq!(plain(B::MUL, &[Int16, Int16], &[Int16]), 7);
    assert_eq!(plain(B::MUL, &[UInt32, UInt32], &[UInt32]), 7);

    assert_eq!(plain(B::DIV, &[Float32, Float32], &[Float32]), 1);
    assert_eq!(
        vs(
            B::DIV,
            vec![ranked(Float32, 5), ranked(Float32, 2)],
            vec![ranked(Float32, 5)],
            Params::None
        ),
        2
    );
    for op in [B::MAXIMUM, B::MINIMUM] {
        assert_eq!(plain(op, &[Float32, Float32], &[Float32]), 1);
        assert_eq!(plain(op, &[Int8, Int8], &[Int8]), 2);
        assert_eq!(
            vs(
                op,
                vec![ranked(Float32, 5), ranked(Float32, 1)],
                vec![ranked(Float32, 5)],
                Params::None
            ),
            3
        );
        assert_eq!(plain(op, &[Int16, Int16], &[Int16]), 4);
    }
    assert_eq!(plain(B::FLOOR_DIV, &[Int32, Int32], &[Int32]), 1);
    assert_eq!(plain(B::FLOOR_DIV, &[Float32, Float32], &[Float32]), 2);
    assert_eq!(plain(B::FLOOR_DIV, &[Int8, Int8], &[Int8]), 3);
    assert_eq!(plain(B::FLOOR_MOD, &[Int16, Int16], &[Int16]), 2);
    assert_eq!(plain(B::SQUARED_DIFFERENCE, &[Int8, Int8], &[Int8]), 2);
}

#[test]
fn activations_and_unary() {
    for (op, int8, int16) in [
        (B::RELU, 2, 3),
        (B::TANH, 2, 3),
        (B::LOGISTIC, 2, 3),
        (B::SOFTMAX, 2, 3),
        (B::RELU6, 2, 3),
        (B::RSQRT, 2, 3),
        (B::LOG_SOFTMAX, 2, 1),
        (B::EXP, 2, 2),
        (B::LOG, 2, 2),
        (B::SQRT, 2, 2),
        (B::LEAKY_RELU, 1, 2),
        (B::GELU, 2, 1),
    ] {
        assert_eq!(plain(op, &[Float32], &[Float32]), 1, "{op}");
        assert_eq!(plain(op, &[Int8], &[Int8]), int8, "{op} int8");
        assert_eq!(plain(op, &[Int16], &[Int16]), int16, "{op} int16");
    }
    assert_eq!(plain(B::RELU, &[UInt8], &[UInt8]), 2);
    assert_eq!(plain(B::GELU, &[UInt8], &[UInt8]), 2);
    let abs_q = t(Int16).quantized(Quantization::per_tensor(1.0));
    assert_eq!(
        vs(B::ABS, vec![abs_q.clone()], vec![abs_q], Params::None),
        3
    );
    assert_eq!(plain(B::ABS, &[Int16], &[Int16]), 4);
    assert_eq!(plain(B::ABS, &[Int32], &[Int32]), 5);
    assert_eq!(plain(B::ABS, &[UInt8], &[UInt8]), 2);
    assert_eq!(plain(B::SIGN, &[Int32], &[Int32]), 2);
    assert_eq!(plain(B::L2_NORMALIZATION, &[Int8], &[Int8]), 2);
    assert_eq!(
        plain(B::L2_NORMALIZATION, &[Float32], &[Int8]),
        2,
        "the output decides"
    );
}

#[test]
fn pools_and_reductions() {
    for op in [B::MAX_POOL_2D, B::AVERAGE_POOL_2D] {
        assert_eq!(plain(op, &[Float32], &[Float32]), 1);
        assert_eq!(plain(op, &[Int8], &[Int8]), 2);
        assert_eq!(plain(op, &[Int16], &[Int16]), 3);
    }
    for (op, int16) in [
        (B::MEAN, 3),
        (B::REDUCE_MAX, 3),
        (B::REDUCE_MIN, 3),
        (B::SUM, 1),
        (B::REDUCE_PROD, 2),
    ] {
        assert_eq!(plain(op, &[Int8, Int32], &[Int8]), 2, "{op}");
        assert_eq!(plain(op, &[Int16, Int32], &[Int16]), int16, "{op}");
    }
}

#[test]
fn shapes_and_layout() {
    assert_eq!(
        vs(B::TRANSPOSE, vec![ranked(Float32, 4)], vec![], Params::None),
        1
    );
    assert_eq!(
        vs(B::TRANSPOSE, vec![ranked(Int8, 4)], vec![], Params::None),
        2
    );
    assert_eq!(
        vs(B::TRANSPOSE, vec![ranked(Bool, 4)], vec![], Params::None),
        3
    );
    assert_eq!(
        vs(B::TRANSPOSE, vec![ranked(Float32, 5)], vec![], Params::None),
        4
    );
    assert_eq!(
        vs(B::TRANSPOSE, vec![ranked(Int16, 4)], vec![], Params::None),
        5
    );
    assert_eq!(
        vs(B::TRANSPOSE, vec![ranked(Float32, 6)], vec![], Params::None),
        6
    );
    assert_eq!(
        vs(B::TRANSPOSE, vec![ranked(Int4, 4)], vec![], Params::None),
        7
    );

    assert_eq!(vs(B::SLICE, vec![ranked(Int8, 4)], vec![], Params::None), 2);
    assert_eq!(vs(B::SLICE, vec![ranked(Str, 4)], vec![], Params::None), 3);
    assert_eq!(
        vs(B::SLICE, vec![ranked(Int16, 4)], vec![], Params::None),
        4
    );
    assert_eq!(
        vs(B::SLICE, vec![ranked(Float32, 5)], vec![], Params::None),
        5
    );
    assert_eq!(
        vs(B::SLICE, vec![ranked(UInt32, 4)], vec![], Params::None),
        6
    );
    assert_eq!(vs(B::SLICE, vec![ranked(Int4, 4)], vec![], Params::None), 7);

    let ss = |x: TensorSpec, p: StridedSliceParams| {
        vs(B::STRIDED_SLICE, vec![x], vec![], Params::StridedSlice(p))
    };
    let d = StridedSliceParams::default();
    assert_eq!(ss(ranked(Float32, 4), d), 1);
    assert_eq!(ss(ranked(Int8, 4), d), 2);
    assert_eq!(ss(ranked(Bool, 4), d), 3);
    assert_eq!(ss(ranked(Float32, 5), d), 4);
    assert_eq!(ss(ranked(Str, 4), d), 5);
    assert_eq!(
        ss(
            ranked(Float32, 4),
            StridedSliceParams {
                new_axis_mask: 1,
                ..d
            }
        ),
        6
    );
    assert_eq!(ss(ranked(UInt32, 4), d), 7);
    assert_eq!(
        ss(ranked(Float32, 4), StridedSliceParams { offset: true, ..d }),
        8
    );

    for op in [B::PAD, B::PADV2] {
        assert_eq!(vs(op, vec![ranked(Int8, 4)], vec![], Params::None), 2);
        assert_eq!(vs(op, vec![ranked(Int16, 4)], vec![], Params::None), 3);
        assert_eq!(vs(op, vec![ranked(Float32, 5)], vec![], Params::None), 4);
        assert_eq!(vs(op, vec![ranked(Bool, 2)], vec![], Params::None), 5);
    }
    for op in [B::SPACE_TO_BATCH_ND, B::BATCH_TO_SPACE_ND] {
        assert_eq!(vs(op, vec![ranked(Float32, 4)], vec![], Params::None), 1);
        assert_eq!(vs(op, vec![ranked(Int8, 4)], vec![], Params::None), 2);
        assert_eq!(vs(op, vec![ranked(Float32, 3)], vec![], Params::None), 3);
        assert_eq!(vs(op, vec![ranked(Int16, 4)], vec![], Params::None), 4);
    }
    assert_eq!(
        vs(
            B::SELECT,
            vec![ranked(Bool, 5), ranked(Float32, 5), ranked(Float32, 5)],
            vec![],
            Params::None
        ),
        3
    );
    assert_eq!(plain(B::SELECT, &[Int8, Int8, Int8], &[Int8]), 2);
    assert_eq!(plain(B::SELECT, &[UInt32, UInt32, UInt32], &[UInt32]), 4);
    assert_eq!(plain(B::SELECT_V2, &[UInt32, UInt32, UInt32], &[UInt32]), 2);
    assert_eq!(plain(B::SQUEEZE, &[Str], &[Str]), 2);
    assert_eq!(plain(B::TILE, &[Str, Int32], &[Str]), 2);
    assert_eq!(plain(B::TILE, &[Int8, Int32], &[Int8]), 3);
    for op in [B::SPACE_TO_DEPTH, B::DEPTH_TO_SPACE, B::SPLIT_V] {
        assert_eq!(plain(op, &[Int8], &[Int8]), 2, "{op}");
    }
}

#[test]
fn concatenation_pack_unpack_split() {
    assert_eq!(plain(B::CONCATENATION, &[Int8, Int8], &[Int8]), 2);
    assert_eq!(plain(B::CONCATENATION, &[Int16, Int16], &[Int16]), 3);
    assert_eq!(plain(B::CONCATENATION, &[UInt32, UInt32], &[UInt32]), 4);
    assert_eq!(plain(B::CONCATENATION, &[Int4, Int4], &[Int4]), 5);
    assert_eq!(plain(B::PACK, &[Int8], &[Int8]), 2);
    assert_eq!(plain(B::PACK, &[Int16], &[Int16]), 3);
    assert_eq!(plain(B::PACK, &[UInt32], &[UInt32]), 4);
    assert_eq!(plain(B::UNPACK, &[UInt8], &[UInt8]), 2);
    assert_eq!(plain(B::UNPACK, &[Bool], &[Bool]), 3);
    assert_eq!(plain(B::UNPACK, &[Int16], &[Int16]), 4);
    // SPLIT's data is input 1 (input 0 is the axis).
    assert_eq!(plain(B::SPLIT, &[Int32, Float32], &[Float32]), 1);
    assert_eq!(plain(B::SPLIT, &[Int32, Int8], &[Int8]), 2);
    assert_eq!(plain(B::SPLIT, &[Int32, Int32], &[Int32]), 3);
    assert_eq!(plain(B::SPLIT, &[Int32, Int16], &[Int16]), 4);
}

#[test]
fn gather_and_friends() {
    let gather = |ins: &[ElementType], batch_dims| {
        v(
            B::GATHER,
            ins,
            &[Float32],
            Params::Gather(GatherParams {
                axis: 0,
                batch_dims,
            }),
        )
    };
    assert_eq!(gather(&[Float32, Int32], 0), 1);
    assert_eq!(gather(&[Int8, Int32], 0), 2);
    assert_eq!(gather(&[Bool, Int32], 0), 3);
    assert_eq!(gather(&[Int16, Int32], 0), 4);
    assert_eq!(gather(&[Float32, Int32], 1), 5);
    assert_eq!(gather(&[Float32, Int16], 0), 6);
    assert_eq!(gather(&[Int4, Int32], 0), 7);
    assert_eq!(plain(B::GATHER_ND, &[Str, Int32], &[Str]), 2);
    assert_eq!(plain(B::GATHER_ND, &[Int16, Int32], &[Int16]), 3);
    assert_eq!(plain(B::GATHER_ND, &[Float32, Int16], &[Float32]), 4);
    assert_eq!(plain(B::GATHER_ND, &[Bool, Int32], &[Bool]), 5);
    assert_eq!(plain(B::EMBEDDING_LOOKUP, &[Int32, Float32], &[Float32]), 1);
    assert_eq!(plain(B::EMBEDDING_LOOKUP, &[Int32, Int4], &[Float32]), 4);
    let table = TensorSpec::new(Int8, &[8, 4]).quantized(Quantization::per_channel(8, 0));
    assert_eq!(
        vs(
            B::EMBEDDING_LOOKUP,
            vec![t(Int32), table],
            vec![t(Float32)],
            Params::None
        ),
        4
    );
    assert_eq!(
        plain(B::SPARSE_TO_DENSE, &[Int32, Int32, Int64], &[Int64]),
        2
    );
    assert_eq!(
        plain(B::SPARSE_TO_DENSE, &[Int32, Int32, UInt8], &[UInt8]),
        3
    );
    assert_eq!(
        plain(
            B::DYNAMIC_UPDATE_SLICE,
            &[Float32, Float32, Int64],
            &[Float32]
        ),
        2
    );
    assert_eq!(
        plain(
            B::DYNAMIC_UPDATE_SLICE,
            &[Float16, Float16, Int32],
            &[Float16]
        ),
        3
    );
    assert_eq!(
        plain(B::DYNAMIC_UPDATE_SLICE, &[Int16, Int16, Int32], &[Int16]),
        4
    );
    assert_eq!(
        plain(B::DYNAMIC_UPDATE_SLICE, &[Int4, Int4, Int32], &[Int4]),
        5
    );
}

#[test]
fn comparisons_and_selection() {
    assert_eq!(plain(B::EQUAL, &[Int8, Int8], &[Bool]), 2);
    assert_eq!(plain(B::EQUAL, &[Str, Str], &[Bool]), 3);
    assert_eq!(plain(B::EQUAL, &[Int16, Int16], &[Bool]), 5);
    assert_eq!(plain(B::NOT_EQUAL, &[Str, Str], &[Bool]), 3);
    assert_eq!(plain(B::NOT_EQUAL, &[Int16, Int16], &[Bool]), 4);
    for op in [B::LESS, B::GREATER_EQUAL] {
        assert_eq!(plain(op, &[Int8, Int8], &[Bool]), 2);
        assert_eq!(plain(op, &[Int16, Int16], &[Bool]), 3);
    }
    for op in [B::GREATER, B::LESS_EQUAL] {
        assert_eq!(plain(op, &[Int8, Int8], &[Bool]), 2);
        assert_eq!(plain(op, &[Int16, Int16], &[Bool]), 1);
    }
    for op in [B::ARG_MAX, B::ARG_MIN] {
        assert_eq!(plain(op, &[Int8, Int32], &[Int32]), 2);
        assert_eq!(plain(op, &[Bool, Int32], &[Int32]), 3);
    }
    assert_eq!(plain(B::TOPK_V2, &[Int8, Int32], &[Int8, Int32]), 2);
    assert_eq!(plain(B::TOPK_V2, &[Float32, Int32], &[Float32, Int16]), 3);
    assert_eq!(plain(B::WHERE, &[Bool], &[Int64]), 1);
    assert_eq!(plain(B::WHERE, &[Float32], &[Int64]), 2);
    assert_eq!(plain(B::REVERSE_V2, &[Bool, Int32], &[Bool]), 2);
    assert_eq!(plain(B::REVERSE_V2, &[Int8, Int32], &[Int8]), 3);
}

#[test]
fn quantize_dequantize_cast() {
    assert_eq!(plain(B::QUANTIZE, &[Float32], &[Int8]), 1);
    assert_eq!(plain(B::QUANTIZE, &[Float32], &[Int16]), 2);
    let per_channel = TensorSpec::new(Int8, &[4, 2]).quantized(Quantization::per_channel(4, 0));
    assert_eq!(
        vs(
            B::QUANTIZE,
            vec![t(Float32)],
            vec![per_channel.clone()],
            Params::None
        ),
        3
    );
    assert_eq!(plain(B::QUANTIZE, &[Float32], &[Int4]), 4);
    assert_eq!(plain(B::DEQUANTIZE, &[UInt8], &[Float32]), 1);
    assert_eq!(plain(B::DEQUANTIZE, &[Int8], &[Float32]), 2);
    assert_eq!(plain(B::DEQUANTIZE, &[Float16], &[Float32]), 3);
    assert_eq!(plain(B::DEQUANTIZE, &[Int16], &[Float32]), 3);
    assert_eq!(
        vs(
            B::DEQUANTIZE,
            vec![per_channel],
            vec![t(Float32)],
            Params::None
        ),
        5
    );
    assert_eq!(plain(B::DEQUANTIZE, &[Int4], &[Float32]), 6);
    assert_eq!(plain(B::CAST, &[Float32], &[Int32]), 1);
    assert_eq!(plain(B::CAST, &[UInt32], &[Int32]), 2);
    assert_eq!(plain(B::CAST, &[Int8], &[Float32]), 3);
    assert_eq!(plain(B::CAST, &[Float32], &[UInt16]), 4);
    assert_eq!(plain(B::CAST, &[Float64], &[Float32]), 5);
    assert_eq!(plain(B::CAST, &[Int4], &[Float32]), 6);
    assert_eq!(plain(B::CAST, &[BFloat16], &[Float32]), 7);
    assert_eq!(plain(B::FAKE_QUANT, &[Float32], &[Float32]), 1);
    assert_eq!(
        v(
            B::FAKE_QUANT,
            &[Float32],
            &[Float32],
            Params::FakeQuant(FakeQuantParams {
                narrow_range: true,
                ..Default::default()
            })
        ),
        2
    );
}

#[test]
fn recurrent_ops() {
    let lstm = |ins: &[ElementType], out, kernel, asym| {
        v(
            B::LSTM,
            ins,
            &[out],
            Params::Lstm(LstmParams {
                kernel_type: kernel,
                asymmetric_quantize_inputs: asym,
                ..Default::default()
            }),
        )
    };
    use LstmKernelType::{Basic, Full};
    assert_eq!(lstm(&[Float32, Float32, Float32], Float32, Full, false), 1);
    assert_eq!(lstm(&[Float32, Float32, Float32], Float32, Basic, false), 2);
    assert_eq!(lstm(&[Float32, Int8, Int8], Float32, Full, false), 3);
    assert_eq!(lstm(&[Float32, Int8, Int8], Float32, Full, true), 4);
    assert_eq!(lstm(&[Int16, Int8, Int8], Int16, Full, false), 5);
    let uni = |ins: &[ElementType], out, p: UnidirectionalSequenceLstmParams| {
        v(
            B::UNIDIRECTIONAL_SEQUENCE_LSTM,
            ins,
            &[out],
            Params::UnidirectionalSequenceLstm(p),
        )
    };
    let d = UnidirectionalSequenceLstmParams::default();
    assert_eq!(uni(&[Float32, Float32, Int8], Float32, d), 2);
    assert_eq!(
        uni(
            &[Float32, Float32, Int8],
            Float32,
            UnidirectionalSequenceLstmParams {
                asymmetric_quantize_inputs: true,
                ..d
            }
        ),
        3
    );
    assert_eq!(
        uni(
            &[Float32, Float32, Float32],
            Float32,
            UnidirectionalSequenceLstmParams {
                diagonal_recurrent_tensors: true,
                ..d
            }
        ),
        4
    );
    assert_eq!(uni(&[Int16, Int8, Int8], Int16, d), 5);
    assert_eq!(
        v(
            B::SVDF,
            &[Float32, Float32],
            &[Float32],
            Params::Svdf(SvdfParams::default())
        ),
        1
    );
    assert_eq!(
        v(
            B::SVDF,
            &[Float32, Int8],
            &[Float32],
            Params::Svdf(SvdfParams::default())
        ),
        2
    );
    assert_eq!(
        v(
            B::SVDF,
            &[Int8, Int8],
            &[Int8],
            Params::Svdf(SvdfParams::default())
        ),
        3
    );
    assert_eq!(
        v(
            B::SVDF,
            &[Float32, Int8],
            &[Float32],
            Params::Svdf(SvdfParams {
                asymmetric_quantize_inputs: true,
                ..Default::default()
            })
        ),
        4
    );
    for (op, asym) in [
        (
            B::RNN,
            Params::Rnn(RnnParams {
                asymmetric_quantize_inputs: true,
                ..Default::default()
            }),
        ),
        (
            B::UNIDIRECTIONAL_SEQUENCE_RNN,
            Params::SequenceRnn(SequenceRnnParams {
                asymmetric_quantize_inputs: true,
                ..Default::default()
            }),
        ),
        (
            B::BIDIRECTIONAL_SEQUENCE_RNN,
            Params::BidirectionalSequenceRnn(BidirectionalSequenceRnnParams {
                asymmetric_quantize_inputs: true,
                ..Default::default()
            }),
        ),
        (
            B::BIDIRECTIONAL_SEQUENCE_LSTM,
            Params::BidirectionalSequenceLstm(BidirectionalSequenceLstmParams {
                asymmetric_quantize_inputs: true,
                ..Default::default()
            }),
        ),
    ] {
        assert_eq!(plain(op, &[Float32, Float32], &[Float32]), 1, "{op}");
        assert_eq!(plain(op, &[Float32, Int8], &[Float32]), 2, "{op}");
        assert_eq!(v(op, &[Float32, Int8], &[Float32], asym), 3, "{op}");
    }
}

#[test]
fn transpose_conv_resize_matmul_and_the_rest() {
    let tc = |ins: Vec<TensorSpec>, p: TransposeConvParams| {
        vs(
            B::TRANSPOSE_CONV,
            ins,
            vec![t(Float32)],
            Params::TransposeConv(p),
        )
    };
    let d = TransposeConvParams::default();
    assert_eq!(tc(vec![t(Int32), t(Float32), t(Float32)], d), 1);
    assert_eq!(tc(vec![t(Int32), t(Int8), t(Int8)], d), 2);
    assert_eq!(
        tc(vec![t(Int32), t(Float32), t(Float32), t(Float32)], d),
        3,
        "bias"
    );
    assert_eq!(
        tc(
            vec![t(Int32), t(Float32), t(Float32), TensorSpec::absent()],
            d
        ),
        1,
        "absent bias"
    );
    assert_eq!(
        tc(
            vec![t(Int32), t(Float32), t(Float32)],
            TransposeConvParams {
                activation: Activation::Relu,
                ..d
            }
        ),
        4
    );
    assert_eq!(
        vs(
            B::TRANSPOSE_CONV,
            vec![t(Int16), t(Int8), t(Int16)],
            vec![t(Int16)],
            Params::TransposeConv(d)
        ),
        5
    );

    let rb = |ty, half| {
        v(
            B::RESIZE_BILINEAR,
            &[ty, Int32],
            &[ty],
            Params::ResizeBilinear(ResizeBilinearParams {
                half_pixel_centers: half,
                ..Default::default()
            }),
        )
    };
    assert_eq!(rb(Float32, false), 1);
    assert_eq!(rb(Int8, false), 2);
    assert_eq!(rb(Float32, true), 3);
    assert_eq!(rb(Int16, false), 4);
    let rn = |ty, align| {
        v(
            B::RESIZE_NEAREST_NEIGHBOR,
            &[ty, Int32],
            &[ty],
            Params::ResizeNearestNeighbor(ResizeNearestNeighborParams {
                align_corners: align,
                ..Default::default()
            }),
        )
    };
    assert_eq!(rn(Int8, false), 2);
    assert_eq!(rn(Float32, true), 3);
    assert_eq!(rn(Int16, false), 4);

    let bmm = |ins: &[ElementType], asym| {
        v(
            B::BATCH_MATMUL,
            ins,
            &[Float32],
            Params::BatchMatMul(BatchMatMulParams {
                asymmetric_quantize_inputs: asym,
                ..Default::default()
            }),
        )
    };
    assert_eq!(bmm(&[Float32, Float32], false), 1);
    assert_eq!(bmm(&[Int8, Int8], false), 2);
    assert_eq!(bmm(&[Int16, Int16], false), 3);
    assert_eq!(bmm(&[Float32, Int8], true), 4);

    assert_eq!(plain(B::FILL, &[Int32, Float32], &[Float32]), 1);
    assert_eq!(plain(B::FILL, &[Int32, Bool], &[Bool]), 2);
    assert_eq!(plain(B::FILL, &[Int32, Int16], &[Int16]), 3);
    assert_eq!(plain(B::FILL, &[Int32, Float16], &[Float16]), 4);
    assert_eq!(plain(B::RANGE, &[Int64, Int64, Int64], &[Int64]), 2);
    assert_eq!(
        plain(B::BROADCAST_TO, &[Float32, Int32], &[Float32]),
        2,
        "v1 was rolled back"
    );
    assert_eq!(plain(B::BROADCAST_TO, &[Int8, Int32], &[Int8]), 3);
}

#[test]
fn unversioned_and_custom_ops_are_version_1() {
    for op in [
        B::FLOOR,
        B::CEIL,
        B::COS,
        B::HARD_SWISH,
        B::ZEROS_LIKE,
        B::CUSTOM,
        B::new(4000),
    ] {
        assert_eq!(plain(op, &[Int16], &[Int16]), 1, "{op}");
    }
}

#[test]
fn missing_tensors_never_panic() {
    for op in tflite_opver::BuiltinOperator::all() {
        let none = OpSignature::new(op, vec![], vec![], Params::defaults_for(op));
        let v = op_version(&none).get();
        assert!(v >= 1, "{op}");
    }
}
