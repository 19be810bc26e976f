#!/usr/bin/env python3
"""What TensorFlow's shape functions say of one node, for the ops graphdef-versions replays.

For each case: a fresh graph, one placeholder (or constant) per input, then the node itself,
made with `Graph.create_op` as `lift_to_graph` makes the copies of a pruned signature; and the
shapes TensorFlow gives its outputs, or the error it raises. Run with a TensorFlow venv's Python:
    python make_shapes.py shapes.json
adds (or replaces) the running release's answers in shapes.json. Shapes are written as lists of sizes (-1 unknown), or null for an unknown rank.
"""
import json
import sys

import tensorflow as tf
from tensorflow.core.framework import attr_value_pb2, node_def_pb2, tensor_shape_pb2

F, I32, I64, S, B = tf.float32, tf.int32, tf.int64, tf.string, tf.bool


def shape_attr(dims):
    return attr_value_pb2.AttrValue(shape=tf.TensorShape(dims).as_proto())


def attr(value):
    if isinstance(value, attr_value_pb2.AttrValue):
        return value
    if isinstance(value, bool):
        return attr_value_pb2.AttrValue(b=value)
    if isinstance(value, int):
        return attr_value_pb2.AttrValue(i=value)
    if isinstance(value, bytes):
        return attr_value_pb2.AttrValue(s=value)
    if isinstance(value, tf.DType):
        return attr_value_pb2.AttrValue(type=value.as_datatype_enum)
    if isinstance(value, list) and value and isinstance(value[0], tf.DType):
        return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(type=[v.as_datatype_enum for v in value]))
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(i=value))
    if isinstance(value, list) and all(isinstance(v, bytes) for v in value):
        return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(s=value))
    if isinstance(value, tuple) and value[0] == "shapes":
        return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
            shape=[tf.TensorShape(s).as_proto() for s in value[1]]))
    if isinstance(value, tuple) and value[0] == "types":
        return attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(type=[]))
    raise TypeError(value)


def shape_list(shape):
    if shape.rank is None:
        return None
    return [-1 if d is None else d for d in shape.as_list()]


def run(name, op, inputs, attrs):
    """inputs: (dtype, shape) for a placeholder, or ("const", numpy value)."""
    graph = tf.Graph()
    case = {"case": name, "op": op, "attrs": {}, "inputs": []}
    with graph.as_default():
        tensors = []
        for i, spec in enumerate(inputs):
            if spec[0] == "const":
                t = tf.constant(spec[1], name=f"in{i}")
                case["inputs"].append({"dtype": t.dtype.as_datatype_enum, "shape": shape_list(t.shape),
                                       "tensor": t.op.node_def.attr["value"].tensor.SerializeToString().hex()})
            else:
                t = tf.compat.v1.placeholder(spec[0], spec[1], name=f"in{i}")
                case["inputs"].append({"dtype": spec[0].as_datatype_enum, "shape": shape_list(t.shape)})
            tensors.append(t)
        attr_protos = {k: attr(v) for k, v in attrs.items()}
        for k, v in attr_protos.items():
            case["attrs"][k] = v.SerializeToString().hex()
        try:
            made = graph.create_op(op, tensors, name="node", attrs=attr_protos)
            case["outputs"] = [shape_list(o.shape) for o in made.outputs]
            case["node_def"] = made.node_def.SerializeToString().hex()
        except (ValueError, tf.errors.InvalidArgumentError) as e:
            case["error"] = str(e)
    return case


