//! TFLite's loader limits: the tables its FlatBuffer verifier counts, on models whose count is
//! known by construction and on real converter models.

use crate::common::data;
use tflite_opver::{
    BuiltinOperator, ElementType, LimitWarning, Model, ModelBuilder, OpSignature, OpVersion,
    Quantization, RuntimeVersion, TensorSpec, VERIFIER_MAX_TABLES, loader_limits,
    params::{AddParams, Params},
};

fn add(quantized: bool, constant: bool, options: bool) -> OpSignature {
    let mut t = TensorSpec::new(ElementType::Int8, &[1, 4]);
    if quantized {
        t = t.quantized(Quantization::per_tensor(0.5));
    }
    let input = if constant {
        t.clone().constant()
    } else {
        t.clone()
    };
    let mut sig = OpSignature::new(
        BuiltinOperator::ADD,
        vec![input.clone(), input],
        vec![t],
        Params::Add(AddParams::default()),
    );
    sig.options_present = options;
    sig
}

#[test]
fn every_table_kind_counts_once() {
    // Model, operator code, subgraph, buffer 0: 4; per operator: the operator, its options
    // (when written), 3 tensors, a quantization table each (when quantized), a buffer per
    // constant input.
    for quantized in [false, true] {
        for constant in [false, true] {
            for options in [false, true] {
                let per_operator = 1
                    + usize::from(options)
                    + 3
                    + if quantized { 3 } else { 0 }
                    + if constant { 2 } else { 0 };
                for operators in 0..4 {
                    let mut builder = ModelBuilder::new();
                    for _ in 0..operators {
                        builder.signature(&add(quantized, constant, options), OpVersion::ONE);
                    }
                    let bytes = builder.finish();
                    let limits = loader_limits(&Model::from_bytes(&bytes).unwrap());
                    let code = usize::from(operators > 0);
                    assert_eq!(
                        limits.tables,
                        3 + code + operators * per_operator,
                        "quantized {quantized}, constant {constant}, options {options}, \
                         {operators} operators"
                    );
                    assert_eq!(limits.len, bytes.len());
                    assert!(limits.warnings().is_empty());
                }
            }
        }
    }
    // A metadata entry is a table, and so is its buffer.
    let mut builder = ModelBuilder::new();
    builder.min_runtime_version(&RuntimeVersion::new(1, 5, 0));
    let bytes = builder.finish();
    assert_eq!(loader_limits(&Model::from_bytes(&bytes).unwrap()).tables, 5);
}

/// Every converter model: at least one table for the model, each operator code, subgraph and
/// operator; far below the limits.
#[test]
fn real_models_are_far_below_the_limits() {
    let mut models = 0;
    for entry in std::fs::read_dir(data("tflite")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "tflite") {
            continue;
        }
        models += 1;
        let bytes = std::fs::read(&path).unwrap();
        let model = Model::from_bytes(&bytes).unwrap();
        let limits = loader_limits(&model);
        let least =
            1 + model.operator_codes().len() + model.subgraph_count() + model.operator_count();
        assert!(limits.tables >= least, "{}: {limits:?}", path.display());
        assert!(limits.tables < 10_000, "{}: {limits:?}", path.display());
        assert_eq!(limits.len, bytes.len());
        assert_eq!(limits.warnings(), []);
    }
    assert!(models > 200, "{models} models");
}

#[test]
fn the_warning_names_the_limit_and_its_source() {
    let warning = LimitWarning::TooManyTables {
        tables: VERIFIER_MAX_TABLES + 1,
        max: VERIFIER_MAX_TABLES,
    };
    let text = warning.to_string();
    assert!(
        text.contains("1000001 FlatBuffer tables, above the 1000000"),
        "{text}"
    );
    assert!(
        text.contains("max_tables, flatbuffers/verifier.h"),
        "{text}"
    );
    assert!(text.contains("model_builder_base.h"), "{text}");
}

// A walk of its own over a model's tables: the reference for the count `Model::from_bytes`
// keeps while reading.

/// The length of an optional vector field, 0 when absent or unreadable.
macro_rules! len_of {
    ($field:expr) => {
        $field.ok().flatten().map_or(0, |v| v.len())
    };
}

/// 1 when an optional table (or a union with a known member) is present. An unknown union
/// member is not verified by TFLite, so not counted.
macro_rules! present {
    ($field:expr) => {
        usize::from(matches!($field, Ok(Some(_))))
    };
}

/// The tables of a model that `Model::from_bytes` already validated; `None` only if the root
/// cannot be read.
fn count_tables(bytes: &[u8]) -> Option<usize> {
    use tflite_opver::schema::{ModelRef, ReadAsRoot};
    let root = ModelRef::read_as_root(bytes).ok()?;
    let mut tables = 1 + len_of!(root.operator_codes()) + len_of!(root.buffers());
    tables += len_of!(root.metadata());
    if let Ok(Some(signatures)) = root.signature_defs() {
        for signature in signatures.iter().flatten() {
            tables += 1 + len_of!(signature.inputs()) + len_of!(signature.outputs());
        }
    }
    let Ok(Some(subgraphs)) = root.subgraphs() else {
        return Some(tables);
    };
    for subgraph in subgraphs.iter().flatten() {
        tables += 1;
        if let Ok(Some(tensors)) = subgraph.tensors() {
            for tensor in tensors.iter().flatten() {
                tables += 1 + present!(tensor.sparsity()) + len_of!(tensor.variant_tensors());
                if let Ok(Some(quantization)) = tensor.quantization() {
                    tables += 1 + present!(quantization.details());
                }
            }
        }
        if let Ok(Some(operators)) = subgraph.operators() {
            for operator in operators.iter().flatten() {
                tables += 1
                    + present!(operator.builtin_options())
                    + present!(operator.builtin_options_2());
            }
        }
    }
    Some(tables)
}

#[test]
fn tables_counted_while_reading_equal_a_walk_of_their_own() {
    let dir = data("tflite");
    let mut models = 0;
    for entry in std::fs::read_dir(&dir).expect("test data") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "tflite") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("readable");
        let model = Model::from_bytes(&bytes).expect("a model");
        assert_eq!(
            Some(loader_limits(&model).tables),
            count_tables(&bytes),
            "{}",
            path.display()
        );
        models += 1;
    }
    assert!(models >= 241, "{models}");
}
