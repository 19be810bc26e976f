"""Converts small models whose operators TFLite has no builtin for, as users meet them.

    python flex.py OUT_DIR

Run by `verdicts.py` inside a venv holding one `tensorflow-cpu` release (2.21.0 and 2.16.2).
Each model is a `tf.function` converted twice where the release allows it:

- `select`: `SELECT_TF_OPS` beside the builtins, so that an op TFLite lacks is kept as a
  `Flex<Op>` custom op whose options carry the TensorFlow NodeDef (what `tf.lite.Interpreter`
  of tensorflow-cpu 2.12 to 2.18 runs with its Flex delegate);
- `custom`: `allow_custom_ops`, so that it is kept as a custom op of its TensorFlow name
  (`Erf`), which only a resolver that registers that name runs; `AudioSpectrogram` and `Mfcc`
  are registered by TFLite's default resolver (`tensorflow/lite/core/kernels/register.cc`).

A conversion the release refuses is skipped (and listed in OUT_DIR/skipped.json).
"""
import json
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf  # noqa: E402

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)

MODELS = {}


def model(name, *inputs, modes=("select", "custom")):
    def register(fn):
        MODELS[name] = (tf.function(fn, input_signature=list(inputs)), modes)
        return fn
    return register


def spec(*shape):
    return tf.TensorSpec(shape, tf.float32)


# Erf alone (node 0), and behind a builtin ADD (node 1).
model("erf", spec(1, 4))(lambda x: tf.math.erf(x))
model("add_erf", spec(1, 4))(lambda x: tf.math.erf(x + 1.0))
# Erf between two builtins: the unresolved op is node 1 of 3.
model("add_erf_mul", spec(1, 4))(lambda x: tf.math.erf(x + 1.0) * 3.0)


def spectrogram(audio):
    return tf.raw_ops.AudioSpectrogram(input=audio, window_size=256, stride=128,
                                       magnitude_squared=True)


def mfcc(audio):
    return tf.raw_ops.Mfcc(spectrogram=spectrogram(audio), sample_rate=16000)


# Ops the default resolvers register as custom ops.
model("audio_spectrogram", spec(1024, 1))(spectrogram)
model("mfcc", spec(1024, 1))(mfcc)
# A registered custom op and an unregistered one: the unregistered one fails.
model("mfcc_erf", spec(1024, 1))(lambda a: tf.math.erf(mfcc(a)))


def convert(fn, mode):
    converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()])
    if mode == "select":
        converter.target_spec.supported_ops = [
            tf.lite.OpsSet.TFLITE_BUILTINS, tf.lite.OpsSet.SELECT_TF_OPS]
    else:
        converter.allow_custom_ops = True
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
