"""Probes one TensorFlow Lite runtime: what its interpreter refuses to construct, and in what words.

    python probe.py OUT_JSON FAMILY VERSION

Run by `cargo xtask tflite-runtimes` inside a venv that holds that runtime's wheel
(`tensorflow-cpu`, `tflite-runtime` or `ai-edge-litert`). Every probe is a small model written
here, byte by byte, and handed to the runtime's Python interpreter as
`Interpreter(model_content=bytes)` (its default op resolver, no experimental flags); what it
records is whether construction succeeded and, if not, the exception's class and exact text.
From those observations it writes OUT_JSON (sorted keys, so that a probe run twice writes the
same file):

- `registrations`: per builtin code, the versions its op resolver registers. A one-operator
  model for every (code, version) pair constructs exactly when the pair is registered; a few
  operators (LSTM, some StableHLO ones) fail for want of an options table instead, which still
  means registered: only "Didn't find op for builtin opcode" and "Op builtin_code out of range"
  mean it is not.
- `max_builtin_code`: the highest code it knows (above it: "out of range"); `names`: the name
  its own schema gives each code, read from its "Didn't find op" text.
- `types`: per tensor type value it accepts, how many bits an element takes in a constant
  tensor's buffer (0: not size-checked, as strings are) and the text of a refusal for a
  read-write or a constant tensor of that type, if any.
- `behaviours`: whether it verifies the FlatBuffer (a model of more than a million tables),
  whether a constant's buffer may be larger than its shape needs, whether a present but empty
  `data` vector makes a tensor constant, whether a negative dimension is refused.
- `messages`: the text of each kind of refusal, as a template whose `{placeholders}` the crate
  fills in; each template was derived from one probe and checked against a second probe with
  other values, so it reproduces both texts exactly.
- `observations`: every probe's raw outcome but the registration sweep's, for audit;
- `allocation`: what `allocate_tensors()` does with custom and Flex ops (`allocation.py`, beside
  this script, which `cargo xtask tflite-runtimes --part allocation` also runs alone).

No dependency beyond the runtime itself: the FlatBuffers are written by the small writer below
(the 1.0 releases of ai-edge-litert and tflite-runtime ship without the `flatbuffers` package).
"""
import json
import os
import platform
import struct
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

OUT, FAMILY, VERSION = sys.argv[1], sys.argv[2], sys.argv[3]
MODULES = {
    "tensorflow-cpu": ("tensorflow.lite.python.interpreter", "tensorflow"),
    "tflite-runtime": ("tflite_runtime.interpreter", "tflite_runtime"),
    "ai-edge-litert": ("ai_edge_litert.interpreter", "ai_edge_litert"),
}
INTERPRETER_MODULE, PACKAGE = MODULES[FAMILY]


def load_interpreter():
    import importlib

    return importlib.import_module(INTERPRETER_MODULE).Interpreter


# The FlatBuffer writer: flatbuffer.py, beside this script.
from flatbuffer import Str, Table, Vec, quantization, serialize, tensor  # noqa: E402
import allocation  # noqa: E402


def model(codes=(), tensors=(), operators=(), buffers=(b"",), version=3, subgraphs=None,
          with_buffers=True, with_tensors=True):
    """A model. `codes`: (builtin code, version) or ("custom", name or None, version);
    `operators`: opcode indices; `buffers`: each buffer's data (b"": no data field; a
    `bytearray`: a data vector, even an empty one)."""
    opcodes = []
    for code in codes:
        if code[0] == "custom":
            fields = {"f0": ("b", 32), "f2": ("i", code[2]), "f3": ("i", 32)}
            if code[1] is not None:
                fields["f1"] = ("off", Str(code[1]))
        else:
            builtin, version_ = code
            fields = {"f0": ("b", max(-128, min(builtin, 127))), "f2": ("i", version_),
                      "f3": ("i", builtin)}
        opcodes.append(Table(**fields))
    if subgraphs is None:
        subgraph = {"f1": ("off", Vec("i", [])), "f2": ("off", Vec("i", [])),
                    "f3": ("off", Vec("off", [Table(f0=("I", o)) for o in operators]))}
        if with_tensors:
            subgraph["f0"] = ("off", Vec("off", list(tensors)))
        subgraphs = [Table(**subgraph)]
    fields = {"f0": ("I", version), "f1": ("off", Vec("off", opcodes)),
              "f3": ("off", Str("probe"))}
    if subgraphs != "absent":
        fields["f2"] = ("off", Vec("off", subgraphs))
    if with_buffers:
        fields["f4"] = ("off", Vec("off", [
            Table(f0=("off", data)) if isinstance(data, bytearray) or data else Table()
            for data in buffers
        ]))
    return serialize(Table(**fields))


