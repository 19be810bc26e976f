"""Loads PluggableDevice plugins into real TensorFlow releases, each load in a fresh process, and
writes the verdicts as JSON: the ground truth `se-abi plugin-check` is tested against.

    python3 judge.py --venvs DIR --out VERDICTS.json NAME=PATH[@VAR=VALUE] ...

DIR holds one venv per release, `tf-<release>`, each with `tensorflow-cpu==<release>` installed
(`cargo xtask se-abi-releases --venvs DIR` makes them; any venv with that layout will do). Each
plugin is loaded with TensorFlow's own `load_pluggable_device_library`, in a new interpreter,
optionally with environment variables set (`@VAR=VALUE`, several joined with `@`). A verdict
records whether the load succeeded and the devices TensorFlow then lists, or the exception's
class and text, or the signal that killed the process with TensorFlow's fatal log line (a CHECK
failure aborts the process), or that it did not end within the time limit.

Texts are normalised only where they depend on the machine: the plugin's directory is written
`$PLUGIN_DIR`, the venv's `site-packages/` is removed (TensorFlow's libraries read
`tensorflow/...`), and a fatal line is taken from after its `] ` (the time, thread, source file
and line before it differ between runs and releases), with the `Status: ...` line 2.17 to 2.20
print after it joined by a newline, as printed.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

RELEASES = ["2.12.1", "2.13.1", "2.14.1", "2.15.1", "2.16.2", "2.17.1", "2.18.1", "2.19.1",
            "2.20.0", "2.21.0"]
HERE = os.path.dirname(os.path.abspath(__file__))
FATAL = re.compile(r"^(F\d{4} |\S+ [\d:.]+: F )")


def site_packages(python):
    """The site-packages folder of the venv whose interpreter is `python`."""
    venv = os.path.dirname(os.path.dirname(python))
    found = glob.glob(os.path.join(venv, "lib", "python*", "site-packages"))
    return found[0] if found else None


def environment(env_vars):
    """This process's environment, without the plugins' own variables, and with `env_vars`
    (`VAR=VALUE` each) set."""
    env = dict(os.environ)
    env.pop("RUST_HOST_PLUGIN_VERBOSE", None)
    env.pop("SE_ABI_PROBE", None)
    for assignment in env_vars:
        key, _, value = assignment.partition("=")
        env[key] = value
    return env


def judge(python, path, env_vars=(), timeout=120):
    """Loads `path` once into the TensorFlow of `python`; returns the verdict."""
    env = dict(environment(env_vars), TF_CPP_MIN_LOG_LEVEL="0")
    plugin_dir = os.path.dirname(os.path.abspath(path))
    packages = site_packages(python)

    def clean(text):
        text = text.replace(plugin_dir, "$PLUGIN_DIR")
        if packages:
            text = text.replace(packages + os.sep, "")
        return text

    # Files, not pipes: a plugin that forks leaves a child holding the process's outputs, and a
    # pipe would not end until that child does.
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([python, os.path.join(HERE, "load_one.py"), path], env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True)
        try:
            returncode = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return {"loaded": False, "timeout": timeout}
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # what the plugin forked
            except ProcessLookupError:
                pass
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    lines = [l for l in stdout.splitlines() if l.startswith("JUDGE ")]
    if returncode == 0 and lines:
        verdict = json.loads(lines[-1][len("JUDGE "):])
        verdict.pop("release", None)
        if "error" in verdict:
            verdict["error"] = clean(verdict["error"])
        return verdict
    verdict = {"loaded": False}
    if returncode < 0:
        verdict["signal"] = signal.Signals(-returncode).name
    else:
        verdict["exit_status"] = returncode
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if FATAL.match(line) and "] " in line:
            fatal = line[line.index("] ") + 2:].rstrip()
            if i + 1 < len(lines) and lines[i + 1].startswith("Status: "):
                fatal += "\n" + lines[i + 1].rstrip()
            verdict["fatal"] = clean(fatal)
            break
    # What the loader said, when a library the plugin loads at run time failed (the plugin's
    # own warning, before it aborts).
    undefined = [l for l in lines if "undefined symbol:" in l or "cannot open shared object" in l]
    if undefined:
        first = undefined[0]
        verdict["loader"] = clean(first[first.index("] ") + 2:] if "] " in first else first)
    return verdict


def judge_all(venvs, plugins, releases, workers=2, timeout=120):
    """`plugins`: (name, path, env_vars). Returns {name: {"env": ..., "releases": {...}}}."""
    verdicts = {name: {"env": "@".join(env) or None, "releases": {}} for name, _, env in plugins}
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        for name, path, env in plugins:
            for release in releases:
                python = os.path.join(venvs, f"tf-{release}", "bin", "python")
                jobs[pool.submit(judge, python, path, env, timeout)] = (name, release)
        for job in concurrent.futures.as_completed(jobs):
            name, release = jobs[job]
            verdict = job.result()
            verdicts[name]["releases"][release] = verdict
            print(f"{name} in {release}: {json.dumps(verdict)[:240]}", file=sys.stderr, flush=True)
    for entry in verdicts.values():
        entry["releases"] = dict(sorted(entry["releases"].items()))
    return verdicts


def parse_spec(spec):
    """`NAME=PATH[@VAR=VALUE...]` as `(name, path, ["VAR=VALUE", ...])`."""
    name, _, rest = spec.partition("=")
    path, *env = re.split(r"@(?=[A-Z_][A-Z0-9_]*=)", rest)
    return name, path, env


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venvs", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--release", action="append", help="only these releases")
    parser.add_argument("plugins", nargs="+", metavar="NAME=PATH[@VAR=VALUE]")
    args = parser.parse_args()
    plugins = []
    for spec in args.plugins:
        plugins.append(parse_spec(spec))
    verdicts = judge_all(args.venvs, plugins, args.release or RELEASES)
    with open(args.out, "w") as out:
        json.dump(verdicts, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()
