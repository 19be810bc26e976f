"""Saves the extra SavedModels with this venv's TensorFlow: `python make_saved_models.py OUT_DIR`."""
import os, sys
import tensorflow as tf

out = sys.argv[1]

class Nested(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def inner(self, x):
        return tf.raw_ops.CheckPinned(tensor=x)

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x):
        return self.inner(x) * 2.0

class NestedAllowed(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.uint64)])
    def inner(self, n):
        return tf.raw_ops.Range(start=tf.constant(0, tf.uint64), limit=n, delta=tf.constant(1, tf.uint64))

    @tf.function(input_signature=[tf.TensorSpec([], tf.uint64)])
    def __call__(self, n):
        return tf.size(self.inner(n))

class TwoProblems(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.uint64)])
    def ranged(self, n):
        return tf.raw_ops.Range(start=tf.constant(0, tf.uint64), limit=n, delta=tf.constant(1, tf.uint64))

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def pinned(self, x):
        return tf.raw_ops.CheckPinned(tensor=x)

for name, module in [("sm_nested_new_op", Nested()), ("sm_nested_allowed", NestedAllowed()),
                     ("sm_two_problems", TwoProblems())]:
    path = os.path.join(out, name)
    if name == "sm_two_problems":
        tf.saved_model.save(module, path, signatures={
            "ranged": module.ranged.get_concrete_function(),
            "pinned": module.pinned.get_concrete_function()})
    else:
        tf.saved_model.save(module, path)
print("saved")
