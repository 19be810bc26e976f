//! Agreement with real TensorFlow 2.21: every recorded case and every real file in
//! `tests/data/`, to the byte.

use crate::common::{data_bytes, data_json, graph, saved_model_around, versions};
use graphdef_versions::schema::{GraphDef, VersionDef};
use graphdef_versions::{
    Artifact, CHECKPOINT, Consumer, GRAPH_DEF, Kind, Producer, Refusal, Registry,
    TF_DEPRECATED_OPS, TF_VERSION, Version, check_file, decode_graphs, distinct_ops,
    merge_on_import, rewrite_graph_def_versions, rewrite_versions, scan_ops, sniff,
};
use prost::Message;
use serde_json::Value;

fn int(value: &Value) -> i32 {
    i32::try_from(value.as_i64().expect("an integer")).expect("fits i32")
}

fn ints(value: &Value) -> Vec<i32> {
    value.as_array().expect("a list").iter().map(int).collect()
}

fn version_def(value: &Value) -> VersionDef {
    versions(
        int(&value["producer"]),
        int(&value["min_consumer"]),
        &ints(&value["bad_consumers"]),
    )
}

#[test]
fn constants_are_tensorflow_2_21s() {
    let json = data_json("graphdef_versions.json");
    assert_eq!(json["tf_version"], TF_VERSION);
    let macros = &json["version_h_macros"];
    assert_eq!(
        GRAPH_DEF.current.get(),
        int(&macros["TF_GRAPH_DEF_VERSION"])
    );
    assert_eq!(
        GRAPH_DEF.min_producer.get(),
        int(&macros["TF_GRAPH_DEF_VERSION_MIN_PRODUCER"])
    );
    assert_eq!(
        GRAPH_DEF.min_consumer.get(),
        int(&macros["TF_GRAPH_DEF_VERSION_MIN_CONSUMER"])
    );
    assert_eq!(
        CHECKPOINT.current.get(),
        int(&macros["TF_CHECKPOINT_VERSION"])
    );
    assert_eq!(
        CHECKPOINT.min_producer.get(),
        int(&macros["TF_CHECKPOINT_VERSION_MIN_PRODUCER"])
    );
    assert_eq!(
        CHECKPOINT.min_consumer.get(),
        int(&macros["TF_CHECKPOINT_VERSION_MIN_CONSUMER"])
    );
    // A fresh tf.Graph() is stamped exactly as our producer stamps.
    assert_eq!(
        Producer::tensorflow_graph_def().stamp(),
        version_def(&json["fresh_tf_Graph_versions"])
    );
}

#[test]
fn deprecated_op_table_is_tensorflows() {
    let json = data_json("tf_deprecated_ops.json");
    assert_eq!(json["tf_version"], TF_VERSION);
    let expected = json["deprecated"].as_object().expect("an object");
    assert_eq!(TF_DEPRECATED_OPS.len(), 63);
    assert_eq!(TF_DEPRECATED_OPS.len(), expected.len());
    for op in TF_DEPRECATED_OPS {
        let record = &expected[op.name.as_ref()];
        assert_eq!(op.version.get(), int(&record["version"]), "{}", op.name);
        assert_eq!(
            op.explanation,
            record["explanation"].as_str().unwrap(),
            "{}",
            op.name
        );
    }
    let registry = Registry::tensorflow();
    assert_eq!(registry.len(), 63);
    for name in expected.keys() {
        assert!(
            registry.get(name).is_some(),
            "{name} missing from the default registry"
        );
    }
}

