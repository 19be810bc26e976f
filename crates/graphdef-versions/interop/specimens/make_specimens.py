#!/usr/bin/env python3
"""Makes the specimens: small SavedModels, one per step of `tf.saved_model.load` that
graphdef-versions replays, each made to show one way a release refuses (or accepts) a file.

Run it with the Python of a tensorflow-cpu 2.21.0 venv:
    python make_specimens.py OUT
It writes each specimen as a folder OUT/<name> and OUT/cases.json, the list `judge.py` of
`../wild/` reads (`--cases OUT/cases.json --root OUT`). Most specimens are written by TensorFlow
as they are; some are then changed as a user's tools would change them (a file removed, a
checkpoint written again, a field of the saved_model.pb edited with TensorFlow's own protos):
`what` says so. Variable values are fixed; nothing is random, but TensorFlow names some
functions with a process-wide counter, so the bytes may differ from one run to the next.
"""
import json
import os
import shutil
import sys

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2, saver_pb2

v1 = tf.compat.v1
CASES = []


def case(what):
    def register(fn):
        CASES.append((fn.__name__, what, fn))
        return fn
    return register


# ------------------------------------------------------------------ TensorFlow 2 (object graph)

class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([2.0, 3.0], name="w")

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
    def __call__(self, x):
        return x * self.w


def save_tf2(module, out, signatures=None):
    tf.saved_model.save(module, out, signatures=signatures)


@case("TF2: a module with one variable, its variables/ folder removed")
def tf2_no_variables_folder(out):
    save_tf2(Scale(), out)
    shutil.rmtree(os.path.join(out, "variables"))


@case("TF2: a module with one variable, its variables.index removed")
def tf2_no_index(out):
    save_tf2(Scale(), out)
    os.remove(os.path.join(out, "variables", "variables.index"))


@case("TF2: a module with one variable, its data shard removed")
def tf2_no_data(out):
    save_tf2(Scale(), out)
    os.remove(os.path.join(out, "variables", "variables.data-00000-of-00001"))


def truncate_index(out):
    """Cuts the .index file to half its length, as a copy that stopped would."""
    path = os.path.join(out, "variables", "variables.index")
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])


@case("TF2: a module with one variable, its variables.index cut to half its length")
def tf2_truncated_index(out):
    save_tf2(Scale(), out)
    truncate_index(out)


