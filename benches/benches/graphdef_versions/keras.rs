//! A SavedModel shaped as Keras 2's `model.save` writes a convolutional network, for the
//! function-heavy rows of the benchmarks: per block (a `Conv2D`, a `FusedBatchNormV3` and a
//! `Relu6`, over five resource variables), the three functions Keras traces (the layer's call,
//! its `call_and_return_conditional_losses`, and the call with `training`), each called
//! through `StatefulPartitionedCall` from the model's own functions; the model's calls, its
//! serving signature and its `_traced_save` / `_traced_restore`; and the object graph that
//! tracks every layer, variable and function, with each concrete function's recorded input and
//! output signatures.
//!
//! Node and attr names, attrs and sizes follow what `tf.keras` 2.12 writes for MobileNet
//! (`export_mobilenet_model_save_2.12.1` among the crate's wild cases): about 7 KB per
//! function, about 0.7 MB per 100 of them.

use std::collections::HashMap;

use graphdef_versions::schema::attr_value::{ListValue, Value};
use graphdef_versions::schema::function_def::ArgAttrs;
use graphdef_versions::schema::op_def::ArgDef;
use graphdef_versions::schema::saved_object::Kind as ObjectKind;
use graphdef_versions::schema::structured_value::Kind as ValueKind;
use graphdef_versions::schema::tensor_shape_proto::Dim;
use graphdef_versions::schema::{
    AttrValue, DictValue, FunctionDef, FunctionDefLibrary, FunctionSpec, GraphDef, MetaGraphDef,
    NodeDef, OpDef, SavedConcreteFunction, SavedFunction, SavedModel, SavedObject,
    SavedObjectGraph, SavedUserObject, SavedVariable, StructuredValue, TensorShapeProto,
    TensorSpecProto, TrackableObjectReference, TupleValue, VersionDef, meta_graph_def,
};
use prost::Message;

const FLOAT: i32 = 1;
const RESOURCE: i32 = 20;
/// The variables of one block: the convolution's kernel and the batch norm's four.
const VARIABLES: [&str; 5] = ["kernel", "gamma", "beta", "moving_mean", "moving_variance"];

fn attr(value: Value) -> AttrValue {
    AttrValue { value: Some(value) }
}

fn shape(dims: &[i64]) -> TensorShapeProto {
    TensorShapeProto {
        dim: dims
            .iter()
            .map(|&size| Dim {
                size,
                ..Dim::default()
            })
            .collect(),
        ..TensorShapeProto::default()
    }
}

fn shapes(list: &[&[i64]]) -> AttrValue {
    attr(Value::List(ListValue {
        shape: list.iter().map(|dims| shape(dims)).collect(),
        ..ListValue::default()
    }))
}

fn node(name: &str, op: &str, input: &[&str], attrs: Vec<(&str, AttrValue)>) -> NodeDef {
    NodeDef {
        name: name.into(),
        op: op.into(),
        input: input.iter().map(|i| i.to_string()).collect(),
        attr: attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        ..NodeDef::default()
    }
}

fn arg(name: &str, dtype: i32) -> ArgDef {
    ArgDef {
        name: name.into(),
        r#type: dtype,
        ..ArgDef::default()
    }
}

/// The attrs Keras' traced functions carry beside their nodes: each argument's
/// `_user_specified_name` and `_output_shapes`, and where the function was made.
fn traced(mut function: FunctionDef, input_shapes: &[&[i64]]) -> FunctionDef {
    let args = &function.signature.as_ref().expect("a signature").input_arg;
    function.arg_attr = args
        .iter()
        .zip(input_shapes)
        .enumerate()
        .map(|(i, (arg, dims))| {
            let attrs = HashMap::from([
                (
                    "_user_specified_name".to_string(),
                    attr(Value::S(arg.name.clone().into_bytes())),
                ),
                ("_output_shapes".to_string(), shapes(&[dims])),
            ]);
            (i as u32, ArgAttrs { attr: attrs })
        })
        .collect();
    function.attr.insert(
        "_construction_context".into(),
        attr(Value::S(b"kEagerRuntime".to_vec())),
    );
    function
        .attr
        .insert("_input_shapes".into(), shapes(input_shapes));
    function
}

/// The features of block `b`: a 32x32 image with `8 * (b % 8 + 1)` channels.
fn channels(b: usize) -> i64 {
    8 * (b as i64 % 8 + 1)
}

