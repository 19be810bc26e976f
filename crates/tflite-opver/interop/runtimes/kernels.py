"""Probes what each TensorFlow Lite runtime's kernels do with one-operator models.

    python kernels.py probe OUT_JSON FAMILY VERSION FACTS_JSON_GZ   (inside the runtime's venv)
    python kernels.py table OUT_JSON REFERENCE IN_JSON...           (any Python 3, stdlib only)
    python kernels.py models OUT_JSON FAMILY VERSION MODEL...       (inside the runtime's venv)
    python kernels.py model-table OUT_JSON REFERENCE ROOT IN_JSON... (any Python 3)

`models` and `model-table` run real models the same way and tabulate what happened, for the
test that holds the crate's kernel gaps against real models
(`tests/data/runtimes/kernel_models.json`).

`cargo xtask tflite-runtimes --part kernels` runs `probe` in every runtime's venv and then
`table` over what they wrote, and gzips the table into
`crates/tflite-opver/runtimes/kernels.json.gz`; `cargo xtask codegen` turns it into the
crate's `KERNEL_PROBES` (`src/generated/runtimes.rs`).

`probe` writes every probe of `probes()`: a model of one builtin operator whose inputs are the
subgraph's inputs (constants where the kernel needs them: axes, shapes, paddings, weights),
written byte by byte (`flatbuffer.py`) and stamped with the highest version of its builtin the
runtime registers (read from its committed facts, FACTS_JSON_GZ), so that every runtime that has
the builtin reaches its kernel, as a model stored at a lower version than TensorFlow's rules
give does. Each probe is handed to the runtime's Python `Interpreter(model_content=...)` (its
default op resolver and delegates, no experimental flags), then `allocate_tensors()`, then its
inputs are set from a seeded generator (`inputs()`, the same values in every runtime) and
`invoke()` runs; the outputs are kept. Probes run in a child process that starts again after a
probe that kills it (a signal: the runtime aborts or faults).

`table` compares every runtime with REFERENCE (the newest: `ai-edge-litert 2.3.0`). Per probe
and runtime the outcome is one of:

- `construct`: `Interpreter(...)` raised (the builtin is not registered: not a kernel fact);
- `prepare`: `allocate_tensors()` raised (a kernel's `Prepare` refused the node), with its text;
- `invoke`: `invoke()` raised (a kernel's `Eval` returned an error), with its text;
- `signal`: the process died in that probe;
- `ok`: it ran, and its outputs equal the reference's within the tolerance (below);
- `wrong`: it ran, but an output differs from the reference's beyond the tolerance (the
  largest difference and how many elements differ are kept).

Tolerance, element by element against the reference: float32 outputs within
1e-4 + 1e-3 x |reference|; quantized int8 and uint8 outputs within 1 step; quantized int16
within 2 steps; every other type (int32, int64, bool, unquantized) exactly. A probe the
reference itself refuses or aborts on is kept, but a runtime's outcome is a *gap* only where
the reference runs the probe and the runtime does not run it, or runs it to another result.
"""
import gzip
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from flatbuffer import Table, Vec, Str, quantization, serialize, tensor  # noqa: E402

MODULES = {
    "tensorflow-cpu": "tensorflow.lite.python.interpreter",
    "tflite-runtime": "tflite_runtime.interpreter",
    "ai-edge-litert": "ai_edge_litert.interpreter",
}

# TensorType values (schema.fbs) and how a probe quantizes each: (scale, zero point) for the
# quantized types, as the converter writes int8 (asymmetric), uint8 and int16x8 (symmetric,
# power-of-two scale, which int16 ADD and SUB need) tensors.
TYPES = {"float32": 0, "int32": 2, "uint8": 3, "int64": 4, "bool": 6, "int16": 7, "int8": 9}
QUANT = {"int8": (0.05, 3), "uint8": (0.05, 128), "int16": (1.0 / 4096, 0)}
RANGE = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767)}
PACK = {"float32": "f", "int32": "i", "uint8": "B", "int64": "q", "bool": "?", "int16": "h",
        "int8": "b"}
COMMON = ["float32", "int8", "uint8", "int16", "int32", "int64", "bool"]

