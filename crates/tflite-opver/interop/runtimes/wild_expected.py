"""What TFLite's own C++ says of the real third-party models (`tests/data/runtimes/wild/`).

    VENV/bin/python crates/tflite-opver/interop/runtimes/wild_expected.py

Run in a venv with `tensorflow-cpu==2.21.0` (for example the `tf-2.21.0` one `verdicts.py`
uses). It calls `tflite::UpdateOpVersion(uint8_t*)` and
`tflite::UpdateMinimumRuntimeVersionForModel(uint8_t*)` through `ctypes` in the wheel's
`tensorflow/libtensorflow_cc.so.2`, and writes `tests/data/runtimes/wild_expected.json`: per
model (its path under `runtimes/`),

- `stored`: the version each operator code carries as shipped, and `version_absent`: the codes
  whose `version` field is absent from the buffer (FlatBuffers omit a field holding its
  default, 1);
- `update_op_version`: the versions after `UpdateOpVersion` on the model as shipped. It only
  raises a version, and only in place: a code whose `version` field is absent cannot be raised
  (`mutate_version` fails, and TF logs "Can't set operator ... to version ...");
- `update_op_version_present`: the same on a copy rebuilt with every field written (the
  FlatBuffer object API with forced defaults), where every raise succeeds: the crate's
  `StampMode::Raise`, which adds a missing field;
- `op_version_cc`: the versions after `UpdateOpVersion` on that copy with every version set to
  1 in place: what the operators need (the crate's `required_versions`);
- `metadata`: `none` (no metadata vector), `no_entry` (metadata without `min_runtime_version`)
  or `entry`, as shipped; `stored_min_runtime_version`: its text up to the first NUL, or null;
- `umr_as_shipped`: what `UpdateMinimumRuntimeVersionForModel` does to the model as shipped
  after `UpdateOpVersion`: `crashes` (run in a child process: it reads the missing metadata
  vector), `no_entry` (it writes nothing) or the text it writes;
- `min_runtime_version`: the text it writes after `UpdateOpVersion` on the model as shipped
  (`as_shipped`), on the copy with every field written (`raised`) and on its all-ones copy
  (`required`); for a model without the entry, each judged with a 16-byte
  `min_runtime_version` entry added (an object API rebuild that keeps the operator codes and
  the operators, and omits the same default fields as the original).
"""
import ctypes
import glob
import json
import os
import struct
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

HERE = os.path.dirname(os.path.abspath(__file__))
CRATE = os.path.normpath(os.path.join(HERE, "..", ".."))
RUNTIMES = os.path.join(CRATE, "tests", "data", "runtimes")
ENTRY = "min_runtime_version"


def library():
    import tensorflow as tf

    lib = ctypes.CDLL(os.path.join(os.path.dirname(tf.__file__), "libtensorflow_cc.so.2"))
    update = lib._ZN6tflite15UpdateOpVersionEPh
    minimum = lib._ZN6tflite35UpdateMinimumRuntimeVersionForModelEPh
    for fn in (update, minimum):
        fn.restype = None
        fn.argtypes = [ctypes.c_void_p]
    return update, minimum


def call(fn, data):
    """Runs `fn` on a mutable copy of `data`; returns the bytes after."""
    buf = bytearray(data)
    cbuf = (ctypes.c_char * len(buf)).from_buffer(buf)
    fn(ctypes.addressof(cbuf))
    del cbuf
    return bytes(buf)


def schema():
    from tensorflow.lite.python import schema_py_generated

    return schema_py_generated


def versions(data):
    model = schema().Model.GetRootAsModel(data, 0)
    return [model.OperatorCodes(i).Version() for i in range(model.OperatorCodesLength())]


def metadata(data):
    """(`none` | `no_entry` | `entry`, the entry's text up to the first NUL or None)."""
    model = schema().Model.GetRootAsModel(data, 0)
    # Model.metadata is field 6 (vtable offset 4 + 2 * 6): 0 when there is no vector at all.
    if model._tab.Offset(16) == 0:
        return "none", None
    for i in range(model.MetadataLength()):
        entry = model.Metadata(i)
        if entry.Name() == ENTRY.encode():
            raw = model.Buffers(entry.Buffer()).DataAsNumpy()
            raw = bytes(raw) if not isinstance(raw, int) else b""
            return "entry", raw.split(b"\0")[0].decode()
    return "no_entry", None


