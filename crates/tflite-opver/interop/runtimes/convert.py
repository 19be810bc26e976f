"""Converts small models with one TensorFlow release's TFLite converter.

    python convert.py OUT_DIR

Run by `verdicts.py` inside a venv holding one `tensorflow-cpu` release. Every model below is a
`tf.function` on constants (no Keras: its API changed between the releases), converted in each
mode it supports:

- `float32`: as written;
- `dynamic`: dynamic-range quantization (int8 weights, float activations);
- `int8`: full integer quantization, float input and output;
- `int16x8`: 16-bit activations, 8-bit weights;
- `fp16`: float16 weights;
- `select`: TensorFlow ops the TFLite builtins lack kept as `Flex*` custom ops (the "select TF
  ops" that `tf.lite.Interpreter` runs with its Flex delegate).

A conversion the release refuses is skipped (and listed in OUT_DIR/skipped.json). Each release
stamps the operator versions its own converter knows, so a model converted by a new release
meets older runtimes with versions they lack.
"""
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(7)


def const(*shape):
    return tf.constant(rng.standard_normal(shape).astype(np.float32) * 0.5)


def spec(*shape):
    return tf.TensorSpec(shape, tf.float32)


MODELS = {}


def model(name, *inputs, modes=("float32", "dynamic", "int8", "int16x8")):
    def register(fn):
        MODELS[name] = (tf.function(fn, input_signature=list(inputs)), modes)
        return fn
    return register


W_FC = const(16, 8)
B_FC = const(8)
W_CONV = const(3, 3, 4, 8)
W_DW = const(3, 3, 4, 1)
W_TCONV = const(3, 3, 4, 4)
B_CONV = const(8)
TABLE = const(10, 4)
W_BMM = const(8, 6)

model("fully_connected", spec(1, 16))(lambda x: tf.nn.relu(tf.matmul(x, W_FC) + B_FC))
model("fully_connected_3d", spec(1, 3, 16))(
    lambda x: tf.matmul(x, tf.broadcast_to(W_FC, [1, 16, 8])) + B_FC)
model("conv2d", spec(1, 8, 8, 4))(
    lambda x: tf.nn.relu(tf.nn.conv2d(x, W_CONV, 1, "SAME") + B_CONV))
model("conv2d_dilated", spec(1, 12, 12, 4))(
    lambda x: tf.nn.conv2d(x, W_CONV, 1, "SAME", dilations=2))
model("depthwise_conv2d", spec(1, 8, 8, 4))(
    lambda x: tf.nn.depthwise_conv2d(x, W_DW, [1, 1, 1, 1], "SAME"))
model("transpose_conv", spec(1, 4, 4, 4))(
    lambda x: tf.nn.conv2d_transpose(x, W_TCONV, [1, 8, 8, 4], 2, "SAME"))
model("batch_matmul", spec(2, 4, 8))(lambda x: tf.matmul(x, W_BMM))
model("sqrt_rsqrt", spec(1, 8))(lambda x: tf.sqrt(tf.abs(x) + 0.1) + tf.math.rsqrt(tf.abs(x) + 1))
model("exp_log", spec(1, 8))(lambda x: tf.exp(x) + tf.math.log(tf.abs(x) + 1))
model("gelu", spec(1, 8))(lambda x: tf.nn.gelu(x, approximate=False))
model("gelu_approx", spec(1, 8))(lambda x: tf.nn.gelu(x, approximate=True))
model("softmax", spec(1, 8))(lambda x: tf.nn.softmax(x) + tf.nn.log_softmax(x))
model("reduce", spec(1, 4, 8))(
    lambda x: tf.reduce_mean(x, axis=1) + tf.reduce_sum(x, axis=1) + tf.reduce_max(x, axis=1))
