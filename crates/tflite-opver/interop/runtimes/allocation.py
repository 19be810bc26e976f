"""Probes what one TensorFlow Lite runtime does at `allocate_tensors()` with custom ops.

    python allocation.py OUT_JSON FAMILY VERSION

`probe.py` imports it (its facts' `allocation` section), and `cargo xtask tflite-runtimes
--part allocation` runs it alone and merges what it writes into the committed facts. Every
probe is a model written byte by byte (`flatbuffer.py`), handed to the runtime's Python
interpreter as `Interpreter(model_content=bytes)` and then `allocate_tensors()`, with its
default op resolver and no experimental flags. The probes run in a child process that is
started again after a probe that crashes it (a registered kernel handed a node without its
options may).

What TFLite does (`tensorflow/lite/core/subgraph.cc`, `Subgraph::OpPrepare` and
`PrepareOpsStartingAt`; `tflite/core/subgraph.cc` in LiteRT): construction leaves a custom
op no resolver registers to a delegate; at allocation, each node of the primary subgraph is
prepared in execution order, and the first such op left unclaimed fails: "Encountered
unresolved custom op: NAME." for most names, the "Select TensorFlow op(s)" text for a name
starting with "Flex", followed by "Node number N (NAME) failed to prepare." Some builds
report it twice (the default XNNPACK delegate is applied, fails, and the graph is prepared
again). tensorflow-cpu's `tf.lite.Interpreter` applies the Flex delegate by itself in some
releases (`AcquireFlexDelegate`, `tensorflow/lite/core/interpreter_builder.cc`).

The section written, `allocation`:

- `custom_ops`: per custom op name of `CANDIDATES` that the default resolver registers, its
  versions (1 to 3 probed): a registered op's node, handed no options and one input, fails in
  its own kernel's words or crashes the runtime (Mfcc, AudioSpectrogram and the others do),
  never as "unresolved", which an unregistered name always is (and never crashes);
- `delegate_examines`: the names a default delegate (XNNPACK) examines though no resolver
  registers them: it reports why it refuses the probe's node before "Encountered unresolved
  custom op", so a node it accepts is delegated and allocates;
- `flex_applied`: whether a real `FlexErf` node (its NodeDef as TensorFlow 2.21's converter
  wrote it) allocates, the Flex delegate being applied;
- `messages`: `unresolved_custom` and `flex_unapplied`, templates with `{op}` and `{node}`,
  each derived from one probe and checked against two others (another name, another node);
  `flex_unapplied` is null where Flex ops are applied;
- `observations`: every probe's raw outcome.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from flatbuffer import Str, Table, Vec, serialize, tensor  # noqa: E402

MODULES = {
    "tensorflow-cpu": "tensorflow.lite.python.interpreter",
    "tflite-runtime": "tflite_runtime.interpreter",
    "ai-edge-litert": "ai_edge_litert.interpreter",
}

# Custom op names registered by some TFLite op resolver: `tensorflow/lite/core/kernels/
# register.cc` (NumericVerify, Mfcc, AudioSpectrogram, TFLite_Detection_PostProcess,
# aeq.hadamard_rotation), MediaPipe's and LiteRT's CPU resolvers (Convolution2DTransposeBias,
# MaxPoolingWithArgmax2D, MaxUnpooling2D, Resampler), `tensorflow/lite/kernels/
# custom_ops_register.h` (the rest); `Erf` and `NoSuchOp` are registered by none.
CANDIDATES = [
    "AudioSpectrogram", "Mfcc", "NumericVerify", "TFLite_Detection_PostProcess",
    "aeq.hadamard_rotation", "Convolution2DTransposeBias", "MaxPoolingWithArgmax2D",
    "MaxUnpooling2D", "Resampler", "DenseImageWarp", "Atan2", "AvgPool3D", "MaxPool3D",
    "IRFFT2D", "Roll", "Sign", "Multinomial", "RandomStandardNormal", "RandomUniform",
    "RandomUniformInt", "Erf", "NoSuchOp",
]

# The options TensorFlow 2.21's converter writes for a FlexErf node (`flex.py`'s
# `erf__select`): a FlexBuffer vector of the op's name and its serialized NodeDef.
FLEX_ERF_OPTIONS = bytes.fromhex(
    "03457266001712034572661a002a070a01541202300132050a0345726600021e1a1414042801")

RELU = 19  # a builtin every runtime registers at version 1, for the nodes before a custom op


def custom_model(name, node=0, version=1, options=None):
    """A model whose primary subgraph chains `node` float RELU nodes, then one custom op
    `name` (`version`, with `options` as its custom options): tensors float32 [1, 4]."""
    codes = [Table(f0=("b", RELU), f2=("i", 1), f3=("i", RELU)),
             Table(f0=("b", 32), f1=("off", Str(name)), f2=("i", version), f3=("i", 32))]
    operators = []
    for i in range(node):
        operators.append(Table(f0=("I", 0), f1=("off", Vec("i", [i])),
                               f2=("off", Vec("i", [i + 1]))))
    custom = {"f0": ("I", 1), "f1": ("off", Vec("i", [node])),
              "f2": ("off", Vec("i", [node + 1]))}
    if options is not None:
        custom["f5"] = ("off", Vec("B", options))
    operators.append(Table(**custom))
    tensors = [tensor(0, [1, 4], name=f"t{i}") for i in range(node + 2)]
    subgraph = Table(f0=("off", Vec("off", tensors)), f1=("off", Vec("i", [0])),
                     f2=("off", Vec("i", [node + 1])), f3=("off", Vec("off", operators)))
    return serialize(Table(f0=("I", 3), f1=("off", Vec("off", codes)),
                           f2=("off", Vec("off", [subgraph])), f3=("off", Str("probe")),
                           f4=("off", Vec("off", [Table()]))))


CHILD = """
import json, os, sys, warnings
os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'
warnings.simplefilter('ignore')
from {module} import Interpreter
listing, out = sys.argv[1], sys.argv[2]
with open(out, 'a') as log:
    for path in open(listing).read().split():
        log.write(json.dumps({{'file': path, 'started': True}}) + '\\n'); log.flush()
        data = open(path, 'rb').read()
        result = {{'file': path, 'constructs': False, 'allocates': False, 'error': None,
                   'class': None}}
        try:
            interpreter = Interpreter(model_content=data)
            result['constructs'] = True
            interpreter.allocate_tensors()
            result['allocates'] = True
        except Exception as e:
            result['error'], result['class'] = str(e), type(e).__name__
        log.write(json.dumps(result) + '\\n'); log.flush()
