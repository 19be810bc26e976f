//! tflite-opver benchmarks: each operation beside a baseline measured in the same run.
//!
//! The subject is a generated model of one million operators (CONV_2D, DEPTHWISE_CONV_2D,
//! FULLY_CONNECTED, ADD, MUL, RELU, STRIDED_SLICE, QUANTIZE in turn, with options and
//! quantized tensors, sharing eight tensors), about 50 MB. Throughput is in operators per
//! second. The baseline is a plain walk of the same operators through the generated planus
//! reader (opcode index, input and output tensor indices): what any tool pays just to look
//! at every operator. The goal: a full version recompute (validate, build every signature,
//! apply TF's rules) at 20 M operators/s or more. Reading and validating alone is measured too;
//! the operators are sorted into forms while the model is read, so on a model already read the
//! rules run once per form, not per operator, and no row pretends otherwise.
//!
//! Its operators repeat eight shapes of operator: the library reads an options table equal to
//! the last one of its operator code only once, and judges an operator that reads the same
//! as the last one of its code (tensors alike, same options) only once. Real converter models,
//! with fresh tensors for each operator and options that vary more, profit less from both:
//! this model is the case those two shortcuts were made for, not a typical one.
//!
//! A second model has the same million operators in the same mix, but, as the TensorFlow
//! converter writes them, every operator has tensors of its own: each input and output is a
//! new tensor with a name, a shape and quantization parameters, and each constant one a buffer
//! of its own (3.4 million tensors, about 360 MB). Nothing repeats there but the options
//! tables: it measures what reading the tensor tables costs, which the first model hides.
//! Its group (`model_1m_operators_fresh_tensors`) has the baseline walk and the full
//! recompute, with the fewest samples criterion takes.
//!
//! Beside them, what the two commands of the `tflite-opver` tool that read a whole model compute
//! on the model with fresh tensors: `inspect` (each code's required version and reason, the
//! minimum runtime and its cause, the stamp warnings) and `runtimes` (every runtime's verdict,
//! and the stamp warnings); `runtimes` is to cost at most 1.2 times `inspect`.
//!
//! The speed figures the library's comments once carried live here: the plain planus walk is
//! what reading each operator through planus' general readers costs, against reading and
//! validating the whole model by hand (`read and validate only`); the model with fresh tensors
//! is where the tensor classes and the memos are measured at their least useful.
//!
//! The CLI is timed as a whole process on the same models: with `TFLITE_1M_OPS_FILE=PATH` in
//! the environment, the bench also writes the model it generates to `PATH`
//! (`TFLITE_1M_OPS_FILE=/tmp/1m.tflite cargo bench -p benches --bench tflite_opver -- baseline`
//! writes it and runs only the baselines), for `/usr/bin/time tflite-opver inspect PATH`;
//! `TFLITE_1M_FRESH_OPS_FILE=PATH` writes the model with fresh tensors.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use tflite_opver::{
    BuiltinOperator, ElementType, Model, ModelBuilder, OpVersion, Quantization, RuntimeVersion,
    StampMode, TensorSpec,
    params::{
        AddParams, Conv2DParams, DepthwiseConv2DParams, FullyConnectedParams, MulParams, Params,
        StridedSliceParams,
    },
    schema::{ModelRef, ReadAsRoot},
    stamp,
};

const OPERATORS: usize = 1_000_000;

