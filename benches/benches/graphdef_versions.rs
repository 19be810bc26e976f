//! graphdef-versions benchmarks: each operation beside a baseline measured in the same run.
//!
//! Two graphs of one million nodes, each beside prost's full decode of its own bytes (what a
//! tool without this crate does first):
//!
//! - `graph_def_1m_nodes`: name, op, one input and a `T` attr per node (about 60 MB), the
//!   shape of real graphs' nodes. Goals: a version sniff at most 1/100 of the full decode, the
//!   deprecated-op scan at most 1/10. `check` is `check_file` (what `graphdef-versions check`
//!   does: versions and deprecated ops); `releases` is `ReleaseJudge::judge` (what
//!   `graphdef-versions releases` does), which every release refuses at its first node, once
//!   every node is indexed and every input looked up.
//! - `releases_1m_valid_nodes`: the graph `shared/bench/perf_side_by_side.py graphdef` writes
//!   (three `Const`s, then `MatMul`, `AddV2` and `Identity` in a chain, about 85 MB), which
//!   every release loads: `releases` replays the ten importers to the end.
//!
//! With `GRAPHDEF_1M_NODES_FILE=PATH` or `GRAPHDEF_1M_VALID_NODES_FILE=PATH` in the
//! environment, the bench writes the graph it generates to `PATH`, for timing the CLI as a
//! whole process (`GRAPHDEF_1M_NODES_FILE=/tmp/1m.pb cargo bench -p benches --bench
//! graphdef_versions -- version_def` writes it and runs only the small benches).
//!
//! Figures, measured on the shared 2-core development machine (issue #24; ratios from one run,
//! `releases` and `check` alternating as whole processes, best of 11):
//!
//! | graph (1M nodes) | prost full decode | `check` | `releases` | `releases` / `check` |
//! |---|---|---|---|---|
//! | refused at its first node, criterion | 1.77 s | 24.6 ms | 82.7 ms | 3.4 |
//! | refused at its first node, whole process | | 37.4 ms | 93.6 ms | 2.5 |
//! | valid, criterion | 1.65 s | 29.2 ms | 158 ms | 5.4 |
//! | valid, whole process | | 42.9 ms | 174 ms | 4.1 |
//! | refused at its last node, whole process | | 30.2 ms | 444 ms | 14.7 |
//!
//! Whole process means the CLI (`graphdef-versions check FILE --json` and `releases FILE
//! --json`) from start to exit, the file in the page cache. The third graph is the second with
//! its last node's type changed: every release walks to it to say what it refuses.
//!
//! TensorFlow 2.21's own `import_graph_def` of the valid graph takes about 90 s, in one release.
//! Measured again for issue #25, with the CLI of `main` before it alternating in the same run
//! (whole process, best of 15): refused at its first node 92.0 ms (`main` 91.2 ms; `check`
//! 30.9 ms), valid 172.4 ms (`main` 174.7 ms; `check` 34.6 ms); criterion: 80.6 ms refused,
//! 166 ms valid, beside `check`'s 23.4 and 28.9 ms.
//!
//! `releases_function_heavy_saved_model`: function-heavy TensorFlow 2 SavedModels (issue #25:
//! at most 0.3 s whole process for ten releases on a Keras SavedModel of about 3 MB and 393
//! library functions). Figures from one run on the same machine (criterion beside prost's full
//! decode of the same `saved_model.pb`; whole process best of 11, alternating with `releases`
//! of a 6.6 MB frozen GraphDef, `cutkum_frozen_model.pb` of the wild cases, 24.5 ms):
//!
//! | SavedModel | prost full decode | `releases`, criterion | `releases`, whole process | before #25's speed-up |
//! |---|---|---|---|---|
//! | [`keras`], 394 functions, 1.1 MB | 17.2 ms | 47.7 ms | 63.3 ms | 161 ms |
//! | real MobileNet, 353 functions, 2.7 MB with variables (its directory) | 15.3 ms | 84.2 ms | 95.0 ms | 148 ms |
//! | [`keras`] of 390 blocks, 1,174 functions, 3.4 MB | | | 191.5 ms | |
//!
//! The whole-process runs of [`keras`] are of its `saved_model.pb` alone: every release
//! imports all its functions, then refuses it for the variables it lacks. The cost is linear in
//! the functions (130, 260 and 390 blocks: 66, 124 and 193 ms whole process in one run): each
//! function is imported once for the releases that define its
//! library's ops alike (one import for the Keras model, two for MobileNet, whose `StringJoin`
//! 2.12 defines apart), and a function called from many places is instantiated once.

