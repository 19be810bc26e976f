//! Which real TensorFlow Lite runtimes load a model (issue 23): the thirty runtimes' facts
//! against the shared oracle's own probe of the same wheels, and every verdict against what the
//! real runtimes said: the shared oracle's 241 converted models, and the crate's own real
//! verdicts (`tests/data/runtimes/`: models converted by each TensorFlow release, hand-made
//! specimens of every refusal, every signature model re-stamped, and real third-party models
//! as shipped and re-stamped), construction and text.

use std::collections::BTreeMap;

use crate::common::{VerdictTable, data_bytes, data_json, verdict_table};
use tflite_opver::{
    BlockingCause, BuiltinOperator, Error, LoadOutcome, Model, ModelBuilder, OpSignature,
    OpVersion, RefusedBy, Runtime, RuntimeFamily, StampMode, TensorSpec, params::Params, stamp,
};

/// A table of verdicts as `verdicts.py` and `copy_oracle.py` write them ([`VerdictTable`]):
/// per model -1 when it constructs the interpreter, -2 when it crashes, else the index of the
/// text it raises.
type Verdicts = VerdictTable;

fn verdicts(name: &str) -> Verdicts {
    verdict_table(name)
}

fn disagreements(table: &Verdicts, key: &str, bytes: &[u8], expected: &[i64]) -> Vec<String> {
    let model = Model::from_bytes(bytes).unwrap_or_else(|e| panic!("{key}: {e}"));
    let judged = model.runtime_verdicts();
    let mut wrong = Vec::new();
    assert_eq!(expected.len(), table.runtimes.len(), "{key}");
    for (name, &entry) in table.runtimes.iter().zip(expected) {
        let runtime: Runtime = name.parse().expect("a known runtime");
        let verdict = judged.verdict(runtime);
        let agrees = match entry {
            -1 => verdict.loads(),
            -2 => verdict.outcome == LoadOutcome::Crashes,
            k => {
                let (class, text) = &table.texts[k as usize];
                class == "ValueError" && verdict.error() == Some(text.as_str())
            }
        };
        if !agrees {
            let real = match entry {
                -1 => "loads".to_owned(),
                -2 => "crashes".to_owned(),
                k => format!("{:?}", table.texts[k as usize]),
            };
            wrong.push(format!(
                "{key} on {name}: real {real}, ours {:?}",
                verdict.outcome
            ));
        }
    }
    wrong
}

#[test]
fn the_runtimes_are_the_thirty_users_install_in_family_order() {
    let names: Vec<String> = Runtime::all().map(|r| r.to_string()).collect();
    assert_eq!(names.len(), 30);
    assert_eq!(names[0], "tensorflow-cpu 2.12.1");
    assert_eq!(names[9], "tensorflow-cpu 2.21.0");
    assert_eq!(names[10], "tflite-runtime 2.14.0");
    assert_eq!(names[11], "ai-edge-litert 1.0.0");
    assert_eq!(names[29], "ai-edge-litert 2.3.0");
    let oracle = verdicts("runtimes/oracle_verdicts.json");
    assert_eq!(
        names, oracle.runtimes,
        "the oracle's runtimes, in our order"
    );
    for runtime in Runtime::all() {
        assert_eq!(runtime.to_string().parse::<Runtime>(), Ok(runtime));
        assert_eq!(Runtime::find(&format!("  {runtime} ")), Some(runtime));
        assert_eq!(
            runtime.to_string(),
            format!("{} {}", runtime.family(), runtime.version())
        );
    }
    for family in RuntimeFamily::ALL {
        let of_family: Vec<_> = Runtime::all().filter(|r| r.family() == family).collect();
        assert!(!of_family.is_empty(), "{family}");
    }
    let unknown = "ai-edge-litert 9.9.9".parse::<Runtime>().unwrap_err();
    assert_eq!(
        unknown,
        Error::UnknownRuntime {
            name: "ai-edge-litert 9.9.9".to_owned()
        }
    );
    let text = unknown.to_string();
    assert!(text.starts_with("unknown runtime \"ai-edge-litert 9.9.9\": name one as its users do"));
    assert!(
        text.contains("tensorflow-cpu 2.12.1, tensorflow-cpu 2.13.1,"),
        "{text}"
    );
    assert!(text.ends_with("ai-edge-litert 2.3.0"), "{text}");
    assert!("tensorflow 2.21.0".parse::<Runtime>().is_err());
    assert!("2.21.0".parse::<Runtime>().is_err());
}

