"""Loads plugins into one real TensorFlow and checks them with `se-abi plugin-check --run
--tensorflow` against that same TensorFlow, side by side: the verdict and the release's words
must be the same. CI runs it (interop/tensorflow/run.sh) with the release it installs.

    python3 live.py --python VENV/bin/python --se-abi BIN NAME=PATH[@VAR=VALUE...] ...

The plugins that link TensorFlow's own library are the point: without `--tensorflow` the tool
cannot run them; with it, its emulated host loads that TensorFlow's libraries and the plugin
reports through TensorFlow's own `TF_SetStatus`.
"""
import argparse
import json
import os
import subprocess
import sys

import judge


def ours(se_abi, python, path, env_vars, release):
    tensorflow = os.path.join(judge.site_packages(python), "tensorflow")
    env = judge.environment(env_vars)
    out = subprocess.run([se_abi, "plugin-check", "--json", "--run", "--tensorflow", tensorflow,
                          "--release", release, path], env=env, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit(f"se-abi failed ({out.returncode}): {out.stderr}")
    return json.loads(out.stdout)["releases"][0]


def disagreement(mine, real, plugin_dir):
    """As tests/se_abi/probes.rs's `disagreement`: None when they agree."""
    if real.get("loaded"):
        if mine["loads"] is not True:
            return f"TensorFlow loads it; se-abi says {mine}"
        kind = (mine.get("devices") or {}).get("device_type")
        if kind:
            listed = sum(f":{kind}:" in d for d in real.get("devices", []))
            if listed != max(mine["devices"]["count"], 0):
                return f"TensorFlow lists {listed} {kind} devices; se-abi {mine['devices']}"
        return None
    if mine["loads"] is not False:
        return f"TensorFlow refuses it ({real}); se-abi says {mine}"
    first = mine["refusals"][0]
    message = first["message"].replace(plugin_dir, "$PLUGIN_DIR")
    if "error" in real:
        if first["exception"] != real["error_class"] or message != real["error"]:
            return f"TensorFlow raises {real['error']!r}; se-abi says {message!r}"
        return None
    if first["signal"] != real.get("signal"):
        return f"TensorFlow is killed by {real.get('signal')}; se-abi says {first}"
    if "fatal" in real and message != real["fatal"]:
        return f"TensorFlow aborts with {real['fatal']!r}; se-abi says {message!r}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True)
    parser.add_argument("--se-abi", required=True)
    parser.add_argument("plugins", nargs="+", metavar="NAME=PATH[@VAR=VALUE...]")
    args = parser.parse_args()
    release = subprocess.run([args.python, "-c", "import tensorflow as tf; print(tf.__version__)"],
                             capture_output=True, text=True,
                             env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")).stdout.split()[-1]
    failures = 0
    for spec in args.plugins:
        name, path, env = judge.parse_spec(spec)
        real = judge.judge(args.python, path, env)
        mine = ours(args.se_abi, args.python, path, env, release)
        why = disagreement(mine, real, os.path.dirname(os.path.abspath(path)))
        print(f"{name} in {release}: {'agree' if why is None else 'DISAGREE: ' + why}")
        failures += why is not None
    if failures:
        sys.exit(f"{failures} disagreement(s)")


if __name__ == "__main__":
    main()