def many_tables(count):
    """A model of no operators whose `buffers` hold `count` empty tables sharing one vtable:
    more tables than FlatBuffers' verifier accepts (a million) when `count` passes it."""
    head = model(buffers=())
    # Append the buffers: a vector of offsets, then one vtable, then the tables.
    body = bytearray(head)
    root = struct.unpack_from("<I", body, 0)[0]
    vt = root - struct.unpack_from("<i", body, root)[0]
    vt_size = struct.unpack_from("<H", body, vt)[0]
    slot_of_buffers = struct.unpack_from("<H", body, vt + 4 + 2 * 4)[0]
    assert slot_of_buffers, "the head model has a buffers field"
    field = root + slot_of_buffers
    vector = len(body)
    body += struct.pack("<I", count)
    first_offset = len(body)
    body += bytes(4 * count)
    table_vt = len(body)
    body += struct.pack("<HH", 4, 4)
    tables = len(body)
    body += struct.pack("<i", 4) * count  # each table's vtable is 4 bytes before the first
    offsets = bytearray()
    for i in range(count):
        at = first_offset + 4 * i
        table = tables + 4 * i
        # Each table points back at the one vtable (soffset = table - vtable).
        offsets += struct.pack("<I", table - at)
    body[first_offset:first_offset + 4 * count] = offsets
    for i in range(count):
        struct.pack_into("<i", body, tables + 4 * i, tables + 4 * i - table_vt)
    struct.pack_into("<I", body, field, vector - field)
    assert vt_size >= 4
    while len(body) % 16:
        body.append(0)
    return bytes(body)


# ---------------------------------------------------------------------------------------------

Interpreter = load_interpreter()


def construct(data):
    try:
        Interpreter(model_content=data)
        return {"ok": True, "error": None, "class": None}
    except Exception as e:  # what the runtime raises, whatever its class
        return {"ok": False, "error": str(e), "class": type(e).__name__}


def construct_in_child(data):
    """Constructs in a child process, for a model that may crash the runtime."""
    with tempfile.NamedTemporaryFile(suffix=".tflite", delete=False) as f:
        f.write(data)
        path = f.name
    code = (
        "import os, sys, json\n"
        "os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\n"
        f"from {INTERPRETER_MODULE} import Interpreter\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "try:\n"
        "    Interpreter(model_content=data); print(json.dumps({'ok': True}))\n"
        "except Exception as e:\n"
        "    print(json.dumps({'ok': False, 'error': str(e), 'class': type(e).__name__}))\n"
    )
    try:
        run = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True,
                             timeout=600)
    finally:
        os.unlink(path)
    if run.returncode != 0:
        return {"ok": False, "error": None, "class": None, "crash": run.returncode}
    result = json.loads(run.stdout.strip().splitlines()[-1])
    result.setdefault("error", None)
    result.setdefault("class", None)
    return result


observations = {}


def observe(name, data):
    result = construct(data)
    observations[name] = result
    return result


NOT_FOUND = "Didn't find op for builtin opcode"
OUT_OF_RANGE = "Op builtin_code out of range"


def registered(result):
    return result["ok"] or not (NOT_FOUND in result["error"] or OUT_OF_RANGE in result["error"])