model("strided_slice", spec(1, 8, 8))(lambda x: x[:, 1:7:2, ::-1] * 2.0)
model("slice", spec(1, 8, 8))(lambda x: tf.slice(x, [0, 1, 2], [1, 4, 4]) * 2.0)
model("concatenation", spec(1, 4), spec(1, 4))(lambda a, b: tf.concat([a, b * 2.0], axis=1))
model("gather", spec(1, 10))(lambda x: tf.gather(x, [3, 1, 4, 1, 5], axis=1))
model("gather_nd", spec(4, 4))(lambda x: tf.gather_nd(x, [[0, 1], [2, 3]]))
model("embedding_lookup", tf.TensorSpec([3], tf.int32), modes=("float32", "dynamic", "fp16"))(
    lambda ids: tf.nn.embedding_lookup(TABLE, ids))
model("pad", spec(1, 4, 4))(lambda x: tf.pad(x, [[0, 0], [1, 1], [2, 2]]))
model("padv2", spec(1, 4, 4))(lambda x: tf.pad(x, [[0, 0], [1, 1], [2, 2]], constant_values=0.5))
model("mirror_pad", spec(1, 4, 4))(lambda x: tf.pad(x, [[0, 0], [1, 1], [1, 1]], "REFLECT"))
model("transpose", spec(1, 2, 3, 4))(lambda x: tf.transpose(x, [0, 3, 1, 2]) * 2.0)
model("compare_select", spec(1, 8), spec(1, 8))(
    lambda a, b: tf.where(tf.equal(a, b) | tf.not_equal(a, b * 2.0), a, b))
model("greater_select", spec(1, 8), spec(1, 8))(lambda a, b: tf.where(a > b, a, b))
model("cast", tf.TensorSpec([1, 8], tf.int32), modes=("float32",))(
    lambda x: tf.cast(tf.cast(x, tf.float32) * 0.5, tf.int32))
model("arith_broadcast", spec(1, 4, 8), spec(1, 1, 8))(lambda a, b: (a + b) * (a - b) / (b + 2.0))
model("resize", spec(1, 4, 4, 2))(
    lambda x: tf.image.resize(x, [8, 8], "bilinear") + tf.image.resize(x, [8, 8], "nearest"))
model("abs_neg_square", spec(1, 8))(lambda x: tf.abs(x) - tf.square(x) + tf.negative(x))
model("fully_connected_fp16", spec(1, 16), modes=("fp16",))(
    lambda x: tf.matmul(x, W_FC) + B_FC)
model("conv2d_fp16", spec(1, 8, 8, 4), modes=("fp16",))(
    lambda x: tf.nn.conv2d(x, W_CONV, 1, "SAME") + B_CONV)
model("select_tf_ops", spec(1, 4), modes=("select",))(
    lambda x: tf.math.cumprod(x, axis=1)
    + tf.raw_ops.Bincount(arr=tf.cast(x, tf.int32), size=4, weights=x)[:4])


def representative(fn):
    def data():
        for _ in range(8):
            yield [rng.standard_normal(s.shape).astype(np.float32)
                   if s.dtype == tf.float32 else rng.integers(0, 4, s.shape).astype(np.int32)
                   for s in fn.input_signature]
    return data


def convert(fn, mode):
    concrete = fn.get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete])
    if mode != "float32":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
    if mode in ("int8", "int16x8"):
        converter.representative_dataset = representative(fn)
    if mode == "int8":
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if mode == "int16x8":
        converter.target_spec.supported_ops = [
            tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
    if mode == "fp16":
        converter.target_spec.supported_types = [tf.float16]
    if mode == "select":
        converter.target_spec.supported_ops = [
            tf.lite.OpsSet.TFLITE_BUILTINS, tf.lite.OpsSet.SELECT_TF_OPS]
    return converter.convert()


skipped = {}
for name, (fn, modes) in sorted(MODELS.items()):
    for mode in modes:
        try:
            data = convert(fn, mode)
        except Exception as e:  # the release's converter refuses this model in this mode
            skipped[f"{name}__{mode}"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
            continue
        with open(os.path.join(OUT, f"{name}__{mode}.tflite"), "wb") as f:
            f.write(data)
with open(os.path.join(OUT, "skipped.json"), "w") as f:
    json.dump(skipped, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{tf.__version__}: {sum(len(m) for _, m in MODELS.values()) - len(skipped)} models, "
      f"{len(skipped)} skipped")