"""


def run_all(family, probes):
    """{name: outcome} for `probes` ({name: model bytes}), in child processes."""
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        paths = {}
        for name, data in probes.items():
            path = os.path.join(scratch, f"{len(paths)}.tflite")
            with open(path, "wb") as f:
                f.write(data)
            paths[path] = name
        remaining = list(paths)
        while remaining:
            listing, log = os.path.join(scratch, "list"), os.path.join(scratch, "log")
            with open(listing, "w") as f:
                f.write("\n".join(remaining))
            if os.path.exists(log):
                os.unlink(log)
            subprocess.run([sys.executable, "-c", CHILD.format(module=MODULES[family]),
                            listing, log], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
            started = None
            with open(log) as f:
                for line in f:
                    entry = json.loads(line)
                    if entry.get("started"):
                        started = entry["file"]
                    else:
                        results[paths[entry.pop("file")]] = entry
                        started = None
            if started is not None:
                results[paths[started]] = {"constructs": None, "allocates": False,
                                           "error": None, "class": None, "crash": True}
            remaining = [p for p in remaining if paths[p] not in results]
    return results


UNRESOLVED = "Encountered unresolved custom op"
SELECT = "Select TensorFlow op(s)"


def template(name, cases):
    """The text of the first case with each value in its needle replaced by `{key}` (every
    occurrence: some runtimes report twice); it must give every case's text."""
    (first, subs), rest = cases[0], cases[1:]
    text = first
    for needle, key, value in subs:
        found = needle.format(value)
        if found not in text:
            raise SystemExit(f"{name}: {found!r} is not in {first!r}")
        text = text.replace(found, needle.format("{" + key + "}"))
    for observed, values in cases:
        rendered = text
        for _, key, value in values:
            rendered = rendered.replace("{" + key + "}", str(value))
        if rendered != observed:
            raise SystemExit(f"{name}: template {text!r} gives {rendered!r}, not {observed!r}")
    return text


