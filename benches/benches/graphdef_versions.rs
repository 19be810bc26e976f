//! graphdef-versions benchmarks: each operation beside a baseline measured in the same run.
//!
//! The subject is a generated GraphDef of one million nodes (name, op, one input, a `T`
//! attribute: the shape of real graphs' nodes), about 60 MB. The baseline is what a tool
//! without this crate does: decode the whole graph with prost. The goals: a version sniff at
//! most 1/100 of the full decode, the deprecated-op scan at most 1/10.
//!
//! The CLI is timed as a whole process on the same graph: with `GRAPHDEF_1M_NODES_FILE=PATH`
//! in the environment, the bench also writes the graph it generates to `PATH`
//! (`GRAPHDEF_1M_NODES_FILE=/tmp/1m.pb cargo bench -p benches --bench graphdef_versions -- version_def`
//! writes it and runs only the small benches), for `/usr/bin/time graphdef-versions check PATH`
//! beside TensorFlow's `GraphDef.FromString` of the same bytes.
//!
//! `graph_def_1m_nodes/releases_ten_importers` judges that graph in all ten releases with
//! `ReleaseJudge` (each refuses it at its first node, once every node is indexed), beside
//! `judge_versions_and_ops`, what `check` does.
//!
//! `releases_1m_valid_nodes` judges a graph that every release loads (a `Placeholder`, then
//! `Identity` and `AddV2` nodes in a chain, all with their attrs) in all ten releases with
//! `ReleaseJudge`, beside the full prost decode of the same bytes: replaying ten importers,
//! against only reading the graph. With `GRAPHDEF_1M_VALID_NODES_FILE=PATH`, the bench writes
//! that graph to `PATH`, for `graphdef-versions releases PATH` as a whole process.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use graphdef_versions::schema::{AttrValue, GraphDef, NodeDef, VersionDef, attr_value};
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

/// One million nodes every release from 2.12 to 2.21 loads.
fn million_valid_nodes() -> Vec<u8> {
    let float = |name: &str| {
        (
            name.to_string(),
            AttrValue {
                value: Some(attr_value::Value::Type(1)),
            },
        )
    };
    let node = (0..NODES).map(|i| match i {
        0 => NodeDef {
            name: "x".to_string(),
            op: "Placeholder".to_string(),
            attr: HashMap::from([float("dtype")]),
            ..Default::default()
        },
        _ => {
            let previous = if i == 1 {
                "x".to_string()
            } else {
                format!("n{}", i - 1)
            };
            let (op, input) = if i % 3 == 0 {
                ("AddV2", vec![previous, "x".to_string()])
            } else {
                ("Identity", vec![previous])
            };
            NodeDef {
                name: format!("n{i}"),
                op: op.to_string(),
                input,
                attr: HashMap::from([float("T")]),
                ..Default::default()
            }
        }
    });
    GraphDef {
        node: node.collect(),
        versions: Some(VersionDef {
            producer: 2474,
            ..Default::default()
        }),
        ..Default::default()
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
    let judge = ReleaseJudge::with_host("bench");
    group.bench_function("ten_releases", |b| {
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
    group.bench_function("judge_versions_and_ops", |b| {
        b.iter(|| check_file(black_box(&bytes), &consumer, &registry).unwrap())
    });
    // What `graphdef-versions releases` does, beside `judge_versions_and_ops` (what `check`
    // does): every release refuses this graph at its first node, after indexing all of them.
    let releases = ReleaseJudge::with_host("bench");
    group.bench_function("releases_ten_importers", |b| {
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

criterion_group!(
    benches,
    million_nodes,
    releases,
    version_check,
    registry_lookup
);
criterion_main!(benches);