# Builtin codes (TensorFlow 2.21's schema_generated.h, BuiltinOperator) and the BuiltinOptions
# union's type of each options table a probe writes.
OPS = {
    "ADD": 0, "AVERAGE_POOL_2D": 1, "CONCATENATION": 2, "CONV_2D": 3, "DEPTHWISE_CONV_2D": 4,
    "DEQUANTIZE": 6, "FLOOR": 8, "FULLY_CONNECTED": 9, "L2_NORMALIZATION": 11, "LOGISTIC": 14,
    "LSTM": 16, "MAX_POOL_2D": 17, "MUL": 18, "RELU": 19, "RELU_N1_TO_1": 20, "RELU6": 21,
    "RESHAPE": 22, "RESIZE_BILINEAR": 23, "SOFTMAX": 25, "TANH": 28, "PAD": 34, "GATHER": 36,
    "TRANSPOSE": 39, "MEAN": 40, "SUB": 41, "DIV": 42, "UNIDIRECTIONAL_SEQUENCE_LSTM": 44,
    "STRIDED_SLICE": 45, "EXP": 47, "LOG_SOFTMAX": 50, "CAST": 53, "PRELU": 54, "MAXIMUM": 55,
    "ARG_MAX": 56, "MINIMUM": 57, "LESS": 58, "NEG": 59, "PADV2": 60, "GREATER": 61,
    "GREATER_EQUAL": 62, "LESS_EQUAL": 63, "SLICE": 65, "SIN": 66, "TILE": 69, "EQUAL": 71,
    "NOT_EQUAL": 72, "LOG": 73, "SUM": 74, "SQRT": 75, "RSQRT": 76, "POW": 78, "ARG_MIN": 79,
    "REDUCE_PROD": 81, "REDUCE_MAX": 82, "LOGICAL_OR": 84, "LOGICAL_AND": 86, "LOGICAL_NOT": 87,
    "REDUCE_MIN": 89, "FLOOR_DIV": 90, "SQUARE": 92, "ZEROS_LIKE": 93, "FLOOR_MOD": 95,
    "RESIZE_NEAREST_NEIGHBOR": 97, "LEAKY_RELU": 98, "SQUARED_DIFFERENCE": 99,
    "MIRROR_PAD": 100, "ABS": 101, "CEIL": 104, "REVERSE_V2": 105, "ADD_N": 106, "COS": 108,
    "ELU": 111, "QUANTIZE": 114, "ROUND": 116, "HARD_SWISH": 117, "SELECT_V2": 123,
    "BATCH_MATMUL": 126, "CUMSUM": 128, "BROADCAST_TO": 130, "GELU": 150, "RELU_0_TO_1": 152,
    "SIGN": 158, "DILATE": 203,
}
OPTIONS = {"Conv2DOptions": 1, "DepthwiseConv2DOptions": 2, "Pool2DOptions": 5,
           "FullyConnectedOptions": 8, "SoftmaxOptions": 9, "ConcatenationOptions": 10,
           "LSTMOptions": 14, "ArgMaxOptions": 40, "ArgMinOptions": 57, "LeakyReluOptions": 75,
           "GeluOptions": 116, "UnidirectionalSequenceLSTMOptions": 71, "MirrorPadOptions": 77}


class Rng:
    """A 64-bit LCG (Knuth's MMIX constants): the same numbers on every Python."""

    def __init__(self, seed):
        self.state = seed * 2862933555777941757 + 3037000493

    def unit(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.state >> 11) / float(1 << 53)

    def int(self, low, high):
        return low + min(high - low, int(self.unit() * (high - low + 1)))


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class T:
    """A tensor of a probe: type name, shape, constant values (None: a subgraph input), and
    quantization (scale, zero point) or None; `values` for an input say what range to draw."""

    def __init__(self, type_, shape, const=None, quant="auto", draw="any"):
        self.type, self.shape, self.const, self.draw = type_, list(shape), const, draw
        self.quant = QUANT.get(type_) if quant == "auto" else quant

    def spec(self):
        out = {"type": self.type, "shape": self.shape}
        if self.quant:
            out["quant"] = list(self.quant)
        if self.const is not None:
            out["const"] = True
        return out


def probe(op, inputs, outputs, options=None, name=None, params=None):
    return {"op": op, "inputs": inputs, "outputs": outputs, "options": options,
            "name": name, "params": params or {}}


def same(type_, shape, **kw):
    return T(type_, shape, **kw)


def out_like(type_, shape):
    return T(type_, shape)


BINARY = ["ADD", "MUL", "SUB", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "POW",
          "FLOOR_DIV", "FLOOR_MOD"]
COMPARE = ["GREATER", "GREATER_EQUAL", "LESS", "LESS_EQUAL", "EQUAL", "NOT_EQUAL"]
BROADCASTS = {"same": ([2, 8], [2, 8], [2, 8]),
              "broadcast4": ([1, 2, 3, 4], [1, 1, 1, 4], [1, 2, 3, 4]),
              "broadcast5": ([1, 2, 1, 3, 2], [2, 1, 3, 1, 2], [2, 2, 3, 3, 2])}
UNARY = ["RELU", "RELU6", "RELU_N1_TO_1", "RELU_0_TO_1", "LOGISTIC", "TANH", "EXP", "LOG",
         "SQRT", "RSQRT", "ABS", "NEG", "GELU", "HARD_SWISH", "LEAKY_RELU", "SQUARE", "SIN",
         "COS", "FLOOR", "CEIL", "ROUND", "ELU", "SIGN", "ZEROS_LIKE", "LOG_SOFTMAX", "SOFTMAX",
         "L2_NORMALIZATION"]
