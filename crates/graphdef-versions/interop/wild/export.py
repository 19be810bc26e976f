#!/usr/bin/env python3
"""Makes the `export_*` cases: third-party model code saved here by one of the ten releases.

These are not files found in the wild: they are made on this project's machine, by calling the
model code that TensorFlow, Keras and TensorFlow Estimator ship (nothing of the model is written
here) and saving it with the call that release's users make. They bring every release files that
another release wrote: a SavedModel of 2.21's Keras 3 for 2.12 to load, an Estimator export of
2.12 for 2.21.

Each recipe runs in the venv of the release that saves it (`DIR/tf-<R>`, as judge.py uses; none
is changed), or, for the recipes that use tf-keras (Keras 2 for TF 2.16 on), in a venv
`tf-keras-<R>` holding tensorflow-cpu==R and tf-keras==<major.minor>.0. Weights are random (no weights can be downloaded here) from a fixed seed; training,
where a recipe trains, is one step on a small random batch, so that the optimizer has state.

Usage:
  python3 export.py --venvs DIR --tf-keras-venvs DIR2 --out DIR      # every recipe
  python3 export.py --venvs DIR --out DIR --only export_mobilenet_model_export_2.21.0
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- inside a release's venv
# Each function builds third-party model code and saves it to `out` with the call named.

def mobilenet(keras):
    """keras.applications.MobileNet (v1), the smallest configuration: alpha 0.25, 32x32 input,
    no top, average pooling, random weights (weights=None)."""
    return keras.applications.MobileNet(input_shape=(32, 32, 3), alpha=0.25, include_top=False,
                                        pooling="avg", weights=None)


def mobilenet_model_save(out):
    import keras  # Keras 2 (2.12 to 2.15): a folder path saves the Keras SavedModel format
    mobilenet(keras).save(out)


def mobilenet_tf_saved_model_save(out):
    import keras
    import tensorflow as tf
    tf.saved_model.save(mobilenet(keras), out)


def mobilenet_model_export(out):
    import keras  # Keras 3 (2.16 on): model.export writes an inference-only SavedModel
    mobilenet(keras).export(out)


def _one_step(model, x, y):
    import numpy as np
    model.fit(np.asarray(x, "float32"), np.asarray(y, "float32"), epochs=1, batch_size=len(x), verbose=0)


def linear_model_legacy_adam_model_save(out):
    """tf.keras.experimental.LinearModel compiled with the legacy Adam (slot variables), one
    training step, saved with model.save (Keras 2)."""
    import numpy as np
    import tensorflow as tf
    model = tf.keras.experimental.LinearModel(units=1)
    model.compile(optimizer=tf.keras.optimizers.legacy.Adam(), loss="mse")
    rng = np.random.default_rng(0)
    _one_step(model, rng.random((8, 4)), rng.random((8, 1)))
    model.save(out)


def wide_deep_adam_model_save(out):
    """tf.keras.experimental.WideDeepModel (a LinearModel and a small Sequential) compiled with
    one Adam (the optimizer of Keras 2.11 on) for both parts, one training step, saved with
    model.save (Keras 2; a list of two optimizers cannot be saved)."""
    import numpy as np
    import tensorflow as tf
    linear = tf.keras.experimental.LinearModel(units=1)
    dnn = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(1)])
    model = tf.keras.experimental.WideDeepModel(linear, dnn)
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(0)
    x = rng.random((8, 4)).astype("float32")
    model.fit([x, x], rng.random((8, 1)).astype("float32"), epochs=1, batch_size=8, verbose=0)
    model.save(out)


def _estimator_export(estimator, out, receiver):
    """Trains a canned Estimator one step on a random batch and exports it (TF1 SavedModel written
    by tf.compat.v1.saved_model.Builder inside export_saved_model)."""
    import glob
    import shutil
    import tempfile
    import numpy as np
    import tensorflow as tf
    rng = np.random.default_rng(0)

    def input_fn():
        features = {"x": rng.random((16, 3)).astype("float32")}
        labels = (rng.random((16, 1)) > 0.5).astype("int64")
        return tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)

    estimator.train(input_fn, steps=1)
    with tempfile.TemporaryDirectory() as tmp:
        estimator.export_saved_model(tmp, receiver)
        (made,) = glob.glob(os.path.join(tmp, "*"))
        shutil.copytree(made, out)


def _feature():
    import tensorflow as tf
    return [tf.feature_column.numeric_column("x", shape=(3,))]


def _parsing_receiver():
    import tensorflow as tf
    spec = tf.feature_column.make_parse_example_spec(_feature())
    return tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)


def _raw_receiver():
    import tensorflow as tf

    def receiver():  # a float placeholder fed as it is (what build_raw_serving_input_receiver_fn makes)
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})
    return receiver


def estimator_linear_classifier_parsing(out, model_dir):
    import tensorflow as tf
    _estimator_export(tf.estimator.LinearClassifier(_feature(), model_dir=model_dir), out, _parsing_receiver())


def estimator_dnn_classifier_raw(out, model_dir):
    import tensorflow as tf
    # an optimizer object: the default's name goes through inspect.getargspec, gone from Python 3.11
    optimizer = tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05)
    estimator = tf.estimator.DNNClassifier([4], _feature(), model_dir=model_dir, optimizer=optimizer)
    _estimator_export(estimator, out, _raw_receiver())


def estimator_dnn_linear_combined_classifier_parsing(out, model_dir):
    import tensorflow as tf
    estimator = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=_feature(), dnn_feature_columns=_feature(), dnn_hidden_units=[4],
        linear_optimizer=tf.keras.optimizers.legacy.Ftrl(learning_rate=0.05),
        dnn_optimizer=tf.keras.optimizers.legacy.Adagrad(learning_rate=0.05), model_dir=model_dir)
    _estimator_export(estimator, out, _parsing_receiver())


def estimator_linear_regressor_parsing(out, model_dir):
    import tensorflow as tf
    _estimator_export(tf.estimator.LinearRegressor(_feature(), model_dir=model_dir), out, _parsing_receiver())


def tf_keras_linear_model_legacy_adam_model_save(out):
    """tf_keras (Keras 2 as a package of its own, for TF 2.16 on): the LinearModel recipe above."""
    import numpy as np
    import tf_keras
    model = tf_keras.experimental.LinearModel(units=1)
    model.compile(optimizer=tf_keras.optimizers.legacy.Adam(), loss="mse")
    rng = np.random.default_rng(0)
    _one_step(model, rng.random((8, 4)), rng.random((8, 1)))
    model.save(out)


def tf_keras_wide_deep_adam_model_save(out):
    """tf_keras: the WideDeepModel recipe above."""
    import numpy as np
    import tf_keras
    linear = tf_keras.experimental.LinearModel(units=1)
    dnn = tf_keras.Sequential([tf_keras.layers.Dense(8, activation="relu"), tf_keras.layers.Dense(1)])
    model = tf_keras.experimental.WideDeepModel(linear, dnn)
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(0)
    x = rng.random((8, 4)).astype("float32")
    model.fit([x, x], rng.random((8, 1)).astype("float32"), epochs=1, batch_size=8, verbose=0)
    model.save(out)


def simple_save_linear_model(out, keras):
    """TF1 style: the Keras 2 LinearModel built in a tf.compat.v1 graph, its variables initialized
    in a session, written with tf.compat.v1.saved_model.simple_save (a saver, no object graph)."""
    import tensorflow as tf
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
        y = keras.experimental.LinearModel(units=1)(x)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            tf.compat.v1.saved_model.simple_save(sess, out, inputs={"x": x}, outputs={"y": y})


def simple_save_linear_model_keras2(out):
    import tensorflow as tf
    simple_save_linear_model(out, tf.keras)


def simple_save_linear_model_tf_keras(out):
    import tf_keras
    simple_save_linear_model(out, tf_keras)


# case name -> (release that saves it, recipe, what the README says of it[, venv folder])
# The venv is DIR/tf-<R> (tensorflow-cpu==R) unless named: tf-keras-<R> is tensorflow-cpu==R with
# tf-keras==<major.minor>.0 beside it.
RECIPES = {
    "export_mobilenet_model_save_2.12.1": ("2.12.1", mobilenet_model_save,
        "keras.applications.MobileNet (alpha 0.25, 32x32, no top, random weights) saved by TF 2.12.1 / Keras 2.12 with model.save(dir)"),
    "export_mobilenet_tf_saved_model_save_2.14.1": ("2.14.1", mobilenet_tf_saved_model_save,
        "the same MobileNet saved by TF 2.14.1 / Keras 2.14 with tf.saved_model.save(model, dir)"),
    "export_mobilenet_model_export_2.16.2": ("2.16.2", mobilenet_model_export,
        "the same MobileNet saved by TF 2.16.2 / Keras 3 with model.export(dir)"),
    "export_mobilenet_tf_saved_model_save_2.18.1": ("2.18.1", mobilenet_tf_saved_model_save,
        "the same MobileNet saved by TF 2.18.1 / Keras 3 with tf.saved_model.save(model, dir)"),
    "export_mobilenet_model_export_2.20.0": ("2.20.0", mobilenet_model_export,
        "the same MobileNet saved by TF 2.20.0 / Keras 3 with model.export(dir)"),
    "export_mobilenet_model_export_2.21.0": ("2.21.0", mobilenet_model_export,
        "the same MobileNet saved by TF 2.21.0 / Keras 3 with model.export(dir)"),
    "export_linear_model_legacy_adam_2.12.1": ("2.12.1", linear_model_legacy_adam_model_save,
        "tf.keras.experimental.LinearModel, legacy Adam, one training step, saved by TF 2.12.1 / Keras 2.12 with model.save(dir)"),
    "export_linear_model_legacy_adam_2.15.1": ("2.15.1", linear_model_legacy_adam_model_save,
        "the same LinearModel saved by TF 2.15.1 / Keras 2.15 with model.save(dir)"),
    "export_wide_deep_adam_2.13.1": ("2.13.1", wide_deep_adam_model_save,
        "tf.keras.experimental.WideDeepModel, Adam (Keras 2.11+ optimizer), one training step, saved by TF 2.13.1 / Keras 2.13 with model.save(dir)"),
    "export_estimator_linear_classifier_2.12.1": ("2.12.1", estimator_linear_classifier_parsing,
        "tf.estimator.LinearClassifier, one training step, exported by TF 2.12.1 with export_saved_model and a parsing serving receiver (tf.Example input)"),
    "export_estimator_dnn_classifier_2.13.1": ("2.13.1", estimator_dnn_classifier_raw,
        "tf.estimator.DNNClassifier, one training step, exported by TF 2.13.1 with export_saved_model and a raw serving receiver (a float placeholder)"),
    "export_estimator_dnn_linear_combined_2.14.1": ("2.14.1", estimator_dnn_linear_combined_classifier_parsing,
        "tf.estimator.DNNLinearCombinedClassifier (wide and deep), one training step, exported by TF 2.14.1 with export_saved_model and a parsing serving receiver"),
    "export_estimator_linear_regressor_2.15.1": ("2.15.1", estimator_linear_regressor_parsing,
        "tf.estimator.LinearRegressor, one training step, exported by TF 2.15.1 with export_saved_model and a parsing serving receiver"),
    "export_tf_keras_linear_model_legacy_adam_2.17.1": ("2.17.1", tf_keras_linear_model_legacy_adam_model_save,
        "tf_keras.experimental.LinearModel, legacy Adam, one training step, saved by TF 2.17.1 with tf-keras 2.17.0's model.save(dir)",
        "tf-keras-2.17.1"),
    "export_tf_keras_wide_deep_adam_2.19.1": ("2.19.1", tf_keras_wide_deep_adam_model_save,
        "tf_keras.experimental.WideDeepModel, Adam, one training step, saved by TF 2.19.1 with tf-keras 2.19.0's model.save(dir)",
        "tf-keras-2.19.1"),
    "export_tf1_simple_save_linear_model_2.12.1": ("2.12.1", simple_save_linear_model_keras2,
        "TF1 style: tf.keras.experimental.LinearModel in a tf.compat.v1 graph, written by TF 2.12.1 with tf.compat.v1.saved_model.simple_save"),
    "export_tf1_simple_save_linear_model_2.19.1": ("2.19.1", simple_save_linear_model_tf_keras,
        "TF1 style: tf_keras.experimental.LinearModel in a tf.compat.v1 graph, written by TF 2.19.1 (tf-keras 2.19.0) with tf.compat.v1.saved_model.simple_save",
        "tf-keras-2.19.1"),
}


def venv_of(name):
    recipe = RECIPES[name]
    return recipe[3] if len(recipe) > 3 else f"tf-{recipe[0]}"


def run_recipe(name, out):
    import tempfile
    import tensorflow as tf
    release, recipe = RECIPES[name][:2]
    if tf.__version__ != release:
        sys.exit(f"{name} is saved by {release}, this venv has {tf.__version__}")
    tf.keras.utils.set_random_seed(0)
    if recipe.__name__.startswith("estimator_"):
        with tempfile.TemporaryDirectory() as model_dir:
            recipe(out, model_dir)
    else:
        recipe(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--venvs", help="folder of the tf-<R> venvs")
    p.add_argument("--out", required=True, help="folder to write the cases into (each must not exist yet)")
    p.add_argument("--tf-keras-venvs", help="folder of the tf-keras-<R> venvs (default: --venvs)")
    p.add_argument("--only", nargs="+", help="make only these cases")
    p.add_argument("--recipe", help=argparse.SUPPRESS)  # internal: runs in the release's venv
    args = p.parse_args()
    if args.recipe:
        return run_recipe(args.recipe, os.path.join(args.out, args.recipe))
    if not args.venvs:
        p.error("--venvs DIR is needed")
    args.tf_keras_venvs = args.tf_keras_venvs or args.venvs
    for name in args.only or RECIPES:
        release = RECIPES[name][0]
        venvs = args.tf_keras_venvs if venv_of(name).startswith("tf-keras-") else args.venvs
        python = os.path.join(venvs, venv_of(name), "bin", "python")
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="")
        print(f"{name} ({release})", file=sys.stderr, flush=True)
        subprocess.run([python, os.path.abspath(__file__), "--out", os.path.abspath(args.out), "--recipe", name],
                       check=True, env=env)


if __name__ == "__main__":
    main()
