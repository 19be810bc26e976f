//! Large GraphDefs (80,000 nodes, over 4 MiB), read in place: the verdicts and their messages
//! are those of the same graph decoded whole by prost and judged from its plain encoding,
//! whatever the graph holds and wherever in it.

use std::collections::HashMap;

use graphdef_versions::schema::{
    AttrValue, GraphDef, MetaGraphDef, NodeDef, SavedModel, VersionDef, attr_value,
};
use graphdef_versions::{Kind, ReleaseJudge, ReleaseReport, decode_graphs};
use prost::Message;

/// Enough nodes for a file over 4 MiB.
const NODES: usize = 80_000;

/// A chain of `Identity` nodes after a `Placeholder`, which every release loads.
fn chain() -> Vec<NodeDef> {
    let float = || AttrValue {
        value: Some(attr_value::Value::Type(1)),
    };
    (0..NODES)
        .map(|i| {
            if i == 0 {
                NodeDef {
                    name: "block_0/input".to_string(),
                    op: "Placeholder".to_string(),
                    attr: HashMap::from([("dtype".to_string(), float())]),
                    ..NodeDef::default()
                }
            } else {
                let previous = if i == 1 {
                    "block_0/input".to_string()
                } else {
                    format!("block_{}/identity_{}", (i - 1) / 1000, i - 1)
                };
                NodeDef {
                    name: format!("block_{}/identity_{i}", i / 1000),
                    op: "Identity".to_string(),
                    input: vec![previous],
                    attr: HashMap::from([("T".to_string(), float())]),
                    ..NodeDef::default()
                }
            }
        })
        .collect()
}

fn graph_def(node: Vec<NodeDef>) -> GraphDef {
    GraphDef {
        node,
        versions: Some(VersionDef {
            producer: 1205,
            ..VersionDef::default()
        }),
        ..GraphDef::default()
    }
}

/// The graph judged in place and decoded, which must agree; the verdict.
fn judged_alike(bytes: &[u8]) -> (Option<String>, Vec<String>) {
    assert!(bytes.len() >= 4 << 20, "a file of {} bytes", bytes.len());
    let report = judged_alike_or_refused(bytes).expect("judged");
    let first_errors = report
        .verdicts()
        .iter()
        .filter_map(|verdict| verdict.errors().first().map(|e| e.message().to_string()))
        .collect();
    (
        report.oldest_release().map(|r| r.name().to_string()),
        first_errors,
    )
}

/// Like [`judged_alike`], for bytes the judge may refuse: the report or the error. Bytes that
/// prost decodes are judged alike in place and decoded; bytes it refuses are refused.
fn judged_alike_or_refused(bytes: &[u8]) -> Result<ReleaseReport, String> {
    let judge = ReleaseJudge::with_host("test");
    let in_place = judge.judge(bytes).map_err(|e| e.to_string());
    match decode_graphs(bytes) {
        Ok((_, graphs)) if Kind::detect(bytes) == Ok(Kind::GraphDef) => {
            assert_eq!(in_place, Ok(judge.judge_graph_def(&graphs[0])));
        }
        Ok(_) => {}
        Err(_) => assert!(in_place.is_err(), "prost refuses it, the judge must too"),
    }
    in_place
}

/// A graph of `nodes` that every release refuses, in place and decoded, with an error that
/// says `message`.
fn refused_by_all(nodes: Vec<NodeDef>, message: &str) {
    let (oldest, errors) = judged_alike(&graph_def(nodes).encode_to_vec());
    assert_eq!(oldest, None);
    assert_eq!(errors.len(), 10);
    assert!(errors[0].contains(message), "{}", errors[0]);
}