def cases():
    yield "identity", "Identity", [(F, [None, 3])], {"T": F}
    yield "identity_unknown", "Identity", [(F, None)], {"T": F}
    yield "relu", "Relu", [(F, [2, 3])], {"T": F}
    yield "cast", "Cast", [(F, [None])], {"SrcT": F, "DstT": I32}
    for op in ["AddV2", "Mul", "Sub", "Maximum", "RealDiv", "Greater"]:
        yield f"{op}_broadcast", op, [(F, [None, 1]), (F, [3])], {"T": F}
    yield "add_scalar", "AddV2", [(F, [None, 3]), (F, [])], {"T": F}
    yield "add_mismatch", "AddV2", [(F, [2, 3]), (F, [4])], {"T": F}
    yield "add_unknown_rank", "AddV2", [(F, None), (F, [4])], {"T": F}
    yield "add_unknown_dims", "AddV2", [(F, [None, None]), (F, [None, 5])], {"T": F}
    yield "add_zero", "AddV2", [(F, [0]), (F, [None])], {"T": F}
    yield "add_one_pad", "AddV2", [(F, [1]), (F, [None, 7])], {"T": F}
    yield "equal_lenient", "Equal", [(F, [2, 3]), (F, [4])], {"T": F, "incompatible_shape_error": False}
    yield "equal_strict", "Equal", [(F, [2, 3]), (F, [4])], {"T": F}
    yield "matmul", "MatMul", [(F, [None, 2]), (F, [2, 5])], {"T": F}
    yield "matmul_transposed", "MatMul", [(F, [2, 7]), (F, [5, 2])], {"T": F, "transpose_a": True, "transpose_b": True}
    yield "matmul_rank", "MatMul", [(F, []), (F, [2, 5])], {"T": F}
    yield "matmul_inner", "MatMul", [(F, [None, 3]), (F, [2, 5])], {"T": F}
    yield "bias_add", "BiasAdd", [(F, [None, 4]), (F, [4])], {"T": F}
    yield "bias_add_nchw", "BiasAdd", [(F, [None, 4, 5, 6]), (F, [None])], {"T": F, "data_format": b"NCHW"}
    yield "bias_add_rank", "BiasAdd", [(F, [4]), (F, [4])], {"T": F}
    yield "bias_add_mismatch", "BiasAdd", [(F, [None, 4]), (F, [3])], {"T": F}
    yield "bias_add_v1", "BiasAddV1", [(F, [None, 4]), (F, [None])], {"T": F}
    yield "reshape", "Reshape", [(F, [None, 6]), ("const", [-1, 2, 3])], {"T": F, "Tshape": I32}
    yield "reshape_known", "Reshape", [(F, [4, 6]), ("const", [3, -1])], {"T": F, "Tshape": I32}
    yield "reshape_bad", "Reshape", [(F, [4, 6]), ("const", [5, 5])], {"T": F, "Tshape": I32}
    yield "reshape_indivisible", "Reshape", [(F, [4, 6]), ("const", [5, -1])], {"T": F, "Tshape": I32}
    yield "reshape_unknown_shape", "Reshape", [(F, [4, 6]), (I32, [3])], {"T": F, "Tshape": I32}
    yield "reshape_scalar_shape", "Reshape", [(F, [4, 6]), (I32, [])], {"T": F, "Tshape": I32}
    yield "reshape_same_unknown", "Reshape", [(F, [None, 6]), ("const", [-1, 6])], {"T": F, "Tshape": I32}
    yield "expand_dims", "ExpandDims", [(F, [None, 3]), ("const", -1)], {"T": F, "Tdim": I32}
    yield "expand_dims_front", "ExpandDims", [(F, [None, 3]), ("const", 0)], {"T": F, "Tdim": I32}
    yield "expand_dims_bad", "ExpandDims", [(F, [None, 3]), ("const", 5)], {"T": F, "Tdim": I32}
    yield "expand_dims_unknown", "ExpandDims", [(F, [None, 3]), (I32, [])], {"T": F, "Tdim": I32}
    yield "squeeze_all", "Squeeze", [(F, [1, 3, 1])], {"T": F}
    yield "squeeze_axis", "Squeeze", [(F, [None, 1])], {"T": F, "squeeze_dims": [1]}
    yield "squeeze_unknown", "Squeeze", [(F, [None, 1])], {"T": F}
    yield "squeeze_bad", "Squeeze", [(F, [2, 3])], {"T": F, "squeeze_dims": [1]}
    yield "squeeze_out_of_range", "Squeeze", [(F, [2, 3])], {"T": F, "squeeze_dims": [4]}
    yield "shape", "Shape", [(F, [None, 3])], {"T": F, "out_type": I32}
    yield "shape_unknown", "Shape", [(F, None)], {"T": F, "out_type": I32}
    yield "size", "Size", [(F, [None, 3])], {"T": F, "out_type": I32}
    yield "rank", "Rank", [(F, [None, 3])], {"T": F}
    yield "fill", "Fill", [("const", [2, 3]), (F, [])], {"T": F, "index_type": I32}
    yield "fill_unknown", "Fill", [(I32, [2]), (F, [])], {"T": F, "index_type": I32}
    yield "fill_value_rank", "Fill", [(I32, [2]), (F, [2])], {"T": F, "index_type": I32}
    yield "pack", "Pack", [(F, [None, 3]), (F, [2, None])], {"T": F, "N": 2}
    yield "pack_axis", "Pack", [(F, [3]), (F, [3])], {"T": F, "N": 2, "axis": -1}
    yield "pack_mismatch", "Pack", [(F, [3]), (F, [])], {"T": F, "N": 2}
    yield "concat", "ConcatV2", [(F, [None, 3]), (F, [None, 4]), ("const", 1)], {"T": F, "N": 2, "Tidx": I32}
    yield "concat_negative", "ConcatV2", [(F, [2, 3]), (F, [5, 3]), ("const", -2)], {"T": F, "N": 2, "Tidx": I32}
    yield "concat_unknown_axis", "ConcatV2", [(F, [None, 3]), (F, [None, 4]), (I32, [])], {"T": F, "N": 2, "Tidx": I32}
    yield "concat_scalars", "ConcatV2", [(F, []), (F, []), (I32, [])], {"T": F, "N": 2, "Tidx": I32}
    yield "concat_mismatch", "ConcatV2", [(F, [2, 3]), (F, [2, 4]), ("const", 0)], {"T": F, "N": 2, "Tidx": I32}
    yield "transpose", "Transpose", [(F, [2, None, 4]), ("const", [2, 0, 1])], {"T": F, "Tperm": I32}
    yield "transpose_unknown", "Transpose", [(F, [2, None, 4]), (I32, [3])], {"T": F, "Tperm": I32}
    yield "sum", "Sum", [(F, [2, None, 4]), ("const", [1])], {"T": F, "Tidx": I32}
    yield "sum_keep", "Sum", [(F, [2, None, 4]), ("const", [0, -1])], {"T": F, "Tidx": I32, "keep_dims": True}
    yield "mean_unknown", "Mean", [(F, [2, None, 4]), (I32, [1])], {"T": F, "Tidx": I32}
    yield "mean_unknown_keep", "Mean", [(F, [2, None, 4]), (I32, [1])], {"T": F, "Tidx": I32, "keep_dims": True}
    yield "max_bad", "Max", [(F, [2, 4]), ("const", [2])], {"T": F, "Tidx": I32}
    yield "sum_indices_rank", "Sum", [(F, [2, 4]), (I32, [1, 1])], {"T": F, "Tidx": I32}
    yield "argmax", "ArgMax", [(F, [None, 5]), ("const", 1)], {"T": F, "Tidx": I32, "output_type": I64}
    yield "argmax_vector", "ArgMax", [(F, [5]), ("const", 0)], {"T": F, "Tidx": I32, "output_type": I64}
    yield "argmax_unknown", "ArgMax", [(F, [None, 5, 2]), (I32, [])], {"T": F, "Tidx": I32, "output_type": I64}
    yield "argmax_bad", "ArgMax", [(F, [None, 5]), ("const", 2)], {"T": F, "Tidx": I32, "output_type": I64}
    yield "softmax", "Softmax", [(F, [None, 5])], {"T": F}
    yield "softmax_scalar", "Softmax", [(F, [])], {"T": F}
    yield "placeholder_with_default", "PlaceholderWithDefault", [(F, [3])], {"dtype": F, "shape": shape_attr([None])}
    yield "placeholder_with_default_bad", "PlaceholderWithDefault", [(F, [3])], {"dtype": F, "shape": shape_attr([4])}
    yield "ensure_shape", "EnsureShape", [(F, [None, 3])], {"T": F, "shape": shape_attr([5, None])}
    yield "parse_example", "ParseExample", [(S, [None]), (S, [0]), (S, []), (S, []), (F, [0])], {
        "Nsparse": 1, "Ndense": 1, "sparse_types": [I64], "Tdense": [F], "dense_shapes": ("shapes", [[1]])}
    yield "parse_example_scalar", "ParseExample", [(S, []), (S, [0]), (S, []), (F, [0])], {
        "Nsparse": 0, "Ndense": 1, "sparse_types": ("types",), "Tdense": [F], "dense_shapes": ("shapes", [[1]])}
    yield "parse_example_v2", "ParseExampleV2", [(S, []), (S, [0]), (S, [1]), (S, [1]), (S, [0]), (F, [2])], {
        "num_sparse": 1, "Tdense": [F], "sparse_types": [I64], "dense_shapes": ("shapes", [[2]]),
        "ragged_value_types": ("types",), "ragged_split_types": ("types",)}
    yield "parse_example_v2_batch", "ParseExampleV2", [(S, [None]), (S, [0]), (S, [0]), (S, [1]), (S, [0]), (F, [2])], {
        "num_sparse": 0, "Tdense": [F], "sparse_types": ("types",), "dense_shapes": ("shapes", [[2]]),
        "ragged_value_types": ("types",), "ragged_split_types": ("types",)}
    yield "parse_example_v2_matrix", "ParseExampleV2", [(S, [2, 2]), (S, [0]), (S, [0]), (S, [1]), (S, [0]), (F, [2])], {
        "num_sparse": 0, "Tdense": [F], "sparse_types": ("types",), "dense_shapes": ("shapes", [[2]]),
        "ragged_value_types": ("types",), "ragged_split_types": ("types",)}
    yield "parse_single_example", "ParseSingleExample", [(S, []), (F, [3])], {
        "num_sparse": 1, "sparse_keys": [b"a"], "dense_keys": [b"b"], "sparse_types": [I64], "Tdense": [F],
        "dense_shapes": ("shapes", [[3]])}
    yield "parse_single_example_vector", "ParseSingleExample", [(S, [2]), (F, [3])], {
        "num_sparse": 0, "sparse_keys": [], "dense_keys": [b"b"], "sparse_types": ("types",), "Tdense": [F],
        "dense_shapes": ("shapes", [[3]])}


def main():
    try:
        with open(sys.argv[1]) as f:
            releases = json.load(f)
    except FileNotFoundError:
        releases = {}
    releases[tf.__version__] = [run(*case) for case in cases()]
    with open(sys.argv[1], "w") as f:
        json.dump(dict(sorted(releases.items())), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