/// Builds the case's graph, judges it as TensorFlow 2.21's importer does, and compares verdict,
/// message, merged VersionDef and warning lines with what TensorFlow recorded.
#[test]
fn every_recorded_case_agrees_to_the_byte() {
    let json = data_json("graphdef_cases.json");
    assert_eq!(json["tf_version"], TF_VERSION);
    assert_eq!(int(&json["GRAPH_DEF_VERSION"]), GRAPH_DEF.current.get());
    let cases = json["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 53);

    let consumer = Consumer::tensorflow_graph_def();
    let registry = Registry::tensorflow();
    let fresh_graph = Producer::tensorflow_graph_def().stamp();
    let mut checked = 0;
    for case in cases {
        let name = case["case"].as_str().unwrap();
        let present = case["versions_field_present"].as_bool().unwrap_or(true);
        let stamped = versions(
            int(&case["producer"]),
            int(&case["min_consumer"]),
            &ints(&case["bad_consumers"]),
        );
        let mut ops = vec!["Const", "Identity"];
        if let Some(op) = case["op"].as_str() {
            ops.push(op);
        }
        let bytes = graph(&ops, &[], present.then(|| stamped.clone())).encode_to_vec();

        let verdict = check_file(&bytes, &consumer, &registry).expect("the graph reads");
        assert_eq!(verdict.kind, Kind::GraphDef);
        let graph = &verdict.graphs[0];
        assert_eq!(graph.summary.has_versions, present, "{name}");
        assert_eq!(verdict.accepted(), case["ok"].as_bool().unwrap(), "{name}");
        if verdict.accepted() {
            let merged = merge_on_import(&fresh_graph, &graph.summary.versions);
            assert_eq!(
                merged,
                version_def(&case["imported_graph_versions"]),
                "{name}"
            );
            let expected_lines: Vec<&str> = case["cpp_log_lines"]
                .as_array()
                .map(|lines| lines.iter().map(|l| l.as_str().unwrap()).collect())
                .unwrap_or_default();
            let warnings: Vec<String> =
                graph.ops.warnings.iter().map(ToString::to_string).collect();
            assert_eq!(warnings, expected_lines, "{name}");
        } else {
            let error = verdict.first_error().expect("a refusal").to_string();
            assert_eq!(error, case["error"].as_str().unwrap(), "{name}");
            // TensorFlow raised INVALID_ARGUMENT for versions, UNIMPLEMENTED for removed ops.
            let removed_op = matches!(
                verdict.first_error(),
                Some(graphdef_versions::Error::Refused(Refusal::OpRemoved { .. }))
            );
            let code = if removed_op {
                "UNIMPLEMENTED"
            } else {
                "INVALID_ARGUMENT"
            };
            assert_eq!(case["status_code"], code, "{name}");
        }
        if let Some(op) = case["op"].as_str() {
            let deprecated = registry.get(op).expect("the case's op is deprecated");
            assert_eq!(
                deprecated.version.get(),
                int(&case["deprecation_version"]),
                "{name}"
            );
            assert_eq!(
                deprecated.explanation,
                case["deprecation_explanation"].as_str().unwrap(),
                "{name}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 53);
}

fn real_graphs() -> Vec<(String, Vec<u8>, Value)> {
    let summary = data_json("graphdef/summary.json");
    let files = summary.as_object().expect("summary object");
    assert_eq!(files.len(), 3);
    files
        .iter()
        .map(|(name, expected)| {
            (
                name.clone(),
                data_bytes(&format!("graphdef/{name}")),
                expected.clone(),
            )
        })
        .collect()
}

#[test]
fn real_graphdefs_sniff_like_a_full_decode() {
    for (name, bytes, expected) in real_graphs() {
        assert_eq!(
            bytes.len() as u64,
            expected["bytes"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(Kind::detect(&bytes).unwrap(), Kind::GraphDef, "{name}");
        let decoded = GraphDef::decode(bytes.as_slice()).unwrap();
        let summary = sniff(&bytes).unwrap();
        assert_eq!(
            summary.versions,
            version_def(&expected["versions"]),
            "{name}"
        );
        assert_eq!(Some(&summary.versions), decoded.versions.as_ref(), "{name}");
        assert!(summary.has_versions);
        assert_eq!(
            summary.nodes as u64,
            expected["nodes"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(summary.nodes, decoded.node.len(), "{name}");
        let functions = expected["library_functions"].as_array().unwrap();
        assert_eq!(summary.library_functions, functions.len(), "{name}");

        // The op scan sees exactly the ops a full decode sees, graph and library.
        let mut scanned: Vec<&str> = distinct_ops(&bytes).unwrap();
        scanned.sort_unstable();
        let mut decoded_ops: Vec<&str> = decoded
            .node
            .iter()
            .map(|n| n.op.as_str())
            .chain(
                decoded
                    .library
                    .iter()
                    .flat_map(|l| &l.function)
                    .flat_map(|f| &f.node_def)
                    .map(|n| n.op.as_str()),
            )
            .collect();
        decoded_ops.sort_unstable();
        decoded_ops.dedup();
        assert_eq!(scanned, decoded_ops, "{name}");
        // summary.json lists the graph's own nodes' ops.
        let mut top: Vec<&str> = decoded.node.iter().map(|n| n.op.as_str()).collect();
        top.sort_unstable();
        top.dedup();
        let listed: Vec<&str> = expected["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap())
            .collect();
        assert_eq!(top, listed, "{name}");
        let mut graph_only = Vec::new();
        scan_ops(&bytes, |site| {
            if !site.in_library {
                graph_only.push(site.op);
            }
        })
        .unwrap();
        graph_only.sort_unstable();
        graph_only.dedup();
        assert_eq!(graph_only, listed, "{name}");

        // TensorFlow 2.21 accepts its own graphs, without warnings.
        let verdict = check_file(
            &bytes,
            &Consumer::tensorflow_graph_def(),
            &Registry::tensorflow(),
        )
        .unwrap();
        assert!(verdict.accepted(), "{name}: {:?}", verdict.first_error());
        assert!(verdict.graphs[0].ops.warnings.is_empty());
    }
}

#[test]
fn with_library_needs_consumer_12() {
    let bytes = data_bytes("graphdef/with_library.pb");
    let summary = sniff(&bytes).unwrap();
    assert_eq!(summary.versions.min_consumer, 12);
    let old = Consumer::new(
        graphdef_versions::Scheme::GraphDef,
        Version::new(11),
        Version::new(0),
        "0.10.0",
    );
    let verdict = check_file(&bytes, &old, &Registry::tensorflow()).unwrap();
    assert_eq!(
        verdict.first_error().unwrap().to_string(),
        "GraphDef min consumer version 12 above current version 11 for TensorFlow 0.10.0.  Please upgrade TensorFlow."
    );
}

/// There is no saved_model.pb in the oracle: build one around each real GraphDef (as
/// TensorFlow's SavedModel writer lays it out) and check that it is recognised and judged like
/// the graph inside it.
#[test]
fn saved_model_around_a_real_graph_is_detected_and_judged() {
    for (name, bytes, expected) in real_graphs() {
        let saved = saved_model_around(&bytes);
        assert_eq!(Kind::detect(&saved).unwrap(), Kind::SavedModel, "{name}");
        let opened = Artifact::open(&saved).unwrap();
        assert_eq!(opened.saved_model_schema_version(), Some(1));
        assert_eq!(opened.graphs().len(), 1);
        let graph = &opened.graphs()[0];
        let info = graph.meta_graph.as_ref().unwrap();
        assert_eq!(info.tags, ["serve"]);
        assert_eq!(info.tensorflow_version, Some("2.21.0"));
        let summary = graph.sniff().unwrap();
        assert_eq!(summary, sniff(&bytes).unwrap(), "{name}");
        assert_eq!(summary.versions, version_def(&expected["versions"]));
        assert_eq!(
            graph.decode().unwrap(),
            GraphDef::decode(bytes.as_slice()).unwrap()
        );
        let (kind, decoded) = decode_graphs(&saved).unwrap();
        assert_eq!(kind, Kind::SavedModel);
        assert_eq!(decoded, vec![GraphDef::decode(bytes.as_slice()).unwrap()]);

        let verdict = check_file(
            &saved,
            &Consumer::tensorflow_graph_def(),
            &Registry::tensorflow(),
        )
        .unwrap();
        assert_eq!(verdict.kind, Kind::SavedModel);
        assert!(verdict.accepted());
        assert_eq!(verdict.graphs[0].meta_graph, Some(0));
    }
}

#[test]
fn rewriting_a_real_file_changes_only_the_version_def() {
    let new = versions(2474, 2400, &[2401, 2450]);
    for (name, bytes, _) in real_graphs() {
        let rewritten = rewrite_graph_def_versions(&bytes, &new).unwrap();
        assert_eq!(sniff(&rewritten).unwrap().versions, new, "{name}");
        let mut before = GraphDef::decode(bytes.as_slice()).unwrap();
        let after = GraphDef::decode(rewritten.as_slice()).unwrap();
        before.versions = Some(new.clone());
        assert_eq!(before, after, "{name}");
        // Every byte outside the versions field is the original's, in place.
        let field = versions_field(&bytes);
        let new_field = versions_field(&rewritten);
        assert!(
            bytes[..field.0] == rewritten[..new_field.0],
            "{name}: bytes before versions differ"
        );
        assert!(
            bytes[field.1..] == rewritten[new_field.1..],
            "{name}: bytes after versions differ"
        );
        // Writing the original versions back gives the original file.
        let original = sniff(&bytes).unwrap().versions;
        assert!(
            rewrite_graph_def_versions(&rewritten, &original).unwrap() == bytes,
            "{name}: not restored"
        );

        // The same through a SavedModel: the graph bytes change exactly as above.
        let saved = saved_model_around(&bytes);
        let saved_rewritten = rewrite_versions(&saved, &new).unwrap();
        assert!(
            saved_rewritten == saved_model_around(&rewritten),
            "{name}: SavedModel rewrite differs"
        );
    }
}

/// Byte range of the (single) top-level versions field of a GraphDef: the field as a graph
/// holding only it (TensorFlow and prost write a VersionDef alike), found in the file.
fn versions_field(bytes: &[u8]) -> (usize, usize) {
    let versions = GraphDef::decode(bytes).unwrap().versions;
    let field = GraphDef {
        versions,
        ..GraphDef::default()
    }
    .encode_to_vec();
    let starts: Vec<usize> = bytes
        .windows(field.len())
        .enumerate()
        .filter(|(_, window)| *window == field.as_slice())
        .map(|(start, _)| start)
        .collect();
    assert_eq!(starts.len(), 1, "the versions field is in the file once");
    (starts[0], starts[0] + field.len())
}
