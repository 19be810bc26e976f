"""Builds the extra release cases (GraphDefs around each kind of refusal the importer makes).

Run with any TensorFlow venv's python: `python make_cases.py OUT_DIR`.
"""
import os, sys
from tensorflow.core.framework import graph_pb2, types_pb2

F, I32, I64 = types_pb2.DT_FLOAT, types_pb2.DT_INT32, types_pb2.DT_INT64

def graph(producer=2474):
    g = graph_pb2.GraphDef()
    g.versions.producer = producer
    return g

def placeholder(g, name, dtype=F):
    n = g.node.add(); n.name = name; n.op = "Placeholder"; n.attr["dtype"].type = dtype
    return n

def node(g, name, op, inputs=(), **types):
    n = g.node.add(); n.name = name; n.op = op; n.input.extend(inputs)
    for k, v in types.items():
        n.attr[k].type = v
    return n

cases = {}

g = graph(); n = node(g, "n", "Pack", T=F); n.attr["N"].i = 0; n.attr["axis"].i = 0
cases["minimum_int"] = g

g = graph(); placeholder(g, "x"); placeholder(g, "f")
n = node(g, "n", "Conv2D", ["x", "f"], T=F); n.attr["strides"].list.i.extend([1, 1, 1, 1]); n.attr["padding"].s = b"FOO"
cases["allowed_string"] = g

g = graph(); node(g, "n", "Const")
cases["missing_two_attrs"] = g

g = graph(); placeholder(g, "x"); node(g, "n", "AddV2", ["x", "x", "x"], T=F)
cases["too_many_inputs"] = g

g = graph(); placeholder(g, "x"); node(g, "n", "Identity", ["x"], T=I32)
cases["edge_type_mismatch"] = g

g = graph(); placeholder(g, "x"); node(g, "n", "Identity", ["x:1"], T=F)
cases["invalid_output_index"] = g

g = graph(); node(g, "n", "Identity", ["nope"], T=F)
cases["unknown_input"] = g

g = graph(); placeholder(g, "x"); placeholder(g, "x")
cases["duplicate_name"] = g

g = graph(); placeholder(g, "x"); node(g, "n", "Identity", ["x"], T=F)
f = g.library.function.add(); f.signature.name = "Identity"
cases["function_named_like_op"] = g

g = graph(); placeholder(g, "x"); n = node(g, "n", "Identity", ["x"]); n.attr["T"].i = 3
cases["attr_wrong_type"] = g

g = graph(); placeholder(g, "x")
f = g.library.function.add(); f.signature.name = "fn"
a = f.signature.input_arg.add(); a.name = "a"; a.type = F
o = f.signature.output_arg.add(); o.name = "y"; o.type = F
b = f.node_def.add(); b.name = "i"; b.op = "Identity"; b.input.append("a"); b.attr["T"].type = F
f.ret["y"] = "nope:output:0"
node(g, "n", "fn", ["x"])
cases["function_return_missing"] = g

g = graph(); node(g, "a", "Identity", ["b"], T=F); node(g, "b", "Identity", ["a"], T=F)
cases["cycle"] = g

g = graph(); placeholder(g, "x")
f = g.library.function.add(); f.signature.name = "fn"
a = f.signature.input_arg.add(); a.name = "a"; a.type = F
o = f.signature.output_arg.add(); o.name = "y"; o.type = I32
b = f.node_def.add(); b.name = "i"; b.op = "Identity"; b.input.append("a"); b.attr["T"].type = F
f.ret["y"] = "i:output:0"
n = node(g, "n", "StatefulPartitionedCall", ["x"]); n.attr["Tin"].list.type.append(F); n.attr["Tout"].list.type.append(I32); n.attr["f"].func.name = "fn"
cases["function_ret_type_mismatch_pcall"] = g

g = graph(); placeholder(g, "x"); placeholder(g, "y", I64)
node(g, "n", "AddV2", ["x", "y"], T=F)
cases["second_input_type_mismatch"] = g

g = graph(1000); placeholder(g, "x"); node(g, "n", "Identity", ["x"], T=F)
n = node(g, "m", "BatchMatrixDiag", ["x"], T=F)
cases["deprecated_batch_op_producer_1000"] = g

g = graph(); placeholder(g, "_x")
cases["internal_node_name"] = g

g = graph(); placeholder(g, "x"); n = node(g, "n", "Identity", ["x"], T=F)
n.attr["_class"].list.s.append(b"loc:@nowhere")
cases["colocated_with_unknown_node"] = g

# A branch function that uses CheckPinned (registered from 2.18): If does not instantiate its
# branches on import.
g = graph(); placeholder(g, "c", types_pb2.DT_BOOL); placeholder(g, "x")
for name, op in [("then_fn", "CheckPinned"), ("else_fn", "Identity")]:
    f = g.library.function.add(); f.signature.name = name
    a = f.signature.input_arg.add(); a.name = "a"; a.type = F
    o = f.signature.output_arg.add(); o.name = "y"; o.type = F
    b = f.node_def.add(); b.name = "i"; b.op = op; b.input.append("a"); b.attr["T"].type = F
    f.ret["y"] = "i:output:0"
n = node(g, "n", "StatelessIf", ["c", "x"], Tcond=types_pb2.DT_BOOL)
n.attr["Tin"].list.type.append(F); n.attr["Tout"].list.type.append(F)
n.attr["then_branch"].func.name = "then_fn"; n.attr["else_branch"].func.name = "else_fn"
cases["if_branch_with_new_op"] = g

# The same function called directly: instantiated, so 2.12 to 2.17 refuse it.
g = graph(); placeholder(g, "x")
f = g.library.function.add(); f.signature.name = "then_fn"
a = f.signature.input_arg.add(); a.name = "a"; a.type = F
o = f.signature.output_arg.add(); o.name = "y"; o.type = F
b = f.node_def.add(); b.name = "i"; b.op = "CheckPinned"; b.input.append("a"); b.attr["T"].type = F
f.ret["y"] = "i:output:0"
node(g, "n", "then_fn", ["x"])
cases["direct_call_with_new_op"] = g

g = graph(); placeholder(g, "x"); n = node(g, "n", "Identity", ["x"], T=F)
n.attr["_output_shapes"].list.shape.add(); n.attr["_output_shapes"].list.shape.add()
m = node(g, "m", "Unique", ["x"], T=F); m.attr["out_idx"].type = I32
m.attr["_output_shapes"].list.shape.add()
cases["output_shapes_too_few"] = g

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, g in cases.items():
    with open(os.path.join(out, name + ".pb"), "wb") as fh:
        fh.write(g.SerializeToString())
print(len(cases), "cases")
