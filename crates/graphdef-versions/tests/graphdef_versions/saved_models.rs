//! What `tf.saved_model.load` does beyond importing a graph, replayed: its own steps, each
//! tested on a SavedModel built here for it (the real files that show each step are judged in
//! `wild.rs`).

use std::collections::HashMap;

use graphdef_versions::ReleaseJudge;
use graphdef_versions::schema::attr_value::{ListValue, Value};
use graphdef_versions::schema::op_def::ArgDef;
use graphdef_versions::schema::{
    AttrValue, FunctionDef, FunctionDefLibrary, GraphDef, NodeDef, OpDef, VersionDef,
};

fn attr(value: Value) -> AttrValue {
    AttrValue { value: Some(value) }
}

/// A float `Identity` named `name` of `input`, colocated with `loc:@colocated`.
fn colocated_identity(name: &str, input: &str, colocated: &str) -> NodeDef {
    NodeDef {
        name: name.into(),
        op: "Identity".into(),
        input: vec![input.into()],
        attr: HashMap::from([
            ("T".to_string(), attr(Value::Type(1))),
            (
                "_class".to_string(),
                attr(Value::List(ListValue {
                    s: vec![format!("loc:@{colocated}").into_bytes()],
                    ..ListValue::default()
                })),
            ),
        ]),
        ..NodeDef::default()
    }
}

#[test]
fn colocation_is_not_validated_in_function_bodies() {
    // A function whose body asks to be colocated with a node it does not have, as Keras' batch
    // normalization does in real SavedModels (`basic_pitch_nmp` in wild.rs).
    let float = |name: &str| ArgDef {
        name: name.into(),
        r#type: 1,
        ..ArgDef::default()
    };
    let function = FunctionDef {
        signature: Some(OpDef {
            name: "__inference_f_7".into(),
            input_arg: vec![float("x")],
            output_arg: vec![float("y")],
            ..OpDef::default()
        }),
        node_def: vec![colocated_identity("y_0", "x", "elsewhere")],
        ret: HashMap::from([("y".to_string(), "y_0:output:0".to_string())]),
        ..FunctionDef::default()
    };
    let graph = GraphDef {
        library: Some(FunctionDefLibrary {
            function: vec![function],
            ..FunctionDefLibrary::default()
        }),
        versions: Some(VersionDef {
            producer: 1395,
            min_consumer: 12,
            ..VersionDef::default()
        }),
        ..GraphDef::default()
    };
    let judge = ReleaseJudge::with_host("vm");
    let report = judge.judge_saved_model_graph(&graph);
    assert!(report.verdicts().iter().all(|v| v.accepted()), "{report:?}");

    // The same node in a graph imported with import_graph_def is refused.
    let imported = GraphDef {
        node: vec![
            NodeDef {
                name: "x".into(),
                op: "Placeholder".into(),
                attr: HashMap::from([("dtype".to_string(), attr(Value::Type(1)))]),
                ..NodeDef::default()
            },
            colocated_identity("y", "x", "elsewhere"),
        ],
        ..graph
    };
    let report = judge.judge_graph_def(&imported);
    let first = &report.verdicts()[0].errors()[0];
    assert_eq!(
        first.message(),
        "Node 'y' expects to be colocated with unknown node 'elsewhere'"
    );
}
