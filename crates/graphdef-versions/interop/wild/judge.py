#!/usr/bin/env python3
"""Judges the wild cases with real TensorFlow releases and writes what each release said.

For every case of `cases.json` and every release, in that release's own venv:
  - a GraphDef: `GraphDef.FromString(bytes)`, then `tf.graph_util.import_graph_def(gd, name="")`
    in a fresh `tf.Graph()`;
  - a SavedModel: `tf.saved_model.load(dir)`, and, as its `import_graph_def` entry, the same
    import of `meta_graphs[0].graph_def` of its `saved_model.pb`.
Each load runs in a process of its own with a timeout. By default a worker in the release's venv
imports TensorFlow once and forks a child for each load: the child starts from a process that has
loaded nothing (no graph, no function, no eager context made). `--fresh-interpreter` starts a new
Python for each load instead (about ten times slower; the verdicts are the same).

Loads run with the cases' folder as the working directory and the case's name as the path, so
messages that name a path name `<case>/variables/variables`, whatever the checkout.

The verdicts have the shape of `tests/data/release_cases/release_verdicts.json`:
  {case: {release: {"ok", "error", "error_class"[, "import_graph_def": {...}]}}}
with `error` being `str(e)` exactly and `error_class` `type(e).__name__`. A load whose process
died without an answer is recorded with `ok` false, `error_class` "Crash" (killed by a signal,
such as a segfault or an abort, or exited without writing its answer) or "Timeout", `error` saying
what happened, and `crash` holding the signal or exit status and the end of its stderr.

Usage:
  python3 judge.py --venvs DIR                    # the kept cases (cases/), every release
  python3 judge.py --venvs DIR --set external --root DIR   # the external cases (not kept here)
  python3 judge.py --venvs DIR --releases 2.12.1 2.21.0 --only basic_pitch_nmp
  python3 judge.py --venvs DIR --describe         # fill the fields read from each file
A release whose venv `DIR/tf-<R>` is missing gets one: `python3 -m venv`, then
`pip install tensorflow-cpu==<R>`. Venvs that exist are only read.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The data this script reads and writes: the crate's tests/data/wild/.
DATA = os.path.join(HERE, "..", "..", "tests", "data", "wild")
RELEASES = ["2.12.1", "2.13.1", "2.14.1", "2.15.1", "2.16.2",
            "2.17.1", "2.18.1", "2.19.1", "2.20.0", "2.21.0"]
STDERR_TAIL = 2000


# ---------------------------------------------------------------- inside a release's venv

def load_once(kind, path, how):
    """One load, as the module docstring says; returns the verdict."""
    import tensorflow as tf
    try:
        if how == "import_graph_def":
            if kind == "graph_def":
                from tensorflow.core.framework import graph_pb2
                with open(path, "rb") as f:
                    graph = graph_pb2.GraphDef.FromString(f.read())
            else:
                from tensorflow.core.protobuf import saved_model_pb2
                with open(os.path.join(path, "saved_model.pb"), "rb") as f:
                    graph = saved_model_pb2.SavedModel.FromString(f.read()).meta_graphs[0].graph_def
            with tf.Graph().as_default():
                tf.graph_util.import_graph_def(graph, name="")
        else:
            tf.saved_model.load(path)
        return {"ok": True, "error": None, "error_class": None}
    except Exception as e:  # every refusal is recorded, whatever its class
        return {"ok": False, "error": str(e), "error_class": type(e).__name__}


def stderr_tail(path):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - STDERR_TAIL))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def died(status, timed_out, err_path, timeout):
    """The verdict of a load whose process gave no answer."""
    tail = stderr_tail(err_path)
    if timed_out:
        return {"ok": False, "error": f"the load did not finish in {timeout} s",
                "error_class": "Timeout", "crash": {"timeout_s": timeout, "stderr": tail}}
    if status < 0:
        name = signal.Signals(-status).name
        return {"ok": False, "error": f"the process was killed by {name}",
                "error_class": "Crash", "crash": {"signal": name, "stderr": tail}}
    return {"ok": False, "error": f"the process exited with status {status} without an answer",
            "error_class": "Crash", "crash": {"exit_status": status, "stderr": tail}}


def wait(pid, deadline):
    """Waits for pid until deadline; returns (status as subprocess gives it, timed out)."""
    while True:
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done:
            return (-os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else os.WEXITSTATUS(raw)), False
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None, True
        time.sleep(0.02)


def load_forked(kind, path, how, timeout):
    with tempfile.TemporaryDirectory() as tmp:
        out, err = os.path.join(tmp, "verdict.json"), os.path.join(tmp, "stderr")
        pid = os.fork()
        if pid == 0:  # the child: one load, its answer in a file, then out without cleanup
            try:
                fd = os.open(err, os.O_WRONLY | os.O_CREAT, 0o600)
                os.dup2(fd, 2)
                verdict = load_once(kind, path, how)
                with open(out, "w") as f:
                    json.dump(verdict, f)
            finally:
                os._exit(0)
        status, timed_out = wait(pid, time.monotonic() + timeout)
        if not timed_out and os.path.exists(out):
            with open(out) as f:
                return json.load(f)
        return died(status, timed_out, err, timeout)


def load_fresh(kind, path, how, timeout):
    with tempfile.TemporaryDirectory() as tmp:
        out, err = os.path.join(tmp, "verdict.json"), os.path.join(tmp, "stderr")
        with open(err, "wb") as errf:
            proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--load", kind, path, how, out],
                                    stdout=subprocess.DEVNULL, stderr=errf)
            try:
                status, timed_out = proc.wait(timeout=timeout), False
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                status, timed_out = None, True
        if not timed_out and os.path.exists(out):
            with open(out) as f:
                return json.load(f)
        return died(status, timed_out, err, timeout)


def worker(args):
    """Runs in a release's venv: judges the cases of args.worker (a JSON list), writes args.worker_out."""
    with open(args.worker) as f:
        cases = json.load(f)
    os.chdir(args.root)
    load = load_fresh if args.fresh_interpreter else load_forked
    import tensorflow as tf  # imported once, before any fork: every child starts from here
    verdicts = {}
    for case in cases:
        name, kind = case["case"], case["kind"]
        if kind == "graph_def":
            verdicts[name] = load(kind, name, "import_graph_def", args.timeout)
        else:
            verdict = load(kind, name, "saved_model_load", args.timeout)
            verdict["import_graph_def"] = load(kind, name, "import_graph_def", args.timeout)
            verdicts[name] = verdict
        print(f"  {tf.__version__} {name}: {'ok' if verdicts[name]['ok'] else verdicts[name]['error_class']}",
              file=sys.stderr, flush=True)
    with open(args.worker_out, "w") as f:
        json.dump({"release": tf.__version__, "verdicts": verdicts}, f)