fn million_operator_model() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let q = Quantization::per_tensor(0.05);
    let i8t = |dims: &[i32]| TensorSpec::new(ElementType::Int8, dims).quantized(q);
    let x = b.tensor(&i8t(&[1, 16, 16, 8]));
    let y = b.tensor(&i8t(&[1, 16, 16, 8]));
    let w = b.tensor(
        &TensorSpec::new(ElementType::Int8, &[8, 3, 3, 8])
            .constant()
            .quantized(Quantization::per_channel(8, 0)),
    );
    let dw = b.tensor(
        &TensorSpec::new(ElementType::Int8, &[1, 3, 3, 8])
            .constant()
            .quantized(Quantization::per_channel(8, 3)),
    );
    let bias = b.tensor(&TensorSpec::new(ElementType::Int32, &[8]).constant());
    let fc_w = b.tensor(&i8t(&[8, 8]).constant());
    let f = b.tensor(&TensorSpec::new(ElementType::Float32, &[1, 16, 16, 8]));
    let idx = b.tensor(&TensorSpec::new(ElementType::Int32, &[4]).constant());

    let v1 = OpVersion::ONE;
    let ops = [
        (
            b.operator_code(BuiltinOperator::CONV_2D, v1),
            vec![x, w, bias],
            vec![y],
            Some(Params::Conv2D(Conv2DParams::default())),
        ),
        (
            b.operator_code(BuiltinOperator::DEPTHWISE_CONV_2D, v1),
            vec![y, dw, bias],
            vec![x],
            Some(Params::DepthwiseConv2D(DepthwiseConv2DParams {
                dilation_width_factor: 2,
                ..Default::default()
            })),
        ),
        (
            b.operator_code(BuiltinOperator::FULLY_CONNECTED, v1),
            vec![x, fc_w, bias],
            vec![y],
            Some(Params::FullyConnected(FullyConnectedParams::default())),
        ),
        (
            b.operator_code(BuiltinOperator::ADD, v1),
            vec![x, y],
            vec![x],
            Some(Params::Add(AddParams::default())),
        ),
        (
            b.operator_code(BuiltinOperator::MUL, v1),
            vec![x, y],
            vec![y],
            Some(Params::Mul(MulParams::default())),
        ),
        (
            b.operator_code(BuiltinOperator::RELU, v1),
            vec![y],
            vec![x],
            None,
        ),
        (
            b.operator_code(BuiltinOperator::STRIDED_SLICE, v1),
            vec![x, idx, idx, idx],
            vec![y],
            Some(Params::StridedSlice(StridedSliceParams::default())),
        ),
        (
            b.operator_code(BuiltinOperator::QUANTIZE, v1),
            vec![f],
            vec![x],
            None,
        ),
    ];
    for i in 0..OPERATORS {
        let (code, inputs, outputs, params) = &ops[i % ops.len()];
        b.operator(*code, inputs, outputs, params.as_ref());
    }
    b.min_runtime_version(&RuntimeVersion::new(1, 5, 0));
    b.finish()
}

/// The operator mix of [`million_operator_model`], with fresh tensors for every operator:
/// each input and output a new tensor (named, shaped, quantized as the converter writes
/// them), each constant one with a buffer of its own.
fn million_operator_fresh_tensor_model() -> Vec<u8> {
    let mut b = ModelBuilder::new();
    let q = Quantization::per_tensor(0.05);
    let i8t = |dims: &[i32]| TensorSpec::new(ElementType::Int8, dims).quantized(q);
    let x = i8t(&[1, 16, 16, 8]);
    let w = TensorSpec::new(ElementType::Int8, &[8, 3, 3, 8])
        .constant()
        .quantized(Quantization::per_channel(8, 0));
    let dw = TensorSpec::new(ElementType::Int8, &[1, 3, 3, 8])
        .constant()
        .quantized(Quantization::per_channel(8, 3));
    let bias = TensorSpec::new(ElementType::Int32, &[8]).constant();
    let fc_w = i8t(&[8, 8]).constant();
    let f = TensorSpec::new(ElementType::Float32, &[1, 16, 16, 8]);
    let idx = TensorSpec::new(ElementType::Int32, &[4]).constant();

    let v1 = OpVersion::ONE;
    let ops = [
        (
            b.operator_code(BuiltinOperator::CONV_2D, v1),
            vec![&x, &w, &bias],
            Some(Params::Conv2D(Conv2DParams::default())),
        ),
        (
            b.operator_code(BuiltinOperator::DEPTHWISE_CONV_2D, v1),
            vec![&x, &dw, &bias],
            Some(Params::DepthwiseConv2D(DepthwiseConv2DParams {
                dilation_width_factor: 2,
                ..Default::default()
            })),
        ),
        (
            b.operator_code(BuiltinOperator::FULLY_CONNECTED, v1),
            vec![&x, &fc_w, &bias],
            Some(Params::FullyConnected(FullyConnectedParams::default())),
        ),
        (
            b.operator_code(BuiltinOperator::ADD, v1),
            vec![&x, &x],
            Some(Params::Add(AddParams::default())),
        ),
        (
            b.operator_code(BuiltinOperator::MUL, v1),
            vec![&x, &x],
            Some(Params::Mul(MulParams::default())),
        ),
        (b.operator_code(BuiltinOperator::RELU, v1), vec![&x], None),
        (
            b.operator_code(BuiltinOperator::STRIDED_SLICE, v1),
            vec![&x, &idx, &idx, &idx],
            Some(Params::StridedSlice(StridedSliceParams::default())),
        ),
        (
            b.operator_code(BuiltinOperator::QUANTIZE, v1),
            vec![&f],
            None,
        ),
    ];
    let mut inputs = Vec::new();
    for i in 0..OPERATORS {
        let (code, specs, params) = &ops[i % ops.len()];
        inputs.clear();
        inputs.extend(specs.iter().map(|spec| b.tensor(spec)));
        let output = b.tensor(&x);
        b.operator(*code, &inputs, &[output], params.as_ref());
    }
    b.min_runtime_version(&RuntimeVersion::new(1, 5, 0));
    b.finish()
}