/// The facts probed by `cargo xtask tflite-runtimes` agree with the shared oracle's own probe
/// of the same wheels: every (builtin operator, version) registered, and the highest code.
#[test]
fn registrations_agree_with_the_oracles_probe() {
    let oracle = data_json("runtimes/oracle_registrations.json");
    let runtimes = oracle["runtimes"].as_object().expect("runtimes");
    assert_eq!(runtimes.len(), 30);
    let mut pairs = 0;
    for runtime in Runtime::all() {
        let facts = &runtimes[&runtime.to_string()];
        assert_eq!(
            Some(i64::from(runtime.max_builtin_code().code())),
            facts["max_builtin_code"].as_i64(),
            "{runtime}"
        );
        let ops = facts["ops"].as_object().expect("ops");
        for op in BuiltinOperator::all() {
            if op == BuiltinOperator::CUSTOM {
                continue;
            }
            let ours: Vec<i64> = runtime
                .registered_versions(op)
                .map(|v| i64::from(v.get()))
                .collect();
            let theirs: Vec<i64> = ops
                .get(op.name().expect("a known op"))
                .map(|versions| {
                    versions
                        .as_array()
                        .expect("versions")
                        .iter()
                        .map(|v| v.as_i64().expect("a version"))
                        .collect()
                })
                .unwrap_or_default();
            assert_eq!(ours, theirs, "{runtime} {op}");
            pairs += ours.len();
        }
        assert!(
            ops.keys()
                .all(|name| BuiltinOperator::from_name(name).is_some()),
            "{runtime}: an operator the crate does not know"
        );
    }
    assert!(pairs > 10_000, "{pairs} registered pairs");
    // The oracle's surprise: BROADCAST_TO version 1 is registered by no runtime.
    assert!(Runtime::all().all(
        |r| !r.registers(BuiltinOperator::BROADCAST_TO, OpVersion::ONE)
            && r.registers(BuiltinOperator::BROADCAST_TO, OpVersion::new(2))
    ));
}

/// A runtime's `Resolver` has exactly its registrations.
#[test]
fn a_runtimes_resolver_has_its_registrations() {
    for runtime in [
        "tensorflow-cpu 2.12.1",
        "tflite-runtime 2.14.0",
        "ai-edge-litert 2.3.0",
    ] {
        let runtime: Runtime = runtime.parse().unwrap();
        let resolver = runtime.resolver();
        assert_eq!(resolver.max_builtin_code(), runtime.max_builtin_code());
        for op in BuiltinOperator::all() {
            for version in 0..20 {
                let version = OpVersion::new(version);
                assert_eq!(
                    resolver.find_builtin(op, version).is_some(),
                    runtime.registers(op, version),
                    "{runtime} {op} v{version}"
                );
            }
        }
        assert_eq!(
            runtime.max_version(BuiltinOperator::CONV_2D),
            runtime.registered_versions(BuiltinOperator::CONV_2D).last()
        );
        assert!(runtime.accepts_tensor_type(0));
        assert!(!runtime.accepts_tensor_type(127));
    }
    let tf_2_16: Runtime = "tensorflow-cpu 2.16.2".parse().unwrap();
    let tf_2_17: Runtime = "tensorflow-cpu 2.17.1".parse().unwrap();
    // BFLOAT16 (18) came in 2.17.
    assert!(!tf_2_16.accepts_tensor_type(18) && tf_2_17.accepts_tensor_type(18));
    assert!(!tf_2_16.verifies());
    assert!(
        "tensorflow-cpu 2.18.1"
            .parse::<Runtime>()
            .unwrap()
            .verifies()
    );
}

