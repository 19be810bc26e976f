#!/usr/bin/env bash
# Runs models as real ones ship through `tflite-opver stamp` and checks that unmodified
# tensorflow-cpu 2.21.0 still loads and runs them. Exits 0 when all of this holds, for a model
# TF 2.21's converter wrote (float16 weights behind DEQUANTIZE, a half-pixel RESIZE_BILINEAR),
# re-stamped as wheels ship it (DEQUANTIZE v2 and RESIZE_BILINEAR v1, where TF's rules need v3):
#
#   no_metadata  no metadata vector at all (TF's UpdateMinimumRuntimeVersionForModel crashes on
#                it): `inspect` warns, `stamp` raises both codes and adds the vector, the entry
#                and its buffer.
#   no_entry     metadata without a min_runtime_version entry: `stamp` adds the entry.
#
# and tf.lite.Interpreter loads each stamped model and gives outputs bit-for-bit equal to the
# original's on the same inputs.
#
# It creates its own venv (in the Cargo target directory, reused by later runs; override with
# TFLITE_OPVER_TF_VENV=PATH, a venv with tensorflow 2.21) and builds the tool itself. Needs
# python3 with venv, and network access to PyPI on the first run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
venv="${TFLITE_OPVER_TF_VENV:-$target/tflite-opver-tensorflow-2.21.0-venv}"

if ! "$venv/bin/python" -c "import tensorflow" >/dev/null 2>&1; then
  echo "creating $venv with tensorflow-cpu==2.21.0"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check tensorflow-cpu==2.21.0
fi

(cd "$repo" && cargo build --quiet -p tflite-opver --features cli --bin tflite-opver)
tool="$target/debug/tflite-opver"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export TF_CPP_MIN_LOG_LEVEL=3

"$venv/bin/python" "$here/models.py" make "$work" 2>/dev/null
for name in no_metadata no_entry; do
  echo "=== $name"
  "$tool" inspect "$work/$name.tflite"
  "$tool" stamp "$work/$name.tflite" -o "$work/$name.stamped.tflite"
  if "$tool" inspect "$work/$name.stamped.tflite" 2>&1 >/dev/null | grep -q warning; then
    echo "FAIL: the stamped model still has warnings"
    exit 1
  fi
  "$venv/bin/python" "$here/models.py" compare "$work/$name.tflite" "$work/$name.stamped.tflite" 2>/dev/null
done
echo "=== TensorFlow 2.21 runs every stamped model with the original's outputs"
