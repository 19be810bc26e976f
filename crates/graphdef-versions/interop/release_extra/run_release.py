"""Imports each case with this venv's TensorFlow and prints {case: {ok, error, error_class}}."""
import json, os, sys
import tensorflow as tf
from tensorflow.core.framework import graph_pb2
out = {}
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    g = graph_pb2.GraphDef.FromString(open(os.path.join(d, f), "rb").read())
    try:
        with tf.Graph().as_default():
            tf.graph_util.import_graph_def(g, name="")
        out[f] = {"ok": True, "error": None, "error_class": None}
    except Exception as e:
        out[f] = {"ok": False, "error": str(e), "error_class": type(e).__name__}
print(json.dumps({"release": tf.__version__, "verdicts": out}))