class NoVariables(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        return x * 2.0


@case("TF2: a module without variables, its variables/ folder removed")
def tf2_nothing_to_restore_no_folder(out):
    save_tf2(NoVariables(), out)
    shutil.rmtree(os.path.join(out, "variables"))


@case("TF2: a module with one variable, as saved (the baseline of the three above)")
def tf2_scale(out):
    save_tf2(Scale(), out)


class V1Optimizer(tf.Module):
    """A TF1 optimizer (tf.compat.v1.train.AdamOptimizer) with slots, tracked by a module."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable([1.0, 2.0], name="w")
        self.optimizer = v1.train.AdamOptimizer(0.1)
        self.optimizer.minimize(lambda: tf.reduce_sum(self.w * self.w), var_list=[self.w])

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x):
        return x * self.w


@case("TF2: a module tracking a TF1 AdamOptimizer with slot variables (tf_deprecated_optimizer)")
def tf2_v1_optimizer_slots(out):
    save_tf2(V1Optimizer(), out)


class TensorDefault(tf.Module):
    @tf.function
    def add(self, x, y=tf.constant(1.0)):
        return x + y


@case("TF2: a function whose argument has a tensor as default (StructuredValue.tensor_value)")
def tf2_tensor_default(out):
    module = TensorDefault()
    module.add.get_concrete_function(tf.TensorSpec([], tf.float32))
    save_tf2(module, out)


class NumpyDefault(tf.Module):
    @tf.function
    def add(self, x, y=np.array([1.0, 2.0], dtype=np.float32)):
        return x + y


@case("TF2: a function whose argument has a numpy array as default (StructuredValue.numpy_value)")
def tf2_numpy_default(out):
    module = NumpyDefault()
    module.add.get_concrete_function(tf.TensorSpec([2], tf.float32))
    save_tf2(module, out)


# ------------------------------------------------------------------ TensorFlow 1 (a saver)

def save_tf1(out, build, tags=("serve",), saver_version=None, more_meta_graphs=()):
    """Builds a graph with `build()` (returns the signature map) and saves it with
    SavedModelBuilder, variables initialized."""
    with tf.Graph().as_default() as graph, v1.Session(graph=graph) as sess:
        signatures = build()
        sess.run(v1.global_variables_initializer())
        builder = v1.saved_model.Builder(out)
        saver = None
        if saver_version is not None:
            saver = v1.train.Saver(write_version=saver_version, sharded=False)
        builder.add_meta_graph_and_variables(sess, list(tags), signature_def_map=signatures,
                                             saver=saver, strip_default_attrs=True)
        for more in more_meta_graphs:
            builder.add_meta_graph(list(more), signature_def_map=signatures)
        builder.save()


def info(t):
    return v1.saved_model.utils.build_tensor_info(t)


def predict(inputs, outputs):
    return v1.saved_model.signature_def_utils.build_signature_def(
        inputs={k: info(t) for k, t in inputs.items()},
        outputs={k: info(t) for k, t in outputs.items()},
        method_name="tensorflow/serving/predict")


def linear():
    x = v1.placeholder(tf.float32, [None, 2], name="x")
    w = v1.get_variable("w", initializer=tf.constant([[1.0], [2.0]]))
    b = v1.get_variable("b", initializer=tf.constant([0.5]))
    y = tf.add(tf.matmul(x, w), b, name="y")
    return x, y


@case("TF1: a linear model saved with SavedModelBuilder (the baseline of the TF1 specimens)")
def tf1_linear(out):
    def build():
        x, y = linear()
        return {"serving_default": predict({"x": x}, {"y": y})}
    save_tf1(out, build)


@case("TF1: a signature whose output is a variable's reference-typed tensor")
def tf1_ref_output(out):
    def build():
        x, y = linear()
        counter = v1.Variable(0.0, name="counter", use_resource=False)
        return {"serving_default": predict({"x": x}, {"y": y}),
                "get_counter": predict({}, {"output": counter._ref()})}
    save_tf1(out, build)


@case("TF1: a signature that lists one tensor under two input keys")
def tf1_duplicate_input(out):
    def build():
        x, y = linear()
        return {"serving_default": predict({"x": x, "x_again": x}, {"y": y})}
    save_tf1(out, build)


@case("TF1: a signature whose output needs a placeholder the signature does not feed")
def tf1_unfed_placeholder(out):
    def build():
        x, y = linear()
        z = v1.placeholder(tf.float32, [None, 1], name="z")
        total = tf.add(y, z, name="total")
        return {"serving_default": predict({"x": x}, {"total": total})}
    save_tf1(out, build)


@case("TF1: the linear model with its output's TensorInfo shape edited to [-1, 3] (the graph says [-1, 1])")
def tf1_output_shape_conflict(out):
    tf1_linear(out)
    def edit(meta):
        dims = meta.signature_def["serving_default"].outputs["y"].tensor_shape.dim
        dims[1].size = 3
    edit_saved_model(out, edit)


@case("TF1: the linear model with its output's TensorInfo shape cleared (a scalar, as TF 1.0 wrote none)")
def tf1_output_shape_cleared(out):
    tf1_linear(out)
    def edit(meta):
        meta.signature_def["serving_default"].outputs["y"].ClearField("tensor_shape")
    edit_saved_model(out, edit)


@case("TF1: two meta graphs (tags serve and train): tf.saved_model.load needs tags= then")
def tf1_two_meta_graphs(out):
    def build():
        x, y = linear()
        return {"serving_default": predict({"x": x}, {"y": y})}
    save_tf1(out, build, more_meta_graphs=[("train",)])


def rewrite_checkpoint(out, variables):
    """Writes variables/variables again with a Saver of `variables` (name -> value)."""
    prefix = os.path.join(out, "variables", "variables")
    for name in os.listdir(os.path.join(out, "variables")):
        os.remove(os.path.join(out, "variables", name))
    with tf.Graph().as_default() as graph, v1.Session(graph=graph) as sess:
        made = {name: v1.Variable(value, name=name) for name, value in variables.items()}
        sess.run(v1.global_variables_initializer())
        v1.train.Saver(made).save(sess, prefix, write_meta_graph=False, write_state=False)


@case("TF1: the linear model whose checkpoint was written again without the variable b")
def tf1_missing_key(out):
    tf1_linear(out)
    rewrite_checkpoint(out, {"w": np.array([[1.0], [2.0]], np.float32)})


@case("TF1: the linear model whose checkpoint was written again with b as float64")
def tf1_dtype_mismatch(out):
    tf1_linear(out)
    rewrite_checkpoint(out, {"w": np.array([[1.0], [2.0]], np.float32),
                             "b": np.array([0.5], np.float64)})


@case("TF1: the linear model whose checkpoint was written again with b of shape [2]")
def tf1_shape_mismatch(out):
    tf1_linear(out)
    rewrite_checkpoint(out, {"w": np.array([[1.0], [2.0]], np.float32),
                             "b": np.array([0.5, 0.5], np.float32)})


@case("TF1: the linear model with its variables/ folder removed")
def tf1_no_variables_folder(out):
    tf1_linear(out)
    shutil.rmtree(os.path.join(out, "variables"))


@case("TF1: the linear model with its variables.index cut to half its length")
def tf1_truncated_index(out):
    tf1_linear(out)
    truncate_index(out)


@case("TF1: the linear model saved with a V1 (TensorSliceWriter) saver")
def tf1_v1_checkpoint(out):
    def build():
        x, y = linear()
        return {"serving_default": predict({"x": x}, {"y": y})}
    save_tf1(out, build, saver_version=saver_pb2.SaverDef.V1)


@case("TF1: the linear model saved with a V1 saver, its variables/ folder removed")
def tf1_v1_checkpoint_no_variables(out):
    tf1_v1_checkpoint(out)
    shutil.rmtree(os.path.join(out, "variables"))


def parsing_model():
    """A serving model that parses tf.Examples, as TF Serving's half_plus_three does."""
    serialized = v1.placeholder(tf.string, None, name="tf_example")
    features = v1.io.parse_example(serialized, {"x": v1.io.FixedLenFeature([1], tf.float32)})
    x = tf.identity(features["x"], name="x")
    a = v1.get_variable("a", initializer=tf.constant(0.5))
    b = v1.get_variable("b", initializer=tf.constant(3.0))
    y = tf.add(tf.multiply(a, x), b, name="y")
    return serialized, x, y


def regress(serialized, y):
    return v1.saved_model.signature_def_utils.build_signature_def(
        inputs={"inputs": info(serialized)}, outputs={"outputs": info(y)},
        method_name="tensorflow/serving/regress")


@case("TF1: a tf.Example parsing model (regress and predict signatures), as saved")
def tf1_parsing(out):
    def build():
        serialized, x, y = parsing_model()
        return {"regress": regress(serialized, y), "serving_default": predict({"x": x}, {"y": y})}
    save_tf1(out, build)


def as_tf_1_0(meta):
    """What TensorFlow 1.0 wrote: producer 21, the placeholder's shape a scalar {} meaning
    'unknown' (shape functions read it so up to GraphDef version 21)."""
    meta.graph_def.versions.producer = 21
    meta.graph_def.versions.min_consumer = 0
    for node in meta.graph_def.node:
        if node.name == "tf_example":
            node.attr["shape"].shape.Clear()


@case("TF1: the parsing model edited as TF 1.0 wrote it: producer 21, its placeholder's shape a scalar")
def tf1_parsing_producer_21(out):
    tf1_parsing(out)
    edit_saved_model(out, as_tf_1_0)


@case("TF1: the parsing model as TF 1.0 wrote it, with only the regress signature (the placeholder is fed)")
def tf1_parsing_producer_21_regress_only(out):
    tf1_parsing(out)
    def edit(meta):
        as_tf_1_0(meta)
        del meta.signature_def["serving_default"]
    edit_saved_model(out, edit)


def parsing_model_v1():
    """The parsing model with the op TensorFlow 1.0 wrote, ParseExample (a batch only)."""
    serialized = v1.placeholder(tf.string, None, name="tf_example")
    parsed = tf.raw_ops.ParseExample(
        serialized=serialized, names=tf.constant([], tf.string), sparse_keys=[],
        dense_keys=[tf.constant("x")], dense_defaults=[tf.constant([], tf.float32)],
        sparse_types=[], dense_shapes=[[1]], name="ParseExample")
    x = tf.identity(parsed[-1], name="x")
    a = v1.get_variable("a", initializer=tf.constant(0.5))
    y = tf.multiply(a, x, name="y")
    return serialized, x, y


@case("TF1: a ParseExample model edited as TF 1.0 wrote it: producer 21, its placeholder's shape a scalar")
def tf1_parse_example_v1_producer_21(out):
    def build():
        serialized, x, y = parsing_model_v1()
        return {"regress": regress(serialized, y), "serving_default": predict({"x": x}, {"y": y})}
    save_tf1(out, build)
    edit_saved_model(out, as_tf_1_0)


# ------------------------------------------------------------------ helpers

def edit_saved_model(out, edit):
    """Edits the first meta graph of OUT/saved_model.pb with TensorFlow's own protos."""
    path = os.path.join(out, "saved_model.pb")
    with open(path, "rb") as f:
        model = saved_model_pb2.SavedModel.FromString(f.read())
    edit(model.meta_graphs[0])
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    listed = []
    for name, what, make in CASES:
        path = os.path.join(out, name)
        if os.path.exists(path):
            shutil.rmtree(path)
        make(path)
        listed.append({"case": name, "kind": "saved_model", "kept": True, "what": what,
                       "made_with": tf.__version__})
        print(name, file=sys.stderr)
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(listed, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
