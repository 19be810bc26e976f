"""Models as real ones ship, and TF 2.21's interpreter on them before and after `tflite-opver stamp`.

    python models.py make DIR      converts a small model with TF 2.21 (float16 weights behind
                                   DEQUANTIZE, a half-pixel RESIZE_BILINEAR), then writes the
                                   variants wheels ship: DEQUANTIZE stored v2 and RESIZE_BILINEAR
                                   v1 (TF's rules need v3 for both), and
                                     DIR/no_metadata.tflite  without a metadata vector at all
                                     DIR/no_entry.tflite     metadata without min_runtime_version
    python models.py compare A B   runs A and B in tf.lite.Interpreter on the same inputs; exit 0
                                   when every output is bit-for-bit equal and B carries a
                                   min_runtime_version entry
"""

import contextlib
import io
import sys

import numpy as np
import tensorflow as tf
from tensorflow.lite.tools import flatbuffer_utils

# Builtin codes (tensorflow/compiler/mlir/lite/schema/schema.fbs).
DEQUANTIZE = 6
RESIZE_BILINEAR = 23


def builtin(code):
    return max(code.builtinCode, code.deprecatedBuiltinCode)


def convert():
    inputs = tf.keras.Input(shape=(8, 8, 3), batch_size=1)
    x = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
    x = tf.keras.layers.Lambda(lambda t: tf.image.resize(t, (16, 16), method="bilinear"))(x)
    x = tf.keras.layers.Conv2D(2, 3, padding="same")(x)
    model = tf.keras.Model(inputs, x)
    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.target_spec.supported_types = [tf.float16]
    return converter.convert()


def make(out_dir):
    with contextlib.redirect_stdout(io.StringIO()):  # the converter's traces
        converted = convert()
    for name, keep_other_metadata in [("no_metadata", False), ("no_entry", True)]:
        model = flatbuffer_utils.convert_bytearray_to_object(converted)
        lowered = []
        for code in model.operatorCodes:
            if builtin(code) == DEQUANTIZE:
                code.version = 2
                lowered.append("DEQUANTIZE v2")
            elif builtin(code) == RESIZE_BILINEAR:
                code.version = 1
                lowered.append("RESIZE_BILINEAR v1")
        assert "DEQUANTIZE v2" in lowered and "RESIZE_BILINEAR v1" in lowered, lowered
        entries = [m for m in (model.metadata or []) if m.name != b"min_runtime_version"]
        if keep_other_metadata:
            assert entries, "the converter wrote no other metadata entry"
            model.metadata = entries
        else:
            model.metadata = None
        path = f"{out_dir}/{name}.tflite"
        with open(path, "wb") as f:
            f.write(flatbuffer_utils.convert_object_to_bytearray(model))
        print(f"wrote {path}: {', '.join(lowered)}, metadata: "
              f"{[m.name.decode() for m in model.metadata] if model.metadata else 'none'}")


def run(path, inputs=None):
    interpreter = tf.lite.Interpreter(model_path=path)
    interpreter.allocate_tensors()
    details = interpreter.get_input_details()
    if inputs is None:
        rng = np.random.default_rng(15)
        inputs = [rng.standard_normal(d["shape"]).astype(d["dtype"]) for d in details]
    for d, value in zip(details, inputs):
        interpreter.set_tensor(d["index"], value)
    interpreter.invoke()
    outputs = [interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()]
    return inputs, outputs


def compare(original, stamped):
    inputs, before = run(original)
    _, after = run(stamped, inputs)
    with open(stamped, "rb") as f:
        model = flatbuffer_utils.convert_bytearray_to_object(f.read())
    runtime = [m for m in (model.metadata or []) if m.name == b"min_runtime_version"]
    if not runtime:
        print(f"FAIL: {stamped} has no min_runtime_version entry")
        return 1
    text = bytes(model.buffers[runtime[0].buffer].data).split(b"\0")[0].decode()
    versions = {builtin(c): c.version for c in model.operatorCodes}
    equal = len(before) == len(after) and all(
        a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
        for a, b in zip(before, after))
    print(f"{stamped}: loads and runs in tf.lite.Interpreter {tf.__version__}; "
          f"min_runtime_version {text!r}; DEQUANTIZE v{versions[DEQUANTIZE]}, "
          f"RESIZE_BILINEAR v{versions[RESIZE_BILINEAR]}; "
          f"{len(after)} output(s) {'equal to' if equal else 'DIFFERENT from'} the original's "
          f"(shape {[tuple(o.shape) for o in after]})")
    return 0 if equal else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["make"] and len(sys.argv) == 3:
        make(sys.argv[2])
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 4:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