def template(name, cases):
    """The template that turns each case's values into its observed text.

    `cases`: (observed text, substitutions), a substitution being (needle, key, value): the
    needle is a piece of the text with `{}` where the value sits ("Tensor {} " for a tensor
    index), so that a value is replaced only where the runtime printed it. The template is the
    first text with each needle's value replaced by `{key}`; it must give every case's text."""
    (first, subs), rest = cases[0], cases[1:]
    text = first
    for needle, key, value in subs:
        found = needle.format(value)
        if text.count(found) != 1:
            raise SystemExit(f"{name}: {found!r} is not once in {first!r}")
        text = text.replace(found, needle.format("{" + key + "}"))
    for observed, values in cases:
        if "{" in observed or "}" in observed:
            raise SystemExit(f"{name}: a brace in {observed!r}")
        rendered = text
        for _, key, value in values:
            rendered = rendered.replace("{" + key + "}", str(value))
        if rendered != observed:
            raise SystemExit(f"{name}: template {text!r} gives {rendered!r}, not {observed!r}")
    return text


def tensor_sub(index):
    return ("Tensor {} ", "tensor", index)


def refusal(name, data):
    result = observe(name, data)
    if result["ok"]:
        raise SystemExit(f"{name}: the runtime constructed the probe, expected a refusal")
    return result["error"]


messages = {}
behaviours = {}

# Registrations: every builtin code, every version until a version is found registered by no
# code. CUSTOM (32) is looked up by name, never by code.
names = {}
max_code = None
for code in range(0, 400):
    if code == 32:
        continue
    result = construct(model(codes=[(code, 1)], operators=[0]))
    if not result["ok"] and OUT_OF_RANGE in result["error"]:
        max_code = code - 1
        break
if max_code is None:
    raise SystemExit("no builtin code up to 399 is out of range")
registrations = {}
failed_but_registered = {}
for code in range(0, max_code + 1):
    if code == 32:
        continue
    versions = []
    version = 0
    while True:
        result = construct(model(codes=[(code, version)], operators=[0]))
        if registered(result):
            versions.append(version)
            if not result["ok"]:
                failed_but_registered[f"{code} v{version}"] = result["error"]
        elif version > 0 and (not versions or version > max(versions) + 3) and version >= 20:
            break
        version += 1
        if version > 200:
            raise SystemExit(f"code {code}: versions up to 200 all registered?")
    registrations[str(code)] = versions
    # The runtime's own name for the code, from its refusal of a version it lacks.
    text = construct(model(codes=[(code, 999)], operators=[0]))["error"]
    prefix = NOT_FOUND + " '"
    names[str(code)] = text[len(prefix):text.index("' version '999'")]

def op_subs(op, version):
    return [("opcode '{}'", "op", op), ("version '{}'", "version", version)]


messages["not_found"] = template("not_found", [
    (refusal("not_found_1", model(codes=[(0, 99)], operators=[0])), op_subs("ADD", 99)),
    (refusal("not_found_2", model(codes=[(3, 77)], operators=[0])), op_subs("CONV_2D", 77)),
    (refusal("not_found_negative", model(codes=[(-5, 1)], operators=[0])), op_subs("", 1)),
])
messages["out_of_range"] = template("out_of_range", [
    (refusal("out_of_range_1", model(codes=[(4000, 1)], operators=[0])),
     [("range: {}.", "code", 4000)]),
    (refusal("out_of_range_2", model(codes=[(3001, 2)], operators=[0])),
     [("range: {}.", "code", 3001)]),
])
# Only the first operator code that fails is named: registration stops there.
first_only = refusal("two_codes_missing", model(codes=[(0, 99), (3, 77)], operators=[0, 1]))
behaviours["registration_stops_at_first_failure"] = first_only == (
    messages["not_found"].replace("{op}", "ADD").replace("{version}", "99"))