def describe_worker(args):
    """Runs in a venv: reads each case's versions and contents with TensorFlow's own protos."""
    from tensorflow.core.framework import graph_pb2
    from tensorflow.core.protobuf import saved_model_pb2
    with open(args.describe_worker) as f:
        cases = json.load(f)
    out = {}
    for case in cases:
        path = os.path.join(args.root, case["case"])
        info = {}
        if case["kind"] == "graph_def":
            data = open(path, "rb").read()
            graphs = [(None, graph_pb2.GraphDef.FromString(data))]
            info["bytes"] = len(data)
        else:
            data = open(os.path.join(path, "saved_model.pb"), "rb").read()
            model = saved_model_pb2.SavedModel.FromString(data)
            graphs = [(m, m.graph_def) for m in model.meta_graphs]
            info["bytes"] = sum(os.path.getsize(os.path.join(d, f))
                                for d, _, fs in os.walk(path) for f in fs)
            info["files"] = sorted(os.path.relpath(os.path.join(d, f), path)
                                   for d, _, fs in os.walk(path) for f in fs)
            info["saved_model_schema_version"] = model.saved_model_schema_version
        info["sha256"] = hashlib.sha256(data).hexdigest()
        metas = []
        for meta, graph in graphs:
            g = {"producer": graph.versions.producer, "min_consumer": graph.versions.min_consumer,
                 "bad_consumers": list(graph.versions.bad_consumers), "has_versions": graph.HasField("versions"),
                 "nodes": len(graph.node), "library_functions": len(graph.library.function)}
            if meta is not None:
                mi = meta.meta_info_def
                g.update({"tags": list(mi.tags), "tensorflow_version": mi.tensorflow_version or None,
                          "tensorflow_git_version": mi.tensorflow_git_version or None,
                          "signatures": sorted(meta.signature_def.keys()),
                          "object_graph_nodes": len(meta.object_graph_def.nodes),
                          "saver": meta.HasField("saver_def")})
            metas.append(g)
        info["graphs"] = metas
        out[case["case"]] = info
    with open(args.worker_out, "w") as f:
        json.dump(out, f)