use std::collections::HashMap;
use std::hint::black_box;

#[path = "graphdef_versions/keras.rs"]
mod keras;

use criterion::{Criterion, criterion_group, criterion_main};
use graphdef_versions::schema::tensor_shape_proto::Dim;
use graphdef_versions::schema::{
    AttrValue, GraphDef, NodeDef, SavedModel, TensorProto, TensorShapeProto, VersionDef, attr_value,
};
use graphdef_versions::{
    Consumer, Registry, ReleaseJudge, check_file, rewrite_graph_def_versions, scan_ops, sniff,
};
use prost::Message;

const NODES: usize = 1_000_000;
const OPS: [&str; 6] = ["Const", "MatMul", "AddV2", "Relu", "Identity", "TopK"];

fn million_node_graph() -> Vec<u8> {
    let node = (0..NODES).map(|i| NodeDef {
        name: format!("layer_{}/node_{i}", i / 1000),
        op: OPS[i % OPS.len()].to_string(),
        input: if i == 0 {
            vec![]
        } else {
            vec![format!("layer_{}/node_{}", (i - 1) / 1000, i - 1)]
        },
        device: String::new(),
        attr: HashMap::from([(
            "T".to_string(),
            AttrValue {
                value: Some(attr_value::Value::Type(1)),
            },
        )]),
    });
    GraphDef {
        node: node.collect(),
        versions: Some(VersionDef {
            producer: 2474,
            min_consumer: 12,
            bad_consumers: vec![2400],
        }),
        ..Default::default()
    }
    .encode_to_vec()
}

/// One million nodes every release from 2.12 to 2.21 loads, as `make_anchors.build_graphdef`
/// of `shared/bench` writes them: three `Const`s, then a chain of `MatMul`, `AddV2` and
/// `Identity` named `net/block_N/...`.
fn million_valid_nodes() -> Vec<u8> {
    let attr = |name: &str, value| (name.to_string(), AttrValue { value: Some(value) });
    let float = attr_value::Value::Type(1);
    let constant = |name: &str, shape: &[i64], value: f32| {
        let tensor = TensorProto {
            dtype: 1,
            tensor_shape: Some(TensorShapeProto {
                dim: shape
                    .iter()
                    .map(|&size| Dim {
                        size,
                        ..Dim::default()
                    })
                    .collect(),
                ..TensorShapeProto::default()
            }),
            tensor_content: value.to_le_bytes().to_vec(),
            ..TensorProto::default()
        };
        NodeDef {
            name: name.to_string(),
            op: "Const".to_string(),
            attr: HashMap::from([
                attr("dtype", float.clone()),
                attr("value", attr_value::Value::Tensor(tensor)),
            ]),
            ..NodeDef::default()
        }
    };
    let mut node = vec![
        constant("net/x", &[1, 1], 1.0),
        constant("net/w", &[1, 1], 0.5),
        constant("net/b", &[1], 0.25),
    ];
    let mut previous = "net/x".to_string();
    for i in 0..NODES - 3 {
        let block = i / 3;
        let (name, op, input, mut attrs) = match i % 3 {
            0 => (
                format!("net/block_{block}/matmul"),
                "MatMul",
                vec![previous.clone(), "net/w".to_string()],
                HashMap::from([
                    attr("transpose_a", attr_value::Value::B(false)),
                    attr("transpose_b", attr_value::Value::B(false)),
                ]),
            ),
            1 => (
                format!("net/block_{block}/add"),
                "AddV2",
                vec![previous.clone(), "net/b".to_string()],
                HashMap::new(),
            ),
            _ => (
                format!("net/block_{block}/identity"),
                "Identity",
                vec![previous.clone()],
                HashMap::new(),
            ),
        };
        attrs.extend([attr("T", float.clone())]);
        previous = name.clone();
        node.push(NodeDef {
            name,
            op: op.to_string(),
            input,
            attr: attrs,
            ..NodeDef::default()
        });
    }
    GraphDef {
        node,
        versions: Some(VersionDef {
            producer: 2474,
            ..VersionDef::default()
        }),
        ..GraphDef::default()
    }
    .encode_to_vec()
}

