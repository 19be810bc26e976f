#!/usr/bin/env bash
# Loads se-abi's Rust PluggableDevice plugin (examples/tf_plugin, written on se_abi::tensorflow)
# into unmodified tensorflow-cpu 2.21.0, through TensorFlow's own pluggable-device loader, and
# checks what TensorFlow does with it. Exits 0 when all of this holds:
#
#   tf-plugin        every struct at TF 2.21's size: TensorFlow validates every struct_size and
#                    accepts the plugin; RUST_HOST is in tf.config.list_physical_devices(); a
#                    tensor copied to RUST_HOST:0 (tf.identity) and back is equal.
#   tf-plugin-older  SP_Platform, SP_Device, SP_DeviceFns, SP_DeviceMemoryBase at shorter sizes
#                    (33, 32, 24, 32 bytes; the other structs end in a member TF requires):
#                    accepted and working the same; TensorFlow reads its own zeros past them.
#   tf-plugin-unset  SP_Platform.struct_size left 0: TensorFlow refuses it with its own message.
#   tf-plugin-newer  SP_Platform and SP_Device with a member appended (36 and 64 bytes), as a
#                    plugin built against a newer header: se_abi::fill reads TensorFlow's
#                    struct_size first and writes only TF's 35 and 56 bytes (the plugin's log
#                    says so); accepted and working the same.
#   plugin-check     `se-abi plugin-check --run --tensorflow` on probe plugins, one linking this
#                    TensorFlow's own library, agrees with this TensorFlow's load of each
#                    (interop/plugin_check/live.py).
#
# It creates its own venv (in the Cargo target directory, reused by later runs; override with
# SE_ABI_TF_VENV) and builds the plugin itself. Needs python3 with venv, and network access to
# PyPI on the first run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$repo/target}"
venv="${SE_ABI_TF_VENV:-$target/se-abi-tensorflow-2.21.0-venv}"

if ! "$venv/bin/python" -c "import tensorflow" >/dev/null 2>&1; then
  echo "creating $venv with tensorflow-cpu==2.21.0"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check tensorflow-cpu==2.21.0
fi

(cd "$repo" && cargo build --quiet -p se-abi \
  --example tf-plugin --example tf-plugin-older --example tf-plugin-unset \
  --example tf-plugin-newer)
lib="$target/debug/examples"
export RUST_HOST_PLUGIN_VERBOSE=1 TF_CPP_MIN_LOG_LEVEL=2

echo "=== current sizes"
"$venv/bin/python" "$here/load.py" "$lib/libtf_plugin.so" current
echo "=== older sizes"
"$venv/bin/python" "$here/load.py" "$lib/libtf_plugin_older.so" older

echo "=== newer sizes, filled into TensorFlow's shorter structs"
out="$("$venv/bin/python" "$here/load.py" "$lib/libtf_plugin_newer.so" newer 2>&1)" || {
  printf '%s\n' "$out"
  echo "FAIL: TensorFlow did not load the newer build"
  exit 1
}
printf '%s\n' "$out"
for line in "SP_Platform: the plugin's struct_size 36, written Ok(35)" \
  "SP_Device: the plugin's struct_size 64, written Ok(56)"; do
  grep -qF "RUST_HOST: $line" <<<"$out" || {
    echo "FAIL: expected the plugin to log \"$line\": se_abi::fill must stop at TensorFlow's size"
    exit 1
  }
done
echo "ok: the newer plugin wrote nothing past TensorFlow's structs"

echo "=== struct_size left unset"
# TensorFlow's words (TF_VALIDATE_STRUCT_SIZE, tensorflow/c/c_api_macros_internal.h).
expected='Expected initialized `SP_Platform` structure with `struct_size` field set to SP_PLATFORM_STRUCT_SIZE. Found `struct_size` = 0.'
set +e
out="$("$venv/bin/python" "$here/load.py" "$lib/libtf_plugin_unset.so" unset 2>&1)"
rc=$?
set -e
if [ "$rc" -ne 0 ] && grep -qF "$expected" <<<"$out"; then
  grep -F "$expected" <<<"$out" | head -n 1
  echo "ok: TensorFlow refused the plugin (exit status $rc) in its own words"
else
  printf '%s\n' "$out"
  echo "FAIL: expected TensorFlow to refuse the plugin with: $expected (exit status $rc)"
  exit 1
fi
echo "=== TensorFlow 2.21 loaded the Rust plugin as expected"

echo "=== se-abi plugin-check --run --tensorflow beside TensorFlow's own load"
# The probe plugin, and a shim that links TensorFlow's own framework library (as real plugins
# do), so that only --tensorflow lets the tool run it: each loaded into this TensorFlow, and
# checked by the tool against it, verdict and words.
(cd "$repo" && cargo build --quiet -p se-abi --features cli --bin se-abi --example tf-probe)
probes="$target/se-abi-live-probes"
rm -rf "$probes" && mkdir -p "$probes"
cp "$lib/libtf_probe.so" "$probes/"
tensorflow="$("$venv/bin/python" -c 'import os, tensorflow as tf; print(os.path.dirname(tf.__file__))' 2>/dev/null | tail -n 1)"
"${CC:-cc}" -shared -fPIC -o "$probes/libtf_probe_links_tf.so" \
  "$repo/crates/se-abi/tests/c/probe_shim.c" -DIMPORT_C -Wl,--no-as-needed \
  -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN' -L"$probes" -l:libtf_probe.so \
  -L"$tensorflow" -l:libtensorflow_framework.so.2
unset RUST_HOST_PLUGIN_VERBOSE
python3 "$repo/crates/se-abi/interop/plugin_check/live.py" --python "$venv/bin/python" \
  --se-abi "$target/debug/se-abi" \
  "links-tf=$probes/libtf_probe_links_tf.so" \
  "links-tf, status in SE_InitPlugin=$probes/libtf_probe_links_tf.so@SE_ABI_PROBE=status=SE_InitPlugin:9:PROBE: refused through TensorFlow's own TF_SetStatus" \
  "links-tf, null allocate=$probes/libtf_probe_links_tf.so@SE_ABI_PROBE=null=SP_StreamExecutor.allocate" \
  "links-tf, status in get_device_count=$probes/libtf_probe_links_tf.so@SE_ABI_PROBE=status=get_device_count:13:PROBE: no devices" \
  "probe, name lowercase=$probes/libtf_probe.so@SE_ABI_PROBE=name=probe"
echo "=== se-abi plugin-check agrees with TensorFlow 2.21 on each"