/// A block's body: the reads of its variables, the convolution, the batch norm and the
/// activation, as Keras traces `call_and_return_conditional_losses`; in training mode, the
/// batch norm also assigns its moving mean and variance.
fn block_body(name: &str, b: usize, training: bool) -> FunctionDef {
    let c = channels(b);
    let float = attr(Value::Type(FLOAT));
    let image: &[i64] = &[-1, 32, 32, c];
    let variable_shape = |v: usize| if v == 0 { vec![3, 3, c, c] } else { vec![c] };
    let mut input_arg = vec![arg("inputs", FLOAT)];
    let mut nodes = Vec::new();
    for (v, variable) in VARIABLES.iter().enumerate() {
        input_arg.push(arg(
            &format!("readvariableop_{variable}_resource"),
            RESOURCE,
        ));
        nodes.push(node(
            &format!("{variable}/ReadVariableOp"),
            "ReadVariableOp",
            &[&format!("readvariableop_{variable}_resource")],
            vec![
                ("dtype", float.clone()),
                ("_output_shapes", shapes(&[&variable_shape(v)])),
            ],
        ));
    }
    nodes.push(node(
        "Conv2D",
        "Conv2D",
        &["inputs", "kernel/ReadVariableOp:value:0"],
        vec![
            ("T", float.clone()),
            (
                "strides",
                attr(Value::List(ListValue {
                    i: vec![1, 1, 1, 1],
                    ..ListValue::default()
                })),
            ),
            ("padding", attr(Value::S(b"SAME".to_vec()))),
            ("data_format", attr(Value::S(b"NHWC".to_vec()))),
            (
                "dilations",
                attr(Value::List(ListValue {
                    i: vec![1, 1, 1, 1],
                    ..ListValue::default()
                })),
            ),
            ("use_cudnn_on_gpu", attr(Value::B(true))),
            ("explicit_paddings", attr(Value::List(ListValue::default()))),
            ("_output_shapes", shapes(&[image])),
        ],
    ));
    nodes.push(node(
        "FusedBatchNormV3",
        "FusedBatchNormV3",
        &[
            "Conv2D:output:0",
            "gamma/ReadVariableOp:value:0",
            "beta/ReadVariableOp:value:0",
            "moving_mean/ReadVariableOp:value:0",
            "moving_variance/ReadVariableOp:value:0",
        ],
        vec![
            ("T", float.clone()),
            ("U", float.clone()),
            ("epsilon", attr(Value::F(0.001))),
            ("exponential_avg_factor", attr(Value::F(1.0))),
            ("data_format", attr(Value::S(b"NHWC".to_vec()))),
            ("is_training", attr(Value::B(training))),
            (
                "_output_shapes",
                shapes(&[image, &[c], &[c], &[c], &[c], &[]]),
            ),
        ],
    ));
    nodes.push(node(
        "Relu6",
        "Relu6",
        &["FusedBatchNormV3:y:0"],
        vec![("T", float.clone()), ("_output_shapes", shapes(&[image]))],
    ));
    let mut control: Vec<String> = VARIABLES.map(|v| format!("^{v}/ReadVariableOp")).to_vec();
    if training {
        // The new moving statistics, written back to their variables.
        for (variable, output) in [
            ("moving_mean", "batch_mean"),
            ("moving_variance", "batch_variance"),
        ] {
            let assign = format!("AssignNewValue_{variable}");
            nodes.push(node(
                &assign,
                "AssignVariableOp",
                &[
                    &format!("readvariableop_{variable}_resource"),
                    &format!("FusedBatchNormV3:{output}:0"),
                    &format!("^{variable}/ReadVariableOp"),
                ],
                vec![
                    ("dtype", float.clone()),
                    ("validate_shape", attr(Value::B(true))),
                    ("_output_shapes", shapes(&[])),
                ],
            ));
            control.push(format!("^{assign}"));
        }
    }
    nodes.push(node(
        "NoOp",
        "NoOp",
        &control.iter().map(String::as_str).collect::<Vec<_>>(),
        vec![("_output_shapes", shapes(&[]))],
    ));
    nodes.push(node(
        "Identity",
        "Identity",
        &["Relu6:activations:0", "^NoOp"],
        vec![("T", float.clone()), ("_output_shapes", shapes(&[image]))],
    ));
    let function = FunctionDef {
        signature: Some(OpDef {
            name: name.into(),
            input_arg,
            output_arg: vec![arg("identity", FLOAT)],
            is_stateful: true,
            control_output: vec!["NoOp".into()],
            ..OpDef::default()
        }),
        node_def: nodes,
        ret: HashMap::from([("identity".to_string(), "Identity:output:0".to_string())]),
        control_ret: HashMap::from([("NoOp".to_string(), "NoOp".to_string())]),
        ..FunctionDef::default()
    };
    traced(function, &[image, &[], &[], &[], &[], &[]])
}

