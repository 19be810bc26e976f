"""Makes tflite-opver's real verdicts on re-stamping: the converter models whose stamps are too
low, as stored and re-stamped, constructed by thirty real TensorFlow Lite runtimes.

    python3 crates/tflite-opver/interop/runtimes/restamped.py [--venvs DIR] [--tool BINARY]

Run from the repository's root after `verdicts.py` (whose venvs and runtimes it shares). For
every model of `crates/tflite-opver/tests/data/tflite/` and `tests/data/runtimes/converted/`
(converted by each of the ten releases) that `tflite-opver runtimes --json` finds stored too low
(`stored_too_low` not empty: mostly the int16x8 models, whose converter path stamps from an
older table), it judges the model as stored (its path under `tests/data/`) and the copy
`tflite-opver stamp` writes (the same with `@raise`) with every runtime (`judge.py`:
`Interpreter(model_content=bytes)`), and writes `tests/data/runtimes/restamped.json` in the
layout of `verdicts.json`. The tests compare `restamp_refused_by` with it: the runtimes whose
row for the stored model is -1 (constructed) and for the re-stamped copy is not.
"""
import argparse
import glob
import json
import os
import subprocess
import tempfile

import verdicts as v


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--venvs", default=os.path.join("target", "tf-releases-venvs"))
    parser.add_argument("--tool", help="the tflite-opver binary (default: built with cargo)")
    args = parser.parse_args()
    venvs = os.path.abspath(args.venvs)
    tool = args.tool
    if tool is None:
        subprocess.run(["cargo", "build", "--quiet", "-p", "tflite-opver", "--features", "cli",
                        "--bin", "tflite-opver"], check=True)
        tool = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "debug",
                            "tflite-opver")
    models = {}
    paths = sorted(glob.glob(os.path.join(v.DATA, "tflite", "*.tflite")))
    paths += sorted(glob.glob(os.path.join(v.OUT, "converted", "*", "*.tflite")))
    for path in paths:
        out = subprocess.run([tool, "runtimes", path, "--json"], capture_output=True, text=True)
        if json.loads(out.stdout)["stored_too_low"]:
            models[path] = os.path.relpath(path, v.DATA)
    texts, rows = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        models.update(v.restamp(tool, dict(models), scratch))
        names = v.judge_all(venvs, v.runtimes(), models, scratch, texts, rows)
    with open(os.path.join(v.OUT, "restamped.json"), "w") as f:
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