POSITIVE = {"LOG", "SQRT", "RSQRT"}
# Output quantization the kernels require of these activations (TF's activations.cc):
FIXED_OUT = {
    ("LOGISTIC", "int8"): (1 / 256, -128), ("LOGISTIC", "uint8"): (1 / 256, 0),
    ("LOGISTIC", "int16"): (1 / 32768, 0), ("TANH", "int8"): (1 / 128, 0),
    ("TANH", "uint8"): (1 / 128, 128), ("TANH", "int16"): (1 / 32768, 0),
    ("SOFTMAX", "int8"): (1 / 256, -128), ("SOFTMAX", "uint8"): (1 / 256, 0),
    ("SOFTMAX", "int16"): (1 / 32768, 0), ("LOG_SOFTMAX", "int8"): (16 / 256, 127),
    ("LOG_SOFTMAX", "uint8"): (16 / 256, 255), ("L2_NORMALIZATION", "int8"): (1 / 128, 0),
    ("L2_NORMALIZATION", "uint8"): (1 / 128, 128),
}
REDUCERS = ["SUM", "MEAN", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"]


def i32(values, shape=None):
    return T("int32", shape if shape is not None else [len(values)], const=values, quant=None)


def weights_type(t):
    return {"int16": "int8"}.get(t, t)


def bias(t, n, values=None):
    values = values if values is not None else [((i * 7) % 5 - 2) for i in range(n)]
    if t == "float32":
        return T("float32", [n], const=[v * 0.25 for v in values])
    kind = "int64" if t == "int16" else "int32"
    return T(kind, [n], const=values, quant=None)


def weight_quant(t):
    return {"int8": (0.02, 0), "uint8": (0.02, 128), "int16": (0.02, 0)}.get(t)


def probes():
    """Every probe, as a dict with a unique `id`."""
    out = []
    for op in BINARY:
        for t in COMMON:
            for form, (a, b, c) in BROADCASTS.items():
                draw_b = "nonzero" if op in ("DIV", "FLOOR_DIV", "FLOOR_MOD") else (
                    "exponent" if op == "POW" else "any")
                out.append(probe(op, [T(t, a), T(t, b, draw=draw_b)], [T(t, c)], name=form))
    for op in COMPARE:
        for t in COMMON:
            for form, (a, b, c) in BROADCASTS.items():
                out.append(probe(op, [T(t, a), T(t, b)], [T("bool", c)], name=form))
    for op in ("LOGICAL_AND", "LOGICAL_OR"):
        for form, (a, b, c) in BROADCASTS.items():
            out.append(probe(op, [T("bool", a), T("bool", b)], [T("bool", c)], name=form))
    out.append(probe("LOGICAL_NOT", [T("bool", [2, 8])], [T("bool", [2, 8])]))
    for op in UNARY:
        for t in COMMON:
            draw = "positive" if op in POSITIVE else "any"
            o = T(t, [2, 8], quant=FIXED_OUT.get((op, t), QUANT.get(t)))
            options = None
            if op == "LEAKY_RELU":
                options = ("LeakyReluOptions", {"f0": ("f", 0.2)})
            elif op in ("SOFTMAX",):
                options = ("SoftmaxOptions", {"f0": ("f", 1.0)})
            out.append(probe(op, [T(t, [2, 8], draw=draw)], [o], options=options))
            if op == "GELU":
                out.append(probe(op, [T(t, [2, 8])], [T(t, [2, 8])], name="approximate",
                                 options=("GeluOptions", {"f0": ("?", True)}),
                                 params={"approximate": True}))
    for op in REDUCERS:
        for t in COMMON:
            for form, shape, axes, oshape in (("axis1", [2, 8], [1], [2]),
                                              ("axis12", [2, 4, 8], [1, 2], [2])):
                out.append(probe(op, [T(t, shape), i32(axes)], [T(t, oshape)], name=form))
    for t in COMMON:
        out.append(probe("CONCATENATION", [T(t, [2, 4]), T(t, [2, 3])], [T(t, [2, 7])],
                         options=("ConcatenationOptions", {"f0": ("i", 1)})))
        out.append(probe("RESHAPE", [T(t, [2, 8]), i32([4, 4])], [T(t, [4, 4])]))
        out.append(probe("TRANSPOSE", [T(t, [2, 3, 4]), i32([2, 0, 1])], [T(t, [4, 2, 3])]))
        out.append(probe("TRANSPOSE", [T(t, [1, 2, 1, 3, 2, 2]), i32([5, 4, 3, 2, 1, 0])],
                         [T(t, [2, 2, 3, 1, 2, 1])], name="rank6"))
        out.append(probe("PAD", [T(t, [2, 3]), i32([1, 1, 0, 2], [2, 2])], [T(t, [4, 5])]))
        out.append(probe("PAD", [T(t, [1, 2, 1, 2, 2]), i32([0, 0, 1, 0, 0, 1, 0, 0, 1, 0],
                                                           [5, 2])],
                         [T(t, [1, 3, 2, 2, 3])], name="rank5"))
        pad_value = T(t, [], const=[1.5 if t == "float32" else 1])
        out.append(probe("PADV2", [T(t, [2, 3]), i32([1, 1, 0, 2], [2, 2]), pad_value],
                         [T(t, [4, 5])]))
        out.append(probe("MIRROR_PAD", [T(t, [3, 4]), i32([1, 1, 1, 1], [2, 2])],
                         [T(t, [5, 6])], options=("MirrorPadOptions", {"f0": ("b", 0)})))
        out.append(probe("GATHER", [T(t, [4, 3]), i32([3, 0, 2])], [T(t, [3, 3])]))
        out.append(probe("SLICE", [T(t, [3, 4]), i32([1, 1]), i32([2, 2])], [T(t, [2, 2])]))
        out.append(probe("STRIDED_SLICE", [T(t, [4, 6]), i32([0, 1]), i32([4, 5]),
                                           i32([2, 2])], [T(t, [2, 2])]))
        out.append(probe("TILE", [T(t, [2, 3]), i32([2, 2])], [T(t, [4, 6])]))
        out.append(probe("REVERSE_V2", [T(t, [2, 8]), i32([1])], [T(t, [2, 8])]))
        out.append(probe("BROADCAST_TO", [T(t, [1, 3]), i32([2, 2, 1, 2, 3])],
                         [T(t, [2, 2, 1, 2, 3])], name="rank5"))
        out.append(probe("SELECT_V2", [T("bool", [2, 8]), T(t, [2, 8]), T(t, [2, 8])],
                         [T(t, [2, 8])]))
        out.append(probe("DILATE", [T(t, [2, 3]), i32([2, 3]), pad_value],
                         [T(t, [3, 7])]))
        out.append(probe("CUMSUM", [T(t, [2, 8]), T("int32", [], const=[1], quant=None)],
                         [T(t, [2, 8])]))
        out.append(probe("ADD_N", [T(t, [2, 8]), T(t, [2, 8]), T(t, [2, 8])], [T(t, [2, 8])]))
        for op, opts in (("ARG_MAX", "ArgMaxOptions"), ("ARG_MIN", "ArgMinOptions")):
            out.append(probe(op, [T(t, [2, 8]), i32([1])], [T("int32", [2], quant=None)],
                             options=(opts, {"f0": ("b", TYPES["int32"])})))
        alpha = {"float32": [0.1, 0.2, -0.3, 0.5], "uint8": [129, 127, 130, 128],
                 "bool": [True, False, True, False]}.get(t, [1, -1, 2, 0])
        out.append(probe("PRELU", [T(t, [1, 2, 4]), T(t, [4], const=alpha)],
                         [T(t, [1, 2, 4])]))
        out.append(probe("RESIZE_BILINEAR", [T(t, [1, 2, 2, 1]), i32([4, 4])],
                         [T(t, [1, 4, 4, 1])]))
        out.append(probe("RESIZE_NEAREST_NEIGHBOR", [T(t, [1, 2, 2, 1]), i32([4, 4])],
                         [T(t, [1, 4, 4, 1])]))
        out.append(probe("BATCH_MATMUL", [T(t, [2, 3, 4]), T(t, [2, 4, 5])], [T(t, [2, 3, 5])]))
        pool = ("Pool2DOptions", {"f0": ("b", 1), "f1": ("i", 2), "f2": ("i", 2),
                                  "f3": ("i", 2), "f4": ("i", 2)})
        for op in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
            out.append(probe(op, [T(t, [1, 4, 4, 2])], [T(t, [1, 2, 2, 2])], options=pool))
    for t in ("float32", "int8", "uint8", "int16"):
        w = weights_type(t)
        wq = weight_quant(t)
        wvals = lambda n: [((i * 37) % 11 - 5) * (0.1 if t == "float32" else 1)  # noqa: E731
                           for i in range(n)]
        if t == "uint8":
            wvals = lambda n: [120 + (i * 37) % 11 for i in range(n)]  # noqa: E731
        out.append(probe("FULLY_CONNECTED",
                         [T(t, [2, 8]), T(w, [4, 8], const=wvals(32), quant=wq), bias(t, 4)],
                         [T(t, [2, 4])], options=("FullyConnectedOptions", {})))
        out.append(probe("FULLY_CONNECTED",
                         [T(t, [2, 8]), T(w, [4, 8], const=wvals(32), quant=wq)],
                         [T(t, [2, 4])], options=("FullyConnectedOptions", {}), name="no_bias"))
        out.append(probe("FULLY_CONNECTED",
                         [T(t, [2, 3, 8]), T(w, [4, 8], const=wvals(32), quant=wq), bias(t, 4)],
                         [T(t, [2, 3, 4])], name="keep_num_dims", params={"keep_num_dims": True},
                         options=("FullyConnectedOptions", {"f2": ("?", True)})))
        if t == "int16":
            out.append(probe("FULLY_CONNECTED",
                             [T(t, [2, 8]), T(w, [4, 8], const=wvals(32), quant=wq),
                              T("int32", [4], const=[1, -2, 0, 2], quant=None)],
                             [T(t, [2, 4])], name="int32_bias",
                             params={"bias": "int32"},
                             options=("FullyConnectedOptions", {"f4": ("b", TYPES["int32"])})))
        conv = ("Conv2DOptions", {"f0": ("b", 1), "f1": ("i", 1), "f2": ("i", 1)})
        out.append(probe("CONV_2D", [T(t, [1, 5, 5, 2]), T(w, [3, 3, 3, 2], const=wvals(54),
                                                            quant=wq), bias(t, 3)],
                         [T(t, [1, 3, 3, 3])], options=conv))
        dw = ("DepthwiseConv2DOptions", {"f0": ("b", 1), "f1": ("i", 1), "f2": ("i", 1),
                                         "f3": ("i", 1)})
        out.append(probe("DEPTHWISE_CONV_2D", [T(t, [1, 5, 5, 2]),
                                               T(w, [1, 3, 3, 2], const=wvals(18), quant=wq),
                                               bias(t, 2)],
                         [T(t, [1, 3, 3, 2])], options=dw))
    for src, dst in (("float32", "int32"), ("int32", "float32"), ("int32", "int64"),
                     ("int64", "int32"), ("bool", "float32"), ("float32", "bool"),
                     ("int16", "int32"), ("int8", "int16"), ("uint8", "int8"),
                     ("int32", "int16"), ("float32", "int64")):
        out.append(probe("CAST", [T(src, [2, 8], quant=None)], [T(dst, [2, 8], quant=None)],
                         name=f"{src}_to_{dst}"))
    for t in ("int8", "uint8", "int16"):
        out.append(probe("QUANTIZE", [T("float32", [2, 8])], [T(t, [2, 8])], name="from_float32"))
        out.append(probe("DEQUANTIZE", [T(t, [2, 8])], [T("float32", [2, 8])]))
    out.append(probe("QUANTIZE", [T("int16", [2, 8])], [T("int8", [2, 8])], name="requantize"))
    out.append(probe("QUANTIZE", [T("int8", [2, 8])], [T("int16", [2, 8])], name="requantize"))
    out.extend(lstm_probes())
    seen = set()
    for p in out:
        key = "{}:{}:{}".format(p["op"], "/".join(t.type for t in p["inputs"] + p["outputs"]
                                                  if t is not None and t.const is None),
                                p["name"] or "")
        key += "" if key not in seen else ":" + str(len(p["inputs"]))
        assert key not in seen, key
        seen.add(key)
        p["id"] = key
    return out


def lstm_probes():
    """LSTM and UNIDIRECTIONAL_SEQUENCE_LSTM, float32 and hybrid (int8 weights), no peephole,
    no projection: input, 4+4 weights, 4 biases, the two states as variables."""
    out = []
    n_in, n_cell, batch = 3, 2, 1
    for op, shape, opts in (("LSTM", [batch, n_in], "LSTMOptions"),
                            ("UNIDIRECTIONAL_SEQUENCE_LSTM", [2, batch, n_in],
                             "UnidirectionalSequenceLSTMOptions")):
        for weights in ("float32", "int8"):
            wq = (0.02, 0) if weights == "int8" else None
            wf = (lambda n: [((i * 37) % 11 - 5) * (0.05 if weights == "float32" else 1)
                             for i in range(n)])
            ins = [T("float32", shape)]
            ins += [T(weights, [n_cell, n_in], const=wf(n_cell * n_in), quant=wq)
                    for _ in range(4)]
            ins += [T(weights, [n_cell, n_cell], const=wf(n_cell * n_cell), quant=wq)
                    for _ in range(4)]
            ins += [None, None, None]
            ins += [T("float32", [n_cell], const=[0.1, -0.1]) for _ in range(4)]
            ins += [None, None]
            ins += [T("float32", [batch, n_cell], const="variable"),
                    T("float32", [batch, n_cell], const="variable")]
            oshape = [batch, n_cell] if op == "LSTM" else [2, batch, n_cell]
            fields = {"f0": ("b", 2), "f1": ("f", 0.0), "f2": ("f", 0.0)}
            if op == "UNIDIRECTIONAL_SEQUENCE_LSTM":
                fields["f3"] = ("?", True)  # time_major
            out.append(probe(op, ins, [T("float32", oshape)], options=(opts, fields),
                             name="hybrid" if weights == "int8" else None))
    return out


def values_for(t, n, rng, draw):
    if t.type == "bool":
        return [rng.unit() < 0.5 for _ in range(n)]
    if t.type in QUANT and t.quant:
        low, high = RANGE[t.type]
        if draw == "positive":
            low = t.quant[1] + 1
        if draw in ("nonzero", "exponent"):
            low = t.quant[1] + 1
            high = min(high, t.quant[1] + int(3 / t.quant[0]))
        return [rng.int(low, high) for _ in range(n)]
    if t.type == "float32":
        if draw == "positive":
            return [0.1 + 3.9 * rng.unit() for _ in range(n)]
        if draw == "nonzero":
            return [(0.5 + 3.5 * rng.unit()) * (1 if rng.unit() < 0.5 else -1) for _ in range(n)]
        if draw == "exponent":
            return [2.0 * rng.unit() for _ in range(n)]
        return [-4.0 + 8.0 * rng.unit() for _ in range(n)]
    if draw == "positive":
        return [rng.int(1, 40) for _ in range(n)]
    if draw == "nonzero":
        return [rng.int(1, 9) * (1 if rng.unit() < 0.5 else -1) for _ in range(n)]
    if draw == "exponent":
        return [rng.int(0, 3) for _ in range(n)]
    if t.type == "uint8":
        return [rng.int(0, 255) for _ in range(n)]
    return [rng.int(-50, 50) for _ in range(n)]


def build(p, versions):
    """The probe's model bytes, with its seeded inputs (a list of flat value lists), or None
    when the runtime does not register the builtin."""
    code = OPS[p["op"]]
    regs = versions.get(str(code))
    if not regs:
        return None, None
    tensors, buffers, inputs, op_inputs = [], [b""], [], []
    rng = Rng(sum(ord(c) * (i + 1) for i, c in enumerate(p["id"])))
    feeds = []
    for t in p["inputs"]:
        if t is None:
            op_inputs.append(-1)
            continue
        index = len(tensors)
        quant = quantization([t.quant[0]], [t.quant[1]]) if t.quant else None
        if t.const == "variable":
            tensors.append(tensor(TYPES[t.type], t.shape, name=f"t{index}", variable=True))
        elif t.const is not None:
            data = b"".join(struct.pack("<" + PACK[t.type], v) for v in t.const)
            buffers.append(bytearray(data))
            tensors.append(tensor(TYPES[t.type], t.shape, buffer=len(buffers) - 1,
                                  name=f"t{index}", quantization=quant))
        else:
            tensors.append(tensor(TYPES[t.type], t.shape, name=f"t{index}", quantization=quant))
            inputs.append(index)
            feeds.append(values_for(t, count(t.shape), rng, t.draw))
        op_inputs.append(index)
    outputs = []
    for t in p["outputs"]:
        index = len(tensors)
        quant = quantization([t.quant[0]], [t.quant[1]]) if t.quant else None
        tensors.append(tensor(TYPES[t.type], t.shape, name=f"t{index}", quantization=quant))
        outputs.append(index)
    operator = {"f0": ("I", 0), "f1": ("off", Vec("i", op_inputs)),
                "f2": ("off", Vec("i", outputs))}
    if p["options"]:
        kind, fields = p["options"]
        operator["f3"] = ("B", OPTIONS[kind])
        operator["f4"] = ("off", Table(**fields))
    opcode = Table(f0=("b", min(code, 127)), f2=("i", max(regs)), f3=("i", code))
    subgraph = Table(f0=("off", Vec("off", tensors)), f1=("off", Vec("i", inputs)),
                     f2=("off", Vec("i", outputs)), f3=("off", Vec("off", [Table(**operator)])))
    model = Table(f0=("I", 3), f1=("off", Vec("off", [opcode])),
                  f2=("off", Vec("off", [subgraph])), f3=("off", Str("probe")),
                  f4=("off", Vec("off", [Table() if not b else Table(f0=("off", b))
                                         for b in buffers])))
    return serialize(model), feeds


CHILD = """
import json, os, sys, time, warnings
os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'
warnings.simplefilter('ignore')
import numpy as np
from {module} import Interpreter
listing, out = sys.argv[1], sys.argv[2]


def run(job, log):
    result = {{'id': job['id'], 'stage': 'construct', 'error': None}}
    try:
        it = Interpreter(model_content=open(job['file'], 'rb').read())
        result['stage'] = 'prepare'
        it.allocate_tensors()
        result['stage'] = 'invoke'
        feeds = job['feeds']
        if feeds is None:
            # A real model: seeded values over each input type's range.
            rng = np.random.RandomState(0)
            feeds = []
            for detail in it.get_input_details():
                dtype, shape = np.dtype(detail['dtype']), detail['shape']
                if dtype.kind in 'iu':
                    info = np.iinfo(dtype)
                    low, high = (info.min, info.max) if info.bits <= 16 else (-50, 50)
                    feeds.append(rng.randint(low, int(high) + 1, size=shape))
                elif dtype.kind == 'b':
                    feeds.append(rng.randint(0, 2, size=shape))
                else:
                    feeds.append(rng.uniform(-4, 4, size=shape))
        for detail, values in zip(it.get_input_details(), feeds):
            it.set_tensor(detail['index'], np.array(values).astype(detail['dtype'])
                          .reshape(detail['shape']))
        it.invoke()
        result['stage'] = 'ok'
        result['outputs'] = [it.get_tensor(d['index']).astype(np.float64).ravel().tolist()
                             for d in it.get_output_details()]
    except Exception as e:
        result['error'] = str(e)
    log.write(json.dumps(result) + '\\n'); log.flush()


with open(out, 'a') as log:
    for line in open(listing):
        job = json.loads(line)
        log.write(json.dumps({{'id': job['id'], 'started': True}}) + '\\n'); log.flush()
        # Each probe in a forked process: one that kills it costs no new import.
        pid = os.fork()
        if pid == 0:
            try:
                run(job, log)
            finally:
                os._exit(0)
        deadline = time.time() + 60
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.time() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                status = None
                break
            time.sleep(0.002)
        if status is None or os.WIFSIGNALED(status):
            signal = os.WTERMSIG(status) if status is not None else None
            log.write(json.dumps({{'id': job['id'], 'stage': 'signal', 'error': None,
                                  'signal': signal, 'timeout': status is None}}) + '\\n')
            log.flush()
"""


def run_probes(out, family, version, facts):
    with gzip.open(facts) as f:
        versions = json.load(f)["registrations"]
    with tempfile.TemporaryDirectory() as scratch:
        jobs, results = [], {}
        for p in probes():
            data, feeds = build(p, versions)
            if data is None:
                results[p["id"]] = {"stage": "construct", "error": "not registered"}
                continue
            path = os.path.join(scratch, f"{len(jobs)}.tflite")
            with open(path, "wb") as f:
                f.write(data)
            jobs.append({"id": p["id"], "file": path, "feeds": feeds})
        run_jobs(jobs, results, scratch, family, version)
    with open(out, "w") as f:
        json.dump({"family": family, "version": version, "results": results}, f,
                  sort_keys=True)


def run_models(out, family, version, files):
    """`models`: real models, run the same way on seeded inputs (`CHILD`)."""
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        jobs = [{"id": path, "file": path, "feeds": None} for path in files]
        run_jobs(jobs, results, scratch, family, version)
    with open(out, "w") as f:
        json.dump({"family": family, "version": version, "results": results}, f,
                  sort_keys=True)


def run_jobs(jobs, results, scratch, family, version):
    """Runs `jobs` in the child (started again if it dies outside a probe), into `results`."""
    remaining = jobs
    while remaining:
        listing, log = os.path.join(scratch, "list"), os.path.join(scratch, "log")
        with open(listing, "w") as f:
            f.write("".join(json.dumps(j) + "\n" for j in remaining))
        if os.path.exists(log):
            os.unlink(log)
        child = subprocess.run([sys.executable, "-c", CHILD.format(module=MODULES[family]),
                                listing, log], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"))
        started = None
        if os.path.exists(log):
            with open(log) as f:
                for line in f:
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        # A line cut short by a probe that died writing it: that probe is run
                        # again (it is not in `results`).
                        continue
                    if entry.pop("started", None):
                        started = entry["id"]
                    else:
                        results[entry.pop("id")] = entry
                        started = None
        if started is not None:
            results[started] = {"stage": "signal", "error": None,
                                "signal": -child.returncode if child.returncode < 0 else None}
        elif child.returncode != 0 and all(j["id"] not in results for j in remaining):
            raise SystemExit(f"{family} {version}: the child failed ({child.returncode})")
        remaining = [j for j in remaining if j["id"] not in results]


def tolerance(t, ref):
    if t.type == "float32":
        return 1e-4 + 1e-3 * abs(ref)
    if t.type in QUANT and t.quant:
        return 2 if t.type == "int16" else 1
    return 0


def compare(p, got, ref):
    """(largest difference, elements beyond tolerance) of `got` against `ref`."""
    worst, beyond = 0.0, 0
    for t, g_out, r_out in zip(p["outputs"], got, ref):
        if len(g_out) != len(r_out):
            return math.inf, max(len(g_out), len(r_out))
        for g, r in zip(g_out, r_out):
            if math.isnan(g) and math.isnan(r):
                continue
            d = abs(g - r) if not (math.isnan(g) or math.isnan(r)) else math.inf
            worst = max(worst, d)
            if d > tolerance(t, r):
                beyond += 1
    return worst, beyond


def make_table(out, reference, paths):
    runs = {}
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        runs[f"{run['family']} {run['version']}"] = run["results"]
    ref = runs[reference]
    table = []
    for p in probes():
        r = ref[p["id"]]
        entry = {"id": p["id"], "op": p["op"], "builtin_code": OPS[p["op"]],
                 "name": p["name"], "params": p["params"],
                 "inputs": [t.spec() if t is not None else None for t in p["inputs"]],
                 "outputs": [t.spec() for t in p["outputs"]],
                 "reference": r["stage"], "runtimes": {}}
        for runtime, results in runs.items():
            got = results[p["id"]]
            outcome = {"stage": got["stage"]}
            if got.get("error"):
                outcome["error"] = got["error"]
            if got.get("signal"):
                outcome["signal"] = got["signal"]
            if got["stage"] == "ok" and r["stage"] == "ok":
                worst, beyond = compare(p, got["outputs"], r["outputs"])
                if beyond:
                    outcome = {"stage": "wrong", "max_difference": worst,
                               "elements_differing": beyond,
                               "elements": sum(len(o) for o in r["outputs"])}
            entry["runtimes"][runtime] = outcome
        table.append(entry)
    facts = {"reference": reference, "runtimes": sorted(runs),
             "tolerance": "float32: 1e-4 + 1e-3 x |reference|; quantized int8/uint8: 1 step; "
                          "quantized int16: 2 steps; int32, int64, bool: exact",
             "probes": table}
    with open(out, "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")


def model_table(out, reference, root, paths):
    """`model-table`: what `models` saw, per model (its path under `root`) and runtime: its
    stage (`construct`, `prepare`, `invoke`, `signal`, `ok`, or `wrong` when its outputs differ
    from the reference's: integer-valued outputs by more than 2 or 1e-3 x |reference|, others
    by more than 1e-4 + 1e-3 x |reference|), with texts by index, as `verdicts.json` keeps them."""
    runs = {}
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        # Model paths as `models` was given them, made absolute (from this directory).
        runs[f"{run['family']} {run['version']}"] = {
            os.path.abspath(k): v for k, v in run["results"].items()}
    order = [f"{family} {version}" for family, version in RUNTIME_ORDER if
             f"{family} {version}" in runs]
    ref = runs[reference]
    texts, models = [], {}

    def differs(got, want):
        for g_out, r_out in zip(got, want):
            if len(g_out) != len(r_out):
                return True
            for g, r in zip(g_out, r_out):
                if math.isnan(g) or math.isnan(r):
                    if math.isnan(g) != math.isnan(r):
                        return True
                    continue
                integral = float(g).is_integer() and float(r).is_integer()
                limit = max(2, 1e-3 * abs(r)) if integral else 1e-4 + 1e-3 * abs(r)
                if abs(g - r) > limit:
                    return True
        return len(got) != len(want)

    for model in sorted(ref):
        row = []
        for runtime in order:
            got = runs[runtime][model]
            stage = got["stage"]
            if stage == "ok" and ref[model]["stage"] == "ok" and differs(
                    got["outputs"], ref[model]["outputs"]):
                stage = "wrong"
            text = got.get("error") or ""
            if text not in texts:
                texts.append(text)
            row.append([stage, texts.index(text)])
        models[os.path.relpath(model, root)] = row
    with open(out, "w") as f:
        f.write('{"reference": %s,\n "runtimes": %s,\n "texts": [\n' % (
            json.dumps(reference), json.dumps(order)))
        f.write(",\n".join("  " + json.dumps(t) for t in texts))
        f.write('\n ],\n "models": {\n')
        f.write(",\n".join(f"  {json.dumps(m)}: {json.dumps(models[m])}" for m in sorted(models)))
        f.write("\n }\n}\n")


# The crate's order of the runtimes (`Runtime::all`).
RUNTIME_ORDER = [("tensorflow-cpu", v) for v in (
    "2.12.1", "2.13.1", "2.14.1", "2.15.1", "2.16.2", "2.17.1", "2.18.1", "2.19.1", "2.20.0",
    "2.21.0")] + [("tflite-runtime", "2.14.0")] + [("ai-edge-litert", v) for v in (
        "1.0.0", "1.0.1", "1.1.0", "1.1.1", "1.1.2", "1.2.0", "1.3.0", "1.4.0", "2.0.2", "2.0.3",
        "2.1.0", "2.1.1", "2.1.2", "2.1.3", "2.1.4", "2.1.5", "2.1.6", "2.2.0", "2.3.0")]


if __name__ == "__main__":
    if sys.argv[1] == "probe":
        run_probes(*sys.argv[2:6])
    elif sys.argv[1] == "model-table":
        model_table(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif sys.argv[1] == "models":
        run_models(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    elif sys.argv[1] == "table":
        make_table(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        raise SystemExit(__doc__)
