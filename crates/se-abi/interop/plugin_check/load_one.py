"""Loads one PluggableDevice plugin into the TensorFlow of this interpreter, once, and prints
what happened as one JSON line on stdout, after the physical devices TensorFlow then lists. Run
by judge.py, in a fresh process per load.

    python load_one.py PLUGIN.so
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import load_library  # noqa: E402

result = {"release": tf.__version__}
try:
    load_library.load_pluggable_device_library(sys.argv[1])
    result["loaded"] = True
    result["devices"] = [d.name for d in tf.config.list_physical_devices()]
except Exception as error:  # what TensorFlow raises is the verdict
    result.update(loaded=False, error_class=type(error).__name__, error=str(error))
print("JUDGE " + json.dumps(result), flush=True)
