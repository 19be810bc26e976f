import os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
out = sys.argv[1]
# 1. small: two variables
ckpt = tf.train.Checkpoint(w=tf.Variable([[1.0, 2.0], [3.0, 4.0]]), step=tf.Variable(7, dtype=tf.int64))
ckpt.write(os.path.join(out, "small", "ckpt"))
# 2. many variables: index spans several table blocks
vs = {f"layer_{i:04d}": tf.Variable(tf.zeros([2]), name=f"v{i}") for i in range(6000)}
tf.train.Checkpoint(**vs).write(os.path.join(out, "many", "ckpt"))
# 3. a string variable and a Keras model, saved with save() (numbered prefix)
m = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
c = tf.train.Checkpoint(model=m, note=tf.Variable("hello"))
p = c.save(os.path.join(out, "keras", "ckpt"))
print(p)
print(tf.__version__)