#[test]
fn a_large_graph_every_release_loads() {
    let (oldest, errors) = judged_alike(&graph_def(chain()).encode_to_vec());
    assert_eq!(oldest.as_deref(), Some("2.12.1"));
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn a_repeated_name_near_the_end() {
    let mut nodes = chain();
    nodes[NODES - 3].name = nodes[100].name.clone();
    refused_by_all(nodes, "Node 'block_0/identity_100' is not unique");
}

#[test]
fn an_unknown_input_and_an_invalid_name() {
    let mut nodes = chain();
    nodes[NODES - 1].input = vec!["nowhere:1".to_string()];
    refused_by_all(nodes.clone(), "Unknown input node 'nowhere:1'");
    // A bad name anywhere comes before any input: the index is built first.
    nodes[NODES / 2].name = "_internal".to_string();
    refused_by_all(
        nodes,
        "Node '_internal': Node name contains invalid characters",
    );
}

#[test]
fn inputs_written_after_their_nodes_and_control_inputs() {
    let mut nodes = chain();
    // The first identity reads the last node, written after it, as a control input; the
    // chain then has a cycle, which every release refuses in its own words.
    let last = nodes[NODES - 1].name.clone();
    nodes[1].input.push(format!("^{last}"));
    let (oldest, errors) = judged_alike(&graph_def(nodes).encode_to_vec());
    assert_eq!(oldest, None);
    assert_eq!(errors.len(), 10);
}

#[test]
fn a_file_that_does_not_start_with_a_node() {
    // Versions first, then the nodes.
    let graph = graph_def(chain());
    let mut bytes = GraphDef {
        versions: graph.versions.clone(),
        ..GraphDef::default()
    }
    .encode_to_vec();
    bytes.extend(
        GraphDef {
            node: graph.node,
            ..GraphDef::default()
        }
        .encode_to_vec(),
    );
    let (oldest, _) = judged_alike(&bytes);
    assert_eq!(oldest.as_deref(), Some("2.12.1"));
}

#[test]
fn a_large_saved_model_is_not_read_as_a_graph_def() {
    let saved_model = SavedModel {
        saved_model_schema_version: 1,
        meta_graphs: vec![MetaGraphDef {
            graph_def: Some(graph_def(chain())),
            ..MetaGraphDef::default()
        }],
    };
    judged_alike(&saved_model.encode_to_vec());
    // Without its schema version, the meta graph is the first field.
    let saved_model = SavedModel {
        saved_model_schema_version: 0,
        ..saved_model
    };
    judged_alike(&saved_model.encode_to_vec());
}

#[test]
fn a_large_file_with_damage_at_its_end() {
    let mut bytes = graph_def(chain()).encode_to_vec();
    // A field of the wrong wire type for a GraphDef (5 is a SavedModel's or a GraphDef's
    // debug info, never a varint).
    bytes.extend([5 << 3, 1]);
    assert!(judged_alike_or_refused(&bytes).is_err());
    // Cut inside its last node (the versions, written after the nodes, are a few bytes).
    let bytes = graph_def(chain()).encode_to_vec();
    assert!(judged_alike_or_refused(&bytes[..bytes.len() - 20]).is_err());
}

#[test]
fn small_first_nodes_before_a_large_field() {
    // Nodes of a few bytes, then a field the GraphDef does not know, of 5 MiB.
    let mut bytes = graph_def(
        (0..6000)
            .map(|i| NodeDef {
                name: format!("n{i}"),
                op: "NoOp".to_string(),
                ..NodeDef::default()
            })
            .collect(),
    )
    .encode_to_vec();
    bytes.extend(crate::common::field(100, &vec![0; 5 << 20]));
    let (oldest, errors) = judged_alike(&bytes);
    assert_eq!(oldest.as_deref(), Some("2.12.1"), "{errors:?}");
}

#[test]
fn inputs_looked_up_once_every_node_is_indexed() {
    // Every node after the second also waits for the first, named by a control input: about
    // as many inputs to look up as nodes.
    let mut nodes = chain();
    let first = nodes[0].name.clone();
    for node in &mut nodes[2..] {
        node.input.push(format!("^{first}"));
    }
    let (oldest, errors) = judged_alike(&graph_def(nodes.clone()).encode_to_vec());
    assert_eq!(oldest.as_deref(), Some("2.12.1"));
    assert!(errors.is_empty(), "{errors:?}");
    // An unknown input in each half of them: the first one is refused.
    nodes[3 * NODES / 4].input.push("^nowhere_b".to_string());
    nodes[NODES / 4].input.push("^nowhere_a".to_string());
    refused_by_all(nodes, "Unknown input node '^nowhere_a'");
}
