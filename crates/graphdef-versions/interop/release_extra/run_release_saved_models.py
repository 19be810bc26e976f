"""Loads each SavedModel with this venv's TensorFlow; prints {case: {ok, error, error_class}}."""
import json, os, sys
import tensorflow as tf
out = {}
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    try:
        tf.saved_model.load(os.path.join(d, f))
        out[f] = {"ok": True, "error": None, "error_class": None}
    except Exception as e:
        out[f] = {"ok": False, "error": str(e), "error_class": type(e).__name__}
print(json.dumps({"release": tf.__version__, "verdicts": out}))