fn releases(c: &mut Criterion) {
    let bytes = million_valid_nodes();
    if let Some(path) = std::env::var_os("GRAPHDEF_1M_VALID_NODES_FILE") {
        std::fs::write(&path, &bytes).expect("GRAPHDEF_1M_VALID_NODES_FILE names a writable path");
    }
    let mut group = c.benchmark_group("releases_1m_valid_nodes");
    group.sample_size(10);
    group.bench_function("baseline/prost_decode_full", |b| {
        b.iter(|| GraphDef::decode(black_box(bytes.as_slice())).unwrap())
    });
    let (consumer, registry) = (Consumer::tensorflow_graph_def(), Registry::tensorflow());
    group.bench_function("check", |b| {
        b.iter(|| check_file(black_box(&bytes), &consumer, &registry).unwrap())
    });
    let judge = ReleaseJudge::with_host("bench");
    group.bench_function("releases", |b| {
        b.iter(|| {
            let report = judge.judge(black_box(&bytes)).unwrap();
            assert_eq!(report.oldest_release().map(|r| r.name()), Some("2.12.1"));
            report
        })
    });
    group.finish();
}

fn million_nodes(c: &mut Criterion) {
    let bytes = million_node_graph();
    if let Some(path) = std::env::var_os("GRAPHDEF_1M_NODES_FILE") {
        std::fs::write(&path, &bytes).expect("GRAPHDEF_1M_NODES_FILE names a writable path");
    }
    let mut group = c.benchmark_group("graph_def_1m_nodes");
    group.sample_size(10);
    group.bench_function("baseline/prost_decode_full", |b| {
        b.iter(|| GraphDef::decode(black_box(bytes.as_slice())).unwrap())
    });
    group.bench_function("sniff_versions", |b| {
        b.iter(|| sniff(black_box(&bytes)).unwrap())
    });
    group.bench_function("scan_ops", |b| {
        b.iter(|| {
            let mut count = 0usize;
            scan_ops(black_box(&bytes), |site| count += site.op.len()).unwrap();
            count
        })
    });
    let consumer = Consumer::tensorflow_graph_def();
    let registry = Registry::tensorflow();
    group.bench_function("check", |b| {
        b.iter(|| check_file(black_box(&bytes), &consumer, &registry).unwrap())
    });
    // What `graphdef-versions releases` does, beside `check`: every release refuses this
    // graph at its first node, after indexing all of them.
    let releases = ReleaseJudge::with_host("bench");
    group.bench_function("releases", |b| {
        b.iter(|| {
            let report = releases.judge(black_box(&bytes)).unwrap();
            assert_eq!(report.oldest_release(), None);
            report
        })
    });
    group.bench_function("baseline/copy_bytes", |b| {
        b.iter(|| black_box(&bytes).to_vec())
    });
    let new = VersionDef {
        producer: 2475,
        min_consumer: 0,
        bad_consumers: vec![],
    };
    group.bench_function("rewrite_versions", |b| {
        b.iter(|| rewrite_graph_def_versions(black_box(&bytes), &new).unwrap())
    });
    group.finish();
}

fn version_check(c: &mut Criterion) {
    let bytes = VersionDef {
        producer: 2474,
        min_consumer: 12,
        bad_consumers: vec![3, 7],
    }
    .encode_to_vec();
    let decoded = VersionDef::decode(bytes.as_slice()).unwrap();
    let consumer = Consumer::tensorflow_graph_def();
    let mut group = c.benchmark_group("version_def");
    group.bench_function("baseline/prost_decode", |b| {
        b.iter(|| VersionDef::decode(black_box(bytes.as_slice())))
    });
    group.bench_function("check", |b| b.iter(|| consumer.check(black_box(&decoded))));
    group.finish();
}

