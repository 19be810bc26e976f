"""Loads PluggableDevice plugins into real TensorFlow releases, each load in a fresh process, and
writes the verdicts as JSON: the ground truth `se-abi plugin-check` is tested against.

    python3 judge.py --venvs DIR --out VERDICTS.json NAME=PATH[@VAR=VALUE] ...

DIR holds one venv per release, `tf-<release>`, each with `tensorflow-cpu==<release>` installed
(`cargo xtask se-abi-releases --venvs DIR` makes them; any venv with that layout will do). Each
plugin is loaded with TensorFlow's own `load_pluggable_device_library`, in a new interpreter,
optionally with an environment variable set. A verdict records whether the load succeeded, the
exception's class and text, or the signal that killed the process and TensorFlow's last log
line (a CHECK failure aborts the process). The plugin's directory is written `$PLUGIN_DIR` in
the texts, so that verdicts do not depend on where the plugins were.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys

RELEASES = ["2.12.1", "2.13.1", "2.14.1", "2.15.1", "2.16.2", "2.17.1", "2.18.1", "2.19.1",
            "2.20.0", "2.21.0"]
HERE = os.path.dirname(os.path.abspath(__file__))


def judge(python, path, env_var):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0")
    env.pop("RUST_HOST_PLUGIN_VERBOSE", None)
    if env_var:
        key, _, value = env_var.partition("=")
        env[key] = value
    proc = subprocess.run([python, os.path.join(HERE, "load_one.py"), path], env=env,
                          capture_output=True, text=True, timeout=600)
    plugin_dir = os.path.dirname(os.path.abspath(path))
    clean = lambda text: text.replace(plugin_dir, "$PLUGIN_DIR")
    lines = [l for l in proc.stdout.splitlines() if l.startswith("JUDGE ")]
    if proc.returncode == 0 and lines:
        verdict = json.loads(lines[-1][len("JUDGE "):])
        verdict.pop("release", None)
        if "error" in verdict:
            verdict["error"] = clean(verdict["error"])
        return verdict
    verdict = {"loaded": False}
    if proc.returncode < 0:
        verdict["signal"] = signal.Signals(-proc.returncode).name
    else:
        verdict["exit_status"] = proc.returncode
    # The fatal log line (TensorFlow's `F... file.cc:N] ...`, or a plugin's own), from after its
    # `] ` on (the time, thread and source line before it differ between runs and releases),
    # with a `Status: ...` line that follows it (2.17 on print the status on its own line).
    lines = proc.stderr.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^(F\d{4} |\S+ [\d:.]+: F )", line) and "] " in line:
            fatal = line[line.index("] ") + 2:].strip()
            if i + 1 < len(lines) and lines[i + 1].startswith("Status: "):
                fatal += " " + lines[i + 1].strip()
            verdict["fatal"] = clean(fatal)
            break
    # What the loader said, when a library the plugin loads at run time failed (the plugin's
    # own warning, before it aborts).
    undefined = [l for l in lines if "undefined symbol:" in l or "cannot open shared object" in l]
    if undefined:
        verdict["loader"] = clean(undefined[0][undefined[0].index("] ") + 2:] if "] " in undefined[0] else undefined[0])
    return verdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venvs", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--release", action="append", help="only these releases")
    parser.add_argument("plugins", nargs="+", metavar="NAME=PATH[@VAR=VALUE]")
    args = parser.parse_args()
    verdicts = {}
    for spec in args.plugins:
        name, _, rest = spec.partition("=")
        path, _, env_var = rest.partition("@")
        verdicts[name] = {"env": env_var or None, "releases": {}}
        for release in args.release or RELEASES:
            python = os.path.join(args.venvs, f"tf-{release}", "bin", "python")
            verdict = judge(python, path, env_var)
            verdicts[name]["releases"][release] = verdict
            print(f"{name} in {release}: {json.dumps(verdict)[:300]}", file=sys.stderr, flush=True)
    with open(args.out, "w") as out:
        json.dump(verdicts, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()