messages["no_custom_code"] = template("no_custom_code", [
    (refusal("no_custom_code", model(codes=[("custom", None, 1)], operators=[0])), []),
])
# A custom op without a kernel is left for a delegate: construction succeeds.
behaviours["unresolved_custom_op_constructs"] = observe(
    "unresolved_custom", model(codes=[("custom", "NoSuchOp", 1)], operators=[0]))["ok"]
messages["schema_version"] = template("schema_version", [
    (refusal("schema_version_4", model(version=4)), [("schema version {} ", "schema_version", 4)]),
    (refusal("schema_version_7", model(version=7)), [("schema version {} ", "schema_version", 7)]),
])
messages["no_subgraphs"] = template("no_subgraphs", [
    (refusal("no_subgraphs", model(subgraphs=[])), []),
])
absent = construct_in_child(model(subgraphs="absent"))
observations["no_subgraphs_vector"] = absent
behaviours["no_subgraphs_vector_crashes"] = "crash" in absent
if not behaviours["no_subgraphs_vector_crashes"]:
    messages["no_subgraphs_vector"] = absent["error"] or ""
messages["no_buffers"] = template("no_buffers", [
    (refusal("no_buffers", model(with_buffers=False)), []),
])


def subgraphs_last_without_tensors(before):
    """`before` subgraphs with a tensor each, then one without a tensors vector."""
    first = Table(f0=("off", Vec("off", [tensor(0, [1])])), f1=("off", Vec("i", [])),
                  f2=("off", Vec("i", [])), f3=("off", Vec("off", [])))
    last = Table(f1=("off", Vec("i", [])), f2=("off", Vec("i", [])),
                 f3=("off", Vec("off", [])))
    return [first] * before + [last]


messages["no_tensors"] = template("no_tensors", [
    (refusal("no_tensors_1", model(subgraphs=subgraphs_last_without_tensors(1))),
     [("subgraph {}.", "subgraph", 1)]),
    (refusal("no_tensors_2", model(subgraphs=subgraphs_last_without_tensors(2))),
     [("subgraph {}.", "subgraph", 2)]),
])

# The verifier: a model of more than a million tables.
result = observe("many_tables", many_tables(1_000_001))
behaviours["verifies"] = not result["ok"]
if not result["ok"]:
    messages["verifier"] = template("verifier", [(result["error"], [])])


def pad(n):
    """`n` plain float32 tensors, so that the probed tensor has index `n`."""
    return [tensor(0, [1]) for _ in range(n)]


# Tensor types: every value of the schema's byte.
supported, sweep = [], {}
for value in range(-128, 128):
    result = construct(model(tensors=[tensor(value, [2])]))
    sweep[value] = result
    if result["ok"] or "Unsupported data type" not in result["error"]:
        supported.append(value)
unsupported = [v for v in range(-128, 128) if v not in supported]
observations["types_refused"] = unsupported
messages["unsupported_type"] = template("unsupported_type", [
    (sweep[v]["error"], [("type {} ", "type", v)]) for v in (unsupported[-1], unsupported[0])
])

# A constant float32 tensor whose buffer is too short: the size check and its words.
behaviours["empty_data_is_constant"] = not observe(
    "empty_data", model(tensors=[tensor(0, [2], buffer=1)], buffers=[b"", bytearray()]))["ok"]
behaviours["larger_buffer_accepted"] = observe(
    "larger_buffer", model(tensors=[tensor(0, [2], buffer=1)], buffers=[b"", bytes(12)]))["ok"]
short = [
    refusal("short_buffer_1", model(tensors=pad(5) + [tensor(0, [3], buffer=1)],
                                    buffers=[b"", bytes(5)])),
    refusal("short_buffer_2", model(tensors=pad(6) + [tensor(7, [7], buffer=1)],
                                    buffers=[b"", bytes(3)])),
]
if behaviours["larger_buffer_accepted"]:
    messages["size_mismatch"] = template("size_mismatch", [
        (short[0], [tensor_sub(5)]), (short[1], [tensor_sub(6)])])
