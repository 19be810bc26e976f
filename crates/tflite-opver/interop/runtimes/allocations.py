"""Makes tflite-opver's real allocation verdicts: what thirty real TensorFlow Lite runtimes'
`allocate_tensors()` did with the committed models.

    python3 crates/tflite-opver/interop/runtimes/allocations.py [--venvs DIR] [--tool BINARY]

Run from the repository's root after `verdicts.py` (whose venvs and runtimes it shares). For
every model under `crates/tflite-opver/tests/data/runtimes/` (converted by each release, the
Flex and custom-op models of `flex/`, the hand-made specimens, the real third-party models) and
the third-party models re-stamped (`KEY@raise`, `tflite-opver stamp`), and every runtime, it
constructs `Interpreter(model_content=bytes)` and then calls `allocate_tensors()` (`judge.py
--allocate`), and writes `tests/data/runtimes/allocations.json`: `runtimes`, `texts` (each
distinct `[exception class, text]` that `allocate_tensors()` raised) and `models`: per model,
one entry per runtime: -1 allocated, -2 crashed (a segmentation fault, at construction or
allocation), -3 not constructed (`verdicts.json` has its words), else the index of the text.

The signature models of `tests/data/sig/` are left out: single builtin operators, whose
allocation the crate does not judge.
"""
import argparse
import glob
import json
import os
import subprocess
import tempfile

import verdicts as v

FLEX_RELEASES = ["2.21.0", "2.16.2"]


def judge(python, family, models, scratch):
    """{model: (constructs, allocates, class, text)} from one runtime; a crash is (None, ...)."""
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
        subprocess.run([python, os.path.join(v.HERE, "judge.py"), family, listing, log,
                        "--allocate"], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        started = None
        with open(log) as f:
            for line in f:
                entry = json.loads(line)
                if entry.get("started"):
                    started = entry["file"]
                else:
                    results[entry["file"]] = (entry["ok"], entry["allocates"],
                                              entry["allocate_class"], entry["allocate_error"])
                    started = None
        if started is not None:  # it crashed on this one
            results[started] = (None, None, None, None)
        remaining = [m for m in remaining if m not in results]
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venvs", default=os.path.join("target", "tf-releases-venvs"))
    parser.add_argument("--tool", help="the tflite-opver binary (default: built with cargo)")
    parser.add_argument("--convert", action="store_true",
                        help="convert the models of flex/ again first (flex.py)")
    args = parser.parse_args()
    venvs = os.path.abspath(args.venvs)
    tool = args.tool
    if tool is None:
        subprocess.run(["cargo", "build", "--quiet", "-p", "tflite-opver", "--features", "cli",
                        "--bin", "tflite-opver"], check=True)
        tool = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "debug",
                            "tflite-opver")
    if args.convert:
        for release in FLEX_RELEASES:
            python = v.ensure_venv(venvs, "tensorflow-cpu", release, [])
            subprocess.run([python, os.path.join(v.HERE, "flex.py"),
                            os.path.join(v.OUT, "flex", f"tf-{release}")], check=True,
                           env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
                           stderr=subprocess.DEVNULL)
    models = {}
    for path in sorted(glob.glob(os.path.join(v.OUT, "*", "**", "*.tflite"), recursive=True)):
        models[path] = os.path.relpath(path, v.OUT)
    texts, rows, names = [], {}, []
    index = {}
    with tempfile.TemporaryDirectory() as scratch:
        models.update(v.restamp(tool, {p: k for p, k in models.items()
                                       if k.startswith("wild/")}, scratch))
        for key in models.values():
            rows[key] = []
        for family, version, pins in v.runtimes():
            names.append(f"{family} {version}")
            python = v.ensure_venv(venvs, family, version, pins)
            print(f"allocating with {family} {version}", flush=True)
            results = judge(python, family, list(models), scratch)
            for path, key in models.items():
                constructs, allocates, class_, text = results[path]
                if constructs is None:
                    rows[key].append(-2)
                elif not constructs:
                    rows[key].append(-3)
                elif allocates:
                    rows[key].append(-1)
                else:
                    entry = (class_, text)
                    if entry not in index:
                        index[entry] = len(texts)
                        texts.append(list(entry))
                    rows[key].append(index[entry])
    with open(os.path.join(v.OUT, "allocations.json"), "w") as f:
        f.write('{\n"runtimes": [\n')
        f.write(",\n".join(json.dumps(name) for name in names))
        f.write('\n],\n"texts": [\n')
        f.write(",\n".join(json.dumps(text) for text in texts))
        f.write('\n],\n"models": {\n')
        f.write(",\n".join(f"{json.dumps(key)}: {json.dumps(rows[key])}" for key in sorted(rows)))
        f.write("\n}\n}\n")
    print(f"{len(models)} models x {len(names)} runtimes")


if __name__ == "__main__":
    main()
