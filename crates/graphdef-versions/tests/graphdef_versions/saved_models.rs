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
    let graph = library_graph(vec![function]);
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

/// A library of `depth` functions, each calling the next twice with `StatefulPartitionedCall`
/// (as a Keras model calls its layers' functions from several of its own), the last an
/// `Identity`, which returns it unless `returns` is false. Instantiating each call again
/// would take `2^depth` steps.
fn doubling_library(depth: usize, returns: bool) -> GraphDef {
    let float = |name: &str| ArgDef {
        name: name.into(),
        r#type: 1,
        ..ArgDef::default()
    };
    let name = |level: usize| format!("__inference_level_{level}_{}", 100 + level);
    let signature = |level: usize| OpDef {
        name: name(level),
        input_arg: vec![float("x")],
        output_arg: vec![float("y")],
        ..OpDef::default()
    };
    let mut functions = vec![FunctionDef {
        signature: Some(signature(depth - 1)),
        node_def: vec![NodeDef {
            name: "y_0".into(),
            op: "Identity".into(),
            input: vec!["x".into()],
            attr: HashMap::from([("T".to_string(), attr(Value::Type(1)))]),
            ..NodeDef::default()
        }],
        ret: HashMap::from([("y".to_string(), "y_0:output:0".to_string())])
            .into_iter()
            .filter(|_| returns)
            .collect(),
        ..FunctionDef::default()
    }];
    for level in (0..depth - 1).rev() {
        let call = |node: &str, input: &str| NodeDef {
            name: node.into(),
            op: "StatefulPartitionedCall".into(),
            input: vec![input.into()],
            attr: HashMap::from([
                (
                    "f".to_string(),
                    attr(Value::Func(graphdef_versions::schema::NameAttrList {
                        name: name(level + 1),
                        ..Default::default()
                    })),
                ),
                (
                    "Tin".to_string(),
                    attr(Value::List(ListValue {
                        r#type: vec![1],
                        ..ListValue::default()
                    })),
                ),
                (
                    "Tout".to_string(),
                    attr(Value::List(ListValue {
                        r#type: vec![1],
                        ..ListValue::default()
                    })),
                ),
            ]),
            ..NodeDef::default()
        };
        functions.push(FunctionDef {
            signature: Some(signature(level)),
            node_def: vec![call("first", "x"), call("second", "first:output:0")],
            ret: HashMap::from([("y".to_string(), "second:output:0".to_string())]),
            ..FunctionDef::default()
        });
    }
    library_graph(functions)
}

/// A graph of no nodes whose library holds `functions`, stamped as TF 2.21 stamps one
/// (producer 1395, min_consumer 12 for a library).
fn library_graph(functions: Vec<FunctionDef>) -> GraphDef {
    GraphDef {
        library: Some(FunctionDefLibrary {
            function: functions,
            ..FunctionDefLibrary::default()
        }),
        versions: Some(VersionDef {
            producer: 1395,
            min_consumer: 12,
            ..VersionDef::default()
        }),
        ..GraphDef::default()
    }
}

#[test]
fn a_function_called_from_many_places_is_judged_once_per_release() {
    // 2^40 calls in all: this finishes only if each function's instantiation is kept.
    let judge = ReleaseJudge::with_host("vm");
    let report = judge.judge_saved_model_graph(&doubling_library(40, true));
    assert!(report.verdicts().iter().all(|v| v.accepted()), "{report:?}");

    // The innermost function without its return: its body imports, and the first function
    // that calls it is refused when the call instantiates it, in every release.
    let report = judge.judge_saved_model_graph(&doubling_library(40, false));
    for verdict in report.verdicts() {
        let error = &verdict.errors()[0];
        assert_eq!(error.python_class(), "ValueError");
        assert!(
            error.message().contains("Return y missing."),
            "{}: {}",
            verdict.release().name(),
            error.message()
        );
    }
}

#[test]
fn a_function_name_given_twice_is_restored_as_python_sorts_it() {
    // `_sort_function_defs` counts each function's dependencies in a dict by name: the level
    // named twice is ready twice and releases its caller twice (found by fuzzing: the count
    // went below zero).
    let mut graph = doubling_library(3, true);
    let library = graph.library.as_mut().unwrap();
    let innermost = library.function[0].clone();
    library.function.push(innermost);
    let judge = ReleaseJudge::with_host("vm");
    let report = judge.judge_saved_model_graph(&graph);
    assert!(report.verdicts().iter().all(|v| v.accepted()), "{report:?}");
}
