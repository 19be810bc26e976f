"""Copies what the shared TensorFlow oracle says of the thirty runtimes into the crate's test data.

    python3 copy_oracle.py ORACLE_DIR

ORACLE_DIR is the oracle's `tflite_runtimes/` folder (beside the checkout when the data was
copied). Writes, in `crates/tflite-opver/tests/data/runtimes/`:

- `oracle_registrations.json`: its `registrations.json`, as it is;
- `oracle_verdicts.json`: its `verdicts_shared_tflite.json` cut down to what the crate judges,
  construction, in the layout of `verdicts.py`'s `verdicts.json` (one text table, one line per
  model, -1 for a runtime that constructs the interpreter), keyed by the model's file in
  `tests/data/tflite/`.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "..", "tests", "data", "runtimes"))
oracle = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
shutil.copyfile(os.path.join(oracle, "registrations.json"),
                os.path.join(OUT, "oracle_registrations.json"))
shared = json.load(open(os.path.join(oracle, "verdicts_shared_tflite.json")))
names = sorted({runtime for per in shared.values() for runtime in per},
               key=lambda n: ({"tensorflow-cpu": 0, "tflite-runtime": 1, "ai-edge-litert": 2}[
                   n.split()[0]], [int(p) for p in n.split()[1].split(".")]))
texts, index, models = [], {}, {}
for key, per in sorted(shared.items()):
    row = []
    for name in names:
        verdict = per[name]
        if verdict["constructs"]:
            row.append(-1)
            continue
        entry = (verdict["construct_error_class"], verdict["construct_error"])
        if entry not in index:
            index[entry] = len(texts)
            texts.append(list(entry))
        row.append(index[entry])
    models[os.path.basename(key)] = row
with open(os.path.join(OUT, "oracle_verdicts.json"), "w") as f:
    f.write('{\n"runtimes": [\n' + ",\n".join(json.dumps(n) for n in names))
    f.write('\n],\n"texts": [\n' + ",\n".join(json.dumps(t) for t in texts))
    f.write('\n],\n"models": {\n')
    f.write(",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in models.items()))
    f.write("\n}\n}\n")
print(f"{len(models)} models x {len(names)} runtimes, {len(texts)} texts")
