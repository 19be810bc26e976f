//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use graphdef_versions::WireType;
use graphdef_versions::schema::{
    FunctionDef, FunctionDefLibrary, GraphDef, MetaGraphDef, NodeDef, OpDef, SavedModel,
    VersionDef, meta_graph_def::MetaInfoDef,
};
use prost::Message;

/// `tests/data/<name>`: TensorFlow reference data kept in the repository (listed in
/// `tests/data/README.md`). Panics, naming the file, when it is missing: these tests compare with
/// real TensorFlow and must never pass vacuously.
pub fn data(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    assert!(
        path.exists(),
        "test data {} is missing (tests/data/README.md lists every file and how it was made)",
        path.display()
    );
    path
}

pub fn data_bytes(name: &str) -> Vec<u8> {
    let path = data(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

pub fn data_json(name: &str) -> serde_json::Value {
    serde_json::from_slice(&data_bytes(name))
        .unwrap_or_else(|e| panic!("tests/data/{name} is not valid JSON: {e}"))
}

/// `value` as a protobuf varint, in its shortest form (the tests build damaged bytes by hand;
/// the crate's own wire module is private).
pub fn varint(mut value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
    out
}

/// A field's tag: its number and wire type, as one varint.
pub fn key(number: u32, wire_type: WireType) -> Vec<u8> {
    varint(u64::from(number) << 3 | u64::from(wire_type.number()))
}

/// A length-delimited field on the wire: key, varint length, payload.
pub fn field(number: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = key(number, WireType::LengthDelimited);
    out.extend(varint(payload.len() as u64));
    out.extend_from_slice(payload);
    out
}

pub fn node(name: &str, op: &str) -> NodeDef {
    NodeDef {
        name: name.to_string(),
        op: op.to_string(),
        ..Default::default()
    }
}

pub fn versions(producer: i32, min_consumer: i32, bad_consumers: &[i32]) -> VersionDef {
    VersionDef {
        producer,
        min_consumer,
        bad_consumers: bad_consumers.to_vec(),
    }
}

/// A graph of `ops` (one node each) with a library function whose body uses `library_ops`.
pub fn graph(ops: &[&str], library_ops: &[&str], versions: Option<VersionDef>) -> GraphDef {
    let library = (!library_ops.is_empty()).then(|| FunctionDefLibrary {
        function: vec![FunctionDef {
            signature: Some(OpDef {
                name: "f".into(),
                ..Default::default()
            }),
            node_def: library_ops
                .iter()
                .enumerate()
                .map(|(i, op)| node(&format!("f{i}"), op))
                .collect(),
            ..Default::default()
        }],
        ..Default::default()
    });
    GraphDef {
        node: ops
            .iter()
            .enumerate()
            .map(|(i, op)| node(&format!("n{i}"), op))
            .collect(),
        versions,
        library,
        ..Default::default()
    }
}

/// A `saved_model.pb` as TensorFlow writes it: schema version 1, one meta graph tagged "serve",
/// written by TensorFlow 2.21.0, whose `graph_def` is `graph_def` byte for byte (spliced in on
/// the wire, not re-encoded, so that the real file's bytes are what is read).
pub fn saved_model_around(graph_def: &[u8]) -> Vec<u8> {
    GraphDef::decode(graph_def).expect("a real GraphDef");
    let meta_info = MetaInfoDef {
        meta_graph_version: "v2.21.0".into(),
        tags: vec!["serve".into()],
        tensorflow_version: "2.21.0".into(),
        tensorflow_git_version: "v2.21.0-rc1-5-ga481b10260d".into(),
        ..Default::default()
    };
    let mut meta_graph = MetaGraphDef {
        meta_info_def: Some(meta_info),
        ..Default::default()
    }
    .encode_to_vec();
    // MetaGraphDef.graph_def = 2.
    meta_graph.extend(field(2, graph_def));
    let mut saved = SavedModel {
        saved_model_schema_version: 1,
        meta_graphs: vec![],
    }
    .encode_to_vec();
    // SavedModel.meta_graphs = 2.
    saved.extend(field(2, &meta_graph));
    saved
}