def subs(op, node):
    return [("({}) failed", "op", op), ("op: {}.", "op", op), ("Node number {} ", "node", node)]


def probe(family):
    probes = {}
    for name in CANDIDATES:
        for version in (1, 2, 3):
            probes[f"custom {name} v{version}"] = custom_model(name, version=version)
    probes["unresolved Erf node 0"] = custom_model("Erf")
    probes["unresolved NoSuchOp node 2"] = custom_model("NoSuchOp", node=2)
    probes["unresolved Erf node 1"] = custom_model("Erf", node=1)
    probes["flex FlexErf node 0"] = custom_model("FlexErf", options=FLEX_ERF_OPTIONS)
    probes["flex FlexErf node 2"] = custom_model("FlexErf", node=2, options=FLEX_ERF_OPTIONS)
    probes["flex FlexNoSuchOp node 1"] = custom_model("FlexNoSuchOp", node=1)
    probes["flex FlexErf no options node 0"] = custom_model("FlexErf")
    seen = run_all(family, probes)
    for name, outcome in seen.items():
        if outcome.get("constructs") is False and name.startswith(("unresolved", "flex")):
            raise SystemExit(f"{name}: construction failed: {outcome['error']!r}")

    def unresolved(outcome):
        error = outcome["error"] or ""
        return outcome["constructs"] and not outcome["allocates"] and (
            UNRESOLVED in error or SELECT in error)

    custom_ops, examined = {}, []
    for name in CANDIDATES:
        versions = [v for v in (1, 2, 3) if not unresolved(seen[f"custom {name} v{v}"])]
        if versions:
            custom_ops[name] = versions
        # Unresolved, but a default delegate looked at the node first and said why it would
        # not take it: a node it accepts would be delegated, and run.
        if any(unresolved(seen[f"custom {name} v{v}"])
               and not seen[f"custom {name} v{v}"]["error"].startswith(UNRESOLVED)
               for v in (1, 2, 3)):
            examined.append(name)
    if "Erf" in custom_ops or "NoSuchOp" in custom_ops:
        raise SystemExit(f"an op no resolver registers resolves: {custom_ops}")
    messages = {"unresolved_custom": template("unresolved_custom", [
        (seen["unresolved Erf node 0"]["error"], subs("Erf", 0)),
        (seen["unresolved NoSuchOp node 2"]["error"], subs("NoSuchOp", 2)),
        (seen["unresolved Erf node 1"]["error"], subs("Erf", 1)),
    ])}
    flex_applied = bool(seen["flex FlexErf node 0"]["allocates"])
    if flex_applied:
        if not seen["flex FlexErf node 2"]["allocates"]:
            raise SystemExit("FlexErf allocates at node 0 but not at node 2")
        messages["flex_unapplied"] = None
    else:
        messages["flex_unapplied"] = template("flex_unapplied", [
            (seen["flex FlexErf node 0"]["error"], [("({}) failed", "op", "FlexErf"),
                                                   ("Node number {} ", "node", 0)]),
            (seen["flex FlexNoSuchOp node 1"]["error"], [("({}) failed", "op", "FlexNoSuchOp"),
                                                        ("Node number {} ", "node", 1)]),
            (seen["flex FlexErf node 2"]["error"], [("({}) failed", "op", "FlexErf"),
                                                   ("Node number {} ", "node", 2)]),
        ])
    return {"custom_ops": custom_ops, "delegate_examines": examined,
            "flex_applied": flex_applied, "messages": messages,
            "observations": dict(sorted(seen.items()))}


if __name__ == "__main__":
    out, family, version = sys.argv[1:4]
    facts = {"family": family, "version": version, "allocation": probe(family)}
    with open(out, "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")