/// One node's lookup in the deprecation registry, for the op names of the big graph (five of
/// six not deprecated), beside a binary search of the sorted names (the registry's lookup
/// before it had a hash index).
fn registry_lookup(c: &mut Criterion) {
    let registry = Registry::tensorflow();
    let mut sorted: Vec<&str> = registry.iter().map(|op| op.name.as_ref()).collect();
    sorted.sort_unstable();
    let mut group = c.benchmark_group("deprecation_registry");
    group.bench_function("baseline/binary_search_names", |b| {
        b.iter(|| {
            OPS.iter()
                .filter(|op| sorted.binary_search(black_box(op)).is_ok())
                .count()
        })
    });
    group.bench_function("get", |b| {
        b.iter(|| {
            OPS.iter()
                .filter(|op| registry.get(black_box(op)).is_some())
                .count()
        })
    });
    group.finish();
}

/// Blocks of the function-heavy SavedModel: 130 blocks, 394 library functions (1.1 MB).
const KERAS_BLOCKS: usize = 130;

/// The real Keras SavedModel of the crate's wild cases: MobileNet saved by `model.save` in
/// TensorFlow 2.12.1 (353 library functions, 1,471 objects; 2.7 MB with its variables).
const MOBILENET: &str = "../crates/graphdef-versions/tests/data/wild/cases/\
                         export_mobilenet_model_save_2.12.1";

/// `releases` of function-heavy TensorFlow 2 SavedModels, each beside prost's full decode of
/// its `saved_model.pb`: every function of the library imported (once for the releases that
/// define its ops alike), its objects revived, its variables checked.
///
/// - `keras_394_functions` ([`keras`]): built here, judged from its bytes. With
///   `GRAPHDEF_KERAS_SAVED_MODEL_DIR=DIR` in the environment, the bench writes it to
///   `DIR/saved_model.pb`, for timing the CLI as a whole process.
/// - `mobilenet_353_functions`: a real one ([`MOBILENET`]), judged as its directory.
fn function_heavy_saved_model(c: &mut Criterion) {
    let bytes = keras::saved_model(KERAS_BLOCKS);
    if let Some(dir) = std::env::var_os("GRAPHDEF_KERAS_SAVED_MODEL_DIR") {
        let dir = std::path::Path::new(&dir);
        std::fs::create_dir_all(dir).expect("GRAPHDEF_KERAS_SAVED_MODEL_DIR names a folder");
        std::fs::write(dir.join("saved_model.pb"), &bytes).expect("a writable folder");
    }
    let mut group = c.benchmark_group("releases_function_heavy_saved_model");
    group.sample_size(10);
    let judge = ReleaseJudge::with_host("bench");
    group.bench_function("keras_394_functions/baseline/prost_decode_full", |b| {
        b.iter(|| SavedModel::decode(black_box(bytes.as_slice())).unwrap())
    });
    group.bench_function("keras_394_functions/releases", |b| {
        b.iter(|| {
            let report = judge.judge(black_box(&bytes)).unwrap();
            assert_eq!(report.oldest_release().map(|r| r.name()), Some("2.12.1"));
            report
        })
    });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(MOBILENET);
    let mobilenet = std::fs::read(dir.join("saved_model.pb")).expect("the crate's test data");
    group.bench_function("mobilenet_353_functions/baseline/prost_decode_full", |b| {
        b.iter(|| SavedModel::decode(black_box(mobilenet.as_slice())).unwrap())
    });
    group.bench_function("mobilenet_353_functions/releases", |b| {
        b.iter(|| {
            let report = judge
                .judge_saved_model(black_box(&mobilenet), &dir)
                .unwrap();
            assert_eq!(report.oldest_release().map(|r| r.name()), Some("2.12.1"));
            report
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    function_heavy_saved_model,
    million_nodes,
    releases,
    version_check,
    registry_lookup
);
criterion_main!(benches);
