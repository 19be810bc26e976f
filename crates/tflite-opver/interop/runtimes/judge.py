"""Constructs an interpreter from each model with one TensorFlow Lite runtime.

    python judge.py FAMILY LIST_FILE OUT_JSONL [--allocate]

Run by `verdicts.py` inside a venv holding the runtime (`tensorflow-cpu`, `tflite-runtime` or
`ai-edge-litert`). LIST_FILE names one model per line. For each, it appends to OUT_JSONL the line
`{"file", "ok", "error", "class"}`: whether `Interpreter(model_content=bytes)` (the default op
resolver, no experimental flags) succeeded, and the exception's exact text and class if not.
With `--allocate`, an interpreter constructed is then asked to `allocate_tensors()`, and the
line also holds `allocates` (null when it was not constructed), `allocate_error` and
`allocate_class` (`allocations.py`). Before each model it writes `{"file", "started": true}` and flushes, so that when a model
crashes the runtime, the caller knows which one, and starts this script again after it.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
family, listing, out = sys.argv[1:4]
allocate = sys.argv[4:] == ["--allocate"]
module = {
    "tensorflow-cpu": "tensorflow.lite.python.interpreter",
    "tflite-runtime": "tflite_runtime.interpreter",
    "ai-edge-litert": "ai_edge_litert.interpreter",
}[family]
import importlib  # noqa: E402
import warnings  # noqa: E402

warnings.simplefilter("ignore")
Interpreter = importlib.import_module(module).Interpreter

with open(listing) as f:
    files = [line.strip() for line in f if line.strip()]
with open(out, "a") as log:
    for path in files:
        log.write(json.dumps({"file": path, "started": True}) + "\n")
        log.flush()
        with open(path, "rb") as f:
            data = f.read()
        interpreter = None
        try:
            interpreter = Interpreter(model_content=data)
            result = {"file": path, "ok": True, "error": None, "class": None}
        except Exception as e:  # whatever the runtime raises
            result = {"file": path, "ok": False, "error": str(e), "class": type(e).__name__}
        if allocate:
            result.update(allocates=None, allocate_error=None, allocate_class=None)
            if interpreter is not None:
                try:
                    interpreter.allocate_tensors()
                    result["allocates"] = True
                except Exception as e:  # whatever the runtime raises
                    result.update(allocates=False, allocate_error=str(e),
                                  allocate_class=type(e).__name__)
        log.write(json.dumps(result) + "\n")
        log.flush()
