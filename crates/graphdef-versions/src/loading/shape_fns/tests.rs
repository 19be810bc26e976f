//! The shape functions against what TensorFlow's said of the same nodes.

use std::collections::HashMap;

use prost::Message;

use super::*;
use crate::loading::printing::Dialect;
use crate::loading::validate::{in_out_types, with_defaults};
use crate::releases::TfRelease;
use crate::schema::{NodeDef, TensorProto};

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn shape(value: &serde_json::Value) -> Shape {
    match value.as_array() {
        None => Shape::unknown(),
        Some(dims) => Shape::known(
            dims.iter()
                .map(|d| Some(d.as_i64().unwrap()).filter(|&d| d >= 0))
                .collect(),
        ),
    }
}

/// `tests/data/shapes/shapes.json`: what two releases' shape functions said of one node
/// each (`make_shapes.py`). The file is the repository's; a published package, which does
/// not ship `tests/data`, skips this test.
#[test]
fn every_shape_function_as_tensorflow_runs_it() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    if !path.is_dir() {
        return;
    }
    let text = std::fs::read_to_string(path.join("shapes/shapes.json")).unwrap();
    let releases: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut differences = Vec::new();
    let mut judged = 0;
    for (name, cases) in releases.as_object().unwrap() {
        let release = TfRelease::get(name).unwrap();
        let d = Dialect::of(release.number());
        for case in cases.as_array().unwrap() {
            let op_name = case["op"].as_str().unwrap();
            let inputs: Vec<Known> = case["inputs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|input| Known {
                    value: input["tensor"]
                        .as_str()
                        .and_then(|hex| Value::of(&TensorProto::decode(&*unhex(hex)).ok()?)),
                    ..Known::shape(shape(&input["shape"]))
                })
                .collect();
            let node = NodeDef {
                name: "node".into(),
                op: op_name.into(),
                input: (0..inputs.len()).map(|i| format!("in{i}")).collect(),
                attr: case["attrs"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| {
                        let bytes = unhex(v.as_str().unwrap());
                        (k.clone(), AttrValue::decode(&*bytes).unwrap())
                    })
                    .collect::<HashMap<_, _>>(),
                ..NodeDef::default()
            };
            let op = release.op(op_name).unwrap();
            let attrs = with_defaults(&node, op);
            let outputs = in_out_types(&attrs, op).unwrap().1.len();
            let context = Context::new(&node, &attrs, &inputs, outputs, 2474);
            let ours = infer(&context).map_err(|message| context.refusal(&message, &d));
            let theirs = match case.get("error") {
                Some(error) => Err(error.as_str().unwrap().to_string()),
                None => Ok(case["outputs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(shape)
                    .collect()),
            };
            let ours = ours.map(|known| known.into_iter().map(|k| k.shape).collect::<Vec<_>>());
            if ours != theirs {
                differences.push(format!(
                    "{name} {}:\n  ours: {ours:?}\n  TF:   {theirs:?}",
                    case["case"]
                ));
            }
            judged += 1;
        }
    }
    assert_eq!(judged, 164);
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