/// A function that calls `callee` (of `args` inputs, the first a float, the rest resources)
/// with `StatefulPartitionedCall`, as Keras' `layer_call_fn` does.
fn caller(name: &str, callee: &str, args: usize) -> FunctionDef {
    let mut input_arg = vec![arg("inputs", FLOAT)];
    input_arg.extend((1..args).map(|i| arg(&format!("unknown_{i}"), RESOURCE)));
    let inputs: Vec<&str> = input_arg.iter().map(|a| a.name.as_str()).collect();
    let mut tin = vec![FLOAT];
    tin.extend(std::iter::repeat_n(RESOURCE, args - 1));
    let call = node(
        "StatefulPartitionedCall",
        "StatefulPartitionedCall",
        &inputs,
        vec![
            (
                "f",
                attr(Value::Func(graphdef_versions::schema::NameAttrList {
                    name: callee.into(),
                    ..Default::default()
                })),
            ),
            (
                "Tin",
                attr(Value::List(ListValue {
                    r#type: tin,
                    ..ListValue::default()
                })),
            ),
            (
                "Tout",
                attr(Value::List(ListValue {
                    r#type: vec![FLOAT],
                    ..ListValue::default()
                })),
            ),
            (
                "config_proto",
                attr(Value::S(
                    b"\n\x07\n\x03CPU\x10\x01\n\x07\n\x03GPU\x10\x002\x02J\x008\x01\x82\x01\x00"
                        .to_vec(),
                )),
            ),
            (
                "_read_only_resource_inputs",
                attr(Value::List(ListValue {
                    i: (1..args as i64).collect(),
                    ..ListValue::default()
                })),
            ),
            (
                "_collective_manager_ids",
                attr(Value::List(ListValue::default())),
            ),
            ("_output_shapes", shapes(&[&[-1, 32, 32, 8]])),
        ],
    );
    let identity = node(
        "Identity",
        "Identity",
        &[
            "StatefulPartitionedCall:output:0",
            "^StatefulPartitionedCall",
        ],
        vec![
            ("T", attr(Value::Type(FLOAT))),
            ("_output_shapes", shapes(&[&[-1, 32, 32, 8]])),
        ],
    );
    let mut input_shapes: Vec<&[i64]> = vec![&[-1, 32, 32, 8]];
    input_shapes.extend(std::iter::repeat_n(&[][..], args - 1));
    let function = FunctionDef {
        signature: Some(OpDef {
            name: name.into(),
            input_arg,
            output_arg: vec![arg("identity", FLOAT)],
            is_stateful: true,
            control_output: vec!["StatefulPartitionedCall".into()],
            ..OpDef::default()
        }),
        node_def: vec![call, identity],
        ret: HashMap::from([("identity".to_string(), "Identity:output:0".to_string())]),
        control_ret: HashMap::from([(
            "StatefulPartitionedCall".to_string(),
            "StatefulPartitionedCall".to_string(),
        )]),
        ..FunctionDef::default()
    };
    traced(function, &input_shapes)
}

/// What the object graph records of a concrete function of one float input: its input
/// signature (`((TensorSpec,), {})`) and its output (`TensorSpec`).
fn concrete(c: i64) -> SavedConcreteFunction {
    let spec = |name: &str| StructuredValue {
        kind: Some(ValueKind::TensorSpecValue(TensorSpecProto {
            name: name.into(),
            shape: Some(shape(&[-1, 32, 32, c])),
            dtype: FLOAT,
        })),
    };
    let tuple = |values| StructuredValue {
        kind: Some(ValueKind::TupleValue(TupleValue { values })),
    };
    SavedConcreteFunction {
        bound_inputs: vec![],
        canonicalized_input_signature: Some(tuple(vec![
            tuple(vec![spec("inputs")]),
            StructuredValue {
                kind: Some(ValueKind::DictValue(DictValue::default())),
            },
        ])),
        output_signature: Some(spec("")),
    }
}

/// A Keras user object of the object graph, as Keras saves one: its identifier, version 1.
fn keras_object(identifier: &str) -> ObjectKind {
    ObjectKind::UserObject(SavedUserObject {
        identifier: identifier.into(),
        version: Some(VersionDef {
            producer: 1,
            min_consumer: 1,
            ..VersionDef::default()
        }),
    })
}