def all_ones(data):
    """`data` with every stored operator code version set to 1, in place."""
    buf = bytearray(data)
    model = schema().Model.GetRootAsModel(buf, 0)
    for i in range(model.OperatorCodesLength()):
        code = model.OperatorCodes(i)
        field = code._tab.Offset(8)  # OperatorCode.version: field 2
        if field:
            struct.pack_into("<i", buf, code._tab.Pos + field, 1)
    return bytes(buf)


def rebuild(data, entry, force_defaults):
    """`data` rebuilt with the FlatBuffer object API: given a 16-byte min_runtime_version
    entry when `entry`, and with every field written when `force_defaults`."""
    import flatbuffers

    S = schema()
    from tensorflow.lite.tools import flatbuffer_utils

    model = flatbuffer_utils.convert_bytearray_to_object(bytearray(data))
    if entry:
        buffer = S.BufferT()
        buffer.data = [0] * 16
        model.buffers.append(buffer)
        metadata = S.MetadataT()
        metadata.name = ENTRY
        metadata.buffer = len(model.buffers) - 1
        model.metadata = (model.metadata or []) + [metadata]
    builder = flatbuffers.Builder(1024)
    builder.ForceDefaults(force_defaults)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    rebuilt = bytes(builder.Output())
    assert versions(rebuilt) == versions(data)
    return rebuilt


def absent_versions(data):
    model = schema().Model.GetRootAsModel(data, 0)
    return [i for i in range(model.OperatorCodesLength())
            if model.OperatorCodes(i)._tab.Offset(8) == 0]


def child(path):
    """UpdateOpVersion then UpdateMinimumRuntimeVersionForModel on the model as shipped."""
    update, minimum = library()
    with open(path, "rb") as f:
        data = f.read()
    after = call(minimum, call(update, data))
    print(json.dumps(metadata(after)[1]))


def main():
    update, minimum = library()
    expected = {}
    files = sorted(glob.glob(os.path.join(RUNTIMES, "wild", "**", "*.tflite"), recursive=True))
    for path in files:
        key = os.path.relpath(path, RUNTIMES)
        with open(path, "rb") as f:
            data = f.read()
        kind, stored_text = metadata(data)
        done = subprocess.run([sys.executable, __file__, "--child", path], capture_output=True,
                              text=True)
        if done.returncode < 0:
            umr_as_shipped = "crashes"
        elif done.returncode == 0:
            text = json.loads(done.stdout.strip().splitlines()[-1])
            umr_as_shipped = "no_entry" if text is None else text
        else:
            sys.exit(f"{key}: the child failed: {done.stderr}")
        shipped = data if kind == "entry" else rebuild(data, True, False)
        assert absent_versions(shipped) == absent_versions(data), key
        present = rebuild(data, kind != "entry", True)
        assert absent_versions(present) == [], key
        as_shipped = call(update, shipped)
        raised = call(update, present)
        required = call(update, all_ones(present))
        expected[key] = {
            "stored": versions(data),
            "version_absent": absent_versions(data),
            "update_op_version": versions(as_shipped),
            "update_op_version_present": versions(raised),
            "op_version_cc": versions(required),
            "metadata": kind,
            "stored_min_runtime_version": stored_text,
            "umr_as_shipped": umr_as_shipped,
            "min_runtime_version": {
                "as_shipped": metadata(call(minimum, as_shipped))[1],
                "raised": metadata(call(minimum, raised))[1],
                "required": metadata(call(minimum, required))[1],
            },
        }
        print(key, expected[key], flush=True)
    out = os.path.join(RUNTIMES, "wild_expected.json")
    with open(out, "w") as f:
        f.write("{\n")
        f.write(",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in expected.items()))
        f.write("\n}\n")
    print(f"{len(expected)} models -> {os.path.relpath(out)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()