# ---------------------------------------------------------------- the driver

def ensure_venv(venvs, release):
    """The venv of a release: used as it is when it imports TensorFlow, made when it is missing."""
    venv = os.path.join(venvs, f"tf-{release}")
    python = os.path.join(venv, "bin", "python")
    if os.path.exists(python):
        return python
    print(f"making {venv}: pip install tensorflow-cpu=={release}", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    f"tensorflow-cpu=={release}"], check=True)
    return python


def run_in(python, flag, cases, args, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        todo, out = os.path.join(tmp, "cases.json"), os.path.join(tmp, "out.json")
        with open(todo, "w") as f:
            json.dump(cases, f)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL=os.environ.get("TF_CPP_MIN_LOG_LEVEL", "1"))
        cmd = [python, os.path.abspath(__file__), flag, todo, "--worker-out", out,
               "--root", args.root, "--timeout", str(args.timeout), *extra]
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)


def judge_release(release, cases, args):
    python = ensure_venv(args.venvs, release)
    extra = ["--fresh-interpreter"] if args.fresh_interpreter else []
    result = run_in(python, "--worker", cases, args, extra)
    if result["release"] != release:
        sys.exit(f"the venv for {release} has TensorFlow {result['release']}")
    return result["verdicts"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--venvs", help="folder of the tf-<R> venvs (a missing one is made)")
    p.add_argument("--releases", nargs="+", default=RELEASES)
    p.add_argument("--cases", default=os.path.join(DATA, "cases.json"))
    p.add_argument("--set", choices=["kept", "external"], default="kept",
                   help="kept: the files under cases/; external: the ones named in cases.json but not kept")
    p.add_argument("--root", help="folder holding the cases (default: cases/ beside this script)")
    p.add_argument("--out", help="verdicts file to update (default: verdicts.json or external_verdicts.json)")
    p.add_argument("--only", nargs="+", help="judge only these cases")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--jobs", type=int, default=1, help="releases judged at once")
    p.add_argument("--fresh-interpreter", action="store_true", help="a new Python for every load")
    p.add_argument("--describe", action="store_true", help="fill each case's fields read from its files")
    # internal: the modes that run inside a release's venv
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--describe-worker", help=argparse.SUPPRESS)
    p.add_argument("--worker-out", help=argparse.SUPPRESS)
    p.add_argument("--load", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args()

    if args.load:
        kind, path, how, out = args.load
        verdict = load_once(kind, path, how)
        with open(out, "w") as f:
            json.dump(verdict, f)
        return
    if args.worker:
        return worker(args)
    if args.describe_worker:
        return describe_worker(args)

    if not args.venvs:
        p.error("--venvs DIR is needed")
    with open(args.cases) as f:
        all_cases = json.load(f)
    cases = [c for c in all_cases if c["kept"] == (args.set == "kept")]
    if args.only:
        cases = [c for c in cases if c["case"] in args.only]
    if args.root is None:
        if args.set == "external":
            p.error("--set external needs --root: the folder you copied the external cases into")
        args.root = os.path.join(DATA, "cases")
    args.root = os.path.abspath(args.root)
    missing = [c["case"] for c in cases if not os.path.exists(os.path.join(args.root, c["case"]))]
    if missing:
        sys.exit(f"missing under {args.root}: {', '.join(missing)}")

    if args.describe:
        python = ensure_venv(args.venvs, args.releases[-1])
        info = run_in(python, "--describe-worker", cases, args)
        for c in all_cases:
            if c["case"] in info:
                c["file"] = info[c["case"]]
        with open(args.cases, "w") as f:
            json.dump(all_cases, f, indent=1, sort_keys=True)
            f.write("\n")
        return

    out = args.out or os.path.join(DATA, "verdicts.json" if args.set == "kept" else "external_verdicts.json")
    verdicts = {}
    if os.path.exists(out):
        with open(out) as f:
            verdicts = json.load(f)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(judge_release, r, cases, args): r for r in args.releases}
        for future in concurrent.futures.as_completed(futures):
            release = futures[future]
            for name, verdict in future.result().items():
                verdicts.setdefault(name, {})[release] = verdict
            # written after every release, so an interrupted run keeps what it made
            ordered = {n: {r: v[r] for r in RELEASES if r in v} for n, v in sorted(verdicts.items())}
            with open(out, "w") as f:
                json.dump(ordered, f, indent=1, sort_keys=True)
                f.write("\n")
            print(f"{release}: done", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