/// The baseline: a plain walk of every operator through the generated planus reader, reading
/// what every operator is made of (opcode index, input and output tensor indices) and
/// nothing more: what any tool pays just to look at each operator once.
fn plain_walk(bytes: &[u8]) -> Result<u64, Box<dyn std::error::Error>> {
    let model = ModelRef::read_as_root(bytes)?;
    let mut sum = 0u64;
    for subgraph in model.subgraphs()?.into_iter().flatten() {
        for op in subgraph?.operators()?.into_iter().flatten() {
            let op = op?;
            sum = sum.wrapping_add(u64::from(op.opcode_index()?));
            for index in op.inputs()?.into_iter().flatten() {
                sum = sum.wrapping_add(index as u64);
            }
            for index in op.outputs()?.into_iter().flatten() {
                sum = sum.wrapping_add(index as u64);
            }
        }
    }
    Ok(sum)
}

fn million_operators(c: &mut Criterion) {
    let bytes = million_operator_model();
    if let Some(path) = std::env::var_os("TFLITE_1M_OPS_FILE") {
        std::fs::write(&path, &bytes).expect("TFLITE_1M_OPS_FILE names a writable path");
    }
    let parsed = Model::from_bytes(&bytes).expect("valid");
    assert_eq!(parsed.operator_count(), OPERATORS);

    let mut group = c.benchmark_group("model_1m_operators");
    group.sample_size(10);
    group.throughput(Throughput::Elements(OPERATORS as u64));
    baseline_and_full_recompute(&mut group, &bytes);
    group.bench_function("read and validate only (Model::from_bytes)", |b| {
        b.iter(|| black_box(Model::from_bytes(black_box(&bytes)).expect("valid")));
    });
    // No row for "the recompute on a model already read": `Model::from_bytes` sorts the
    // operators into forms while it reads (operators whose signatures read alike), and
    // `required_versions()` then applies TF's rules once per form: eight forms here, 2 µs, which
    // a row counted per million operators showed as 470 G operators/s. The per-operator work is
    // in the read; the full row's time minus the read-only row's is what the rules add.
    group.bench_function("stamp (raise, verify)", |b| {
        b.iter(|| black_box(stamp(black_box(&bytes), StampMode::Raise).expect("stamps")));
    });
    group.finish();
}

/// The two rows both groups have: the baseline walk, and the full recompute beside it.
fn baseline_and_full_recompute(group: &mut BenchmarkGroup<'_, WallTime>, bytes: &[u8]) {
    group.bench_function("baseline: plain planus walk of every operator", |b| {
        b.iter(|| black_box(plain_walk(black_box(bytes)).expect("valid")));
    });
    group.bench_function(
        "full version recompute (validate + signatures + rules)",
        |b| {
            b.iter(|| {
                let model = Model::from_bytes(black_box(bytes)).expect("valid");
                black_box(model.required_versions())
            });
        },
    );
}

fn million_operators_fresh_tensors(c: &mut Criterion) {
    let bytes = million_operator_fresh_tensor_model();
    if let Some(path) = std::env::var_os("TFLITE_1M_FRESH_OPS_FILE") {
        std::fs::write(&path, &bytes).expect("TFLITE_1M_FRESH_OPS_FILE names a writable path");
    }
    let parsed = Model::from_bytes(&bytes).expect("valid");
    assert_eq!(parsed.operator_count(), OPERATORS);
    drop(parsed);

    let mut group = c.benchmark_group("model_1m_operators_fresh_tensors");
    // Each iteration reads about 360 MB: the fewest samples criterion takes, one iteration
    // each.
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(OPERATORS as u64));
    baseline_and_full_recompute(&mut group, &bytes);
    group.bench_function(
        "inspect: read, reasons, minimum runtime, stamp warnings",
        |b| {
            b.iter(|| {
                let model = Model::from_bytes(black_box(&bytes)).expect("valid");
                let reasons = model.required_version_reasons();
                let required: Vec<_> = reasons.iter().map(|r| r.version()).collect();
                let cause = model.min_runtime_cause_with(&required);
                black_box((cause, model.stamp_warnings_for(&reasons)))
            });
        },
    );
    group.bench_function(
        "runtimes: read, thirty runtime verdicts, stamp warnings",
        |b| {
            b.iter(|| {
                let model = Model::from_bytes(black_box(&bytes)).expect("valid");
                black_box((model.runtime_verdicts(), model.stamp_warnings()))
            });
        },
    );
    group.finish();
}

criterion_group!(benches, million_operators, million_operators_fresh_tensors);
criterion_main!(benches);
