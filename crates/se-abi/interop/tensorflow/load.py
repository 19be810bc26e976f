"""Loads one build of the RUST_HOST plugin into TensorFlow and checks what TensorFlow does.

    python load.py LIBRARY current|older|newer|unset

Run by run.sh, once per build, each in a fresh process: TensorFlow registers a platform once
per process. Exits 0 when TensorFlow did what it should.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import load_library

library, build = sys.argv[1], sys.argv[2]
print(f"TensorFlow {tf.__version__}, plugin {os.path.basename(library)} ({build} sizes)")

if build == "unset":
    # TensorFlow validates the plugin's struct_size and refuses 0. TF 2.21 does it inside a
    # CHECK, so the process aborts after logging TensorFlow's message; run.sh checks both.
    load_library.load_pluggable_device_library(library)
    sys.exit("FAIL: TensorFlow accepted a plugin whose SP_Platform.struct_size is 0")

load_library.load_pluggable_device_library(library)
print("ok: TensorFlow validated every struct_size and accepted the plugin")

devices = tf.config.list_physical_devices()
print("physical devices:", [(d.name, d.device_type) for d in devices])
ours = [d for d in devices if d.device_type == "RUST_HOST"]
if not ours:
    sys.exit("FAIL: RUST_HOST is not among tf.config.list_physical_devices()")
print("ok: the device type is listed")
print("device details:", tf.config.experimental.get_device_details(ours[0]))

x = tf.constant(np.arange(24, dtype=np.float32).reshape(4, 6))
with tf.device("/device:RUST_HOST:0"):
    y = tf.identity(x)
print("tf.identity ran on", y.device)
if "RUST_HOST" not in y.device:
    sys.exit("FAIL: the tensor was not placed on RUST_HOST")
back = y.numpy()
if not np.array_equal(back, x.numpy()):
    sys.exit(f"FAIL: the tensor came back different: {back}")
print("ok: a tensor copied to RUST_HOST:0 and back is equal")