else:
    messages["size_mismatch"] = template("size_mismatch", [
        (short[0], [("({} != ", "required", 12), (" {})", "bytes", 5), tensor_sub(5)]),
        (short[1], [("({} != ", "required", 14), (" {})", "bytes", 3), tensor_sub(6)]),
    ])


def constant(value, count, length):
    """Constructs a model whose tensor 5 is a constant of `count` elements of type `value`
    with a buffer of `length` bytes."""
    return construct(model(tensors=pad(5) + [tensor(value, [count], buffer=1)],
                           buffers=[b"", bytes(length)]))


def required_bytes(value, count):
    """The bytes a constant of `count` elements of type `value` needs, from the runtime's
    answers; the refusal's text when its size cannot be checked."""
    if behaviours["larger_buffer_accepted"]:
        if not constant(value, count, 1 << 16)["ok"]:
            return constant(value, count, 1 << 16)["error"]
        low, high = 1, 1 << 16
        while low < high:  # the smallest length accepted
            middle = (low + high) // 2
            if constant(value, count, middle)["ok"]:
                high = middle
            else:
                low = middle + 1
        return low
    probe = constant(value, count, 4097)
    if probe["ok"]:
        return 4097
    if " != 4097)" in probe["error"]:
        return int(probe["error"].split(" != 4097)")[0].rsplit("(", 1)[1])
    return probe["error"]