/// The SavedModel of a network of `blocks` blocks: `3 * blocks + 4` library functions.
pub fn saved_model(blocks: usize) -> Vec<u8> {
    let mut functions = Vec::new();
    let mut objects = vec![SavedObject {
        kind: Some(keras_object("_tf_keras_network")),
        ..SavedObject::default()
    }];
    let mut concrete_functions = HashMap::new();
    let mut model_calls = Vec::new();
    for b in 0..blocks {
        let id = 1000 + 10 * b;
        let body = format!("__inference_block_{b}_layer_call_and_return_conditional_losses_{id}");
        let call_fn = format!("__inference_block_{b}_layer_call_fn_{}", id + 1);
        let training = format!("__inference_block_{b}_call_{}", id + 2);
        functions.push(block_body(&body, b, false));
        functions.push(caller(&call_fn, &body, 6));
        functions.push(block_body(&training, b, true));
        let layer = objects.len() as i32;
        objects[0].children.push(TrackableObjectReference {
            node_id: layer,
            local_name: format!("block_{b}"),
        });
        let mut children = Vec::new();
        objects.push(SavedObject::default());
        for variable in VARIABLES {
            children.push(TrackableObjectReference {
                node_id: objects.len() as i32,
                local_name: variable.into(),
            });
            objects.push(SavedObject {
                kind: Some(ObjectKind::Variable(SavedVariable {
                    dtype: FLOAT,
                    shape: Some(shape(&[8])),
                    trainable: true,
                    name: format!("block_{b}/{variable}:0"),
                    ..SavedVariable::default()
                })),
                ..SavedObject::default()
            });
        }
        for function in [&body, &training] {
            children.push(TrackableObjectReference {
                node_id: objects.len() as i32,
                local_name: "call_and_return_conditional_losses".into(),
            });
            objects.push(SavedObject {
                kind: Some(ObjectKind::Function(SavedFunction {
                    concrete_functions: vec![function.clone()],
                    function_spec: Some(FunctionSpec {
                        fullargspec: Some(StructuredValue {
                            kind: Some(ValueKind::StringValue("inputs".into())),
                        }),
                        is_method: false,
                        input_signature: Some(StructuredValue {
                            kind: Some(ValueKind::NoneValue(Default::default())),
                        }),
                    }),
                })),
                ..SavedObject::default()
            });
            concrete_functions.insert(function.clone(), concrete(channels(b)));
        }
        objects[layer as usize] = SavedObject {
            children,
            kind: Some(keras_object("_tf_keras_layer")),
            ..SavedObject::default()
        };
        model_calls.push(call_fn);
    }
    // The model's calls: each block's `layer_call_fn` in a chain, and the serving signature.
    let model = "__inference_model_layer_call_and_return_conditional_losses_9000";
    let mut chain = caller(model, &model_calls[0], 6);
    for (i, callee) in model_calls.iter().enumerate().skip(1) {
        let mut next = caller("unused", callee, 6).node_def.remove(0);
        next.name = format!("StatefulPartitionedCall_{i}");
        next.input[0] = format!(
            "StatefulPartitionedCall{}:output:0",
            if i == 1 {
                String::new()
            } else {
                format!("_{}", i - 1)
            }
        );
        chain.node_def.push(next);
    }
    functions.push(chain);
    functions.push(caller("__inference_model_layer_call_fn_9001", model, 6));
    functions.push(caller(
        "__inference_signature_wrapper_9002",
        "__inference_model_layer_call_fn_9001",
        6,
    ));
    functions.push(caller("__inference__wrapped_model_9003", model, 6));
    let graph = GraphDef {
        node: (0..blocks)
            .flat_map(|b| {
                VARIABLES.map(|v| {
                    node(
                        &format!("block_{b}/{v}"),
                        "VarHandleOp",
                        &[],
                        vec![
                            ("dtype", attr(Value::Type(FLOAT))),
                            ("shape", attr(Value::Shape(shape(&[8])))),
                            (
                                "shared_name",
                                attr(Value::S(format!("block_{b}/{v}").into_bytes())),
                            ),
                        ],
                    )
                })
            })
            .collect(),
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
    };
    SavedModel {
        saved_model_schema_version: 1,
        meta_graphs: vec![MetaGraphDef {
            meta_info_def: Some(meta_graph_def::MetaInfoDef {
                tags: vec!["serve".into()],
                tensorflow_version: "2.12.1".into(),
                tensorflow_git_version: "v2.12.0-rc1-12-g0db597d0d75".into(),
                ..Default::default()
            }),
            graph_def: Some(graph),
            object_graph_def: Some(SavedObjectGraph {
                nodes: objects,
                concrete_functions,
            }),
            ..MetaGraphDef::default()
        }],
    }
    .encode_to_vec()
}
