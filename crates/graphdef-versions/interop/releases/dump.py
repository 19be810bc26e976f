"""Dumps one TensorFlow release's registered ops and version constants.

    python tf_releases_dump.py OUT_DIR

Run by `cargo xtask tf-releases` inside a venv holding that release's tensorflow-cpu wheel.
Writes OUT_DIR/ops.pb.gz (the serialized OpList of every registered op, as TF_GetAllOpList
returns it, with its OpDefs put in name order, byte for byte as TensorFlow serialized each one:
TF lists them in hash-map order, which changes from one process to the next; gzip-compressed with
a zero timestamp so that the file depends only on the ops) and
OUT_DIR/constants.json (the GraphDef and checkpoint version macros of the wheel's
tensorflow/core/public/version.h, the op count, and the sha256 of the uncompressed OpList).
"""
import gzip
import hashlib
import json
import os
import re
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"

import tensorflow as tf
from tensorflow.core.framework import op_def_pb2
from tensorflow.python.client import pywrap_tf_session as c_api

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

raw = c_api.TF_GetBuffer(c_api.TF_GetAllOpList())


def op_defs(buffer):
    """The OpList's field-1 records (one serialized OpDef each), as bytes, in file order."""
    at, records = 0, []
    while at < len(buffer):
        if buffer[at] != 0x0A:
            raise SystemExit(f"unexpected field tag {buffer[at]} in the OpList at byte {at}")
        at += 1
        length_at, length, shift = at, 0, 0
        while True:
            byte = buffer[at]
            at += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        records.append((buffer[length_at:at], buffer[at : at + length]))
        at += length
    return records


records = op_defs(raw)
named = sorted(
    ((op_def_pb2.OpDef.FromString(body).name, prefix, body) for prefix, body in records),
    key=lambda item: item[0],
)
ops = b"".join(b"\x0a" + prefix + body for _, prefix, body in named)
assert len(ops) == len(raw)
op_list = op_def_pb2.OpList.FromString(ops)

header = os.path.join(os.path.dirname(tf.__file__), "include", "tensorflow", "core", "public", "version.h")
with open(header) as f:
    macros = {
        name: int(value)
        for name, value in re.findall(
            r"#define (TF_(?:GRAPH_DEF|CHECKPOINT)_VERSION\w*)\s+(-?\d+)", f.read()
        )
    }

with open(os.path.join(out, "ops.pb.gz"), "wb") as f:
    f.write(gzip.compress(ops, compresslevel=9, mtime=0))
constants = {
    "tf_version": tf.__version__,
    "git_version": tf.version.GIT_VERSION,
    "version_h_macros": dict(sorted(macros.items())),
    "op_count": len(op_list.op),
    "deprecated_op_count": sum(1 for op in op_list.op if op.HasField("deprecation")),
    "ops_pb_bytes": len(ops),
    "ops_pb_sha256": hashlib.sha256(ops).hexdigest(),
}
with open(os.path.join(out, "constants.json"), "w") as f:
    json.dump(constants, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{tf.__version__}: {len(op_list.op)} ops, GraphDef version {macros['TF_GRAPH_DEF_VERSION']}")