types = {}
for value in supported:
    entry = {}
    rw = construct(model(tensors=pad(5) + [tensor(value, [2])]))
    entry["read_write_refusal"] = None if rw["ok"] else template(
        f"type {value} read-write", [(rw["error"], [tensor_sub(5)])])
    if constant(value, 100000, 1)["ok"]:
        entry["bits"], entry["constant_refusal"] = 0, None  # not size-checked
    else:
        sizes = [required_bytes(value, n) for n in (1, 3, 5)]
        if any(isinstance(size, str) for size in sizes):
            entry["bits"] = None
            entry["constant_refusal"] = template(f"type {value} constant", [
                (next(size for size in sizes if isinstance(size, str)), [tensor_sub(5)])])
        else:
            fits = [b for b in (1, 2, 4, 8, 16, 32, 64, 128)
                    if all(size == (n * b + 7) // 8 for size, n in zip(sizes, (1, 3, 5)))]
            if len(fits) != 1:
                raise SystemExit(f"type {value}: {sizes} bytes for 1, 3, 5 elements fit no width")
            entry["bits"], entry["constant_refusal"] = fits[0], None
    types[str(value)] = entry

# Read-write tensors: a string variable, element counts past size_t, a negative dimension.
messages["string_variable"] = template("string_variable", [
    (refusal(f"string_variable_{n}", model(tensors=pad(n) + [tensor(5, [2], variable=True)])),
     [tensor_sub(n)]) for n in (5, 6)
])
huge = 2**31 - 1
messages["elements_overflow"] = template("elements_overflow", [
    (refusal(f"elements_overflow_{n}", model(tensors=pad(n) + [tensor(0, [huge, huge, huge])])),
     [tensor_sub(n)]) for n in (5, 6)
])
messages["bytes_overflow"] = template("bytes_overflow", [
    (refusal(f"bytes_overflow_{n}", model(tensors=pad(n) + [tensor(0, [huge, huge, 4])])),
     [tensor_sub(n)]) for n in (5, 6)
])
behaviours["negative_dimension_refused"] = not observe(
    "negative_dimension", model(tensors=[tensor(9, [-1])]))["ok"]

# Constant tensors that are variables; buffers out of range.
messages["variable_with_buffer"] = template("variable_with_buffer", [
    (refusal(f"variable_with_buffer_{n}",
             model(tensors=pad(n) + [tensor(0, [1], buffer=1, variable=True)],
                   buffers=[b"", bytes(4)])), [tensor_sub(n)]) for n in (5, 6)
])
messages["buffer_out_of_range"] = template("buffer_out_of_range", [
    (refusal(f"buffer_out_of_range_{n}",
             model(tensors=pad(n) + [tensor(0, [1], buffer=buffer)], buffers=[b""] * count)),
     [tensor_sub(n), ("buffer {} ", "buffer", buffer), ("only {} ", "buffers", count)])
    for n, buffer, count in ((5, 9, 4), (6, 11, 3))
])

# A constant with a sparsity table that lacks its vectors.
messages["sparsity_invalid"] = template("sparsity_invalid", [
    (refusal(f"sparsity_invalid_{n}",
             model(tensors=pad(n) + [tensor(0, [4, 4], buffer=1, sparsity=Table())],
                   buffers=[b"", bytes(64)])), [tensor_sub(n)]) for n in (5, 6)
])

# Quantization parameters.
q = quantization
messages["quantization_no_zero_point"] = template("quantization_no_zero_point", [
    (refusal(f"q_no_zero_point_{n}", model(tensors=pad(n) + [
        tensor(9, [4], quantization=q([0.5]))])), [tensor_sub(n)]) for n in (5, 6)
])
messages["quantization_counts"] = template("quantization_counts", [
    (refusal(f"q_counts_{n}", model(tensors=pad(n) + [
        tensor(9, [4, 4], quantization=q([0.5] * scales, [0] * zeros))])),
     [tensor_sub(n), ("has {} zero_point", "zero_points", zeros),
      ("and {} scale", "scales", scales)])
    for n, zeros, scales in ((5, 2, 3), (6, 4, 7))
])
messages["quantization_dimension"] = template("quantization_dimension", [
    (refusal(f"q_dimension_{n}", model(tensors=pad(n) + [
        tensor(9, [4] * rank, quantization=q([0.5], [0], dimension))])),
     [tensor_sub(n), ("[0, {})", "rank", rank), ("Was {}.", "dimension", dimension)])
    for n, rank, dimension in ((5, 2, 7), (6, 3, 9))
])
messages["quantization_scales"] = template("quantization_scales", [
    (refusal(f"q_scales_{n}", model(tensors=pad(n) + [
        tensor(9, dims, quantization=q([0.5] * scales, [0] * scales, dimension))])),
     [tensor_sub(n), ("or {} for", "expected", dims[dimension]), ("got {}.", "scales", scales)])
    for n, dims, scales, dimension in ((5, [6, 4], 3, 0), (6, [4, 9], 2, 1))
])

# Two failing tensors: their messages follow each other.
both = refusal("two_bad_tensors", model(tensors=pad(5) + [tensor(126, [2]), tensor(125, [2])]))
behaviours["tensor_messages_concatenate"] = both == "".join(
    messages["unsupported_type"].replace("{type}", str(t)) for t in (126, 125))

freeze = subprocess.run([sys.executable, "-m", "pip", "freeze", "--all"], capture_output=True,
                        text=True).stdout.split("\n")
package = __import__(PACKAGE)
version_strings = {f"{PACKAGE}.__version__": getattr(package, "__version__", None)}
if FAMILY == "tensorflow-cpu":
    version_strings["tf.version.GIT_VERSION"] = package.version.GIT_VERSION
if getattr(package, "__git_version__", None):
    version_strings[f"{PACKAGE}.__git_version__"] = package.__git_version__

facts = {
    "family": FAMILY,
    "version": VERSION,
    "interpreter": f"{INTERPRETER_MODULE}.Interpreter",
    "python": platform.python_version(),
    "pip_freeze": sorted(line for line in freeze if line),
    "version_strings": version_strings,
    "max_builtin_code": max_code,
    "names": names,
    "registrations": registrations,
    "registered_but_construction_failed": failed_but_registered,
    "types": types,
    "behaviours": behaviours,
    "messages": messages,
    "observations": observations,
    "allocation": allocation.probe(FAMILY),
}
with open(OUT, "w") as f:
    json.dump(facts, f, indent=1, sort_keys=True)
    f.write("\n")