/// Every model of the shared oracle (`tests/data/tflite/`), on every runtime: whether it
/// constructs, and the exact text when it does not.
#[test]
fn every_shared_oracle_verdict_agrees() {
    let table = verdicts("runtimes/oracle_verdicts.json");
    assert_eq!(table.models.len(), 241);
    let mut wrong = Vec::new();
    let mut refusals = 0;
    for (file, expected) in &table.models {
        let bytes = data_bytes(&format!("tflite/{file}"));
        wrong.extend(disagreements(&table, file, &bytes, expected));
        refusals += expected.iter().filter(|&&e| e >= 0).count();
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert_eq!(table.models.len() * 30, 7230);
    assert_eq!(refusals, 28, "the oracle's refusals");
}

/// The crate's own real verdicts (`tests/data/runtimes/verdicts.json`, made by
/// `interop/runtimes/verdicts.py` with the thirty real wheels): models converted by each
/// TensorFlow release, hand-made specimens of every way a runtime refuses a model, every
/// signature model of `tests/data/sig/` re-stamped to the versions its operator needs, and the
/// real models of a public package (`runtimes/wild/`), as shipped and re-stamped.
#[test]
fn every_real_verdict_agrees() {
    let table = verdicts("runtimes/verdicts.json");
    let ours: Vec<String> = Runtime::all().map(|r| r.to_string()).collect();
    assert_eq!(table.runtimes, ours);
    let mut wrong = Vec::new();
    let mut kinds = BTreeMap::new();
    for (key, expected) in &table.models {
        // A signature model is under `tests/data/`, every other model under `runtimes/`.
        let path = |name: &str| {
            if name.starts_with("sig/") {
                name.to_owned()
            } else {
                format!("runtimes/{name}")
            }
        };
        let bytes = match key.strip_suffix("@raise") {
            Some(model) => {
                stamp(&data_bytes(&path(model)), StampMode::Raise)
                    .unwrap_or_else(|e| panic!("{key}: {e}"))
                    .bytes
            }
            None => data_bytes(&path(key)),
        };
        wrong.extend(disagreements(&table, key, &bytes, expected));
        let kind = key.split('/').next().unwrap_or_default().to_owned();
        *kinds.entry(kind).or_insert(0) += expected.len();
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // What the set covers: each kind of model, each way of refusing.
    assert!(kinds["converted"] >= 1080 * 30, "{kinds:?}");
    assert!(kinds["specimens"] >= 50 * 30, "{kinds:?}");
    assert!(kinds["sig"] >= 1700 * 30, "{kinds:?}");
    // The 14 real models of the mediapipe wheel, as shipped and re-stamped.
    assert!(kinds["wild"] >= 2 * 14 * 30, "{kinds:?}");
    let texts: Vec<&str> = table.texts.iter().map(|(_, t)| t.as_str()).collect();
    for form in [
        "Didn't find op for builtin opcode",
        "Op builtin_code out of range",
        "Operator with CUSTOM builtin_code has no custom_code.\n",
        "Unsupported data type 18 in tensor\n",
        "String variable tensor isn't supported.",
        "required_bytes != bytes (4 != 8)",
        "required_bytes <= bytes was not true.",
        "has invalid quantization parameters.",
        "specifies out of range buffer",
        "Model provided is schema version 4",
        "No subgraph in the model.",
        "No buffers in the model.",
        "Did not get tensors in subgraph 1.",
        "BytesRequired number of elements overflowed.",
    ] {
        assert!(
            texts.iter().any(|t| t.contains(form)),
            "no real verdict shows {form:?}"
        );
    }
    assert!(table.models.values().flatten().any(|&e| e == -2), "a crash");
}

/// TFLite names only the first operator code it cannot resolve; the verdict lists every one,
/// each with the highest version the runtime has and what its operators need.
#[test]
fn every_blocking_operator_code_is_listed_with_what_would_unblock_it() {
    let f32 = TensorSpec::new(tflite_opver::ElementType::Float32, &[1, 4]);
    let sqrt = OpSignature::new(
        BuiltinOperator::SQRT,
        vec![f32.clone()],
        vec![f32.clone()],
        Params::None,
    );
    let mut builder = ModelBuilder::new();
    let (a, b) = (builder.tensor(&f32), builder.tensor(&f32));
    let sqrt_code = builder.operator_code(BuiltinOperator::SQRT, OpVersion::new(2));
    let unknown = builder.operator_code(BuiltinOperator::new(250), OpVersion::ONE);
    builder.operator(sqrt_code, &[a], &[b], None);
    builder.operator(unknown, &[b], &[a], None);
    let bytes = builder.finish();
    let model = Model::from_bytes(&bytes).unwrap();
    let verdicts = model.runtime_verdicts();
    assert!(verdicts.loading().next().is_none());
    for verdict in &verdicts {
        let causes: Vec<_> = verdict.blocking.iter().map(|b| b.cause).collect();
        let runtime = verdict.runtime;
        if runtime.registers(BuiltinOperator::SQRT, OpVersion::new(2)) {
            assert_eq!(causes, [BlockingCause::CodeOutOfRange], "{runtime}");
        } else {
            assert_eq!(
                causes,
                [
                    BlockingCause::VersionNotRegistered,
                    BlockingCause::CodeOutOfRange
                ],
                "{runtime}"
            );
            let first = &verdict.blocking[0];
            assert_eq!((first.code, first.op), (0, BuiltinOperator::SQRT));
            assert_eq!(first.max_registered, Some(OpVersion::ONE));
            assert_eq!(first.required.version(), OpVersion::ONE);
            assert_eq!(
                first.required.to_string(),
                tflite_opver::version_reason(&sqrt).to_string()
            );
            // Only the first is in the runtime's words.
            assert!(
                verdict
                    .error()
                    .unwrap()
                    .starts_with("Didn't find op for builtin opcode 'SQRT' version '2'.")
            );
        }
        let last = verdict.blocking.last().unwrap();
        assert_eq!((last.code, last.max_registered), (1, None));
        assert!(matches!(
            verdict.outcome,
            LoadOutcome::Refused {
                by: RefusedBy::Operator,
                ..
            }
        ));
    }
    // One runtime alone gives the same verdict.
    let tf_2_12: Runtime = "tensorflow-cpu 2.12.1".parse().unwrap();
    assert_eq!(&tf_2_12.load(&model), verdicts.verdict(tf_2_12));
    let _ = sqrt;
}

/// TFLite reports every tensor it refuses, in one text: for a model of thousands of them the
/// verdict keeps the first 64 KiB of whole reports and says it stopped, for every runtime,
/// quickly.
#[test]
fn a_text_of_thousands_of_refused_tensors_is_cut_after_64_kib() {
    let bf16 = TensorSpec::new(tflite_opver::ElementType::BFloat16, &[4]);
    let mut builder = ModelBuilder::new();
    for _ in 0..20_000 {
        builder.tensor(&bf16);
    }
    let bytes = builder.finish();
    let model = Model::from_bytes(&bytes).unwrap();
    let started = std::time::Instant::now();
    let verdicts = model.runtime_verdicts();
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    let tf_2_16: Runtime = "tensorflow-cpu 2.16.2".parse().unwrap();
    let text = verdicts.verdict(tf_2_16).error().unwrap();
    let one = "Unsupported data type 18 in tensor\n";
    let cut =
        "[tflite-opver: the runtime reports more tensors in the same way; the text stops here]";
    assert!(text.ends_with(cut), "{}", &text[text.len() - 200..]);
    let reports = &text[..text.len() - cut.len()];
    assert_eq!(reports.len() % one.len(), 0);
    assert!(reports.split_inclusive('\n').all(|line| line == one));
    assert!((64 * 1024..64 * 1024 + 2 * one.len()).contains(&reports.len()));
    // Runtimes that know BFLOAT16 load it.
    assert!(
        verdicts
            .verdict("tensorflow-cpu 2.17.1".parse().unwrap())
            .loads()
    );
}
